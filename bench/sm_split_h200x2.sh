#!/usr/bin/env bash
# Launch shapes of the split-warp kernel (SM host<->GPU bidirectional cases)
# now that a sample's copies repeat inside one launch: two interleaved rounds.
# usage: bench/sm_split_h200x2.sh BIN_DIR OUT_DIR   (BIN_DIR: xferbench)
set -u
bin="$(readlink -f "$1")"; out="$2"; mkdir -p "$out"
here="$(dirname "$0")"
x="$bin/xferbench"
cases="host_to_device_bidirectional_memcpy_sm device_to_host_bidirectional_memcpy_sm"
shapes="default 8,128,1 32,64,1 8,256,1 4,512,1 2,1024,1 16,128,2 8,128,4 4,256,2 2,512,2 16,64,1 8,64,2"
for round in 1 2; do
  for s in $shapes; do
    cfg=(); [ "$s" = default ] || cfg=(--sm-config "$s")
    "$x" run -t $cases "${cfg[@]}" -q -o "$out/split_${s//,/_}_$round.json" > /dev/null 2>&1
  done
done
for s in $shapes; do echo "== split shape $s"; python3 "$here/summarize.py" "$out"/split_${s//,/_}_[12].json | tail -2; done \
  | tee "$out/summary.txt"
