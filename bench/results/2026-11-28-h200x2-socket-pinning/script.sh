#!/usr/bin/env bash
# 2 GPUs: does pinning each rank to CPUs of its own steady the socket path's launch levels? From the repository root,
# the build in .devbuild/bin.tar.xz. Interleaved repetitions of suites/fabric_one_host.sh (CONFIGS=socket, REPS=1): any CPU (U), CPUS_PER_RANK=8 (P).
set -u
tar xJf .devbuild/bin.tar.xz -C .devbuild
B=.devbuild/bin; o=/tmp/f1; mkdir -p $o
( while sleep 25; do tar czf $OUT/f1.tgz -C /tmp f1 2>/dev/null; done ) & tp=$!
T0=$SECONDS
for rep in $(seq 1 ${REPS:-7}); do
  for v in U P; do
    [[ $((SECONDS - T0)) -gt ${BUDGET_S:-470} ]] && break 2
    d=$o/run_${v}_$rep
    if [[ $v == P ]]; then CPUS_PER_RANK=8 CONFIGS=socket REPS=1 bench/suites/fabric_one_host.sh $B $d > /dev/null 2>&1
    else CONFIGS=socket REPS=1 bench/suites/fabric_one_host.sh $B $d > /dev/null 2>&1; fi
    mkdir -p $o/$v; cp $d/machine.txt $o/$v/
    for f in $d/socket_*_1.json $d/socket_*_1.txt; do b=$(basename $f); cp $f $o/$v/${b/_1./_$rep.}; done
    echo "rep $rep $v done at $((SECONDS - T0)) s"
  done
done
for v in U P; do n=$(ls $o/$v/socket_pp_lat_*.txt | wc -l); echo "== $v ($n reps)"; SUMMARY_ONLY=1 CONFIGS=socket REPS=$n bench/suites/fabric_one_host.sh $B $o/$v 2>&1 | tail -14 | tee $o/$v/summary.txt; done
head -12 $o/P/machine.txt
kill $tp; tar czf $OUT/f1.tgz -C /tmp f1
