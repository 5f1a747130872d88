#!/bin/bash
# first-touch prints as it goes (a minor finding of the bad-input review): a run far too
# long to finish (1000000 iterations per variant) must have put its first
# "[0:0] time:" line into its output file while it is still running and
# before any summary line; a SIGTERM to rank 1 then ends it (exit 143) with
# the summary of the iterations measured. Waits for evidence (the line, the process), never
# for a number of seconds; the 120 s bound only keeps a hang from lasting.
# Usage: test_first_touch_stream.sh XFERBENCH MPIRUN
set -u
source "$(dirname "$0")/mpi_procs.sh"
xb=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$2" --allow-run-as-root --oversubscribe -np 2 "$xb" first-touch 1000000 2 1K 64K 1 --memory host >"$out" 2>&1 &
job=$!
for _ in $(seq 1200); do
  grep -q '^\[0:0\] time: ' "$out" && break
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
failures=0
if ! grep -q '^\[0:0\] time: ' "$out"; then
  echo "FAIL first_row_before_the_end: no '[0:0] time:' line while the run went on"
  failures=1
elif ! kill -0 "$job" 2>/dev/null || grep -q '^# summary' "$out"; then
  echo "FAIL first_row_before_the_end: the run had ended (or printed its summary) by the time its first row appeared"
  failures=1
else
  echo "ok   first_row_before_the_end ($(grep -c ' time: ' "$out") time lines while running)"
fi
# SIGTERM to rank 1 (the rank that prints nothing): every rank stops at the
# next iteration and rank 0 prints the rest.
rank1=$(rank_pid "$job" 1)
kill -TERM "${rank1:-$job}" 2>/dev/null
wait "$job"
code=$?
if [[ $code -ne 143 ]] || ! grep -q '^# run interrupted' "$out" || ! grep -q '^# summary' "$out"; then
  echo "FAIL sigterm_prints_the_rest: exit $code (want 143), summary or '# run interrupted' missing"
  failures=1
else
  echo "ok   sigterm_prints_the_rest"
fi
((failures)) && sed 's/^/    /' "$out" | grep -v '^    \[[0-9]*:[0-9]*\] time' | head -40
exit $failures
