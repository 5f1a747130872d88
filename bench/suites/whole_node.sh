#!/usr/bin/env bash
# usage: bench/suites/whole_node.sh BIN_DIR OUT_DIR NVBANDWIDTH STAGE...
#   BIN_DIR: xferbench, xferbench_tests and node_probe
#   (nvcc -O3 -std=c++17 -arch=sm_90 -o BIN_DIR/node_probe bench/probes/node_probe.cu)
# A whole node of 2 to 8 GPUs, measured and explained against nvbandwidth
# v0.8 and against independent probes (bench/probes/node_probe.cu). Runs in
# stages, each well inside ten minutes, results under OUT_DIR/STAGE:
#   catalogue:G:R  on the first G GPUs, R interleaved rounds of nvbandwidth
#                  (every case) and `xferbench run --suite full`, with wall
#                  time, peak RSS and GPU memory (catalogue_vs_nvbandwidth.sh),
#                  then the per-cell table: xferbench as nvbandwidth against
#                  nvbandwidth's median and range, and xferbench's own
#                  figure with the cells that say they differ
#   cases:LIST:R   R interleaved rounds of nvbandwidth -t LIST and
#                  `xferbench run -t LIST` (LIST: case indices joined by
#                  '+', e.g. 13+14+25+27), then the same per-cell table
#   probe          node_probe: the four fan shapes and every GPU's host link
#                  both ways at once (against xferbench's own fan and split
#                  cells of the last catalogue round), and the flag
#                  ping-pong between every GPU pair
#   tests:G        the GPU unit tests on the first G GPUs
#   loaded:G:R     R rounds of `run --suite loaded` on the first G GPUs
#                  (loaded_latency.sh); every round must end with exit 0
#   pingpong       `pingpong --all-pairs` on every GPU over device, ipc and
#                  nccl (8 B latency, 64 MiB bandwidth); staged GPU <-> GPU
#                  bandwidth at 256 MiB next to host MPI's own
#   check          node_check.sh: built-in peaks, the shipped spec, a spec
#                  above the node (FAIL naming its link)
#   hostsm:R       (R default 3) every GPU's SM kernel writing to the host at
#                  once (all_to_host_memcpy_sm, -b 512): node_probe hostwrite
#                  with 4 and with 32 passes (short and long writes) before
#                  and after, and R interleaved rounds of nvbandwidth and
#                  xferbench as nvbandwidth four ways: its default (since
#                  2026-11-28 08:00 UTC nvbandwidth's way: its timing and its
#                  kernel, 1,512,12); with --copies 16 --samples 3; with
#                  --sm-config 1,512,8 (a kernel named replaces 1,512,12);
#                  both
#   fanshape:R     (R default 3) R interleaved rounds of nvbandwidth and xferbench's
#                  nvbandwidth layout on the SM fan cases where three kernels
#                  share one GPU (all_to_one_read_sm, one_to_all_write_sm):
#                  xferbench with its default SM kernel and with nvbandwidth's
#                  shape (one 512-thread block per SM, 16, 12 and 8 loads deep;
#                  12, nvbandwidth's own depth, since 2026-11-28 05:50 UTC)
#   dryrun:G:R     the dry run's estimate of `run --suite full` on the first
#                  G GPUs against its measured process wall time, R runs
#                  (default 3) and their mean
. "$(dirname "$0")/common.sh" "$@"
nvb="$(readlink -f "$3")"; shift 3
all=$(nvidia-smi -L | wc -l)
first() { seq -s, 0 $(($1 - 1)); }  # first G: "0,1,...,G-1"
{ date -u; nvidia-smi -L; nvidia-smi topo -m; "$x" list; } > "$out/machine.txt" 2>&1

timed() {  # timed DIR NAME TIMEOUT CMD...: output, exit code and seconds under DIR
  local dir=$1 name=$2 limit=$3; shift 3
  local t0; t0=$(date +%s.%N)
  timeout "$limit" "$@" > "$dir/$name.txt" 2> "$dir/$name.err"
  echo "$name rc=$? $(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s" | tee -a "$dir/stages.txt"
}

for stage in "$@"; do
  IFS=: read -r name g r <<< "$stage"
  g=${g:-$all}; r=${r:-3}
  d="$out/${stage//:/_}"; mkdir -p "$d"
  case "$name" in
    catalogue)
      CUDA_VISIBLE_DEVICES=$(first "$g") "$here/catalogue_vs_nvbandwidth.sh" "$bin" "$d" "$nvb" "$r" | tail -30 ;;
    cases)
      IFS=+ read -r -a list <<< "$g"
      for i in $(seq 1 "$r"); do
        timed "$d" "nvb$i" 500 "$nvb" -t "${list[@]}"
        timed "$d" "xb$i" 500 "$x" run -t "${list[@]}" -o "$d/xb$i.json"
      done
      python3 "$here/../compare_with_nvbandwidth.py" medians --nvb "$d"/nvb[0-9]*.txt --xb "$d"/xb[0-9]*.json \
        > "$d/compare.txt" 2>&1
      grep "^#" "$d/compare.txt" | head -12 ;;
    probe)
      timed "$d" fan 120 "$bin/node_probe" fan 512 16
      timed "$d" hostbidir 120 "$bin/node_probe" hostbidir 512 4
      timed "$d" localce 60 "$bin/node_probe" localce 512
      for a in $(seq 0 $((all - 1))); do for b in $(seq $((a + 1)) $((all - 1))); do
        timed "$d" "flag_${a}_$b" 60 "$bin/node_probe" flag "$a" "$b" 200000
        timed "$d" "flagipc_${a}_$b" 60 "$bin/node_probe" flagipc "$a" "$b" 200000
      done; done
      timed "$d" flagbits 120 "$bin/node_probe" flagbits 0 1 200000
      cat "$d/fan.txt" "$d/hostbidir.txt" "$d/localce.txt" "$d/flagbits.txt"; grep -h "200000 round" "$d"/flag_*.txt ;;
    tests)
      CUDA_VISIBLE_DEVICES=$(first "$g") timed "$d" gpu_tests 500 "$bin/xferbench_tests" --gtest_filter='*Gpu*'
      tail -3 "$d/gpu_tests.txt" ;;
    loaded)
      CUDA_VISIBLE_DEVICES=$(first "$g") "$here/loaded_latency.sh" "$bin" "$d" - "$r" > /dev/null
      cat "$d/rc.txt"; grep -c "did not cover" "$d"/loaded*.txt ;;
    pingpong)
      mpi=(mpirun --allow-run-as-root --oversubscribe -np "$all")
      for tp in device ipc nccl; do
        timed "$d" "lat_$tp" 200 "${mpi[@]}" "$x" pingpong --dev1 gpu --dev2 gpu --transport "$tp" --all-pairs \
          -n 1 --loop-count 20000 --warmup 2000 -o "$d/lat_$tp.json"
        timed "$d" "bw_$tp" 200 "${mpi[@]}" "$x" pingpong --dev1 gpu --dev2 gpu --transport "$tp" --all-pairs \
          --mode bw --min-size 64M -n 1 --window 8 --loop-count 5 --warmup 1 -o "$d/bw_$tp.json"
      done
      two=(mpirun --allow-run-as-root -np 2)
      timed "$d" bw_staged 200 "${two[@]}" "$x" pingpong --dev1 gpu --dev2 gpu --transport staged --mode bw \
        --min-size 256M -n 1 --window 4 --loop-count 3 --warmup 1 -o "$d/bw_staged.json"
      timed "$d" bw_mpi_host 200 "${two[@]}" "$x" pingpong --dev1 host --dev2 host --transport mpi --mode bw \
        --min-size 4M -n 7 --window 8 --loop-count 5 --warmup 1 -o "$d/bw_mpi_host.json"
      grep -hE "one-way|GB/s" "$d"/lat_device.txt | head -12 ;;
    check)
      "$here/node_check.sh" "$bin" "$d" | tail -8 ;;
    hostsm)
      rounds=3; [[ "$stage" == *:* ]] && rounds=${stage#*:}
      probes() { for p in 4 32; do timed "$d" "hostwrite_${p}_$1" 90 "$bin/node_probe" hostwrite 512 "$p"; done; }
      probes before
      declare -A ways=([default]="" [sample]="--copies 16 --samples 3" [shape]="--sm-config 1,512,8"
                       [both]="--copies 16 --samples 3 --sm-config 1,512,8")
      for i in $(seq 1 "$rounds"); do
        timed "$d" "nvb_$i" 120 "$nvb" -t all_to_host_memcpy_sm
        for w in default sample shape both; do
          # shellcheck disable=SC2086  # the way's options are words
          timed "$d" "xb_${w}_$i" 120 "$x" run -t all_to_host_memcpy_sm --format nvbandwidth \
            --nvbandwidth-version 0.8 ${ways[$w]} -o "$d/xb_${w}_$i.json"
        done
      done
      probes after
      for f in "$d"/nvb_*.txt "$d"/xb_*.txt; do echo "$(basename "$f" .txt): $(grep -A3 "Running all_to_host" "$f" | grep "^ 0 " | tr -s ' ')"; done
      grep -h "all GPUs at once" "$d"/hostwrite_*.txt | cut -c1-220 ;;
    fanshape)
      rounds=3; [[ "$stage" == *:* ]] && rounds=${stage#*:}
      for i in $(seq 1 "$rounds"); do
        timed "$d" "nvb_$i" 120 "$nvb" -t all_to_one_read_sm one_to_all_write_sm
        timed "$d" "xb_$i" 120 "$x" run -t all_to_one_read_sm one_to_all_write_sm --format nvbandwidth \
          --nvbandwidth-version 0.8 -o "$d/xb_$i.json"
        for shape in 1,512,16 1,512,12 1,512,8; do
          timed "$d" "xb_${shape//,/_}_$i" 120 "$x" run -t all_to_one_read_sm one_to_all_write_sm --format nvbandwidth \
            --nvbandwidth-version 0.8 --sm-config "$shape" -o "$d/xb_${shape//,/_}_$i.json"
        done
      done
      for f in "$d"/nvb_*.txt "$d"/xb_*.txt; do echo "$(basename "$f" .txt): $(grep "^ 0 " "$f" | tr -s ' ' | tr '\n' '|')"; done ;;
    dryrun)
      CUDA_VISIBLE_DEVICES=$(first "$g") "$x" run --suite full --dry-run > "$d/plan.txt" 2>&1
      CUDA_VISIBLE_DEVICES=$(first "$g") "$x" run --suite full --dry-run --format json > "$d/plan.json" 2>&1
      for i in $(seq 1 "$r"); do
        CUDA_VISIBLE_DEVICES=$(first "$g") timed "$d" "full_$i" 560 "$x" run --suite full -q -o "$d/full_$i.json"
      done
      python3 - "$d" <<'PY' | tee "$d/summary.txt"
import json, re, statistics, sys
d = sys.argv[1]
try:
    est = json.load(open(f"{d}/plan.json"))["estimated_seconds"]
except (OSError, ValueError, KeyError):
    est = None
walls = [float(m.group(1)) for m in re.finditer(r"rc=0 ([0-9.]+) s", open(f"{d}/stages.txt").read())]
if est is None or not walls:
    print(f"dry run: estimate {est}, measured {walls}: no comparison")
else:
    mean = statistics.mean(walls)
    print(f"dry run: estimated {est:.1f} s; measured {', '.join(f'{w:.1f}' for w in walls)} s "
          f"(mean {mean:.1f}); error against the mean {100 * (est / mean - 1):+.1f}%")
PY
      ;;
    *) echo "unknown stage '$stage'" >&2; exit 2 ;;
  esac
done
