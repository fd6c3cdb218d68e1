#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make deb-check: the tree as a distribution takes it. `make install` into
# a DESTDIR puts every file where the Makefile says and `make uninstall`
# takes them all away again; then the Debian package (debian/) is built
# from a copy of the tree with dpkg-buildpackage, checked by lintian,
# installed, run (as root and as an unprivileged user: ward-tui and
# ward-supervisor found in /usr/libexec/ward, /usr/share/ward/ward.ini
# the default policy, then /etc/ward/ward.ini the machine's, bash
# completion), and purged, leaving nothing behind.
# Needs root (dpkg). Not root: skipped with a message, never under CI=true.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
fails=0
ok() { printf 'ok    %s\n' "$*"; }
bad() { printf 'FAIL  %s\n' "$*"; fails=$((fails + 1)); }
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

if [ "$(id -u)" != 0 ]; then
	if [ "${CI:-}" = true ]; then
		echo "deb-check: must run as root under CI=true (dpkg -i)"
		exit 1
	fi
	echo "deb-check: SKIP: installing a package needs root"
	exit 0
fi
for tool in dpkg-buildpackage lintian fakeroot; do
	command -v "$tool" >/dev/null || {
		echo "deb-check: $tool is missing (.ci/run installs it)"
		exit 1
	}
done
if dpkg -s ward >/dev/null 2>&1; then
	echo "deb-check: a ward package is installed already; not touching it"
	exit 1
fi

work=$(mktemp -d /var/tmp/ward-deb.XXXXXX)
installed=0
cleanup() {
	if [ "$installed" = 1 ]; then
		dpkg --purge ward >/dev/null 2>&1 || true
	fi
	rm -f /etc/ward/ward.ini
	rmdir /etc/ward 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
version=$(sed -n 's/^#define WARD_VERSION "\(.*\)"$/\1/p' "$repo/config/version.h")
check "debian/changelog's version is config/version.h's ($version)" \
    grep -q "^ward ($version)" "$repo/debian/changelog"

# --- make install / uninstall ----------------------------------------
dest=$work/dest
make -C "$repo" -s install DESTDIR="$dest" PREFIX=/usr >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; bad "make install"; }
for f in usr/bin/ward usr/libexec/ward/ward-tui usr/libexec/ward/ward-supervisor \
    usr/libexec/ward/ward-gate \
    usr/share/ward/ward.ini usr/share/ward/oci.ini \
    usr/share/ward/oci/ward-oci.service usr/share/ward/oci/k8s-daemonset.yaml \
    usr/share/ward/demo/agent.sh usr/share/ward/demo/world.sh \
    usr/share/ward/demo/registry.py usr/share/man/man1/ward.1 \
    usr/share/man/man5/ward.ini.5 usr/share/man/man8/ward-supervisor.8 \
    usr/share/man/man7/ward-security.7 \
    usr/share/bash-completion/completions/ward \
    usr/share/zsh/vendor-completions/_ward \
    usr/share/fish/vendor_completions.d/ward.fish; do
	check "make install puts /$f" test -e "$dest/$f"
done
check "ward-supervisor is not on PATH (it is ward's)" test ! -e "$dest/usr/bin/ward-supervisor"
check "ward-tui is not on PATH (ward starts it)" test ! -e "$dest/usr/bin/ward-tui"
make -C "$repo" -s uninstall DESTDIR="$dest" PREFIX=/usr >"$work/uninstall.log" 2>&1 ||
    { cat "$work/uninstall.log"; bad "make uninstall"; }
left=$(find "$dest" -type f | sed "s|^$dest||")
check "make uninstall leaves no file${left:+ (left: $left)}" test -z "$left"

# --- installed under a user's home: ~/.local ---------------------------
# The sandbox sees none of the home but the demo folder it is given: the
# demo must find its files by their real path (not bin/../share).
huser=wardhome
id "$huser" >/dev/null 2>&1 || useradd --user-group --create-home \
    --home-dir "/home/$huser" --shell /bin/sh "$huser"
hhome=$(getent passwd "$huser" | cut -d: -f6)
rm -rf "$hhome/.local/bin/ward" "$hhome/.local/libexec/ward" "$hhome/.local/share/ward"
make -C "$repo" -s install PREFIX="$hhome/.local" >"$work/install-home.log" 2>&1 ||
    { cat "$work/install-home.log"; bad "make install PREFIX=~$huser/.local"; }
chown -R "$huser:" "$hhome/.local"
mkdir -m 700 "$work/run-$huser" && chown "$huser:" "$work/run-$huser"
st=0
setpriv --reuid="$(id -u "$huser")" --regid="$(id -g "$huser")" --clear-groups -- \
    env -i PATH=/usr/bin:/bin HOME="$hhome" XDG_RUNTIME_DIR="$work/run-$huser" \
    WARD_DEMO_PACE_MS=200 timeout 120 "$hhome/.local/bin/ward" demo --auto --headless \
    >"$work/demo-home" 2>"$work/demo-home.err" </dev/null || st=$?
check "installed in ~/.local, ward demo --auto tells its story (status $st)" \
    grep -q '^== done' "$work/demo-home"
[ "$st" = 0 ] || tail -n 20 "$work/demo-home.err"
rm -rf "$(sed -n 's/^ward: demo folder \([^ ]*\) .*/\1/p' "$work/demo-home.err")"
make -C "$repo" -s uninstall PREFIX="$hhome/.local" >/dev/null 2>&1 || true

# --- the package -------------------------------------------------------
src=$work/ward-$version
mkdir -p "$src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
    tar --null -cf - -T -) | tar -xf - -C "$src"
echo "deb-check: dpkg-buildpackage in $src"
t0=$(date +%s)
if (cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b ($(($(date +%s) - t0)) s)"
else
	tail -n 40 "$work/build.log"
	bad "dpkg-buildpackage -us -uc -b"
	exit 1
fi
deb=$(ls "$work"/ward_"$version"_*.deb)
# It recommends the libgit2 it was built against (dlopen'ed: not in
# Depends), as the build read it, never a version written in debian/.
so=$(make -C "$repo" -s --no-print-directory print-libgit2-soname)
want=$(dpkg-query -S "$(pkg-config --variable=libdir libgit2)/$so" | sed -n '1s/[:,].*//p')
rec=$(dpkg-deb -f "$deb" Recommends)
check "the package recommends $want (for $so; Recommends: $rec)" \
    grep -qE "(^|, )$want(,|$)" <<<"$rec"
lintian --tag-display-limit 0 "$work"/ward_"$version"_*.changes >"$work/lintian" 2>&1 || true
grep -E '^[EW]: ' "$work/lintian" || true
check "lintian: no error or warning" sh -c "! grep -qE '^[EW]: ' '$work/lintian'"

apt-get install -y -q "$deb" >"$work/apt.log" 2>&1 || { tail "$work/apt.log"; bad "install the package"; exit 1; }
installed=1
ok "the package installs"
check "ward --version is $version" sh -c "[ \"\$(/usr/bin/ward --version)\" = 'ward $version' ]"
check "ward-supervisor --version is $version" \
    sh -c "[ \"\$(/usr/libexec/ward/ward-supervisor --version)\" = 'ward-supervisor $version' ]"

# The front (supervisor/front.c) supervises a headless run itself: it
# needs the supervisor's libraries, hardening flags and all, and none of
# ward-tui's or ward-gate's.
needed=$(readelf -d /usr/bin/ward | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
check "/usr/bin/ward needs the record's library (needs: $needed)" \
    sh -c "echo '$needed' | grep -q 'libsqlite3\\.'"
check "/usr/bin/ward needs none of ward-tui's or ward-gate's libraries (needs: $needed)" \
    sh -c "! echo '$needed' | grep -qE 'lib(ncursesw|tinfo|vterm|git2|notify|ssl|crypto)\\.'"
# installed_run LABEL HOME WANT [PRE...]: the installed ward runs a
# program headless with its XDG folders in HOME (PRE: the user to run
# as), and the record names WANT as the policy it took.
installed_run() {
	local label=$1 home=$2 want=$3 st=0 pol f
	shift 3
	f=${label//[^a-z0-9]/_}
	"$@" env -i PATH=/usr/bin:/bin HOME="$home" XDG_STATE_HOME="$home/state" \
	    XDG_RUNTIME_DIR="$home/run" XDG_CONFIG_HOME="$home/config" \
	    /usr/bin/ward run --headless -- sh -c 'echo installed-ok' \
	    >"$work/out.$f" 2>"$work/err.$f" </dev/null || st=$?
	check "$label: the installed ward runs a program (status $st)" \
	    grep -q installed-ok "$work/out.$f"
	[ "$st" = 0 ] || cat "$work/err.$f"
	pol=$(sqlite3 -readonly "$home/state/ward/audit.db" "SELECT policy_path FROM runs" 2>/dev/null || true)
	check "$label: the default policy was $want (record: $pol)" test "$pol" = "$want"
}
# With no policy of the user's or the machine's, the shipped one in
# /usr/share/ward, found from /usr/libexec/ward where the supervisor is.
rm -f /etc/ward/ward.ini
home=$work/home-nopolicy
mkdir -p "$home" && mkdir -m 700 "$home/run"
installed_run "no /etc/ward/ward.ini" "$home" /usr/share/ward/ward.ini

# Runs as root and as an unprivileged user; the machine's policy in
# /etc/ward/ward.ini is the default when the user has none.
mkdir -p /etc/ward
printf '; the machine default (deb-check)\n[run]\ntimeout = 30\n' >/etc/ward/ward.ini
chmod 644 /etc/ward/ward.ini
user=wardtest
id "$user" >/dev/null 2>&1 || useradd --system --user-group --no-create-home \
    --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
for who in root "$user"; do
	home=$work/home-$who
	mkdir -p "$home"
	# XDG_RUNTIME_DIR is the system's to make (a login makes it), 0700
	mkdir -m 700 "$home/run"
	chown -R "$who:" "$home"
	pre=()
	[ "$who" = root ] || pre=(setpriv --reuid="$(id -u "$who")" --regid="$(id -g "$who")" --clear-groups --)
	installed_run "as $who" "$home" /etc/ward/ward.ini "${pre[@]}"
	# The demo, installed: its files found under /usr/share/ward, its
	# fake world made, its story told to the end.
	st=0
	"${pre[@]}" env -i PATH=/usr/bin:/bin HOME="$home" XDG_STATE_HOME="$home/state" \
	    XDG_RUNTIME_DIR="$home/run" XDG_CONFIG_HOME="$home/config" \
	    WARD_DEMO_PACE_MS=200 timeout 120 /usr/bin/ward demo --auto --headless \
	    >"$work/demo.$who" 2>"$work/demo-err.$who" </dev/null || st=$?
	check "as $who: ward demo --auto tells its story to the end (status $st)" \
	    grep -q '^== done' "$work/demo.$who"
	check "as $who: ward demo made its fake world" \
	    grep -q '^What reached the demo' "$work/demo.$who"
	[ "$st" = 0 ] || tail -n 20 "$work/demo-err.$who"
	rm -rf "$(sed -n 's/^ward: demo folder \([^ ]*\) .*/\1/p' "$work/demo-err.$who")"
done
check "bash completes 'ward ap' to approve and apply" bash -c '
	. /usr/share/bash-completion/completions/ward
	COMP_WORDS=(ward ap); COMP_CWORD=1; _ward
	[ "${COMPREPLY[*]}" = "approve apply" ]'
check "man ward-supervisor is there" test -e /usr/share/man/man8/ward-supervisor.8.gz

dpkg --purge ward >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; bad "dpkg --purge ward"; }
installed=0
check "purged: no /usr/bin/ward" test ! -e /usr/bin/ward
check "purged: no /usr/libexec/ward" test ! -e /usr/libexec/ward
check "purged: no /usr/share/ward" test ! -e /usr/share/ward

if [ "$fails" -gt 0 ]; then
	echo "deb-check: $fails failed"
	exit 1
fi
echo "deb-check: all passed"
