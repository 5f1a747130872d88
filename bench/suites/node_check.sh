#!/usr/bin/env bash
# xferbench check on a GPU machine: the check with the built-in
# peaks, with the shipped spec for this GPU model, with a spec set above what
# any node gives (must FAIL, naming the cell), and under mpirun with 2 ranks
# on this one node (the multi-node path: one rank checks, rank 0 prints the
# fleet table). Each run is timed; text, JSON and JUnit are kept in OUT_DIR.
# Works on 1 GPU (nvidia-h100-x1, nvidia-h200) and on several. Expected
# time: about 15 s per check on 2 x H200, under 150 s in all with the GPU
# unit tests.
# usage: bench/suites/node_check.sh BIN_DIR OUT_DIR   (BIN_DIR: xferbench, xferbench_tests)
. "$(dirname "$0")/common.sh" "$@"
specs="$(readlink -f "$here/../../share/xferbench/check")"
bench_start
model=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$model" in
  *H200*) spec="$specs/h200.toml" ;;
  *H100*) spec="$specs/h100.toml" ;;
  *) spec="" ;;
esac
echo "model: $model; shipped spec: ${spec:-none}" | tee "$out/model.txt"
# Above any PCIe Gen5 x16 host link (peak 63.02 GB/s): must fail.
printf '[[expect]]\ncase = "host_to_device_memcpy_ce"\nlink = "pcie"\nmin = "62.5 GB/s"\nwhy = "above what a Gen5 x16 link gives: must fail"\n' \
  > "$out/too_high.toml"
rows=()
one() {  # one NAME ARGS...: a timed check, its exit code and summary line
  local name="$1"; shift
  local t0 t1 rc
  t0=$(date +%s.%N)
  timeout 150 "$@" > "$out/$name.txt" 2> "$out/$name.err"; rc=$?
  t1=$(date +%s.%N)
  rows+=("$(printf '%-10s rc=%-3s %6.1f s  %s' "$name" "$rc" "$(python3 -c "print($t1 - $t0)")" "$(grep -h 'xferbench check:' "$out/$name.txt" | tail -1)")")
}
one builtin "$x" -q check -o "$out/builtin.json" --junit "$out/builtin.xml"
if [[ -n "$spec" ]]; then
  one spec "$x" -q check --spec "$spec" -o "$out/spec.json" --junit "$out/spec.xml"
  one judged "$x" check --judge "$out/builtin.json" --spec "$spec"
fi
one too_high "$x" -q check --spec "$out/too_high.toml" --force -o "$out/too_high.json" --junit "$out/too_high.xml"
one mpi2 mpirun --allow-run-as-root -np 2 "$x" -q check --summary -o "$out/fleet.json"
if command -v xmllint >/dev/null; then
  for f in "$out"/*.xml; do xmllint --noout "$f" && echo "well-formed: $(basename "$f")"; done
fi
echo "== summary (want: builtin 0, spec 0, judged 0, too_high 1 naming host_to_device_memcpy_ce, mpi2 0)"
printf '%s\n' "${rows[@]}" | tee "$out/summary.txt"
