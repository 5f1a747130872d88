#!/bin/bash
# Nothing measured is lost, on a GPU machine (1 or 2 GPUs).
# For run --suite full (also printed as nvbandwidth prints it), sweep,
# check, pingpong and first-touch (the last two under mpirun -np 2, the
# signal sent to ONE rank: SIGINT to rank 0, SIGTERM to rank 1), SIGINT and
# SIGTERM at 2 s and at 5 s. Each run passes when:
#   - it exits 130 / 143 within 2 s of the signal,
#   - its -o file says "interrupted" and holds the cells / sizes /
#     iterations completed (at least one),
#   - no GPU process is left (nvidia-smi --query-compute-apps),
#   - no .tmp file is left next to the output.
# Then --resume completes the full run interrupted at 5 s, and `xferbench
# compare` checks it against a separate uninterrupted full run (pass: no
# cell slower or failed beyond the compare gate's noise). The full runs use
# 64 MiB buffers on 2+ GPUs (time budget); on one GPU, where most of the
# suite is waived, 512 MiB and 20 samples per cell without the drift check
# (the first cell ends about 1 s in, the run lasts past 5 s on an H100),
# check with 2 GiB copies (it lasts past 5 s; at 2 s it is usually still
# in its lint and first cell, so nothing completed is the expected answer),
# and pingpong between the GPU and host memory (two processes ping-ponging
# on one GPU are time-sliced, 2.2 ms per message); the ranks agree to stop
# between slices of about 0.1 s of a size.
# ONLY="run check" limits the signal runs to those commands (run, nvbfmt,
# check, sweep, pingpong, first-touch); the resume step runs only with run.
# Usage: [ONLY=...] bench/suites/interrupt_signals.sh BIN_DIR OUT_DIR   (about 3 minutes on H200 x2, 4-5 on one GPU)
. "$(dirname "$0")/common.sh" "$@"
mpirun=(mpirun --allow-run-as-root -np 2)
logs="$out/logs"
mkdir -p "$logs"
{ date -u; hostname; nvidia-smi -L; "$x" --version; } >"$out/machine.txt" 2>&1
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
run_size=(-b 512 -i 20 --drift-check off); check_size=(--buffer-size 2G); pp_devs=(--dev1 gpu --dev2 host)
[[ $gpus -ge 2 ]] && { run_size=(-b 64); check_size=(); pp_devs=(--dev1 gpu --dev2 gpu); }
table="$out/summary.txt"
printf "%-26s %-9s %-7s %-9s %-34s %-9s %s\n" run exit want "s after" "kept in -o file" "gpu procs" verdict >"$table"
failures=0

# What each command's file keeps, as "N unit".
kept() {
  case $1 in
    run) json "$2" "'%d cells, %d not run' % (sum(len(c['matrices'][0]['cells']) for c in d['cases'] if c['matrices']), len(d['stop'].get('not_run', [])))" ;;
    check) json "$2" "'%d cells, %d not run' % (len(d['check']['cells']), len(d['stop'].get('not_run', [])))" ;;
    sweep) json "$2" "'%d sizes, %d not run' % (len(d['series'][0]['rows']) if d['series'] else 0, len(d['stop'].get('not_run_bytes', [])))" ;;
    pingpong) json "$2" "'%d sizes, %d not run' % (len(d['pairs'][0]['sizes']), len(d['stop'].get('not_run', [])))" ;;
    first-touch) json "$2" "'%d iterations, %d not run' % (sum(len(v['times_s']) for v in d['variants']), len(d['stop'].get('not_run', [])))" ;;
  esac
}

# The pid to signal: the xferbench child of JOB, or world rank RANK under mpirun.
target_pid() {
  local job=$1 rank=$2 p
  if [[ $rank == self ]]; then
    pgrep -P "$job" -x xferbench | head -1
    return
  fi
  for p in $(pgrep -x xferbench); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$rank"; then
      echo "$p"
      return
    fi
  done
}

# signal_run NAME COMMAND SIG DELAY RANK ARGS...: runs, signals, checks, adds a table row.
signal_run() {
  local name=$1 cmd=$2 sig=$3 delay=$4 rank=$5
  shift 5
  local what=$cmd
  [[ $name == run_nvbfmt* ]] && what=nvbfmt
  [[ -z ${ONLY:-} || " $ONLY " == *" $what "* ]] || return 0
  local f="$out/$name.json" want=$((128 + $(kill -l "$sig")))
  rm -f "$f"
  local launcher=()
  [[ $rank != self ]] && launcher=("${mpirun[@]}")
  timeout 60 "${launcher[@]}" "$x" "$cmd" "$@" -o "$f" >"$logs/$name.txt" 2>&1 &
  local job=$! pid="" t_sig t_end rc
  for _ in $(seq 200); do
    pid=$(target_pid "$job" "$rank")
    [[ -n $pid ]] && break
    sleep 0.05
  done
  sleep "$delay"
  t_sig=$(date +%s.%N)
  kill "-$sig" "$pid" 2>/dev/null
  wait $job
  rc=$?
  t_end=$(date +%s.%N)
  sleep 0.5  # let the driver tear the contexts down
  local after procs status have verdict=pass
  after=$(python3 -c "print('%.2f' % ($t_end - $t_sig))")
  procs=$(gpu_procs)
  status=$(json "$f" "d['status']")
  have=$(kept "$cmd" "$f")
  [[ $rc -eq $want ]] || verdict=FAIL
  python3 -c "import sys; sys.exit(0 if $after <= 2.0 else 1)" || verdict=FAIL
  # At 5 s every command has completed cells, and the file must hold them;
  # at 2 s a check may not have finished one yet (a file with none is right).
  local least=1
  [[ $cmd == check && $delay == 2 ]] && least=0
  [[ $status == interrupted && -n $have && ${have%% *} -ge $least ]] || verdict=FAIL
  [[ $procs -eq 0 ]] || verdict=FAIL
  # The output writer's temporary files are hidden: .NAME.PID-N.tmp
  compgen -G "$out/.*.tmp" >/dev/null && verdict="FAIL(tmp)"
  [[ $verdict == pass ]] || failures=$((failures + 1))
  printf "%-26s %-9s %-7s %-9s %-34s %-9s %s\n" "$name" "$rc" "$want" "$after" "${status:-no file}: $have" "$procs" "$verdict" >>"$table"
}

# pingpong: enough repetitions that the run outlasts 5 s and each size lasts
# about 0.7 s; the ranks agree to stop between slices of about 0.1 s of a
# size, so the size in flight is abandoned (and listed as not run).
loops=1000 iters=2000
if [[ -z ${ONLY:-} || " $ONLY " == *" pingpong "* || " $ONLY " == *" first-touch "* ]]; then
  timeout 60 "${mpirun[@]}" "$x" pingpong "${pp_devs[@]}" -n 10 --loop-count 200 -j >"$logs/pingpong_calibration.json" 2>"$logs/pingpong_calibration.err"
  loops=$(python3 -c "
import json, math
d = json.load(open('$logs/pingpong_calibration.json'))
t = max(s['one_way_time_s']['mean'] for s in d['pairs'][0]['sizes'])
print(max(100, min(2000000, math.ceil(0.7 / (2 * t)))))" 2>/dev/null || echo 20000)
  # first-touch: iterations of a few ms each, for about 10 s.
  iters=$(python3 -c "
import time, subprocess
t0 = time.time()
subprocess.run(['timeout', '60'] + '${mpirun[*]}'.split() + ['$x', 'first-touch', '20', '3', '1K', '64M', '1'],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(max(200, min(1000000, int(10 * 20 / max(time.time() - t0 - 1.0, 0.05)))))" 2>/dev/null || echo 2000)
fi
echo "pingpong --loop-count $loops; first-touch $iters iterations" >>"$out/machine.txt"

for delay in 2 5; do
  for sig in INT TERM; do
    signal_run "run_full_${sig,,}_${delay}s" run "$sig" "$delay" self --suite full "${run_size[@]}" -q
    signal_run "run_nvbfmt_${sig,,}_${delay}s" run "$sig" "$delay" self --suite full "${run_size[@]}" --format nvbandwidth
    signal_run "check_${sig,,}_${delay}s" check "$sig" "$delay" self "${check_size[@]}"
    signal_run "sweep_${sig,,}_${delay}s" sweep "$sig" "$delay" self --do 0:HtoD --min 1K --max 2G --factor 1.25 -q
    rank=0
    [[ $sig == TERM ]] && rank=1
    signal_run "pingpong_${sig,,}_${delay}s_r$rank" pingpong "$sig" "$delay" "$rank" "${pp_devs[@]}" -n 10 \
      --loop-count "$loops"
    signal_run "first_touch_${sig,,}_${delay}s_r$rank" first-touch "$sig" "$delay" "$rank" "$iters" 3 1K 64M 1
  done
done

# --resume the full run interrupted at 5 s; compare with an uninterrupted run
# (only when run was among the commands signalled).
if [[ -z ${ONLY:-} || " $ONLY " == *" run "* ]]; then
  t0=$(date +%s.%N)
  timeout 120 "$x" run --suite full "${run_size[@]}" -q -o "$out/run_full_resumed.json" --resume "$out/run_full_int_5s.json" \
    >"$logs/resume.txt" 2>&1
  rc_resume=$?
  t1=$(date +%s.%N)
  timeout 120 "$x" run --suite full "${run_size[@]}" -q -o "$out/run_full_uninterrupted.json" >"$logs/uninterrupted.txt" 2>&1
  rc_full=$?
  t2=$(date +%s.%N)
  "$x" compare "$out/run_full_uninterrupted.json" "$out/run_full_resumed.json" --format json \
    >"$out/compare_resumed.json" 2>"$logs/compare.err"
  rc_cmp=$?
  counts=$(json "$out/compare_resumed.json" "' '.join('%s=%d' % (k, sum(e['verdict'] == k for e in d['entries'])) for k in ('same', 'faster', 'slower', 'failed', 'skipped'))")
  verdict=pass
  [[ $rc_resume -eq 0 && $rc_full -eq 0 && $rc_cmp -eq 0 ]] || verdict=FAIL
  [[ $(json "$out/run_full_resumed.json" "d['status']") == passed ]] || verdict=FAIL
  [[ $verdict == pass ]] || failures=$((failures + 1))
  {
    echo
    printf "resume of run_full_int_5s (%s): exit %s in %.1f s -> %s; uninterrupted: exit %s in %.1f s\n" \
      "$(kept run "$out/run_full_int_5s.json")" "$rc_resume" "$(python3 -c "print($t1 - $t0)")" \
      "$(kept run "$out/run_full_resumed.json")" "$rc_full" "$(python3 -c "print($t2 - $t1)")"
    echo "compare uninterrupted vs resumed: exit $rc_cmp, $counts -> $verdict"
  } >>"$table"
fi
echo "GPUs: $gpus; failures: $failures" >>"$table"
cat "$table"
exit $((failures > 0))
