#!/usr/bin/env bash
# Run from the repository root with the builds in .devbuild (bin.tar.xz: main at 4b656eb; bin_a2h.tar.xz: main with nvbway_build/variant.diff). 4 GPUs, call 1: whole_node.sh hostsm:3 fanshape:3, then a build measuring all_to_host_memcpy_sm nvbandwidth's way too
set -u
tar xJf .devbuild/bin.tar.xz -C .devbuild; tar xJf .devbuild/bin_a2h.tar.xz -C .devbuild
export NCCL_NVLS_ENABLE=0
o=/tmp/x1; mkdir -p $o/a2h
( while sleep 20; do tar czf $OUT/x1.tgz -C /tmp x1 2>/dev/null; done ) & tp=$!
bench/suites/whole_node.sh .devbuild/bin $o .devbuild/nvbandwidth-v0.8 hostsm:3 fanshape:3 2>&1 | tail -60
N=.devbuild/nvbandwidth-v0.8
for i in 1 2 3; do
  timeout 120 $N -t all_to_host_memcpy_sm > $o/a2h/nvb_$i.txt 2>&1
  timeout 120 .devbuild/bin_a2h/xferbench run -t all_to_host_memcpy_sm --format nvbandwidth --nvbandwidth-version 0.8 -o $o/a2h/xb_$i.json > $o/a2h/xb_$i.txt 2>&1
  timeout 120 .devbuild/bin_a2h/xferbench run -t all_to_host_memcpy_sm -o $o/a2h/own_$i.json > $o/a2h/own_$i.txt 2>&1
  for f in nvb_$i xb_$i; do echo "a2h $f: $(grep -A3 'Running all_to_host' $o/a2h/$f.txt | grep '^ 0 ' | tr -s ' ')"; done
  grep -A8 "all_to_host" $o/a2h/own_$i.txt | head -12
done
kill $tp; tar czf $OUT/x1.tgz -C /tmp x1
