#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# HTTP method/path rules (issue 19): allow = api2.test:443 GET /repos/acme/**
# makes the host intercepted. With [network] http = deny, GET /repos/acme/x
# passes (the world's server logs it), POST to the same path and GET
# outside the rule's path get ward's 403 with a one-line body and never
# reach the server; the record has each as an http event. With
# http = ask, the POST waits as a request of kind http (ward pending
# shows it); approved it reaches the server, denied it is a 403.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
gate_test_init

policy() {
	write_policy "$1" \
	    '[run]' 'ask_timeout = 30' \
	    '[network]' 'connect = deny' "http = $2" "upstream_ca = $GATE_CA" \
	    'allow = api2.test:443 GET /repos/acme/** (read the team'"'"'s repos)'
}

# --- http = deny
note "--- http = deny"
policy "$WT_SCRATCH/deny.ini" deny
prog='
c() { curl -sS -m 20 -o /tmp/body -w "%{http_code}" "$@"; echo " curl=$?"; }
printf "get "; c https://api2.test/repos/acme/x; cat /tmp/body
printf "post "; c -X POST -d "title=hi" https://api2.test/repos/acme/x
printf "post-body-lines %s\n" "$(wc -l </tmp/body)"; sed "s/^/post-body: /" /tmp/body
printf "other "; c https://api2.test/repos/other/x
python3 "$1" requests https://api2.test/repos/acme/y
python3 "$1" requests https://api2.test/repos/acme/y DELETE
echo done'
ward_fg "$WT_ARTIFACTS/out.rules" "$WT_ARTIFACTS/err.rules" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/deny.ini" \
    "${NET_IN[@]}" -- sh -c "$prog" sh "$NET_HTTPS"
show "program output" "$WT_ARTIFACTS/out.rules"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out.rules"
assert_grep "GET /repos/acme/x passed" '^get 200 curl=0\r?$' "$WT_ARTIFACTS/out.rules"
assert_grep "GET /repos/acme/x got the server's answer" \
    '^hello from api GET /repos/acme/x\r?$' "$WT_ARTIFACTS/out.rules"
assert_grep "POST /repos/acme/x got a 403" '^post 403 curl=0\r?$' "$WT_ARTIFACTS/out.rules"
assert_grep "the 403's body is one line" '^post-body-lines 1\r?$' "$WT_ARTIFACTS/out.rules"
assert_grep "the 403's body says why" '^post-body: .*[A-Za-z]' "$WT_ARTIFACTS/out.rules"
assert_no_grep "the 403's body is not the server's" '^post-body: hello from' \
    "$WT_ARTIFACTS/out.rules"
assert_grep "GET outside the rule's path got a 403" '^other 403 curl=0\r?$' \
    "$WT_ARTIFACTS/out.rules"
assert_grep "requests: GET passed" \
    '^requests GET https://api2\.test/repos/acme/y status=200 body=hello from api GET /repos/acme/y\r?$' \
    "$WT_ARTIFACTS/out.rules"
assert_grep "requests: DELETE got a 403" \
    '^requests DELETE https://api2\.test/repos/acme/y status=403 ' "$WT_ARTIFACTS/out.rules"
assert_api "the server saw the GETs" api 2 \
    '.method == "GET" and .host == "api2.test" and (.path | startswith("/repos/acme/"))'
assert_api "the server never saw a refused request" api 0 \
    '.method != "GET" or (.path | startswith("/repos/acme/") | not)'
assert_no_pending "nobody was asked (http = deny)" "$WT_ARTIFACTS/err.rules"

events_json "$WT_RUN" "$WT_ARTIFACTS/events.rules.json"
ev=$WT_ARTIFACTS/events.rules.json
assert_log "the allowed GET is an http event with its rule and status" "$ev" \
    '.kind == "http" and (tostring | test("GET")) and (tostring | test("/repos/acme/x")) and (tostring | test("/repos/acme/\\*\\*")) and (tostring | test("200"))'
assert_log "the refused POST is an http event" "$ev" \
    '.kind == "http" and (tostring | test("POST")) and (tostring | test("/repos/acme/x")) and .verdict == "deny"'
assert_log "the refused GET outside the path is an http event" "$ev" \
    '.kind == "http" and (tostring | test("/repos/other/x")) and .verdict == "deny"'

# --- http = ask: approved, then denied
prog='
c() { curl -sS -m 40 -o /tmp/body -w "%{http_code}" "$@"; echo " curl=$?"; }
printf "post "; c -X POST -d "title=hi" https://api2.test/repos/acme/asked
cat /tmp/body; echo
echo done'
policy "$WT_SCRATCH/ask.ini" ask
for answer in approve deny; do
	note "--- http = ask, $answer"
	ward_bg "$WT_ARTIFACTS/out.$answer" "$WT_ARTIFACTS/err.$answer" \
	    run --headless --timeout 60 --policy "$WT_SCRATCH/ask.ini" \
	    "${NET_IN[@]}" -- sh -c "$prog" sh
	wait_pending_kind "$WT_ARTIFACTS/err.$answer" http 20
	assert_eq "pending kind" http "$WT_REQ_KIND"
	if [[ $WT_REQ_PATH == *POST* && $WT_REQ_PATH == *api2.test* &&
	    $WT_REQ_PATH == */repos/acme/asked* ]]; then
		note "ok: the pending request names method, host and path: $WT_REQ_PATH"
	else
		fail "the pending request does not name POST, api2.test and /repos/acme/asked: $WT_REQ_PATH"
	fi
	st=0
	"$WARD" pending --json >"$WT_ARTIFACTS/pending.$answer.json" 2>&1 </dev/null || st=$?
	assert_eq "ward pending --json exit status" 0 "$st"
	assert_eq "ward pending --json: one http request of the run" 1 \
	    "$(jq --arg r "$WT_RUN" '[.[] | select(.run == $r and .kind == "http")] | length' \
	    "$WT_ARTIFACTS/pending.$answer.json" 2>/dev/null || echo bad)"
	# (the approved round's POST is in the log before the denied round)
	seen=0
	[ "$answer" = deny ] && seen=1
	assert_api "the server has not seen the waiting POST" api "$seen" \
	    '.path == "/repos/acme/asked"'
	req=$WT_REQ
	ward_answer "$answer"
	ward_wait 40
	show "program output" "$WT_ARTIFACTS/out.$answer"
	assert_eq "exit status" 0 "$WT_STATUS"
	assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out.$answer"
	log_json "$WT_RUN" "$WT_ARTIFACTS/log.$answer.json"
	case $answer in
	approve)
		assert_grep "the approved POST got the server's answer" \
		    '^post 200 curl=0\r?$' "$WT_ARTIFACTS/out.approve"
		assert_grep "the approved POST's body" \
		    '^hello from api POST /repos/acme/asked\r?$' "$WT_ARTIFACTS/out.approve"
		assert_api "the server saw the approved POST" api 1 \
		    '.method == "POST" and .path == "/repos/acme/asked" and .body == 8'
		assert_log "the request allowed by a person" "$WT_ARTIFACTS/log.approve.json" \
		    ".kind == \"http\" and .verdict == \"allow\" and .how == \"person\" and ((.request_id|tostring) == \"$req\")"
		;;
	deny)
		assert_grep "the denied POST got a 403" '^post 403 curl=0\r?$' \
		    "$WT_ARTIFACTS/out.deny"
		assert_api "the server never saw the denied POST (only the approved one)" api 1 \
		    '.method == "POST" and .path == "/repos/acme/asked"'
		assert_log "the request denied by a person" "$WT_ARTIFACTS/log.deny.json" \
		    ".kind == \"http\" and .verdict == \"deny\" and .how == \"person\" and ((.request_id|tostring) == \"$req\")"
		;;
	esac
done
finish
