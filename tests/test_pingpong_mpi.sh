#!/bin/bash
# End-to-end pingpong checks through mpirun that need no GPU: launch
# mistakes and bad input end every rank with a nonzero status and a
# one-line message; --all-pairs on an odd rank count gives byes.
# Usage: test_pingpong_mpi.sh XFERBENCH MPIRUN
set -u
xb=$1
mpirun=("$2" --allow-run-as-root --oversubscribe)
failures=0
out=$(mktemp)
trap 'rm -f "$out" "$out".json' EXIT

# expect NAME EXIT_CODE PATTERN COMMAND...: the command exits with EXIT_CODE and
# its output matches the extended regular expression PATTERN.
expect() {
  local name=$1 code=$2 pattern=$3
  shift 3
  timeout 120 "$@" >"$out" 2>&1
  local got=$?
  if [[ $got -ne $code ]] || ! grep -Eq -- "$pattern" "$out"; then
    echo "FAIL $name: exit $got (want $code), output:"
    sed 's/^/    /' "$out"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

expect no_launcher 6 "launch it with: mpirun -np 2 xferbench pingpong" env -u OMPI_COMM_WORLD_SIZE "$xb" pingpong -n 2
expect one_rank 6 "started with 1 MPI process\(es\), 2 or more are needed; launch it with" \
  "${mpirun[@]}" -np 1 "$xb" pingpong -n 2
expect three_ranks_without_all_pairs 2 "needs exactly 2 ranks, got 3; use --all-pairs" \
  "${mpirun[@]}" -np 3 "$xb" pingpong -n 2
expect bad_transport 2 "invalid transport 'tcp'" "${mpirun[@]}" -np 2 "$xb" pingpong --transport tcp
expect ipc_with_host_buffers 2 "ipc needs GPU buffers on both ranks" \
  "${mpirun[@]}" -np 2 "$xb" pingpong -n 2 --transport ipc
expect all_pairs_odd_count 0 "# r1-r2: transport mpi, verified" \
  "${mpirun[@]}" -np 3 "$xb" pingpong -n 2 --loop-count 2 --all-pairs
expect output_file 0 "# data verified" \
  "${mpirun[@]}" -np 2 "$xb" pingpong -n 2 --loop-count 2 --output "$out.json"
if ! grep -q '"schema": "xferbench-pingpong/1"' "$out.json" 2>/dev/null || [[ -e "$out.json.tmp" ]]; then
  echo "FAIL output_file: $out.json missing, not pingpong JSON, or its .tmp left behind"
  failures=$((failures + 1))
fi
# The one-line error is printed once (by rank 0), not once per rank.
expect error_printed_once 2 "ipc needs GPU" "${mpirun[@]}" -np 2 "$xb" pingpong -n 2 --transport ipc
if [[ $(grep -c "xferbench: error:" "$out") -ne 1 ]]; then
  echo "FAIL error_printed_once: $(grep -c 'xferbench: error:' "$out") error lines"
  failures=$((failures + 1))
fi
exit $((failures > 0))
