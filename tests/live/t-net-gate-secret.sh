#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# [secret TOKEN] from = env:TOKEN, hosts = api.test:443, header =
# "x-api-key: {}" (issue 19): inside the sandbox TOKEN is a phantom
# (ward-phantom-...); curl, python's urllib and requests and node's fetch
# send it to https://api.test/ trusting only what ward's environment names,
# and the world's server (its certificate from a test CA only
# [network] upstream_ca names) sees the real value from each. The value is
# nowhere in the sandbox's /proc/self/environ, /out, the run's folder, the
# record (audit.db, ward events, ward log) or ward's output. The phantom
# sent to api2.test (intercepted: an allow with a path rule) or in a URL
# to api.test, or in a body to api2.test, is refused, never reaches the
# server, and is a `secret` event in the record; so is it in a header
# other than the one its policy names. A second secret (from = file:)
# goes in its own header on the same host. curl without CURL_CA_BUNDLE
# (the sandbox's system bundle) is served too.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
gate_test_init

real=wardreal$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
# a second secret from a file, bound to the same host in another header
freal=wardfile$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$freal" >"$WT_SCRATCH/file-token"
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 3' \
    '[network]' 'connect = deny' 'http = deny' "upstream_ca = $GATE_CA" \
    'allow = api2.test:443 GET /ok/** (the control host)' \
    'allow = api2.test:443 POST /ok/**' \
    '[secret TOKEN]' 'from = env:TOKEN' 'hosts = api.test:443' \
    'header = x-api-key: {}' \
    '[secret FTOKEN]' "from = file:$WT_SCRATCH/file-token" \
    'hosts = api.test:443' 'header = Authorization: Bearer {}'

# $1 the python client, $2 node's script
js='const [url] = process.argv.slice(1);
fetch(url, { headers: { "x-api-key": process.env.TOKEN } })
  .then(async (r) => console.log("node status=" + r.status + " body=" + (await r.text()).trim()))
  .catch((e) => console.log("node ERR " + e + " " + (e.cause || "")));'
prog='
printf "phantom=%s\n" "$TOKEN"
tr "\0" "\n" </proc/self/environ >/out/environ
env >/out/env
c() {
	tag=$1; shift; rm -f /tmp/b
	code=$(curl -sS -m 20 -o /tmp/b -w "%{http_code}" "$@"); st=$?
	echo "$tag code=$code curl=$st body=$(head -n 1 /tmp/b 2>/dev/null)"
}
c curl -H "x-api-key: $TOKEN" https://api.test/curl
python3 "$1" urllib https://api.test/urllib GET "$TOKEN"
python3 "$1" requests https://api.test/requests GET "$TOKEN"
node -e "$2" https://api.test/node 2>/out/node.err
(unset CURL_CA_BUNDLE SSL_CERT_FILE; c sysbundle -H "x-api-key: $TOKEN" https://api.test/sysbundle)
c both -H "x-api-key: $TOKEN" -H "Authorization: Bearer $FTOKEN" https://api.test/both
c wronghdr -H "Authorization: Bearer $TOKEN" https://api.test/wronghdr
c plain https://api2.test/ok/plain
c postplain -d "k=plain" https://api2.test/ok/postplain
c leak -H "x-api-key: $TOKEN" https://api2.test/ok/leak
c body -d "k=$TOKEN" https://api2.test/ok/body
c url -H "x-api-key: $TOKEN" "https://api.test/url?k=$TOKEN"
c front -H "Host: api2.test" -H "x-api-key: $TOKEN" https://api.test/front
echo done'
export TOKEN=$real
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 80 --policy "$WT_SCRATCH/policy.ini" \
    "${NET_IN[@]}" -- sh -c "$prog" sh "$NET_HTTPS" "$js"
unset TOKEN
show "program output" "$WT_ARTIFACTS/out"
show "ward stderr" "$WT_ARTIFACTS/err"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out"

phantom=$(sed -nE 's/^phantom=(.*)\r?$/\1/p' "$WT_ARTIFACTS/out" | tr -d '\r')
note "phantom: $phantom"
[[ $phantom == ward-phantom-* ]] && note "ok: TOKEN inside is a phantom" ||
    fail "TOKEN inside is not a ward-phantom-...: $(printf '%q' "$phantom")"
assert_ne "the phantom is not the value" "$real" "$phantom"

# Each client's request reached the server with the value in its header.
for client in curl urllib requests node; do
	assert_api "$client: the server got the real value" api 1 \
	    ".host == \"api.test\" and .path == \"/$client\" and .[\"x-api-key\"] == \"$real\""
done
assert_grep "curl got the answer" '^curl code=200 curl=0 body=hello from api GET /curl\r?$' "$WT_ARTIFACTS/out"
assert_grep "urllib got the answer" \
    '^urllib GET https://api\.test/urllib status=200 body=hello from api GET /urllib\r?$' \
    "$WT_ARTIFACTS/out"
assert_grep "requests got the answer" \
    '^requests GET https://api\.test/requests status=200 body=hello from api GET /requests\r?$' \
    "$WT_ARTIFACTS/out"
assert_grep "node's fetch got the answer" \
    '^node status=200 body=hello from api GET /node\r?$' "$WT_ARTIFACTS/out"
assert_api "no request reached the server with the phantom" api 0 \
    ".phantom or (tostring | contains(\"$phantom\"))"

# The sandbox's system CA bundle trusts the run's CA too (curl's own
# default, without CURL_CA_BUNDLE).
assert_grep "curl with the system bundle got the answer" \
    '^sysbundle code=200 curl=0 body=hello from api GET /sysbundle\r?$' "$WT_ARTIFACTS/out"
assert_api "curl with the system bundle: the server got the value" api 1 \
    ".path == \"/sysbundle\" and .[\"x-api-key\"] == \"$real\""

# Two secrets on one host, each in its own header (the file's value
# without its newline); a phantom in a header its policy does not name
# is refused.
assert_grep "curl with both phantoms got the answer" \
    '^both code=200 curl=0 body=hello from api GET /both\r?$' "$WT_ARTIFACTS/out"
assert_api "the server got both values, each in its header" api 1 \
    ".path == \"/both\" and .[\"x-api-key\"] == \"$real\" and .authorization == \"Bearer $freal\""
assert_grep "TOKEN's phantom in the Authorization header got ward's 403" \
    '^wronghdr code=403 curl=0 body=ward: ' "$WT_ARTIFACTS/out"
assert_api "TOKEN's phantom in another header never reached api.test" api 0 \
    '.path == "/wronghdr"'

# The control: api2.test is reachable through the gate without a phantom.
assert_grep "api2.test answers a request without the phantom" \
    '^plain code=200 curl=0 body=hello from api GET /ok/plain\r?$' "$WT_ARTIFACTS/out"
assert_api "the control request reached api2.test" api 1 \
    '.host == "api2.test" and .path == "/ok/plain"'
assert_grep "api2.test answers a POST without the phantom" \
    '^postplain code=200 curl=0 body=hello from api POST /ok/postplain\r?$' "$WT_ARTIFACTS/out"
# The phantom where it may not go: refused, never at the server.
assert_grep "the phantom to api2.test got ward's 403" \
    '^leak code=403 curl=0 body=ward: ' "$WT_ARTIFACTS/out"
assert_api "the phantom never reached api2.test" api 0 '.path == "/ok/leak"'
assert_grep "the phantom in a body to api2.test got ward's 403" \
    '^body code=403 curl=0 body=ward: ' "$WT_ARTIFACTS/out"
# (its head may have gone up before the body was read: never the body)
assert_api "the phantom in a body never reached api2.test" api 0 \
    '.path == "/ok/body" and (.complete or .phantom)'
assert_grep "the phantom in a URL got ward's 403" \
    '^url code=403 curl=0 body=ward: ' "$WT_ARTIFACTS/out"
assert_api "the phantom in a URL never reached api.test" api 0 \
    '(.path | startswith("/url?"))'
# Domain fronting: on api.test's connection a request for api2.test (the
# same front end serves both) would take TOKEN's value to api2.test.
assert_grep "a request naming Host api2.test on api.test got ward's 403" \
    '^front code=403 curl=0 body=ward: ' "$WT_ARTIFACTS/out"
assert_api "the fronted request never reached the server" api 0 \
    '.path == "/front"'

# The sandbox's environment held the phantom.
rd=$(run_dir "$WT_RUN")
assert_grep "/proc/self/environ: TOKEN is the phantom" \
    "^TOKEN=$phantom\$" "$rd/out/environ"

# The record: the requests, the refusals as secret events.
events_json "$WT_RUN" "$WT_ARTIFACTS/events.json"
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
for f in events log; do
	assert_log "$f: the phantom to api2.test is a secret event" \
	    "$WT_ARTIFACTS/$f.json" \
	    '.kind == "secret" and (tostring | test("api2\\.test")) and (tostring | test("TOKEN"))'
	assert_log "$f: the phantom in a header not its own is a secret event" \
	    "$WT_ARTIFACTS/$f.json" \
	    '.kind == "secret" and (tostring | test("/wronghdr")) and (tostring | test("authorization"; "i"))'
	assert_log "$f: the phantom in a body is a secret event" \
	    "$WT_ARTIFACTS/$f.json" \
	    '.kind == "secret" and (tostring | test("/ok/body")) and (tostring | test("body"))'
	assert_log "$f: the phantom in a URL is a secret event" \
	    "$WT_ARTIFACTS/$f.json" \
	    '.kind == "secret" and (tostring | test("api\\.test")) and (tostring | test("url"))'
	assert_log "$f: curl's request is an http event naming the secret" \
	    "$WT_ARTIFACTS/$f.json" \
	    '.kind == "http" and (tostring | test("/curl")) and (tostring | test("TOKEN")) and (tostring | test("200"))'
done

# The value: nowhere but at the server.
"$WARD" events --json >"$WT_ARTIFACTS/events-all.json" 2>&1 </dev/null || true
for v in "$real" "$freal"; do
	assert_nowhere "a value is nowhere in ward's state (record, run folder, /out)" \
	    "$v" "$XDG_STATE_HOME"
	assert_nowhere "a value is nowhere in the program's or ward's output" \
	    "$v" "$WT_ARTIFACTS"
	assert_nowhere "a value is nowhere in the runtime folder" \
	    "$v" "$XDG_RUNTIME_DIR"
done
n=$(grep -rlaF -- "$phantom" "$XDG_STATE_HOME" 2>/dev/null | wc -l)
note "files of ward's state holding the phantom: $n"
finish
