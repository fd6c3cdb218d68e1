#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward --headless exits as the program did, the way a shell reports it.
. "$(dirname "$0")/lib.sh"

check() {
	local want=$1 what=$2
	shift 2
	ward_fg "$WT_ARTIFACTS/out.$want" "$WT_ARTIFACTS/err.$want" run --headless -- "$@"
	assert_eq "$what" "$want" "$WT_STATUS"
	if [ "$WT_STATUS" != "$want" ]; then show "ward stderr" "$WT_ARTIFACTS/err.$want"; fi
	[ -n "$WT_RUN" ] || fail "$what: no 'ward: run <ID> started' line"
}

check 0 "true" true
# The record names the policy by what sha256sum prints for the file the
# run kept.
hash=$(sql "SELECT policy_hash FROM runs WHERE id = '$WT_RUN'")
kept=$(sha256sum "$(run_dir "$WT_RUN")/policy.ini" | cut -d' ' -f1)
assert_eq "the record's policy hash is sha256sum of the run's policy.ini" "$kept" "$hash"
check 3 "sh -c 'exit 3'" sh -c 'exit 3'
check 127 "a command that does not exist" ward-no-such-command-xyz
check 127 "an absolute path that does not exist" /nonexistent/ward-cmd
check 126 "a file that is not executable" /etc/passwd
check 143 "the program killed by SIGTERM" sh -c 'kill -TERM $$'

# ward's own failures are 125 (a policy file that does not exist)
st=0
"$WARD" run --headless --policy "$WT_SCRATCH/no-such-policy.ini" -- true \
    >"$WT_ARTIFACTS/out.125" 2>"$WT_ARTIFACTS/err.125" </dev/null || st=$?
assert_eq "a missing policy file" 125 "$st"
assert_grep "the missing file is named" 'no-such-policy\.ini' "$WT_ARTIFACTS/err.125"
finish
