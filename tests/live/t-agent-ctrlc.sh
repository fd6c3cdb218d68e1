#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 30, point 11 ("Ctrl-C Ctrl-C did not end a ward-run Codex"): in
# the console's agent pane the terminal's control keys belong to the
# program, as in its own terminal. Ctrl-C typed there reaches the
# program as SIGINT from its own pty (its trap runs and the run ends
# with the trap's status), not the console as a signal that leaves it
# with the run going on. With the keys on the requests (the prefix),
# Ctrl-C is the console's again: it leaves.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

# A marker of this test's own, so that a run it leaves behind (a failed
# check, a tree where Ctrl-C only left the console) is found and ended,
# and no other test's pattern matches it.
mark=READY-FOR-INT-$$
script="trap 'echo GOT-INT; sleep 1; exit 7' INT
echo $mark
while :; do sleep 0.3; done"
left_behind() { WT_BG_PIDS+=($(pgrep -f -- "$mark" || true)); }
tmux_start run --agent -- /bin/bash -c "$script"
expect_screen ready "$mark" 20
left_behind
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1")
tm send-keys -t ward C-c
expect_screen got 'GOT-INT' 10
run_ended() { [ -n "$(sql "SELECT ended_ms FROM runs WHERE id = '$1'")" ]; }
wait_for 10 run_ended "$run" || fail "the run did not end 10 s after Ctrl-C"
assert_eq "the run's exit code is the trap's" 7 \
    "$(sql "SELECT exit_code FROM runs WHERE id = '$run'")"
# The run is over: tmux_end_run's kill finds nothing; it leaves with q.
tmux_end_run "$run"

# The keys on the requests: Ctrl-C leaves the console; the run goes on.
tmux_start run --agent -- /bin/bash -c "$script"
expect_screen ready2 "$mark" 20
left_behind
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1")
tm send-keys -t ward C-]
sleep 0.5
tm send-keys -t ward C-c
wait_for 10 session_gone || { capture still-there; fail "Ctrl-C on the requests did not leave the console"; }
assert_eq "the run goes on after the console left" "" \
    "$(sql "SELECT ended_ms FROM runs WHERE id = '$run'")"
"$WARD" kill "$run" >/dev/null 2>&1 || fail "ward kill $run"
tmux_stop
finish
