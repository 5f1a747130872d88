#!/usr/bin/env bash
# nvidia-h200-x4: device list, GPU unit tests, the full catalogue (the 4-GPU
# matrices), and three SM copies issued by one GPU at once (the one_to_all
# pattern's concurrency, where the bulk kernel's chunk shrinks to 16 KiB).
# usage: bench/full_h200x4.sh BIN_DIR OUT_DIR   (BIN_DIR: xferbench, xferbench_tests)
. "$(dirname "$0")/common.sh" "$@"
bench_start
start=$(date +%s.%N); "$x" run --suite full -q -o "$out/full.json" > "$out/full.txt" 2>&1; end=$(date +%s.%N)
python3 -c "print(f\"full catalogue, process start to last line: {$end - $start:.2f} s\")" | tee "$out/full_time.txt"
"$x" run --do='0:DtoD:512M:peer=1,engine=sm 0:DtoD:512M:peer=2,engine=sm 0:DtoD:512M:peer=3,engine=sm' -q \
  > "$out/one_to_all_sm_concurrent.txt" 2>&1
grep -E "Aggregate|Overlap|^ +[0-9] gpu" "$out/one_to_all_sm_concurrent.txt"
python3 "$here/summarize.py" "$out/full.json" | tee "$out/summary.txt"
