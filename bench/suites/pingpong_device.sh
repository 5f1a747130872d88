#!/usr/bin/env bash
# GPU-initiated ping-pong on a 2-GPU node (about 100 s): the GPU unit tests;
# 8 B one-way latency over the device transport (GPU <-> GPU, host -> GPU,
# GPU -> host) next to ipc, nccl, staged and host MPI; 512 MiB windowed
# bandwidth over device, ipc, nccl and staged (three chunk sizes) next to
# host MPI and `run -t device_to_device_memcpy_write_sm`; the staged
# pingpong at 512 MiB; what auto picks; device sweeps (8 B .. 128 MiB); the
# all-pairs matrix; and a fault check (kill -STOP of rank 1: rank 0 must
# exit 9 within the timeout). Every run's text and JSON land in OUT_DIR;
# bench/pingpong_summary.py prints the table against the issue's targets.
# usage: bench/suites/pingpong_device.sh BIN_DIR OUT_DIR   (BIN_DIR: xferbench, xferbench_tests)
. "$(dirname "$0")/common.sh" "$@"
mpi=(mpirun --allow-run-as-root -np 2)

# pp NAME ARGS...: one two-rank pingpong; text (and its exit status) to
# NAME.txt, JSON to NAME.json. Never more than 60 s.
pp() {
  local name=$1
  shift
  timeout 60 "${mpi[@]}" "$x" pingpong "$@" -o "$out/$name.json" >"$out/$name.txt" 2>&1
  echo "exit $?" >>"$out/$name.txt"
}

bench_start
lat=(-n 1 --loop-count 20000 --warmup 2000)
pp lat_device_gpu_gpu --dev1 gpu --dev2 gpu --transport device "${lat[@]}"
pp lat_device_host_gpu --dev1 host --dev2 gpu --transport device "${lat[@]}"
pp lat_device_gpu_host --dev1 gpu --dev2 host --transport device "${lat[@]}"
pp lat_device_gpu_gpu_flag --dev1 gpu --dev2 gpu --transport device --ll-max 0 "${lat[@]}"
pp lat_ipc --dev1 gpu --dev2 gpu --transport ipc -n 1 --loop-count 2000 --warmup 200
pp lat_nccl --dev1 gpu --dev2 gpu --transport nccl -n 1 --loop-count 2000 --warmup 200
pp lat_staged --dev1 gpu --dev2 gpu --transport staged -n 1 --loop-count 2000 --warmup 200
pp lat_mpi_host --dev1 host --dev2 host --transport mpi "${lat[@]}"
pp auto_gpu_gpu --dev1 gpu --dev2 gpu -n 1 --loop-count 100

bw=(--mode bw --min-size 512M -n 1 --window 8 --loop-count 5 --warmup 1)
pp bw_device --dev1 gpu --dev2 gpu --transport device "${bw[@]}"
pp bibw_device --dev1 gpu --dev2 gpu --transport device --mode bibw --min-size 512M -n 1 --window 8 --loop-count 5 --warmup 1
pp bw_ipc --dev1 gpu --dev2 gpu --transport ipc "${bw[@]}"
pp bw_nccl --dev1 gpu --dev2 gpu --transport nccl "${bw[@]}"
sbw=(--dev1 gpu --dev2 gpu --transport staged --mode bw --min-size 512M -n 1 --window 4 --loop-count 3 --warmup 1)
pp bw_staged "${sbw[@]}"
pp bw_staged_chunk1M "${sbw[@]}" --staged-chunk 1M
pp bw_staged_chunk16M "${sbw[@]}" --staged-chunk 16M
pp pingpong_staged_512M --dev1 gpu --dev2 gpu --transport staged --min-size 512M -n 1 --loop-count 3 --warmup 1
pp bw_mpi_host --dev1 host --dev2 host --transport mpi "${bw[@]}"
timeout 60 "$x" run -t device_to_device_memcpy_write_sm -o "$out/write_sm.json" >"$out/write_sm.txt" 2>&1
echo "exit $?" >>"$out/write_sm.txt"

pp sweep_device --dev1 gpu --dev2 gpu --transport device -n 25 --loop-count 50 --warmup 5
pp sweep_device_host_gpu --dev1 host --dev2 gpu --transport device -n 24 --loop-count 50 --warmup 5
pp all_pairs_device --dev1 gpu --dev2 gpu --transport device --all-pairs -n 1 --loop-count 2000 --warmup 200

# Fault: rank 1 stops (SIGSTOP) in the middle of a device run (12 sizes of
# 10^6 round trips, about 1.5 s of kernel each); rank 0 must end with exit 9
# within the 3 s timeout plus the rest of the kernel run under way. A
# stopped process's kernel keeps running, so rank 0 notices either in its
# kernel (the peer never starts its next run) or in MPI (the peer never
# answers between runs); both exit 9.
fault() {
  timeout 60 "${mpi[@]}" "$x" pingpong --dev1 gpu --dev2 gpu --transport device -n 12 --loop-count 1000000 \
    --warmup 10 --timeout 3 >"$out/fault.txt" 2>&1 &
  local waiter=$! launcher="" rank0="" rank1="" p r
  sleep 5
  launcher=$(pgrep -P "$waiter" | head -1)
  for p in $(pgrep -P "${launcher:-0}"); do
    r=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    [[ "$r" == 0 ]] && rank0=$p
    [[ "$r" == 1 ]] && rank1=$p
  done
  if [[ -z "$rank0" || -z "$rank1" ]]; then
    echo "fault check: ranks not found (launcher ${launcher:-none})" >>"$out/fault.txt"
    wait "$waiter"
    return
  fi
  local t0 t1 code
  t0=$(date +%s.%N)
  kill -STOP "$rank1"
  # Rank 0 must end on its own; a stopped rank 1 could keep mpirun from
  # finishing, so it is woken only after rank 0 is gone (or 20 s passed).
  for _ in $(seq 200); do kill -0 "$rank0" 2>/dev/null || break; sleep 0.1; done
  t1=$(date +%s.%N)
  kill -CONT "$rank1" 2>/dev/null
  wait "$waiter"
  code=$?
  kill -KILL "$rank1" 2>/dev/null
  echo "fault check: exit $code, rank 0 ended $(python3 -c "print(f'{$t1 - $t0:.1f}')") s after SIGSTOP of rank 1" >>"$out/fault.txt"
}
fault
python3 "$here/../pingpong_summary.py" "$out" | tee "$out/summary.txt"
