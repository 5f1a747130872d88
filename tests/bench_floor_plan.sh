#!/usr/bin/env bash
# bench/README.md is bench/'s floor plan; this holds it to the folders:
#   - every suite (bench/suites/*.sh), probe, program, tool (bench/*.py) and
#     entry of bench/results/ is named in bench/README.md;
#   - every name the README gives a results entry (a 20YY-MM-DD-... word)
#     is, or begins, a real entry;
#   - bench/ holds nothing but README.md, the tools and the four folders;
#   - every suite parses (bash -n) and has a `usage: bench/suites/NAME.sh`
#     line of its own name in its header (common.sh, sourced, excepted);
#   - no suite assumes a remote-run harness ($OUT, .devbuild, "device tool").
# usage: tests/bench_floor_plan.sh SOURCE_DIR
set -u
cd "${1:?usage: $0 SOURCE_DIR}/bench" || exit 2
fail=0
bad() { echo "bench floor plan: $*"; fail=1; }
readme=README.md
[ -f "$readme" ] || { echo "bench floor plan: no bench/README.md"; exit 1; }

for f in suites/*.sh probes/* programs/* *.py; do
  [ -e "$f" ] || continue
  grep -qF "\`$(basename "$f")\`" "$readme" || bad "bench/$f has no row in bench/README.md"
done
for f in results/*; do
  name=$(basename "$f")
  stem=${name%.json}; stem=${stem%.txt}; stem=${stem%.md}
  # A file entry may be named as part of a brace list (full-run{1,2,3}.json).
  grep -qF "$name" "$readme" || grep -qF "${stem%[0-9]}{" "$readme" || bad "bench/results/$name is not named in bench/README.md"
done
for word in $(grep -oE '20[0-9]{2}-[0-9]{2}-[0-9]{2}-[A-Za-z0-9._-]*[A-Za-z0-9]' "$readme" | sort -u); do
  compgen -G "results/$word*" >/dev/null || bad "bench/README.md names results '$word', which bench/results/ lacks"
done
for f in *; do
  case "$f" in README.md | suites | probes | programs | results | *.py) ;; *) bad "bench/$f: bench/ holds only README.md, *.py, suites/, probes/, programs/ and results/" ;; esac
done
for f in suites/*.sh; do
  name=$(basename "$f")
  bash -n "$f" 2>/dev/null || bad "bench/$f does not parse (bash -n)"
  [ "$name" = common.sh ] && continue
  head -40 "$f" | grep -qiE "usage: (\[[^]]*\] )?bench/suites/$name( |$)" || bad "bench/$f has no 'usage: bench/suites/$name ...' line in its header"
  grep -nE '\$OUT\b|\.devbuild|device tool' "$f" | sed "s|^|bench floor plan: bench/$f assumes a remote-run harness: |" | grep . && fail=1
done
[ "$fail" = 0 ] && echo "bench floor plan: $(ls suites/*.sh | wc -l) suites, $(ls probes | wc -l) probes, $(ls programs | wc -l) programs, $(ls results | wc -l) results entries, all in bench/README.md"
exit "$fail"
