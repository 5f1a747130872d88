#!/bin/bash
# Real signals through mpirun, on host buffers (no GPU needed): a signal to
# one rank stops every rank (two, or four with --all-pairs), rank 0's file keeps the sizes / iterations
# measured, every rank exits 130 / 143; a signal to mpirun (which forwards
# SIGTERM and kills 1 s later) still leaves rank 0's file; the fault hook
# and --time-limit work under mpirun; no .tmp file is left.
#
# Nothing here depends on how fast the machine is: a signal is sent only
# once the run shows it is under way (a size's row in its output, or the
# line of the fault hook's `mark`), and every signalled run would go on
# for minutes on any machine (large messages, large loop counts), so it
# cannot end on its own before the signal arrives. Guards against a hang
# are generous bounds (timeout 120 per run; 60 s from the signal to the
# end of the run), never the expected duration.
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

source "$(dirname "$0")/mpi_procs.sh"

# start NAME ARGS...: runs mpirun in the background (np ranks, 2 by default;
# XFERBENCH_FAULT passed on when `fault` is set); sets $mp and $rc_file.
start() {
  local name=$1
  shift
  rc_file=$work/$name.rc
  : >"$work/out.txt"
  (XFERBENCH_FAULT=${fault:-} timeout 120 "${mpirun[@]}" -x XFERBENCH_FAULT -np "${np:-2}" "$xb" "$@" \
    >"$work/out.txt" 2>&1; echo $? >"$rc_file") &
  mp=$!
}

# under_way PATTERN: waits until the run's output has a line matching
# PATTERN, the evidence that it is measuring; fails when the run ended
# without one (a signal then would test nothing).
under_way() { wait_for_line "$work/out.txt" "$1" "$rc_file"; }

# signal_rank RANK SIG: signals one rank of the run (which is under way).
signal_rank() {
  local pid
  pid=$(rank_pid "$mp" "$1")
  sent_at=$(date +%s.%N)
  if [[ -n $pid ]]; then
    kill "-$2" "$pid"
  else
    echo "no rank $1 found"
  fi
}

# Waits for the run; a run that outlives the signal by 60 s counts as hung
# (it stops within a slice or an iteration; 60 s is only a bound for a slow
# machine, not the expected time).
finish() {
  wait $mp
  rc=$(cat "$rc_file")
  took=$(python3 -c "print(round($(date +%s.%N) - $sent_at, 2))")
  if ! python3 -c "import sys; sys.exit(0 if $took < 60 else 1)"; then rc="hung after $took s"; fi
}

# signal_when NAME EVIDENCE WHAT RANK SIG: once the run's output shows
# EVIDENCE, sends SIG to RANK (or to the launcher, RANK "mpirun") and waits
# for the run (sets rc and took). When the run ended first, fails NAME
# (WHAT names the evidence that never came) and returns 1.
signal_when() {
  if ! under_way "$2"; then
    wait $mp
    fail "$1: the run ended (exit $(cat "$rc_file")) before $3"
    return 1
  fi
  if [[ $4 == mpirun ]]; then
    sent_at=$(date +%s.%N)
    kill "-$5" "$(find_mpirun $mp)"
  else
    signal_rank "$4" "$5"
  fi
  finish
}

# A pingpong row (text table on stdout), here the first size's: 8 B.
first_row='^\|[ ]+8\|'

# 1. The fault hook: SIGINT raised by rank 1 as the 1 KiB size starts.
f=$work/fault.json
XFERBENCH_FAULT=1024:signal_int@1 timeout 120 "${mpirun[@]}" -x XFERBENCH_FAULT -np 2 "$xb" pingpong -n 14 \
  --loop-count 3 -o "$f" >"$work/out.txt" 2>&1
rc=$?
if [[ $rc -ne 130 || $(json "$f" "d['status'], [s['bytes'] for s in d['pairs'][0]['sizes']][-1], len(d['stop']['not_run'])") != "interrupted 512 7" ]]; then
  fail "pingpong_fault_signal: exit $rc, $(json "$f" "d['status'], d['stop']")"
else
  echo "ok   pingpong_fault_signal"
fi

# The signalled two-rank pingpong runs: 8 B .. 64 MiB, 20,000 repetitions
# each. The 8 B row comes after 20,000 round trips of 8 B; the sizes after
# it copy 20,000 x 2 x 128 MiB (5.4 TB): about a minute even at 100 GB/s,
# and host MPI moves about 10 GB/s (bench/results/2026-11-24-*-pingpong-buffers).
long_pingpong=(pingpong -n 24 --loop-count 20000)

# 2. A real SIGTERM to rank 1 only: both stop, rank 0 writes, exit 143.
f=$work/term.json
start term "${long_pingpong[@]}" -o "$f"
if signal_when pingpong_sigterm_rank1 "$first_row" "its first row" 1 TERM; then
  if [[ $rc -ne 143 || $(json "$f" "d['status'], d['stop']['reason'], len(d['pairs'][0]['sizes']) > 0") != "interrupted SIGTERM True" ]]; then
    fail "pingpong_sigterm_rank1: exit $rc, $(json "$f" "d['status'], len(d['pairs'][0]['sizes'])")"
  else
    echo "ok   pingpong_sigterm_rank1 ($(json "$f" "len(d['pairs'][0]['sizes'])") sizes kept, exit $rc ${took} s after the signal)"
  fi
fi

# 3. SIGINT to rank 0 only.
f=$work/int.json
start int "${long_pingpong[@]}" -o "$f"
if signal_when pingpong_sigint_rank0 "$first_row" "its first row" 0 INT; then
  if [[ $rc -ne 130 || $(json "$f" "d['status'], d['stop']['reason'], len(d['pairs'][0]['sizes']) > 0") != "interrupted SIGINT True" ]]; then
    fail "pingpong_sigint_rank0: exit $rc, $(json "$f" "d['status'], d['stop'], len(d['pairs'][0]['sizes'])")"
  else
    echo "ok   pingpong_sigint_rank0 (exit $rc ${took} s after the signal)"
  fi
fi

# 3b. --all-pairs on 4 ranks, SIGTERM to rank 3 only, once rank 3 starts
# its first (and only) size: 4 MiB with 1,000,000 round trips (8.4 TB
# copied per pair: minutes even at 100 GB/s). --all-pairs prints no rows, so the fault hook's mark says when.
# Rank 3 relays its signal, so every pair stops within a slice, not only
# rank 3's pair at its round's end; all six pairs are listed as not run.
f=$work/allpairs.json
fault=4M:mark@3 np=4 start allpairs pingpong --all-pairs --min-size 4M -n 1 --loop-count 1000000 -o "$f"
if signal_when pingpong_all_pairs_sigterm_rank3 "XFERBENCH_FAULT mark: rank 3 at 4194304 bytes starts" "rank 3 started measuring" 3 TERM; then
  if [[ $rc -ne 143 || $(json "$f" "d['status'], d['stop']['reason'], len(d['stop']['not_run'])") != "interrupted SIGTERM 6" ]]; then
    fail "pingpong_all_pairs_sigterm_rank3: exit $rc, $(json "$f" "d['status'], d['stop']")"
  else
    echo "ok   pingpong_all_pairs_sigterm_rank3 (exit $rc ${took} s after the signal)"
  fi
fi

# 3c. The same stop raised by rank 3 itself as its size starts (the fault
# hook): rank 3 sees its signal without polling for it, and must still
# relay it before it waits for the other pair at the round's end (it did
# not: the other pair measured on, and the run ended by timeout, exit 9).
f=$work/allpairs_fault.json
XFERBENCH_FAULT=4M:signal_term@3 timeout 120 "${mpirun[@]}" -x XFERBENCH_FAULT -np 4 "$xb" pingpong --all-pairs \
  --min-size 4M -n 1 --loop-count 1000000 -o "$f" >"$work/out.txt" 2>&1
rc=$?
if [[ $rc -ne 143 || $(json "$f" "d['status'], d['stop']['reason'], len(d['stop']['not_run'])") != "interrupted SIGTERM 6" ]]; then
  fail "pingpong_all_pairs_fault_signal_rank3: exit $rc, $(json "$f" "d['status'], d['stop']")"
else
  echo "ok   pingpong_all_pairs_fault_signal_rank3"
fi

# 4. SIGINT to mpirun: it sends SIGTERM to both ranks and SIGKILL 1 s later;
# rank 0's file must exist (mpirun itself exits 1 whatever the ranks do).
f=$work/mpirun.json
start mpirun "${long_pingpong[@]}" -o "$f"
if signal_when pingpong_sigint_to_mpirun "$first_row" "its first row" mpirun INT; then
  if [[ $rc == hung* || $(json "$f" "d['status'], d['stop']['reason'], len(d['pairs'][0]['sizes']) > 0") != "interrupted SIGTERM True" ]]; then
    fail "pingpong_sigint_to_mpirun: exit $rc, file: $(json "$f" "d['status'], d['stop'], len(d['pairs'][0]['sizes'])")"
  else
    echo "ok   pingpong_sigint_to_mpirun ($(json "$f" "len(d['pairs'][0]['sizes'])") sizes kept)"
  fi
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
# 100,000 iterations (each a fresh 4 MiB buffer, two 1 MiB sends; on the
# nvidia-h200 host, 2026-11-24, this check kept about 200 iterations in the
# 1.2 s from the mark to the exit, so the whole run would take minutes); rank 1 is signalled
# once its iteration 0/1 starts, so iteration 0/0 is measured.
f=$work/ft_int.json
fault=0/1:mark@1 start ft_int first-touch 100000 2 1M 4M 1 --memory host -o "$f"
if signal_when first_touch_sigint_rank1 "XFERBENCH_FAULT mark: rank 1, iteration 0/1 starts" "its iteration 0/1" 1 INT; then
  if [[ $rc -ne 130 || $(json "$f" "d['status'], d['stop']['reason'], len(d['variants'][0]['times_s']) > 0") != "interrupted SIGINT True" ]]; then
    fail "first_touch_sigint_rank1: exit $rc, $(json "$f" "d['status']")"
  else
    echo "ok   first_touch_sigint_rank1 ($(json "$f" "len(d['variants'][0]['times_s'])") iterations kept, exit $rc ${took} s after the signal)"
  fi
fi

# 6. --time-limit under mpirun: partial, exit 10. The whole run (8 B ..
# 64 MiB, 30,000 repetitions each) would take minutes on any machine, so
# the limit always leaves sizes out, also when MPI start-up is slow.
f=$work/limit.json
t0=$(date +%s.%N)
timeout 120 "${mpirun[@]}" -np 2 "$xb" pingpong -n 24 --loop-count 30000 --time-limit 3s -o "$f" >"$work/out.txt" 2>&1
rc=$?
took=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
if [[ $rc -ne 10 || $(json "$f" "d['status'], d['stop']['reason'], len(d['stop']['not_run']) > 0") != "partial time_limit True" ]]; then
  fail "pingpong_time_limit: exit $rc, $(json "$f" "d['status'], d['stop']")"
else
  echo "ok   pingpong_time_limit (${took} s with mpirun start-up, limit 3 s)"
fi

# The output writer's temporary files are hidden: .NAME.PID-N.tmp
if compgen -G "$work/.*.tmp" >/dev/null; then fail "a .tmp file was left: $(ls -a "$work" | grep '\.tmp$')"; fi
exit $((failures > 0))
