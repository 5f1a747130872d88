#!/usr/bin/env bash
# The merge of issue 19 (stops, time limits, resume) with main's memory
# budget, drift check and managed cases, on a GPU (any kind; about 60-90 s,
# most of it the GPU unit tests):
#   - the GPU unit tests: the runner now measures through GpuSource
#     (buffer pool budget, preflight, memory peaks, migration);
#   - cells waived by --max-memory: status partial, stop.reason memory, exit 10;
#   - --time-limit: the same status partial, stop.reason time_limit, exit 10, in time;
#   - SIGINT 2 s into a run with the drift check on: exit 130 within 2 s,
#     cells kept, drift check not completed (no end values);
#   - --resume of that result: complete, passed, its own drift check done;
#   - the managed-migration cases (37, 38) through the sample source;
#   - check --time-limit: partial or fail, never pass, in time;
#   - the SM budget curve through the sample source;
#   - no GPU process left, no temporary output file left.
# Usage: bench/merge_interrupts_device.sh BIN_DIR OUT_DIR
. "$(dirname "$0")/common.sh" "$@"
bench_start
logs="$out/logs"
mkdir -p "$logs"
table="$out/summary.txt"
printf "%-22s %-5s %-7s %s\n" step exit verdict detail >"$table"
failures=0

row() {  # step rc verdict detail
  [[ $3 == pass ]] || failures=$((failures + 1))
  printf "%-22s %-5s %-7s %s\n" "$1" "$2" "$3" "$4" >>"$table"
}

# 1. --max-memory below what the bidirectional case needs per GPU.
f="$out/partial_memory.json"
timeout 90 "$x" run -t host_to_device_memcpy_ce host_to_device_bidirectional_memcpy_ce -b 32 \
  --max-memory 48M,1G -q -o "$f" >"$logs/partial_memory.txt" 2>&1
rc=$?
d=$(json "$f" "'%s %s %d' % (d['status'], d['stop'].get('reason'), len(d['stop'].get('not_run', [])))")
v=fail; [[ $rc -eq 10 && $d == "partial memory "* && ${d##* } -gt 0 ]] && v=pass
row max_memory "$rc" "$v" "status reason not_run: ${d:-no file}"

# 2. --time-limit shorter than the full suite (1 GiB, 20 samples a cell:
#    about 10 s on one H100).
f="$out/partial_time.json"
t0=$(date +%s.%N)
timeout 90 "$x" run --suite full -b 1024 -i 20 --time-limit 5s -q -o "$f" >"$logs/partial_time.txt" 2>&1
rc=$?
s=$(python3 -c "print('%.1f' % ($(date +%s.%N) - $t0))")
d=$(json "$f" "'%s %s %d' % (d['status'], d['stop'].get('reason'), len(d['stop'].get('not_run', [])))")
v=fail; [[ $rc -eq 10 && $d == "partial time_limit "* ]] && python3 -c "import sys; sys.exit(0 if $s <= 5.5 else 1)" && v=pass
row time_limit "$rc" "$v" "${s} s; status reason not_run: ${d:-no file}"

# 3. SIGINT during a run whose drift check is on.
f="$out/interrupted.json"
args=(run -t host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_device_memcpy_sm device_to_host_memcpy_sm
      -b 1024 --drift-check on -q)
timeout 90 "$x" "${args[@]}" -o "$f" >"$logs/interrupted.txt" 2>&1 &
job=$!
sleep 2
pid=$(pgrep -P "$job" -x xferbench | head -1)
t0=$(date +%s.%N)
kill -INT "${pid:-$job}"
wait "$job"
rc=$?
s=$(python3 -c "print('%.2f' % ($(date +%s.%N) - $t0))")
d=$(json "$f" "'%s cells=%d checked=%s end=%s' % (d['status'], sum(len(c['matrices'][0]['cells']) for c in d['cases'] if c['matrices']), d['stability']['checked'], [r['end_gbps'] for r in d['stability']['references']])")
err=$(json "$f" "d['stability'].get('error', '')")
v=fail
[[ $rc -eq 130 && $d == "interrupted "* && $d == *"checked=False"* && -n $err ]] &&
  python3 -c "import sys; sys.exit(0 if $s <= 2.0 else 1)" && v=pass
row sigint_drift_check "$rc" "$v" "${s} s after the signal; ${d:-no file}; ${err}"

# 4. --resume of the interrupted result.
r="$out/resumed.json"
timeout 90 "$x" "${args[@]}" -o "$r" --resume "$f" >"$logs/resumed.txt" 2>&1
rc=$?
d=$(json "$r" "'%s cells=%d checked=%s stable=%s' % (d['status'], sum(len(c['matrices'][0]['cells']) for c in d['cases'] if c['matrices']), d['stability']['checked'], d['stability'].get('stable'))")
v=fail; [[ $rc -eq 0 && $d == "passed "* && $d == *"checked=True"* ]] && v=pass
row resume "$rc" "$v" "${d:-no file}"

# 5. Managed migration through the sample source.
f="$out/migration.json"
timeout 90 "$x" run -t 37 38 -b 64 -q -o "$f" >"$logs/migration.txt" 2>&1
rc=$?
d=$(json "$f" "' '.join('%s=%s' % (c['name'], c['status']) for c in d['cases'])")
v=fail; [[ $rc -eq 0 && -n $d && $d != *=failed* && $d != *=error* ]] && v=pass
row managed_migration "$rc" "$v" "${d:-no file}"

# 6. check --time-limit shorter than the check suite: partial (10) or, if a
#    measured cell failed, 1; never 0; in time.
f="$out/check_time_limit.json"
t0=$(date +%s.%N)
timeout 90 "$x" check --buffer-size 2G --time-limit 4s -o "$f" >"$logs/check_time_limit.txt" 2>&1
rc=$?
s=$(python3 -c "print('%.1f' % ($(date +%s.%N) - $t0))")
d=$(json "$f" "'%s %s %d' % (d['check']['verdict'], d['stop'].get('reason'), len(d['stop'].get('not_run', [])))")
v=fail; [[ ($rc -eq 10 && $d == "partial time_limit "*) || ($rc -eq 1 && $d == "fail time_limit "*) ]] &&
  python3 -c "import sys; sys.exit(0 if $s <= 4.5 else 1)" && v=pass
row check_time_limit "$rc" "$v" "${s} s; verdict reason not_run: ${d:-no file}"

# 7. The SM budget curve (sweep --sms) now measures through a GpuSource.
f="$out/sms.json"
timeout 120 "$x" sweep -q -t host_to_device_memcpy_sm --sms 1,8,all --buffer-size 256M -i 3 -o "$f" \
  >"$logs/sms.txt" 2>&1
rc=$?
d=$(json "$f" "' '.join('%s:%.1f' % (p['sms'], p['value_gbps']) for s in d['series'] for p in s['points'])")
v=fail; [[ $rc -eq 0 && -n $d ]] && v=pass
row sm_sweep "$rc" "$v" "${d:-no file}"

sleep 0.5
procs=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -c .)
left=$(find "$out" -maxdepth 1 -name '.*.tmp' | wc -l)
v=fail; [[ $procs -eq 0 && $left -eq 0 ]] && v=pass
row clean_up - "$v" "gpu processes $procs, temporary files $left"

{ echo; tail -3 "$out/gpu_tests.txt"; echo "failures: $failures"; } >>"$table"
cat "$table"
