#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The wall-clock limit ends the run with status 124.
. "$(dirname "$0")/lib.sh"

marker='^sleep 3030$'
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 2 -- sleep 3030
[ -n "$WT_RUN" ] || { show "ward stderr" "$WT_ARTIFACTS/err"; fail "no 'ward: run <ID> started' line"; }
assert_eq "exit status" 124 "$WT_STATUS"
if [ "$WT_ELAPSED_MS" -ge 1500 ] && [ "$WT_ELAPSED_MS" -le 5000 ]; then
	note "ok: ended after ${WT_ELAPSED_MS} ms"
else
	fail "ended after ${WT_ELAPSED_MS} ms, expected about 2 s (at most 5 s)"
fi
wait_for 3 no_process_matching "$marker" && note "ok: no sleep survives" ||
    { fail "sleep 3030 survives the timeout"; kill_matching "$marker"; }

# the policy's timeout does the same
write_policy "$WT_SCRATCH/policy.ini" '[run]' 'timeout = 2'
ward_fg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" \
    run --headless --policy "$WT_SCRATCH/policy.ini" -- sleep 3030
assert_eq "exit status with [run] timeout = 2" 124 "$WT_STATUS"
[ "$WT_ELAPSED_MS" -le 5000 ] && note "ok: ended after ${WT_ELAPSED_MS} ms" ||
    fail "policy timeout: ended after ${WT_ELAPSED_MS} ms"
wait_for 3 no_process_matching "$marker" ||
    { fail "sleep 3030 survives the policy timeout"; kill_matching "$marker"; }
finish
