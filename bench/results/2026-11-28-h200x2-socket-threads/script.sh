#!/usr/bin/env bash
# Run from the repository root with the build in .devbuild/bin.tar.xz (bin/xferbench). 2 GPUs: NCCL socket path launch-to-launch spread, default vs more socket threads (env per app context).
set -u
tar xJf .devbuild/bin.tar.xz -C .devbuild
B=.devbuild/bin; o=/tmp/e2; mkdir -p $o
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
{ date -u; nvidia-smi -L; nproc; } > $o/machine.txt 2>&1; head -3 $o/machine.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
base="NCCL_NVLS_ENABLE=0 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo NCCL_DEBUG=WARN"
more="NCCL_SOCKET_NTHREADS=4 NCCL_NSOCKS_PERTHREAD=4"
go() { # name envs tool args... (@G = gpu id)
  local n=$1 envs=$2; shift 2
  local args=() g e a
  for g in 0 1; do
    [[ $g == 1 ]] && args+=(:)
    args+=(-np 1 -x XFERBENCH_NODE_NAME=g$g)
    for e in $envs; do args+=(-x "$e"); done
    for a in "$@"; do args+=("${a//@G/$g}"); done
  done
  (for e in $envs; do export "$e"; done; timeout 60 "${mpi[@]}" "${args[@]}" > $o/$n.txt 2>&1; echo "exit $?" >> $o/$n.txt)
}
pp=($B/xferbench pingpong --transport nccl --all-pairs --dev1 gpu:@G --dev2 gpu:@G -n 1 --mode bw --min-size 64M --window 4 --loop-count 10 --warmup 2)
fb=($B/xferbench fabric --buffers gpu:@G --transport nccl --size 64M --window 4 --loop-count 10 --warmup 2 --latency-loop-count 20000 --latency-warmup 1000)
for r in 1 2 3 4 5 6 7 8; do
  go ppA_$r "$base" "${pp[@]}" -o $o/ppA_$r.json
  go ppB_$r "$base $more" "${pp[@]}" -o $o/ppB_$r.json
  go fabA_$r "$base" "${fb[@]}" -o $o/fabA_$r.json
  go fabB_$r "$base $more" "${fb[@]}" -o $o/fabB_$r.json
  el "rep $r: $(tail -qn1 $o/*_$r.txt | tr '\n' ' ')"
  (tar czf $OUT/e2.tgz -C /tmp e2)
  [[ $SECONDS -gt 200 ]] && break
done
python3 - $o <<'PY' | tee $o/summary.txt
import json,sys,glob,statistics
o=sys.argv[1]
def show(k,v):
    if v: print(f"{k:12}", ' '.join(f'{x:.2f}' for x in v), ' median %.2f spread %.1f%%'%(statistics.median(v),100*(max(v)-min(v))/statistics.median(v)))
for k in ('ppA','ppB'):
    v=[]
    for f in sorted(glob.glob(f'{o}/{k}_*.json')):
        try:
            s=json.load(open(f))['pairs'][0]['sizes'][0]; v.append(s['bytes']/s['one_way_time_s']['median']/1e9)
        except Exception as e: print(k,f,'unreadable',e)
    show(k,v)
for k in ('fabA','fabB'):
    ab=[];ba=[];lat=[]
    for f in sorted(glob.glob(f'{o}/{k}_*.json')):
        try:
            p=json.load(open(f))['pairs'][0]; ab.append(p['bandwidth_ab']['gbps_p50']); ba.append(p['bandwidth_ba']['gbps_p50']); lat.append(p['latency']['one_way_time_s']['median']*1e6)
        except Exception as e: print(f,'unreadable',e)
    show(k+' ab',ab); show(k+' ba',ba); show(k+' lat us',lat)
PY
tar czf $OUT/e2.tgz -C /tmp e2
