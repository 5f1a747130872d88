#!/usr/bin/env bash
# readme_cases.sh XFERBENCH SRC
# README.md and docs/design.md name the range of xferbench's own cases
# ("cases of its own (35-50, ..." and "all of 35-50 are `[xferbench]`");
# `xferbench cases` must list exactly that range as [xferbench], and
# nvbandwidth's 0-34 before it.
set -u
bin=$1 src=$2
fails=0
own=$("$bin" cases | awk '/\[xferbench\]$/ { print $1 }')
first=$(echo "$own" | head -1) last=$(echo "$own" | tail -1)
[ "$(echo "$own" | wc -l)" -eq $((last - first + 1)) ] || { echo "FAIL: [xferbench] cases are not one range: $own"; fails=1; }
[ "$first" = 35 ] || { echo "FAIL: xferbench's own cases start at $first, not 35"; fails=1; }
[ "$("$bin" cases | awk '$1 ~ /^[0-9]+$/ && $1 < 35 && /\[xferbench\]$/' | wc -l)" -eq 0 ] ||
  { echo "FAIL: a case below 35 is marked [xferbench]"; fails=1; }
readme=$(grep -o 'cases of\s*$\|its own (35-[0-9]*' "$src/README.md" | grep -o '35-[0-9]*' | head -1)
design=$(grep -o 'all of 35-[0-9]* are' "$src/docs/design.md" | grep -o '35-[0-9]*')
for named in "README.md:$readme" "docs/design.md:$design"; do
  if [ "${named#*:}" != "35-$last" ]; then
    echo "FAIL: ${named%%:*} names xferbench's own cases as '${named#*:}', xferbench cases lists 35-$last"; fails=1
  fi
done
[ $fails -eq 0 ] && echo "ok: README.md, docs/design.md and xferbench cases agree: xferbench's own cases are 35-$last"
[ $fails -eq 0 ]
