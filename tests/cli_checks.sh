#!/usr/bin/env bash
# End-to-end checks of the xferbench binary's argument handling: every bad
# input gets one line naming the value and its documented exit code, before
# any GPU is touched. Machine-dependent checks run only where they apply.
set -u
bin="$1"
fails=0
checks=0
expect() {  # expect CODE NEEDLE -- ARGS...
  local code="$1" needle="$2"; shift 3
  local err rc
  checks=$((checks+1))
  err=$("$bin" "$@" 2>&1 >/dev/null); rc=$?
  if [[ $rc -ne $code || "$err" != *"$needle"* ]]; then
    echo "FAIL: xferbench $* -> exit $rc, stderr: $err (want exit $code and '$needle')"; fails=$((fails+1))
  else
    echo "ok: xferbench $* -> $rc"
  fi
}
expect 2 "unknown case 'nosuch'" -- run -t nosuch
expect 2 "out of range" -- run -t 99
expect 2 "matches no case" -- run -p nothing_
expect 2 "must be greater than 0" -- run -b 0
expect 2 "'1.5G'" -- run --buffer-size 1.5G
expect 2 "-i/--samples" -- run -i 0
expect 2 "unknown suite 'medium'" -- run --suite medium
expect 2 "xml" -- run --format xml
expect 2 "invalid -i/--samples '-1'" -- run -i -1
expect 2 "invalid --buffer-size ''" -- run --buffer-size ''
expect 2 "invalid --samples '-1'" -- cuts --dtoh=0 --samples -1
checks=$((checks+1))
if ! "$bin" cases | grep -q "^ 34  device_local_copy"; then echo "FAIL: cases"; fails=$((fails+1)); fi
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  # Without the driver library the CUDA runtime says "driver version is
  # insufficient"; xferbench says what is missing.
  no_gpu="no CUDA GPU found"
  if ! { command -v ldconfig >/dev/null && ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    no_gpu="no NVIDIA driver or GPU found"
  fi
  expect 3 "$no_gpu" -- run -t 0
  expect 3 "$no_gpu" -- list
  expect 3 "$no_gpu" --
fi
out=$(mktemp -d)
# Inputs: said before any GPU is looked for, exit 2 naming the
# option or file and the reason; exit 7 is for outputs.
expect 2 "cannot read --topology file '$out': Is a directory" -- run --dry-run --topology "$out"
expect 2 "cannot read --topology file '$out/none.json': No such file or directory" -- run --dry-run --topology "$out/none.json"
expect 2 "cannot read --resume file '$out/none.json': No such file or directory" -- run -t 0 --resume "$out/none.json"
expect 2 "cannot read --resume file '$out': Is a directory" -- sweep -t 0 --min 1M --max 2M --resume "$out"
expect 2 "cannot read '$out/none.json': No such file or directory" -- compare "$out/none.json" "$out/none.json"
expect 2 "invalid --pair '0,0': gpu 0 twice" -- run --pair 0,0
expect 2 "invalid --copies '0'" -- run --copies 0
expect 2 "invalid --copies '0'" -- sweep -t 0 --min 1M --max 2M --copies 0
expect 2 "--metrics-detail: cellz not in {summary,cells}" -- check --format prometheus --metrics-detail cellz
expect 2 "--bash-completion: prints the completion script alone: give no other argument" -- --bash-completion run
expect 2 "invalid --suite '': the value is empty" -- run --suite ''
expect 2 "invalid --time-limit '': the value is empty" -- sweep -t 0 --min 1M --max 2M --time-limit ''
expect 2 "invalid --streams '': the value is empty" -- cuts -h 0 --streams ''
expect 2 "use -h/--htod ID, -d/--dtoh ID or -p/--dtod DST,SRC" -- cuts
if "$bin" --help | grep -q '^  pingpong'; then
  expect 2 "invalid --seed '-1'" -- pingpong --seed -1
  expect 2 "invalid --buffer-sizes '': the value is empty" -- first-touch 5 3 1K 1G 1 --buffer-sizes ''
fi
expect 7 "cannot write output file '/nonexistent-dir/r.json'" -- run -t 0 -o /nonexistent-dir/r.json
expect 7 "cannot write output file '$out': it is a directory" -- run -t 0 -o "$out"
rmdir "$out"
echo "$((checks - fails)) passed, $fails failed"
[[ $fails -eq 0 ]]
