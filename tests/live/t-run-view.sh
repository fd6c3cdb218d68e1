#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward run --view` (and so `ward demo --view`, for a projector): the
# run's own console is read-only, its answer keys answer nothing, and the
# request is answered from another terminal (`ward approve`); the console
# then shows the run going on and ending.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
tmux_start run --view --name viewrun --policy "$WT_SCRATCH/policy.ini" \
    --in "$WT_CANARY" -- sh -c 'echo x > "$0/f" && echo WROTE-IT; sleep 2' "$WT_CANARY"
expect_screen view 'view only' 15
expect_screen pending "$WT_CANARY/f" 10
sleep 1
for k in K y d a; do
	tm send-keys -t ward "$k"
	sleep 0.7
done
capture keys
assert_grep "the console says it cannot answer" 'view only: this console cannot answer' "$WT_SCRATCH/screen.txt"
[ ! -e "$WT_CANARY/f" ] || fail "the view console's a answered"
"$WARD" approve viewrun 1 >"$WT_ARTIFACTS/approve" 2>&1 </dev/null ||
    { show approve "$WT_ARTIFACTS/approve"; fail "ward approve from elsewhere failed"; }
wait_for 10 test -e "$WT_CANARY/f" || fail "the approval from elsewhere did not reach the program"
expect_screen ended 'exited 0' 15
tm send-keys -t ward q
wait_for 10 session_gone || fail "q after the end did not leave"
assert_eq "ward run --view's status once the run ended" 0 "$(cat "$WT_TMUX_STATUS" 2>/dev/null)"
finish
