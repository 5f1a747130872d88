#!/usr/bin/env bash
# The nvbandwidth v0.9/v0.10 additions on a GPU machine, for
# nvidia-h200-x2 and the single H100 (GPU pair cases are waived there):
#   1. every new case (TMA read/write/latency/local copy, read-only and
#      write-only memory) next to the CE and SM cases they compare with;
#   2. host-to-device and device-to-host CE on pinned vs 2 MiB huge-page host
#      memory (the script reserves huge pages when none are, and records it);
#   3. SM budget curves: NVLink peer write and read (x2), host-to-device and
#      device-to-host, the read-only kernel;
#   4. the read-only kernel's default shape against four others, the TMA
#      write's against three;
#   5. `run --dry-run --suite full` estimate against the measured wall time
#      of `run --suite full` (process start to exit).
# About 100 s on H200 x2, 60 s on one H100; every step has a timeout and the
# script goes on after a failing one.
# usage: bench/suites/nvbandwidth_v010_cases.sh BIN_DIR OUT_DIR
. "$(dirname "$0")/common.sh" "$@"
bench_start
step() {  # step NAME TIMEOUT CMD...: run, keep stdout+stderr in OUT/NAME.txt, note the exit code
  local name="$1" limit="$2"; shift 2
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  echo "$name: exit $?" | tee -a "$out/steps.txt"
}

# 1. New cases and their references (CE/SM copies of the same pairs, local copy, latency).
step new_cases 120 "$x" run -q -t 4 5 20 21 33 34 39 40 41 42 43 44 -o "$out/new_cases.json"

# 2. Huge pages. Record the pool; show the waiver when none are reserved;
#    reserve enough for the two cases' host buffers (one each), measure
#    pinned and huge pages alternately; give the pool back afterwards.
pool=/sys/kernel/mm/hugepages/hugepages-2048kB
before=$(cat $pool/nr_hugepages 2>/dev/null || echo missing)
avail_kib=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
mib=512; [[ $avail_kib -lt $((6 * 1024 * 1024)) ]] && mib=256   # small VMs: keep 2 x buffer well under MemAvailable
{
  echo "MemAvailable ${avail_kib} kB; buffer ${mib} MiB; pool before: nr_hugepages=$before free=$(cat $pool/free_hugepages 2>/dev/null)"
  grep -i huge /proc/meminfo; cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
} > "$out/hugepages.txt"
if [[ "$before" == 0 ]]; then
  timeout 60 "$x" run -q -t 0 --host-mem hugepages -b $mib > "$out/hugepages_waiver.txt" 2>&1
  echo "waiver run exit $?" >> "$out/hugepages_waiver.txt"
fi
want=$((2 * mib / 2 + 16))
if [[ "$before" != missing && "$before" -lt $want ]]; then
  echo $want > $pool/nr_hugepages
  echo "set: echo $want > $pool/nr_hugepages -> nr_hugepages=$(cat $pool/nr_hugepages) free=$(cat $pool/free_hugepages)" >> "$out/hugepages.txt"
fi
for round in 1 2; do
  step "pinned_$round" 60 "$x" run -q -t 0 1 -b $mib -o "$out/pinned_$round.json"
  step "hugepages_$round" 60 "$x" run -q -t 0 1 -b $mib --host-mem hugepages -o "$out/hugepages_$round.json"
done
step hugepages_do 60 "$x" run -q --do "0:HtoD:${mib}M:hugepages" --do "0:DtoH:${mib}M:hugepages" -o "$out/hugepages_do.json"
if [[ "$before" != missing ]]; then echo "$before" > $pool/nr_hugepages; fi
echo "pool restored: nr_hugepages=$(cat $pool/nr_hugepages 2>/dev/null)" >> "$out/hugepages.txt"

# 3. SM budget curves (1, 2, 4, ... all SMs), 256 MiB per copy, 3 samples per point.
for c in device_to_device_memcpy_write_sm device_to_device_memcpy_read_sm device_to_device_memcpy_write_tma \
         host_to_device_memcpy_sm device_to_host_memcpy_sm device_local_read_sm; do
  step "sms_$c" 120 "$x" sweep -q -t $c --sms --buffer-size 256M -i 3 -o "$out/sms_$c.json"
done
"$x" plot "$out/sms_device_to_device_memcpy_write_sm.json" -o "$out/sms_d2d_write.png" > /dev/null 2>&1 || true
"$x" plot "$out/sms_host_to_device_memcpy_sm.json" -o "$out/sms_h2d.png" > /dev/null 2>&1 || true

# 4. Read-only kernel shapes: BLOCKS_PER_SM,THREADS,UNROLL (default 4,512,4).
for shape in default 1,512,4 2,1024,8 8,256,4 4,512,16; do
  cfg=(); [[ $shape != default ]] && cfg=(--sm-config "$shape")
  step "read_shape_${shape//,/_}" 60 "$x" run -q -t device_local_read_sm device_local_write_sm -i 5 "${cfg[@]}" \
       -o "$out/read_shape_${shape//,/_}.json"
done

# TMA write shapes (bulk,CHUNK_KIB,STAGES,BLOCKS_PER_SM; default 64,3,1): is the gap to the copy engine the kernel's?
for shape in 32,4,2 16,4,4 96,2,1; do
  step "tma_shape_${shape//,/_}" 60 "$x" run -q -t device_to_device_memcpy_write_tma -i 5 --sm-config "bulk,$shape" \
       -o "$out/tma_shape_${shape//,/_}.json"
done

# 5. Dry-run estimate, then the real full catalogue timed from process start.
step dry_run 60 "$x" run --dry-run --suite full -o "$out/plan.json"
start=$(date +%s.%N)
step full 300 "$x" run -q --suite full -o "$out/full.json"
end=$(date +%s.%N)
python3 -c "print(f'{$end - $start:.3f}')" > "$out/full_wall_seconds.txt"

python3 "$here/../v010_summary.py" "$out" | tee "$out/summary.txt"
