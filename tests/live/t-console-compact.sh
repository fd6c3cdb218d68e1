#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A terminal below 80x24 (60x15): the compact layout shows the selected
# request, its countdown and the pending count; `a` does not approve from
# it, Enter shows the request whole and `a` approves there (issue 15).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
WT_TMUX_W=60 WT_TMUX_H=15 tmux_start run --lines \
    --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c 'echo x > "$0/f" 2>/dev/null; echo DONE; sleep 30' "$WT_CANARY"
expect_screen compact 'pending: 1 \(#1, 1 of 1\)' 15
s=$WT_SCRATCH/screen.txt
assert_grep "the pending count in the title" ' 1 pending' "$s"
assert_grep "the countdown" 'denied in [0-9]:[0-9]{2}' "$s"
assert_grep "the subject" 'canary/f' "$s"
sleep 1
tm send-keys -t ward a
sleep 1
capture after-a
[ ! -e "$WT_CANARY/f" ] || fail "a approved from the compact layout"
tm send-keys -t ward Enter
expect_screen detail 'request #1' 5
# The whole request is taller than 15 rows here: it counts as read once
# its last line has been on screen (G), then `a` arms.
tm send-keys -t ward G
sleep 1
tm send-keys -t ward a
wait_for 5 test -s "$WT_CANARY/f" || capture after-enter-a
assert_file_content "approved from the whole view" "x" "$WT_CANARY/f"
tmux_end_run
finish
