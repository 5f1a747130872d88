#!/usr/bin/env bash
# systemd_units.sh BUILD_DIR
# The service and timer `cmake --install` puts in lib/systemd/system
# (docs/prometheus.md): systemd-analyze verify accepts both, the service
# runs the installed binary, and its ExecStart, run as systemd would run it
# (its Environment= values, ${VAR} as one word, $VAR split) on a machine
# without a usable GPU, exits with a code the unit counts as success and
# leaves a metrics file that says the node could not be measured. The
# timer is what enables it, and nothing here enables it. Skips (77) without
# systemd-analyze.
set -u
build=$1
command -v systemd-analyze >/dev/null || { echo "SKIPPED: systemd-analyze not found (Debian: systemd)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/usr" >"$tmp/install.log" 2>&1 || { tail "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
units=$tmp/usr/lib/systemd/system
service=$units/xferbench-check.service timer=$units/xferbench-check.timer
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
[ -f "$service" ] && [ -f "$timer" ] || { echo "FAIL: no service or timer in $units: $(ls "$units" 2>&1)"; exit 1; }
out=$(systemd-analyze verify --man=no "$service" "$timer" 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify said: $out"
grep -qx "WantedBy=timers.target" "$timer" || fail "the timer is not wanted by timers.target once enabled"
grep -q "^\[Install\]" "$service" && fail "the service has an [Install] section: the timer alone should start it"
exec_start=$(sed -n 's/^ExecStart=//p' "$service")
[[ "$exec_start" == "$tmp/usr/bin/xferbench check "* ]] || fail "ExecStart does not run the installed binary: $exec_start"
# The unit's environment, then systemd's expansion of the command line.
declare -A env
while IFS= read -r line; do
  line=${line#Environment=}; line=${line#\"}; line=${line%\"}
  env[${line%%=*}]=${line#*=}
done < <(grep '^Environment=' "$service")
[ "${env[XFERBENCH_METRICS]:-}" = /var/lib/prometheus/node-exporter/xferbench.prom ] ||
  fail "XFERBENCH_METRICS is not Debian's node-exporter textfile directory: ${env[XFERBENCH_METRICS]:-}"
env[XFERBENCH_METRICS]=$tmp/xferbench.prom   # /etc/default/xferbench-check's override
argv=()
for word in $exec_start; do
  case "$word" in
    '${'*'}') name=${word#\$\{}; argv+=("${env[${name%\}}]}") ;;
    '$'*) read -r -a split <<<"${env[${word#\$}]}"; argv+=("${split[@]}") ;;
    *) argv+=("$word") ;;
  esac
done
echo "ExecStart as systemd runs it: ${argv[*]}"
CUDA_VISIBLE_DEVICES= "${argv[@]}" >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
ok_codes=" 0 $(sed -n 's/^SuccessExitStatus=//p' "$service") "
[[ "$ok_codes" == *" $rc "* ]] || fail "the check exited $rc, which fails the unit (SuccessExitStatus:$ok_codes): $(cat "$tmp/stderr")"
grep -q '^xferbench_up{Hostname="[^"]*",reason="no_device"} 0$' "$tmp/xferbench.prom" 2>/dev/null ||
  fail "the metrics file does not say the node could not be measured: $(cat "$tmp/xferbench.prom" 2>&1 | head -5)"
[ $fails -eq 0 ] && echo "ok: service and timer verify; the service's check exits $rc (a success for the unit) and writes xferbench_up 0 without a GPU"
[ $fails -eq 0 ]
