#!/bin/bash
# Real signals through mpirun, on host buffers (no GPU needed): a signal to
# one rank stops every rank (two, or four with --all-pairs), rank 0's file keeps the sizes / iterations
# measured, every rank exits 130 / 143; a signal to mpirun (which forwards
# SIGTERM and kills 1 s later) still leaves rank 0's file; the fault hook
# and --time-limit work under mpirun; no .tmp file is left.
# Usage: test_interrupts_mpi.sh XFERBENCH MPIRUN
set -u
xb=$1
mpirun=("$2" --allow-run-as-root --oversubscribe)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL $1"
  [[ -f $work/out.txt ]] && sed 's/^/    /' "$work/out.txt" | tail -15
  failures=$((failures + 1))
}

# json FILE EXPR: evaluates a Python expression on the JSON document `d`.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }

# Every process below PID.
descendants() {
  local c
  for c in $(pgrep -P "$1"); do
    echo "$c"
    descendants "$c"
  done
}

# The pid of world rank RANK below PID (other MPI tests may run beside this one).
rank_pid() {
  local p
  for p in $(descendants "$1"); do
    [[ $(ps -o comm= -p "$p" 2>/dev/null) == xferbench ]] || continue
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
      echo "$p"
      return
    fi
  done
}

# The launcher below PID: mpirun, mpiexec and orterun are one program.
find_mpirun() {
  local p
  for p in $(descendants "$1"); do
    case $(ps -o comm= -p "$p" 2>/dev/null) in
      mpirun | mpiexec | orterun)
        echo "$p"
        return
        ;;
    esac
  done
}

# start NAME ARGS...: runs mpirun in the background; sets $mp and $rc_file.
start() {
  local name=$1
  shift
  rc_file=$work/$name.rc
  (timeout 120 "${mpirun[@]}" -np "${np:-2}" "$xb" "$@" >"$work/out.txt" 2>&1; echo $? >"$rc_file") &
  mp=$!
}

# signal_rank RANK SIG AFTER_S: waits until the run is under way, then signals one rank.
signal_rank() {
  local pid=""
  for _ in $(seq 200); do
    pid=$(rank_pid "$mp" "$1")
    [[ -n $pid ]] && break
    sleep 0.05
  done
  sleep "$3"
  sent_at=$(date +%s.%N)
  if [[ -n $pid ]]; then
    kill "-$2" "$pid"
  else
    echo "no rank $1 found"
  fi
}

# Waits for the run; a run that outlives the signal by 10 s counts as hung.
finish() {
  wait $mp
  rc=$(cat "$rc_file")
  took=$(python3 -c "print(round($(date +%s.%N) - $sent_at, 2))")
  if ! python3 -c "import sys; sys.exit(0 if $took < 10 else 1)"; then rc="hung after $took s"; fi
}

# 1. The fault hook: SIGINT raised by rank 1 as the 1 KiB size starts.
f=$work/fault.json
sent_at=$(date +%s.%N)
XFERBENCH_FAULT=1024:signal_int@1 timeout 120 "${mpirun[@]}" -x XFERBENCH_FAULT -np 2 "$xb" pingpong -n 14 \
  --loop-count 3 -o "$f" >"$work/out.txt" 2>&1
rc=$?
if [[ $rc -ne 130 || $(json "$f" "d['status'], [s['bytes'] for s in d['pairs'][0]['sizes']][-1], len(d['stop']['not_run'])") != "interrupted 512 7" ]]; then
  fail "pingpong_fault_signal: exit $rc, $(json "$f" "d['status'], d['stop']")"
else
  echo "ok   pingpong_fault_signal"
fi

# 2. A real SIGTERM to rank 1 only: both stop, rank 0 writes, exit 143.
f=$work/term.json
start term pingpong -n 22 --loop-count 2000 -o "$f"
signal_rank 1 TERM 1.5
finish
if [[ $rc -ne 143 || $(json "$f" "d['status'], d['stop']['reason'], len(d['pairs'][0]['sizes']) > 0") != "interrupted SIGTERM True" ]]; then
  fail "pingpong_sigterm_rank1: exit $rc, $(json "$f" "d['status'], len(d['pairs'][0]['sizes'])")"
else
  echo "ok   pingpong_sigterm_rank1 ($(json "$f" "len(d['pairs'][0]['sizes'])") sizes kept, exit $rc ${took} s after the signal)"
fi

# 3. SIGINT to rank 0 only.
f=$work/int.json
start int pingpong -n 22 --loop-count 2000 -o "$f"
signal_rank 0 INT 1.5
finish
if [[ $rc -ne 130 || $(json "$f" "d['status'], d['stop']['reason']") != "interrupted SIGINT" ]]; then
  fail "pingpong_sigint_rank0: exit $rc, $(json "$f" "d['status']")"
else
  echo "ok   pingpong_sigint_rank0 (exit $rc ${took} s after the signal)"
fi

# 3b. --all-pairs on 4 ranks, SIGTERM to rank 3 only: one size of 8 B with
# 20,000,000 round trips (a pair needs 10 s or more for it). Rank 3 relays its
# signal, so every pair stops within a slice, not only rank 3's pair at
# its round's end; all six pairs are listed as not run.
f=$work/allpairs.json
np=4 start allpairs pingpong --all-pairs -n 1 --loop-count 20000000 -o "$f"
signal_rank 3 TERM 2
finish
if [[ $rc -ne 143 || $(json "$f" "d['status'], d['stop']['reason'], len(d['stop']['not_run'])") != "interrupted SIGTERM 6" ]]; then
  fail "pingpong_all_pairs_sigterm_rank3: exit $rc, $(json "$f" "d['status'], d['stop']")"
else
  echo "ok   pingpong_all_pairs_sigterm_rank3 (exit $rc ${took} s after the signal)"
fi

# 4. SIGINT to mpirun: it sends SIGTERM to both ranks and SIGKILL 1 s later;
# rank 0's file must exist (mpirun itself exits 1 whatever the ranks do).
f=$work/mpirun.json
start mpirun pingpong -n 22 --loop-count 300 -o "$f"
signal_rank 0 0 1.5  # only waits for the ranks
kill -INT "$(find_mpirun $mp)"
finish
if [[ $(json "$f" "d['status'], d['stop']['reason']") != "interrupted SIGTERM" ]]; then
  fail "pingpong_sigint_to_mpirun: exit $rc, file: $(json "$f" "d['status']")"
else
  echo "ok   pingpong_sigint_to_mpirun ($(json "$f" "len(d['pairs'][0]['sizes'])") sizes kept)"
fi

# 5. first-touch: the fault hook and a real signal to rank 1.
f=$work/ft_fault.json
XFERBENCH_FAULT=1/0:signal_term@1 timeout 120 "${mpirun[@]}" -x XFERBENCH_FAULT -np 2 "$xb" first-touch 3 2 1K 64K 1 \
  --memory host -o "$f" >"$work/out.txt" 2>&1
rc=$?
if [[ $rc -ne 143 || $(json "$f" "d['status'], len(d['variants'][0]['times_s']), len(d['stop']['not_run'])") != "interrupted 3 3" ]]; then
  fail "first_touch_fault_signal: exit $rc, $(json "$f" "d['status'], d['stop']")"
else
  echo "ok   first_touch_fault_signal"
fi
f=$work/ft_int.json
start ft_int first-touch 100000 2 1M 4M 1 --memory host -o "$f"
signal_rank 1 INT 1.5
finish
if [[ $rc -ne 130 || $(json "$f" "d['status'], len(d['variants'][0]['times_s']) > 0") != "interrupted True" ]]; then
  fail "first_touch_sigint_rank1: exit $rc, $(json "$f" "d['status']")"
else
  echo "ok   first_touch_sigint_rank1 ($(json "$f" "len(d['variants'][0]['times_s'])") iterations kept, exit $rc ${took} s after the signal)"
fi

# 6. --time-limit under mpirun: partial, exit 10, in time.
f=$work/limit.json
t0=$(date +%s.%N)
timeout 120 "${mpirun[@]}" -np 2 "$xb" pingpong -n 24 --loop-count 3000 --time-limit 3s -o "$f" >"$work/out.txt" 2>&1
rc=$?
took=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
if [[ $rc -ne 10 || $(json "$f" "d['status'], len(d['stop']['not_run']) > 0") != "partial True" ]]; then
  fail "pingpong_time_limit: exit $rc, $(json "$f" "d['status']")"
else
  echo "ok   pingpong_time_limit (${took} s with mpirun start-up, limit 3 s)"
fi

# The output writer's temporary files are hidden: .NAME.PID-N.tmp
if compgen -G "$work/.*.tmp" >/dev/null; then fail "a .tmp file was left: $(ls -a "$work" | grep '\.tmp$')"; fi
exit $((failures > 0))
