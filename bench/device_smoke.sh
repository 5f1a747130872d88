#!/usr/bin/env bash
# First look at a GPU machine: environment, device listing, GPU unit tests,
# one full-catalogue run and a sweep of SM copy kernel shapes.
# usage: bench/device_smoke.sh BIN_DIR OUT_DIR
set -u
bin="$1"; out="$2"
export NCCL_NVLS_ENABLE=0
mkdir -p "$out"
{ date -u; nvidia-smi; nvidia-smi topo -m; nvidia-smi nvlink -s | head -24; nproc; free -g; } > "$out/env.txt" 2>&1
ldd "$bin/xferbench" | grep "not found" && echo "MISSING LIBRARIES"
"$bin/xferbench" list | tee "$out/list.txt"
"$bin/xferbench_tests" --gtest_filter='Gpu.*' 2>&1 | tail -15
/usr/bin/time -f "full run wall %e s" "$bin/xferbench" run --suite full -q -o "$out/full.json" > "$out/full.txt" 2>&1
tail -3 "$out/full.txt"
bash "$(dirname "$0")/sm_tuning.sh" "$bin" "$out" 2>&1 | tail -40
