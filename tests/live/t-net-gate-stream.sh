#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A server-sent-events answer passes through ward-gate as it comes (issue
# 19): the world's /sse (chunked) sends "data: one", then waits for the
# test's go before "data: two". Each client inside (curl -N, then node's
# fetch reading the body as a stream), printing each line as it arrives,
# shows "one" while the server still holds "two": the gate relayed the
# first event without waiting for the body's end.
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
js='const [url] = process.argv.slice(1);
(async () => {
  const r = await fetch(url);
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of r.body) {
    buf += dec.decode(chunk, { stream: true });
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line) console.log("node: " + line);
    }
  }
})().catch((e) => console.log("node ERR " + e + " " + (e.cause || "")));'
prog='
curl -sS -N -m 30 "https://api.test/sse?id=curl" | while IFS= read -r l; do
	[ -n "$l" ] && echo "curl: $l"
done
node -e "$1" "https://api.test/sse?id=node" 2>/out/node.err
echo done'
rm -f "$WT_WORLD"/ctl/sse-go*
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.ini" \
    "${NET_IN[@]}" -- sh -c "$prog" sh "$js"

seen() { grep -q "^$1: data: $2" "$WT_ARTIFACTS/out"; }
for client in curl node; do
	note "--- $client"
	if wait_for 20 seen "$client" one; then
		note "ok: $client: the first event arrived in the sandbox"
	else
		fail "$client: the first event did not arrive in the sandbox within 20 s"
	fi
	assert_no_grep "$client: the second event had not come yet" \
	    "^$client: data: two" "$WT_ARTIFACTS/out"
	assert_grep "$client: the server had sent the first event" \
	    "^one sent $client\$" "$WT_WORLD/api.sse"
	assert_no_grep "$client: the server had not sent the second" \
	    "^two sent .* $client\$" "$WT_WORLD/api.sse"
	: >"$WT_WORLD/ctl/sse-go-$client"
	if wait_for 15 seen "$client" two; then
		note "ok: $client: the second event arrived after the go"
	else
		fail "$client: the second event did not arrive within 15 s of the go"
	fi
done
ward_wait 40
rm -f "$WT_WORLD"/ctl/sse-go-*
show "program output" "$WT_ARTIFACTS/out"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out"
assert_eq "the server sent each second event on the go, not at its time-out" \
    "one sent curl|two sent go curl|one sent node|two sent go node" \
    "$(tr '\n' '|' <"$WT_WORLD/api.sse" | sed 's/|$//')"
assert_api "the server saw one request for /sse from each client" api 2 \
    '.method == "GET" and .host == "api.test" and (.path | startswith("/sse?id="))'
events_json "$WT_RUN" "$WT_ARTIFACTS/events.json"
assert_log "the stream is an http event with its status" "$WT_ARTIFACTS/events.json" \
    '.kind == "http" and (tostring | test("/sse")) and (tostring | test("200"))'
finish
