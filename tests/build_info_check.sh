#!/usr/bin/env bash
# build_info_check.sh version XFERBENCH SOURCE_DIR
#   xferbench --version (and under a seed name) names the version and the
#   commit; in a git checkout the commit is one of the repository's.
# build_info_check.sh script CMAKE BUILD_INFO_CMAKE TEMPLATE
#   src/base/build_info.cmake in scratch repositories: the hash follows new
#   commits, "-dirty" follows edits to tracked files, the file is rewritten
#   only when its text changes, and outside a checkout it says "unknown".
fail() { echo "FAIL: $*"; exit 1; }

check_version() {
  local xferbench=$1 source_dir=$2 out commit
  out=$("$xferbench" --version) || fail "xferbench --version exited $?"
  printf '%s\n' "$out"
  [[ "$out" =~ ^xferbench\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]{12}(-dirty)?|unknown)\): ]] ||
    fail "the first line does not read 'xferbench X.Y.Z (commit HASH[-dirty]|unknown): ...'"
  commit=${BASH_REMATCH[1]}
  if command -v git >/dev/null && [[ "$(git -C "$source_dir" rev-parse --show-toplevel 2>/dev/null)" -ef "$source_dir" ]]; then
    [[ "$commit" != unknown ]] || fail "built in a git checkout, yet the commit is unknown"
    git -C "$source_dir" cat-file -e "${commit%-dirty}^{commit}" || fail "${commit%-dirty} is no commit of $source_dir"
  fi
  dir=$(mktemp -d) || exit 1
  trap 'rm -rf "$dir"' EXIT
  ln -s "$xferbench" "$dir/nvbandwidth"
  out=$("$dir/nvbandwidth" --version) || fail "nvbandwidth --version exited $?"
  printf '%s\n' "$out"
  [[ "$out" == *"(commit $commit)"* ]] || fail "nvbandwidth --version does not name commit $commit"
}

# Runs the script on SOURCE_DIR into $out and checks the generated text.
generate() {
  "$cmake" -DSOURCE_DIR="$1" -DGIT="$2" -DTEMPLATE="$template" -DOUTPUT="$out" -P "$script" ||
    fail "the script failed on $1"
}
expect() {  # COMMIT DIRTY
  grep -qF "build_commit() noexcept { return \"$1\"; }" "$out" || { cat "$out"; fail "want commit $1"; }
  grep -qF "build_git_dirty() noexcept { return $2; }" "$out" || { cat "$out"; fail "want dirty $2"; }
}

check_script() {
  cmake=$1 script=$2 template=$3
  command -v git >/dev/null || { echo "skipped: git not found"; exit 77; }
  local repo git hash
  dir=$(mktemp -d) || exit 1
  trap 'rm -rf "$dir"' EXIT
  repo=$dir/repo out=$dir/build_info.cpp
  git=(git -C "$repo" -c user.name=xferbench-test -c user.email=test@invalid -c commit.gpgsign=false)
  git init -q "$repo" && mkdir "$repo/sub" && echo one >"$repo/sub/file" && "${git[@]}" add -A &&
    "${git[@]}" commit -qm one || fail "cannot make a scratch repository"
  hash=$("${git[@]}" rev-parse --short=12 HEAD)
  generate "$repo" git && expect "$hash" false
  touch -d @0 "$out"
  generate "$repo" git && expect "$hash" false
  [[ $(stat -c %Y "$out") == 0 ]] || fail "the file was rewritten although the commit is the same"
  echo untracked >"$repo/new" && generate "$repo" git && expect "$hash" false
  echo two >"$repo/sub/file" && generate "$repo" git && expect "$hash-dirty" true
  "${git[@]}" commit -qam two || fail "cannot commit"
  hash=$("${git[@]}" rev-parse --short=12 HEAD)
  generate "$repo" git && expect "$hash" false
  generate "$repo/sub" git && expect unknown false  # sources inside another project's checkout
  generate "$repo" "" && expect unknown false       # no git
  mkdir "$dir/plain" && generate "$dir/plain" git && expect unknown false
  echo "PASS"
}

case "${1:-}" in
  version) check_version "$2" "$3" ;;
  script) check_script "$2" "$3" "$4" ;;
  *) echo "usage: build_info_check.sh version XFERBENCH SOURCE_DIR | script CMAKE SCRIPT TEMPLATE"; exit 2 ;;
esac
