#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward events --follow --json: started before any run (no record yet), it
# sees a run's start, its request as asked, the decision and the end, in
# order and within a second of each, every line valid JSON; --since
# resumes; --follow --run stops once that run has ended.
. "$(dirname "$0")/lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

EV=$WT_ARTIFACTS/events.jsonl
"$WARD" events --follow --json >"$EV" 2>"$WT_ARTIFACTS/events.err" </dev/null &
ev_pid=$!
WT_BG_PIDS+=("$ev_pid")
sleep 0.3

# jq -e over the lines so far: does one match?
ev_has() { jq -e -s "map(select($1)) | length > 0" "$EV" >/dev/null 2>&1; }
# wait_event WHAT FILTER: within a second of now.
wait_event() {
	local t0=$(now_ms)
	if wait_for 1 ev_has "$2"; then
		note "ok: $1 seen by ward events in $(($(now_ms) - t0)) ms"
	else
		show "ward events" "$EV"
		show "ward events stderr" "$WT_ARTIFACTS/events.err"
		fail "$1: not in ward events --follow within a second"
	fi
}

prog='
if echo new > "$1/file"; then echo "WROTE"; else echo "DENIED"; fi
i=0; while [ ! -e "$1/go" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
echo DONE'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" sh "$WT_CANARY"
wait_event "the run's start" ".run == \"$WT_RUN\" and .kind == \"run\" and .subject == \"start\""
wait_pending "$WT_ARTIFACTS/err"
wait_event "the request, asked" ".run == \"$WT_RUN\" and .request_id == $WT_REQ and .state == \"asked\" and .verdict == \"ask\" and .subject == \"$WT_CANARY/file\""

st=0
"$WARD" approve "$WT_RUN" "$WT_REQ" >"$WT_ARTIFACTS/approve" 2>&1 </dev/null || st=$?
assert_eq "ward approve exit status" 0 "$st"
wait_event "the decision" ".run == \"$WT_RUN\" and .request_id == $WT_REQ and .state == \"done\" and .verdict == \"allow\" and .how == \"person\" and (.decided_by | test(\"uid $(id -u) \"))"

touch "$WT_CANARY/go"
ward_wait 30
assert_eq "exit status" 0 "$WT_STATUS"
wait_event "the run's end" ".run == \"$WT_RUN\" and .kind == \"run\" and .subject == \"exit\""

# A second run, started after the follower: seen too.
ward_bg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" \
    run --headless --policy "$WT_SCRATCH/policy.ini" -- true
RUN1=$(sed -n 1p <<<"$(jq -r -s 'map(select(.kind == "run" and .subject == "start")) | .[0].run' "$EV")")
wait_event "a run started later" ".run == \"$WT_RUN\" and .kind == \"run\" and .subject == \"start\""
ward_wait 30
kill "$ev_pid" 2>/dev/null || true
wait "$ev_pid" 2>/dev/null || true

# Every line is one JSON object with the documented fields.
bad=$(jq -c 'select((has("seq") and has("run") and has("time") and has("time_ms") and has("kind") and has("verdict") and has("how") and has("decided_by") and has("wait_ms") and has("request_id") and has("state")) | not)' "$EV" 2>&1 | head -n 3)
n=$(wc -l <"$EV")
if [ -z "$bad" ] && jq -e . "$EV" >/dev/null 2>&1 && [ "$n" -ge 5 ]; then
	note "ok: $n lines, each a JSON object with the documented fields"
else
	show "ward events" "$EV"
	fail "ward events --json: a line is not JSON or lacks a field: $bad"
fi
# time is RFC 3339 UTC with milliseconds, time_ms the same instant.
if jq -e -s 'all(.[]; (.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$")) and ((.time | sub("\\.[0-9]{3}Z$"; "Z") | fromdateiso8601) * 1000 + (.time[20:23] | tonumber) == .time_ms))' "$EV" >/dev/null; then
	note "ok: time is RFC 3339 UTC with ms, equal to time_ms"
else
	fail "time and time_ms disagree, or time is not RFC 3339 UTC with ms"
fi
# In order: start, asked, done, end of run 1.
order=$(jq -r --arg r "$RUN1" 'select(.run == $r) | if .kind == "run" then .subject else .state end' "$EV" | grep -E '^(start|asked|done|exit)$' | tr '\n' ' ')
assert_eq "run $RUN1 in order" "start asked done exit " "$order"

# --since: resumes at the decision (its time_ms), nothing before it.
since=$(jq -r -s --arg r "$RUN1" 'map(select(.run == $r and .state == "done")) | .[0].time_ms' "$EV")
st=0
"$WARD" events --json --since "$since" >"$WT_ARTIFACTS/since.jsonl" 2>&1 </dev/null || st=$?
assert_eq "ward events --since exit status" 0 "$st"
if jq -e -s --argjson t "$since" 'length > 0 and all(.[]; .time_ms >= $t)' "$WT_ARTIFACTS/since.jsonl" >/dev/null &&
   jq -e -s --arg r "$RUN1" 'map(select(.run == $r and .subject == "exit")) | length == 1' "$WT_ARTIFACTS/since.jsonl" >/dev/null; then
	note "ok: --since $since resumes there"
else
	show "since" "$WT_ARTIFACTS/since.jsonl"
	fail "ward events --since did not resume at $since"
fi
iso=$(jq -r -s --arg r "$RUN1" 'map(select(.run == $r and .state == "done")) | .[0].time' "$EV")
"$WARD" events --json --since "$iso" >"$WT_ARTIFACTS/since2.jsonl" 2>&1 </dev/null || true
assert_eq "--since RFC 3339 = --since time_ms" "$(wc -l <"$WT_ARTIFACTS/since.jsonl")" "$(wc -l <"$WT_ARTIFACTS/since2.jsonl")"

# ward log: local time with its offset (RFC 3339), the same instant in
# any zone (POSIX TZ strings: no zone files needed).
TZ=IST-5:30 "$WARD" log "$RUN1" >"$WT_ARTIFACTS/log-ist.txt" 2>&1 </dev/null || true
TZ=UTC0 "$WARD" log "$RUN1" >"$WT_ARTIFACTS/log-utc.txt" 2>&1 </dev/null || true
assert_grep "ward log in +05:30 says so" "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\+05:30	$RUN1	run	" "$WT_ARTIFACTS/log-ist.txt"
assert_grep "ward log in UTC ends its times with Z" "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z	$RUN1	run	" "$WT_ARTIFACTS/log-utc.txt"
t_ist=$(head -n 1 "$WT_ARTIFACTS/log-ist.txt" | cut -f1)
t_utc=$(head -n 1 "$WT_ARTIFACTS/log-utc.txt" | cut -f1)
assert_eq "the same instant in both zones" "$(date -u -d "$t_utc" +%s 2>&1)" "$(date -u -d "$t_ist" +%s 2>&1)"

# --follow --run of a run that has ended: prints it and stops.
st=0
timeout 10 "$WARD" events --follow --run "$RUN1" >"$WT_ARTIFACTS/run.txt" 2>&1 </dev/null || st=$?
assert_eq "ward events --follow --run ENDED exit status" 0 "$st"
assert_grep "the text form names the run's end" "^[0-9T:.-]+Z	$RUN1	run	none	supervisor	exit	" "$WT_ARTIFACTS/run.txt"
st=0
"$WARD" events --run nosuchrun >"$WT_ARTIFACTS/nosuch" 2>&1 </dev/null || st=$?
assert_eq "ward events --run of no run exit status" 1 "$st"
# A reader that has gone (`ward events | head -1`) is no error: stdout a
# pipe whose read end is already closed, so every write meets EPIPE.
st=0
E="$WT_ARTIFACTS/epipe.err" python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=open(os.environ["E"], "wb"),
    stdin=subprocess.DEVNULL)
sys.exit(p.returncode)' "$WARD" events || st=$?
assert_eq "ward events into a pipe with no reader: exit status" 0 "$st"
assert_eq "ward events into a pipe with no reader: stderr" "" "$(cat "$WT_ARTIFACTS/epipe.err")"
first=$("$WARD" events 2>"$WT_ARTIFACTS/head.err" </dev/null | head -n 1)
[ -n "$first" ] || fail "ward events | head -1 printed nothing"
assert_eq "ward events | head -1: stderr" "" "$(cat "$WT_ARTIFACTS/head.err")"
# A full disk is still an error.
st=0
"$WARD" events >/dev/full 2>"$WT_ARTIFACTS/full.err" </dev/null || st=$?
assert_eq "ward events >/dev/full: exit status" 1 "$st"
assert_grep "ward events >/dev/full says why" "cannot write output" "$WT_ARTIFACTS/full.err"
st=0
"$WARD" events --since yesterday >"$WT_ARTIFACTS/bad" 2>&1 </dev/null || st=$?
assert_eq "ward events --since of no time exit status" 2 "$st"
finish
