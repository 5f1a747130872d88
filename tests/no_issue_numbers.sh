#!/usr/bin/env bash
# No file of the tree cites this project's issue tracker by number (the
# word issue followed by a number, or "see #" and a number): a number means nothing to
# whoever reads the file without the tracker, so a file says the feature or
# the reason instead. An upstream project's issue named with its repository
# (NVIDIA/nccl-tests#376, a github.com/.../issues/23 address) is fine, and
# so is a bare "#3" (the cell numbers of XFERBENCH_FAULT, "&#10;").
# usage: tests/no_issue_numbers.sh SOURCE_DIR
set -u
export LC_ALL=C  # byte matching: fast on the large recorded JSON files
src="${1:?usage: $0 SOURCE_DIR}"
# "issue" or "issues", then spaces, a dash or '#', then a number; not after
# a letter, digit, '/', '.', '_' or '-' (so ".../issues/23" and a name such
# as "tissue 3" pass). Or "see/fixes/closes/PR #N".
pattern='(^|[^a-z0-9_/.-])issues?[ -]*#?[0-9]+|(^|[^a-z0-9_/.-])(see|fixes|closes|fixed|pr|pull request) #[0-9]+'
cites() { grep -qiE "$pattern"; }

# The pattern's own check, on text made up here (split so that this file
# does not cite anything itself).
fail=0
for s in "(iss""ue 30)" "iss""ues 30, 46" "Iss""ue-28 probes" "iss""ue #12" "see #""12" "branch iss""ue28"; do
  printf '%s\n' "$s" | cites || { echo "self-test: the pattern misses '$s'"; fail=1; }
done
for s in "NVIDIA/nccl-tests#""376" "nccl-tests#""376" "https://github.com/NVIDIA/nvbandwidth/iss""ues/23" \
  "#3:signal_int" "&#10;" "tiss""ue 3" "an iss""ue found by the audit"; do
  if printf '%s\n' "$s" | cites; then echo "self-test: the pattern flags '$s'"; fail=1; fi
done
[ "$fail" = 0 ] || exit 1

cd "$src" || exit 2
# Plain files only: a link may lead to a directory or to /dev/stdout
# (tests/data/bad_inputs/stdout.png), which grep would wait on.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files() { git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -f "$f" ] && [ ! -L "$f" ] && printf '%s\0' "$f"; done; }
else
  files() { find . \( -name .git -o -name 'build*' \) -prune -o -type f -print0; }
fi
hits=$(files | xargs -0 grep -nIiE "$pattern" -- 2>/dev/null)
if [ -n "$hits" ]; then
  echo "These lines cite an issue number; say the feature or reason instead:"
  echo "$hits"
  exit 1
fi
echo "no issue numbers in $(files | tr -cd '\0' | wc -c) files"
