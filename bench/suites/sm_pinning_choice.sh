#!/usr/bin/env bash
# Which SMs an SM budget should use, through the probe
# bench/probes/sm_kernel_shapes.cu: HBM read (bulk and vector), write and copy at
# 1-132 SMs with the SMs picked three ways (the first to start a block, the
# lowest %smid, ids spread evenly), write through the TMA (bulkw), the
# local copy's vector shapes and host <-> GPU shapes with spread SMs.
# 512 MiB, median of 5 launches, 4 passes per launch for HBM, every row
# verified. Writes OUT_DIR/{pick/*.csv, shapes/*.csv, log} and prints one
# line per curve.
# usage: bench/suites/sm_pinning_choice.sh BIN_DIR OUT_DIR
#   (the probe BIN_DIR/sm_kernel_shapes, else built as sm_kernel_shapes.sh does)
set -u
[ $# -eq 2 ] || { echo "usage: $0 BIN_DIR OUT_DIR" >&2; exit 2; }
out="$2"; mkdir -p "$out/pick" "$out/shapes"
p="$1/sm_kernel_shapes"
if [ ! -x "$p" ]; then
  command -v nvcc >/dev/null || { echo "no $p and no nvcc on PATH to build it" >&2; exit 1; }
  nvcc -O3 -arch=sm_90 -std=c++17 "$(dirname "$0")/../probes/sm_kernel_shapes.cu" -o "$out/sm_kernel_shapes" || exit 1
  p="$out/sm_kernel_shapes"
fi
S=1,8,16,24,32,48,64,96,all
for pick in arrival low spread; do
  "$p" --ops read --only bulk_s3_c32 --sms $S --pick $pick --passes 4 >"$out/pick/read_$pick.csv" 2>>"$out/log"
  "$p" --ops read --only grid_u8_nc256 --sms $S --pick $pick --passes 4 >"$out/pick/readv_$pick.csv" 2>>"$out/log"
  "$p" --ops write --only grid_u4 --sms $S --pick $pick --passes 4 >"$out/pick/write_$pick.csv" 2>>"$out/log"
  "$p" --ops copy --only bulk_s3_c32 --sms $S --pick $pick --passes 4 >"$out/pick/copy_$pick.csv" 2>>"$out/log"
done
"$p" --ops write --only bulkw --sms 1,2,8,32,64,all --pick spread --passes 4 >"$out/pick/bulkw.csv" 2>>"$out/log"
S=1,2,4,8,16,32,48,64,96,all
for shape in grid_u4 grid_u8 xb; do
  "$p" --ops copy --only $shape --sms $S --pick spread --passes 4 >"$out/shapes/copy_$shape.csv" 2>>"$out/log"
done
"$p" --ops h2d,d2h --only bulk_s3_c32 --sms 1,2,4,8,all --pick spread >"$out/shapes/host_bulk.csv" 2>>"$out/log"
"$p" --ops h2d,d2h --only xb --sms 1,2,4,8,all --pick spread >"$out/shapes/host_xb.csv" 2>>"$out/log"
"$p" --ops write --only xb --sms $S --pick spread --passes 4 >"$out/shapes/write_xb.csv" 2>>"$out/log"
"$p" --ops read --only xb --sms $S --pick spread --passes 4 >"$out/shapes/read_xb.csv" 2>>"$out/log"
python3 - "$out" <<'PY'
import csv, glob, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.csv"))):
    curves = {}
    for r in csv.DictReader(open(f)):
        key = (r["op"], r["shape"], r["threads"], r["blocks_per_sm"], r["launch"])
        ok = "" if r["verified"] in ("ok", "na") else r["verified"]
        curves.setdefault(key, []).append(f"{r['sms']}:{float(r['gbps']):.0f}{ok}")
    for k, v in curves.items():
        print(os.path.relpath(f, sys.argv[1]), " ".join(k), " ".join(v))
PY
