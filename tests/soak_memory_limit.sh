#!/usr/bin/env bash
# soak_memory_limit.sh BINARY: under a memory limit (ulimit -v), reading a
# soak file ends with a result (exit 0) or with exit 4 and one line "out of
# memory", never an abort or an internal error (soak --summary
# aborted, compare exited 70). The file is made here: 300,000 samples, about
# 60 MB, a fifth of which the analysis keeps, under limits from ample to
# tight.
set -u
bin=$(realpath "$1")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
soak="$dir/soak.jsonl"
{
  printf '%s\n' '{"type":"header","schema":"xferbench.soak","schema_version":1,"command_line":["xferbench","soak"],"start_time_utc":"2026-11-25T10:00:00.000Z","host":"generated","gpus":["gpu0 NVIDIA H200 GPU-0"],"cases":["device_to_host_memcpy_ce"],"duration_s":3600}'
  awk 'BEGIN { for (i = 0; i < 300000; i++)
    printf "{\"type\":\"sample\",\"t_s\":%d,\"time_utc\":\"2026-11-25T10:00:00.000Z\",\"round\":%d,\"cell\":\"c%d[0,0]\",\"unit\":\"gbps\",\"value\":%.2f,\"verified\":true,\"telemetry\":[{\"gpu\":0,\"ecc_corrected\":0,\"clock_reasons\":0}]}\n",
      i * 5, int(i / 24) + 1, i % 24, 55 + (i % 7) * 0.01 }'
} >"$soak" || exit 1
fails=0
ran_out=0
for limit_kib in 400000 60000 40000 30000; do
  for cmd in "soak --summary $soak" "compare $soak $soak"; do
    # shellcheck disable=SC2086  # the words of $cmd are the arguments
    (ulimit -v "$limit_kib" && exec "$bin" $cmd) >/dev/null 2>"$dir/err"
    rc=$?
    if [[ $rc -eq 4 ]] && grep -qx "xferbench: error: out of memory" "$dir/err"; then
      ran_out=$((ran_out + 1))
    elif [[ $rc -eq 127 ]] && grep -q "error while loading shared libraries" "$dir/err"; then
      : # the limit is below what the dynamic loader itself needs: nothing of xferbench ran
    elif [[ $rc -ne 0 ]]; then
      echo "FAIL: ulimit -v $limit_kib; xferbench ${cmd%% *}: exit $rc: $(head -c 300 "$dir/err")"
      fails=$((fails + 1))
    fi
  done
done
echo "$ran_out of 8 runs ran out of memory and said so"
[[ $fails -eq 0 ]]
