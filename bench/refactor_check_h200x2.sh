#!/usr/bin/env bash
# After session 2's folds (one queued-stream base for the ipc and nccl
# transports, one NCCL pair communicator for pingpong and first-touch): the
# GPU unit tests, every GPU ping-pong path under mpirun, first-touch over
# nccl and ipc, the progress line on a pseudo-terminal, one full catalogue
# and the quick suite.
# usage: bench/refactor_check_h200x2.sh BIN_DIR OUT_DIR   (BIN_DIR: xferbench, xferbench_tests)
. "$(dirname "$0")/common.sh" "$@"
mpi="mpirun --allow-run-as-root -np 2"
bench_start
{
  timeout 120 $mpi "$x" pingpong --dev1 host --dev2 host -n 8 --loop-count 100000
  for t in ipc nccl staged; do
    for mode in pingpong bw; do timeout 180 $mpi "$x" pingpong --dev1 gpu --dev2 gpu -n 27 --transport $t --mode $mode; done
  done
} > "$out/pingpong.txt" 2>&1
grep -E "transport|^\|  *(8|536870912)\||rror" "$out/pingpong.txt" | head -40
{
  for t in nccl ipc; do
    timeout 200 $mpi "$x" first-touch 5 3 1K 1G 1 --transport $t; echo "exit $?"
    timeout 200 $mpi "$x" first-touch 5 3 1G 1G 1 --transport $t; echo "exit $?"
  done
} > "$out/first_touch.txt" 2>&1
grep -E "^exit|rror" "$out/first_touch.txt"
# The progress line only appears on a terminal: the full catalogue runs
# under a pseudo-terminal and its raw bytes (carriage returns included) are kept.
start=$(date +%s.%N)
python3 -c 'import pty,sys; pty.spawn(sys.argv[1:])' "$x" run --suite full -o "$out/full.json" > "$out/full_tty.raw" 2>&1
end=$(date +%s.%N)
python3 -c "print(f\"full catalogue, process start to last line: {$end - $start:.2f} s\")" | tee "$out/full_time.txt"
python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); t=d.decode(errors="replace").replace("\r","\n").split("\n"); p=[l.strip() for l in t if l.startswith("[")]; print("carriage returns:", d.count(b"\r"), "| progress lines:", len(p), "| first and last:", p[:2], p[-2:])' \
  "$out/full_tty.raw" | tee "$out/progress_check.txt"
start=$(date +%s.%N); "$x" -q > "$out/quick.txt" 2>&1; end=$(date +%s.%N)
python3 -c "print(f\"quick suite, process start to last line: {$end - $start:.2f} s\")" | tee "$out/quick_time.txt"
python3 "$here/summarize.py" "$out/full.json" | tee "$out/summary.txt"
