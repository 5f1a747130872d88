#!/usr/bin/env bash
# Managed memory on one GPU: host<->GPU copies from and to managed buffers
# (the pages are placed where the spec says before every sample) next to
# pinned ones, an SM copy that faults managed pages over, and the migration
# cases (a GPU kernel / a host thread touching managed pages on the other
# side: GB/s with every byte read, ns per 4 KiB and per 2 MiB page).
# usage: bench/suites/managed_memory.sh BIN_DIR OUT_DIR        (~40 s on an H100)
. "$(dirname "$0")/common.sh" "$@"
{ date -u; nvidia-smi -L; } > "$out/machine.txt"
for spec in 0:HtoD:256M 0:HtoD:256M:managed 0:DtoH:256M 0:DtoH:256M:managed 0:HtoD:256M:managed,engine=sm; do
  name=$(echo "$spec" | tr ':,=' '___')
  timeout 120 "$x" run -q --do="$spec" -o "$out/$name.json" > "$out/$name.txt" 2>&1; echo "rc=$?" >> "$out/$name.txt"
  python3 - "$out/$name.json" "$spec" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"{sys.argv[2]:36} no result ({e})"); sys.exit()
t = d["transfers"][0]
peak = t["peak"]["gbps"] if t.get("peak") else float("nan")
print(f"{sys.argv[2]:36} {t['bandwidth_gbps']:9.2f} GB/s  {100 * t['bandwidth_gbps'] / peak:6.1f}% of {peak:.1f}  "
      f"copies/sample {d['settings']['copies_per_sample']}  verify {t['verification']['status']}  invalid {t.get('invalid')}")
PY
done | tee "$out/summary.txt"
timeout 180 "$x" run -q -t managed_migration_host_to_device managed_migration_device_to_host -o "$out/migration.json" \
  > "$out/migration.txt" 2>&1; echo "migration rc=$?" | tee -a "$out/summary.txt"
grep -E "^(Running|managed|#   \[| *managed)" "$out/migration.txt" | head -20 | tee -a "$out/summary.txt"
