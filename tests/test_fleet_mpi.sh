#!/bin/bash
# End-to-end fleet checks through a real mpirun (docs/fleet.md). On a CPU
# machine every node fails with "no CUDA GPU found" or, without a driver,
# "no NVIDIA driver or GPU found" (exit 3), which is what
# these check: one process per node measures, rank 0 prints once and
# writes one file, every process exits with the documented code.
# XFERBENCH_NODE_NAME (a testing aid) splits the processes of this one
# machine into simulated nodes, one value per mpirun app context.
# Usage: test_fleet_mpi.sh XFERBENCH MPIRUN
set -u
xb=$1
mpirun=("$2" --allow-run-as-root --oversubscribe)
failures=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
has_gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then has_gpu=1; fi

fail() {
  echo "FAIL $1"
  [[ -f "$dir/out" ]] && sed 's/^/    out: /' "$dir/out"
  [[ -f "$dir/err" ]] && sed 's/^/    err: /' "$dir/err"
  failures=$((failures + 1))
}

# run NAME CMD...: stdout in $dir/out, stderr in $dir/err, exit code in $rc
# (every command below is bounded by timeout).
run() {
  local name=$1
  shift
  "$@" >"$dir/out" 2>"$dir/err"
  rc=$?
  [[ $rc -eq 124 ]] && fail "$name: timed out"
}

count() { grep -c -- "$1" "$2"; }

# 1. One node (4 processes on this machine): exactly what one process does.
run plain timeout 120 "$xb" -q run -t 0 -o "$dir/s.json"
plain_rc=$rc
cp "$dir/out" "$dir/plain.out"
grep '^xferbench:' "$dir/err" >"$dir/plain.err"
run one_node timeout 120 "${mpirun[@]}" -np 4 "$xb" -q run -t 0 -o "$dir/f.json"
grep '^xferbench:' "$dir/err" >"$dir/mpi.err"
if [[ $rc -ne $plain_rc ]]; then fail "one_node: exit $rc, a single process exits $plain_rc"
elif [[ $has_gpu -eq 0 ]] && ! cmp -s "$dir/plain.out" "$dir/out"; then fail "one_node: stdout differs from a single process"
elif ! cmp -s "$dir/plain.err" "$dir/mpi.err"; then fail "one_node: messages differ from a single process"
elif [[ -e "$dir/f.json" && ! -e "$dir/s.json" || ! -e "$dir/f.json" && -e "$dir/s.json" ]]; then
  fail "one_node: an output file where one process writes none, or the reverse"
else echo "ok   one_node (exit $rc, same output as one process)"; fi
rm -f "$dir/f.json" "$dir/s.json"

# 2. Two simulated nodes, 1 and 3 processes: one fleet table, one file.
fleet() {  # fleet ARGS...: 2 simulated nodes (1 + 3 processes) running xferbench ARGS
  timeout 120 "${mpirun[@]}" -np 1 -x XFERBENCH_NODE_NAME=nodeA "$xb" "$@" : -np 3 -x XFERBENCH_NODE_NAME=nodeB "$xb" "$@"
}
run two_nodes fleet -q run -t 0 -o "$dir/f.json"
if [[ $rc -ne 3 ]]; then fail "two_nodes: exit $rc, want 3 (every node: no GPU)"
elif [[ $(count "fleet: 2 nodes, 4 processes" "$dir/out") -ne 1 ]]; then fail "two_nodes: fleet header not printed exactly once"
elif [[ $(count "ERROR (exit 3): no \(CUDA\|NVIDIA driver or\) GPU found" "$dir/out") -ne 2 ]]; then fail "two_nodes: want 2 error rows"
elif grep -q '^xferbench:' "$dir/err"; then fail "two_nodes: an error line besides the table"
elif ! grep -q '"schema": "xferbench-fleet"' "$dir/f.json" 2>/dev/null; then fail "two_nodes: no fleet file"
elif [[ $(count '"message": "no \(CUDA\|NVIDIA driver or\) GPU found' "$dir/f.json") -ne 2 ]]; then fail "two_nodes: file lacks the 2 node errors"
elif ls "$dir"/*.tmp >/dev/null 2>&1; then fail "two_nodes: temporary file left"
else echo "ok   two_nodes (exit 3, one table, one file with 2 error rows)"; fi

# 3. JSON on stdout, and compare reads a fleet file against a fleet file.
run fleet_json fleet -q run -t 0 --format json
if [[ $rc -ne 3 ]] || [[ $(count '"schema": "xferbench-fleet"' "$dir/out") -ne 1 ]]; then fail "fleet_json: exit $rc"
else echo "ok   fleet_json"; fi
run compare_fleets timeout 120 "$xb" compare "$dir/f.json" "$dir/f.json"
if [[ $rc -ne 0 ]] || ! grep -q "compare (xferbench-fleet)" "$dir/out"; then fail "compare_fleets: exit $rc"
else echo "ok   compare_fleets"; fi

# 4. Sweep is launcher-aware too.
run sweep fleet -q sweep --do 0:HtoD --min 1K --max 4K -o "$dir/sw.json"
if [[ $rc -ne 3 ]] || ! grep -q '"command": "sweep"' "$dir/sw.json" 2>/dev/null; then fail "sweep: exit $rc or no fleet file"
else echo "ok   sweep"; fi

# 5. An output file rank 0 cannot write: one message, before any measurement.
run unwritable fleet -q run -t 0 -o /nonexistent-dir/f.json
if [[ $rc -ne 7 ]] || [[ $(count "xferbench: error: cannot write output file '/nonexistent-dir/f.json'" "$dir/err") -ne 1 ]] ||
   grep -q "no CUDA GPU" "$dir/out" "$dir/err"; then fail "unwritable: exit $rc (want 7, one message, nothing measured)"
else echo "ok   unwritable"; fi

# 6. Bad values: one message (rank 0's), exit 2.
run bad_threshold fleet -q run --fleet-threshold 150
if [[ $rc -ne 2 ]] || [[ $(count "invalid --fleet-threshold '150'" "$dir/err") -ne 1 ]]; then fail "bad_threshold: exit $rc"
else echo "ok   bad_threshold"; fi

# 7. check runs on the same mechanism: one table, one fleet file (command
# check) and one JUnit; every node without a GPU makes it 3, as one node's
# check without a GPU exits (one rule: README "Exit codes", docs/check.md).
# --timeout is --fleet-timeout's old name.
run check_two_nodes fleet -q check --timeout 120 -o "$dir/c.json" --junit "$dir/c.xml"
if [[ $has_gpu -eq 1 ]]; then echo "skip check_two_nodes (a GPU: the nodes measure it twice at once)"
elif [[ $rc -ne 3 ]]; then fail "check_two_nodes: exit $rc, want 3 (nodes that cannot check themselves, all for want of a GPU)"
elif [[ $(count "^# xferbench check: 2 nodes" "$dir/out") -ne 1 ]]; then fail "check_two_nodes: table not printed exactly once"
elif [[ $(count "ERROR .*no \(CUDA\|NVIDIA driver or\) GPU found" "$dir/out") -ne 2 ]]; then fail "check_two_nodes: want 2 error rows"
elif ! grep -q "^xferbench check: FAIL 2 of 2 nodes failed" "$dir/out"; then fail "check_two_nodes: no verdict line"
elif grep -q '^xferbench:' "$dir/err"; then fail "check_two_nodes: an error line besides the table"
elif ! grep -q '"schema": "xferbench-fleet"' "$dir/c.json" 2>/dev/null || ! grep -q '"command": "check"' "$dir/c.json"; then
  fail "check_two_nodes: no fleet file of command check"
elif ! grep -q 'tests="2" failures="0" errors="2"' "$dir/c.xml" 2>/dev/null; then fail "check_two_nodes: no fleet JUnit"
else echo "ok   check_two_nodes (exit 3, one table, one fleet file and JUnit)"; fi

# 8. check on one node: what one process does.
run check_plain timeout 120 "$xb" -q check --summary
plain_rc=$rc
run check_one_node timeout 120 "${mpirun[@]}" -np 2 "$xb" -q check --summary
if [[ $rc -ne $plain_rc ]] || grep -q "# xferbench check: " "$dir/out"; then fail "check_one_node: exit $rc (one process: $plain_rc) or a fleet table"
else echo "ok   check_one_node (exit $rc, as one process)"; fi

# 9. A bad --timeout (the alias) is named as typed: one message, exit 2.
run check_bad_timeout fleet -q check --timeout 0
if [[ $rc -ne 2 ]] || [[ $(count "invalid --timeout '0'" "$dir/err") -ne 1 ]]; then fail "check_bad_timeout: exit $rc"
else echo "ok   check_bad_timeout"; fi

exit $((failures > 0))
