#!/usr/bin/env bash
# End-to-end checks of -o on the real binary, on files made for the test in
# a temporary directory: an existing directory is refused with exit 7 and
# one line naming it before anything is measured or printed, in every
# command (pingpong and first-touch under mpirun when MPIRUN is given); a
# symlink is followed and stays a link; a FIFO is written through and stays
# a FIFO; a regular file is replaced whole with no temporary file left.
# Usage: output_checks.sh XFERBENCH [MPIRUN]
set -u
xb=$1
mpirun=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
checks=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# refused NAME COMMAND...: exit 7, one error line naming $work/d.json or
# $work/d.png, nothing on stdout (no table, no measurement).
refused() {
  local name=$1; shift
  checks=$((checks + 1))
  timeout 120 "$@" >"$work/out" 2>"$work/err"; local rc=$?
  if [[ $rc -ne 7 ]] || ! grep -q "cannot write output file '$work/d\.\(json\|png\)': it is a directory" "$work/err" ||
     [[ $(grep -c "xferbench: error:" "$work/err") -ne 1 ]] || [[ -s "$work/out" ]]; then
    fail "$name: exit $rc (want 7); stdout: $(head -c 300 "$work/out"); stderr: $(cat "$work/err")"
  else
    echo "ok: $name"
  fi
}

mkdir "$work/d.json" "$work/d.png"
refused run "$xb" run -t 0 -o "$work/d.json"
refused default "$xb" -o "$work/d.json"
refused run_do "$xb" run --do=0:HtoD -o "$work/d.json"
refused cuts "$xb" cuts --dtoh=0 -o "$work/d.json"
refused sweep "$xb" sweep --do 0:HtoD --min 1K --max 4K -o "$work/d.json"
refused list "$xb" list -o "$work/d.json"
refused cases "$xb" cases -o "$work/d.json"
refused compare "$xb" compare "$work/old.json" "$work/new.json" -o "$work/d.json"
refused plot "$xb" plot "$work/r.json" -o "$work/d.png"
if [[ -n "$mpirun" ]]; then
  mpi=("$mpirun" --allow-run-as-root --oversubscribe -np 2)
  refused pingpong "${mpi[@]}" "$xb" pingpong -n 2 --loop-count 2 -o "$work/d.json"
  refused first_touch "${mpi[@]}" "$xb" first-touch 2 2 1K 1M 1 --memory host -o "$work/d.json"
else
  echo "skip: pingpong and first-touch (no mpirun given)"
fi

# A regular file is replaced whole; no temporary file is left beside it.
checks=$((checks + 1))
echo old >"$work/cases.json"
if ! "$xb" cases -o "$work/cases.json" >/dev/null || ! grep -q '"name": "device_local_copy"' "$work/cases.json" ||
   [[ -n $(find "$work" -maxdepth 1 -name '.*.tmp') ]]; then
  fail "regular file not replaced whole, or a temporary file left: $(ls -a "$work")"
else
  echo "ok: regular file"
fi

# A symlink is followed: its target gets the JSON, the link stays a link.
checks=$((checks + 1))
ln -s target.json "$work/link.json"
if ! "$xb" cases -o "$work/link.json" >/dev/null || [[ ! -L "$work/link.json" ]] ||
   ! grep -q '"name": "device_local_copy"' "$work/target.json"; then
  fail "symlink: link replaced or target not written"
else
  echo "ok: symlink followed"
fi

# A FIFO (standing in for a device node) is written through and stays one.
checks=$((checks + 1))
mkfifo "$work/pipe"
timeout 60 cat "$work/pipe" >"$work/from_pipe" &
reader=$!
if ! timeout 60 "$xb" cases --format csv -o "$work/pipe" >/dev/null; then fail "fifo: xferbench failed"; fi
wait "$reader"
if [[ ! -p "$work/pipe" ]] || ! grep -q '"name": "device_local_copy"' "$work/from_pipe"; then
  fail "fifo: replaced by a file, or the reader got nothing: $(head -c 200 "$work/from_pipe")"
else
  echo "ok: fifo written through"
fi

# A missing directory: exit 7 naming the path and the cause.
checks=$((checks + 1))
err=$("$xb" cases -o "$work/no-such-dir/x.json" 2>&1 >/dev/null); rc=$?
if [[ $rc -ne 7 || "$err" != *"cannot write output file '$work/no-such-dir/x.json': No such file or directory"* ]]; then
  fail "missing directory: exit $rc, $err"
else
  echo "ok: missing directory"
fi

echo "$((checks - fails)) of $checks passed"
[[ $fails -eq 0 ]]
