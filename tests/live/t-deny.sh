#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward deny` refuses one write outside: the host file stays, EACCES.
. "$(dirname "$0")/lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

prog='if echo new > "$1/file"; then echo WROTE; exit 0; else echo DENIED; exit 5; fi'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" sh "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err"
assert_eq "pending subject" "$WT_CANARY/file" "$WT_REQ_PATH"

st=0
"$WARD" deny "$WT_RUN" "$WT_REQ" >"$WT_ARTIFACTS/deny" 2>&1 </dev/null || st=$?
assert_eq "ward deny exit status" 0 "$st"
ward_wait 30
assert_eq "exit status (the program's)" 5 "$WT_STATUS"
# well before the 60 s deadline: the answer, not the timeout, decided
[ "$WT_ELAPSED_MS" -lt 30000 ] && note "ok: ended ${WT_ELAPSED_MS} ms after start" ||
    fail "run took ${WT_ELAPSED_MS} ms: the deny did not end the wait"
canary_untouched
assert_grep "the program saw EACCES" 'Permission denied' "$WT_ARTIFACTS/err"
assert_grep "the program's own report" '^DENIED\r?$' "$WT_ARTIFACTS/out"

log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "deny by a person" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"deny\" and .how == \"person\" and .subject == \"$WT_CANARY/file\" and ((.request_id|tostring) == \"$WT_REQ\")"
assert_eq "timeouts logged" 0 "$(log_count "$WT_ARTIFACTS/log.json" '.how == "timeout"')"
finish
