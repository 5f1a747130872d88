#!/usr/bin/env bash
# make_images.sh BUILD_DIR: redraws the figures of README.md and docs/plots.md
# that show what an operator sees, from results recorded in bench/results with the
# xferbench built in BUILD_DIR (matplotlib needed). The fleet figure draws
# the 64-node simulation of tests/test_fleet_sim.cpp (recorded H200 x2 runs
# as nodes), which ctest's fleet_sim_file test writes to BUILD_DIR/tests.
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
results=$here/../../bench/results
xb=$build/src/xferbench
"$xb" plot "$results/2026-11-23-h200/xferbench_full1.json" -o "$here/h200_run_bars.png"
"$xb" plot "$results/2026-11-25-h200-loaded-latency/loaded1.json" -o "$here/h200_loaded_latency.png"
"$xb" plot "$results/2026-11-25-h200-gpu-paths-relay/pp_host_gpu_auto_pingpong.json" -o "$here/h200_pingpong_host_gpu.png"
if [ ! -f "$build/tests/fleet_sim.json" ]; then
  (cd "$build" && ctest -R '^fleet_sim_file$' --output-on-failure >/dev/null)
fi
"$xb" plot "$build/tests/fleet_sim.json" --title "xferbench run on 64 simulated nodes (recorded H200 x2 runs; injected slow GPUs)" \
  -o "$here/fleet_sim64.png"
