#!/usr/bin/env bash
# plot_write_through.sh BINARY SOAK.jsonl: `xferbench plot -o` writes through
# special files and links exactly as the C++ commands write -o (README
# "Output files"). Before, `ln -s /dev/stdout out.png; xferbench
# plot ... -o out.png >> log` replaced the log's lines with the image, and
# into a pipe the same command failed with "No such file or directory".
# Exits 77 (ctest SKIP_RETURN_CODE) when python3 or matplotlib is missing.
set -u
bin=$(realpath "$1")
soak=$(realpath "$2")
if ! command -v python3 >/dev/null || ! python3 -c "import matplotlib" 2>/dev/null; then
  echo "skipped: python3 with matplotlib is needed (pip install ./python)"
  exit 77
fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fails=0
fail() {
  echo "FAIL: $1"
  fails=$((fails + 1))
}
png_magic=$'\x89PNG'

# 1. A link to /dev/stdout, stdout appended to a log: the log keeps its lines.
printf 'first line\nsecond line\n' >log.txt
ln -s /dev/stdout out.png
"$bin" plot "$soak" -o out.png >>log.txt 2>err.txt
rc=$?
[[ $rc -eq 0 ]] || fail "link to /dev/stdout >> log: exit $rc: $(cat err.txt)"
[[ "$(head -n 2 log.txt)" == $'first line\nsecond line' ]] || fail "the log lost its lines: $(head -c 40 log.txt | od -c | head -2)"
[[ "$(tail -n +3 log.txt | head -c 4)" == "$png_magic" ]] || fail "the image does not follow the log's lines"
[[ -L out.png && "$(readlink out.png)" == /dev/stdout ]] || fail "the link out.png was replaced"

# 2. A link to /dev/fd/1 (an SVG this time), appended the same way.
printf 'kept\n' >log2.txt
ln -s /dev/fd/1 fd1.svg
"$bin" plot "$soak" -o fd1.svg >>log2.txt 2>err.txt || fail "link to /dev/fd/1: $(cat err.txt)"
[[ "$(head -n 1 log2.txt)" == kept ]] || fail "log2 lost its line"
grep -q '<svg' log2.txt || fail "log2 did not get the SVG"

# 3. Into a pipe.
"$bin" plot "$soak" -o out.png 2>err.txt | cat >piped.png
rc=${PIPESTATUS[0]}
[[ $rc -eq 0 ]] || fail "into a pipe: exit $rc: $(cat err.txt)"
[[ "$(head -c 4 piped.png)" == "$png_magic" ]] || fail "the pipe did not get the image"

# 4. A FIFO with a reader: written in place, never replaced.
mkfifo fifo.png
cat fifo.png >from_fifo.png &
reader=$!
"$bin" plot "$soak" -o fifo.png 2>err.txt || fail "to a FIFO: $(cat err.txt)"
wait "$reader"
[[ -p fifo.png ]] || fail "the FIFO was replaced"
[[ "$(head -c 4 from_fifo.png)" == "$png_magic" ]] || fail "the FIFO's reader did not get the image"

# 5. A regular file is replaced whole; a full device is exit 7 with nothing half-written.
"$bin" plot "$soak" -o real.png 2>err.txt || fail "to a regular file: $(cat err.txt)"
[[ "$(head -c 4 real.png)" == "$png_magic" ]] || fail "real.png is not a PNG"
ln -s /dev/full full.png
"$bin" plot "$soak" -o full.png 2>err.txt
rc=$?
[[ $rc -eq 7 ]] || fail "to /dev/full: exit $rc, want 7"
grep -q "cannot write output file 'full.png'" err.txt || fail "to /dev/full: $(cat err.txt)"
leftovers=$(find . -name '.*tmp' -o -name '.xferbench-plot-*' | head -1)
[[ -z $leftovers ]] || fail "temporary file left: $leftovers"

if [[ $fails -gt 0 ]]; then exit 1; fi
echo "plot writes through links, /dev/stdout, pipes and FIFOs as the C++ commands do"
