#!/bin/bash
# Nothing measured is lost, for fleet runs (docs/fleet.md, Signals): two simulated nodes on
# this machine (XFERBENCH_NODE_NAME, one process each; on one GPU both
# measure it at the same time) run `run --suite full`, a sweep or `check`, and ONE
# node's measuring process gets SIGINT or SIGTERM. Each row passes when:
#   - the job exits 130 / 143 within 2 s of the signal,
#   - rank 0's fleet file holds both nodes, each with status `interrupted`
#     and at least one cell (or size) measured,
#   - the node that was not signalled says it stopped because of the other
#     ("stopping: the run of rank N was interrupted by SIG..."),
#   (check: each node's verdict is `interrupted`, with at least one judged cell)
#   - no GPU process and no .tmp file is left.
# Then `--time-limit 8s` on the fleet: exit 10, both nodes partial, and the
# job ends within 8 s plus what mpirun spends outside the processes (the
# limit counts from each process's start): measured here as the wall time
# of `mpirun -np 2 sh -c 'exit 10'` (its launch, and the second it waits
# before it ends a job whose processes exited nonzero).
# Usage: bench/suites/fleet_signals.sh BIN_DIR OUT_DIR   (about 1 minute)
. "$(dirname "$0")/common.sh" "$@"
logs="$out/logs"
mkdir -p "$logs"
{ date -u; hostname; nvidia-smi -L; "$x" --version; } >"$out/machine.txt" 2>&1
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
run_size=(-b 512 -i 20 --drift-check off)
[[ $gpus -ge 2 ]] && run_size=(-b 64)
table="$out/summary.txt"
printf "%-24s %-5s %-5s %-8s %-44s %-9s %s\n" run exit want "s after" "nodes in the fleet file" "gpu procs" verdict >"$table"
failures=0

# Both nodes' status and what each kept: "nodeA interrupted 3 / nodeB interrupted 2"
# (cells of a run, sizes of a sweep, judged cells of a check).
nodes_kept() {
  python3 - "$1" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
def kept(r):
    if 'cases' in r:
        return sum(len(c['matrices'][0]['cells']) for c in r['cases'] if c['matrices'])
    return sum(len(s['rows']) for s in r['series'])
rows = []
if isinstance(d['nodes'], list):  # xferbench check: one record per node
    for n in d['nodes']:
        rows.append('%s %s %d' % (n.get('hostname'), n.get('verdict'), len(n.get('cells', []))))
else:
    for k, v in sorted(d['nodes'].items()):
        rows.append('%s %s %d' % (k, v['result'].get('status'), kept(v['result'])) if v.get('result') else '%s error' % k)
print(' / '.join(rows))
PY
}

# The pid of the measuring process of simulated node NAME.
node_pid() {
  local p
  for p in $(pgrep -x xferbench); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "XFERBENCH_NODE_NAME=$1" && { echo "$p"; return; }
  done
}

# fleet NAME SIG DELAY NODE ARGS...: both nodes run xferbench ARGS; NODE gets SIG after DELAY s.
fleet() {
  local name=$1 sig=$2 delay=$3 node=$4
  shift 4
  local f="$out/$name.json" want=$((128 + $(kill -l "$sig"))) other=nodeA
  [[ $node == nodeA ]] && other=nodeB
  rm -f "$f"
  timeout 120 mpirun --allow-run-as-root -np 1 -x XFERBENCH_NODE_NAME=nodeA "$x" "$@" -o "$f" \
    : -np 1 -x XFERBENCH_NODE_NAME=nodeB "$x" "$@" -o "$f" >"$logs/$name.txt" 2>&1 &
  local job=$! pid="" t_sig t_end rc
  for _ in $(seq 200); do
    pid=$(node_pid "$node")
    [[ -n $pid ]] && break
    sleep 0.05
  done
  sleep "$delay"
  t_sig=$(date +%s.%N)
  kill "-$sig" "$pid"
  wait $job
  rc=$?
  t_end=$(date +%s.%N)
  sleep 0.5
  local after kept procs verdict=pass
  after=$(python3 -c "print('%.2f' % ($t_end - $t_sig))")
  kept=$(nodes_kept "$f")
  procs=$(gpu_procs)
  [[ $rc -eq $want ]] || verdict=FAIL
  python3 -c "import sys; sys.exit(0 if $after <= 2.0 else 1)" || verdict=FAIL
  [[ $(grep -o "interrupted [1-9]" <<<"$kept" | wc -l) -eq 2 ]] || verdict=FAIL
  grep -q "stopping: the $1 of rank" "$logs/$name.txt" || verdict=FAIL  # the other node heard of it
  [[ $procs -eq 0 ]] || verdict=FAIL
  compgen -G "$out/.*.tmp" >/dev/null && verdict="FAIL(tmp)"
  [[ $verdict == pass ]] || failures=$((failures + 1))
  printf "%-24s %-5s %-5s %-8s %-44s %-9s %s\n" "$name" "$rc" "$want" "$after" "${kept:-no file}" "$procs" "$verdict" >>"$table"
}

fleet run_term_nodeB TERM 6 nodeB run --suite full "${run_size[@]}" -q
fleet run_int_nodeA INT 6 nodeA run --suite full "${run_size[@]}" -q
fleet sweep_term_nodeB TERM 3 nodeB sweep --do 0:HtoD --min 1K --max 2G --factor 1.25 -q
fleet check_term_nodeB TERM 8 nodeB check --buffer-size 2G

# --time-limit on the fleet: every node plans against it.
t0=$(date +%s.%N)
timeout 60 mpirun --allow-run-as-root -np 2 sh -c 'exit 10'
launch=$(python3 -c "print('%.2f' % ($(date +%s.%N) - $t0))")
t0=$(date +%s.%N)
timeout 120 mpirun --allow-run-as-root -np 1 -x XFERBENCH_NODE_NAME=nodeA "$x" run --suite full "${run_size[@]}" -q \
  --time-limit 8s -o "$out/run_time_limit.json" : -np 1 -x XFERBENCH_NODE_NAME=nodeB "$x" run --suite full \
  "${run_size[@]}" -q --time-limit 8s -o "$out/run_time_limit.json" >"$logs/run_time_limit.txt" 2>&1
rc=$?
wall=$(python3 -c "print('%.2f' % ($(date +%s.%N) - $t0))")
kept=$(nodes_kept "$out/run_time_limit.json")
verdict=pass
[[ $rc -eq 10 ]] || verdict=FAIL
python3 -c "import sys; sys.exit(0 if $wall <= 8.0 + $launch else 1)" || verdict=FAIL
[[ $(grep -o "partial [1-9]" <<<"$kept" | wc -l) -eq 2 ]] || verdict=FAIL
[[ $verdict == pass ]] || failures=$((failures + 1))
printf "%-24s %-5s %-5s %-8s %-44s %-9s %s\n" run_time_limit_8s "$rc" 10 "${wall}s" "${kept:-no file}" "$(gpu_procs)" "$verdict" >>"$table"
echo "(time limit row: wall time of the job; mpirun -np 2 of 'exit 10' took ${launch} s here)" >>"$table"

echo "GPUs: $gpus; failures: $failures" >>"$table"
cat "$table"
