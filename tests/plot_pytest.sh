#!/usr/bin/env bash
# Runs a plotting test command, or exits 77 (ctest SKIP_RETURN_CODE) when
# python3, matplotlib or pytest is missing, so CI shows "skipped", not "passed".
# With --expect-exit N, the command must exit with status N instead of 0.
if ! command -v python3 >/dev/null; then echo "skipped: python3 not found on PATH"; exit 77; fi
for module in matplotlib pytest; do
  if ! python3 -c "import $module" 2>/dev/null; then
    echo "skipped: $module is not installed for $(command -v python3) (pip install ./python pytest)"; exit 77
  fi
done
if [[ "${1:-}" == --expect-exit ]]; then
  want="$2"; shift 2
  "$@"; rc=$?
  if [[ $rc -ne $want ]]; then echo "FAIL: $* exited $rc, want $want"; exit 1; fi
  exit 0
fi
exec "$@"
