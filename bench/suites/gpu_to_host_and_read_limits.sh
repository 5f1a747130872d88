#!/usr/bin/env bash
# Two limits of the SM-issued GPU paths on one GPU (H200), ~2 minutes:
# 1. GPU -> host through the device path: the probe bench/probes/host_target_probe.cu
#    (GPU -> host only, per-block parts with release flags) with each of its
#    knobs alone and all together (SRC, LOAD, COOP, FLAGS, POLL: what the
#    device transport does differently; CHILD: a second process on the
#    segment, as the host rank; BARRIER: blocks that wait for each other
#    by polling flags in host memory or in GPU memory), beside xferbench's own
#    `pingpong --dev1 gpu --dev2 host --mode bw` at 16-256 MiB;
# 2. HBM read from few SMs: bench/probes/sm_kernel_shapes.cu's bulk shapes with L2
#    prefetch ahead (bulkpf*) against plain bulk, and reads through the bulk
#    unit and vector loads at once (mix*), SMs spread over the ids;
# 3. host <-> GPU bulk shapes at 1, 2 and all SMs, three rounds (run-to-run
#    drift at one SM).
# Writes OUT_DIR/{probe_*.csv, shapes_*.csv, shapes2_*.csv, pp_gpu_host_bw.*, summary.txt}.
# usage: bench/suites/gpu_to_host_and_read_limits.sh BIN_DIR OUT_DIR
#        (BIN_DIR: xferbench, xferbench_tests, host_target_probe, sm_kernel_shapes)
. "$(dirname "$0")/common.sh" "$@"
{ date -u; nvidia-smi -L; "$x" list; } >"$out/list.txt" 2>&1
for knobs in "" "SRC=pattern" "LOAD=plain" "COOP=1" "FLAGS=shm" "POLL=query" \
  "SRC=pattern LOAD=plain COOP=1 FLAGS=shm POLL=query" "FLAGS=shm CHILD=map" "FLAGS=shm CHILD=poll" \
  "COOP=1 BARRIER=host" "COOP=1 BARRIER=host FLAGS=shm" "COOP=1 BARRIER=dev"; do
  name="probe_$(echo "${knobs:-none}" | tr ' =' '_-')"
  env SHAPE=parts_flags DIRS=to_host $knobs timeout 120 "$bin/host_target_probe" >"$out/$name.csv" 2>&1
  echo "$name ($knobs): $(awk -F, '$2=="shm" {printf "%s MiB %s %s; ", $4, $5, $6}' "$out/$name.csv")" >>"$out/summary.txt"
done
timeout 150 mpirun --allow-run-as-root -np 2 "$x" pingpong --dev1 gpu --dev2 host --mode bw --min-size 16M \
  -n 5 -o "$out/pp_gpu_host_bw.json" >"$out/pp_gpu_host_bw.txt" 2>&1
echo "xferbench pingpong gpu->host bw exit $?: $(json "$out/pp_gpu_host_bw.json" "[(s['bytes'] >> 20, round(s['bandwidth_gbps'], 1), s['verified']) for s in d['pairs'][0]['sizes']]")" >>"$out/summary.txt"
p="$bin/sm_kernel_shapes"
S=1,2,4,8,16,32,48,64,all
"$p" --ops read --only bulk --sms $S --pick spread --passes 4 >"$out/shapes_read.csv" 2>>"$out/shapes.log"
"$p" --ops copy --only bulk --sms $S --pick spread --passes 4 >"$out/shapes_copy.csv" 2>>"$out/shapes.log"
for r in 1 2 3; do
  "$p" --ops d2h,h2d --only bulk_s --sms 1,2,all --pick spread >"$out/shapes2_host_$r.csv" 2>>"$out/shapes.log"
done
"$p" --ops read --only mix --sms $S --pick spread --passes 4 >"$out/shapes2_read_mix.csv" 2>>"$out/shapes.log"
"$p" --ops read --only bulk_s3_c32 --sms $S --pick spread --passes 4 >"$out/shapes2_read_bulk.csv" 2>>"$out/shapes.log"
python3 - "$out" >>"$out/summary.txt" <<'PY'
import csv, glob, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "shapes*.csv"))):
    curves = {}
    for r in csv.DictReader(open(f)):
        if r["launch"] != "pinned":
            continue
        curves.setdefault((r["op"], r["shape"], r["blocks_per_sm"]), []).append((r["sms"], float(r["gbps"]), r["verified"]))
    for (op, shape, b), pts in sorted(curves.items(), key=lambda kv: -kv[1][0][1]):
        print(f"{os.path.basename(f)} {op} {shape} b{b}: " + " ".join(f"{s}:{g:.1f}{'' if v in ('ok', 'na') else '!' + v}" for s, g, v in pts))
PY
cat "$out/summary.txt"
