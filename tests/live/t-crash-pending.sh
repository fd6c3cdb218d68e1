#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGKILL the supervisor while a request waits for a person: the request
# is in the record as asked (committed when it was parked), the write
# never happened, the file is intact, nothing survives.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/crash-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
prog='if echo new >"$1/file"; then echo "ok 1"; else echo "no 1"; fi'
kills=${CRASH_KILLS:-4}
for ((k = 1; k <= kills; k++)); do
	crash_start "$WT_SCRATCH/policy.ini" "$WT_CANARY" "$prog"
	wait_pending "$WT_ARTIFACTS/err"
	crash_pause
	crash_kill
	assert_eq "kill $k: the pending request in the record" \
	    "$(printf 'asked\task\twrite\t%s' "$WT_CANARY/file")" \
	    "$(sql "SELECT state, verdict, kind, subject FROM events WHERE run = '$WT_RUN' AND request_id = $WT_REQ")"
	crash_integrity
	"$WARD" log "$WT_RUN" >"$WT_ARTIFACTS/log.$k" 2>&1 </dev/null || true
	assert_grep "kill $k: ward log says it was never answered" \
	    'ask \(asked, unanswered\)' "$WT_ARTIFACTS/log.$k"
done
canary_untouched
finish
