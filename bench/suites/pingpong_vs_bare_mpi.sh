#!/usr/bin/env bash
# Xferbench pingpong on host buffers against a bare MPI
# ping-pong (bench/probes/pingpong_bare_mpi.cpp, built here with mpicxx) in both
# buffer modes: separate send and receive buffers (osu_latency, the seed)
# and echo (the responder sends back from the buffer it received into).
# Per repetition and size, interleaved, one mpirun each: the BEFORE binary
# (optional, e.g. main's, which always echoed), xferbench --buffers
# separate, xferbench --buffers echo, bare separate, bare echo. Sizes 8 B,
# 64 KiB, 1 MiB, 16 MiB; REPS repetitions (default 6). Every run's output
# lands in OUT_DIR/raw/; OUT_DIR/README.md gets the machine, the date and a
# table of median bandwidths with their spread and the xferbench / bare
# ratios (rerunning rewrites it).
# usage: bench/suites/pingpong_vs_bare_mpi.sh BIN_DIR OUT_DIR [BEFORE_BIN_DIR [REPS]]
#   (BIN_DIR and BEFORE_BIN_DIR hold an xferbench binary; about 5 minutes on
#   an idle 2-core machine)
. "$(dirname "$0")/common.sh" "$@"
before="${3:+$(readlink -f "$3")/xferbench}"
reps="${4:-6}"
mpi=(mpirun -np 2 --allow-run-as-root --oversubscribe)
raw="$out/raw"
mkdir -p "$raw"
# The bare loop is built outside OUT_DIR: a results folder holds no binary.
build_dir=$(mktemp -d)
trap 'rm -rf "$build_dir"' EXIT
bare="$build_dir/pingpong_bare_mpi"
mpicxx -O2 -DOMPI_SKIP_MPICXX -o "$bare" "$here/../probes/pingpong_bare_mpi.cpp" || exit 1

# Timed and untimed round trips per size: about 0.1-0.5 s of timing each.
sizes=(8 65536 1048576 16777216)
declare -A loops=([8]=20000 [65536]=4000 [1048576]=1000 [16777216]=100)

# xb NAME BINARY BYTES ARGS...: one xferbench run of one size, JSON to raw/.
xb() {
  local name=$1 binary=$2 bytes=$3
  shift 3
  timeout 300 "${mpi[@]}" "$binary" pingpong --dev1 host --dev2 host --transport mpi --min-size "$bytes" -n 1 \
    --loop-count "${loops[$bytes]}" --warmup $((loops[$bytes] / 10)) "$@" --format json >"$raw/$name.json" 2>"$raw/$name.err"
  echo "exit $?" >>"$raw/$name.err"
}

# bare NAME MODE BYTES: one bare run of one size, its line to raw/.
bare() {
  timeout 300 "${mpi[@]}" "$bare" "$2" "$3" "${loops[$3]}" $((loops[$3] / 10)) >"$raw/$1.txt" 2>&1
  echo "exit $?" >>"$raw/$1.txt"
}

{
  date -u
  echo "nproc: $(nproc)"
  lscpu | grep -E '^(Model name|Socket|Core|Thread)'
  uptime
  mpirun --version | head -1
  "$x" --version
  [[ -n "$before" ]] && echo "before: $("$before" --version)"
} >"$out/machine.txt" 2>&1
: >"$out/load.txt"

for ((r = 1; r <= reps; ++r)); do
  for bytes in "${sizes[@]}"; do
    [[ -n "$before" ]] && xb "before_${bytes}_r$r" "$before" "$bytes"
    xb "after_separate_${bytes}_r$r" "$x" "$bytes" --buffers separate
    xb "after_echo_${bytes}_r$r" "$x" "$bytes" --buffers echo
    bare "bare_separate_${bytes}_r$r" separate "$bytes"
    bare "bare_echo_${bytes}_r$r" echo "$bytes"
  done
  echo "repetition $r of $reps done ($(uptime | sed 's/.*load/load/'))" | tee -a "$out/load.txt"
done

python3 - "$out" "$reps" <<'EOF'
import json, os, re, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
raw = os.path.join(out, "raw")
sizes = [8, 65536, 1048576, 16777216]
labels = {8: "8 B", 65536: "64 KiB", 1048576: "1 MiB", 16777216: "16 MiB"}

def xb(name):  # GB/s of one xferbench run, None if it failed or did not verify
    try:
        d = json.load(open(os.path.join(raw, name + ".json")))
        s = d["pairs"][0]["sizes"][0]
        return s["bandwidth_gbps"] if s.get("verified") else None
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None

def bare(name):
    try:
        m = re.search(r"gbps=([0-9.eE+-]+) verified=yes", open(os.path.join(raw, name + ".txt")).read())
        return float(m.group(1)) if m else None
    except OSError:
        return None

configs = [("before (main, echo)", "before_{b}_r{r}", xb), ("after --buffers separate", "after_separate_{b}_r{r}", xb),
           ("after --buffers echo", "after_echo_{b}_r{r}", xb), ("bare separate", "bare_separate_{b}_r{r}", bare),
           ("bare echo", "bare_echo_{b}_r{r}", bare)]
values = {}
for label, pattern, read in configs:
    for b in sizes:
        got = {r: read(pattern.format(b=b, r=r)) for r in range(1, reps + 1)}
        values[(label, b)] = {r: v for r, v in got.items() if v is not None}

def cell(by_rep):
    vs = list(by_rep.values())
    if not vs:
        return "-"
    return f"{statistics.median(vs):.3g} ({min(vs):.3g}-{max(vs):.3g}, n={len(vs)})"

def ratio(a, b):  # median of a / median of b, and the range of the ratios within one repetition
    va, vb = values[a], values[b]
    pairs = [va[r] / vb[r] for r in va if r in vb]
    if not pairs:
        return "-"
    return f"{statistics.median(va.values()) / statistics.median(vb.values()):.2f} ({min(pairs):.2f}-{max(pairs):.2f})"

lines = ["| size | " + " | ".join(c[0] for c in configs) + " |", "|---" * (len(configs) + 1) + "|"]
for b in sizes:
    lines.append(f"| {labels[b]} | " + " | ".join(cell(values[(c[0], b)]) for c in configs) + " |")
lines += ["", "| size | before / bare separate | after separate / bare separate | after echo / bare echo | "
          "before / bare echo | after separate / before |", "|---|---|---|---|---|---|"]
for b in sizes:
    lines.append(f"| {labels[b]} | {ratio(('before (main, echo)', b), ('bare separate', b))} | "
                 f"{ratio(('after --buffers separate', b), ('bare separate', b))} | "
                 f"{ratio(('after --buffers echo', b), ('bare echo', b))} | "
                 f"{ratio(('before (main, echo)', b), ('bare echo', b))} | "
                 f"{ratio(('after --buffers separate', b), ('before (main, echo)', b))} |")
machine = open(os.path.join(out, "machine.txt")).read() + "\n" + open(os.path.join(out, "load.txt")).read()
readme = f"""# xferbench pingpong against a bare MPI ping-pong, host buffers

Written by `bench/suites/pingpong_vs_bare_mpi.sh` (rerunning rewrites this file).
Two ranks, `mpirun -np 2 --allow-run-as-root --oversubscribe`, host
buffers, `--transport mpi`, one size per mpirun; per repetition and size
the five runs follow each other (interleaved), {reps} repetitions.
Bandwidth in GB/s (1e9 B/s) from the mean one-way time (round trip / 2) of
the timed round trips; each cell: median over the repetitions (min-max,
n = repetitions that ran and verified). Ratios: median / median
(per-repetition min-max).

Machine:

```
{machine.rstrip()}
```

{chr(10).join(lines)}
"""
open(os.path.join(out, "README.md"), "w").write(readme)
print(chr(10).join(lines))
EOF
