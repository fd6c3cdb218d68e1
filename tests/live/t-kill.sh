#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward kill` ends the whole process tree of a run.
. "$(dirname "$0")/lib.sh"

marker='^sleep 300[12]$'
no_leftovers "$marker"

ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless -- sh -c 'sleep 3001 & sleep 3002 & wait'
two() { [ "$(pids_matching "$marker" | wc -l)" -ge 2 ]; }
wait_for 10 two || die "the two sleeps never showed up in the host's process list"
note "sleeps running as host pids $(pids_matching "$marker" | tr '\n' ' ')"

st=0
"$WARD" kill "$WT_RUN" >"$WT_ARTIFACTS/kill" 2>&1 </dev/null || st=$?
assert_eq "ward kill exit status" 0 "$st"
if wait_for 5 no_process_matching "$marker"; then
	note "ok: no sleep survives"
else
	ps -eo pid,ppid,stat,cmd >"$WT_ARTIFACTS/ps" || true
	fail "survivors 5 s after ward kill: $(pids_matching "$marker" | tr '\n' ' ')"
	kill_matching "$marker"
fi
ward_wait 10
assert_ne "ward's exit status after a kill" 0 "$WT_STATUS"
assert_eq "ward's exit status after a kill (128+SIGKILL)" 137 "$WT_STATUS"
no_process_matching "ward(-supervisor)? .*sleep 3001" && note "ok: supervisor gone" ||
    fail "a supervisor of the run still running: $(pids_matching "ward(-supervisor)? .*sleep 3001" | tr '\n' ' ')"

log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "a run kill event" "$WT_ARTIFACTS/log.json" \
    '.kind == "run" and (.verdict == "kill" or (((.subject // "") + " " + (.detail // "")) | test("kill")))'
assert_log "the kill was a person's" "$WT_ARTIFACTS/log.json" \
    '.kind == "run" and .how == "person"'
finish
