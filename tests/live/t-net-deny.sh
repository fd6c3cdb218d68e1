#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# [network] connect = deny: a connect to an outside listener is refused at
# once (ECONNREFUSED), nobody is asked, the listener sees no connection, and
# the lookup of a name nothing allows is NXDOMAIN without reaching the
# world's name server. Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
net_test_init

write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 10' '[network]' 'connect = deny'

prog='
python3 "$1" connect 203.0.113.10 8080
curl -sS -m 10 -o /dev/null http://203.0.113.10:8080/; echo "curl=$?"
python3 "$1" resolve pypi.test'
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.ini" \
    "${NET_IN[@]}" -- sh -c "$prog" sh "$NET_CLIENT"
show "program output" "$WT_ARTIFACTS/out"
assert_eq "exit status" 0 "$WT_STATUS"
[ "$WT_ELAPSED_MS" -lt 8000 ] && note "ok: done in ${WT_ELAPSED_MS} ms (nothing waited)" ||
    fail "took ${WT_ELAPSED_MS} ms: a deny should not wait"
assert_grep "python's connect saw ECONNREFUSED" \
    '^connect 203\.0\.113\.10:8080 ERR 111 Connection refused\r?$' "$WT_ARTIFACTS/out"
assert_grep "curl could not connect (exit 7)" '^curl=7\r?$' "$WT_ARTIFACTS/out"
assert_grep "the name did not resolve" '^resolve pypi\.test ERR ' "$WT_ARTIFACTS/out"
assert_no_pending "nobody was asked" "$WT_ARTIFACTS/err"

assert_count "connections the web listener saw" web 0
assert_eq "queries for pypi.test that reached the name server" 0 "$(dns_queries pypi.test)"

log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_eq "connects denied by connect = deny (python, curl)" 2 \
    "$(log_count "$WT_ARTIFACTS/log.json" '.kind == "connect" and .syscall == "connect" and .subject == "203.0.113.10:8080" and .verdict == "deny" and .how == "default" and .rule == "[network] connect = deny"')"
assert_log "the lookup denied by connect = deny" "$WT_ARTIFACTS/log.json" \
    '.kind == "dns" and .subject == "pypi.test" and .verdict == "deny" and .how == "default"'
assert_eq "network events allowed" 0 \
    "$(log_count "$WT_ARTIFACTS/log.json" '(.kind == "connect" or .kind == "dns") and .verdict == "allow"')"
finish
