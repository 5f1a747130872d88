# Sourced by the device scripts as: . "$(dirname "$0")/common.sh" "$@"
# ($1 BIN_DIR with xferbench and xferbench_tests, $2 OUT_DIR). Sets bin, out,
# here (bench/suites/) and x (the binary), keeps NCCL's NVLink SHARP off, and
# defines bench_start: record the machine, then run the GPU unit tests;
# json FILE EXPR: prints EXPR of the JSON document d in FILE (nothing if
# unreadable); gpu_procs: how many processes hold a GPU now.
set -u
bin="$(readlink -f "$1")"; out="$2"; mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
here="$(dirname "$0")"
x="$bin/xferbench"
bench_start() {
  { date -u; nvidia-smi -L; "$x" list; } > "$out/list.txt" 2>&1
  "$bin/xferbench_tests" --gtest_filter='*Gpu*' > "$out/gpu_tests.txt" 2>&1; tail -4 "$out/gpu_tests.txt"
}
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }
gpu_procs() { nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -c .; }
