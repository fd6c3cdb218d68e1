#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fail closed: SIGKILL to ward-supervisor takes the sandbox with it.
. "$(dirname "$0")/lib.sh"

marker='^sleep 300[34]$'
no_leftovers "$marker"

ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless -- sh -c 'sleep 3003 & sleep 3004 & wait'
two() { [ "$(pids_matching "$marker" | wc -l)" -ge 2 ]; }
wait_for 10 two || die "the two sleeps never showed up in the host's process list"

# A headless ward supervises its run itself: our child is the supervisor.
headless_supervisor "$WT_PID"
sup=$WT_PID
note "killing the supervisor, ward pid $sup, with SIGKILL"
kill -KILL "$sup"

if wait_for 5 no_process_matching "$marker"; then
	note "ok: no sleep survives the supervisor"
else
	ps -eo pid,ppid,stat,cmd >"$WT_ARTIFACTS/ps" || true
	fail "survivors 5 s after SIGKILL to the supervisor: $(pids_matching "$marker" | tr '\n' ' ')"
	kill_matching "$marker"
fi
ward_wait 10
assert_ne "ward's exit status" 0 "$WT_STATUS"
finish
