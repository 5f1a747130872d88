#!/usr/bin/env bash
# The fabric's schedule and attribution for 1,024 simulated nodes:
# bench/programs/fabric_scale.cpp (the fabric_scale_bench target, in the build's
# tests/ folder) on 1,024 nodes x 8 rails with 16 random matchings (the
# default above 64 nodes) and on 64 nodes x 8 rails with every pair, under
# /usr/bin/time for the process's CPU time and peak memory. CPU only.
# Self-check: schedule + attribution under 10 s of CPU, and every planted
# culprit named.
# usage: bench/suites/fabric_scale.sh BUILD_DIR OUT_DIR   (e.g. build-ci results/DATE-fabric-scale)
set -u
bench="$(readlink -f "$1")/tests/fabric_scale_bench"
out="$2"
mkdir -p "$out"
[[ -x "$bench" ]] || { echo "fabric_scale: no $bench (cmake --build --preset ci --target fabric_scale_bench)"; exit 1; }
{ date -u; uname -m; nproc; grep -m1 'model name' /proc/cpuinfo; uptime; } >"$out/machine.txt"
status=0
for run in "1024 8 16" "64 8 0"; do
  set -- $run
  name="n$1_r$2_k$3"
  /usr/bin/time -v "$bench" "$1" "$2" "$3" >"$out/$name.txt" 2>"$out/$name.time"
  rc=$?
  cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$out/$name.time")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$out/$name.time")
  within=$(awk '/schedule \+ attribution/ { print ($4 < 10) ? "yes" : "NO" }' "$out/$name.txt")
  echo "fabric_scale $name: exit $rc, process CPU $cpu s, peak RSS $rss MiB, schedule+attribution under 10 s CPU: $within"
  grep -E "pairs$|schedule \+ attribution|attribution named|planted" "$out/$name.txt" | sed 's/^/  /'
  [[ $rc -eq 0 && "$within" == yes ]] || status=1
done
exit $status
