#!/usr/bin/env bash
# plot_check.sh [OPTIONS] COMMAND...
# Runs a plotting test command, or exits 77 (ctest SKIP_RETURN_CODE) when
# python3 or matplotlib is missing, so CI shows "skipped", not "passed".
#   --pytest            the command is a pytest run, so pytest is needed too;
#                       the other plot tests need only matplotlib
#   --expect-exit N     the command must exit with N instead of 0
#   --expect-output T   its stdout+stderr must contain T
#   --deep-json         an argument @DEEP@ becomes a file of JSON nested
#                       100000 lists deep (made here: too large to keep)
# A planted fake python3 (matplotlib is then not needed, python3 is):
#   --fake-python3 MODE  writes DIR/python3 into a new temporary DIR; MODE is
#                       marker (creates DIR/ran, writes "image" to the image
#                       pipe, descriptor 3, exits 0), exit:N,
#                       signal:NAME (ends itself by SIGNAME), or
#                       bad-interpreter (its #! names no program: exec fails)
#   --in-fake-dir       runs the command in DIR
#   --path P            runs it with PATH=P, @FAKE@ in P standing for DIR
#   --unset-path        runs it with no PATH at all
#   --expect-fake-ran yes|no  whether DIR/ran must exist afterwards
modules=(matplotlib)
want=0
needle=""
deep=0
fake=""
fake_cwd=0
path_mode=keep
path_value=""
ran_check=""
while [[ "${1:-}" == --* ]]; do
  case "$1" in
    --pytest) modules+=(pytest); shift ;;
    --expect-exit) want="$2"; shift 2 ;;
    --expect-output) needle="$2"; shift 2 ;;
    --deep-json) deep=1; shift ;;
    --fake-python3) fake="$2"; modules=(); shift 2 ;;
    --in-fake-dir) fake_cwd=1; shift ;;
    --path) path_mode=set; path_value="$2"; shift 2 ;;
    --unset-path) path_mode=unset; shift ;;
    --expect-fake-ran) ran_check="$2"; shift 2 ;;
    *) echo "plot_check.sh: unknown option $1"; exit 2 ;;
  esac
done
if ! command -v python3 >/dev/null; then echo "skipped: python3 not found on PATH"; exit 77; fi
# The interpreter itself, not a wrapper (a pyenv shim needs bash from PATH).
python=$(python3 -c "import sys; print(sys.executable)") || exit 1
for module in "${modules[@]}"; do
  if ! python3 -c "import $module" 2>/dev/null; then
    echo "skipped: $module is not installed for $python (pip install ./python pytest)"; exit 77
  fi
done

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT

# The fake's signals are sent by a real python3 that first restores the
# signal's default action: a shell started with SIGINT ignored (a background
# job) could neither reset nor receive it.
end_by_signal() {
  printf 'import os, resource, signal\nresource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n' >"$dir/end.py"
  printf 'signal.signal(signal.SIG%s, signal.SIG_DFL)\nos.kill(os.getpid(), signal.SIG%s)\nraise SystemExit(99)\n' \
    "$1" "$1" >>"$dir/end.py"
  printf '#!/bin/sh\nexec "%s" "%s"\n' "$python" "$dir/end.py"
}
if [[ -n "$fake" ]]; then
  case "$fake" in
    marker) printf '#!/bin/sh\n: >"%s"\nprintf image >&3\nexit 0\n' "$dir/ran" >"$dir/python3" ;;  # no PATH needed; "image" on the image pipe
    exit:*) printf '#!/bin/sh\nexit %d\n' "${fake#exit:}" >"$dir/python3" ;;
    signal:*) end_by_signal "${fake#signal:}" >"$dir/python3" ;;
    bad-interpreter) printf '#!%s/no-such-interpreter\n' "$dir" >"$dir/python3" ;;
    *) echo "plot_check.sh: unknown fake $fake"; exit 2 ;;
  esac
  chmod +x "$dir/python3"
fi
args=()
for a in "$@"; do
  if [[ "$a" == @DEEP@ ]]; then
    a="$dir/deep.json"
    python3 -c "import sys; n = 100000; sys.stdout.write('{\"schema\": \"xferbench-run\", \"schema_version\": 1, \"cases\": ' + '[' * n + ']' * n + '}')" >"$a" || exit 1
  fi
  args+=("$a")
done
(( deep == 0 )) || [[ -e "$dir/deep.json" ]] || { echo "plot_check.sh: --deep-json without @DEEP@"; exit 2; }

run() {
  if (( fake_cwd )); then cd "$dir" || exit 1; fi
  case "$path_mode" in
    set) PATH="${path_value//@FAKE@/$dir}" "$@" ;;
    unset) env -u PATH "$@" ;;
    *) "$@" ;;
  esac
}
out=$(run "${args[@]}" 2>&1); rc=$?
printf '%s\n' "$out"
if [[ $rc -ne $want ]]; then echo "FAIL: ${args[*]} exited $rc, want $want"; exit 1; fi
if [[ -n "$needle" && "$out" != *"$needle"* ]]; then echo "FAIL: the output does not contain: $needle"; exit 1; fi
if [[ "$ran_check" == yes && ! -e "$dir/ran" ]]; then echo "FAIL: the planted python3 did not run"; exit 1; fi
if [[ "$ran_check" == no && -e "$dir/ran" ]]; then echo "FAIL: the planted python3 in $dir ran"; exit 1; fi
exit 0
