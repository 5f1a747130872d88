#!/usr/bin/env bash
# usage: bench/suites/fabric_one_host.sh BIN_DIR OUT_DIR   (BIN_DIR holds xferbench; run as root, Open MPI 4.1)
# The fabric between nodes, on one multi-GPU host: `xferbench fabric` with
# each of the host's GPUs (2 or more; all that nvidia-smi lists) acting as a node (XFERBENCH_NODE_NAME=gI and --buffers gpu:I, one rank per
# GPU), over NCCL twice:
#   peer    NCCL as it chooses on one host (its P2P path over NVLink);
#   socket  NCCL forced onto its socket transport over the loopback
#           (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1
#           NCCL_SOCKET_IFNAME=lo): the network code path without a network,
#           with 4 socket threads of 4 sockets each (NCCL_SOCKET_NTHREADS=4
#           NCCL_NSOCKS_PERTHREAD=4): on 2 x H200 it
#           moves twice what NCCL's default does and its launches spread by
#           half as much (bench/results/2026-11-28-h200x2-socket-threads);
#   socket1 the same with NCCL's default of one socket thread of one socket.
# Beside each fabric run, `xferbench pingpong --all-pairs` on the same
# pairs and transport, interleaved REPS times (default 6): bandwidth both
# ways (GPU a -> b with a < b, and b -> a from a launch whose ranks hold the
# GPUs in reverse order) and the 8 B one-way latency, at the fabric's sizes
# and counts. NCCL_NVLS_ENABLE stays 0 (common.sh). Six, because one
# launch of NCCL's socket transport over the loopback differs from the next
# by up to 40% in either tool: medians of 3 launches of the same code
# differed by up to 15%, of 6 by at most 3.1% (2 x H200,
# bench/results/2026-11-27-h200x2-fabric).
#
# Self-check (the summary, printed last; exit 0 only if all hold), per
# configuration: every fabric run has all N(N-1)/2 pairs with both directions and
# the latency measured and verified, no lost rank, and the path NCCL named
# (peer: P2P; socket: NET/Socket); the median over the REPS runs of each
# pair's fabric p50 bandwidth (each direction) and p50 latency is within 5%
# of pingpong's median p50 on the same pair, direction and transport. The
# bandwidth pooled over every pair and launch (by direction and overall) is
# printed beside, for context; it is not a criterion.
#
# On 2 GPUs there is one pair and one round, so nothing runs beside it: the
# comparison then isolates the two tools' methods from the concurrency of
# a round's pairs.
#
# CONFIGS: the configurations to run (default "peer socket"; socket1 on request).
#
# SUMMARY_ONLY=1: run nothing, summarize what OUT_DIR holds (on stdout only:
# the folder's summary.txt stays the verdict of the runs as they ran).
#
# BUDGET_S: start no repetition after this many seconds of the script (each
# configuration keeps the repetitions it finished; the summary counts them).
#
. "$(dirname "$0")/common.sh" "$@"
REPS=${REPS:-6}
# BIND: mpirun's --bind-to for every launch (default none: NCCL's proxy and
# socket threads then run on any core, not on the rank's one core beside its
# polling thread; BIND=default leaves Open MPI's own choice).
BIND=${BIND:-none}
# CPUS_PER_RANK=K: the rank of GPU g (with its NCCL threads) runs on CPUs
# g*K .. g*K+K-1 (taskset), the same CPUs in every launch; default: any CPU.
if [[ -n "${CPUS_PER_RANK:-}" && ! "$CPUS_PER_RANK" =~ ^[1-9][0-9]*$ ]]; then
  echo "fabric_one_host: FAIL: CPUS_PER_RANK '${CPUS_PER_RANK}' is not a positive whole number"
  exit 2
fi
mpi=(mpirun --allow-run-as-root --oversubscribe)
[[ "$BIND" != default ]] && mpi+=(--bind-to "$BIND")
size=64M window=4 loops=10 warm=2 lat_loops=20000 lat_warm=1000

[[ -z "${SUMMARY_ONLY:-}" ]] && { date -u; nvidia-smi -L; "$x" --version; echo "mpirun: ${mpi[*]}"
  echo "CPUS_PER_RANK: ${CPUS_PER_RANK:-any CPU}"; lscpu 2>/dev/null | grep -E "^(CPU\(s\)|Socket|NUMA|Thread|Core)"; } >"$out/machine.txt" 2>&1
if [[ ! -r "$out/machine.txt" ]]; then
  echo "fabric_one_host: FAIL: $out/machine.txt is missing: SUMMARY_ONLY needs a folder this script wrote"
  exit 1
fi
ngpu=$(grep -c '^GPU' "$out/machine.txt")
if [[ "$ngpu" -lt 2 ]]; then
  echo "fabric_one_host: FAIL: needs 2 or more GPUs, this machine has ${ngpu}"
  exit 1
fi

# contexts ENVS CMD...: one mpirun app context per GPU (0..N-1, or N-1..0
# with ORDER=reverse), each rank with its GPU; CMD's "@G" becomes the GPU id.
contexts() {
  local -n envs=$1
  shift
  local order=() args=() g a
  mapfile -t order < <(seq 0 $((ngpu - 1)))
  [[ "${ORDER:-}" == reverse ]] && mapfile -t order < <(seq $((ngpu - 1)) -1 0)
  for g in "${order[@]}"; do
    [[ ${#args[@]} -gt 0 ]] && args+=(:)
    args+=(-np 1 -x "XFERBENCH_NODE_NAME=g$g")
    for a in "${envs[@]}"; do args+=(-x "$a"); done
    [[ -n "${CPUS_PER_RANK:-}" ]] && args+=(taskset -c "$((g * CPUS_PER_RANK))-$((g * CPUS_PER_RANK + CPUS_PER_RANK - 1))")
    for a in "$@"; do args+=("${a//@G/$g}"); done
  done
  printf '%s\0' "${args[@]}"
}

# launch NAME ENVS CMD...: NAME.txt (output and exit status); JSON in NAME.json.
launch() {
  local name=$1 envname=$2
  shift 2
  local -n envs_ref=$envname
  local args=()
  mapfile -d '' args < <(contexts "$envname" "$@")
  (for e in "${envs_ref[@]}"; do export "$e"; done
   timeout 300 "${mpi[@]}" "${args[@]}" >"$out/$name.txt" 2>&1
   echo "exit $?" >>"$out/$name.txt")
}

peer_env=(NCCL_NVLS_ENABLE=0)
socket1_env=(NCCL_NVLS_ENABLE=0 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo)
socket_env=("${socket1_env[@]}" NCCL_SOCKET_NTHREADS=4 NCCL_NSOCKS_PERTHREAD=4)
pp_common=(--transport nccl --all-pairs --dev1 gpu:@G --dev2 gpu:@G -n 1)
for config in ${CONFIGS:-peer socket}; do
  [[ -n "${SUMMARY_ONLY:-}" ]] && break
  env_name=${config}_env
  for rep in $(seq 1 "$REPS"); do
    if [[ -n "${BUDGET_S:-}" && $SECONDS -gt $BUDGET_S ]]; then
      echo "fabric_one_host: BUDGET_S=${BUDGET_S} s spent; ${config} stops after $((rep - 1)) repetitions" >&2
      break
    fi
    launch "${config}_fabric_$rep" "$env_name" "$x" fabric --buffers gpu:@G --transport nccl --size $size \
      --window $window --loop-count $loops --warmup $warm --latency-loop-count $lat_loops --latency-warmup $lat_warm \
      -o "$out/${config}_fabric_$rep.json"
    launch "${config}_pp_bw_fwd_$rep" "$env_name" "$x" pingpong "${pp_common[@]}" --mode bw --min-size $size \
      --window $window --loop-count $loops --warmup $warm -o "$out/${config}_pp_bw_fwd_$rep.json"
    ORDER=reverse launch "${config}_pp_bw_rev_$rep" "$env_name" "$x" pingpong "${pp_common[@]}" --mode bw \
      --min-size $size --window $window --loop-count $loops --warmup $warm -o "$out/${config}_pp_bw_rev_$rep.json"
    launch "${config}_pp_lat_$rep" "$env_name" "$x" pingpong "${pp_common[@]}" --min-size 8 \
      --loop-count $lat_loops --warmup $lat_warm -o "$out/${config}_pp_lat_$rep.json"
  done
done

summary="$out/summary.txt"; [[ -n "${SUMMARY_ONLY:-}" ]] && summary=/dev/null
python3 - "$out" "$REPS" "$ngpu" "${CONFIGS:-peer socket}" <<'PY' | tee "$summary"
import json, os, statistics, sys

out, reps, ngpu, configs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split()
npairs = ngpu * (ngpu - 1) // 2
problems, lines = [], []


def load(name):
    try:
        with open(os.path.join(out, name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        problems.append(f"{name}: no result ({e})")
        return None


def p50_gbps(size):
    t = size["one_way_time_s"]["median"]
    return size["bytes"] / t / 1e9 if t > 0 else 0.0


def launch_adjusted(by):
    """Each figure over its launch's median, times the median launch level."""
    level = {launch: statistics.median(v.values()) for launch, v in by.items()}
    mid = statistics.median(level.values())
    adjusted = {}
    for launch, v in by.items():
        for key, x in v.items():
            adjusted.setdefault(key, []).append(x / level[launch] * mid)
    return adjusted, mid


def launch_adjusted_line(fab_by, pp_by):
    """Context, not a criterion: every pair of a launch moves together on a shared host."""
    fa, fmid = launch_adjusted(fab_by)
    qa, qmid = launch_adjusted(pp_by)
    diffs = [(statistics.median(fa[k]) / statistics.median(qa[k]) - 1) * 100 for k in sorted(set(fa) & set(qa))]
    worst = max(diffs, key=abs) if diffs else 0.0
    return (f"  launch levels (median over a launch's directions): fabric {fmid:.3f}, pingpong {qmid:.3f} GB/s "
            f"({(fmid / qmid - 1) * 100:+.1f}%); each figure over its launch's level: "
            f"{sum(abs(d) <= 5 for d in diffs)} of {len(diffs)} directions within 5% (largest {worst:+.1f}%)")


def paired_line(fab_by, pp_by):
    """Context, not a criterion: each fabric launch against the pingpong launches of its repetition, which ran
    right after it. If launches drifted with the machine's load over minutes, neighbours would move together and
    these ratios would settle; if each launch draws its own level, they do not."""
    ratios, levels = {}, []
    for (kind, rep), v in pp_by.items():
        f_rep = fab_by.get(rep, {})
        for key, q in v.items():
            if key in f_rep and q > 0:
                ratios.setdefault(key, []).append(f_rep[key] / q)
    for rep, v in fab_by.items():
        q = {k: x for (kind, r), qv in pp_by.items() if r == rep for k, x in qv.items()}
        if q:
            levels.append((statistics.median(v.values()), statistics.median(q.values())))
    diffs = [(statistics.median(r) - 1) * 100 for _, r in sorted(ratios.items())]
    worst = max(diffs, key=abs) if diffs else 0.0
    corr = float("nan")
    if len(levels) > 2:
        fx, qx = [l[0] for l in levels], [l[1] for l in levels]
        mf, mq = statistics.mean(fx), statistics.mean(qx)
        cov = sum((a - mf) * (b - mq) for a, b in levels)
        den = (sum((a - mf) ** 2 for a in fx) * sum((b - mq) ** 2 for b in qx)) ** 0.5
        corr = cov / den if den > 0 else float("nan")
    return (f"  each fabric launch over the pingpong launches beside it: {sum(abs(d) <= 5 for d in diffs)} of "
            f"{len(diffs)} directions within 5% (largest {worst:+.1f}%); correlation of neighbouring launches' "
            f"levels {corr:.2f}")


for config, want_path in (("peer", "P2P"), ("socket", "NET/Socket"), ("socket1", "NET/Socket")):
    if config not in configs:
        continue
    done = [r for r in range(1, reps + 1) if os.path.exists(os.path.join(out, f"{config}_pp_lat_{r}.txt"))]
    if len(done) < 2:
        problems.append(f"{config}: {len(done)} complete repetitions, fewer than 2")
    fab = {}  # (gpu_from, gpu_to) -> [GB/s], ("lat", a, b) -> [s]
    pp = {}
    fab_by, pp_by = {}, {}  # launch -> {(gpu_from, gpu_to): GB/s}
    paths = set()
    for rep in done:
        d = load(f"{config}_fabric_{rep}")
        if d is not None:
            if d.get("lost_ranks"):
                problems.append(f"{config} fabric {rep}: lost ranks {d['lost_ranks']}")
            if len(d.get("pairs", [])) != npairs:
                problems.append(f"{config} fabric {rep}: {len(d.get('pairs', []))} pairs, want {npairs}")
            for p in d.get("pairs", []):
                a, b = p["gpu_a"], p["gpu_b"]
                for leg, key in (("bandwidth_ab", (a, b)), ("bandwidth_ba", (b, a)), ("latency", ("lat", a, b))):
                    l = p.get(leg)
                    if not l or not l.get("verified"):
                        problems.append(f"{config} fabric {rep}: g{a}-g{b} {leg} not measured and verified: "
                                        f"{p.get('error')}")
                        continue
                    value = l["one_way_time_s"]["median"] if leg == "latency" else l["gbps_p50"]
                    fab.setdefault(key, []).append(value)
                    if leg != "latency":
                        fab_by.setdefault(rep, {})[key] = value
                for key in ("path", "path_ba"):
                    paths.add(p.get(key, ""))
                    if want_path not in p.get(key, ""):
                        problems.append(f"{config} fabric {rep}: g{a}-g{b} {key} '{p.get(key)}' does not name {want_path}")
        for kind in ("bw_fwd", "bw_rev", "lat"):
            d = load(f"{config}_pp_{kind}_{rep}")
            for p in (d or {}).get("pairs", []):
                s = (p.get("sizes") or [None])[0]
                if not s or not s.get("verified"):
                    problems.append(f"{config} pingpong {kind} {rep}: g{p.get('gpu_a')}-g{p.get('gpu_b')} not verified")
                    continue
                a, b = p["gpu_a"], p["gpu_b"]
                key = ("lat", min(a, b), max(a, b)) if kind == "lat" else (a, b)
                pp.setdefault(key, []).append(s["one_way_time_s"]["median"] if kind == "lat" else p50_gbps(s))
                if kind != "lat":
                    pp_by.setdefault((kind, rep), {})[key] = p50_gbps(s)
    lines.append(f"# {config}: NCCL path(s) named by the fabric: {'; '.join(sorted(paths)) or 'none'}")
    lines.append(f"# {'pair':<10} {'what':<10} {'fabric':>10} {'pingpong':>10} {'diff':>7}   (median of {len(done)} runs; "
                 f"then each tool's own spread over its runs, (max - min) / median)")
    for key in sorted(set(fab) | set(pp), key=str):
        f, q = fab.get(key), pp.get(key)
        if not f or not q:
            problems.append(f"{config} {key}: measured by {'fabric' if f else 'pingpong'} only")
            continue
        fm, qm = statistics.median(f), statistics.median(q)
        diff = (fm / qm - 1) * 100 if qm > 0 else float("inf")
        if key[0] == "lat":
            name, what, fv, qv = f"g{key[1]}-g{key[2]}", "lat us", fm * 1e6, qm * 1e6
        else:
            name, what, fv, qv = f"g{key[0]}->g{key[1]}", "GB/s", fm, qm
        flag = "" if abs(diff) <= 5 else "  OUTSIDE 5%"
        spread = lambda v: 100 * (max(v) - min(v)) / statistics.median(v)
        lines.append(f"  {name:<10} {what:<10} {fv:>10.2f} {qv:>10.2f} {diff:>+6.1f}%   "
                     f"fabric {spread(f):4.1f}%  pingpong {spread(q):4.1f}%{flag}")
        if flag:
            problems.append(f"{config} {name} {what}: fabric {fv:.2f} vs pingpong {qv:.2f} ({diff:+.1f}%)")

    # Pooled over every pair and launch: the lower GPU sending (the fabric's
    # first bandwidth leg, pingpong's forward launches), the higher, and all.
    for name, pick in (("a->b, a<b", lambda k: k[0] < k[1]), ("b->a, a<b", lambda k: k[0] > k[1]),
                       ("every way", lambda k: True)):
        f = [v for k, vs in fab.items() if k[0] != "lat" and pick(k) for v in vs]
        q = [v for k, vs in pp.items() if k[0] != "lat" and pick(k) for v in vs]
        if f and q:
            fm, qm = statistics.median(f), statistics.median(q)
            lines.append(f"  pooled {name:<12} GB/s {fm:>10.3f} {qm:>10.3f} {(fm / qm - 1) * 100:>+6.1f}%   "
                         f"({len(f)} and {len(q)} figures)")
    if fab_by and pp_by:
        lines.append(launch_adjusted_line(fab_by, pp_by))
        lines.append(paired_line(fab_by, pp_by))

print("\n".join(lines))
if problems:
    print(f"fabric_one_host: FAIL ({len(problems)} problems)")
    for p in problems[:40]:
        print("  " + p)
    sys.exit(1)
print(f"fabric_one_host: PASS on {ngpu} GPUs: {' and '.join(configs)} path(s) named, every pair verified, fabric within 5% "
      f"of pingpong ({2 * npairs} directions and {npairs} latencies each, median of each configuration's runs)")
PY
exit "${PIPESTATUS[0]}"
