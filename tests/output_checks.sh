#!/usr/bin/env bash
# End-to-end checks of -o on the real binary, on files made for the test in
# a temporary directory: an existing directory is refused with exit 7 and
# one line naming it before anything is measured or printed, in every
# command (pingpong and first-touch under mpirun when MPIRUN is given); a
# symlink is followed and stays a link; a FIFO is written through and stays
# a FIFO; a regular file is replaced whole with no temporary file left;
# -o /dev/stdout, /dev/fd/1 and /dev/stderr are written through the open
# descriptor (appending to a >> log, into a pipe); a FIFO with no reader
# ends with exit 7 after the program's bounded wait; standard output that
# cannot be written (/dev/full, closed) is exit 7 with one line saying why.
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
if [[ ! -p "$work/pipe" ]] || ! "$xb" cases -o "$work/whole.json" >/dev/null ||
   ! cmp -s "$work/from_pipe" "$work/whole.json"; then
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

# check NAME COMMAND...: one check, passed when COMMAND succeeds; what it
# wrote with why() is shown when it fails.
check() {
  local name=$1; shift
  checks=$((checks + 1))
  if "$@"; then echo "ok: $name"; else fail "$name: $(cat "$work/why" 2>/dev/null)"; fi
  rm -f "$work/why"
}
why() { echo "$*" >"$work/why"; }
has_json() { grep -q '"name": "device_local_copy"' "$1"; }
# The number of the first line of $1 that is exactly $2 (0: none).
line_of() { local n; n=$(grep -n -m1 -x -F -e "$2" "$1" | cut -d: -f1); echo "${n:-0}"; }

# A result document for compare, and the cases document as a file, to
# compare what the descriptors got with.
cat >"$work/run.json" <<'JSON'
{"schema": "xferbench-run", "schema_version": 1, "cases": [{"index": 0, "name": "host_to_device_memcpy_ce",
 "status": "passed", "matrices": [{"name": "", "metric": "bandwidth_gbps", "row_labels": ["host"],
 "col_labels": ["gpu0"], "cells": [{"row": 0, "col": 0, "value_gbps": 55.0, "samples": 3,
 "stats": {"cov": 0.001, "median_gbps": 55.0}}]}]}]}
JSON
"$xb" cases -o "$work/cases_ref.json" >"$work/cases_ref.txt" || fail "cases: reference run failed"

# -o /dev/stdout >> log: the log keeps its lines (same inode), then gets
# the table and after it the JSON.
stdout_appends() {
  local log=$work/history.log
  printf 'earlier 1\nearlier 2\n' >"$log"
  local inode; inode=$(stat -c %i "$log")
  "$xb" cases -o /dev/stdout >>"$log" 2>"$work/err"; local rc=$?
  local text; text=$(line_of "$log" "$(head -1 "$work/cases_ref.txt")")
  local json; json=$(line_of "$log" "$(head -1 "$work/cases_ref.json")")
  why "exit $rc, inode $(stat -c %i "$log") (was $inode), table at line $text, JSON at line $json: $(head -c 300 "$log"); $(cat "$work/err")"
  [[ $rc -eq 0 && $(stat -c %i "$log") == "$inode" && $(head -2 "$log") == $'earlier 1\nearlier 2' ]] &&
    [[ $text -eq 3 && $json -gt $text ]] && has_json "$log" && [[ -z $(find "$work" -maxdepth 1 -name '.*.tmp') ]]
}
check "cases -o /dev/stdout >> log" stdout_appends

compare_appends() {
  local log=$work/compare.log
  echo "earlier" >"$log"
  local inode; inode=$(stat -c %i "$log")
  "$xb" compare "$work/run.json" "$work/run.json" --format json -o /dev/stdout >>"$log" 2>"$work/err"; local rc=$?
  why "exit $rc, inode $(stat -c %i "$log") (was $inode): $(head -c 300 "$log"); $(cat "$work/err")"
  [[ $rc -eq 0 && $(stat -c %i "$log") == "$inode" && $(head -1 "$log") == earlier && $(grep -c '"schema"' "$log") -eq 2 ]]
}
check "compare -o /dev/stdout >> log" compare_appends

# On a pipe: exit 0 and the whole document in the pipe, after the table.
stdout_pipe() {
  "$xb" cases -o /dev/stdout 2>"$work/err" | cat >"$work/piped"; local rc=${PIPESTATUS[0]}
  tail -n +"$(($(wc -l <"$work/cases_ref.txt") + 1))" "$work/piped" >"$work/piped_json"
  why "exit $rc: $(head -c 300 "$work/piped"); $(cat "$work/err")"
  [[ $rc -eq 0 ]] && cmp -s "$work/piped_json" "$work/cases_ref.json" && head -1 "$work/piped" | cmp -s - <(head -1 "$work/cases_ref.txt")
}
check "cases -o /dev/stdout | cat" stdout_pipe

# /dev/fd/1 with stdout on a file (>): the table is kept, the JSON follows.
fd1_file() {
  "$xb" cases -o /dev/fd/1 >"$work/fd1.out" 2>"$work/err"; local rc=$?
  why "exit $rc: $(head -c 300 "$work/fd1.out"); $(cat "$work/err")"
  [[ $rc -eq 0 ]] && cmp -s "$work/fd1.out" <(cat "$work/cases_ref.txt" "$work/cases_ref.json")
}
check "cases -o /dev/fd/1 > file" fd1_file

# /dev/stderr on a pipe: the JSON arrives there, exit 0.
stderr_pipe() {
  "$xb" cases -o /dev/stderr 2>&1 >/dev/null | cat >"$work/err_pipe"; local rc=${PIPESTATUS[0]}
  why "exit $rc: $(head -c 300 "$work/err_pipe")"
  [[ $rc -eq 0 ]] && cmp -s "$work/err_pipe" "$work/cases_ref.json"
}
check "cases -o /dev/stderr 2>&1 | cat" stderr_pipe

# Standard output that cannot be written: exit 7 and one line naming the cause.
# stdout_fails NAME CAUSE COMMAND...: run with stdout on /dev/full, or closed
# when CAUSE is "Bad file descriptor".
stdout_fails() {
  local cause=$1; shift
  if [[ $cause == "Bad file descriptor" ]]; then "$@" >&- 2>"$work/err"; else "$@" >/dev/full 2>"$work/err"; fi
  local rc=$?
  why "exit $rc (want 7): $(cat "$work/err")"
  [[ $rc -eq 7 && $(grep -c . "$work/err") -eq 1 ]] &&
    grep -qx "xferbench: error: cannot write to standard output: $cause" "$work/err"
}
full="No space left on device"
ln -s "$(readlink -f "$xb")" "$work/nvbandwidth"
check "cases > /dev/full" stdout_fails "$full" "$xb" cases
check "cases --format json > /dev/full" stdout_fails "$full" "$xb" cases --format json
check "compare > /dev/full" stdout_fails "$full" "$xb" compare "$work/run.json" "$work/run.json"
check "compare --format json > /dev/full" stdout_fails "$full" "$xb" compare "$work/run.json" "$work/run.json" --format json
check "--help > /dev/full" stdout_fails "$full" "$xb" --help
check "nvbandwidth -l > /dev/full" stdout_fails "$full" "$work/nvbandwidth" -l
check "cases >&-" stdout_fails "Bad file descriptor" "$xb" cases
check "compare >&-" stdout_fails "Bad file descriptor" "$xb" compare "$work/run.json" "$work/run.json"

# -o to a FIFO nobody reads: exit 7 naming it after the program's own
# bounded wait, nothing measured or printed. The commands run side by side;
# the test waits for their exits (timeout only guards against a hang).
mkfifo "$work/nr.json" "$work/nr.png"
# no_reader NAME OUT COMMAND...: starts COMMAND -o $work/OUT in the background.
no_reader() {
  local name=$1 out=$2; shift 2
  timeout 120 "$@" -o "$work/$out" >"$work/fifo_$name.out" 2>"$work/fifo_$name.err" &
  echo "$! $out" >"$work/fifo_$name.job"
}
fifo_refused() {
  local name=$1 pid out; read -r pid out <"$work/fifo_$name.job"
  wait "$pid"; local rc=$?
  why "exit $rc (want 7); stdout: $(head -c 200 "$work/fifo_$name.out"); stderr: $(cat "$work/fifo_$name.err")"
  [[ $rc -eq 7 && ! -s "$work/fifo_$name.out" && -p "$work/$out" && $(grep -c "xferbench: error:" "$work/fifo_$name.err") -eq 1 ]] &&
    grep -q "cannot write output file '$work/$out': no reader on the FIFO after 10 s" "$work/fifo_$name.err"
}
no_reader cases nr.json "$xb" cases
no_reader plot nr.png "$xb" plot "$work/run.json"
[[ -n "$mpirun" ]] && no_reader pingpong nr.json "${mpi[@]}" "$xb" pingpong -n 2 --loop-count 2
for job in "$work"/fifo_*.job; do
  name=$(basename "$job" .job)
  check "${name#fifo_} -o FIFO without a reader" fifo_refused "${name#fifo_}"
done

echo "$((checks - fails)) of $checks passed"
[[ $fails -eq 0 ]]
