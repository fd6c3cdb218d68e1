#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Requests whose asker is gone are closed (issue 31), with nobody
# answering, well before ask_timeout (120 s here):
#  - dns: a lookup of a name no rule names (connect = ask) while nobody
#    answers; the program's resolver (glibc, from the resolv.conf ward
#    gives: options timeout:5 attempts:2) gives up after 10 s, and the
#    request is closed as "asker gone" once 11 s passed with no query
#    for it (the record: ward events --json), no longer pending, while
#    the program runs on;
#  - connect: a process blocked in a trapped connect is killed (from
#    inside, by its parent); its request is closed as "asker gone"
#    within about a second.
# Neither waits for the supervisor's own timeout (how "timeout").
. "$(dirname "$0")/lib.sh"

write_policy "$WT_SCRATCH/policy.ini" '[run]' 'ask_timeout = 120' \
    '[network]' 'connect = ask'

# gone_row RUN SUBJECT: the record's decided row of SUBJECT, as JSON.
gone_row() {
	"$WARD" events --run "$1" --json </dev/null 2>/dev/null |
	    jq -c --arg s "$2" 'select((.subject | startswith($s)) and .state != "asked")' |
	    tail -n 1
}
closed() { [ -n "$(gone_row "$1" "$2")" ]; }

# --- a lookup its resolver gave up on
dns='import socket, time
t = time.time()
try:
    socket.getaddrinfo("gone.test", 443)
    print("resolved")
except socket.gaierror as e:
    print("gave up after %.0f s" % (time.time() - t), flush=True)
time.sleep(60)'
ward_bg "$WT_ARTIFACTS/out.dns" "$WT_ARTIFACTS/err.dns" run --headless \
    --timeout 100 --policy "$WT_SCRATCH/policy.ini" -- python3 -c "$dns"
wait_pending "$WT_ARTIFACTS/err.dns" 30
assert_eq "dns: the request is a lookup" dns "$WT_REQ_KIND"
t0=$(now_ms)
RUND=$WT_RUN PIDD=$WT_PID
if wait_for 40 closed "$RUND" gone.test; then
	secs=$(( ($(now_ms) - t0) / 1000 ))
	note "dns: closed ${secs} s after it was asked"
	[ "$secs" -le 25 ] || fail "dns: closed only after $secs s"
else
	fail "dns: the lookup was not closed within 40 s (ask_timeout 120 s)"
fi
row=$(gone_row "$RUND" gone.test)
note "dns: $row"
assert_eq "dns: recorded as closed for its asker" "asker gone" \
    "$(jq -r '.decided_by' <<<"$row")"
assert_eq "dns: denied" deny "$(jq -r '.verdict' <<<"$row")"
assert_eq "dns: by the supervisor, not the timeout" supervisor \
    "$(jq -r '.how' <<<"$row")"
assert_eq "dns: its request id" "$WT_REQ" "$(jq -r '.request_id' <<<"$row")"
assert_grep "dns: the program's resolver had given up" '^gave up after 1[0-9] s' \
    "$WT_ARTIFACTS/out.dns"
assert_grep "dns: headless, said on ward's stderr" \
    "^ward: run $RUND request $WT_REQ closed: asker gone" "$WT_ARTIFACTS/err.dns"
"$WARD" pending --json "$RUND" >"$WT_ARTIFACTS/pending.dns.json" </dev/null || true
assert_eq "dns: nothing pending any more" 0 \
    "$(jq 'length' "$WT_ARTIFACTS/pending.dns.json" 2>/dev/null || echo x)"
kill -0 "$PIDD" 2>/dev/null || fail "dns: the run ended (it should sleep on)"
"$WARD" kill "$RUND" >/dev/null 2>&1 </dev/null || true
WT_PID=$PIDD
ward_wait 20

# --- a connect whose process was killed while it waited
conn='import subprocess, sys, time
p = subprocess.Popen([sys.executable, "-c",
    "import socket; socket.create_connection((\"192.0.2.7\", 443), timeout=100)"])
time.sleep(float(sys.argv[1]))
p.kill()
p.wait()
print("killed", flush=True)
time.sleep(60)'
ward_bg "$WT_ARTIFACTS/out.conn" "$WT_ARTIFACTS/err.conn" run --headless \
    --timeout 100 --policy "$WT_SCRATCH/policy.ini" -- python3 -c "$conn" 4
wait_pending "$WT_ARTIFACTS/err.conn" 30
assert_eq "connect: the request is a connect" connect "$WT_REQ_KIND"
RUNC=$WT_RUN PIDC=$WT_PID
wait_for 10 grep -q '^killed' "$WT_ARTIFACTS/out.conn" ||
    fail "connect: the asking process was not killed"
t0=$(now_ms)
if wait_for 10 closed "$RUNC" 192.0.2.7:443; then
	ms=$(( $(now_ms) - t0 ))
	note "connect: closed ${ms} ms after its process was killed"
	[ "$ms" -le 2000 ] || fail "connect: closed only $ms ms after the kill"
else
	fail "connect: not closed within 10 s of its process's death"
fi
row=$(gone_row "$RUNC" 192.0.2.7:443)
note "connect: $row"
assert_eq "connect: recorded as closed for its asker" "asker gone" \
    "$(jq -r '.decided_by' <<<"$row")"
assert_eq "connect: denied" deny "$(jq -r '.verdict' <<<"$row")"
assert_eq "connect: its request id" "$WT_REQ" "$(jq -r '.request_id' <<<"$row")"
"$WARD" kill "$RUNC" >/dev/null 2>&1 </dev/null || true
WT_PID=$PIDC
ward_wait 20
finish
