#!/usr/bin/env bash
# Sweeps SM copy kernel launch shapes (blocks per SM, threads, unroll,
# cache hints) over the SM cases and prints the median GB/s of each.
# usage: bench/sm_tuning.sh BIN_DIR OUT_DIR
set -u
bin="$1"; out="$2"
cases=(host_to_device_memcpy_sm device_to_host_memcpy_sm device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm)
configs=(${SM_CONFIGS:-"1,512,4" "2,512,4" "4,512,4" "8,256,4" "2,1024,4" "1,1024,8" "2,512,8" "4,256,8" "4,512,2"
         "16,128,4" "2,512,4,streaming" "4,512,4,streaming" "1,512,8,streaming"})
printf "%-22s" "config"; for c in "${cases[@]}"; do printf " %14s" "${c:0:14}"; done; echo
for cfg in "${configs[@]}"; do
  f="$out/sm_${cfg//,/_}.json"
  "$bin/xferbench" run -q -t "${cases[@]}" --sm-config "$cfg" -i 5 -o "$f" > /dev/null 2>&1
  printf "%-22s" "$cfg"
  python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
vals = []
for c in d["cases"]:
    cells = c["matrices"][0]["cells"] if c["matrices"] else []
    vals.append(" ".join(f"{x['value_gbps']:.1f}" for x in cells) or c["status"])
print("".join(f" {v:>14}" for v in vals))
PY
done
