#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "Always" in a real terminal (tmux, issue 15): a pending write outside,
# W shows the policy file and the line it will write, y writes it there
# (the file still parses, its mode kept) and allows the write for the run;
# `ward log` records the answer as "always: FILE:N"; a second run with the
# same policy writes the file without asking (config/policyedit.c's
# refusals, a file not the person's own, are tests/test-policyedit.c's).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
policy=$WT_SCRATCH/policy.ini
write_policy "$policy" '# mine' '[run]' 'ask_timeout = 60' '' '[files]' \
    '# asked' 'write = ask'
chmod 0640 "$policy"
target=$WT_CANARY/file

stop() {
	[ -n "${run:-}" ] && "$WARD" kill "$run" >/dev/null 2>&1 || true
	tm kill-server >/dev/null 2>&1 || true
}
trap stop EXIT

WT_TMUX_W=200 WT_TMUX_H=40
tmux_start run --policy "$policy" --in "$WT_CANARY" -- sh -c \
    'echo ready; if echo always-line >> "$0"; then echo WROTE; fi; sleep 60' \
    "$target"
expect_screen pending 'canary/file' 15
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1")
[ -n "$run" ] || die "no run in the record"

# W arms like A: the request must have been on screen a moment first.
sleep 1.5
tm send-keys -t ward W
if ! wait_for 5 on_screen 'always: writes'; then
	note "no prompt 5 s after W; pressing it once more"
	tm send-keys -t ward W
fi
expect_screen prompt "always: writes $policy, \[files\] line 8: allow =" 10
capture prompt
assert_grep "the prompt names the line's entry" "$target" "$WT_SCRATCH/screen.txt"
canary_untouched
assert_no_grep "nothing written before y" "always" "$policy"

tm send-keys -t ward y
expect_screen wrote 'WROTE' 10
expect_screen written "written to .*line 8" 5
assert_file_content "host file, allowed for the run" \
    "$(printf 'old\nalways-line')" "$target"
want=$(printf '# mine\n[run]\nask_timeout = 60\n\n[files]\n# asked\nwrite = ask\nallow = %s ; always, from run %s' "$target" "$run")
assert_file_content "the policy file, the line added" "$want" "$policy"
assert_eq "the policy file's mode" 640 "$(stat -c %a "$policy")"
assert_eq "the policy file's owner" "$(id -u)" "$(stat -c %u "$policy")"

# The record says where the rule went.
log_json "$run" "$WT_SCRATCH/log.json"
assert_log "the answer is recorded as always" "$WT_SCRATCH/log.json" \
    ".subject == \"$target\" and .verdict == \"allow\" and
     (.decided_by | contains(\"always: $policy:8\"))"
"$WARD" log "$run" >"$WT_ARTIFACTS/log.txt" 2>&1 </dev/null || true
assert_grep "ward log shows the always" "always: $policy:8" "$WT_ARTIFACTS/log.txt"

"$WARD" kill "$run" >/dev/null 2>&1 || fail "ward kill"
expect_screen killed 'killed' 15
tm send-keys -t ward q
run=

# A second run with the same policy writes unasked (it would wait 60 s).
ward_fg "$WT_SCRATCH/out2" "$WT_SCRATCH/err2" run --headless \
    --policy "$policy" --in "$WT_CANARY" -- sh -c 'echo second >> "$0"' \
    "$target"
assert_eq "second run's exit status" 0 "$WT_STATUS"
[ "$WT_ELAPSED_MS" -lt 30000 ] || fail "the second run waited ${WT_ELAPSED_MS} ms"
assert_file_content "host file after the second run" \
    "$(printf 'old\nalways-line\nsecond')" "$target"

finish
