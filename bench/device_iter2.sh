#!/usr/bin/env bash
# Second GPU session: link detection, bulk-copy SM kernels, latency, SM bidir.
set -u
bin="$1"; out="$2"; mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
"$bin/xferbench" list | head -30
"$bin/xferbench" list --format json > "$out/list.json"
"$bin/xferbench_tests" --gtest_filter='Gpu.*' 2>&1 | grep -E "OK|FAIL|SKIP" | head
SM_CONFIGS="1,512,4 bulk,32,3,1 bulk,64,3,1 bulk,16,4,1 bulk,32,4,1 bulk,64,2,1 bulk,32,3,2 bulk,16,3,2 bulk,48,4,1 bulk,8,4,4" \
  bash "$(dirname "$0")/sm_tuning.sh" "$bin" "$out"
"$bin/xferbench" run -t 18 19 22 23 32 33 -q > "$out/bidir_latency.txt" 2>&1
grep -v "^#   \[" "$out/bidir_latency.txt" | grep -v "^$"
grep "CoV" "$out/bidir_latency.txt" | head -30
