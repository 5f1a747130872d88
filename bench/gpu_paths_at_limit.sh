#!/usr/bin/env bash
# Issue 28 on one GPU (nvidia-h200), one call, about 6 minutes: the GPU unit
# tests; `sweep --sms` of every SM-budget case that runs on one GPU (each
# curve ends with the named case measured again); nvbandwidth v0.8 beside
# `run --suite full`, 3 interleaved rounds (catalogue_vs_nvbandwidth.sh);
# host <-> GPU ping-pong, 8 B to 256 MiB, in pingpong and bw modes, on the
# default path (device) and on staged (the default before). Every copy and
# message is verified. OUT_DIR/summary.txt: one line per sweep series and
# per ping-pong run.
# usage: bench/gpu_paths_at_limit.sh BIN_DIR OUT_DIR NVBANDWIDTH
. "$(dirname "$0")/common.sh" "$@"
nvb="$(readlink -f "$3")"
mpi=(mpirun --allow-run-as-root -np 2)

bench_start
df -h /dev/shm >>"$out/list.txt" 2>&1
for c in host_to_device_memcpy_sm device_to_host_memcpy_sm device_local_read_sm device_local_write_sm \
  device_local_copy_tma; do
  timeout 240 "$x" sweep -t "$c" --sms 1,2,4,8,16,32,48,64,96,all -o "$out/sms_$c.json" >"$out/sms_$c.txt" 2>&1
  echo "sms $c exit $?" >>"$out/summary.txt"
  json "$out/sms_$c.json" "'\n'.join(f\"  {s['label']}: 1 SM {s['points'][0]['value_gbps']:.1f} GB/s, all {s['all_sm_gbps']:.1f}, named {s['named_case_gbps']}, 90% from {s['sms_for_90pct']}, 95% from {s['sms_for_95pct']}, curve \" + ' '.join(f\"{p['sms']}:{p['value_gbps']:.0f}\" for p in s['points']) for s in d['series'])" >>"$out/summary.txt"
done
for run in "host gpu auto pingpong" "host gpu auto bw" "gpu host auto bw" "host gpu staged pingpong" \
  "host gpu staged bw" "gpu host staged bw"; do
  set -- $run
  name="pp_$1_$2_$3_$4"
  timeout 150 "${mpi[@]}" "$x" pingpong --dev1 "$1" --dev2 "$2" --transport "$3" --mode "$4" -n 26 \
    -o "$out/$name.json" >"$out/$name.txt" 2>&1
  rc=$?
  echo "$name exit $rc status=$(json "$out/$name.json" "d['status']") transport=$(json "$out/$name.json" "d['pairs'][0]['transport']") all_verified=$(json "$out/$name.json" "all(s['verified'] for p in d['pairs'] for s in p['sizes'])") one_way_us_8B=$(json "$out/$name.json" "round(d['pairs'][0]['sizes'][0]['one_way_time_s']['median']*1e6, 2)") gbps_16M_up=$(json "$out/$name.json" "[round(s['bandwidth_gbps'], 1) for s in d['pairs'][0]['sizes'] if s['bytes'] >= 16 << 20]")" >>"$out/summary.txt"
done
cat "$out/summary.txt"
"$here/catalogue_vs_nvbandwidth.sh" "$bin" "$out/catalogue" "$nvb" 3 >"$out/catalogue.log" 2>&1
tail -3 "$out/catalogue.log"
