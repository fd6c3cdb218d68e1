#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# [network] allow = pypi.test:8080: curl and python's urllib reach
# http://pypi.test:8080/ with nobody asked (the name looked up through the
# stub, the connection made by the supervisor), the listener sees two
# connections, and the record names the host the program asked for:
# "pypi.test (203.0.113.10):8080". Another port of the same host is not
# covered, nor its address in a run that never looked the name up.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
net_test_init

write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 3' '[network]' 'allow = pypi.test:8080' \
    'connect = ask'
prog='
curl -sS -m 20 http://pypi.test:8080/; echo "curl=$?"
python3 "$1" get http://pypi.test:8080/ 20'
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.ini" \
    "${NET_IN[@]}" -- sh -c "$prog" sh "$NET_CLIENT"
show "program output" "$WT_ARTIFACTS/out"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "curl got the page" '^hello from web\r?$' "$WT_ARTIFACTS/out"
assert_grep "curl exited 0" '^curl=0\r?$' "$WT_ARTIFACTS/out"
assert_grep "urllib got the page" \
    '^get http://pypi\.test:8080/ ok hello from web\r?$' "$WT_ARTIFACTS/out"
assert_no_pending "nobody was asked" "$WT_ARTIFACTS/err"
assert_count "connections the web listener saw" web 2
n=$(dns_queries pypi.test)
[ "$n" -ge 1 ] && note "ok: $n queries for pypi.test reached the name server" ||
    fail "no query for pypi.test reached the name server"

log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_eq "connects allowed by the policy, named" 2 \
    "$(log_count "$WT_ARTIFACTS/log.json" '.kind == "connect" and .syscall == "connect" and .subject == "pypi.test (203.0.113.10):8080" and .verdict == "allow" and .how == "policy" and ((.rule // "") | test("pypi\\.test:8080"))')"
assert_eq "requests in the record" 0 \
    "$(log_count "$WT_ARTIFACTS/log.json" '(.request_id // 0) > 0')"

# Not covered by the entry, so asked (and, unanswered, refused at
# ask_timeout): another port of the allowed host, and the host's address
# itself in a run that never looked the name up.
for what in port address; do
	note "--- $what"
	case $what in
	port) args=(pypi.test 8081) subject="pypi.test (203.0.113.10):8081" ;;
	address) args=(203.0.113.10 8080) subject="203.0.113.10:8080" ;;
	esac
	ward_bg "$WT_ARTIFACTS/out.$what" "$WT_ARTIFACTS/err.$what" \
	    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.ini" \
	    "${NET_IN[@]}" -- python3 "$NET_CLIENT" connect "${args[@]}"
	wait_pending_kind "$WT_ARTIFACTS/err.$what" connect
	assert_eq "pending subject" "$subject" "$WT_REQ_PATH"
	ward_wait 30
	assert_grep "the connect was refused at ask_timeout" \
	    "^connect ${args[0]//./\\.}:${args[1]} ERR 111 Connection refused\r?\$" \
	    "$WT_ARTIFACTS/out.$what"
	assert_count "connections the web listener saw (still)" web 2
done
finish
