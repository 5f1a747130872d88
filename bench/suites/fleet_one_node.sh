#!/usr/bin/env bash
# One launch on one node of 2 GPUs:
# 'mpirun -np 2 xferbench -q -o f.json' must measure once, print what one
# process prints, write one plain run file, and its cells must match a
# single-process run within the compare gate's noise. While it runs, the
# waiting rank 1 is watched: no CUDA or NVML library mapped (it made no
# CUDA call), and its CPU time while waiting. Last, a demo fleet of two
# simulated nodes on this machine (XFERBENCH_NODE_NAME, one GPU each via
# CUDA_VISIBLE_DEVICES; both measure at the same time, so host-side
# contention is possible) for the README's sample table.
# usage: bench/suites/fleet_one_node.sh BIN_DIR OUT_DIR    (about 30 s)
. "$(dirname "$0")/common.sh" "$@"
mpi=(mpirun --allow-run-as-root)
{ date -u; hostname; nvidia-smi -L; } > "$out/machine.txt" 2>&1
declare -A result

# check NAME CONDITION-TEXT: records pass/FAIL from the previous command's status.
check() { if [[ $1 -eq 0 ]]; then result[$2]="pass"; else result[$2]="FAIL${3:+ ($3)}"; fi; }

timeout 60 "$x" -q -o "$out/s.json" > "$out/single.txt" 2> "$out/single.err"; single_rc=$?

# Rank 1 (found by its launcher rank) sampled every 0.2 s while the run lasts.
timeout 60 "${mpi[@]}" -np 2 "$x" -q -o "$out/f.json" > "$out/mpi.txt" 2> "$out/mpi.err" &
launcher=$!
rank1="" first_cpu="" last_cpu="" first_t="" last_t="" mapped="none"
while kill -0 "$launcher" 2>/dev/null; do
  if [[ -z "$rank1" ]]; then
    for p in $(pgrep -f "$x -q -o $out/f.json"); do
      tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" && rank1=$p
    done
  fi
  if [[ -n "$rank1" && -r "/proc/$rank1/stat" ]]; then
    cpu=$(awk '{print $14 + $15}' "/proc/$rank1/stat" 2>/dev/null)
    if [[ -n "$cpu" ]]; then
      now=$(date +%s.%N)
      [[ -z "$first_cpu" ]] && { first_cpu=$cpu; first_t=$now; }
      last_cpu=$cpu; last_t=$now
      m=$(grep -oE "lib(cuda|nvidia-ml)[^ ]*" "/proc/$rank1/maps" 2>/dev/null | sort -u | tr '\n' ' ')
      [[ -n "$m" ]] && mapped="$m"
    fi
  fi
  sleep 0.2
done
wait "$launcher"; mpi_rc=$?
tick=$(getconf CLK_TCK)
waited=$(python3 -c "print(f'{${last_t:-0} - ${first_t:-0}:.1f}')")
cpu_s=$(python3 -c "print(f'{(${last_cpu:-0} - ${first_cpu:-0}) / $tick:.2f}')")
echo "rank 1 pid ${rank1:-not found}: CPU ${cpu_s} s over ${waited} s of waiting; CUDA/NVML libraries mapped: $mapped" \
  > "$out/rank1.txt"

[[ $mpi_rc -eq 0 && $single_rc -eq 0 ]]; check $? "exit 0 (single $single_rc, mpirun $mpi_rc)"
[[ $(grep -c '^# xferbench' "$out/mpi.txt") -eq 1 && $(grep -c '^Running ' "$out/mpi.txt") -eq \
   $(grep -c '^Running ' "$out/single.txt") ]]; check $? "text printed once, same cases as one process"
python3 - "$out/f.json" > "$out/f_json_check.txt" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "xferbench-run", d["schema"]
print("f.json: one node's run,", d["environment"]["hostname"], len(d["cases"]), "cases")
EOF
check $? "f.json holds one node's run"
[[ -n "$rank1" && "$mapped" == "none" ]]; check $? "waiting rank 1 mapped no CUDA/NVML library" "$mapped"
python3 -c "import sys; sys.exit(0 if ${waited} > 0.5 and ${cpu_s} < 0.1 * ${waited} else 1)"
check $? "waiting rank 1 used < 10% of a core" "${cpu_s} s over ${waited} s"
"$x" compare "$out/s.json" "$out/f.json" > "$out/compare.txt" 2>&1; check $? "compare single vs mpirun: no regression"
timeout 60 "$x" -q -o "$out/s2.json" > /dev/null 2>&1
"$x" compare "$out/s.json" "$out/s2.json" > "$out/compare_single_twice.txt" 2>&1
check $? "compare single vs single (noise baseline)"

timeout 60 "${mpi[@]}" -np 1 -x XFERBENCH_NODE_NAME=demo-a -x CUDA_VISIBLE_DEVICES=0 "$x" -q -o "$out/fleet.json" : \
  -np 1 -x XFERBENCH_NODE_NAME=demo-b -x CUDA_VISIBLE_DEVICES=1 "$x" -q -o "$out/fleet.json" \
  > "$out/fleet.txt" 2> "$out/fleet.err"
fleet_rc=$?
[[ $(grep -c "fleet: 2 nodes, 2 processes" "$out/fleet.txt") -eq 1 ]] && grep -q '"xferbench-fleet"' "$out/fleet.json"
check $? "demo fleet of 2 simulated nodes: one table, one file (exit $fleet_rc)"

{
  echo "# fleet_one_node.sh on $(hostname), $(date -u +%F)"
  for k in "${!result[@]}"; do printf '%-60s %s\n' "$k" "${result[$k]}"; done | sort
  cat "$out/rank1.txt"
  tail -3 "$out/compare.txt"
  echo "--- demo fleet table"
  cat "$out/fleet.txt"
} | tee "$out/summary.txt"
