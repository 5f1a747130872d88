#!/usr/bin/env bash
# Seed command lines and safe output files on a GPU machine (2 GPUs; most
# steps also run on one):
#  - seed README command lines run for real: multi-gpu-bwtest's --list and
#    --do examples, CUts' -d/-h short options and --dtod pair, the
#    gpudirect-p2p-overalloc line on host buffers (MPI path: the seed's
#    "Doing MPI_Send/Recv" line);
#  - piped output arrives as it is measured: sweep rows and run cases carry
#    arrival times, the first must come well before the last;
#  - -o: a directory is refused with exit 7 before any measurement (run,
#    cuts, sweep, pingpong, first-touch), -o /dev/stdout (a symlink to a
#    pipe) is written through;
#  - the unit tests of this work with the GPU present (driver branch of the
#    no-driver message, output files, seed command lines).
# Usage: bench/suites/seeds_device.sh BIN_DIR OUT_DIR. About 60-90 s. Every step has
# a timeout and the script goes on after a failure; logs under OUT_DIR, a
# summary table (also OUT_DIR/summary.txt) at the end.
. "$(dirname "$0")/common.sh" "$@"
mpirun=(mpirun --allow-run-as-root --oversubscribe -np 2)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
summary="$out/summary.txt"
: >"$summary"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# step NAME WANT_EXIT PATTERN COMMAND...: runs COMMAND (timeout 120 s), log
# in OUT_DIR/NAME.log; ok when it exits WANT_EXIT and its output matches
# the extended regular expression PATTERN.
step() {
  local name=$1 want=$2 pattern=$3
  shift 3
  local t0=$SECONDS
  timeout 120 "$@" >"$out/$name.log" 2>&1
  local rc=$?
  local verdict=ok
  if [[ $rc -ne $want ]] || ! grep -Eq -- "$pattern" "$out/$name.log"; then verdict=FAIL; fi
  printf '%-28s %-5s exit %-3s (want %-3s) %4ss\n' "$name" "$verdict" "$rc" "$want" "$((SECONDS - t0))" | tee -a "$summary"
}

# timed NAME COMMAND...: COMMAND's stdout through a pipe, each line prefixed
# with its arrival time (s since start); the log is OUT_DIR/NAME.log.
timed() {
  local name=$1
  shift
  local start
  start=$(date +%s.%N)
  timeout 120 "$@" 2>"$out/$name.err" | while IFS= read -r line; do
    awk -v now="$(date +%s.%N)" -v t0="$start" -v l="$line" 'BEGIN { printf "%.2f %s\n", now - t0, l }'
  done >"$out/$name.log"
}

# streamed NAME PATTERN: the first line matching PATTERN arrived at least 1 s
# before the last line of the log (rows were not held back to the end).
streamed() {
  local name=$1 pattern=$2
  local first last
  first=$(grep -E -- "$pattern" "$out/$name.log" | head -1 | cut -d' ' -f1)
  last=$(tail -1 "$out/$name.log" | cut -d' ' -f1)
  local verdict=FAIL
  if [[ -n "$first" && -n "$last" ]] && awk -v a="$first" -v b="$last" 'BEGIN { exit !(b - a >= 1) }'; then
    verdict=ok
  fi
  printf '%-28s %-5s first row at %ss, last line at %ss\n' "$name" "$verdict" "${first:--}" "${last:--}" | tee -a "$summary"
}

bench_start
step unit_tests 0 "PASSED" "$bin/xferbench_tests" --gtest_filter='Seed*:OutputFile*:SweepReport*:Gpu*'

# Seed command lines (program name replaced).
step bwtest_list 0 "gpu0|GPU 0" "$x" --list
step bwtest_all_both 0 "host->gpu0" "$x" --do=all:1024:both
if [[ $gpus -ge 2 ]]; then
  step bwtest_mapped_2gpu 0 "gpu0->host" "$x" --do=0:DtoH:$((64 * 1024 * 102)):mapped --do=1:1024:HtoD
  step cuts_d_h 0 "Transfer 1 - Direct transfers with device 1 \(Host to Device\)" "$x" cuts -d 0 -h 1 -s 64M -i 10
  step cuts_dtod_pair 0 "Transfer 0 - P2P transfers from device 0 to device 1" "$x" cuts --dtod=1,0 --dtod=0,1 -s 256M -i 10
else
  step cuts_d_h 0 "Transfer 1 - Direct transfers with device 0 \(Host to Device\)" "$x" cuts -d 0 -h 0 -s 64M -i 10
fi
step cuts_usage 0 "-h,--htod" "$x" cuts --usage
step first_touch_mpi_line 0 "Doing MPI_Send/Recv from rank 0 to rank 1, of 1024 bytes from a buffer of 1048577 bytes" \
  "${mpirun[@]}" "$x" first-touch 2 3 1K 1M 1 --memory host

# Output as it is measured, through a pipe.
timed sweep_piped "$x" sweep --do 0:HtoD --min 4K --max 256M --factor 4 -i 5 --sample-ms 50
streamed sweep_piped '^[0-9.]+ +4096 '
timed run_piped "$x" run -t 0 1 2 -b 256
streamed run_piped '^[0-9.]+ Running '

# -o: a directory refused before any measurement; /dev/stdout written through.
mkdir "$work/d.json"
step dir_run 7 "cannot write output file '$work/d.json': it is a directory" "$x" run -t 0 -o "$work/d.json"
step dir_cuts 7 "it is a directory" "$x" cuts --dtoh=0 -o "$work/d.json"
step dir_sweep 7 "it is a directory" "$x" sweep --do 0:HtoD --min 1M --max 4M -o "$work/d.json"
step dir_pingpong 7 "it is a directory" "${mpirun[@]}" "$x" pingpong --dev1 gpu --dev2 gpu -n 4 -o "$work/d.json"
step dir_first_touch 7 "it is a directory" "${mpirun[@]}" "$x" first-touch 2 2 1K 1G 1 -o "$work/d.json"
step dev_stdout 0 '"schema": "xferbench-run"' "$x" run -t 0 -b 64 -i 3 -q --format csv -o /dev/stdout

echo "--- summary (also $summary)"
cat "$summary"
