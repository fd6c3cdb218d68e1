#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An upstream whose certificate does not verify is refused (issue 19):
# bad.test:8443 (intercepted by an HTTP rule) presents a certificate for
# its name from a CA other than the one [network] upstream_ca names. The
# client inside gets an error (TLS or connection closed, never the
# server's answer), the server never reads a request (nor completes a
# handshake), and the record has the refusal naming the certificate. In
# the same run api.test, verified by that CA, answers through the gate.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
gate_test_init

write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 3' \
    '[network]' 'connect = deny' 'http = deny' "upstream_ca = $GATE_CA" \
    "allow = bad.test:$NW_BAD_PORT GET /** (the bad upstream)" \
    'allow = api.test:443 GET /** (the good one)'
prog='
c() {
	tag=$1; shift; rm -f /tmp/b
	code=$(curl -sS -m 20 -o /tmp/b -w "%{http_code}" "$@"); st=$?
	echo "$tag code=$code curl=$st body=$(head -n 1 /tmp/b 2>/dev/null)"
}
c bad https://bad.test:'"$NW_BAD_PORT"'/bad
python3 "$1" urllib https://bad.test:'"$NW_BAD_PORT"'/bad-urllib
c good https://api.test/good
echo done'
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.ini" \
    "${NET_IN[@]}" -- sh -c "$prog" sh "$NET_HTTPS"
show "program output" "$WT_ARTIFACTS/out"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out"
assert_no_grep "no answer of the bad server reached the sandbox" 'hello from bad' \
    "$WT_ARTIFACTS/out"
# curl: an error of its own (35 TLS, 52 empty reply, 56 closed or
# reset), or a gateway error ward answers with; never a 2xx
assert_grep "curl to the bad upstream failed (TLS error, closed, or 5xx)" \
    '^bad code=(000 curl=(35|52|56)|5[0-9]{2} curl=0) ' "$WT_ARTIFACTS/out"
assert_grep "urllib to the bad upstream got an error" \
    "^urllib GET https://bad\\.test:$NW_BAD_PORT/bad-urllib (ERR |status=5)" \
    "$WT_ARTIFACTS/out"
assert_grep "the good upstream answered in the same run" \
    '^good code=200 curl=0 body=hello from api GET /good\r?$' "$WT_ARTIFACTS/out"
assert_api "the bad server read no request" bad 0 true
assert_eq "handshakes the bad server completed" 0 "$(world_count bad)"
assert_api "the good server read the good request" api 1 '.path == "/good"'

events_json "$WT_RUN" "$WT_ARTIFACTS/events.json"
assert_log "the refusal is in the record, naming the certificate" \
    "$WT_ARTIFACTS/events.json" \
    '(tostring | test("bad\\.test")) and (tostring | test("certificate"; "i"))'
finish
