#!/usr/bin/env bash
# SM copy kernel shapes against SM counts on one GPU, through
# bench/probes/sm_kernel_shapes.cu: HBM read, write and copy, host->GPU and
# GPU->host, 512 MiB, median of 5 launches, every row verified.
# usage: bench/suites/sm_kernel_shapes.sh BIN_DIR OUT_DIR [probe options...]
#   The probe is BIN_DIR/sm_kernel_shapes where built there (nvcc -O3
#   -arch=sm_90 -std=c++17 -o BIN_DIR/sm_kernel_shapes
#   bench/probes/sm_kernel_shapes.cu), else this builds it into OUT_DIR
#   with the nvcc on PATH. Probe options, e.g. --ops h2d,read --sms 1,2,all.
# Then the HBM ops once more at all SMs only, 8 passes per launch, so that
# the launch's own cost weighs less (a pass there lasts ~0.1-0.3 ms).
# Writes OUT_DIR/{machine.txt, shapes.csv, shapes.log, passes8.csv,
# passes8.log, summary.txt} and prints the summary.
set -u
[ $# -ge 2 ] || { echo "usage: $0 BIN_DIR OUT_DIR [probe options...]" >&2; exit 2; }
bin="$1"; out="$2"; shift 2
mkdir -p "$out"
here="$(dirname "$0")"
probe="$bin/sm_kernel_shapes"
if [ ! -x "$probe" ]; then
  command -v nvcc >/dev/null || { echo "no $probe and no nvcc on PATH to build it" >&2; exit 1; }
  nvcc -O3 -arch=sm_90 -std=c++17 "$here/../probes/sm_kernel_shapes.cu" -o "$out/sm_kernel_shapes" || exit 1
  probe="$out/sm_kernel_shapes"
fi
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,pcie.link.gen.current,pcie.link.width.current --format=csv; } > "$out/machine.txt" 2>&1
start=$(date +%s)
"$probe" "$@" > "$out/shapes.csv" 2> "$out/shapes.log"
rc=$?
echo "probe exit $rc after $(( $(date +%s) - start )) s" >> "$out/shapes.log"
start=$(date +%s)
"$probe" --ops read,write,copy --sms all --passes 8 --budget-s 60 > "$out/passes8.csv" 2> "$out/passes8.log"
echo "probe exit $? after $(( $(date +%s) - start )) s" >> "$out/passes8.log"
python3 - "$out/shapes.csv" "$out/passes8.csv" > "$out/summary.txt" 2>&1 <<'EOF'
# Per op: the best figure at all SMs, then per shape (pinned) its GB/s at
# 1 and 2 SMs, at all SMs, and the fewest SMs that reach 95% of the op's
# best all-SM figure and of the shape's own; the 12 shapes best at 1 SM first.
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
if not rows or "gbps" not in rows[0]:
    sys.exit("no measured rows")
bad = [r for r in rows if r["verified"] == "FAIL"]
by_op = defaultdict(list)
for r in rows:
    by_op[r["op"]].append(r)
for op, rs in by_op.items():
    top = max(int(r["sms"]) for r in rs)
    best = max((float(r["gbps"]) for r in rs if int(r["sms"]) == top and r["verified"] != "FAIL"), default=0.0)
    print(f"== {op}: best at all {top} SMs {best:.1f} GB/s")
    curves = defaultdict(dict)
    for r in rs:
        if r["launch"] == "pinned" and r["verified"] in ("ok", "na"):
            curves[(r["shape"], r["threads"], r["blocks_per_sm"])][int(r["sms"])] = float(r["gbps"])
    def sms95(c, ref):
        hit = [n for n, g in sorted(c.items()) if g >= 0.95 * ref]
        return str(hit[0]) if hit else "-"
    ranked = sorted(curves.items(), key=lambda kv: -kv[1].get(1, 0.0))
    print(f"{'shape':16} {'thr':>4} {'b/sm':>4} {'1 SM':>8} {'2 SMs':>8} {'all':>8} {'95% at':>6} {'own 95%':>7}")
    for (shape, t, b), c in ranked[:12]:
        print(f"{shape:16} {t:>4} {b:>4} {c.get(1, 0):8.1f} {c.get(2, 0):8.1f} {c.get(top, 0):8.1f} {sms95(c, best):>6} {sms95(c, c.get(top, 0)):>7}")
    for r in rs:
        if r["shape"].startswith("xb") and int(r["sms"]) in (1, 2, top):
            print(f"  xferbench {r['shape']} {r['launch']} {r['sms']} SMs: {r['gbps']} GB/s ({r['verified']})")
print(f"rows {len(rows)}, FAIL {len(bad)}, NOFIT {sum(r['verified'] == 'NOFIT' for r in rows)}")
for r in bad:
    print("FAIL", ",".join(r.values()))
# The all-SM points again with 8 passes per launch: best and xferbench's.
try:
    more = list(csv.DictReader(open(sys.argv[2])))
except OSError:
    more = []
for op in sorted({r["op"] for r in more}):
    rs = [r for r in more if r["op"] == op and r["verified"] != "FAIL"]
    if not rs:
        continue
    best = max(rs, key=lambda r: float(r["gbps"]))
    xb = ", ".join(f"{r['shape']} {r['launch']} {r['gbps']}" for r in rs if r["shape"].startswith("xb"))
    print(f"== {op}, all SMs, 8 passes per launch: best {best['gbps']} GB/s ({best['shape']} t{best['threads']} "
          f"b{best['blocks_per_sm']} {best['launch']}); {xb}")
print(f"8-pass rows {len(more)}, FAIL {sum(r['verified'] == 'FAIL' for r in more)}")
EOF
tail -3 "$out/shapes.log"
cat "$out/summary.txt"
exit $rc
