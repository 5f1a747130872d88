#!/usr/bin/env bash
# The bulk-copy default for NVLink SM copies: shapes against each other
# (three interleaved rounds), concurrent SM copies on one GPU (do the
# shrinking chunks let them run together?), then the SM cases, three full
# catalogue runs and the quick suite from process start.
# usage: bench/sm_bulk_h200x2.sh BIN_DIR OUT_DIR   (BIN_DIR: xferbench, xferbench_tests)
. "$(dirname "$0")/common.sh" "$@"
bench_start
d2d="device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm"
shapes="default bulk,64,3,1 bulk,32,3,1 bulk,16,3,1 bulk,16,4,1 bulk,48,4,1 bulk,96,2,1 bulk,32,3,2 1,512,4"
for round in 1 2 3; do
  for s in $shapes; do
    cfg=(); [ "$s" = default ] || cfg=(--sm-config "$s")
    "$x" run -t $d2d "${cfg[@]}" -q -o "$out/shape_${s//,/_}_$round.json" > /dev/null 2>&1
  done
done
one='0:DtoD:512M:peer=1,engine=sm'
{
  for k in 1 2 3 4; do
    specs=$(for i in $(seq $k); do printf '%s ' "$one"; done)
    echo "== $k SM copies gpu0 -> gpu1 at once, default shape"; "$x" run --do="$specs" -q 2>&1
  done
  echo "== 2 SM copies at once, forced bulk,64,3,1 (192 KiB shared memory per block)"
  "$x" run --do="$one $one" --sm-config bulk,64,3,1 -q 2>&1
} > "$out/concurrent_sm.txt"
grep -E "^==|aggregate|overlap" "$out/concurrent_sm.txt"
sm="host_to_device_memcpy_sm device_to_host_memcpy_sm host_to_device_bidirectional_memcpy_sm
    device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm device_to_device_bidirectional_memcpy_read_sm
    device_to_device_bidirectional_memcpy_write_sm all_to_one_write_sm all_to_one_read_sm one_to_all_write_sm
    one_to_all_read_sm"
for i in 1 2 3; do "$x" run -t $sm -q -o "$out/sm$i.json" > /dev/null 2>&1; done
for i in 1 2 3; do "$x" run --suite full -q -o "$out/full$i.json" > "$out/full$i.txt" 2>&1; done
start=$(date +%s.%N); "$x" -q > "$out/quick.txt" 2>&1; end=$(date +%s.%N)
python3 -c "print(f\"quick suite, process start to last line: {$end - $start:.2f} s\")" | tee "$out/quick_time.txt"
{
  for s in $shapes; do echo "== shape $s"; python3 "$here/summarize.py" "$out"/shape_${s//,/_}_[123].json | tail -2; done
  echo "== SM cases, defaults"; python3 "$here/summarize.py" "$out"/sm[123].json
  echo "== full catalogue"; python3 "$here/summarize.py" "$out"/full[123].json
} > "$out/summary.txt" 2>&1
cat "$out/summary.txt"
