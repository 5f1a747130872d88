#!/usr/bin/env bash
# xferbench under a real Slurm (the private cluster of cluster.sh), no GPU:
#
#   slurm_test.sh CASE CLUSTER_DIR XFERBENCH WORK_DIR
#
# Exit 0 pass, 1 fail (the reason on stderr), 77 skip (the cluster could
# not start here: CLUSTER_DIR/skip says why). Every wait is for evidence (a
# line, a file, a job state) under a generous cap, never a fixed sleep.
set -u
CASE=$1 CLUSTER=$2 XB=$(realpath "$3") WORK=$4

if [ -f "$CLUSTER/skip" ]; then
  echo "SKIP: no Slurm cluster: $(cat "$CLUSTER/skip")"
  exit 77
fi
[ -f "$CLUSTER/env" ] || { echo "FAIL: no cluster in $CLUSTER (did slurm_cluster_start run?)" >&2; exit 1; }
# Only this cluster: forget any Slurm job this test itself runs in.
for v in $(compgen -e | grep -E '^(SLURM|SLURMD|PMI|PMIX|OMPI)_'); do unset "$v"; done
. "$CLUSTER/env"
# The simulated nodes share one host name: Open MPI's shared-memory
# transport would take peers on other "nodes" for local ones; and they
# share one machine, so loopback reaches every peer (another interface of
# a CI machine may not reach itself).
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

fail() {
  echo "FAIL: $CASE: $*" >&2
  exit 1
}

# Runs "$@" with a 120 s cap; stdout in out.txt, stderr in err.txt; sets RC.
run() {
  timeout 120 "$@" >out.txt 2>err.txt
  RC=$?
  [ "$RC" -ne 124 ] || fail "timed out: $*"
}

show() {
  echo "--- stdout"; cat out.txt
  echo "--- stderr"; cat err.txt
}

# Waits up to $1 seconds for "$2 ..." to succeed.
wait_for() {
  local end=$(($(date +%s) + $1))
  shift
  until "$@"; do
    [ "$(date +%s)" -lt "$end" ] || return 1
    sleep 0.1
  done
}

# json FILE CODE [ARGS]: runs CODE with d = the parsed FILE, sys.argv[2:] = ARGS.
json() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); $2" "$1" "${@:3}"; }

# A fleet of 3 nodes x 2 processes: one file, a row per node named by
# Slurm (n1, n2, n3), each with its no-GPU error (exit 3).
fleet() {
  local cmd=("$@")
  # -w: these nodes, also when ctest -j runs another test on others
  run srun --mpi=pmix -N3 -w 'n[1-3]' --ntasks-per-node=2 "$XB" "${cmd[@]}" -q -o fleet.json
  show
  [ -f fleet.json ] || fail "no fleet.json"
  [ "$(find . -name '*.json' | wc -l)" -eq 1 ] || fail "more than one file: $(ls)"
  json fleet.json '
assert d["schema"] == "xferbench-fleet", d["schema"]
assert d["command"] == sys.argv[2], d["command"]
assert sorted(d["nodes"]) == ["n1", "n2", "n3"], sorted(d["nodes"])
assert d["launch"] == {"nodes": 3, "processes": 6}, d["launch"]
for name, n in d["nodes"].items():
    assert n["host"] == name, n
    assert n["status"] == "error" and n["exit_code"] == 3, n
    assert n["error"]["kind"] == "no_device", n
print("fleet.json: nodes n1 n2 n3, each with its no-GPU error")' "${cmd[0]}" || fail "fleet.json"
  for n in n1 n2 n3; do
    grep -qE "^ *$n +.*ERROR.*no NVIDIA driver or GPU found" out.txt || fail "no row for $n in the table"
  done
  ! grep -q "/rank" out.txt fleet.json || fail "rows named by rank"
}

case_fleet_run() {
  fleet run
  [ "$RC" -eq 3 ] || fail "srun exit $RC, expected 3 (no GPU)"
}

case_fleet_check() {
  fleet check
  # A multi-node check accepts only when every node passed, and exits as a
  # single node's check would: 3 when every node lacks a GPU (README, "Exit
  # codes": one rule for one node and a fleet).
  [ "$RC" -eq 3 ] || fail "srun exit $RC, expected 3 (not accepted: no node has a GPU)"
}

case_fleet_sweep() {
  fleet sweep --do 0:HtoD --min 1K --max 4K
  [ "$RC" -eq 3 ] || fail "srun exit $RC, expected 3 (no GPU)"
}

# Two ranks on two nodes over TCP: verified data, both nodes named.
case_pingpong() {
  run srun --mpi=pmix -N2 -w 'n[1-2]' -n2 "$XB" pingpong --dev1 host --dev2 host -n 8 --loop-count 5 -o pp.json
  show
  [ "$RC" -eq 0 ] || fail "srun exit $RC, expected 0"
  grep -q "rank 0 (n1, host) <-> rank 1 (n2, host)" out.txt || fail "the header does not name n1 and n2"
  json pp.json '
p = d["pairs"][0]
assert (p["host_a"], p["host_b"]) == ("n1", "n2"), p
assert len(p["sizes"]) == 8, len(p["sizes"])
assert all(s["verified"] is True for s in p["sizes"]), p["sizes"]
assert d["status"] == "ok", d["status"]
print("pp.json: 8 sizes verified between n1 and n2")' || fail "pp.json"
}

# sbatch --wait ends with the job's exit code, which is xferbench's.
case_sbatch_exit() {
  run sbatch --wait -N2 -o job.out --wrap "srun --mpi=pmix $XB run -q"
  [ "$RC" -eq 3 ] || { cat job.out; fail "sbatch --wait exit $RC, expected 3 (no GPU)"; }
  run sbatch --wait -N1 -o job2.out --wrap "$XB run --no-such-option"
  [ "$RC" -eq 2 ] || { cat job2.out; fail "sbatch --wait exit $RC, expected 2 (usage)"; }
  grep -q "no-such-option" job2.out || fail "the usage error is not in the job's output"
  echo "sbatch --wait: exit 3 without a GPU, exit 2 for a usage error"
}

# A long pingpong (LOOPS repetitions per size, up to 128 MiB over TCP) as
# a batch job with the sbatch options given; prints the job id.
submit_long_pingpong() {
  local loops=$1
  shift
  cat >job.sh <<EOF
#!/bin/bash
srun --mpi=pmix -N2 -n2 $XB pingpong --dev1 host --dev2 host --loop-count $loops -o pp.json
EOF
  sbatch --parsable -N2 -o job.out "$@" job.sh
}

# Rows of sizes measured; from 1 MiB on a size takes seconds, so the
# signal lands inside one.
first_row() { grep -qE '^\| +[0-9]+\|' job.out 2>/dev/null; }
mib_row() { grep -qE '^\| +1048576\|' job.out 2>/dev/null; }
job_gone() { [ -z "$(squeue -h -j "$JOB" -o %i 2>/dev/null)" ]; }
# Waits up to $1 s for the row test $2 while the job runs.
wait_row() {
  wait_for "$1" eval "$2 || job_gone" && ! job_gone && return 0
  cat job.out
  fail "no $2 within $1 s, or the job ended first"
}
# The job ended by a signal: pp.json holds every size the table printed
# (verified), status interrupted by SIGTERM, and lists the rest as not run.
check_interrupted() {
  wait_for 150 job_gone || fail "job $JOB still there after 150 s"
  cat job.out
  scontrol show job "$JOB" | grep -E "JobState|ExitCode"
  [ -f pp.json ] || fail "no pp.json"
  grep -oE '^\| +[0-9]+\|' job.out | tr -d '| ' >printed.txt
  json pp.json '
printed = [int(x) for x in open(sys.argv[2]).read().split()]
assert d["status"] == "interrupted", d["status"]
assert d["stop"]["reason"] == "SIGTERM", d["stop"]
done = d["pairs"][0]["sizes"]
kept = [s["bytes"] for s in done]
assert printed and kept[:len(printed)] == printed, (printed, kept)
assert all(s["verified"] is True for s in done), done
left = d["stop"]["not_run"]
# Rank 0 writes its copy alone when the ranks have not agreed to stop
# within 0.3 s (a loaded machine; docs/interrupts.md): the sizes not run
# are not listed then, and the message says so.
alone = "before the other ranks agreed" in d["stop"]["message"]
assert alone or (left and len(kept) + len(left) == 25), (kept, left)
how = "rank 0 alone" if alone else f"{len(left)} not run"
print(f"pp.json: interrupted by SIGTERM, {len(kept)} sizes kept ({len(printed)} printed), {how}")' \
    printed.txt || fail "pp.json"
}

case_scancel() {
  JOB=$(submit_long_pingpong 400) || fail "sbatch failed"
  wait_row 90 mib_row
  scancel "$JOB"
  check_interrupted
}

# Slurm counts time limits in whole minutes and looks at them about every
# 30 s: the job ends 60 to 90 s after its start, long before the pingpong
# would (on the 2-core CI machine 400 repetitions reach 32 MiB in 60 s).
case_time_limit() {
  JOB=$(submit_long_pingpong 4000 --time=0:10) || fail "sbatch failed"
  wait_row 90 first_row
  check_interrupted
  scontrol show job "$JOB" | grep -q "JobState=TIMEOUT" || fail "the job did not end by its time limit"
}

# srun without PMIx (stock MpiDefault=none; --mpi=pmi2): one line naming
# the fix, exit 6 (MPI / launch problem), before Open MPI's MPI_Init aborts.
no_pmix() {
  local expect=$1
  shift
  run srun "$@"
  show
  [ "$RC" -eq 6 ] || fail "srun exit $RC, expected 6"
  [ "$(grep -c "^xferbench: " err.txt)" -eq 1 ] || fail "not one line from xferbench"
  grep -q "^xferbench: error: $expect started this process without PMIx.*run srun --mpi=pmix, or set MpiDefault=pmix in slurm.conf$" err.txt ||
    fail "the line does not name the launch and the fix"
  ! grep -qi "PMI support\|MPI_Init" err.txt out.txt || fail "Open MPI's own abort came first"
}

case_no_pmix() {
  no_pmix "srun without --mpi (MpiDefault=none)" -N2 -n2 "$XB" pingpong --dev1 host --dev2 host
  no_pmix "srun without --mpi (MpiDefault=none)" -N3 --ntasks-per-node=2 "$XB" run -q -o fleet.json
  [ ! -e fleet.json ] || fail "a fleet.json was written"
  no_pmix "srun --mpi=pmi2" --mpi=pmi2 -N2 -n2 "$XB" pingpong --dev1 host --dev2 host
}

# ---- The fabric (docs/fabric.md): 8 simulated nodes x 3 rails, host
# buffers over MPI (TCP on the loopback). A slow fault (XFERBENCH_FAULT:
# times reported 10 times as long) planted on a node, a pair or a rail must
# be named by the attribution. The 2-core machine's own noise (24 busy
# processes) is kept out by 4 MiB messages (each repetition spans many
# time slices: on a loaded CI machine, 2026-11-27, every direction was
# within 0.48-2.6 of the median, where 256 KiB gave 0.24-35), --min-ratio
# 0.3 and --metric bandwidth (8 B round trips are the scheduler's).
FABRIC_OPTS=(--buffers host --transport mpi --size 4M --window 2 --loop-count 3 --warmup 1
             --latency-loop-count 100 --latency-warmup 10 --min-ratio 0.3 --metric bandwidth)

# Open MPI 4.1 (Debian 12) sometimes crashes inside MPI_Init when 24 ranks
# open TCP connections at once on a loaded 2-core machine: a core shows
# PMPI_Init -> opal_progress -> mca_btl_tcp calling a null pointer, and the
# others print "Open MPI failed to TCP connect to a peer" (2026-11-27: 1 of
# 6 srun launches of `pingpong --all-pairs` on 8 x 3 ranks, xferbench's code
# not yet running). A launch that ended so, before xferbench printed
# anything, is started again (at most 3 times), and says so.
startup_crashed() {
  [ ! -s "$1" ] && grep -q "Segmentation fault\|failed to TCP connect to a peer" "$2"
}

# fabric_run [fabric options...]: fabric.json, out.txt, err.txt, RC.
fabric_run() {
  local try
  for try in 1 2 3; do
    # Processes that wait give their core to the others.
    OMPI_MCA_mpi_yield_when_idle=1 run srun --mpi=pmix -N8 --ntasks-per-node=3 "$XB" fabric "${FABRIC_OPTS[@]}" \
      --timeout 10 "$@" -o fabric.json
    startup_crashed out.txt err.txt || break
    echo "launch $try: Open MPI crashed in MPI_Init (TCP connect race), starting again" >&2
  done
  show
  [ -f fabric.json ] || fail "no fabric.json"
  [ "$(find . -name 'fabric.json*' | wc -l)" -eq 1 ] || fail "more than one file: $(ls)"
}

# Every pair of the file measured both ways, verified, its path named.
check_complete() {
  json fabric.json '
assert d["schema"] == "xferbench-fabric" and d["schema_version"] == 1, d["schema"]
names = [n["name"] for n in d["nodes"]]
assert names == [f"n{i}" for i in range(1, 9)], names
assert all(len(n["ranks"]) == 3 for n in d["nodes"]), d["nodes"]
assert d["plan"]["rounds"] == 7 and len(d["pairs"]) == 28 * 3, (d["plan"], len(d["pairs"]))
for p in d["pairs"]:
    for leg in ("bandwidth_ab", "bandwidth_ba", "latency"):
        assert p[leg] and p[leg]["verified"] is True and p[leg]["gbps_p50"] > 0, (p["a"], p["b"], p["rail"], leg, p)
    assert p["transport"] == "mpi" and p["path"] == "mpi", p
assert d["lost_ranks"] == [], d["lost_ranks"]
print("fabric.json: 84 pairs of 8 nodes x 3 rails, each both ways and its latency, verified")' || fail "fabric.json"
}

# The first culprit is WANT (most severe first); no node or rail besides it is named.
check_culprit() {
  json fabric.json '
want = sys.argv[2]
c = d["findings"]["culprits"]
assert c and c[0]["what"] == want, [x["what"] for x in c]
coarse = [x["what"] for x in c if x["kind"] in ("node", "node_rail", "rail") and x["what"] != want]
assert not coarse, coarse
print(f"fabric.json: culprit {want} named first, {len(c) - 1} other (pair) culprits")' "$1" || fail "attribution"
}

case_fabric() {
  fabric_run
  [ "$RC" -eq 0 ] || fail "srun exit $RC, expected 0"
  check_complete
  grep -q "^# plan: every pair of nodes in 7 rounds" out.txt || fail "no plan line"
  grep -q "^# bandwidth p50 from row to column, GB/s, rail 2" out.txt || fail "no matrix of rail 2"
}

case_fabric_node() {
  XFERBENCH_FAULT="node:n3:slow" fabric_run
  [ "$RC" -eq 0 ] || fail "srun exit $RC, expected 0"
  check_complete
  check_culprit "node n3"
  "$XB" check --judge fabric.json >check.txt
  [ $? -eq 1 ] || fail "check --judge did not fail"
  grep -q "^xferbench check: FAIL fabric of 8 nodes: node n3 (" check.txt || fail "check does not name node n3"
}

case_fabric_pair() {
  XFERBENCH_FAULT="pair:n6-n2:slow" fabric_run
  [ "$RC" -eq 0 ] || fail "srun exit $RC, expected 0"
  check_complete
  check_culprit "pair n2-n6"
}

case_fabric_rail() {
  XFERBENCH_FAULT="rail:1:slow" fabric_run
  [ "$RC" -eq 0 ] || fail "srun exit $RC, expected 0"
  check_complete
  check_culprit "rail 1"
}

# A rank that stops answering (SIGSTOP, as a hung process) is lost with its
# node; every other pair is measured; the file is written.
# Starts the fabric in the background with XFERBENCH_FAULT=$1 and waits for
# its mark line on stderr (started again after Open MPI's startup crash,
# see startup_crashed); sets SRUN_PID.
start_marked() {
  local try
  for try in 1 2 3; do
    XFERBENCH_FAULT="$1" OMPI_MCA_mpi_yield_when_idle=1 \
      srun --mpi=pmix -N8 --ntasks-per-node=3 "$XB" fabric "${FABRIC_OPTS[@]}" --timeout 2 -o fabric.json \
      >out.txt 2>err.txt &
    SRUN_PID=$!
    wait_for 120 eval 'grep -q "XFERBENCH_FAULT mark: fabric round" err.txt || ! kill -0 $SRUN_PID 2>/dev/null'
    grep -q "XFERBENCH_FAULT mark: fabric round" err.txt && return 0
    wait "$SRUN_PID"
    startup_crashed out.txt err.txt || break
    echo "launch $try: Open MPI crashed in MPI_Init (TCP connect race), starting again" >&2
  done
  show
  fail "no mark line"
}

case_fabric_hung() {
  start_marked "round:1:mark@7"
  local srun_pid=$SRUN_PID victim="" p
  for p in $(pgrep -f "$XB fabric"); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_PROCID=7" && victim=$p
  done
  [ -n "$victim" ] || { kill "$srun_pid"; fail "rank 7 not found"; }
  kill -STOP "$victim"
  wait_for 120 test -f fabric.json || { kill -KILL "$victim"; show; fail "no fabric.json while rank 7 is stopped"; }
  kill -KILL "$victim"
  wait "$srun_pid"
  show
  json fabric.json '
lost = d["lost_ranks"]
assert [(l["rank"], d["nodes"][l["node"]]["name"], l["rail"]) for l in lost] == [(7, "n3", 1)], lost
others = [p for p in d["pairs"] if 7 not in (p["rank_a"], p["rank_b"])]
assert len(others) == 84 - 7, len(others)
for p in others:
    assert all(p[leg] and p[leg]["verified"] for leg in ("bandwidth_ab", "bandwidth_ba", "latency")), p
assert all(p["error"] for p in d["pairs"] if 7 in (p["rank_a"], p["rank_b"]) and p["round"] > 1)
assert d["status"] == "failed", d["status"]
print("fabric.json: rank 7 (n3, rail 1) lost, the other 77 pairs measured and verified")' || fail "fabric.json"
}

# scancel: the rounds finished are kept, status interrupted by SIGTERM.
case_fabric_scancel() {
  {
    echo "#!/bin/bash"
    echo "export XFERBENCH_FAULT=round:2:mark@0 OMPI_MCA_mpi_yield_when_idle=1"
    echo "srun --mpi=pmix -N8 --ntasks-per-node=3 $XB fabric ${FABRIC_OPTS[*]} -o fabric.json"
  } >job.sh
  local try marked=0
  for try in 1 2 3; do
    JOB=$(sbatch --parsable -N8 --ntasks-per-node=3 -o job.out job.sh) || fail "sbatch failed"
    wait_for 150 eval 'grep -q "XFERBENCH_FAULT mark: fabric round 2" job.out || job_gone' || break
    grep -q "XFERBENCH_FAULT mark: fabric round 2" job.out && { marked=1; break; }
    grep -q "Segmentation fault\|failed to TCP connect to a peer" job.out && ! grep -q "^# plan:" job.out ||
      break
    echo "job $try: Open MPI crashed in MPI_Init (TCP connect race), starting again" >&2
  done
  [ "$marked" -eq 1 ] || { cat job.out; scancel "$JOB"; fail "no mark"; }
  scancel "$JOB"
  wait_for 150 job_gone || fail "job $JOB still there after 150 s"
  cat job.out
  json fabric.json '
assert d["status"] == "interrupted" and d["stop"]["reason"] == "SIGTERM", (d["status"], d["stop"])
ok = lambda p: all(p.get(leg) and p[leg]["verified"] for leg in ("bandwidth_ab", "bandwidth_ba", "latency"))
done = [p for p in d["pairs"] if ok(p)]
assert len([p for p in done if p["round"] < 2]) == 24, sorted({p["round"] for p in done})
assert d["stop"]["not_run"], d["stop"]
left = len(d["stop"]["not_run"])
print(f"fabric.json: interrupted by SIGTERM, rounds 0 and 1 kept, {left} pairs not run")' \
    || fail "fabric.json"
}

declare -F "case_$CASE" >/dev/null || fail "unknown case"
"case_$CASE"
echo "PASS: $CASE"
