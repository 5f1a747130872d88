#!/usr/bin/env bash
# nvbandwidth v0.8 and xferbench's full suite, interleaved on one machine:
# ROUNDS x (nvbandwidth, every case; xferbench), each with its peak GPU
# memory (nvidia-smi every 0.2 s) and peak RSS and wall time (/usr/bin/time
# -v, else the shell's clock), then the cell-by-cell table
# (bench/compare_with_nvbandwidth.py medians). xferbench runs as `run --suite full
# --format nvbandwidth -o xbN.json` (the table reads the run JSON), except in
# the last round, where it runs as a link named nvbandwidth with nvbandwidth's
# defaults; that round's two texts are compared line by line with every
# number masked (masked.diff), so xferbench prints v0.8's text layout
# (--nvbandwidth-version 0.8) in every round, the release compared against.
# NAMED_ROUND=K runs round K under the nvbandwidth name instead of the last
# (0: none, every round writes JSON; for rounds spread over several calls).
# usage: bench/suites/catalogue_vs_nvbandwidth.sh BIN_DIR OUT_DIR NVBANDWIDTH [ROUNDS] [-- EXTRA XFERBENCH ARGS]
. "$(dirname "$0")/common.sh" "$@"
nvb="$(readlink -f "$3")"; rounds="${4:-3}"
shift $(( $# < 4 ? $# : 4 )); [ "${1:-}" = "--" ] && shift; extra=("$@")

# run_measured NAME CMD...: stdout to OUT/NAME.txt, "NAME wall_s peak_rss_kib peak_gpu_mib..." to OUT/footprint.txt
run_measured() {
  local name="$1"; shift
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$out/$name.gpumem" 2>/dev/null &
  local smi=$!
  local t0; t0=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then /usr/bin/time -v -o "$out/$name.time" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  else "$@" > "$out/$name.txt" 2> "$out/$name.err"; fi
  local rc=$? t1; t1=$(date +%s.%N)
  kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
  python3 - "$name" "$t0" "$t1" "$rc" "$out/$name.gpumem" "$out/$name.time" >> "$out/footprint.txt" <<'PY'
import os, re, sys
name, t0, t1, rc, mem, tim = sys.argv[1:]
vals = [int(v) for v in open(mem).read().split() if v.strip().isdigit()] if os.path.exists(mem) else []
ngpu = max(1, int(os.popen("nvidia-smi -L | wc -l").read().strip() or 1))
per_gpu = [max(vals[i::ngpu]) for i in range(ngpu)] if vals else []
rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(tim).read()) if os.path.exists(tim) else None
print(f"{name} rc={rc} wall_s={float(t1) - float(t0):.1f} peak_rss_mib={int(rss.group(1)) // 1024 if rss else 'n/a'} "
      f"peak_gpu_mib={','.join(map(str, per_gpu))}")
PY
}

{ date -u; nvidia-smi -L; } > "$out/machine.txt"
mkdir -p "$out/bin"; ln -sf "$x" "$out/bin/nvbandwidth"
xbs=()
for r in $(seq 1 "$rounds"); do
  run_measured "nvb$r" timeout 300 "$nvb"
  if [ "$r" -ne "${NAMED_ROUND:-$rounds}" ]; then
    run_measured "xb$r" timeout 120 "$x" run --suite full -q --format nvbandwidth --nvbandwidth-version 0.8 -o "$out/xb$r.json" "${extra[@]}"
    xbs+=("$out/xb$r.json")
  else
    run_measured "xb$r" timeout 120 "$out/bin/nvbandwidth" --nvbandwidth-version 0.8 "${extra[@]}"
    xbs+=("$out/xb$r.txt")
  fi
done
cat "$out/footprint.txt"
mask() { sed -E 's/[0-9]+(\.[0-9]+)?/#/g' "$1"; }
named=${NAMED_ROUND:-$rounds}
if [ "$named" -ge 1 ] && [ "$named" -le "$rounds" ]; then
  diff -u <(mask "$out/nvb$named.txt") <(mask "$out/xb$named.txt") > "$out/masked.diff"
  echo "masked diff (round $named): $(grep -c '^-[^-]' "$out/masked.diff") lines only in nvbandwidth, $(grep -c '^+[^+]' "$out/masked.diff") only in xferbench"
fi
python3 "$here/../compare_with_nvbandwidth.py" medians --nvb "$out"/nvb[0-9]*.txt --xb "${xbs[@]}" > "$out/compare.txt" 2>&1
grep -E "^#" "$out/compare.txt"
