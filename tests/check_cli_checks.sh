#!/usr/bin/env bash
# End-to-end checks of 'xferbench check' on the real binary: bad specs and
# options exit 2 naming file, line and key before any GPU is touched; a
# recorded H200 run is judged (--judge) with the shipped spec (and every
# recorded H100 run with the H100 spec), a spec set
# above what the node gave, a baseline, JSON and JUnit output.
set -u
bin="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
run="$src/bench/results/2026-11-22-h200x2-sm-bulk/full1.json"
expect() {  # expect CODE NEEDLE -- ARGS...
  local code="$1" needle="$2"; shift 3
  local out rc
  out=$("$bin" "$@" 2>&1); rc=$?
  if [[ $rc -ne $code || "$out" != *"$needle"* ]]; then
    echo "FAIL: xferbench $* -> exit $rc, output: ${out: -400} (want exit $code and '$needle')"; fails=$((fails+1))
  else
    echo "ok: xferbench $* -> $rc"
  fi
}
printf '[[expect]]\ncase = "host_to_device_memcpy_ce"\nmin = "5 furlongs"\n' > "$tmp/unit.toml"
printf 'model = "H200"\n[[expect]\n' > "$tmp/syntax.toml"
printf '[[expect]]\ncase = "host_to_device_memcpy_ce"\nlink = "pcie"\nmin = "60 GB/s"\n' > "$tmp/high.toml"
expect 2 "unit.toml:3: key 'min': '5 furlongs': unknown unit 'furlongs'" -- check --spec "$tmp/unit.toml"
expect 2 "syntax.toml:2: not valid TOML" -- check --spec "$tmp/syntax.toml"
expect 2 "cannot read --spec file '$tmp/none.toml': No such file or directory" -- check --spec "$tmp/none.toml"
# Inputs: a directory, an empty value, a number out of range, a
# nesting no result has, a document of another shape: exit 2 naming the
# file, never a pass against the built-ins, 70 or a crash.
expect 2 "cannot read --spec file '$tmp': Is a directory" -- check --judge "$run" --spec "$tmp" --summary
expect 2 "cannot read --judge file '$tmp': Is a directory" -- check --judge "$tmp"
expect 2 "cannot read --baseline file '$tmp': Is a directory" -- check --judge "$run" --baseline "$tmp"
expect 2 "cannot read --judge file '$tmp/none.json': No such file or directory" -- check --judge "$tmp/none.json"
for opt in --spec --baseline --judge --junit --buffer-size; do
  expect 2 "invalid $opt '': the value is empty" -- check --judge "$run" --summary $opt ''
done
printf '{"schema": "xferbench-run", "wall_seconds": 1e400}' > "$tmp/huge.json"
expect 2 "--judge file '$tmp/huge.json' is not JSON: line 1, column 45: number overflow parsing '1e400'" -- \
  check --judge "$tmp/huge.json"
# Written back with -o, such nesting overflowed the stack (exit 139).
deep() { printf '%*s' 100000 '' | tr ' ' "$1"; }
printf '{"schema": "xferbench-run", "cases": [], "x": %s%s}' "$(deep '[')" "$(deep ']')" > "$tmp/deep.json"
expect 2 "--judge file '$tmp/deep.json' is not JSON: nested deeper than" -- check --judge "$tmp/deep.json" -o "$tmp/deep-out.json"
echo '[]' > "$tmp/array.json"
expect 2 "--judge file '$tmp/array.json' is not an xferbench run result" -- check --judge "$tmp/array.json"
expect 2 "is not an xferbench run result" -- check --judge "$run" --baseline "$tmp/array.json"
printf '[peers]\nbandwidth_min = "500%%"\n' > "$tmp/peers.toml"
expect 2 "peers.toml:2: key 'bandwidth_min': '500%' is out of range" -- check --judge "$run" --spec "$tmp/peers.toml"
expect 2 "invalid --budget '0'" -- check --budget 0
expect 2 "invalid --tolerance" -- check --tolerance -1
expect 2 "invalid --buffer-size '0'" -- check --buffer-size 0
expect 2 "--buffer-size" -- check --buffer-size 12Q
expect 2 "invalid --time-limit 'soon'" -- check --time-limit soon
expect 2 "xml" -- check --format xml
expect 0 "xferbench check: PASS 7 links, 36 of 36 cells judged" -- check --judge "$run" --summary
expect 0 "xferbench check: PASS" -- check --judge "$run" --spec "$src/share/xferbench/check/h200.toml" --summary
expect 2 "is for 'H100 80GB HBM3' GPUs but gpu0 is a NVIDIA H200" -- check --judge "$run" --spec "$src/share/xferbench/check/h100.toml"
# The shipped H100 spec passes every H100 run it was set from (1 and 4 GPUs).
for h100 in 2026-11-23-h100/full1.json 2026-11-23-h100/full2.json 2026-11-27-h100x4-whole-node/dryrun_4/full.json \
            2026-11-27-h100x4-whole-node/check/{builtin,spec,fleet,too_high}.json; do
  expect 0 "xferbench check: PASS" -- check --judge "$src/bench/results/$h100" --spec "$src/share/xferbench/check/h100.toml" --summary
done
expect 1 "xferbench check: FAIL host<->gpu0 host_to_device_memcpy_ce 55.43 GB/s < 60.00 GB/s" -- \
  check --judge "$run" --spec "$tmp/high.toml" --junit "$tmp/high.xml" -o "$tmp/high.json"
grep -q '<failure message="55.43 GB/s &lt; 60.00 GB/s' "$tmp/high.xml" || { echo "FAIL: junit lacks the failure"; fails=$((fails+1)); }
grep -q '"verdict": "fail"' "$tmp/high.json" || { echo "FAIL: json lacks the verdict"; fails=$((fails+1)); }
expect 0 "xferbench check: PASS" -- check --judge "$run" --baseline "$src/bench/results/2026-11-22-h200x2-sm-bulk/full2.json" --summary
expect 2 "recorded on 4 x NVIDIA H200, this node has 2 x NVIDIA H200" -- \
  check --judge "$run" --baseline "$src/bench/results/2026-11-22-h200x4/full.json"
expect 0 "xferbench check: PASS" -- check --judge "$run" --baseline "$src/bench/results/2026-11-22-h200x4/full.json" --force --summary
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  expect 3 "GPU found" -- check
fi
if command -v xmllint >/dev/null; then
  xmllint --noout "$tmp/high.xml" || { echo "FAIL: JUnit XML is not well-formed"; fails=$((fails+1)); }
fi
echo "$fails failed"
exit $((fails > 0))
