#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README quick start's first command works as root on a machine
# without sudo and as a user through sudo, as it stands in the README
# (run by sh, with apt-get, make, id, sudo and ./ward replaced by stubs
# that say what they were asked), and its packages are the ones .ci/run
# installs for the build.
. "$(dirname "$0")/lib.sh"

# run-all.sh runs a copy of this file; $WARD is the repo's ./ward
repo=$(cd "$(dirname "$WARD")" && pwd)
line=$(awk '/^## Quick start/ { q = 1 } q && /^```sh/ { getline; print; exit }' "$repo/README.md")
[ -n "$line" ] || die "no first command in README.md's quick start"
printf '%s\n' "$line" >"$WT_ARTIFACTS/first-command.sh"

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

try() {	# try NAME UID WITH_SUDO: runs the line; WT_STATUS, log in $d/log
	d=$WT_SCRATCH/$1
	stubs "$d" "$2" "$3"
	WT_STATUS=0
	(cd "$d/cwd" && env -i PATH="$d/bin" /bin/sh -c "$line") \
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

# The build's packages (.ci/run) are all in the quick start.
for p in $(sed -n '/^packages=(/,/^)/p' "$repo/.ci/run" | sed -n '2,4p'); do
	case " $line " in
	*" $p "*) note "ok: $p in the quick start" ;;
	*) fail "$p (.ci/run) is missing from the quick start" ;;
	esac
done
finish
