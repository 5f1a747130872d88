#!/usr/bin/env bash
# bad_inputs.sh BINARY TABLE FIXTURES: runs every row of TABLE
# (tests/data/bad_inputs.tsv) against the built binary and checks that a bad
# input ends the way README "Exit codes" says, before any GPU is touched.
#
# A row is CODE<TAB>COMMAND<TAB>WORDS: COMMAND is shell words (quotes work,
# $FIX is the fixtures folder) naming the program as xferbench, nvbandwidth,
# bwtest, cuts or gpudirect_p2p_overalloc (links to BINARY, as the seed
# names are installed), optionally after `env ...` and `stdout=FILE` (where
# standard output goes; default a file outside the folder); WORDS are
# ' | '-separated strings that the error line must contain. Each row runs in
# a fresh folder holding only the links, an empty folder `dir`, a FIFO
# `fifo` that nobody reads and a link to the fixtures folder whose name is
# not UTF-8 (its path is $NOT_UTF8), with stdin from /dev/null, and must:
#   - exit with CODE, not by a signal, within the time limit;
#   - print exactly one line containing every WORD on stderr, that line being
#     an error line ("...: error: ..." or nvbandwidth's "ERROR: ..."), plus at
#     most the usage hint that parse errors print ("Run '... --help' ...");
#   - leave the folder as it was (no output file, no temporary file, no core).
# Prints one line per failing row and a count; exits 1 if any row failed.
set -u
bin=$(realpath "$1")
table="$2"
FIX=$(realpath "$3")
export FIX
programs="xferbench nvbandwidth bwtest cuts gpudirect_p2p_overalloc"
# What a launcher or a fault hook in the caller's environment would change.
unset XFERBENCH_FAULT OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK PMI_SIZE PMI_RANK PMIX_RANK SLURM_STEP_NUM_TASKS \
  SLURM_PROCID
ulimit -c 0
# A row checks arguments only; one that runs this long is stuck. The FIFO
# rows wait out xferbench's own 10 s bound for a reader; 30 s leaves room
# for a slow, busy machine.
limit=30
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
rows=0
fails=0
fail() {
  echo "FAIL line $line_no: $cmd -> $1"
  fails=$((fails + 1))
}

# check_stderr FILE WORDS: "" when the rules above hold, else why not.
check_stderr() {
  local file="$1" error_lines=0 matched=0 other=""
  local line word ok
  local -a needles=()
  [[ -n $2 ]] && IFS=$'\x1f' read -r -a needles <<<"${2// | /$'\x1f'}"
  while IFS= read -r line || [[ -n $line ]]; do
    [[ -z $line ]] && continue
    if [[ $line =~ ^Run\ \'.*--help\'.*usage\.$ ]]; then continue; fi
    if [[ $line == *": error: "* || $line == "ERROR: "* ]]; then
      error_lines=$((error_lines + 1))
      ok=1
      for word in "${needles[@]}"; do
        [[ $line == *"$word"* ]] || ok=0
      done
      matched=$((matched + ok))
    else
      other="$line"
    fi
  done <"$file"
  if [[ -n $other ]]; then echo "a line that is not the error or the usage hint: $other"
  elif [[ $error_lines -ne 1 ]]; then echo "$error_lines error lines, want 1"
  elif [[ $matched -ne 1 ]]; then echo "the error line lacks one of: $2"
  fi
}

line_no=0
while IFS=$'\t' read -r code cmd words || [[ -n $code ]]; do
  line_no=$((line_no + 1))
  [[ -z $code || $code == \#* ]] && continue
  rows=$((rows + 1))
  dir="$root/$rows"
  mkdir "$dir"
  for p in $programs; do ln -s "$bin" "$dir/$p"; done
  mkdir "$dir/dir"
  mkfifo "$dir/fifo"
  NOT_UTF8="$dir/fixtures-"$'\xe9'
  ln -s "$FIX" "$NOT_UTF8"
  export NOT_UTF8
  before=$(cd "$dir" && find . | sort)
  # The row's words, with $FIX expanded and quotes honoured.
  if ! eval "set -- $cmd"; then
    fail "the command is not shell words"
    continue
  fi
  argv=()
  named=0
  stdout="$root/out"
  for w in "$@"; do
    if [[ $named -eq 0 && $w == stdout=* ]]; then
      stdout="${w#stdout=}"
    elif [[ $named -eq 0 && " $programs " == *" $w "* ]]; then
      argv+=("./$w")
      named=1
    else
      argv+=("$w")
    fi
  done
  if [[ $named -eq 0 ]]; then
    fail "the row names none of: $programs"
    continue
  fi
  (cd "$dir" && exec timeout -k 5 "$limit" "${argv[@]}" </dev/null >"$stdout" 2>"$root/err")
  rc=$?
  after=$(cd "$dir" && find . | sort)
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then
    fail "did not finish within $limit s"
  elif [[ $rc -ne $code ]]; then
    fail "exit $rc, want $code; stderr: $(head -c 400 "$root/err")"
  elif [[ $rc -gt 128 && $rc -ne 130 && $rc -ne 143 ]]; then
    fail "ended by signal $((rc - 128))"
  elif why=$(check_stderr "$root/err" "$words") && [[ -n $why ]]; then
    fail "$why; stderr: $(head -c 400 "$root/err")"
  elif [[ $before != "$after" ]]; then
    fail "left files behind: $(diff <(echo "$before") <(echo "$after") | grep '^>' | tr '\n' ' ')"
  fi
  rm -rf "$dir"
done <"$table"
echo "$((rows - fails)) of $rows rows passed, $fails failed"
[[ $rows -gt 0 && $fails -eq 0 ]]
