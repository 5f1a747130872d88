#!/usr/bin/env bash
# A private Slurm cluster on this one host, for xferbench's tests:
#
#   cluster.sh start DIR [NODES]   munged, slurmctld and NODES (default 3)
#                                  simulated slurmd nodes n1..nN, all under DIR
#   cluster.sh stop DIR            ends every job, then every daemon it
#                                  started; removes DIR
#
# DIR becomes a link to a new private folder under /tmp, where everything
# lives: munge's key and socket, slurm.conf (free ports picked at start),
# state, spools, logs and the PIDs. A system Slurm and other runs of these
# tests are not touched. Clients find the cluster through DIR/env
# (`. DIR/env` sets SLURM_CONF).
#
# The daemons run in the foreground of background shells, so their PIDs are
# known without trusting pid files; stop ends those PIDs, and the job steps
# (slurmstepd and their tasks) whose environment names this cluster's
# slurm.conf.
#
# Exit 77 (skip) with DIR/skip holding the reason when this machine cannot
# run it: not root, or Slurm or munge missing. Measured on the 2-core CI
# machine (Debian 12, Slurm 22.05, 2026-11-25): start 1.2-1.5 s to idle
# nodes, stop 3.3-4.1 s (most of it slurmd ending after SIGTERM; 7 s with
# a job to cancel first).
set -u

die() { echo "cluster.sh: $*" >&2; exit 1; }

skip() {
  echo "$*" >"$DIR/skip"
  echo "cluster.sh: SKIP: $*" >&2
  exit 77
}

# Seconds since the epoch, with fractions; seconds since $1.
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { print b - a }'; }

# Waits up to $1 seconds for the command "$2 ..." to succeed.
wait_for() {
  local cap=$1
  shift
  local end
  end=$(($(date +%s) + cap))
  until "$@"; do
    [ "$(date +%s)" -lt "$end" ] || return 1
    sleep 0.1
  done
}

# N free TCP ports of the loopback, one per line.
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in socks))
PY
}

# Starts "$@" in the background, detached from the caller's terminal and
# output (ctest waits for its pipes to close), and records its PID.
spawn() {
  local name=$1 log=$2
  shift 2
  setsid "$@" </dev/null >>"$log" 2>&1 &
  echo "$!" >"$DIR/pids/$name"
}

alive() { kill -0 "$1" 2>/dev/null; }
# A PID this cluster started that still runs: its command line names DIR
# (a PID from a stale pid file may belong to another process by now).
ours() { alive "$1" && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF "$DIR/"; }

nodes_idle() {
  local states
  states=$(SLURM_CONF="$DIR/slurm.conf" sinfo -h -N -o "%N %t" 2>/dev/null) || return 1
  [ "$(grep -c " idle$" <<<"$states")" -eq "$NODES" ]
}

start() {
  local t0 ports ctld_port node_lines="" i
  t0=$(now)
  [ "$(id -u)" -eq 0 ] || skip "not root: the simulated slurmd nodes need root"
  for tool in munged slurmctld slurmd srun sbatch sinfo squeue scancel python3; do
    command -v "$tool" >/dev/null || skip "$tool missing (scripts/setup --tests installs Slurm and munge)"
  done
  id munge >/dev/null 2>&1 || skip "no munge user (Debian's munge package makes it)"
  mkdir -p "$DIR/pids" "$DIR/ctld" "$DIR/munge"
  mapfile -t ports < <(free_ports $((NODES + 1)))
  ctld_port=${ports[0]}
  for i in $(seq 1 "$NODES"); do
    node_lines+="NodeName=n$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=${ports[$i]} CPUs=8 State=UNKNOWN"$'\n'
    mkdir -p "$DIR/nodes/n$i/spool" "$DIR/nodes/n$i/tmp"
  done
  # Cluster names are lowercase, at most 40 characters.
  local cluster="xb$(printf '%s' "$DIR" | md5sum | cut -c1-10)"
  local first_job=$(((RANDOM * 32768 + RANDOM) % 60000000 + 1000))
  awk -v dir="$DIR" -v port="$ctld_port" -v cluster="$cluster" -v nodes="$node_lines" -v first="$first_job" '
    { gsub("@DIR@", dir); gsub("@CTLD_PORT@", port); gsub("@CLUSTER@", cluster); gsub("@FIRST_JOB@", first) }
    $0 == "@NODES@" { printf "%s", nodes; next }
    { print }' "$HERE/slurm.conf.in" >"$DIR/slurm.conf"
  : >"$DIR/plugstack.conf"
  echo "export SLURM_CONF='$DIR/slurm.conf'" >"$DIR/env"

  # munged refuses a key or socket directory that others can write, and
  # runs as the munge user.
  dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
  chown -R munge: "$DIR/munge"
  chmod 700 "$DIR/munge"
  chmod 400 "$DIR/munge/munge.key"
  chmod 755 "$DIR"
  spawn munged "$DIR/munge/munged.out" setpriv --reuid=munge --regid=munge --init-groups munged -F --force \
    --socket="$DIR/munge/munge.socket" --key-file="$DIR/munge/munge.key" \
    --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/munge/munged.log" --seed-file="$DIR/munge/munged.seed"
  wait_for 30 test -S "$DIR/munge/munge.socket" || fail_start "munged did not create its socket"

  export SLURM_CONF="$DIR/slurm.conf"
  spawn slurmctld "$DIR/ctld/slurmctld.out" slurmctld -D -i -f "$SLURM_CONF"
  for i in $(seq 1 "$NODES"); do
    spawn "slurmd-n$i" "$DIR/nodes/n$i/slurmd.out" slurmd -D -N "n$i" -f "$SLURM_CONF"
  done
  wait_for 60 nodes_idle || fail_start "the nodes did not become idle within 60 s"
  printf 'cluster.sh: %d nodes idle after %.1f s (%s)\n' "$NODES" "$(since "$t0")" "$DIR"
}

# Says why start failed (the daemons' logs), stops what did start, exits 1.
fail_start() {
  echo "cluster.sh: $1" >&2
  SLURM_CONF="$DIR/slurm.conf" sinfo -N 2>&1 | sed 's/^/  sinfo: /' >&2
  for log in "$DIR"/munge/munged.out "$DIR"/ctld/*.log "$DIR"/ctld/*.out "$DIR"/nodes/*/*.log "$DIR"/nodes/*/*.out; do
    [ -s "$log" ] && tail -n 5 "$log" | sed "s|^|  ${log#"$DIR"/}: |" >&2
  done
  stop >/dev/null
  exit 1
}

# PIDs of the job steps of this cluster and everything they started:
# slurmstepd inherits SLURM_CONF of this cluster from slurmd.
step_pids() {
  local p roots=()
  for p in $(pgrep -x slurmstepd); do
    { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$DIR/slurm.conf" && roots+=("$p")
  done
  [ ${#roots[@]} -gt 0 ] || return 0
  ps -eo pid=,ppid= | awk -v roots="${roots[*]}" '
    BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
    { parent[$1] = $2 }
    END {
      for (p in parent) { q = p; while (q in parent && !(q in keep) && q > 1) q = parent[q]; if (q in keep) print p }
    }'
}

# Sends SIGTERM to the PIDs given, waits up to 10 s, then SIGKILL.
end_pids() {
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null
  local end=$(($(date +%s) + 10)) p left
  while :; do
    left=()
    for p in "$@"; do alive "$p" && left+=("$p"); done
    [ ${#left[@]} -gt 0 ] || return 0
    if [ "$(date +%s)" -ge "$end" ]; then
      kill -KILL "${left[@]}" 2>/dev/null
      return 0
    fi
    sleep 0.1
  done
}

pid_of() { [ -f "$DIR/pids/$1" ] && cat "$DIR/pids/$1"; }

no_jobs() { [ -z "$(SLURM_CONF="$DIR/slurm.conf" squeue -h -o %i 2>/dev/null)" ]; }

stop() {
  local t0 pids=() f ctld
  t0=$(now)
  [ -d "$DIR/pids" ] || return 0
  # Jobs first, while slurmctld can still end them in order (a slurmd with
  # a step running outlives SIGTERM once slurmctld has gone).
  ctld=$(pid_of slurmctld)
  if [ -n "$ctld" ] && ours "$ctld"; then
    SLURM_CONF="$DIR/slurm.conf" scancel --full --quiet --user=root 2>/dev/null
    wait_for 30 no_jobs
  fi
  mapfile -t pids < <(step_pids)
  end_pids "${pids[@]}"
  pids=()
  for f in "$DIR"/pids/slurmd-* "$DIR/pids/slurmctld"; do
    [ -f "$f" ] && ours "$(cat "$f")" && pids+=("$(cat "$f")")
  done
  end_pids "${pids[@]}"
  ours "$(pid_of munged)" && end_pids "$(pid_of munged)"
  rm -rf "$DIR/pids"
  printf 'cluster.sh: stopped after %.1f s (%s)\n' "$(since "$t0")" "$DIR"
}

HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || die "usage: cluster.sh start|stop DIR [NODES]"
HANDLE=$2
NODES=${3:-3}
case "$HANDLE" in /*) ;; *) HANDLE="$PWD/$HANDLE" ;; esac
# DIR is a symbolic link to a short private folder under /tmp: Unix socket
# paths (munge's, PMIx's under each node's spool) must stay under 108
# characters however deep the build folder is.
case "$1" in
  start)
    if [ -L "$HANDLE" ]; then
      # An earlier cluster whose stop did not run (a killed ctest).
      DIR=$(readlink "$HANDLE")
      stop >/dev/null
      rm -rf "$DIR" "$HANDLE"
    fi
    [ ! -e "$HANDLE" ] || die "$HANDLE exists and is not a cluster's link"
    DIR=$(mktemp -d "${TMPDIR:-/tmp}/xb-slurm.XXXXXX") || die "cannot make a folder under ${TMPDIR:-/tmp}"
    mkdir -p "$(dirname "$HANDLE")" && ln -s "$DIR" "$HANDLE" || die "cannot make the link $HANDLE"
    start
    ;;
  stop)
    [ -L "$HANDLE" ] || exit 0
    DIR=$(readlink "$HANDLE")
    stop
    rm -rf "$DIR" "$HANDLE"
    ;;
  *) die "unknown action '$1' (start or stop)" ;;
esac
