#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The supervisor's side of the gate (issue 19): a phantom in a name looked
# up is refused (NXDOMAIN) and recorded as a secret event "TOKEN to dns";
# and ward-gate killed mid-run, the run goes on: the next connection to
# the intercepted host is refused (ECONNREFUSED) and the record says why
# (an http event "ward-gate", the connect denied naming the gate), while
# a host the gate does not intercept still connects.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
gate_test_init

value="w19-value-$$-$RANDOM"
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 3' \
    '[network]' 'connect = deny' 'http = deny' "upstream_ca = $GATE_CA" \
    'allow = api2.test:443 (not intercepted: no secret, no HTTP rule)' \
    '[secret TOKEN]' 'from = env:W19_TOKEN' 'hosts = api.test:443' \
    'header = x-api-key: {}'
prog='
c() { curl -sS -m 20 -w " code=%{http_code}\n" "$@"; echo "curl=$?"; }
python3 -c "
import os, socket
try:
    socket.getaddrinfo(os.environ[\"TOKEN\"] + \".api.test\", 443)
    print(\"lookup resolved\")
except socket.gaierror as e:
    print(\"lookup refused\", e.errno)
"
c -H "x-api-key: $TOKEN" https://api.test/before
echo first
while [ ! -e /out/go ]; do sleep 0.1; done
c -H "x-api-key: $TOKEN" https://api.test/after
c -k https://api2.test/plain
echo done'
export W19_TOKEN=$value
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.ini" \
    "${NET_IN[@]}" -- sh -c "$prog"
unset W19_TOKEN
if ! wait_for 30 grep -q '^first' "$WT_ARTIFACTS/out"; then
	show "program output" "$WT_ARTIFACTS/out"
	die "the program did not make its first request"
fi
# The gate is the supervisor's child (the sandbox's init is the other).
gate=$(pgrep -P "$WT_PID" -f 'ward-gate' || true)
assert_ne "ward-gate runs beside the supervisor" "" "$gate"
[ -n "$gate" ] && kill -KILL $gate
if wait_for 10 grep -q 'TLS gate is gone' "$WT_ARTIFACTS/err"; then
	note "ok: the supervisor said the gate is gone"
else
	fail "no line on stderr saying the TLS gate is gone"
	show "ward stderr" "$WT_ARTIFACTS/err"
fi
touch "$(run_dir "$WT_RUN")/out/go"
ward_wait 30
show "program output" "$WT_ARTIFACTS/out"
assert_eq "exit status (the run went on)" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out"
assert_grep "the phantom in a name was not resolved" '^lookup refused' \
    "$WT_ARTIFACTS/out"
assert_grep "the request before through the gate" \
    '^hello from api GET /before' "$WT_ARTIFACTS/out"
assert_api "the server got the value before" api 1 \
    ".path == \"/before\" and .\"x-api-key\" == \"$value\""
# curl: 7 is "could not connect": refused, never relayed
assert_grep "the request after was refused at connect" '^curl=7\r?$' \
    "$WT_ARTIFACTS/out"
assert_api "the server never saw the request after" api 0 '.path == "/after"'
assert_grep "a host the gate does not intercept still connects" \
    '^hello from api GET /plain' "$WT_ARTIFACTS/out"

events_json "$WT_RUN" "$WT_ARTIFACTS/events.json"
assert_log "the phantom in a lookup is a secret event" \
    "$WT_ARTIFACTS/events.json" \
    '.kind == "secret" and .subject == "TOKEN to dns" and .verdict == "deny" and (.detail | test("in dns"))'
assert_log "the gate's end is an http event" "$WT_ARTIFACTS/events.json" \
    '.kind == "http" and .subject == "ward-gate" and .verdict == "deny"'
assert_log "the connect after is denied, naming the gate" \
    "$WT_ARTIFACTS/events.json" \
    '.kind == "connect" and (.subject | test("api\\.test")) and .verdict == "deny" and (.detail | test("gate is gone"))'
assert_nowhere "the value is nowhere in ward's state" "$value" \
    "$XDG_STATE_HOME" "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err"
finish
