#!/usr/bin/env bash
# Fourth GPU session: split-warp kernel shapes for the SM bidirectional host
# cases, and what a dead-peer-safe MPI receive costs against a bare loop.
set -u
bin="$1"; out="$2"; mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
mpi="mpirun --allow-run-as-root -np 2"
for cfg in "4,512,2" "4,512,1" "2,512,4" "8,256,2" "4,256,4" "2,1024,2" "16,128,1" "1,1024,8"; do
  "$bin/xferbench" run -q -t 18 19 --sm-config "$cfg" -i 5 -o "$out/split.json" > /dev/null 2>&1
  printf "split %-10s " "$cfg"
  python3 -c "
import json; d=json.load(open('$out/split.json'))
print(' '.join(f\"{c['value_gbps']:.1f}\" for case in d['cases'] for c in case['matrices'][0]['cells']))"
done
for m in blocking test send_test send_probe; do timeout 120 $mpi "$bin/mpi_bare_pingpong" $m | head -3; done
timeout 60 $mpi "$bin/xferbench" pingpong --dev1 host --dev2 host -n 3 --loop-count 100000 2>&1 | grep -E "^\|  *(8|16|32)\|"
