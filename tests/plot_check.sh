#!/usr/bin/env bash
# plot_check.sh [--pytest] [--expect-exit N] [--expect-output TEXT] COMMAND...
# Runs a plotting test command, or exits 77 (ctest SKIP_RETURN_CODE) when
# python3 or matplotlib is missing, so CI shows "skipped", not "passed".
# --pytest: the command is a pytest run, so pytest is needed too; the other
# plot tests need only matplotlib. --expect-exit N: the command must exit
# with N instead of 0. --expect-output TEXT: its stdout+stderr must contain
# TEXT.
modules=(matplotlib)
want=0
needle=""
while [[ "${1:-}" == --* ]]; do
  case "$1" in
    --pytest) modules+=(pytest); shift ;;
    --expect-exit) want="$2"; shift 2 ;;
    --expect-output) needle="$2"; shift 2 ;;
    *) echo "plot_check.sh: unknown option $1"; exit 2 ;;
  esac
done
if ! command -v python3 >/dev/null; then echo "skipped: python3 not found on PATH"; exit 77; fi
for module in "${modules[@]}"; do
  if ! python3 -c "import $module" 2>/dev/null; then
    echo "skipped: $module is not installed for $(command -v python3) (pip install ./python pytest)"; exit 77
  fi
done
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [[ $rc -ne $want ]]; then echo "FAIL: $* exited $rc, want $want"; exit 1; fi
if [[ -n "$needle" && "$out" != *"$needle"* ]]; then echo "FAIL: the output does not contain: $needle"; exit 1; fi
exit 0
