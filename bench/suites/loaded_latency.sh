#!/usr/bin/env bash
# Latency under load: ROUNDS x `xferbench run --suite loaded` (host latency
# under host->GPU, GPU->host and both-way copy-engine load; the GPU's own
# memory latency under a local copy; peer latency under a peer read where
# there are two GPUs), each with `-v` text and JSON, plus the idle local
# chase on its own and, as a held-out reference for the idle host figure,
# nvbandwidth's host_device_latency_sm in the same call. Writes
# summary.md: per cell and round the idle and loaded ns, their ratio and
# the load's GB/s and % of peak, and the spread of each over the rounds.
# usage: bench/suites/loaded_latency.sh BIN_DIR OUT_DIR [NVBANDWIDTH|-] [ROUNDS]
. "$(dirname "$0")/common.sh" "$@"
nvb="${3:--}"; rounds="${4:-3}"
{ date -u; nvidia-smi -L; } > "$out/machine.txt"
for r in $(seq 1 "$rounds"); do
  "$x" run --suite loaded -v -o "$out/loaded$r.json" > "$out/loaded$r.txt" 2> "$out/loaded$r.err"
  echo "round $r: rc=$?" >> "$out/rc.txt"
  "$x" run -t device_local_latency_sm -t host_device_latency_sm -o "$out/idle$r.json" > "$out/idle$r.txt" 2>&1
  if [ "$nvb" != - ]; then "$nvb" -t host_device_latency_sm > "$out/nvbandwidth$r.txt" 2>&1; fi
done
python3 - "$out" "$rounds" > "$out/summary.md" <<'PY'
import json, re, statistics, sys, os
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for r in range(1, rounds + 1):
    p = f"{out}/loaded{r}.json"
    if not os.path.exists(p): continue
    d = json.load(open(p))
    for c in d["cases"]:
        if not c["matrices"]: continue
        m = c["matrices"][0]
        for cell in m["cells"]:
            l = cell.get("loaded")
            if not l: continue
            key = f'{c["name"]}[{m["row_labels"][cell["row"]]},{m["col_labels"][cell["col"]]}]'
            rows.setdefault(key, []).append((r, l["idle_ns"], cell["value_ns"], l["ratio"], l["load"]["gbps"],
                                             l["load"].get("pct_of_peak"), l["load"]["weak"]))
print(f"# Latency under load, {rounds} rounds\n")
print("| cell | round | idle ns | loaded ns | loaded/idle | load GB/s | load % of peak | weak |")
print("|---|---|---|---|---|---|---|---|")
for key, rs in rows.items():
    for r, idle, loaded, ratio, gbps, pct, weak in rs:
        pct_s = f"{pct:.1f}" if pct is not None else "n/a"
        print(f"| {key} | {r} | {idle:.0f} | {loaded:.0f} | {ratio:.2f} | {gbps:.1f} | {pct_s} | {weak} |")
print("\n| cell | ratio min-max over rounds | idle ns min-max | loaded ns min-max |")
print("|---|---|---|---|")
for key, rs in rows.items():
    f = lambda i: f"{min(x[i] for x in rs):.2f}-{max(x[i] for x in rs):.2f}" if i == 3 else f"{min(x[i] for x in rs):.0f}-{max(x[i] for x in rs):.0f}"
    print(f"| {key} | {f(3)} | {f(1)} | {f(2)} |")
print("\n## Idle chases on their own (run -t device_local_latency_sm -t host_device_latency_sm)\n")
for r in range(1, rounds + 1):
    p = f"{out}/idle{r}.json"
    if not os.path.exists(p): continue
    d = json.load(open(p))
    vals = [f'{c["name"]}[{m["col_labels"][cell["col"]]}] {cell["value_ns"]:.0f} ns' for c in d["cases"] for m in c["matrices"][:1] for cell in m["cells"]]
    print(f"- round {r}: " + "; ".join(vals))
nv = []
for r in range(1, rounds + 1):
    p = f"{out}/nvbandwidth{r}.txt"
    if os.path.exists(p):
        m = re.findall(r"SUM host_device_latency_sm ([\d.]+)", open(p).read())
        if m: nv.append(m[0])
if nv: print(f"\nnvbandwidth v0.8 host_device_latency_sm, gpu0, per round: {', '.join(nv)} ns")
PY
cat "$out/summary.md"
