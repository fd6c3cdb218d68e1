#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# q with a request pending asks (how many, how long, then denied); any
# other key stays; y leaves and `ward run` exits 123: the run goes on
# (issue 15, ward(1) EXIT STATUS). Ctrl-C asks the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
tmux_start run --lines --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c 'echo x > "$0/f" 2>/dev/null; sleep 30' "$WT_CANARY"
expect_screen pending "$WT_CANARY/f" 15
tm send-keys -t ward q
expect_screen asks 'leave\? 1 request waits up to [0-9]:[0-9]{2} for another console, then it is denied' 5
tm send-keys -t ward n
sleep 0.5
session_gone && die "n left the console"
on_screen 'leave\?' && fail "the question is still there after n"
tm send-keys -t ward C-c
expect_screen ctrl-c 'leave\? 1 request waits' 5
tm send-keys -t ward x
sleep 0.5
session_gone && die "x after Ctrl-C left the console"
tm send-keys -t ward q
expect_screen asks-again 'leave\?' 5
tm send-keys -t ward y
wait_for 10 session_gone || die "y did not leave"
wait_for 5 test -s "$WT_TMUX_STATUS" || true
assert_eq "ward run's exit status, run going on" 123 "$(cat "$WT_TMUX_STATUS" 2>/dev/null || echo none)"
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1" 2>/dev/null || true)
[ -n "$run" ] || die "no run recorded"
st=0
"$WARD" pending >"$WT_ARTIFACTS/pending" 2>&1 </dev/null || st=$?
assert_grep "the request still waits" "$run" "$WT_ARTIFACTS/pending"
"$WARD" kill "$run" >/dev/null 2>&1 || true
finish
