#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Headless, a write outside the writable set nobody answers is denied at
# ask_timeout: the host file stays as it was, the program sees EACCES.
. "$(dirname "$0")/lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 2' '[files]' 'write = ask'

# Two writes: one to an existing file, one that would create a file.
prog='
if echo new > "$1/file"; then echo "WROTE file"; else echo "DENIED file"; fi
if echo new > "$1/created"; then echo "WROTE created"; else echo "DENIED created"; fi
exit 7'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" sh "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err"
assert_eq "pending subject" "$WT_CANARY/file" "$WT_REQ_PATH"
assert_eq "pending kind" write "$WT_REQ_KIND"
ward_wait 30

assert_eq "exit status (the program's)" 7 "$WT_STATUS"
# two requests, 2 s each
if [ "$WT_ELAPSED_MS" -ge 3500 ] && [ "$WT_ELAPSED_MS" -le 15000 ]; then
	note "ok: took ${WT_ELAPSED_MS} ms for two 2 s deadlines"
else
	fail "took ${WT_ELAPSED_MS} ms for two requests with ask_timeout = 2"
fi
canary_untouched
assert_absent "the file the program tried to create" "$WT_CANARY/created"
assert_grep "the program saw EACCES" 'Permission denied' "$WT_ARTIFACTS/err"
assert_grep "the program's own report (file)" '^DENIED file\r?$' "$WT_ARTIFACTS/out"
assert_grep "the program's own report (created)" '^DENIED created\r?$' "$WT_ARTIFACTS/out"
assert_absent "no before-image for a denied write" "$(run_dir "$WT_RUN")/before$WT_CANARY/file"

log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "deny by timeout of the write to file" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"deny\" and .how == \"timeout\" and .subject == \"$WT_CANARY/file\" and (.request_id // 0) > 0"
assert_log "deny by timeout of the create" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"deny\" and .how == \"timeout\" and .subject == \"$WT_CANARY/created\""
assert_log "the timeout waited about ask_timeout" "$WT_ARTIFACTS/log.json" \
    ".how == \"timeout\" and .wait_ms >= 1500 and .wait_ms <= 6000"
assert_eq "events allowing anything under the canary" 0 \
    "$(log_count "$WT_ARTIFACTS/log.json" ".verdict == \"allow\" and ((.subject // \"\") | startswith(\"$WT_CANARY\"))")"
finish
