#!/usr/bin/env bash
# bad_inputs_selftest.sh RUNNER: runs bad_inputs.sh on a fake binary that
# does what each row tells it (exit code, stderr lines, a file left behind,
# a signal, a hang), so every check of the runner is seen to fail a row that
# breaks it and to pass one that keeps it.
set -u
runner="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# fake CODE WORD...: prints each WORD as a stderr line, except touch:FILE
# (creates FILE), segv (dies by SIGSEGV) and hang (sleeps); exits CODE.
cat >"$work/fake" <<'EOF'
#!/usr/bin/env bash
code=$1
shift
for a in "$@"; do
  case $a in
    touch:*) : >"${a#touch:}" ;;
    segv) kill -SEGV $$ ;;
    hang) sleep 30 ;;
    *) printf '%s\n' "$a" >&2 ;;
  esac
done
exit "$code"
EOF
chmod +x "$work/fake"
mkdir "$work/fix"
# Line numbers matter: the expected FAIL lines below name them.
printf '%s\n' \
  "2	xferbench 2 'xferbench: error: invalid 7x'	invalid | 7x" \
  "2	xferbench 2 'xferbench: error: --zz' \"Run 'xferbench --help' for usage.\"	--zz" \
  "2	nvbandwidth 2 'nvbandwidth (xferbench): error: q'	q" \
  "7	stdout=/dev/null env FOO=bar xferbench 7 \"xferbench: error: cannot write \$FIX/x\"	/fix/x" \
  "2	xferbench 3 'xferbench: error: a'	a" \
  "2	xferbench 2 'xferbench: error: a'	zzz" \
  "2	xferbench 2 'xferbench: error: a' 'xferbench: error: a'	a" \
  "2	xferbench 2 'warning: x' 'xferbench: error: a'	a" \
  "2	xferbench 2	" \
  "2	xferbench 2 'xferbench: error: a' touch:left.json	a" \
  "139	xferbench 0 segv	" \
  "2	xferbench 2 hang	" \
  "2	echo 'xferbench: error: a'	a" \
  "2	xferbench 2 'xferbench: error: a	a" \
  >"$work/table.tsv"
"$runner" "$work/fake" "$work/table.tsv" "$work/fix" >"$work/out" 2>&1
rc=$?
cat "$work/out"
fails=0
want() {  # want PATTERN: the runner's output must have a line matching it
  if ! grep -qE -- "$1" "$work/out"; then
    echo "SELFTEST FAIL: no line matching: $1"
    fails=$((fails + 1))
  fi
}
want '^4 of 14 rows passed, 10 failed$'
want '^FAIL line 5: .*exit 3, want 2'
want '^FAIL line 6: .*lacks one of: zzz'
want '^FAIL line 7: .*2 error lines, want 1'
want '^FAIL line 8: .*not the error or the usage hint: warning: x'
want '^FAIL line 9: .*0 error lines, want 1'
want '^FAIL line 10: .*left files behind: .*left.json'
want '^FAIL line 11: .*ended by signal 11'
want '^FAIL line 12: .*did not finish'
want '^FAIL line 13: .*names none of'
want '^FAIL line 14: .*not shell words'
if [[ $rc -eq 0 ]]; then
  echo "SELFTEST FAIL: the runner exited 0 with failing rows"
  fails=$((fails + 1))
fi
if grep -qE '^FAIL line [1-4]:' "$work/out"; then
  echo "SELFTEST FAIL: a good row failed"
  fails=$((fails + 1))
fi
echo "selftest: $fails problem(s)"
[[ $fails -eq 0 ]]
