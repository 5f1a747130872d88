#!/usr/bin/env bash
# End-to-end checks of the nvbandwidth v0.9/v0.10 additions on the real
# binary, without a GPU: `cases` names the origin of each name, --dry-run
# plans recorded and synthetic topologies, pairs are checked against the
# topology (exit 2 naming the id), and bad values exit 2.
# usage: tests/dedicated_engines_cli_checks.sh XFERBENCH TOPOLOGY_DIR
set -u
bin="$1"; topo="$2"
fails=0; checks=0
check() {  # check CODE NEEDLE -- ARGS...: exit code and a needle in stdout+stderr
  local code="$1" needle="$2"; shift 3
  local out rc
  out=$("$bin" "$@" 2>&1); rc=$?
  checks=$((checks+1))
  if [[ $rc -ne $code || "$out" != *"$needle"* ]]; then
    echo "FAIL: xferbench $* -> exit $rc (want $code and '$needle'):"; echo "$out" | tail -5; fails=$((fails+1))
  else
    echo "ok: xferbench $* -> $rc"
  fi
}
check 0 "39  device_to_device_memcpy_read_tma" -- cases
check 0 "[xferbench]" -- cases
check 0 '"name_origin": "nvbandwidth v0.8"' -- cases --format json
check 0 "# total: 35 cases (0 waived), 70 cells" -- run --dry-run --topology "$topo/h200x2.json" --suite full
check 0 "sampled 8 of 56 (seed 1)" -- run --dry-run --topology "$topo/h200x8.json" --suite all --sample-pairs 8
check 0 "using all of them" -- run --dry-run --topology "$topo/h200x2.json" --sample-pairs 9
check 0 "WAIVED: needs at least 2 GPUs" -- run --dry-run --topology "$topo/h100x1.json" -t device_to_device_memcpy_read_tma
check 0 '"schema": "xferbench-plan"' -- run --dry-run --topology "$topo/h200x4.json" --format json
check 2 "gpu 9 does not exist" -- run --dry-run --topology "$topo/h200x8.json" --pair 0,9
check 2 "gpu 3 twice" -- run --dry-run --topology "$topo/h200x8.json" --pair 3,3
check 2 "gpu 1 does not exist (this machine has 1 GPU: 0-0)" -- run --dry-run --topology "$topo/h100x1.json" --pair 0,1
check 2 "cannot read --topology file '/nonexistent.json': No such file or directory" -- run --dry-run --topology /nonexistent.json
check 2 "is not JSON" -- run --dry-run --topology "$0"
check 2 "invalid --host-mem 'hugepage'" -- run --host-mem hugepage
check 2 "needs --dry-run" -- run --topology "$topo/h200x2.json"
check 2 "no single SM copy kernel" -- sweep -t 0 --sms
out=$(mktemp -d)
check 0 "estimated" -- run --dry-run --topology "$topo/gb200x72.json" --suite full --sample-pairs 72 -o "$out/plan.json"
if ! grep -q '"mode": "sampled"' "$out/plan.json"; then echo "FAIL: plan JSON not written"; fails=$((fails+1)); fi
rm -rf "$out"
echo "$((checks - fails)) passed, $fails failed"
[[ $fails -eq 0 ]]
