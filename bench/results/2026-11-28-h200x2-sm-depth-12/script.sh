#!/usr/bin/env bash
# Run from the repository root with the build (xferbench, xferbench_tests) in .devbuild/bin.tar.xz and nvbandwidth v0.8 as .devbuild/nvbandwidth-v0.8. 2 GPUs: the GPU unit tests and --sm-config 1,512,12 (nvbandwidth's depth) beside 8 and the default
set -u
tar xJf .devbuild/bin.tar.xz -C .devbuild
B=.devbuild/bin; N=.devbuild/nvbandwidth-v0.8; o=/tmp/e3; mkdir -p $o
{ date -u; nvidia-smi -L; $B/xferbench --version; } > $o/machine.txt 2>&1; head -4 $o/machine.txt
timeout 200 $B/xferbench_tests --gtest_filter='*Gpu*' > $o/gpu_tests.txt 2>&1; tail -4 $o/gpu_tests.txt; grep -E "FAILED|SmCopiesRepeated" $o/gpu_tests.txt | head
cases=(device_to_host_memcpy_sm host_to_device_memcpy_sm device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm)
timeout 100 $N -t "${cases[@]}" > $o/nvb.txt 2>&1
for c in default 1,512,8 1,512,12; do
  opt=(); [[ $c != default ]] && opt=(--sm-config $c)
  timeout 100 $B/xferbench run -t "${cases[@]}" --format nvbandwidth --nvbandwidth-version 0.8 "${opt[@]}" -o $o/xb_${c//,/_}.json > $o/xb_${c//,/_}.txt 2>&1; echo "xb $c rc=$?"
done
for f in $o/nvb.txt $o/xb_*.txt; do echo "== $(basename $f)"; grep -A4 "^Running" $f | grep -E "^Running|^ *[0-9] " | tr -s ' ' | paste -sd' ' | sed 's/Running/\nRunning/g'; done
python3 -c "
import json,glob
for f in sorted(glob.glob('$o/xb_*.json')):
    d=json.load(open(f)); st=[c['verification']['status'] for k in d['cases'] for m in k['matrices'] for c in m['cells']]
    print(f.split('/')[-1], 'cells', len(st), 'verification', set(st))
"
tar czf $OUT/e3.tgz -C /tmp e3
