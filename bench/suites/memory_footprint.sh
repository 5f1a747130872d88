#!/usr/bin/env bash
# Memory footprint of the full suite, on a 2-GPU node:
# xferbench `run --suite full` at -b 64, 512 and 2048, and nvbandwidth v0.8
# at -b 64 and 512 (at 2048 too when a 4th argument is given: minutes).
# Per run: peak GPU memory per GPU (nvidia-smi every 0.2 s, device-wide, and
# the idle value before the run), peak RSS (/usr/bin/time -v, else VmHWM
# polled from /proc), wall time, exit code; for xferbench also its own JSON
# memory record (measured peaks, budget, pool allocations and their cost).
# usage: bench/suites/memory_footprint.sh BIN_DIR OUT_DIR NVBANDWIDTH [nvb2048]
#   RUNS="xb64 xb512 xb2048 nvb64 nvb512" selects runs (default: all of
#   these; nvb2048 is added by the 4th argument or by naming it in RUNS).
# Takes about 4 minutes with every default run (xferbench ~12/20/65 s,
# nvbandwidth ~20/75 s). Writes OUT_DIR/<run>.{txt,json,smi.csv,rss} and
# OUT_DIR/summary.txt (also printed last).
if [[ $# -lt 3 ]]; then
  echo "usage: $0 BIN_DIR OUT_DIR NVBANDWIDTH [nvb2048]" >&2
  exit 2
fi
nvb="$(readlink -f "$3")"
. "$(dirname "$0")/common.sh" "$1" "$2"
runs="${RUNS:-xb64 xb512 xb2048 nvb64 nvb512}"
timebin="${TIME_BIN:-/usr/bin/time}"  # GNU time; the /proc fallback is used where it is missing
if [[ -x "$timebin" ]]; then echo "$timebin -v" > "$out/rss_method"; else echo "VmHWM polled every 0.2 s" > "$out/rss_method"; fi
[[ $# -ge 4 && " $runs " != *" nvb2048 "* ]] && runs="$runs nvb2048"

{ date -u; hostname; nvidia-smi -L; nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv;
  "$x" --version; ls -l "$nvb"; } > "$out/environment.txt" 2>&1

# Peak RSS of a command: /usr/bin/time -v where it exists, else the last
# VmHWM read from /proc while it runs (written to $out/$name.rss in KiB).
run_measured() {  # name limit_s command...
  local name=$1 limit=$2; shift 2
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits > "$out/$name.idle.csv" 2>&1
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 200 > "$out/$name.smi.csv" 2>&1 &
  local smi=$!
  local t0 rc
  t0=$(date +%s.%N)
  if [[ -x "$timebin" ]]; then
    timeout "$limit" "$timebin" -v "$@" > "$out/$name.txt" 2> "$out/$name.time.txt"
    rc=$?
    awk -F': ' '/Maximum resident set size/ {print $2}' "$out/$name.time.txt" > "$out/$name.rss"
  else
    timeout "$limit" "$@" > "$out/$name.txt" 2> "$out/$name.time.txt" &
    local pid=$! hwm=0 v child
    while kill -0 "$pid" 2>/dev/null; do
      child=$(pgrep -P "$pid" | head -1)  # timeout's child is the measured process
      v=$(awk '/VmHWM/ {print $2}' "/proc/${child:-$pid}/status" 2>/dev/null)
      [[ -n "$v" && "$v" -gt "$hwm" ]] && hwm=$v
      sleep 0.2
    done
    wait "$pid"; rc=$?
    echo "$hwm" > "$out/$name.rss"
  fi
  python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')" > "$out/$name.wall"
  echo "$rc" > "$out/$name.rc"
  kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
  echo "$name: exit $rc, $(cat "$out/$name.wall") s"
}

for r in $runs; do
  case $r in
    xb64)    run_measured xb64 90 "$x" run --suite full -b 64 -o "$out/xb64.json" ;;
    xb512)   run_measured xb512 120 "$x" run --suite full -b 512 -o "$out/xb512.json" ;;
    xb2048)  run_measured xb2048 240 "$x" run --suite full -b 2048 -o "$out/xb2048.json" ;;
    nvb64)   run_measured nvb64 90 "$nvb" -b 64 ;;
    nvb512)  run_measured nvb512 200 "$nvb" -b 512 ;;
    nvb2048) run_measured nvb2048 500 "$nvb" -b 2048 ;;
    *) echo "unknown run '$r' (expected xb64 xb512 xb2048 nvb64 nvb512 nvb2048)" >&2 ;;
  esac
done

python3 - "$out" $runs > "$out/summary.txt" <<'PY'
import json, os, sys
out, runs = sys.argv[1], sys.argv[2:]
MiB = 1 << 20

def read(name, ext):
    p = os.path.join(out, f"{name}.{ext}")
    return open(p).read().strip() if os.path.exists(p) else ""

def smi(name, ext):
    peak = {}
    for line in read(name, ext).splitlines():
        parts = [s.strip() for s in line.split(",")]
        if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
            peak[int(parts[0])] = max(peak.get(int(parts[0]), 0), int(parts[1]))
    return peak

rows = {}
print("# memory footprint, full suite; GPU MiB from nvidia-smi (device-wide, every 0.2 s), RSS from "
      + open(os.path.join(out, "rss_method")).read().strip())
print(f"{'run':8} {'exit':>4} {'wall s':>7} {'peak GPU MiB':>16} {'idle GPU MiB':>13} {'peak RSS MiB':>12}   xferbench JSON")
for r in runs:
    peak, idle = smi(r, "smi.csv"), smi(r, "idle.csv")
    rss = read(r, "rss")
    rss_mib = int(rss) / 1024 if rss.isdigit() else float("nan")
    wall = float(read(r, "wall") or "nan")
    rows[r] = dict(peak=peak, idle=idle, rss=rss_mib, wall=wall)
    extra = ""
    jpath = os.path.join(out, f"{r}.json")
    if os.path.exists(jpath):
        m = json.load(open(jpath)).get("memory", {})
        g = ", ".join(f"gpu{x['index']} {x['peak_bytes'] / MiB:.0f} ({x['source']})" for x in m.get("peak_gpu", []))
        p = m.get("pool", {})
        b = m.get("budget", {})
        extra = (f"peak {g}; RSS {m.get('peak_host_rss_bytes', 0) / MiB:.0f}; budget GPU "
                 f"{max(b.get('gpu_bytes', [0]) or [0]) / MiB:.0f} host {b.get('host_bytes', 0) / MiB:.0f}; "
                 f"pool: {p.get('host_allocations')} host allocs {p.get('host_allocation_seconds', 0):.2f} s, "
                 f"{p.get('gpu_allocations')} GPU allocs {p.get('gpu_allocation_seconds', 0):.3f} s, "
                 f"{p.get('evictions')} frees {p.get('eviction_seconds', 0):.2f} s")
    gpus = "/".join(str(peak[k]) for k in sorted(peak)) or "-"
    idles = "/".join(str(idle[k]) for k in sorted(idle)) or "-"
    print(f"{r:8} {read(r, 'rc') or '-':>4} {wall:7.1f} {gpus:>16} {idles:>13} {rss_mib:12.0f}   {extra}")

def cmp(a, b, what):
    if a in rows and b in rows and rows[a]["peak"] and rows[b]["peak"]:
        ga, gb = max(rows[a]["peak"].values()), max(rows[b]["peak"].values())
        print(f"{what}: GPU {ga} vs {gb} MiB {'OK' if ga <= gb else 'OVER'}; "
              f"RSS {rows[a]['rss']:.0f} vs {rows[b]['rss']:.0f} MiB {'OK' if rows[a]['rss'] <= rows[b]['rss'] else 'OVER'}; "
              f"time ratio {rows[a]['wall'] / rows[b]['wall']:.2f} (target <= 0.30)")
print()
cmp("xb64", "nvb64", "xb64 vs nvb64")
cmp("xb512", "nvb512", "xb512 vs nvb512")
if "xb2048" in rows and "xb64" in rows and rows["xb2048"]["peak"] and rows["xb64"]["peak"]:
    # Context and other non-buffer memory: the 64 MiB run's rise over idle
    # less its two 64 MiB buffers per GPU.
    ctx = max(rows["xb64"]["peak"][g] - rows["xb64"]["idle"].get(g, 0) for g in rows["xb64"]["peak"]) - 2 * 64
    rise = max(rows["xb2048"]["peak"][g] - rows["xb2048"]["idle"].get(g, 0) for g in rows["xb2048"]["peak"])
    print(f"xb2048: GPU rise over idle {rise} MiB vs 6 x 2048 + context ({ctx} MiB, from xb64) = {6 * 2048 + ctx} MiB "
          f"{'OK' if rise <= 6 * 2048 + ctx else 'OVER'}")
PY
cat "$out/summary.txt"
