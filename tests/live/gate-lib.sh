# SPDX-License-Identifier: MIT
# Helpers of the gate live tests (t-net-gate-*.sh: TLS terminated by
# ward-gate, phantom secrets, HTTP method/path rules; issue 19); sourced
# after lib.sh and networld.sh. The world's HTTPS APIs (net-tls.py):
#   https://api.test/, https://api2.test/   "api", certificate from the
#                                           test CA $GATE_CA
#   https://bad.test:8443/                  "bad", from another CA
# Each request they read is a JSON line in $WT_WORLD/api.log (bad.log):
# method, host, path, x-api-key, authorization, accept-encoding, body (the
# length read), complete (all of Content-Length came), phantom
# ("ward-phantom-" in a header, the path or the body), seen (all of it,
# to look for a value in). /echo, /echo-chunked, /echo-close and
# /echo-gzip answer with the request's headers and body (net-tls.py). The
# sandbox trusts none of those CAs: only ward-gate, told by
# [network] upstream_ca = $GATE_CA, verifies the APIs with it.

# gate_test_init: net_test_init, and the world has its HTTPS APIs; sets
# GATE_CA and NET_HTTPS (the python client, net-https.py).
gate_test_init() {
	net_test_init
	GATE_CA=$WT_WORLD/tls/ca.pem
	[ -r "$GATE_CA" ] || die "the world has no test CA ($GATE_CA): net-tls.py missing?"
	[ -e "$WT_WORLD/api.log" ] || die "the world has no HTTPS APIs ($WT_WORLD/api.log)"
	NET_HTTPS=$nw_here/net-https.py
	[ -r "$NET_HTTPS" ] || die "no $NET_HTTPS"
	assert_eq "requests the api server saw at the start" 0 "$(api_requests api true)"
	assert_eq "requests the bad server saw at the start" 0 "$(api_requests bad true)"
}

# api_requests NAME JQ-FILTER: the requests server NAME (api, bad) logged
# that the filter selects, after a moment for any still on its way.
api_requests() {
	local f=$WT_WORLD/$1.log
	[ -r "$f" ] || { echo missing; return 0; }
	sleep 0.2
	log_count "$f" "$2"
}

# assert_api WHAT NAME EXPECTED JQ-FILTER
assert_api() {
	local n
	n=$(api_requests "$2" "$4")
	if [ "$n" = "$3" ]; then
		note "ok: $1 ($n request(s) at the $2 server)"
	else
		fail "$1: expected $3 request(s) at the $2 server matching $4, got $n"
		show "$2 server's log" "$WT_WORLD/$2.log"
	fi
}

# events_json RUN FILE: `ward events --json --run RUN` into FILE (the
# record as ward events prints it).
events_json() {
	local st=0
	"$WARD" events --json --run "$1" >"$2" 2>"$2.err" </dev/null || st=$?
	assert_eq "ward events --json --run $1 exit status" 0 "$st"
	[ "$st" = 0 ] || show "ward events stderr" "$2.err"
}

# assert_nowhere WHAT VALUE PLACE...: VALUE is in no file below any
# PLACE (grep -r, binary files too: the record's sqlite file).
assert_nowhere() {
	local what=$1 value=$2 hits
	shift 2
	hits=$(grep -rlaF -- "$value" "$@" 2>/dev/null || true)
	if [ -z "$hits" ]; then
		note "ok: $what"
	else
		fail "$what: found in:"
		printf '%s\n' "$hits" | sed 's/^/  | /'
	fi
}
