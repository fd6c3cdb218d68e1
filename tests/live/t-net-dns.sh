#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The lookup of a name no rule names (other.test) is a request of kind dns.
# Denied, or unanswered until ask_timeout, it is NXDOMAIN and no query for
# it ever reaches the world's name server; approved, the name resolves (to
# 203.0.113.10) over UDP and, through the stub's TCP side, over TCP too.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
net_test_init

prog='
python3 "$1" resolve other.test
python3 "$1" tcpdns other.test'

for answer in deny timeout approve; do
	note "--- $answer"
	timeout=30
	[ "$answer" = timeout ] && timeout=2
	write_policy "$WT_SCRATCH/policy.$answer.ini" \
	    '[run]' "ask_timeout = $timeout" '[network]' 'connect = ask'
	ward_bg "$WT_ARTIFACTS/out.$answer" "$WT_ARTIFACTS/err.$answer" \
	    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.$answer.ini" \
	    "${NET_IN[@]}" -- sh -c "$prog" sh "$NET_CLIENT"
	wait_pending_kind "$WT_ARTIFACTS/err.$answer" dns
	assert_eq "pending kind" dns "$WT_REQ_KIND"
	assert_eq "pending subject" other.test "$WT_REQ_PATH"
	assert_eq "queries for other.test at the name server while pending" 0 \
	    "$(dns_queries other.test)"
	req=$WT_REQ
	[ "$answer" = timeout ] || ward_answer "$answer"
	ward_wait 40
	show "program output" "$WT_ARTIFACTS/out.$answer"
	assert_eq "exit status" 0 "$WT_STATUS"
	log_json "$WT_RUN" "$WT_ARTIFACTS/log.$answer.json"
	case $answer in
	deny | timeout)
		# EAI_NONAME (-2): NXDOMAIN, not a failure to reach a server
		assert_grep "the name did not resolve (EAI_NONAME)" \
		    '^resolve other\.test ERR -2 ' "$WT_ARTIFACTS/out.$answer"
		assert_grep "the TCP lookup got NXDOMAIN" \
		    '^tcpdns other\.test rcode=3\r?$' "$WT_ARTIFACTS/out.$answer"
		assert_eq "queries for other.test that reached the name server" 0 \
		    "$(dns_queries other.test)"
		how=person
		[ "$answer" = timeout ] && how=timeout
		assert_log "the lookup denied ($how)" "$WT_ARTIFACTS/log.$answer.json" \
		    ".kind == \"dns\" and .subject == \"other.test\" and .verdict == \"deny\" and .how == \"$how\" and ((.request_id|tostring) == \"$req\")"
		;;
	approve)
		assert_grep "the name resolved" \
		    '^resolve other\.test ok 203\.0\.113\.10\r?$' "$WT_ARTIFACTS/out.approve"
		assert_grep "the TCP lookup resolved too (no second request)" \
		    '^tcpdns other\.test rcode=0 a=203\.0\.113\.10\r?$' "$WT_ARTIFACTS/out.approve"
		n=$(dns_queries other.test)
		[ "$n" -ge 1 ] && note "ok: $n queries for other.test reached the name server" ||
		    fail "no query for other.test reached the name server"
		assert_log "the lookup allowed by a person" "$WT_ARTIFACTS/log.approve.json" \
		    ".kind == \"dns\" and .subject == \"other.test\" and .verdict == \"allow\" and .how == \"person\" and ((.request_id|tostring) == \"$req\")"
		;;
	esac
	assert_eq "pending requests in the run" 1 \
	    "$(pending_lines "$WT_ARTIFACTS/err.$answer" | wc -l)"
done
assert_count "connections the web listener saw" web 0
show "the name server's log" "$WT_WORLD/dnsmasq.log"
finish
