#!/usr/bin/env bash
# Call 4 (4 GPUs): all_to_host_memcpy_sm and the host footprint. nvbandwidth's interfering
# copies use buffers twice the measured one's size; xferbench repeats a buffer of the same size.
set -u
tar xJf .devbuild/bin.tar.xz -C .devbuild
export NCCL_NVLS_ENABLE=0
B=.devbuild/bin; N=.devbuild/nvbandwidth-v0.8; o=/tmp/d4; mkdir -p $o
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
{ date -u; nvidia-smi -L; } > $o/machine.txt 2>&1; head -5 $o/machine.txt
for mib in 512 1024; do timeout 40 $B/node_probe hostwrite $mib 4 > $o/hostwrite_$mib.txt 2>&1; grep -m2 cudaHostAlloc $o/hostwrite_$mib.txt | cut -c1-150; done; el probe
for r in 1 2; do for b in 512 1024; do
  timeout 60 $N -t all_to_host_memcpy_sm host_to_all_memcpy_sm -b $b > $o/nvb_${b}_$r.txt 2>&1
  timeout 60 $B/xferbench run -t all_to_host_memcpy_sm host_to_all_memcpy_sm -b $b --format nvbandwidth --nvbandwidth-version 0.8 -o $o/xb_${b}_$r.json > $o/xb_${b}_$r.txt 2>&1
  echo "b=$b r=$r nvb: $(grep -A3 'Running all_to_host_memcpy_sm' $o/nvb_${b}_$r.txt | tail -1) | xb: $(grep -A3 'Running all_to_host_memcpy_sm' $o/xb_${b}_$r.txt | tail -1)"
done; (tar czf $OUT/d4.tgz -C /tmp d4); done; el rounds
# The SM fan cells with three kernels on one GPU: nvbandwidth's striding kernel shape (one 512-thread block per SM, 12 loads deep) against the default.
for r in 1 2 3; do
  timeout 60 $N -t all_to_one_read_sm one_to_all_write_sm > $o/fan_nvb_$r.txt 2>&1
  timeout 60 $B/xferbench run -t all_to_one_read_sm one_to_all_write_sm --format nvbandwidth --nvbandwidth-version 0.8 --sm-config 1,512,12 -o $o/fan_xb_shape_$r.json > $o/fan_xb_shape_$r.txt 2>&1
  timeout 60 $B/xferbench run -t all_to_one_read_sm one_to_all_write_sm --format nvbandwidth --nvbandwidth-version 0.8 -o $o/fan_xb_$r.json > $o/fan_xb_$r.txt 2>&1
  for f in fan_nvb_$r fan_xb_shape_$r fan_xb_$r; do echo "$f: $(grep -A3 'Running' $o/$f.txt | grep '^ *0 ' | tr -s ' ' | tr '\n' '|')"; done
(tar czf $OUT/d4.tgz -C /tmp d4); done; el fan
tar czf $OUT/d4.tgz -C /tmp d4
