#!/bin/bash
# The first-touch runs on a 2-GPU node (recorded on 2 x H200):
#  - the seed's four example commands (1K from 1G with +1 B, +64 KiB and
#    +2 MiB overallocation; 1G from 1G with +1 B), each over ipc, nccl and
#    staged (mpi is skipped unless the MPI is CUDA-aware: it is not there);
#  - the IPC open cost for a 1 GiB buffer (the ipc runs' ipc_open_time_s);
#  - an ipc sweep over overallocations and buffer sizes, for a plot;
#  - the host-memory analogue.
# Usage: bench/suites/first_touch.sh BIN OUTDIR
# Writes 6 files into OUTDIR: environment.txt, runs.log (every run's text
# output), runs.jsonl (one JSON document per run), sweep_ipc.json,
# host.json, summary.txt (also printed last).
set -u
if [[ $# -ne 2 ]]; then
  echo "usage: $0 BIN OUTDIR" >&2
  exit 2
fi
bin=$(readlink -f "$1")
out=$2
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpirun=(mpirun --allow-run-as-root --oversubscribe -np 2)
: >"$out/runs.log"
: >"$out/runs.jsonl"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "xferbench: $("$bin" --version 2>&1)"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv 2>&1
  nvidia-smi topo -m 2>&1
  mpirun --version 2>&1 | head -1
} >"$out/environment.txt"

# run NAME ARGS...: one first-touch run under mpirun; its text goes to
# runs.log, its JSON (one line) to runs.jsonl with the run's name added.
run() {
  local name=$1
  shift
  echo "### $name: xferbench first-touch $*" >>"$out/runs.log"
  timeout 600 "${mpirun[@]}" "$bin" first-touch "$@" -o "$tmp/$name.json" >>"$out/runs.log" 2>&1
  local rc=$?
  echo "### $name: exit $rc" >>"$out/runs.log"
  if [[ $rc -eq 0 ]]; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["run"]=sys.argv[2]; print(json.dumps(d))' \
      "$tmp/$name.json" "$name" >>"$out/runs.jsonl"
  fi
}

for transport in ipc nccl staged; do
  for overalloc in 1 64K 2M; do
    run "${transport}_1K_from_1G_plus_${overalloc}" 5 3 1K 1G "$overalloc" --transport "$transport"
  done
  run "${transport}_1G_from_1G_plus_1" 5 3 1G 1G 1 --transport "$transport"
done

echo "### sweep_ipc: xferbench first-touch 5 3 1K 256M --buffer-sizes 256M,1G,4G --sweep-overalloc=0,1,4K,64K,2M" \
  >>"$out/runs.log"
timeout 600 "${mpirun[@]}" "$bin" first-touch 5 3 1K 256M --buffer-sizes 256M,1G,4G --sweep-overalloc=0,1,4K,64K,2M \
  --transport ipc -o "$out/sweep_ipc.json" >>"$out/runs.log" 2>&1
echo "### sweep_ipc: exit $?" >>"$out/runs.log"

echo "### host: xferbench first-touch --host 5 3 1K 1G 1" >>"$out/runs.log"
timeout 600 "$bin" first-touch --host 5 3 1K 1G 1 -o "$out/host.json" >>"$out/runs.log" 2>&1
echo "### host: exit $?" >>"$out/runs.log"

python3 - "$out" >"$out/summary.txt" <<'PY'
import json, math, os, sys
out = sys.argv[1]
docs = []
with open(os.path.join(out, "runs.jsonl")) as f:
    docs += [json.loads(line) for line in f if line.strip()]
for name in ("sweep_ipc", "host"):
    path = os.path.join(out, name + ".json")
    if os.path.exists(path):
        d = json.load(open(path))
        d["run"] = name
        docs.append(d)
def g(v, unit=""):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4g}{unit}"
print(f"# first-touch summary ({len(docs)} runs; first/steady: median s; ratio = first/steady; ipc open: median s)")
print(f"{'run':<30}{'transport':>16}{'p2p (B)':>12}{'variant':>32}{'alloc (B)':>13}{'first':>11}{'steady':>11}{'ratio':>10}{'ipc open':>11}")
for d in docs:
    for v in d["variants"]:
        print(f"{d['run']:<30}{d['transport']:>16}{d['p2p_bytes']:>12}{v['label']:>32}{v['alloc_bytes']:>13}"
              f"{g(v['first_time_s']):>11}{g(v['steady_time_s']):>11}{g(v['first_over_steady_ratio']):>10}"
              f"{g(v['phases_median']['ipc_open_time_s']):>11}")
PY
cat "$out/summary.txt"
