set -u
bin=.devbuild; out=/tmp/o; mkdir -p $out; export NCCL_NVLS_ENABLE=0
for cfg in "16,128,1" "64,1024,1" "128,1024,1" "256,512,1" "124,1024,1" "32,1024,1" "64,512,1"; do
  "$bin/xferbench" run -q -t 18 19 --sm-config "$cfg" -i 5 -o "$out/split.json" > /dev/null 2>&1
  printf "split %-10s " "$cfg"
  python3 -c "
import json; d=json.load(open('$out/split.json'))
print(' '.join(f\"{c['value_gbps']:.1f}\" for case in d['cases'] for c in case['matrices'][0]['cells']))"
done
mpi="mpirun --allow-run-as-root -np 2"
timeout 60 $mpi "$bin/mpi_bare_pingpong" blocking | head -3
timeout 60 $mpi "$bin/xferbench" pingpong --dev1 host --dev2 host -n 3 --loop-count 100000 2>&1 | grep -E "^\|  *(8|16|32)\|"
