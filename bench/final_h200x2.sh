#!/usr/bin/env bash
# The recorded runs on nvidia-h200-x2: device list, three full-catalogue runs
# (reference comparison and run-to-run spread), the quick suite from process
# start, GPU unit tests, ping-pong paths against a bare MPI loop, the
# concurrent-transfer examples and the first-touch runs.
# usage: bench/final_h200x2.sh BIN_DIR OUT_DIR   (BIN_DIR: xferbench, xferbench_tests, mpi_bare_pingpong)
. "$(dirname "$0")/common.sh" "$@"
mpi="mpirun --allow-run-as-root -np 2"
bench_start
for i in 1 2 3; do "$x" run --suite full -q -o "$out/full$i.json" > "$out/full$i.txt" 2>&1; done
start=$(date +%s.%N); "$x" -q > "$out/quick.txt" 2>&1; end=$(date +%s.%N)
python3 -c "print(f\"quick suite, process start to last line: {$end - $start:.2f} s\")"
{
  for m in blocking test; do timeout 120 $mpi "$bin/mpi_bare_pingpong" $m; done
  for r in 1 2 3; do timeout 120 $mpi "$x" pingpong --dev1 host --dev2 host -n 8 --loop-count 100000; done
  for t in ipc nccl staged; do
    for mode in pingpong bw; do timeout 180 $mpi "$x" pingpong --dev1 gpu --dev2 gpu -n 27 --transport $t --mode $mode; done
  done
} > "$out/pingpong.txt" 2>&1
grep -E "bare_mpi|transport|^\|  *(8|536870912)\|" "$out/pingpong.txt" | head -40
timeout 200 bash "$here/concurrent_examples.sh" "$x" "$out/concurrent" > /dev/null 2>&1; tail -14 "$out/concurrent/summary.txt"
timeout 300 bash "$here/first_touch.sh" "$x" "$out/first_touch" > /dev/null 2>&1; tail -30 "$out/first_touch/summary.txt"
python3 "$here/summarize.py" "$out"/full[123].json | tee "$out/summary.txt"
