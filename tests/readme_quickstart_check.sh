#!/usr/bin/env bash
# The README's Quick start parses to two commands, the second being the test
# command CI runs; a copy with a third command fails the extractor. The first
# command runs the binary where the build puts it (given: build dir, binary).
set -u
here="$(dirname "$0")"
readme="$1" build_dir="$2" binary="$3"
second=$("$here/readme_quickstart.sh" "$readme" 2) || { echo "FAIL: README quick start is not two commands"; exit 1; }
case "$second" in *ctest*) ;; *) echo "FAIL: the second quick-start command does not run the tests: $second"; exit 1 ;; esac
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
awk '{print} /^## Quick start/{print "\n    echo a third command\n"}' "$readme" > "$tmp"
if "$here/readme_quickstart.sh" "$tmp" 2 >/dev/null 2>&1; then echo "FAIL: a third quick-start command was not caught"; exit 1; fi
first=$("$here/readme_quickstart.sh" "$readme" 1)
ran=${first##* ./build/}              # the path the first command runs, below the dev preset's build/
built=${binary#"$build_dir"/}         # where this build put xferbench, below its build dir
[ "$ran" = "$built" ] || { echo "FAIL: the first quick-start command runs build/$ran, but the build makes <build>/$built"; exit 1; }
echo "ok: two quick-start commands; the second: $second"
