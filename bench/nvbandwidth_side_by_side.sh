#!/usr/bin/env bash
# xferbench run as nvbandwidth (a link named nvbandwidth) next to the real
# nvbandwidth on the same machine in one call: text and -j JSON from both, a
# diff of the two texts with every number masked, and a per-cell table of
# xferbench / real (cells beyond 2% marked '!').
# usage: bench/nvbandwidth_side_by_side.sh BIN_DIR OUT_DIR REAL_NVBANDWIDTH [ARGS...]
#   ARGS go to both tools, e.g. -t 0 1 4 5 to shorten the run.
# Time: the full catalogue takes about 75 s for the real v0.8 and 25 s for
# xferbench on an H200 x2, twice each (text, JSON): about 3.5 minutes. With
# -t lists it is proportionally shorter.
. "$(dirname "$0")/common.sh" "$@"
real="$(readlink -f "$3")"
shift 3
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
run ours.txt "$ours" "$@"
run real.json "$real" -j "$@"
run ours.json "$ours" -j "$@"

mask() { sed -E 's/[0-9]+(\.[0-9]+)?/#/g' "$1"; }
diff -u <(mask "$out/real.txt") <(mask "$out/ours.txt") > "$out/masked.diff"
python3 "$here/nvbandwidth_compare.py" "$out/real.txt" "$out/ours.txt" "$out/real.json" "$out/ours.json" \
  > "$out/compare.txt" 2>&1

{
  echo "# nvbandwidth side by side, $(date -u +%F), $(nvidia-smi -L | wc -l) GPU(s): $(nvidia-smi -L | head -1)"
  echo "# args: ${*:-(none: the full catalogue)}"
  printf '%-10s %-6s %-6s %s\n' run exit secs "stdout lines"
  for f in real.txt ours.txt real.json ours.json; do
    printf '%-10s %-6s %-6s %s\n' "$f" "$(cat "$out/$f.rc")" "$(cat "$out/$f.seconds")" "$(wc -l < "$out/$f")"
  done
  echo "masked diff: $(grep -c '^-[^-]' "$out/masked.diff") lines only in real, $(grep -c '^+[^+]' "$out/masked.diff") only in xferbench"
  grep -E '^[-+][^-+]' "$out/masked.diff" | sort | uniq -c | sort -rn | head -12
  tail -4 "$out/compare.txt"
} | tee "$out/summary.txt"
