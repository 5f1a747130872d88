#!/usr/bin/env bash
# bash_completion.sh XFERBENCH COMPLETION_FILE
# The bash completion the build made (COMPLETION_FILE, installed by the
# package) is what `xferbench --bash-completion` prints, and it completes,
# run in bash as the shell runs it on TAB: every command `xferbench --help`
# lists (so a command added to the command table is completed without
# touching this test or a script), every option of every command's --help,
# the choices of --format and --metrics-detail, and file names for a file
# option and for positional arguments.
set -u
bin=$1 file=$2
fails=0 checks=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
[ -f "$file" ] || { echo "FAIL: no completion file $file (the xferbench_completion target makes it)"; exit 1; }
cmp -s "$file" <("$bin" --bash-completion) || fail "$file differs from 'xferbench --bash-completion'"
# shellcheck disable=SC1090
. "$file"
complete -p xferbench >/dev/null 2>&1 || { echo "FAIL: the file does not register a completion for xferbench"; exit 1; }

# completions LINE: what TAB offers after LINE (words split as bash splits
# them; a trailing space starts a new, empty word).
completions() {
  local line=$1
  read -r -a COMP_WORDS <<<"$line"
  [[ "$line" == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE=$line COMP_POINT=${#line}
  COMPREPLY=()
  _xferbench xferbench "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
  printf '%s\n' "${COMPREPLY[@]}"
}
# offers LINE WORD...: TAB after LINE offers each WORD.
offers() {
  local line=$1 got w; shift
  got=$(completions "$line")
  for w in "$@"; do
    checks=$((checks+1))
    grep -qxF -- "$w" <<<"$got" || fail "'$line<TAB>' does not offer '$w' (offers: $(echo $got | head -c 300))"
  done
}

# Every command of --help, from its first letters and from nothing.
commands=$("$bin" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ "$(echo "$commands" | wc -w)" -ge 9 ] || fail "too few commands in xferbench --help: $commands"
for c in $commands; do
  offers "xferbench ${c:0:2}" "$c"
  offers "xferbench " "$c"
  # Every option its --help lists, long and short.
  opts=$("$bin" "$c" --help | awk '/^Options:/ { on = 1; next } on && /^  -/ { print } /^[A-Z]/ && !/^Options:/ { on = 0 }' |
         grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9_-]*' | tr -d ' ,' | grep -v '^-h$\|^--help$' | sort -u)
  [ -n "$opts" ] || fail "no options read from xferbench $c --help"
  for o in $opts; do offers "xferbench $c -" "$o"; done
done
offers "xferbench --" --version --quiet --bash-completion
offers "xferbench check --sp" --spec
offers "xferbench run --format " text json csv nvbandwidth nvbandwidth-json prometheus
offers "xferbench check --format " text json prometheus
offers "xferbench check --metrics-detail " summary cells
# File names: after a file option, and for positional arguments.
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
touch "$dir/spec.toml" "$dir/old.json" "$dir/new.json"
offers "xferbench check --spec $dir/sp" "$dir/spec.toml"
offers "xferbench compare $dir/o" "$dir/old.json"
offers "xferbench plot $dir/n" "$dir/new.json"
checks=$((checks+1))
[ -z "$(completions "xferbench check --format x")" ] || fail "--format x offers something"
echo "$((checks - fails)) of $checks completions as expected ($(echo $commands | wc -w) commands)"
[ $fails -eq 0 ]
