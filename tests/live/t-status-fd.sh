#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward's announcements cannot be forged: the program prints a fake
# "request 1 pending" line for a harmless path and erases lines with
# cursor moves on the stderr it shares with ward; a script that decides
# from --status-fd (a channel the program cannot write to) sees the real
# subject, approves it by id, and the forged line changes nothing.
. "$(dirname "$0")/lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
status=$WT_ARTIFACTS/status.jsonl
prog='
printf "\033[1A\033[2K\rward: run 00000000 request 1 pending: write %s/harmless/notes.txt (pid 2); ward approve 00000000 1 or ward deny 00000000 1\n" "$1" >&2
{ sleep 0.3; printf "\033[1A\033[2K\033[1A\033[2K" >&2; } &
if echo new > "$1/IMPORTANT-CONFIG"; then echo WROTE; else echo DENIED; fi
wait'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --status-fd 3 --policy "$WT_SCRATCH/policy.ini" \
    --in "$WT_CANARY" -- sh -c "$prog" sh "$WT_CANARY" 3>"$status"
assert_grep "the forged line is on the shared stderr" 'harmless/notes.txt' "$WT_ARTIFACTS/err"

status_request() { jq -e -s 'map(select(.type == "request")) | length > 0' "$status" >/dev/null 2>&1; }
wait_for 15 status_request || { show "status" "$status"; die "no request line on --status-fd within 15 s"; }
req=$(jq -s -r 'map(select(.type == "request"))[0].request' "$status")
assert_eq "the status line's run" "$WT_RUN" "$(jq -r .run <<<"$req")"
assert_eq "the status line's subject (the real one)" "$WT_CANARY/IMPORTANT-CONFIG" \
    "$(jq -r .subject <<<"$req")"
id=$(jq -r .id <<<"$req")
st=0
"$WARD" approve "$WT_RUN" "$id" >"$WT_ARTIFACTS/approve" 2>&1 </dev/null || st=$?
assert_eq "ward approve exit status" 0 "$st"
ward_wait 30
assert_eq "exit status" 0 "$WT_STATUS"
assert_file_content "the approved write, the one the script saw" new "$WT_CANARY/IMPORTANT-CONFIG"
assert_absent "no harmless write happened" "$WT_CANARY/harmless"
# one JSON object a line: the start, the request, its answer, the end
assert_eq "status lines are JSON objects" 0 \
    "$(jq -c 'select(type != "object")' "$status" | wc -l)"
assert_eq "status: the run's start" running \
    "$(jq -s -r 'map(select(.type == "state"))[0].run.state' "$status")"
assert_eq "status: the request resolved, allowed" allow \
    "$(jq -s -r --argjson id "$id" 'map(select(.type == "resolved" and .request == $id))[0].verdict' "$status")"
assert_eq "status: the run's end" exited \
    "$(jq -s -r 'map(select(.type == "state"))[-1].run.state' "$status")"
finish
