#!/usr/bin/env bash
# The Debian package, installed as a user would install it: cpack -G DEB from
# this build into a temporary folder, checked by lintian (no error), its
# Installed-Size against its files, its Depends against the libraries the
# binary loads; a fresh Debian 12 minbase root made by debootstrap, where a
# plain `apt-get install ./xferbench_*.deb` with Recommends is simulated (no
# compiler, no -dev package), then installed (dependencies from the mirror),
# then the installed commands, files, links, systemd units (off), bash
# completion and alerting rules. The root is unmounted and deleted on every
# way out.
#
#   deb_install.sh BUILD_DIR SOURCE_DIR
#
# Nothing is built: run it after the build, as every test.
# Needs root, debootstrap, dpkg-dev (dpkg-shlibdeps), lintian, help2man at
# configure time (the man page) and network to the Debian mirror ($XFERBENCH_DEB_MIRROR,
# default http://deb.debian.org/debian); skips (exit 77) naming what is
# missing. Recommends (matplotlib) are left out to keep the root small;
# python3 is installed so that 'xferbench plot' shows it finds the installed
# xferbench_plot package. Prints the time of each step.
set -u
build="$1" src="$2"
mirror=${XFERBENCH_DEB_MIRROR:-http://deb.debian.org/debian}
skip() { echo "SKIPPED: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root (debootstrap and chroot need root)"
for tool in debootstrap:debootstrap dpkg-shlibdeps:dpkg-dev cpack:cmake lintian:lintian; do
  command -v "${tool%%:*}" >/dev/null || skip "${tool%%:*} is missing (apt-get install ${tool#*:})"
done
[ -f "$build/man/man1/xferbench.1.gz" ] ||
  skip "this build has no man page: help2man was missing when it was configured (scripts/setup installs it)"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
test_start=$(now)
work=$(mktemp -d "${TMPDIR:-/var/tmp}/xferbench-deb.XXXXXX") || exit 1
root="$work/root"
cleanup() {
  # /proc, whatever a stopped debootstrap left mounted and the tmpfs, deepest first.
  local m t=$(now)
  for m in $(awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m"
  done
  # --one-file-system: never descend into a mount that is still there.
  rm -rf --one-file-system "$work"
  echo "cleanup (unmount, delete the root): $(since "$t") s; whole test: $(since "$test_start") s"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {  # fail MESSAGE [LOG]
  echo "FAIL: $1"
  [ -n "${2:-}" ] && tail -n 30 "$2"
  exit 1
}

# --- the package -------------------------------------------------------------
t=$(now)
# The build's own CPack configuration, over what `cmake --install --strip`
# stages from this build: plain `cpack` would first build the `preinstall`
# target, i.e. everything, and a commit since the last build (the binaries
# carry its hash) would relink them under the tests running beside this one.
# Staged under DESTDIR with the package's prefix, so files that name their
# installed path (the systemd service) name /usr.
{ DESTDIR="$work/stage" timeout 300 cmake --install "$build" --prefix /usr --strip &&
  timeout 300 cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" \
    -D CPACK_INSTALL_CMAKE_PROJECTS= "-D CPACK_INSTALLED_DIRECTORIES=$work/stage;."
} > "$work/cpack.log" 2>&1 || fail "cmake --install or cpack -G DEB failed" "$work/cpack.log"
debs=("$work"/pkg/xferbench_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "cpack made ${#debs[@]} packages, not one xferbench_*.deb: ${debs[*]}"
deb=${debs[0]}
version=$(dpkg-deb -f "$deb" Version)
depends=$(dpkg-deb -f "$deb" Depends)
echo "cpack: $(basename "$deb") in $(since "$t") s; Depends: $depends"
# dpkg-shlibdeps ran, and nothing of CUDA is a package dependency: the CUDA
# runtime is linked in, the driver's libraries are the host's.
[[ "$depends" == *libc6* ]] || fail "Depends has no libc6: dpkg-shlibdeps did not run"
[[ "$depends" != *cuda* && "$depends" != *nvidia* ]] || fail "Depends names a CUDA or NVIDIA package: $depends"

lint_fails=0
pkg_check() {  # pkg_check DESCRIPTION OK [DETAIL]: one line, counted
  if [ "$2" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1${3:+: $3}"; lint_fails=$((lint_fails+1)); fi
}
# lintian: no error (warnings and notes are printed).
lintian --allow-root "$deb" > "$work/lintian.log" 2>&1
sed 's/^/  lintian: /' "$work/lintian.log"
! grep -q '^E:' "$work/lintian.log"; pkg_check "lintian reports no error" $? "$(grep '^E:' "$work/lintian.log" | head -5)"
# Installed-Size (KiB) within 10% of the files' size: a link counts as a link.
installed=$(dpkg-deb -f "$deb" Installed-Size)
files_kib=$(dpkg-deb -c "$deb" | awk '$1 ~ /^-/ { b += $3 } END { printf "%d", b / 1024 }')
awk -v i="$installed" -v f="$files_kib" 'BEGIN { exit !(i >= 0.9 * f && i <= 1.1 * f) }'
pkg_check "Installed-Size $installed KiB for $files_kib KiB of files" $?
# Depends: the packages of the libraries the binary loads (NEEDED), no more.
dpkg-deb -x "$deb" "$work/data"
needed=$(objdump -p "$work/data/usr/bin/xferbench" | awk '$1 == "NEEDED" { print $2 }')
# The owners of the libraries in this architecture's directory (/lib64's loader is also libc6-i386's).
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
want=$(for lib in $needed; do dpkg -S "*/$multiarch/$lib" 2>/dev/null | head -1 | cut -d: -f1; done | sort -u | tr '\n' ' ')
got=$(echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//' | sort -u | tr '\n' ' ')
[ "$want" = "$got" ]; pkg_check "Depends names the packages of the libraries the binary loads ($got)" $? "NEEDED $needed -> $want"
recommends=$(dpkg-deb -f "$deb" Recommends)
[ "$recommends" = "python3-munkres, python3-matplotlib" ]
pkg_check "Recommends: $recommends (matplotlib, and munkres so that apt takes no scipy: cmake/Packaging.cmake)" $?
# Off until enabled: no maintainer script could enable the timer.
! dpkg-deb -I "$deb" | grep -qE 'postinst|preinst|prerm|postrm'
pkg_check "no maintainer scripts (the systemd timer stays off until enabled)" $?
[ $lint_fails = 0 ] || fail "$lint_fails package check(s) failed"

# --- a fresh Debian 12 ---------------------------------------------------------
# On a tmpfs where one can be mounted: dpkg's many fsyncs cost nothing there,
# and the root goes with one umount instead of deleting ten thousand files.
mkdir "$root" || exit 1
if mount -t tmpfs -o size=2g,mode=755 xferbench-deb "$root" 2>/dev/null; then on="on a tmpfs"; else on="on disk"; fi
t=$(now)
timeout 300 debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
  fail "debootstrap --variant=minbase bookworm from $mirror failed (is the mirror reachable?)" "$work/debootstrap.log"
debootstrap_s=$(since "$t")
echo "debootstrap --variant=minbase bookworm: $debootstrap_s s, $(du -sm "$root" | cut -f1) MB $on"
chroot_start=$t

mount -t proc proc "$root/proc" || fail "cannot mount /proc in $root"
cp "$deb" "$root/tmp/" || fail "cannot copy $deb into the root"
cp "$src/python/tests/data/sweep_htod_2gpu.json" "$src/bench/results/2026-11-22-h200x2-sm-bulk/full1.json" "$root/tmp/" ||
  fail "cannot copy the test results into the root"
# Nothing of this machine's environment (CUDA paths, XFERBENCH_*) reaches in.
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
                   HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# A plain install, with Recommends, as apt would make it (simulated: the
# packages are not fetched): matplotlib comes, no compiler or -dev package.
t=$(now)
timeout 300 chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
  sh -c "cd /tmp && apt-get install -s ./$(basename "$deb")" > "$work/apt-sim.log" 2>&1 ||
  fail "apt-get install -s ./$(basename "$deb") failed in the fresh root" "$work/apt-sim.log"
pulled=$(awk '$1 == "Inst" { print $2 }' "$work/apt-sim.log")
heavy=$(echo "$pulled" | grep -E '^(gcc|g\+\+|cpp|clang|llvm|gfortran|binutils)(-[0-9.]+)?$|-dev$' | tr '\n' ' ')
grep -qx python3-matplotlib <<<"$pulled" || fail "a plain install would not bring python3-matplotlib" "$work/apt-sim.log"
[ -z "$heavy" ] || fail "a plain install would bring a compiler or -dev package: $heavy" "$work/apt-sim.log"
echo "apt-get install ./$(basename "$deb") with Recommends would install $(echo "$pulled" | wc -l) packages," \
     "none of them a compiler or -dev package: $(since "$t") s"

t=$(now)
timeout 300 chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
  sh -c "cd /tmp && apt-get install -y --no-install-recommends ./$(basename "$deb") python3" > "$work/apt.log" 2>&1 ||
  fail "apt-get install ./$(basename "$deb") failed in the fresh root" "$work/apt.log"
echo "apt-get install ./$(basename "$deb") python3: $(since "$t") s ($(grep -o '[0-9]* newly installed' "$work/apt.log"))"

# --- the installed package -----------------------------------------------------
fails=0
expect() {  # expect CODE NEEDLE -- COMMAND...   (run in the root)
  local code="$1" needle="$2"; shift 3
  local out rc
  out=$(timeout 30 chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
          HOME=/root LANG=C.UTF-8 "$@" 2>&1); rc=$?
  if [[ $rc -ne $code || "$out" != *"$needle"* ]]; then
    echo "FAIL: $* -> exit $rc, output: ${out: -400} (want exit $code and '$needle')"; fails=$((fails+1))
  else
    echo "ok: $* -> $rc"
  fi
}
check() {  # check DESCRIPTION -- COMMAND...   (run in the root, must exit 0)
  local what="$1" out; shift 2
  if out=$(in_root "$@" 2>&1); then echo "ok: $what"; else echo "FAIL: $what: ${out: -400}"; fails=$((fails+1)); fi
}
t=$(now)
check "dpkg lists /usr/bin/xferbench as the package's" -- sh -c 'dpkg -L xferbench | grep -qx /usr/bin/xferbench'
expect 0 "xferbench $version " -- xferbench --version
expect 0 "34  device_local_copy" -- xferbench cases
expect 3 "no NVIDIA driver or GPU found" -- xferbench list
# The seed names, from their own directory and through PATH; never on the default PATH.
expect 0 "Usage: nvbandwidth" -- sh -c 'cd /usr/lib/xferbench/bin && ./nvbandwidth --help'
expect 0 "Usage: nvbandwidth" -- sh -c 'PATH=/usr/lib/xferbench/bin:$PATH nvbandwidth --help'
for name in bwtest cuts gpudirect_p2p_overalloc; do
  check "/usr/lib/xferbench/bin/$name links to xferbench" -- sh -c "[ \"\$(readlink -f /usr/lib/xferbench/bin/$name)\" = /usr/bin/xferbench ]"
done
check "no seed name on the default PATH" -- sh -c '! command -v nvbandwidth && ! command -v bwtest && ! command -v cuts && ! command -v gpudirect_p2p_overalloc'
# The man page (man itself is not in minbase), with every command and option
# of the installed binary's --help.
check "man page /usr/share/man/man1/xferbench.1.gz" -- sh -c 'zcat /usr/share/man/man1/xferbench.1.gz | grep -q "^\.TH XFERBENCH \"\{0,1\}1"'
in_root zcat /usr/share/man/man1/xferbench.1.gz 2>/dev/null | sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' > "$work/man.txt"
items=$(in_root xferbench --help | awk '/^(Options|Subcommands):/ { on = 1; next } on && /^  [a-z-]/ { print $1 } /^$/ { on = 0 }')
[ "$(echo "$items" | wc -w)" -ge 10 ] || { echo "FAIL: too few commands and options in xferbench --help: $items"; fails=$((fails+1)); }
missing=$(for i in $items; do grep -qx -- "$i" "$work/man.txt" || echo "$i"; done)
if [ -z "$missing" ]; then echo "ok: the man page has all $(echo "$items" | wc -w) commands and options of --help"
else echo "FAIL: not in the man page: $missing"; fails=$((fails+1)); fi
# The check specs, used from where the package puts them.
expect 0 "xferbench check: PASS" -- xferbench check --judge /tmp/full1.json --spec /usr/share/xferbench/check/h200.toml --summary
check "docs in /usr/share/doc/xferbench" -- test -f /usr/share/doc/xferbench/README.md -a -f /usr/share/doc/xferbench/docs/building.md
check "copyright and changelog in /usr/share/doc/xferbench" -- sh -c \
  'grep -q "^Upstream-Name: xferbench" /usr/share/doc/xferbench/copyright && zcat /usr/share/doc/xferbench/changelog.gz | head -1 | grep -q "^xferbench ('"$version"')"'
check "alerting rules in /usr/share/xferbench/prometheus" -- grep -q "alert: XferbenchCheckFailed" /usr/share/xferbench/prometheus/xferbench-alerts.yml
# The systemd units: installed, naming the installed binary, enabled nowhere.
check "xferbench-check.service and .timer in /usr/lib/systemd/system" -- sh -c \
  'grep -q "^ExecStart=/usr/bin/xferbench check " /usr/lib/systemd/system/xferbench-check.service && grep -q "^OnCalendar=" /usr/lib/systemd/system/xferbench-check.timer'
check "the timer is not enabled" -- sh -c '! ls /etc/systemd/system/*.wants/xferbench-check.* 2>/dev/null | grep -q .'
# The service's check, as systemd would start it here (no GPU): a success
# for the unit (SuccessExitStatus), and metrics that say why nothing was measured.
check "the service's check writes xferbench_up 0 without a GPU, a success for the unit" -- sh -c '
  mkdir -p /var/lib/prometheus/node-exporter
  xferbench check --summary --format prometheus -o /var/lib/prometheus/node-exporter/xferbench.prom --time-limit 30m
  rc=$?
  grep -qE "^SuccessExitStatus=(.* )?$rc( |\$)" /usr/lib/systemd/system/xferbench-check.service || { echo "exit $rc fails the unit"; exit 1; }
  grep -q "^xferbench_up{Hostname=\"[^\"]*\",reason=\"no_device\"} 0\$" /var/lib/prometheus/node-exporter/xferbench.prom'
# Bash completion, as bash loads it from bash-completion's directory.
check "bash completion completes xferbench's commands" -- bash -c '
  . /usr/share/bash-completion/completions/xferbench
  COMP_WORDS=(xferbench ch); COMP_CWORD=1; _xferbench
  [ "${COMPREPLY[*]}" = check ] || { echo "xferbench ch<TAB>: ${COMPREPLY[*]}"; exit 1; }
  COMP_WORDS=(xferbench check --metrics-detail ""); COMP_CWORD=3; _xferbench
  [ "${COMPREPLY[*]}" = "summary cells" ] || { echo "--metrics-detail <TAB>: ${COMPREPLY[*]}"; exit 1; }' 
# plot finds the installed xferbench_plot package; only matplotlib (a Recommends) is missing.
expect 2 "matplotlib is not installed" -- xferbench plot /tmp/sweep_htod_2gpu.json -o /tmp/plot.png
# Removed, the package leaves nothing behind (plot wrote no __pycache__ into it).
check "dpkg --purge xferbench removes every file and directory it made" -- sh -c \
  'dpkg --purge xferbench && for p in /usr/bin/xferbench /usr/lib/xferbench /usr/share/xferbench /usr/share/doc/xferbench \
       /usr/share/man/man1/xferbench.1.gz /usr/lib/systemd/system/xferbench-check.service \
       /usr/share/bash-completion/completions/xferbench; do [ ! -e "$p" ] || { echo "left behind: $p"; exit 1; }; done'
echo "checks: $(since "$t") s"

echo "times ($(date -u +%F)): debootstrap $debootstrap_s s; chroot (debootstrap, install, checks) $(since "$chroot_start") s;" \
     "so far $(since "$test_start") s"
[ $fails = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "ok: $(basename "$deb") installs with apt into a fresh Debian 12 and works there"
