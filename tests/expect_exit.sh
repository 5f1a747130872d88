#!/usr/bin/env bash
# expect_exit.sh CODE COMMAND...: runs COMMAND with its output passed
# through, then prints "expect_exit: FAILED ..." if it did not exit with
# CODE. ctest's PASS_REGULAR_EXPRESSION ignores the exit code, so tests that
# match output also set FAIL_REGULAR_EXPRESSION "expect_exit: FAILED" and
# check both.
want="$1"
shift
"$@"
rc=$?
if [[ $rc -ne $want ]]; then
  echo "expect_exit: FAILED: '$*' exited $rc, want $want"
  exit 1
fi
