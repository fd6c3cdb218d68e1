#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A mount below a folder the user cannot enter (run-all.sh, as root,
# makes a 0700 root folder in /var/tmp with a tmpfs below it, as a
# rootful Docker's containers sit below /var/lib/docker) does not stop
# an ordinary user's run: the sandbox leaves it as it is, unreachable
# inside as outside. And when the sandbox's set-up does fail, the user
# reads the child's own words, not "Protocol error".
. "$(dirname "$0")/lib.sh"

[ -n "${WT_LOCKED:-}" ] ||
	skip "no locked-folder fixture: run-all.sh makes one only when run as root"

ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless -- sh -c 'echo started; ls "$1/sub" >/dev/null 2>&1 && echo REACHED || echo UNREACHED' sh "$WT_LOCKED"
assert_eq "exit status of a run with the locked submount on the host" 0 "$WT_STATUS"
assert_grep "the program ran" '^started$' "$WT_ARTIFACTS/out"
assert_no_grep "no protocol error" 'Protocol error' "$WT_ARTIFACTS/err"
if [ -x "$WT_LOCKED" ] && [ "$(id -u)" = 0 ]; then
	note "root can enter $WT_LOCKED: the submount is reached read-only"
	printf '[files]\nwrite = deny\n' >"$WT_SCRATCH/deny.ini"
	ward_fg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" \
	    run --headless --policy "$WT_SCRATCH/deny.ini" -- sh -c 'echo x > "$1/sub/canary" 2>/dev/null && echo WROTE || echo REFUSED' sh "$WT_LOCKED"
	assert_grep "a write to the submount is refused" '^REFUSED' "$WT_ARTIFACTS/out2"
	assert_absent "no canary on the host" "$WT_LOCKED/sub/canary"
else
	assert_grep "the submount is unreachable inside too" '^UNREACHED$' "$WT_ARTIFACTS/out"
	# A hidden path below the locked folder cannot be hidden (the
	# child's open fails): the run fails closed, saying so itself.
	policy=$WT_SCRATCH/policy.ini
	printf '[files]\nhidden = %s/sub/secret\n' "$WT_LOCKED" >"$policy"
	for i in 1 2 3; do
		ward_fg "$WT_ARTIFACTS/out3" "$WT_ARTIFACTS/err3.$i" \
		    run --headless --policy "$policy" -- echo never
		assert_eq "exit status of a sandbox that cannot be set up ($i)" 125 "$WT_STATUS"
		assert_grep "the child's own words reach the user ($i)" \
		    "^ward: sandbox setup: hide $WT_LOCKED/sub/secret: open: Permission denied" \
		    "$WT_ARTIFACTS/err3.$i"
		assert_no_grep "not a protocol error ($i)" 'Protocol error' "$WT_ARTIFACTS/err3.$i"
	done
	assert_no_grep "the program never ran" 'never' "$WT_ARTIFACTS/out3"
fi
finish
