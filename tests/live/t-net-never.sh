#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The never list (built in: 169.254.0.0/16 with the cloud metadata address)
# is refused whatever a person or an allow entry says: with connect = ask
# no request is made (nor for its IPv4-mapped IPv6 form), the metadata
# listener sees nothing, the record says never. Also when the address comes from a name (meta.test) whose lookup
# a person approved. A policy that removes the entry (never = none) is the
# only way there. Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
net_test_init

never_rule='.rule | test("169\\.254\\.0\\.0/16")'
prog='
python3 "$1" connect 169.254.169.254 80
python3 "$1" connect ::ffff:169.254.169.254 80
curl -sS -m 10 -o /dev/null http://169.254.169.254/latest/meta-data/; echo "curl=$?"'

# 1. connect = ask, nothing allowed; 2. the same with an allow entry for it.
for variant in ask allow; do
	note "--- $variant"
	lines=('[run]' 'ask_timeout = 10' '[network]' 'connect = ask')
	[ "$variant" = allow ] && lines+=('allow = 169.254.169.254:80')
	write_policy "$WT_SCRATCH/policy.$variant.ini" "${lines[@]}"
	ward_fg "$WT_ARTIFACTS/out.$variant" "$WT_ARTIFACTS/err.$variant" \
	    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.$variant.ini" \
	    "${NET_IN[@]}" -- sh -c "$prog" sh "$NET_CLIENT"
	show "program output" "$WT_ARTIFACTS/out.$variant"
	assert_eq "exit status" 0 "$WT_STATUS"
	[ "$WT_ELAPSED_MS" -lt 8000 ] && note "ok: done in ${WT_ELAPSED_MS} ms (nothing waited)" ||
	    fail "took ${WT_ELAPSED_MS} ms: a never destination should not wait"
	assert_grep "python's connect saw ECONNREFUSED" \
	    '^connect 169\.254\.169\.254:80 ERR 111 Connection refused\r?$' \
	    "$WT_ARTIFACTS/out.$variant"
	assert_grep "the IPv4-mapped IPv6 address saw ECONNREFUSED" \
	    '^connect ::ffff:169\.254\.169\.254:80 ERR 111 Connection refused\r?$' \
	    "$WT_ARTIFACTS/out.$variant"
	assert_grep "curl could not connect (exit 7)" '^curl=7\r?$' "$WT_ARTIFACTS/out.$variant"
	assert_no_pending "no request was made" "$WT_ARTIFACTS/err.$variant"
	assert_count "connections the metadata listener saw" meta 0
	log_json "$WT_RUN" "$WT_ARTIFACTS/log.$variant.json"
	assert_eq "connects refused as never (python, mapped, curl)" 3 \
	    "$(log_count "$WT_ARTIFACTS/log.$variant.json" ".kind == \"connect\" and .subject == \"169.254.169.254:80\" and .verdict == \"deny\" and .how == \"policy\" and .detail == \"never reachable\" and ($never_rule)")"
	assert_eq "requests in the record" 0 \
	    "$(log_count "$WT_ARTIFACTS/log.$variant.json" '(.request_id // 0) > 0')"
done

# 3. By name: the lookup of meta.test is asked; approved, it resolves to
# the metadata address, and the connect is still refused without asking.
note "--- by name"
write_policy "$WT_SCRATCH/policy.name.ini" \
    '[run]' 'ask_timeout = 30' '[network]' 'connect = ask'
ward_bg "$WT_ARTIFACTS/out.name" "$WT_ARTIFACTS/err.name" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.name.ini" \
    "${NET_IN[@]}" -- sh -c '
python3 "$1" resolve meta.test
python3 "$1" connect meta.test 80' sh "$NET_CLIENT"
wait_pending_kind "$WT_ARTIFACTS/err.name" dns
assert_eq "pending subject" meta.test "$WT_REQ_PATH"
ward_answer approve
ward_wait 30
show "program output" "$WT_ARTIFACTS/out.name"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "meta.test resolved to the metadata address" \
    '^resolve meta\.test ok 169\.254\.169\.254\r?$' "$WT_ARTIFACTS/out.name"
assert_grep "the connect by name saw ECONNREFUSED" \
    '^connect meta\.test:80 ERR 111 Connection refused\r?$' "$WT_ARTIFACTS/out.name"
assert_eq "pending requests (the lookup only)" 1 \
    "$(pending_lines "$WT_ARTIFACTS/err.name" | wc -l)"
assert_count "connections the metadata listener saw" meta 0
log_json "$WT_RUN" "$WT_ARTIFACTS/log.name.json"
assert_log "the lookup approved by a person" "$WT_ARTIFACTS/log.name.json" \
    '.kind == "dns" and .subject == "meta.test" and .verdict == "allow" and .how == "person"'
assert_log "the connect refused as never, named" "$WT_ARTIFACTS/log.name.json" \
    ".kind == \"connect\" and .subject == \"meta.test (169.254.169.254):80\" and .verdict == \"deny\" and .how == \"policy\" and ($never_rule)"

# 4. The policy removes the never list and allows the address: reached.
note "--- never = none"
write_policy "$WT_SCRATCH/policy.none.ini" \
    '[run]' 'ask_timeout = 5' '[network]' 'connect = ask' 'never = none' \
    'allow = 169.254.169.254:80'
ward_fg "$WT_ARTIFACTS/out.none" "$WT_ARTIFACTS/err.none" \
    run --headless --timeout 60 --policy "$WT_SCRATCH/policy.none.ini" \
    "${NET_IN[@]}" -- python3 "$NET_CLIENT" get http://169.254.169.254/ 20
show "program output" "$WT_ARTIFACTS/out.none"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the metadata listener answered" \
    '^get http://169\.254\.169\.254/ ok hello from meta\r?$' "$WT_ARTIFACTS/out.none"
assert_no_pending "no request was made" "$WT_ARTIFACTS/err.none"
assert_count "connections the metadata listener saw" meta 1
finish
