#!/usr/bin/env bash
# Ping-pong buffer modes on one or two GPUs, about 4 minutes: the GPU unit tests; host <-> GPU ping-pong over the
# staged and device transports, and GPU <-> GPU over ipc, device, nccl and
# staged (on one GPU, device refuses: two processes would take turns on it),
# with separate send and receive buffers (the default) and with
# --buffers echo, 8 B to 128 MiB,
# every size's data verified; the bad-input table and the real-signal
# interrupt checks on a machine that has a GPU (their answers must not
# depend on one). OUT_DIR/summary.txt has one line per ping-pong run.
# usage: bench/suites/pingpong_buffers_gpu.sh BIN_DIR OUT_DIR   (BIN_DIR: xferbench, xferbench_tests)
. "$(dirname "$0")/common.sh" "$@"
mpi=(mpirun --allow-run-as-root -np 2)

bench_start
runs=()
for dev in "host gpu" "gpu gpu"; do
  set -- $dev
  if [[ $1 == host ]]; then transports=(staged device); else transports=(ipc device nccl staged); fi
  for t in "${transports[@]}"; do
    for b in separate echo; do
      name="pp_$1_$2_${t}_$b"
      timeout 120 "${mpi[@]}" "$x" pingpong --dev1 "$1" --dev2 "$2" --transport "$t" --buffers "$b" \
        -n 25 --loop-count 200 -o "$out/$name.json" >"$out/$name.txt" 2>&1
      echo "exit $?" >>"$out/$name.txt"
      runs+=("$name")
    done
  done
done

# One line per run: exit, status, sizes verified, 8 B median one-way time,
# bandwidth at 1 MiB and at 64 MiB.
for name in "${runs[@]}"; do
  python3 - "$out/$name.json" "$name" "$(tail -1 "$out/$name.txt")" <<'EOF' >>"$out/summary.txt"
import json, sys
path, name, exit_line = sys.argv[1:4]
try:
    d = json.load(open(path))
except Exception as e:
    print(f"{name:32} {exit_line}; no result ({e.__class__.__name__})")
    sys.exit()
p = d["pairs"][0]
by = {s["bytes"]: s for s in p["sizes"]}
ok = sum(1 for s in p["sizes"] if s.get("verified"))
def us(b): return f'{by[b]["one_way_time_s"]["median"] * 1e6:.2f} us' if b in by else "-"
def gb(b): return f'{by[b]["bandwidth_gbps"]:.1f} GB/s' if b in by else "-"
print(f"{name:32} {exit_line}; {d['status']}; path {p.get('path')}; buffers {d.get('buffers')}; "
      f"{ok}/{len(p['sizes'])} sizes verified; 8 B {us(8)}; 1 MiB {gb(1 << 20)}; 64 MiB {gb(64 << 20)}")
EOF
done
cat "$out/summary.txt"

tests/bad_inputs.sh "$x" tests/data/bad_inputs.tsv tests/data/bad_inputs >"$out/bad_inputs.txt" 2>&1
echo "bad inputs: exit $?, $(tail -1 "$out/bad_inputs.txt")"
tests/test_interrupts_mpi.sh "$x" "$(command -v mpirun)" >"$out/interrupts_mpi.txt" 2>&1
echo "interrupts under mpirun: exit $?"; cat "$out/interrupts_mpi.txt"
