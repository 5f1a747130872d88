#!/usr/bin/env bash
# Runs every example command of the multi-gpu-bwtest and CUts READMEs
# (../shared/seeds/) with xferbench, unchanged apart from the program name,
# plus an all-GPU both-direction scenario and a CUts mixed scenario.
#
# usage: bench/suites/concurrent_examples.sh BIN OUTDIR
#
# A device id the machine lacks is replaced by the highest one (and the
# script says so); flags naming absent GPUs are dropped from the 8-GPU CUts
# mix. OUTDIR gets three files: examples.txt (every command, its text output
# and stderr), examples.tar.gz (per example: text, JSON via -o, stderr) and
# summary.txt (one row per example), which is also printed last.
set -u
if [[ $# -ne 2 ]]; then echo "usage: $0 BIN OUTDIR" >&2; exit 2; fi
bin=$(realpath "$1")
outdir=$2
mkdir -p "$outdir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  n=$(nvidia-smi -L | grep -c '^GPU')
else
  n=$("$bin" list --format json 2>/dev/null | grep -c '"pci_bus_id"')
fi
last=$((n > 0 ? n - 1 : 0))
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname): $n GPU(s)"
[[ $n -ge 1 ]] || { echo "no GPU: nothing to run" >&2; exit 3; }

names=() cmds=()
add() { names+=("$1"); shift; cmds+=("$*"); }

# multi-gpu-bwtest README
add bwtest_list list
add bwtest_all_1024_both run --do=all:1024:both
dev2=2
if [[ $n -le 2 ]]; then
  dev2=$last
  echo "note: bwtest example 2 names device 2; this machine has $n GPU(s), so device $dev2 is used instead"
fi
add bwtest_mapped_dtoh_and_htod run --do=0:DtoH:$((64 * 1024 * 102)):mapped --do=$dev2:1024:HtoD

# CUts README
if [[ $n -ge 2 ]]; then
  add cuts_dtod_both_ways cuts --dtod=1,0 --dtod=0,1
fi
add cuts_dtoh_0 cuts --dtoh=0
add cuts_dtoh_htod_0 cuts --dtoh=0 --htod=0
[[ $n -ge 2 ]] && add cuts_dtoh_0_1 cuts --dtoh=0 --dtoh=1
mix=()
for flag in --dtoh=0 --htod=1 --dtoh=2 --htod=3 --dtoh=4 --htod=5 --dtod=6,7; do
  ok=1
  for id in $(echo "${flag#*=}" | tr ',' ' '); do [[ $id -lt $n ]] || ok=0; done
  if [[ $ok -eq 1 ]]; then mix+=("$flag"); else dropped+="$flag "; fi
done
[[ -n "${dropped:-}" ]] && echo "note: CUts 8-GPU mix restricted to the GPUs present; dropped: $dropped"
add cuts_8gpu_mix_restricted cuts "${mix[@]}"

# Beyond the READMEs: every GPU both ways at once, and a CUts mix of all kinds.
add all_gpus_both_256M run --do=all:256M:both
if [[ $n -ge 2 ]]; then
  add cuts_mixed cuts --dtoh=0 --htod=1 --dtod=1,0 --dtod=0,1
else
  add cuts_mixed cuts --dtoh=0 --htod=0
fi

rcs=() walls=()
for i in "${!names[@]}"; do
  base=$(printf '%02d_%s' "$i" "${names[$i]}")
  read -r -a args <<<"${cmds[$i]}"
  echo "== xferbench ${cmds[$i]}"
  t0=$(date +%s.%N)
  "$bin" "${args[@]}" -o "$work/$base.json" >"$work/$base.txt" 2>"$work/$base.err"
  rc=$?
  t1=$(date +%s.%N)
  rcs+=("$rc")
  walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')")
  {
    echo "===== $base: xferbench ${cmds[$i]}  (exit $rc)"
    cat "$work/$base.txt"
    [[ -s "$work/$base.err" ]] && { echo "----- stderr"; cat "$work/$base.err"; }
    echo
  } >>"$work/examples.txt"
done

summary() {
  printf '%-30s %4s %7s %5s %12s %12s %10s %8s  %s\n' example exit wall_s xfers aggregate_GBps sum_GBps span_ms overlap% command
  for i in "${!names[@]}"; do
    base=$(printf '%02d_%s' "$i" "${names[$i]}")
    figures="- - - - -"
    if [[ -s "$work/$base.json" ]] && command -v python3 >/dev/null; then
      figures=$(python3 - "$work/$base.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j.get("scenario")
if not s:
    print("- - - - -")
else:
    print(len(j["transfers"]), "%.2f" % s["aggregate_bandwidth_gbps"], "%.2f" % s["sum_of_transfer_bandwidths_gbps"],
          "%.3f" % (s["span_s"] * 1e3), "%.1f" % (s["overlap_fraction"] * 100))
PY
)
    fi
    read -r xfers agg sum span ovl <<<"$figures"
    printf '%-30s %4s %7.2f %5s %12s %12s %10s %8s  xferbench %s\n' "${names[$i]}" "${rcs[$i]}" "${walls[$i]}" \
      "$xfers" "$agg" "$sum" "$span" "$ovl" "${cmds[$i]}"
  done
}
summary >"$work/summary.txt"
cp "$work/examples.txt" "$work/summary.txt" "$outdir/"
tar -czf "$outdir/examples.tar.gz" -C "$work" --exclude examples.txt --exclude summary.txt .
echo
cat "$outdir/summary.txt"
