#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A server-sent-events answer passes through ward-gate as it comes (issue
# 19): the world's /sse (chunked) sends "data: one", then waits for the
# test's go before "data: two". The client inside (curl -N, each line
# printed as it arrives) shows "one" while the server still holds "two":
# the gate relayed the first event without waiting for the body's end.
# Intercepted by an HTTP rule: allow = api.test:443 GET /sse.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
gate_test_init

write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 3' \
    '[network]' 'connect = deny' 'http = deny' "upstream_ca = $GATE_CA" \
    'allow = api.test:443 GET /sse (the stream)'
prog='
curl -sS -N -m 30 https://api.test/sse | while IFS= read -r l; do
	[ -n "$l" ] && echo "sse: $l"
done
echo done'
rm -f "$WT_WORLD/ctl/sse-go"
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.ini" \
    "${NET_IN[@]}" -- sh -c "$prog" sh

seen_one() { grep -q '^sse: data: one' "$WT_ARTIFACTS/out"; }
if wait_for 20 seen_one; then
	note "ok: the first event arrived in the sandbox"
else
	fail "the first event did not arrive in the sandbox within 20 s"
fi
assert_no_grep "the second event had not come yet" '^sse: data: two' "$WT_ARTIFACTS/out"
assert_file_content "the server had sent only the first event" "one sent" \
    "$WT_WORLD/api.sse"
: >"$WT_WORLD/ctl/sse-go"
ward_wait 40
rm -f "$WT_WORLD/ctl/sse-go"
show "program output" "$WT_ARTIFACTS/out"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the second event arrived after the go" '^sse: data: two\r?$' "$WT_ARTIFACTS/out"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out"
assert_eq "the server sent the second event on the go, not at its time-out" \
    "one sent|two sent go" "$(tr '\n' '|' <"$WT_WORLD/api.sse" | sed 's/|$//')"
assert_api "the server saw one request for /sse" api 1 \
    '.method == "GET" and .host == "api.test" and .path == "/sse"'
events_json "$WT_RUN" "$WT_ARTIFACTS/events.json"
assert_event "the stream is an http event with its status" "$WT_ARTIFACTS/events.json" \
    '.kind == "http" and (tostring | test("/sse")) and (tostring | test("200"))'
finish
