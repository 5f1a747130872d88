#!/usr/bin/env bash
# Prints command N (1 or 2) of README.md's "## Quick start" section: its
# indented code lines. Fails unless the section holds exactly two commands,
# so the quick start stays two commands that CI runs (.ci/run uses N = 2).
# usage: readme_quickstart.sh README.md N
set -euo pipefail
readme="$1" n="$2"
mapfile -t cmds < <(awk '/^## /{on = ($0 == "## Quick start")} on && /^    [^ ]/{sub(/^    /, ""); print}' "$readme")
if [ "${#cmds[@]}" -ne 2 ]; then
  echo "readme_quickstart: $readme's Quick start has ${#cmds[@]} commands; it must have exactly 2" >&2
  printf '  %s\n' "${cmds[@]}" >&2
  exit 1
fi
echo "${cmds[$((n - 1))]}"
