#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The credential stores of the real home (HOME is /root or /home/USER
# here) stay hidden under --in ~, and so do the user's own home's (the
# password file's) when HOME points elsewhere.
. "$(dirname "$0")/lib.sh"

H=$(realpath "$HOME")
made=""
[ -d "$H/.ssh" ] || { mkdir -m 700 "$H/.ssh"; made=yes; }
key=$(mktemp "$H/.ssh/ward-live-key.XXXXXX")
printf 'SECRET-KEY\n' >"$key"
printf 'visible\n' >"$H/ward-live-visible.$$"
cleanup_home() {
	rm -f "$key" "$H/ward-live-visible.$$"
	[ -z "$made" ] || rmdir "$H/.ssh" 2>/dev/null || true
}
trap 'cleanup_home; wt_cleanup' EXIT

ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --in "$H" -- sh -c "cat '$H/ward-live-visible.$$' '$key'; ls -A '$H/.ssh'; true"
[ "$WT_STATUS" = 0 ] || show "ward stderr" "$WT_ARTIFACTS/err"
assert_eq "exit status (--in ~)" 0 "$WT_STATUS"
assert_grep "the home shows (--in ~)" '^visible\r?$' "$WT_ARTIFACTS/out"
assert_no_grep "~/.ssh stays hidden (--in ~)" 'SECRET-KEY|ward-live-key' "$WT_ARTIFACTS/out"

# The password file's home, with HOME somewhere else.
pwhome=$(getent passwd "$(id -u)" | cut -d: -f6)
if [ -n "$pwhome" ] && [ "$(realpath "$pwhome" 2>/dev/null)" = "$H" ]; then
	mkdir -p "$WT_SCRATCH/elsewhere"
	HOME=$WT_SCRATCH/elsewhere ward_fg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" \
	    run --headless --in "$H" -- sh -c "cat '$H/ward-live-visible.$$' '$key'; true"
	[ "$WT_STATUS" = 0 ] || show "ward stderr" "$WT_ARTIFACTS/err2"
	assert_grep "the home shows (HOME elsewhere)" '^visible\r?$' "$WT_ARTIFACTS/out2"
	assert_no_grep "the user's own ~/.ssh stays hidden (HOME elsewhere)" 'SECRET-KEY' "$WT_ARTIFACTS/out2"
else
	note "(HOME=$H is not $(id -un)'s home in the password file: the second half does not apply)"
fi
finish
