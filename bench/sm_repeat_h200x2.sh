#!/usr/bin/env bash
# SM copies repeated inside one kernel launch (the default since session 2)
# against one launch per copy (--sm-launch-per-copy), interleaved A/B on the
# same machine; the bulk kernel with in-kernel repetition; three full
# catalogue runs and the quick suite from process start; the interference
# cases at longer samples (does a longer sample bring their CoV down?).
# usage: bench/sm_repeat_h200x2.sh BIN_DIR OUT_DIR   (BIN_DIR: xferbench, xferbench_tests)
. "$(dirname "$0")/common.sh" "$@"
{ date -u; nvidia-smi -L; "$x" list; free -g; numactl -H 2>/dev/null; grep -H MemTotal /sys/devices/system/node/node*/meminfo; } \
  > "$out/list.txt" 2>&1
"$bin/xferbench_tests" --gtest_filter='*Gpu*' > "$out/gpu_tests.txt" 2>&1; tail -4 "$out/gpu_tests.txt"
sm="host_to_device_memcpy_sm device_to_host_memcpy_sm host_to_device_bidirectional_memcpy_sm
    device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm device_to_device_bidirectional_memcpy_write_sm"
for i in 1 2 3; do
  "$x" run -t $sm -q -o "$out/sm_in_kernel$i.json" > "$out/sm_in_kernel$i.txt" 2>&1
  "$x" run -t $sm -q --sm-launch-per-copy -o "$out/sm_per_launch$i.json" > "$out/sm_per_launch$i.txt" 2>&1
done
for cfg in bulk,32,3,1 bulk,64,3,1; do
  "$x" run -t device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm --sm-config $cfg -q \
    -o "$out/bulk_$cfg.json" > "$out/bulk_$cfg.txt" 2>&1
done
for i in 1 2 3; do "$x" run --suite full -q -o "$out/full$i.json" > "$out/full$i.txt" 2>&1; done
start=$(date +%s.%N); "$x" -q > "$out/quick.txt" 2>&1; end=$(date +%s.%N)
python3 -c "print(f\"quick suite, process start to last line: {$end - $start:.2f} s\")" | tee "$out/quick_time.txt"
noisy="host_to_all_bidirectional_memcpy_ce all_to_host_bidirectional_memcpy_ce
       host_to_all_bidirectional_memcpy_sm all_to_host_bidirectional_memcpy_sm"
for ms in 20 100 300; do
  "$x" run -t $noisy -q --sample-ms $ms --budget 8 -o "$out/noisy_$ms.json" > "$out/noisy_$ms.txt" 2>&1
done
{
  echo "== SM, repeated in one launch (default)"; python3 "$here/summarize.py" "$out"/sm_in_kernel[123].json
  echo "== SM, one launch per copy"; python3 "$here/summarize.py" "$out"/sm_per_launch[123].json
  for cfg in bulk,32,3,1 bulk,64,3,1; do echo "== $cfg"; python3 "$here/summarize.py" "$out/bulk_$cfg.json"; done
  echo "== full catalogue"; python3 "$here/summarize.py" "$out"/full[123].json
  for ms in 20 100 300; do echo "== interference cases, --sample-ms $ms"; python3 "$here/summarize.py" "$out/noisy_$ms.json"; done
} > "$out/summary.txt" 2>&1
cat "$out/summary.txt"
