#!/usr/bin/env bash
# prometheus_check.sh XFERBENCH DIR SRC
#   runs prometheus_check.py: the files in DIR through promtool and
#   prometheus_client, and the real binary writing one;
# prometheus_check.sh --alerts XFERBENCH SRC WORKDIR
#   runs prometheus_alerts.py: the shipped alerting rules under promtool's
#   rule tests, on every recorded run and on a check that cannot measure.
# Exits 77 (ctest SKIP_RETURN_CODE) naming what is missing, so CI shows
# "skipped". Debian's python3-prometheus-client serves /usr/bin/python3,
# which PATH's python3 (a pyenv shim, a venv) may not be: the first that
# imports it runs.
if ! command -v promtool >/dev/null; then
  echo "skipped: promtool not found on PATH (Debian: apt-get install prometheus)"; exit 77
fi
if [[ "${1:-}" == --alerts ]]; then
  shift
  command -v python3 >/dev/null || { echo "skipped: python3 not found on PATH"; exit 77; }
  exec python3 "$(dirname "$0")/prometheus_alerts.py" "$@"
fi
python=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c "import prometheus_client" 2>/dev/null; then
    python=$candidate; break
  fi
done
if [[ -z "$python" ]]; then
  echo "skipped: no python3 imports prometheus_client (Debian: apt-get install python3-prometheus-client)"; exit 77
fi
exec "$python" "$(dirname "$0")/prometheus_check.py" "$@"
