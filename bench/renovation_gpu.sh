#!/usr/bin/env bash
# Issue 27 (the renovation) on one GPU (nvidia-h200), one call, about 5
# minutes: the GPU unit tests; ping-pong host <-> GPU (staged, device) and
# GPU <-> GPU on one GPU (ipc, nccl, staged), every size verified, and
# first-touch on GPU buffers (the paths that moved onto the memory layer's
# buffers, streams and pattern); then nvbandwidth v0.8 beside `run --suite
# full`, 3 interleaved rounds (catalogue_vs_nvbandwidth.sh), per-cell table
# in OUT_DIR/catalogue/. OUT_DIR/summary.txt: one line per ping-pong and
# first-touch run.
# usage: bench/renovation_gpu.sh BIN_DIR OUT_DIR NVBANDWIDTH
. "$(dirname "$0")/common.sh" "$@"
nvb="$(readlink -f "$3")"
mpi=(mpirun --allow-run-as-root -np 2)

bench_start
for pair in "host gpu staged" "host gpu device" "gpu gpu ipc" "gpu gpu nccl" "gpu gpu staged"; do
  set -- $pair
  name="pp_$1_$2_$3"
  timeout 120 "${mpi[@]}" "$x" pingpong --dev1 "$1" --dev2 "$2" --transport "$3" -n 25 --loop-count 200 \
    -o "$out/$name.json" >"$out/$name.txt" 2>&1
  rc=$?
  echo "$name exit $rc status=$(json "$out/$name.json" "d['status']") transport=$(json "$out/$name.json" "d['pairs'][0]['transport']") all_verified=$(json "$out/$name.json" "all(s['verified'] for p in d['pairs'] for s in p['sizes'])") first_one_way_us=$(json "$out/$name.json" "round(d['pairs'][0]['sizes'][0]['one_way_time_s']['median']*1e6, 2)") max_gbps=$(json "$out/$name.json" "round(max(s['bandwidth_gbps'] for p in d['pairs'] for s in p['sizes']), 1)")" >>"$out/summary.txt"
done
for path in staged ipc nccl; do
  name="ft_$path"
  timeout 120 "${mpi[@]}" "$x" first-touch 3 3 1M 64M 1 --transport "$path" -o "$out/$name.json" >"$out/$name.txt" 2>&1
  rc=$?
  echo "$name exit $rc status=$(json "$out/$name.json" "d['status']") transport=$(json "$out/$name.json" "d['transport']")" >>"$out/summary.txt"
done
cat "$out/summary.txt"
"$here/catalogue_vs_nvbandwidth.sh" "$bin" "$out/catalogue" "$nvb" 3 >"$out/catalogue.log" 2>&1
tail -3 "$out/catalogue.log"
