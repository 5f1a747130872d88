#!/usr/bin/env bash
# End-to-end checks of the binary run under the seed tools' names (links in
# a temporary directory): what each name accepts and refuses before any GPU
# is touched, nvbandwidth's own error and list lines, --version. Checks
# that need a GPU, or its absence, run only where they apply.
set -u
bin=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for name in xferbench nvbandwidth bwtest cuts gpudirect_p2p_overalloc; do ln -s "$bin" "$dir/$name"; done
fails=0 passes=0
# check NAME CODE STREAM NEEDLE -- ARGS...: exit CODE and NEEDLE in stdout or stderr.
check() {
  local name="$1" code="$2" stream="$3" needle="$4"; shift 5
  local out err rc
  out=$("$dir/$name" "$@" 2>"$dir/err"); rc=$?
  err=$(cat "$dir/err")
  local text="$out"; [[ "$stream" == err ]] && text="$err"
  if [[ $rc -ne $code || "$text" != *"$needle"* ]]; then
    echo "FAIL: $name $* -> exit $rc; stdout: ${out:0:300}; stderr: ${err:0:300} (want exit $code and '$needle' on $stream)"
    fails=$((fails+1))
  else
    echo "ok: $name $* -> $rc"; passes=$((passes+1))
  fi
}
check nvbandwidth 0 out "--bufferSize" -- --help
check nvbandwidth 0 out "Run as nvbandwidth" -- --version
check nvbandwidth 2 out "ERROR: Testcase nosuch not found!" -- -t nosuch
check nvbandwidth 2 out "ERROR: Testcase index 99 out of bound!" -- -t 99
check nvbandwidth 2 out '"status": "Not Found"' -- -j -t nosuch
check nvbandwidth 2 err "nvbandwidth (xferbench): error:" -- --bogus
check nvbandwidth 2 err "'0'" -- -b 0
check nvbandwidth 2 err "invalid -b/--bufferSize '': the value is empty" -- -b ''
check nvbandwidth 2 err "invalid -p/--testcasePrefixes '': the value is empty" -- -p ''
# -H and -P are taken (v0.9): the run gets as far as its case list.
check nvbandwidth 2 out "ERROR: Testcase nosuch not found!" -- -H -P 4 -t nosuch
check nvbandwidth 2 err "-P/--targetNumPairs '0'" -- -H -P 0
check bwtest 0 out "--do" -- --help
check bwtest 2 err "sideways" -- --do=0:sideways
check bwtest 2 err "no transfer given (use --do=SPEC, e.g." --
check bwtest 2 err "invalid --streams ''" -- --do=0:HtoD --streams ''
check cuts 0 out "Run as cuts" -- --version
check cuts 2 err "zero" -- --dtoh=zero
check cuts 2 err "no transfer given (use -h/--htod ID" --
check gpudirect_p2p_overalloc 0 out "Run as gpudirect_p2p_overalloc" -- --version
check gpudirect_p2p_overalloc 2 err "ITERATIONS" -- 0 3 1K 1G 1
check xferbench 0 out "xferbench 0." -- --version
# --list: the 35 cases a default run runs, "N, name:" lines, nothing on stderr (superbench checks both).
list=$("$dir/nvbandwidth" --list 2>"$dir/err"); rc=$?
if [[ $rc -ne 0 || -s "$dir/err" || $(grep -cE '^[0-9]+, [a-z_]+:$' <<<"$list") -ne 35 ]]; then
  echo "FAIL: nvbandwidth --list -> exit $rc, $(grep -cE '^[0-9]+, [a-z_]+:$' <<<"$list") cases, stderr: $(cat "$dir/err")"
  fails=$((fails+1))
else
  echo "ok: nvbandwidth --list -> 35 cases"; passes=$((passes+1))
fi
# The overalloc reproducer's own lines and nothing else (host buffers: no GPU needed).
if command -v mpirun >/dev/null; then
  seed=$(timeout 60 mpirun --allow-run-as-root --oversubscribe -np 2 "$dir/gpudirect_p2p_overalloc" --memory host 2 3 1024 1048576 1 2>&1); rc=$?
  # Open MPI's hwloc warns on machines without a sysfs CPU topology
  # (containers, chroots); that is the MPI library's line, not ours.
  seed=$(grep -v '^\[hwloc/' <<<"$seed")
  if [[ $rc -ne 0 || "$seed" != *"[1:2] time: "* || "$seed" != "p2p_size: 1024"* || $(grep -c '^#' <<<"$seed") -ne 0 ]]; then
    echo "FAIL: mpirun -np 2 gpudirect_p2p_overalloc --memory host 2 3 1024 1048576 1 -> exit $rc: ${seed:0:400}"
    fails=$((fails+1))
  else
    echo "ok: gpudirect_p2p_overalloc under mpirun prints the seed's lines only"; passes=$((passes+1))
  fi
fi
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  check nvbandwidth 3 err "GPU found" -- -t 0
  check bwtest 3 err "GPU found" -- --do=0:HtoD
  check bwtest 3 err "GPU found" -- --list
fi
echo "$passes passed, $fails failed"
[[ $fails -eq 0 ]]
