#!/usr/bin/env bash
# A short soak on one machine, recorded: `xferbench soak --duration DURATION`
# with its default cases (the check suite and the loaded-latency cases),
# the summary it prints, the round lines it writes to stderr when not on a
# terminal, the JSON Lines file and its plot; then `xferbench check --soak
# CHECK_DURATION` with its own soak file and JSON; then the GPU unit tests.
# usage: bench/suites/soak.sh BIN_DIR OUT_DIR [DURATION] [CHECK_DURATION]
. "$(dirname "$0")/common.sh" "$@"
duration="${3:-5m}"; check_duration="${4:-2m}"
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=temperature.gpu,power.draw,clocks.sm,clocks.mem --format=csv; } > "$out/machine.txt" 2>&1
"$x" soak --duration "$duration" -o "$out/soak.jsonl" > "$out/soak_summary.txt" 2> "$out/soak_status.txt"
echo "soak rc=$?" > "$out/rc.txt"
"$x" plot "$out/soak.jsonl" -o "$out/soak.png" > "$out/plot.txt" 2>&1; echo "plot rc=$?" >> "$out/rc.txt"
"$x" check --soak "$check_duration" --soak-file "$out/check_soak.jsonl" -o "$out/check.json" > "$out/check.txt" 2> "$out/check_status.txt"
echo "check --soak rc=$?" >> "$out/rc.txt"
"$bin/xferbench_tests" --gtest_filter='*Gpu*' > "$out/gpu_tests.txt" 2>&1; tail -3 "$out/gpu_tests.txt"
cat "$out/rc.txt"; tail -30 "$out/soak_summary.txt"; tail -15 "$out/check.txt"
