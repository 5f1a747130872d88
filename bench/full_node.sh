#!/usr/bin/env bash
# Issue 18 on a whole node (nvidia-h200-x4 or -x8): everything in one lease,
# as STAGE runs of at most ~9 minutes each (the device tool's per-command
# limit is 10), results under OUT_DIR; then `tar` OUT_DIR into $OUT.
#   nvb        nvbandwidth v0.8, every case; nvb:FIRST-LAST runs only those
#              case indices (split a catalogue that outlasts one command)
#   catalogue  `xferbench run --suite full` on the same machine, then the
#              cell ratios against every nvb stage so far and both wall times
#   shared     shared links under load: all-to-one / one-to-all cases,
#              every GPU to host at once, `--do=all` (every GPU both ways),
#              `--do` with every GPU pair at once, against the switch's and
#              host links' totals
#   check      `xferbench check` with the built-in defaults and the shipped
#              H200 spec (target: PASS in < 120 s)
#   dryrun     `--dry-run` estimate for `--suite full` against the measured
#              wall time of the catalogue stage (target: within 25%)
#   pingpong   `mpirun -np N xferbench pingpong --all-pairs` over the device
#              transport and host buffers: the rank matrices, 8 B latencies
# usage: bench/full_node.sh BIN_DIR OUT_DIR NVBANDWIDTH STAGE...
#   e.g. bench/full_node.sh .devbuild/bin $OUT/node .devbuild/nvbandwidth-v0.8 nvb:0-15
#        then: ... nvb:16-34, then: ... catalogue shared check dryrun pingpong
. "$(dirname "$0")/common.sh" "$@"
nvb="$(readlink -f "$3")"; shift 3
n=$(nvidia-smi -L | wc -l)
mpi=(mpirun --allow-run-as-root --oversubscribe -np "$n")
{ date -u; nvidia-smi -L; nvidia-smi topo -m; "$x" list; } > "$out/machine.txt" 2>&1
"$x" list --format json > "$out/topology.json" 2>/dev/null

timed() {  # timed NAME TIMEOUT CMD...: stdout/stderr/exit/seconds under OUT_DIR
  local name=$1 limit=$2; shift 2
  local t0; t0=$(date +%s.%N)
  timeout "$limit" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  echo "$name rc=$? $(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s" | tee -a "$out/stages.txt"
}

for stage in "$@"; do
  case "$stage" in
    nvb) timed nvbandwidth 560 "$nvb" ;;
    nvb:*)
      range=${stage#nvb:}
      timed "nvbandwidth_$range" 560 "$nvb" -t $(seq "${range%-*}" "${range#*-}") ;;
    catalogue)
      timed xferbench_full 400 "$x" run --suite full -q -o "$out/full.json"
      python3 "$here/compare_with_nvbandwidth.py" medians --nvb "$out"/nvbandwidth*.txt --xb "$out/full.json" > "$out/catalogue.txt" 2>&1
      grep -h "rc=" "$out/stages.txt"; tail -8 "$out/catalogue.txt" ;;
    shared)
      timed shared_cases 300 "$x" run -q -t all_to_one_write_ce all_to_one_write_sm one_to_all_read_ce one_to_all_write_sm \
        all_to_host_memcpy_ce host_to_all_memcpy_ce all_to_host_bidirectional_memcpy_ce host_to_all_bidirectional_memcpy_ce \
        -o "$out/shared_cases.json"
      timed do_all_both 120 "$x" run -q --do=all:512M:both -o "$out/do_all_both.json"
      specs=(); for a in $(seq 0 $((n - 1))); do for b in $(seq 0 $((n - 1))); do
        [ "$a" != "$b" ] && specs+=("--do=$a:DtoD:256M:peer=$b"); done; done
      timed do_all_pairs 120 "$x" run -q "${specs[@]}" -o "$out/do_all_pairs.json"
      grep -hE "^Aggregate|overlap|Sum of" "$out"/do_all_*.txt ;;
    check)
      timed check_builtin 200 "$x" check --summary -o "$out/check_builtin.json" --junit "$out/check_builtin.xml"
      timed check_spec 200 "$x" check --summary --spec "$here/../share/xferbench/check/h200.toml" -o "$out/check_spec.json"
      tail -1 "$out/check_builtin.txt" "$out/check_spec.txt" ;;
    dryrun)
      timed dryrun 60 "$x" run --suite full --dry-run
      timed dryrun_sampled 60 "$x" run --suite full --dry-run --sample-pairs "$n" --seed 1
      grep -iE "estimate|total" "$out/dryrun.txt" | tail -3
      [ -f "$out/full.json" ] && python3 -c "import json; print('measured full suite wall s:', json.load(open('$out/full.json'))['wall_seconds'])" ;;
    pingpong)
      timed pp_device 300 "${mpi[@]}" "$x" pingpong --all-pairs --transport device -n 4 --loop-count 2000 -o "$out/pp_device.json"
      timed pp_host 120 "${mpi[@]}" "$x" pingpong --all-pairs --dev1 host --dev2 host -n 4 --loop-count 2000 -o "$out/pp_host.json"
      tail -20 "$out/pp_device.txt" ;;
    *) echo "unknown stage '$stage' (nvb nvb:A-B catalogue shared check dryrun pingpong)" >&2 ;;
  esac
done
cat "$out/stages.txt"
