#!/usr/bin/env bash
# End-to-end checks of concurrent transfers on the xferbench binary
# ('run --do', CUts flags in 'run', 'xferbench cuts'): every bad spec or flag
# gets one line quoting the offending text and exit code 2 before any GPU is
# touched, so these pass on a machine without a GPU. Checks that need a GPU
# (or its absence) run only where they apply.
set -u
bin="$1"
fails=0
checks=0
expect() {  # expect CODE NEEDLE -- ARGS...
  local code="$1" needle="$2"; shift 3
  local err rc
  checks=$((checks+1))
  err=$("$bin" "$@" 2>&1 >/dev/null); rc=$?
  if [[ $rc -ne $code || "$err" != *"$needle"* ]]; then
    echo "FAIL: xferbench $* -> exit $rc, stderr: $err (want exit $code and '$needle')"; fails=$((fails+1))
  elif [[ $code -eq 2 && $(printf '%s\n' "$err" | grep -c 'error:') -ne 1 ]]; then
    echo "FAIL: xferbench $* -> more than one error line: $err"; fails=$((fails+1))
  else
    echo "ok: xferbench $* -> $rc"
  fi
}
# Malformed --do specs, each part.
expect 2 "missing device" -- run --do=:HtoD
expect 2 "invalid device 'gpu0'" -- run --do=gpu0:HtoD
expect 2 "unknown direction 'HtoX'" -- run --do=0:HtoX
expect 2 "'12Q'" -- run --do=0:HtoD:12Q
expect 2 "size '0' is zero" -- run --do=0:HtoD:0
expect 2 "unknown memory option 'fast'" -- run --do=0:HtoD:fast
expect 2 "memory options 'mapped' and 'wc' exclude each other" -- run --do=0:HtoD:mapped,wc
expect 2 "empty field" -- run --do=0::HtoD
expect 2 "direction given twice" -- run --do=0:HtoD:DtoH
expect 2 "DtoD needs peer=N" -- run --do=0:DtoD
expect 2 "unknown engine 'gpu'" -- run --do=0:HtoD:engine=gpu
expect 2 "'engine=sm' cannot reach pageable" -- run --do=0:HtoD:pageable,engine=sm
expect 2 "invalid stream mode 'two'" -- run --do=0:HtoD --streams=two
# Conflicting options.
expect 2 "cannot be mixed" -- run --do=all:1024:both -t 0
expect 2 "cannot be mixed" -- run --htod=0 -p host
expect 2 "--do '0:HtoD' and CUts flags" -- run --do=0:HtoD --dtoh=0
expect 2 "carries its own size" -- run --do=0:HtoD -b 64
expect 2 "--size '1G' applies to CUts transfers" -- run --do=0:HtoD --size 1G
expect 2 "--streams 'per-device' applies to transfers" -- run -t 0 --streams=per-device
expect 2 "--iterations or --copies" -- run --htod=0 --iterations 5 --copies 2
# CUts flags, in run and in cuts.
expect 2 "invalid --htod 'x'" -- run --htod=x
expect 2 "invalid --dtod '1'" -- cuts --dtod=1
expect 2 "destination and source are the same GPU" -- cuts -p 0,0
expect 2 "invalid --size '0'" -- cuts --dtoh=0 -s 0
expect 2 "'many'" -- cuts --dtoh=0 -i many
expect 2 "no transfer given" -- cuts
if ! "$bin" cuts --help | grep -q -- "-p,--dtod"; then echo "FAIL: cuts --help"; fails=$((fails+1)); fi
if ! "$bin" run --help | grep -q "xferbench --list"; then echo "FAIL: run --help names 'xferbench --list'"; fails=$((fails+1)); fi
checks=$((checks+2))
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  # 'all' needs the device count, so it is checked after discovery: exit 3.
  expect 3 "transfer spec 'all:1024:both' needs a GPU" -- run --do=all:1024:both
  expect 3 "transfer spec '--dtoh=0' needs a GPU" -- cuts --dtoh=0
else
  n=$(nvidia-smi -L | grep -c '^GPU')
  expect 2 "device $n does not exist" -- run --do="$n":HtoD:1K
  expect 2 "does not exist" -- cuts --dtod="$n",0 -s 1K -i 1
fi
expect 7 "cannot write output file '/nonexistent-dir/s.json'" -- run --do=0:HtoD -o /nonexistent-dir/s.json
echo "$((checks - fails)) passed, $fails failed"
[[ $fails -eq 0 ]]
