#!/bin/bash
# End-to-end pingpong checks through mpirun that need no GPU: real runs on
# host buffers (the table, JSON, the device protocol through shared
# memory), launch mistakes and bad input (every rank ends with one status,
# one message), and output rules (rows streamed through a pipe, no progress
# line there). Every check tests the exit code and the output.
# Usage: test_pingpong_mpi.sh XFERBENCH MPIRUN
set -u
xb=$1
mpirun=("$2" --allow-run-as-root --oversubscribe)
failures=0
out=$(mktemp)
trap 'rm -f "$out" "$out".json "$out".stamped "$out".rc' EXIT
source "$(dirname "$0")/mpi_procs.sh"

fail() {
  echo "FAIL $1"
  sed 's/^/    /' "$out"
  failures=$((failures + 1))
}

# expect NAME EXIT_CODE PATTERN COMMAND...: the command exits with EXIT_CODE and
# its output (stdout and stderr) matches the extended regular expression PATTERN.
expect() {
  local name=$1 code=$2 pattern=$3
  shift 3
  timeout 120 "$@" >"$out" 2>&1
  local got=$?
  if [[ $got -ne $code ]] || ! grep -Eq -- "$pattern" "$out"; then
    fail "$name: exit $got (want $code), output:"
  else
    echo "ok   $name"
  fi
}

# once NAME: the last command printed exactly one "xferbench: error:" line.
once() {
  local n
  n=$(grep -c "xferbench: error:" "$out")
  if [[ $n -ne 1 ]]; then fail "$1: $n error lines (want 1)"; else echo "ok   $1"; fi
}

row='\|[ ]+[0-9]+\|[ ]+[0-9]+\.[0-9]+\|[ ]+[0-9]+\.[0-9]+\|[ ]+[0-9]+\.[0-9]+\|[ ]+[0-9]+\.[0-9]+\|[ ]+[0-9]+\.[0-9]+\|[ ]+[0-9]+\.[0-9]+\|'
header='\| Data Size \(B\) \| Avg Transfer Time \(s\) \| Bandwidth \(GB/s\) \| Min Time \(s\) \| Median Time \(s\) \| p99 Time \(s\) \| Max Time \(s\) \|'

# Real runs.
expect host_2ranks 0 "# data verified: all 6 sizes passed" \
  "${mpirun[@]}" -np 2 "$xb" pingpong --dev1 host --dev2 host -n 6 --loop-count 5
grep -Eq "transport mpi" "$out" && grep -Eq "$header" "$out" && [[ $(grep -Ec "^$row\$" "$out") -eq 6 ]] ||
  fail "host_2ranks: header, transport or 6 rows missing"
expect seed_spellings 0 "# data verified: all 4 sizes passed" \
  "${mpirun[@]}" -np 2 "$xb" pingpong -dev1 vh -dev2 vh -n 4 -loop_count 3
# The pingpong JSON is versioned like the other schemas.
expect bw_json_schema_version 0 '"schema_version": 1' \
  "${mpirun[@]}" -np 2 "$xb" pingpong -n 4 --loop-count 3 --mode bw --format json
grep -q '"schema": "xferbench-pingpong"' "$out" && grep -q '"p99"' "$out" && grep -q '"status": "ok"' "$out" ||
  fail "bw_json_schema_version: schema, p99 or status missing"
# The device protocol with host buffers on both ranks: two CPU threads
# through shared memory, LL words for 8..32 B, stores and flags above.
for mode in pingpong bw bibw; do
  expect "device_host_host_$mode" 0 "# data verified: all 6 sizes passed" \
    "${mpirun[@]}" -np 2 "$xb" pingpong --transport device --mode $mode -n 6 --ll-max 32 --loop-count 20
  grep -q "transport device" "$out" && grep -q "# path: both ranks: a CPU thread" "$out" ||
    fail "device_host_host_$mode: transport or path line missing"
done
# Separate send and receive buffers on both ranks by default (as
# osu_latency); --buffers echo has the responder send back what it received.
expect buffers_separate_by_default 0 "# data verified: all 4 sizes passed" \
  "${mpirun[@]}" -np 2 "$xb" pingpong -n 4 --loop-count 3
grep -q "warm-up 5, buffers separate" "$out" || fail "buffers_separate_by_default: header does not say buffers separate"
expect buffers_echo 0 '"buffers": "echo"' \
  "${mpirun[@]}" -np 2 "$xb" pingpong -n 4 --loop-count 3 --buffers echo --format json
grep -q '"status": "ok"' "$out" || fail "buffers_echo: status not ok"
expect buffers_bad_value 2 "invalid --buffers 'same': use separate or echo" \
  "${mpirun[@]}" -np 2 "$xb" pingpong --buffers same
once buffers_bad_value_printed_once
expect buffers_echo_in_bw_mode 2 "--buffers echo applies to --mode pingpong only, not --mode bw" \
  "${mpirun[@]}" -np 2 "$xb" pingpong --mode bw --buffers echo
expect device_all_pairs 0 "# r1-r2: transport device, verified" \
  "${mpirun[@]}" -np 3 "$xb" pingpong --transport device --all-pairs -n 2 --loop-count 2

# Launch mistakes and bad input.
expect no_launcher 6 "launch it with: mpirun -np 2 xferbench pingpong" env -u OMPI_COMM_WORLD_SIZE "$xb" pingpong -n 2
expect one_rank 6 "started with 1 MPI process\(es\), 2 or more are needed; launch it with" \
  "${mpirun[@]}" -np 1 "$xb" pingpong -n 2
expect three_ranks_without_all_pairs 2 "needs exactly 2 ranks, got 3; use --all-pairs" \
  "${mpirun[@]}" -np 3 "$xb" pingpong -n 2
expect bad_transport 2 "invalid transport 'tcp'" "${mpirun[@]}" -np 2 "$xb" pingpong --transport tcp
once bad_transport_printed_once
expect ipc_with_host_buffers 2 "ipc needs GPU buffers on both ranks" \
  "${mpirun[@]}" -np 2 "$xb" pingpong -n 2 --transport ipc
once error_printed_once
expect all_pairs_odd_count 0 "# r1-r2: transport mpi, verified" \
  "${mpirun[@]}" -np 3 "$xb" pingpong -n 2 --loop-count 2 --all-pairs
expect output_file 0 "# data verified" \
  "${mpirun[@]}" -np 2 "$xb" pingpong -n 2 --loop-count 2 --output "$out.json"
if ! grep -q '"schema": "xferbench-pingpong"' "$out.json" 2>/dev/null || [[ -e "$out.json.tmp" ]]; then
  fail "output_file: $out.json missing, not pingpong JSON, or its .tmp left behind"
fi
# A huge window is a usage error, not a bad_alloc (exit 70).
expect window_too_large 2 "--window 2000000000 is too large" \
  "${mpirun[@]}" -np 2 "$xb" pingpong --mode bw --window 2000000000
once window_too_large_printed_once
# Argument errors are printed once (by rank 0), every rank exits 2.
expect bad_count_4_ranks 2 "-n must be at least 1" "${mpirun[@]}" -np 4 "$xb" pingpong -n 0
once bad_count_4_ranks_printed_once
expect unknown_option_3_ranks 2 "--bogus" "${mpirun[@]}" -np 3 "$xb" pingpong --bogus
once unknown_option_3_ranks_printed_once
expect first_touch_bad_value 2 "ITERATIONS must" "${mpirun[@]}" -np 2 "$xb" first-touch 0 3 1K 1G 1
once first_touch_bad_value_printed_once

# A peer that stops (SIGSTOP) in the middle of a device run: rank 0 gives
# up after the 2 s timeout and exits 9 naming both ranks, without waiting
# for the stopped rank at shutdown. Rank 1 is stopped once the table's
# header is out (the pair is measuring); 12 sizes of 20,000,000 round trips
# would take minutes, so the run is still measuring then on any machine.
# Rank 0 must end while rank 1 is still stopped (60 s is a bound for a hang,
# not the expected time).
stopped_peer() {
  rm -f "$out.rc"
  (timeout 120 "${mpirun[@]}" -np 2 "$xb" pingpong --transport device -n 12 --loop-count 20000000 --timeout 2 \
    >"$out" 2>&1; echo $? >"$out.rc") &
  local runner=$! rank0 rank1 t0 t1 code
  if ! wait_for_line "$out" "Data Size" "$out.rc"; then
    wait "$runner"
    fail "stopped_peer_is_a_timeout: the run ended (exit $(cat "$out.rc")) before it measured"
    return
  fi
  rank0=$(rank_pid "$runner" 0)
  rank1=$(rank_pid "$runner" 1)
  t0=$(date +%s.%N)
  kill -STOP "$rank1"
  for _ in $(seq 600); do kill -0 "$rank0" 2>/dev/null || break; sleep 0.1; done
  t1=$(date +%s.%N)
  local ended=yes
  kill -0 "$rank0" 2>/dev/null && ended=no
  kill -CONT "$rank1"
  wait "$runner"
  code=$(cat "$out.rc")
  if [[ $code -ne 9 || $ended != yes ]] || ! grep -q "rank 0 (host): rank 1 (host) did not answer within 2 s" "$out"; then
    fail "stopped_peer_is_a_timeout: exit $code (want 9), rank 0 ended while rank 1 was stopped: $ended"
  else
    echo "ok   stopped_peer_is_a_timeout (rank 0 ended $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s after the stop)"
  fi
}
stopped_peer

# Rows are printed as each size is measured, also through a pipe.
# Every line is stamped as it arrives. The run (8 B .. 64 MiB, 20,000
# repetitions each) would take minutes, so the 8 B row must come through
# the pipe while the run is still measuring; rank 0 is then interrupted.
# With rows held back to the end, no row would come before the run ended.
rm -f "$out.rc"
(set -o pipefail
 timeout 120 "${mpirun[@]}" -np 2 "$xb" pingpong -n 24 --loop-count 20000 2>&1 |
   while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >"$out.stamped"
 echo $? >"$out.rc") &
runner=$!
streamed=no
if wait_for_line "$out.stamped" "^[0-9.]+ \|[ ]+8\|" "$out.rc" && [[ ! -s $out.rc ]]; then
  streamed=yes
  kill -INT "$(rank_pid "$runner" 0)"
fi
wait "$runner"
code=$(cat "$out.rc")
cp "$out.stamped" "$out"
if [[ $streamed != yes || $code -ne 130 ]] || ! grep -q "interrupted by SIGINT" "$out"; then
  fail "rows_stream_through_a_pipe: exit $code (want 130), a row before the end of the run: $streamed"
else
  echo "ok   rows_stream_through_a_pipe ($(grep -Ec "^[0-9.]+ $row\$" "$out.stamped") rows before the interrupt)"
fi
# The progress line is for terminals: through a pipe there is none.
if grep -q $'\r' "$out.stamped"; then fail "no_progress_line_in_a_pipe: carriage returns in piped output"; else echo "ok   no_progress_line_in_a_pipe"; fi
exit $((failures > 0))
