#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README quick start is two commands (a line ending in a backslash
# goes on), and both work as root on a machine without sudo and as a user
# through sudo, as they stand in the README (run by sh, with apt-get,
# make, id, sudo and ./ward replaced by stubs that say what they were
# asked): the first installs, builds and opens the demo, the second
# installs and runs make check. Its packages are the ones .ci/run
# installs for the build, and no server (openssh-server) is among them.
. "$(dirname "$0")/lib.sh"

# run-all.sh runs a copy of this file; $WARD is the repo's ./ward
repo=$(cd "$(dirname "$WARD")" && pwd)
awk '/^## Quick start/ { q = 1 } q && /^```sh/ { c = 1; next } c && /^```/ { exit }
    c { if (sub(/\\$/, "")) { acc = acc $0; next } print acc $0; acc = "" }' \
    "$repo/README.md" >"$WT_ARTIFACTS/commands.sh"
assert_eq "the quick start's commands" 2 "$(wc -l <"$WT_ARTIFACTS/commands.sh")"
line=$(sed -n 1p "$WT_ARTIFACTS/commands.sh")
second=$(sed -n 2p "$WT_ARTIFACTS/commands.sh")
[ -n "$line" ] || die "no first command in README.md's quick start"
[ -n "$second" ] || die "no second command in README.md's quick start"

# stubs DIR UID WITH_SUDO: a PATH with nothing but the stubs.
stubs() {
	local d=$1 uid=$2 with_sudo=$3
	mkdir -p "$d/bin" "$d/cwd"
	printf '#!/bin/sh\necho %s\n' "$uid" >"$d/bin/id"
	printf '#!/bin/sh\necho "apt-get $*" >>%q\n' "$d/log" >"$d/bin/apt-get"
	printf '#!/bin/sh\necho "make $*" >>%q\n' "$d/log" >"$d/bin/make"
	printf '#!/bin/sh\necho "ward $*" >>%q\n' "$d/log" >"$d/cwd/ward"
	if [ "$with_sudo" = yes ]; then
		printf '#!/bin/sh\necho "sudo $1" >>%q\nexec "$@"\n' "$d/log" >"$d/bin/sudo"
	fi
	chmod +x "$d"/bin/* "$d/cwd/ward"
}

try() {	# try NAME UID WITH_SUDO [CMD]: runs the first command (or CMD);
	# WT_STATUS, log in $d/log
	local cmd=${4:-$line}
	d=$WT_SCRATCH/$1
	stubs "$d" "$2" "$3"
	WT_STATUS=0
	(cd "$d/cwd" && env -i PATH="$d/bin" /bin/sh -c "$cmd") \
	    >"$WT_ARTIFACTS/$1.out" 2>&1 || WT_STATUS=$?
	touch "$d/log"
	cp "$d/log" "$WT_ARTIFACTS/$1.log"
}

try root 0 no
assert_eq "as root without sudo: the first command's status" 0 "$WT_STATUS"
[ "$WT_STATUS" = 0 ] || show "output" "$WT_ARTIFACTS/root.out"
assert_grep "as root: apt-get update" '^apt-get update$' "$d/log"
assert_grep "as root: apt-get install" '^apt-get install -y ' "$d/log"
assert_grep "as root: make" '^make $' "$d/log"
assert_grep "as root: ./ward demo" '^ward demo$' "$d/log"
assert_no_grep "as root: no sudo" '^sudo' "$d/log"

try user 1000 yes
assert_eq "as a user with sudo: the first command's status" 0 "$WT_STATUS"
[ "$WT_STATUS" = 0 ] || show "output" "$WT_ARTIFACTS/user.out"
assert_eq "as a user: apt-get runs through sudo, twice" 2 \
    "$(grep -c '^sudo apt-get$' "$d/log" || true)"
assert_grep "as a user: ./ward demo" '^ward demo$' "$d/log"

try root-tests 0 no "$second"
assert_eq "as root without sudo: the second command's status" 0 "$WT_STATUS"
[ "$WT_STATUS" = 0 ] || show "output" "$WT_ARTIFACTS/root-tests.out"
assert_grep "as root: the tests' apt-get install" '^apt-get install -y .*libcmocka-dev' "$d/log"
assert_grep "as root: make check" '^make check$' "$d/log"
assert_no_grep "as root: no sudo for the tests" '^sudo' "$d/log"
try user-tests 1000 yes "$second"
assert_eq "as a user with sudo: the second command's status" 0 "$WT_STATUS"
assert_grep "as a user: the tests' apt-get through sudo" '^sudo apt-get$' "$d/log"
assert_grep "as a user: make check" '^make check$' "$d/log"

# The build's packages (.ci/run) are all in the quick start; every
# package of the quick start is one .ci/run installs (so CI tries it);
# no server.
all=" $(tr '\n' ' ' <"$WT_ARTIFACTS/commands.sh") "
ci_pkgs=" $(sed -n '/^packages=(/,/^)/p' "$repo/.ci/run" | sed 's/#.*//' | tr '\n\t' '  ') "
for p in $(sed -n '/^packages=(/,/^)/p' "$repo/.ci/run" | sed -n '2,4p'); do
	case $all in
	*" $p "*) note "ok: $p in the quick start" ;;
	*) fail "$p (.ci/run) is missing from the quick start" ;;
	esac
done
for p in $(sed -n 's/.*apt-get install -y \(.*\) && make.*/\1/p' "$WT_ARTIFACTS/commands.sh"); do
	case $ci_pkgs in
	*" $p "*) ;;
	*) fail "$p (quick start) is not installed by .ci/run" ;;
	esac
done
case $all in
*openssh-server*|*" apache2 "*|*" nginx "*) fail "the quick start installs a server" ;;
*) note "ok: no server in the quick start" ;;
esac
finish
