#!/usr/bin/env bash
# Third GPU session: pingpong GPU paths, SM split/L2 variants, and three
# full-catalogue runs for the reference comparison.
set -u
bin="$1"; out="$2"; mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
here="$(dirname "$0")"
mpi="mpirun --allow-run-as-root -np 2"
"$bin/xferbench_tests" --gtest_filter='Gpu.*:PingpongGpu.*' 2>&1 | grep -E "^\[ +(OK|FAILED|SKIPPED) " | head -20
for t in ipc nccl staged; do
  echo "== pingpong gpu-gpu $t"; timeout 120 $mpi "$bin/xferbench" pingpong --dev1 gpu --dev2 gpu -n 27 --transport $t > "$out/pp_$t.txt" 2>&1; echo "rc=$?"
  grep -E "transport|^\|  *(8|536870912)\||verified" "$out/pp_$t.txt"
done
echo "== auto host-gpu"; timeout 60 $mpi "$bin/xferbench" pingpong --dev1 host --dev2 gpu -n 12 2>&1 | grep -E "transport|verified|error"
echo "== mpi with gpu buffers (expect exit 2)"; timeout 60 $mpi "$bin/xferbench" pingpong --dev1 gpu --dev2 gpu --transport mpi -n 4 2>&1 | tail -2; echo "rc=$?"
echo "== gpu 7 (expect exit 2)"; timeout 60 $mpi "$bin/xferbench" pingpong --dev1 gpu --dev2 gpu:7 -n 4 2>&1 | tail -2
echo "== host-host"; timeout 60 $mpi "$bin/xferbench" pingpong --dev1 host --dev2 host -n 8 --loop-count 10000 2>&1 | grep -E "^\|  *(8|16|32|64|128|256|512|1024)\|"
timeout 60 $mpi "$bin/mpi_bare_pingpong"
for t in ipc nccl; do timeout 120 $mpi "$bin/xferbench" pingpong --dev1 gpu --dev2 gpu -n 27 --transport $t --mode bw 2>&1 | grep -E "^\|  *536870912\||verified"; done
"$bin/xferbench" run -q -t 18 19 25 27 > "$out/split.txt" 2>&1; grep -v "^#   \[" "$out/split.txt" | grep -E "host  |Running|CoV" | head -20
grep CoV "$out/split.txt" | head -8
SM_CONFIGS="1,512,4 1,512,4,l2_256b 2,512,8,l2_256b 1,1024,8,l2_256b 4,256,4,l2_256b" bash "$here/sm_tuning.sh" "$bin" "$out"
for i in 1 2 3; do /usr/bin/time -f "full run $i wall %e s" "$bin/xferbench" run --suite full -q -o "$out/full$i.json" > /dev/null; done
/usr/bin/time -f "quick suite wall %e s" "$bin/xferbench" -q -o "$out/quick.json" > "$out/quick.txt"
python3 "$here/summarize.py" "$out"/full[123].json
