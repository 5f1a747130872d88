#!/usr/bin/env bash
# xferbench run as nvbandwidth (a link named nvbandwidth) next to the real
# nvbandwidth on the same machine in one call: text and -j JSON from both, a
# diff of the two texts with every number masked, and a per-cell table of
# xferbench / real (cells beyond 2% marked '!'). The real one is v0.8, so
# xferbench's text comes in v0.8's layout (--nvbandwidth-version 0.8).
# Then one xferbench run printed in both layouts: `xferbench run
# --format nvbandwidth -o same_run.json` prints v0.10's text as it measures
# (ours_v010.txt), and nvb_render prints the run it recorded in v0.8's
# (ours_v08.txt) and again in v0.10's, which must equal what was printed.
# Self-checks (exit 1 if one fails, named in summary.txt): the real v0.8 text
# and xferbench's v0.8 text as nvbandwidth differ, numbers masked, only in
# the two version lines; the v0.10 text printed live and the one rendered
# from the record are the same bytes; the v0.8 and v0.10 texts of the same
# run are the same lines, numbers included, apart from the preamble, v0.10's
# COEFFICIENT_OF_VARIATION lines and v0.8's blank line after the note.
# usage: bench/suites/nvbandwidth_side_by_side.sh BIN_DIR OUT_DIR REAL_NVBANDWIDTH [ARGS...]
#   BIN_DIR holds xferbench and nvb_render (build-ci/tests/nvb_render).
#   ARGS go to both tools, e.g. -t 0 1 4 5 to shorten the run.
# Then, once each, the other seed names (bwtest, cuts, gpudirect_p2p_overalloc
# under mpirun) and 'xferbench run --format nvbandwidth -v' (about 60 s).
# Time: the full catalogue takes about 75 s for the real v0.8 and 25 s for
# xferbench on an H200 x2, twice each (text, JSON): about 4.5 minutes in
# all. With -t lists the nvbandwidth part is proportionally shorter.
[[ $# -ge 3 ]] || { echo "usage: $0 BIN_DIR OUT_DIR REAL_NVBANDWIDTH [ARGS...]" >&2; exit 2; }
. "$(dirname "$0")/common.sh" "$@"
real="$(readlink -f "$3")"
shift 3
render="$bin/nvb_render"
[[ -x "$render" ]] || { echo "missing $render: copy build-ci/tests/nvb_render into BIN_DIR" >&2; exit 2; }
mkdir -p "$out/bin"
ln -sf "$x" "$out/bin/nvbandwidth"
ours="$out/bin/nvbandwidth"
{ date -u; nvidia-smi -L; "$x" --version; "$real" --help 2>&1 | head -3; } > "$out/machine.txt" 2>&1
"$x" list > "$out/list.txt" 2>&1

# run NAME BINARY ARGS...: stdout, stderr, exit code and wall time under OUT_DIR.
run() {
  local name="$1"; shift
  local t0 t1
  t0=$(date +%s.%N)
  timeout 140 "$@" > "$out/$name" 2> "$out/$name.err"
  echo $? > "$out/$name.rc"
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.1f}')" > "$out/$name.seconds"
}
run real.txt "$real" "$@"
run ours.txt "$ours" --nvbandwidth-version 0.8 "$@"
run real.json "$real" -j "$@"
run ours.json "$ours" -j "$@"
# One run, both layouts: v0.10's live, v0.8's and v0.10's from its record.
if [[ $# -eq 0 ]]; then same_args=(--suite full); else same_args=("$@"); fi
run ours_v010.txt "$x" run -q --format nvbandwidth -o "$out/same_run.json" "${same_args[@]}"
"$render" "$out/same_run.json" 0.8 > "$out/ours_v08.txt" 2> "$out/ours_v08.txt.err"
"$render" "$out/same_run.json" 0.10 > "$out/ours_v010_rendered.txt" 2> "$out/ours_v010_rendered.txt.err"

# The other names, for their output layouts (nothing to compare against here).
for name in bwtest cuts gpudirect_p2p_overalloc; do ln -sf "$x" "$out/bin/$name"; done
others=()
# other LABEL SECONDS COMMAND...: output appended to other_names.txt, exit code kept for the summary.
other() {
  local label="$1" secs="$2"; shift 2
  echo "== $label" >> "$out/other_names.txt"
  timeout "$secs" "$@" >> "$out/other_names.txt" 2>&1
  others+=("$(printf '%-58s exit %s' "$label" "$?")")
}
other "bwtest --list" 30 "$out/bin/bwtest" --list
other "bwtest --do=all:1024:both" 60 "$out/bin/bwtest" --do=all:1024:both
other "bwtest --do=0:DtoH:6684672:mapped --do=1:1024:HtoD" 60 \
  "$out/bin/bwtest" --do=0:DtoH:$((64 * 1024 * 102)):mapped --do=1:1024:HtoD
other "cuts --dtoh=0 --htod=1 --size=268435456 --iter=20" 60 "$out/bin/cuts" --dtoh=0 --htod=1 --size=268435456 --iter=20
other "mpirun -np 2 gpudirect_p2p_overalloc 5 3 1024 1073741824 1" 120 \
  mpirun --allow-run-as-root -np 2 "$out/bin/gpudirect_p2p_overalloc" 5 3 1024 1073741824 1
other "xferbench run --format nvbandwidth -v -t 0 5" 60 "$x" run -q --format nvbandwidth -v -t 0 5
other "xferbench run --format nvbandwidth-json -t 32" 60 "$x" run -q --format nvbandwidth-json -t 32

# Numbers become '#', digits inside words stay; a right-aligned field (a
# number at the start of a line or after two spaces) keeps where it ends, as
# tests/test_nvbandwidth_golden.cpp masks.
mask() {
  python3 -c 'import re, sys
def hide(m):
    field = m.start() == 0 or m.string[max(0, m.start() - 2):m.start()] == "  "
    return " " * (len(m.group()) - 1) + "#" if field else "#"
for l in open(sys.argv[1]):
    print(re.sub(r"(?<![A-Za-z_0-9.])\d+(\.\d+)?", hide, l.rstrip("\n")))' "$1"
}
diff -u <(mask "$out/real.txt") <(mask "$out/ours.txt") > "$out/masked.diff"
checks=()
# check NAME COMMAND...: "ok NAME" or "FAILED NAME" for the summary.
check() {
  local name="$1"; shift
  if "$@"; then checks+=("ok      $name"); else checks+=("FAILED  $name"); fi
}
only_version_lines_differ() {
  ! grep -E '^[-+][^-+]' "$out/masked.diff" | grep -vqE '^[-+](nvbandwidth Version|Built from Git version): '
}
exits_zero() { local f; for f in "$@"; do [[ $(cat "$out/$f.rc") == 0 ]] || return 1; done; }
check "xferbench's runs exit 0 (ours.txt, ours.json, ours_v010.txt)" exits_zero ours.txt ours.json ours_v010.txt
check "real v0.8 text = xferbench's v0.8 text as nvbandwidth, numbers masked, but for the version lines" \
  only_version_lines_differ
check "v0.10 text printed live = rendered from its record (same bytes)" \
  cmp -s "$out/ours_v010.txt" "$out/ours_v010_rendered.txt"
# The body of a text: from the first case on, without CoV lines and trailing blank lines.
body() {
  awk '/^(Running |Waived: |ERROR: )/ { on = 1 } on && !/^COEFFICIENT_OF_VARIATION / { a[n++] = $0 }
       END { while (n > 0 && a[n - 1] == "") n--; for (i = 0; i < n; i++) print a[i] }' "$1"
}
check "v0.8 and v0.10 texts of the same run: same cases, matrices and numbers" \
  diff -q <(body "$out/ours_v08.txt") <(body "$out/ours_v010.txt")
python3 "$here/../compare_with_nvbandwidth.py" side-by-side "$out/real.txt" "$out/ours.txt" "$out/real.json" "$out/ours.json" \
  > "$out/compare.txt" 2>&1

{
  echo "# nvbandwidth side by side, $(date -u +%F), $(nvidia-smi -L | wc -l) GPU(s): $(nvidia-smi -L | head -1)"
  echo "# args: ${*:-(none: the full catalogue)}"
  printf '%-14s %-6s %-6s %s\n' run exit secs "stdout lines"
  for f in real.txt ours.txt real.json ours.json ours_v010.txt; do
    printf '%-14s %-6s %-6s %s\n' "$f" "$(cat "$out/$f.rc")" "$(cat "$out/$f.seconds")" "$(wc -l < "$out/$f")"
  done
  echo "masked diff: $(grep -c '^-[^-]' "$out/masked.diff") lines only in real, $(grep -c '^+[^+]' "$out/masked.diff") only in xferbench"
  grep -E '^[-+][^-+]' "$out/masked.diff" | sort | uniq -c | sort -rn | head -12
  tail -4 "$out/compare.txt"
  printf '%s\n' "${others[@]}"
  echo "self-checks:"
  printf '  %s\n' "${checks[@]}"
} | tee "$out/summary.txt"
! grep -q '^  FAILED' "$out/summary.txt"
