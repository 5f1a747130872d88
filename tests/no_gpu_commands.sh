#!/usr/bin/env bash
# no_gpu_commands.sh XFERBENCH SRC
# The first minute without a GPU: a command that needs one exits 3 with one
# line that names the commands working without one, and each of those
# commands, run here as named (FILE, OLD and NEW replaced by runs recorded
# in bench/results), works without a GPU: it exits as it does on a GPU
# machine, never 3. CUDA_VISIBLE_DEVICES is emptied, so a GPU machine
# checks the same.
set -u
bin=$1 src=$2
export CUDA_VISIBLE_DEVICES=
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
err=$("$bin" list 2>&1 >/dev/null); rc=$?
[ $rc -eq 3 ] || fail "xferbench list without a GPU: exit $rc, not 3 ($err)"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "not one line: $err"
hint=${err#*without a GPU these work: }
[ "$hint" != "$err" ] || { echo "FAIL: the message names no command that works without a GPU: $err"; exit 1; }
echo "message: $err"
run1="$src/bench/results/2026-11-21-h200x2-full-run1.json"
run2="$src/bench/results/2026-11-21-h200x2-full-run2.json"
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
named=0
IFS=',' read -r -a commands <<<"$hint"
for c in "${commands[@]}"; do
  c=${c# }
  named=$((named+1))
  line=${c/#xferbench /}
  line=${line//FILE/$run1}
  line=${line/OLD/$run1}
  line=${line/NEW/$run2}
  line=${line//IMAGE.png/$out/plot.png}
  case "$c" in
    "xferbench cases") want="0" ;;
    "xferbench run --dry-run --topology FILE") want="0" ;;
    "xferbench check --judge FILE") want="0 1" ;;       # PASS or FAIL: judged
    "xferbench compare OLD NEW") want="0 1" ;;          # same, or a regression: compared
    "xferbench plot FILE -o IMAGE.png") want="0 2" ;;   # 2: matplotlib missing here, said so
    *) fail "the message names '$c', which this test does not know how to run"; continue ;;
  esac
  # shellcheck disable=SC2086
  got=$("$bin" $line 2>&1 >/dev/null); rc=$?
  if [[ " $want " != *" $rc "* ]]; then
    fail "xferbench $line: exit $rc, wanted one of $want: $got"
  elif [ $rc -eq 2 ] && [[ "$got" != *"matplotlib is not installed"* ]]; then
    fail "xferbench $line: exit 2 for another reason than matplotlib: $got"
  else
    echo "ok: xferbench $line -> $rc"
  fi
done
[ $named -ge 5 ] || fail "only $named commands named"
[ $fails -eq 0 ] && echo "all $named commands the no-GPU message names work without a GPU"
[ $fails -eq 0 ]
