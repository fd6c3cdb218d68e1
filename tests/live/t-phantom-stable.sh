#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A [secret]'s phantom is stable (issue 30, point 3): Claude Code remembers
# an approved key by its last 20 characters, so a phantom new each run
# brought its "Detected a custom API key" screen back every run. Two runs
# of one user see the same phantom, whatever the value; another user (a
# state folder of their own: another phantom key) sees another; the key
# file is the user's, mode 0600, and one readable by others is refused.
. "$(dirname "$0")/lib.sh"

write_policy "$WT_SCRATCH/policy.ini" \
    '[files]' 'write = deny' \
    '[secret TOKEN]' 'from = env:W30_TOKEN' 'hosts = api.test:443' \
    'header = x-api-key: {}'

# phantom_of N: one run, its TOKEN in $WT_ARTIFACTS/out.N; prints it.
phantom_of() {
	ward_fg "$WT_ARTIFACTS/out.$1" "$WT_ARTIFACTS/err.$1" \
	    run --headless --policy "$WT_SCRATCH/policy.ini" -- \
	    sh -c 'echo "token=$TOKEN"'
	if [ "$WT_STATUS" != 0 ]; then
		show "ward stderr ($1)" "$WT_ARTIFACTS/err.$1"
		die "run $1 exited $WT_STATUS"
	fi
	sed -nE 's/^token=(ward-phantom-[0-9a-f]+)\r?$/\1/p' "$WT_ARTIFACTS/out.$1"
}

p1=$(W30_TOKEN="w30-one-$RANDOM" phantom_of 1)
p2=$(W30_TOKEN="w30-two-$RANDOM" phantom_of 2)
assert_grep "the first run's TOKEN is a phantom of today's length" \
    '^token=ward-phantom-[0-9a-f]{32}\r?$' "$WT_ARTIFACTS/out.1"
assert_eq "the second run sees the same phantom (another value)" "$p1" "$p2"

key=$XDG_STATE_HOME/ward/phantom.key
assert_eq "the phantom key's mode" 600 "$(stat -c %a "$key")"
assert_eq "the phantom key's owner" "$(id -u)" "$(stat -c %u "$key")"
assert_eq "the phantom key's size" 32 "$(stat -c %s "$key")"

# Another user: another state folder, another key, another phantom.
mine=$XDG_STATE_HOME
export XDG_STATE_HOME=$WT_SCRATCH/other-state
mkdir -m 700 -p "$XDG_STATE_HOME"
p3=$(W30_TOKEN="w30-one-$RANDOM" phantom_of 3)
assert_ne "another user's phantom" "$p1" "$p3"
export XDG_STATE_HOME=$mine

# A key others may read: refused, naming the file; the run never starts.
chmod 0644 "$key"
W30_TOKEN=x ward_fg "$WT_ARTIFACTS/out.4" "$WT_ARTIFACTS/err.4" \
    run --headless --policy "$WT_SCRATCH/policy.ini" -- true
assert_eq "exit status with a key others may read" 125 "$WT_STATUS"
assert_grep "the refusal names the key file" \
    'phantom\.key: others may read it' "$WT_ARTIFACTS/err.4"

# Another user's key file in our place (root can make one): refused.
if [ "$(id -u)" = 0 ]; then
	chmod 0600 "$key"
	chown 65534 "$key"
	W30_TOKEN=x ward_fg "$WT_ARTIFACTS/out.5" "$WT_ARTIFACTS/err.5" \
	    run --headless --policy "$WT_SCRATCH/policy.ini" -- true
	assert_eq "exit status with a key of another user's" 125 "$WT_STATUS"
	assert_grep "the refusal says whose it is" \
	    'phantom\.key: not owned by us' "$WT_ARTIFACTS/err.5"
else
	note "(not root: a key owned by another user cannot be made here)"
fi
finish
