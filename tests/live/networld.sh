#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A fake outside world for the network tests (t-net-*.sh), made of two
# network namespaces of our own joined by a veth pair; no packet of ours
# goes anywhere else.
#
#   client ns  c0 198.51.100.2/24, default route via 198.51.100.1
#              /etc/netns/<client>/resolv.conf: nameserver 203.0.113.53
#   world ns   w0 198.51.100.1/24; on its lo:
#              203.0.113.10     web: HTTP on :8080 (web.count), UDP on
#                               :9999 (udp.count)
#              169.254.169.254  metadata: HTTP on :80 (meta.count)
#              203.0.113.10     fake package registries (pkg-registry.py,
#                               when it is next to this script): a PyPI
#                               simple index on :8091 (pypi.log), an npm
#                               registry on :8092 (npm.log), each serving
#                               a tiny package "wardtiny"
#              203.0.113.10     HTTPS APIs (net-tls.py, when it is next
#                               to this script): "api" on :443 with a
#                               certificate for api.test and api2.test
#                               from the test CA DIR/tls/ca.pem; "bad" on
#                               :8443, a certificate for bad.test,
#                               api.test and api2.test from another CA
#                               (DIR/tls/badca.pem); requests in api.log,
#                               bad.log (one JSON line each), handshakes
#                               in api.count, bad.count; DIR/ctl (every
#                               user's) releases /sse's second event
#              203.0.113.53     dnsmasq: pypi.test, npm.test, other.test,
#                               api.test, api2.test, bad.test -> .10,
#                               (api.test and api2.test as host records:
#                               no AAAA is NODATA, not NXDOMAIN, which a
#                               musl or hickory resolver takes for the
#                               name missing: Codex),
#                               meta.test -> 169.254.169.254, any other
#                               *.test NXDOMAIN; every query it receives
#                               in dnsmasq.log
#
# With NAMES (networld.sh up DIR LIFETIME NAME...: real host names, as
# platform.claude.com for t-net-agents-login), each NAME is a host record
# too (-> .10) and in api.pem's names: a real agent whose endpoint cannot
# be set by any option of its own reaches the world's API there. The
# names are in DIR/world.env (NW_NAMES).
#
# ward runs in the client namespace (ip netns exec), so its supervisor
# connects from there into the world. The listeners count what reaches
# them: NAME.count has one line per accepted connection or datagram.
#
# As a command (root):
#   networld.sh up DIR [LIFETIME]   build a world; its files go in DIR
#                                   (DIR/world.env names the namespaces)
#   networld.sh down DIR            tear it down: processes, namespaces,
#                                   veths, /etc/netns/<client>
# Sourced by a test (as any user, inside the client namespace), it gives
# world_count, dns_queries and the NW_* addresses of $WT_WORLD/world.env.

NW_WEB=203.0.113.10
NW_WEB_PORT=8080
NW_UDP_PORT=9999
NW_META=169.254.169.254
NW_PYPI_PORT=8091
NW_NPM_PORT=8092
NW_META_PORT=80
NW_DNS=203.0.113.53
NW_TLS_PORT=443
NW_BAD_PORT=8443
NW_CLIENT_ADDR=198.51.100.2
NW_GW=198.51.100.1

nw_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# --- root: building and tearing down -----------------------------------

nw_log() { printf 'networld: %s\n' "$*" >&2; }

# networld_up DIR [LIFETIME [NAME...]]: builds a world, checks it from the client
# side (then zeroes the counts), writes DIR/world.env. Returns non-zero,
# with nothing left behind, when it cannot.
networld_up() {
	local dir=$1 lifetime=${2:-300} tag
	NW_NAMES="${*:3}"
	if [ "$(id -u)" != 0 ]; then
		nw_log "building namespaces needs root"
		return 1
	fi
	mkdir -p "$dir"
	chmod 755 "$dir"
	# unique per run of the caller: its pid and a counter of worlds
	NW_SEQ=$((${NW_SEQ:-0} + 1))
	tag=wn$$-$NW_SEQ-$RANDOM
	{
		echo "NW_WORLD_NS=$tag-w"
		echo "NW_CLIENT_NS=$tag-c"
		echo "NW_NAMES='$NW_NAMES'"
	} >"$dir/world.env"
	chmod 644 "$dir/world.env"
	if ! nw_build "$dir" "$tag-w" "$tag-c" "$lifetime"; then
		nw_log "could not build the world; tearing down what was made"
		networld_down "$dir"
		return 1
	fi
	nw_log "world $tag-w and client $tag-c ready in $dir"
}

nw_build() {
	local dir=$1 w=$2 c=$3 lifetime=$4 i
	local nsx=(ip netns exec) names=() n

	for n in ${NW_NAMES:-}; do
		names+=(--host-record="$n,$NW_WEB")
	done
	ip netns add "$w" || return 1
	ip netns add "$c" || return 1
	# The veth is made inside the world with its peer in the client: no
	# name of ours ever appears in the host's namespace.
	ip -n "$w" link add w0 type veth peer name c0 netns "$c" || return 1
	ip -n "$w" link set lo up || return 1
	ip -n "$c" link set lo up || return 1
	ip -n "$w" addr add "$NW_GW/24" dev w0 || return 1
	ip -n "$c" addr add "$NW_CLIENT_ADDR/24" dev c0 || return 1
	for a in "$NW_WEB" "$NW_DNS" "$NW_META"; do
		ip -n "$w" addr add "$a/32" dev lo || return 1
	done
	ip -n "$w" link set w0 up || return 1
	ip -n "$c" link set c0 up || return 1
	ip -n "$c" route add default via "$NW_GW" dev c0 || return 1

	mkdir -p "/etc/netns/$c" || return 1
	echo "nameserver $NW_DNS" >"/etc/netns/$c/resolv.conf" || return 1

	: >"$dir/pids"
	: >"$dir/dnsmasq.log"
	"${nsx[@]}" "$w" python3 "$nw_here/net-listen.py" --dir "$dir" \
	    --lifetime "$lifetime" \
	    --tcp "web=$NW_WEB:$NW_WEB_PORT" \
	    --tcp "meta=$NW_META:$NW_META_PORT" \
	    --udp "udp=$NW_WEB:$NW_UDP_PORT" \
	    </dev/null >"$dir/listen.out" 2>&1 &
	echo $! >>"$dir/pids"
	if [ -r "$nw_here/pkg-registry.py" ]; then
		"${nsx[@]}" "$w" python3 "$nw_here/pkg-registry.py" --dir "$dir" \
		    --lifetime "$lifetime" \
		    --pypi "$NW_WEB:$NW_PYPI_PORT" --pypi-name "pypi.test:$NW_PYPI_PORT" \
		    --npm "$NW_WEB:$NW_NPM_PORT" --npm-name "npm.test:$NW_NPM_PORT" \
		    </dev/null >"$dir/pkg.out" 2>&1 &
		echo $! >>"$dir/pids"
	else
		: >"$dir/pkg.ready"
	fi
	if [ -r "$nw_here/net-tls.py" ]; then
		nw_tls_certs "$dir/tls" || return 1
		mkdir -p "$dir/ctl" && chmod 1777 "$dir/ctl" || return 1
		"${nsx[@]}" "$w" python3 "$nw_here/net-tls.py" --dir "$dir" \
		    --lifetime "$lifetime" \
		    --serve "api=$NW_WEB:$NW_TLS_PORT:$dir/tls/api.pem:$dir/tls/api.key" \
		    --serve "bad=$NW_WEB:$NW_BAD_PORT:$dir/tls/bad.pem:$dir/tls/bad.key" \
		    </dev/null >"$dir/tls.out" 2>&1 &
		echo $! >>"$dir/pids"
	else
		: >"$dir/tls.ready"
	fi
	"${nsx[@]}" "$w" timeout "$lifetime" dnsmasq --keep-in-foreground \
	    --conf-file=/dev/null --pid-file= --user=root --group=root \
	    --no-resolv --no-hosts --bind-interfaces \
	    --listen-address="$NW_DNS" --port=53 \
	    --address=/pypi.test/"$NW_WEB" --address=/other.test/"$NW_WEB" \
	    --address=/npm.test/"$NW_WEB" \
	    --host-record=api.test,"$NW_WEB" --host-record=api2.test,"$NW_WEB" \
	    "${names[@]}" \
	    --address=/bad.test/"$NW_WEB" \
	    --address=/meta.test/"$NW_META" --local=/test/ \
	    --log-queries --log-facility="$dir/dnsmasq.log" \
	    </dev/null >"$dir/dnsmasq.out" 2>&1 &
	echo $! >>"$dir/pids"

	for i in $(seq 100); do
		[ -e "$dir/listen.ready" ] && [ -e "$dir/pkg.ready" ] &&
		    [ -e "$dir/tls.ready" ] && [ -n "$("${nsx[@]}" "$w" ss -Hlun "src $NW_DNS:53" 2>/dev/null)" ] &&
		    break
		sleep 0.1
	done
	if [ ! -e "$dir/listen.ready" ]; then
		nw_log "listeners not up in 10 s:"
		sed 's/^/  | /' "$dir/listen.out" >&2
		return 1
	fi
	if [ ! -e "$dir/pkg.ready" ]; then
		nw_log "package registries not up in 10 s:"
		sed 's/^/  | /' "$dir/pkg.out" >&2
		return 1
	fi
	if [ ! -e "$dir/tls.ready" ]; then
		nw_log "HTTPS APIs not up in 10 s:"
		sed 's/^/  | /' "$dir/tls.out" >&2
		return 1
	fi
	if [ -z "$("${nsx[@]}" "$w" ss -Hlun "src $NW_DNS:53" 2>/dev/null)" ]; then
		nw_log "dnsmasq not up in 10 s:"
		sed 's/^/  | /' "$dir/dnsmasq.out" "$dir/dnsmasq.log" >&2
		return 1
	fi
	nw_selfcheck "$dir" "$c"
}

# nw_tls_certs DIR: two CAs made now (nothing kept between worlds), and
# the APIs' certificates: ca.pem signs api.pem (api.test, api2.test);
# badca.pem, another CA, signs bad.pem (bad.test and the same names, so
# only its issuer is wrong). Certificates every user may read, keys
# root's.
nw_tls_certs() {
	local d=$1 ca leaf more="" n
	for n in ${NW_NAMES:-}; do
		more+=",DNS:$n"
	done
	local ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
	mkdir -p "$d" && chmod 755 "$d" || return 1
	for ca in ca badca; do
		openssl req -x509 "${ec[@]}" -days 2 -subj "/CN=ward live test $ca" \
		    -keyout "$d/$ca.key" -out "$d/$ca.pem" \
		    -addext basicConstraints=critical,CA:TRUE \
		    -addext keyUsage=critical,keyCertSign,cRLSign \
		    2>>"$d/openssl.err" || return 1
	done
	for leaf in "api:ca:DNS:api.test,DNS:api2.test$more" \
	    bad:badca:DNS:bad.test,DNS:api.test,DNS:api2.test; do
		local name=${leaf%%:*} rest=${leaf#*:}
		local issuer=${rest%%:*} san=${rest#*:}
		local cn=${san%%,*}
		cn=${cn#DNS:}
		openssl req -new "${ec[@]}" -subj "/CN=$cn" \
		    -keyout "$d/$name.key" -out "$d/$name.csr" 2>>"$d/openssl.err" ||
		    return 1
		printf '%s\n' "subjectAltName=${san}" \
		    "basicConstraints=critical,CA:FALSE" \
		    "keyUsage=critical,digitalSignature" \
		    "extendedKeyUsage=serverAuth" \
		    "subjectKeyIdentifier=hash" \
		    "authorityKeyIdentifier=keyid,issuer" >"$d/$name.ext"
		openssl x509 -req -in "$d/$name.csr" -days 2 -CA "$d/$issuer.pem" \
		    -CAkey "$d/$issuer.key" -set_serial "0x$(openssl rand -hex 8)" \
		    -extfile "$d/$name.ext" -out "$d/$name.pem" \
		    2>>"$d/openssl.err" || return 1
	done
	chmod 600 "$d"/*.key && chmod 644 "$d"/*.pem
}

# From the client namespace, without ward: every listener and the name
# server answer. A world that cannot be reached would make every "saw no
# connection" check pass for nothing. The counts are zeroed after.
nw_selfcheck() {
	local dir=$1 c=$2 out n NW_DIR=$1
	out=$(ip netns exec "$c" timeout 10 python3 - "$NW_WEB" "$NW_WEB_PORT" \
	    "$NW_META" "$NW_META_PORT" "$NW_UDP_PORT" 2>&1 <<-'EOF'
		import socket, sys, urllib.request
		web, wport, meta, mport, uport = sys.argv[1:]
		for host, port in ((web, wport), (meta, mport)):
		    r = urllib.request.urlopen("http://%s:%s/" % (host, port), timeout=5)
		    print(r.read().decode().strip())
		s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
		s.sendto(b"selfcheck", (web, int(uport)))
		print("pypi.test", socket.gethostbyname("pypi.test"))
		print("meta.test", socket.gethostbyname("meta.test"))
	EOF
	) || {
		nw_log "self-check from the client namespace failed:"
		printf '%s\n' "$out" | sed 's/^/  | /' >&2
		return 1
	}
	local want="hello from web
hello from meta
pypi.test $NW_WEB
meta.test $NW_META"
	if [ "$out" != "$want" ]; then
		nw_log "self-check: unexpected answers:"
		printf '%s\n' "$out" | sed 's/^/  | /' >&2
		return 1
	fi
	for n in $(seq 50); do
		[ "$(world_count web)" = 1 ] && [ "$(world_count meta)" = 1 ] &&
		    [ "$(world_count udp)" = 1 ] && break
		sleep 0.1
	done
	if [ "$(world_count web)/$(world_count meta)/$(world_count udp)" != 1/1/1 ]; then
		nw_log "self-check: counts web/meta/udp are" \
		    "$(world_count web)/$(world_count meta)/$(world_count udp), not 1/1/1"
		return 1
	fi
	if [ -r "$nw_here/pkg-registry.py" ]; then
		out=$(ip netns exec "$c" timeout 10 python3 - "$NW_PYPI_PORT" \
		    "$NW_NPM_PORT" 2>&1 <<-'EOF'
			import json, sys, urllib.request
			pp, np = sys.argv[1:]
			u = "http://pypi.test:%s/simple/wardtiny/" % pp
			r = urllib.request.urlopen(u, timeout=5).read().decode()
			print("pypi", "wardtiny-1.0.0-py3-none-any.whl" in r)
			u = "http://npm.test:%s/wardtiny" % np
			r = json.load(urllib.request.urlopen(u, timeout=5))
			print("npm", r["dist-tags"]["latest"])
		EOF
		) || true
		if [ "$out" != "pypi True
npm 1.0.0" ]; then
			nw_log "self-check: the package registries answer wrong:"
			printf '%s\n' "$out" | sed 's/^/  | /' >&2
			return 1
		fi
		: >"$dir/pypi.log"
		: >"$dir/npm.log"
	fi
	if [ -r "$nw_here/net-tls.py" ]; then
		nw_tls_selfcheck "$dir" "$c" || return 1
	fi
	: >"$dir/web.count"
	: >"$dir/meta.count"
	: >"$dir/udp.count"
	# where the test's part of dnsmasq's log begins (dnsmasq writes the
	# log itself: nothing of ours goes into it)
	wc -l <"$dir/dnsmasq.log" | tr -d ' ' >"$dir/dnsmasq.mark"
	nw_log "self-check: web, meta, udp, DNS (and the registries, the HTTPS APIs) answer from the client side"
}

# The HTTPS APIs answer from the client side with their CAs (and /sse
# streams both events when released), the bad one does not verify with
# the test CA. Their logs are emptied after.
nw_tls_selfcheck() {
	local dir=$1 c=$2 out st=0 t=$1/tls
	local curl=(ip netns exec "$c" curl -sS -m 10)
	touch "$dir/ctl/sse-go"
	out=$("${curl[@]}" --cacert "$t/ca.pem" https://api.test/selfcheck 2>&1 &&
	    "${curl[@]}" --cacert "$t/ca.pem" https://api2.test/selfcheck 2>&1 &&
	    "${curl[@]}" --cacert "$t/ca.pem" -N https://api.test/sse 2>&1 &&
	    "${curl[@]}" --cacert "$t/badca.pem" \
	    "https://bad.test:$NW_BAD_PORT/selfcheck" 2>&1) || st=$?
	rm -f "$dir/ctl/sse-go"
	local want="hello from api GET /selfcheck
hello from api GET /selfcheck
data: one

data: two

hello from bad GET /selfcheck"
	if [ "$st" != 0 ] || [ "$out" != "$want" ]; then
		nw_log "self-check: the HTTPS APIs answer wrong (curl $st):"
		printf '%s\n' "$out" | sed 's/^/  | /' >&2
		sed 's/^/  | /' "$dir/tls.out" >&2
		return 1
	fi
	st=0
	"${curl[@]}" --cacert "$t/ca.pem" -o /dev/null \
	    "https://bad.test:$NW_BAD_PORT/selfcheck" 2>/dev/null || st=$?
	if [ "$st" != 60 ]; then
		nw_log "self-check: the bad API verified with the test CA (curl $st, not 60)"
		return 1
	fi
	: >"$dir/api.log"
	: >"$dir/api.count"
	: >"$dir/api.sse"
	: >"$dir/bad.log"
	: >"$dir/bad.count"
}

# networld_down DIR: ends the world's processes (those we started and any
# still inside our two namespaces), deletes the namespaces (their veth
# pair goes with them) and /etc/netns/<client>. Safe to call twice.
networld_down() {
	local dir=$1 p ns NW_WORLD_NS="" NW_CLIENT_NS=""
	[ -r "$dir/world.env" ] || return 0
	. "$dir/world.env"
	if [ -r "$dir/pids" ]; then
		while read -r p; do
			[ -n "$p" ] && kill -TERM "$p" 2>/dev/null
		done <"$dir/pids"
	fi
	for ns in "$NW_CLIENT_NS" "$NW_WORLD_NS"; do
		[ -n "$ns" ] || continue
		[ -e "/run/netns/$ns" ] || continue
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$p" 2>/dev/null
		done
	done
	if [ -r "$dir/pids" ]; then
		while read -r p; do
			[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
		done <"$dir/pids"
		: >"$dir/pids"
	fi
	for ns in "$NW_CLIENT_NS" "$NW_WORLD_NS"; do
		[ -n "$ns" ] || continue
		if [ -e "/run/netns/$ns" ]; then
			ip netns del "$ns" || nw_log "could not delete netns $ns"
		fi
	done
	if [ -n "$NW_CLIENT_NS" ] && [ -d "/etc/netns/$NW_CLIENT_NS" ]; then
		rm -rf "/etc/netns/${NW_CLIENT_NS:?}"
	fi
	rm -f "$dir/world.env"
	return 0
}

# --- anyone: reading the world -----------------------------------------

# world_count NAME: connections (or datagrams) NAME's listener saw.
world_count() {
	local f=${NW_DIR:-${WT_WORLD:-}}/$1.count
	if [ -r "$f" ]; then
		wc -l <"$f" | tr -d ' '
	else
		echo missing
	fi
}

# dns_queries NAME: queries for NAME that reached dnsmasq since the test
# began (after its self-check).
dns_queries() {
	local d=${NW_DIR:-${WT_WORLD:-}} mark
	mark=$(cat "$d/dnsmasq.mark" 2>/dev/null || echo 0)
	tail -n +"$((mark + 1))" "$d/dnsmasq.log" |
	    grep -cE "query\\[[A-Z0-9]+\\] $1 from" || true
}

# --- in a test (sourced after lib.sh) ----------------------------------

# net_test_init: checks the test runs in a world's client namespace (or
# skips: only run-all.sh, as root, builds worlds); sets NET_CLIENT (the
# client script) and NET_IN (the --in that shows it to the sandbox).
net_test_init() {
	local n
	if [ -z "${WT_WORLD:-}" ] || [ ! -r "$WT_WORLD/world.env" ]; then
		skip "needs the fake world tests/live/run-all.sh builds when run as root"
	fi
	. "$WT_WORLD/world.env"
	ip -o -4 addr show dev c0 2>/dev/null | grep -qF " $NW_CLIENT_ADDR/" ||
	    die "not inside the client namespace $NW_CLIENT_NS (no c0 with $NW_CLIENT_ADDR)"
	NET_CLIENT=$nw_here/net-client.py
	[ -r "$NET_CLIENT" ] || die "no $NET_CLIENT"
	NET_IN=(--in "$nw_here")
	note "in client namespace $NW_CLIENT_NS of world $NW_WORLD_NS ($WT_WORLD)"
	for n in web meta udp; do
		assert_eq "$n listener's count at the start" 0 "$(world_count $n)"
	done
}

# assert_count WHAT NAME EXPECTED: what listener NAME saw, after a moment
# for anything still on its way.
assert_count() {
	sleep 0.3
	assert_eq "$1" "$3" "$(world_count "$2")"
}

# The "request N pending" lines of run $WT_RUN so far (CR dropped).
pending_lines() {
	grep -E "^ward: run $WT_RUN request [0-9]+ pending: " "$1" | tr -d '\r' || true
}

pending_kind_seen() {
	[ -n "$(pending_lines "$1" | grep -E "pending: $2 " | head -n 1)" ]
}

# pending_request_seen ERR N: request N of run $WT_RUN is pending.
pending_request_seen() {
	pending_lines "$1" | grep -qE "^ward: run $WT_RUN request $2 pending: "
}

# wait_pending_kind ERR KIND [SECONDS]: as lib.sh's wait_pending, for the
# first pending request of KIND (dns, connect ...).
wait_pending_kind() {
	local err=$1 kind=$2 limit=${3:-15} line
	if ! wait_for "$limit" pending_kind_seen "$err" "$kind"; then
		show "ward stderr" "$err"
		die "no 'ward: run $WT_RUN request N pending: $kind ...' line within $limit s"
	fi
	line=$(pending_lines "$err" | grep -E "pending: $kind " | head -n 1)
	note "saw: $line"
	local re="^ward: run $WT_RUN request ([0-9]+) pending: ([a-z]+) (.*) \\(pid ([0-9]+)\\); ward approve $WT_RUN ([0-9]+) or ward deny $WT_RUN ([0-9]+)\$"
	if [[ $line =~ $re ]]; then
		WT_REQ=${BASH_REMATCH[1]}
		WT_REQ_KIND=${BASH_REMATCH[2]}
		WT_REQ_PATH=${BASH_REMATCH[3]}
		WT_REQ_PID=${BASH_REMATCH[4]}
	else
		die "pending line not in the documented form: $line"
	fi
}

# assert_no_pending WHAT ERR: the run asked nobody anything.
assert_no_pending() {
	local lines
	lines=$(pending_lines "$2")
	if [ -z "$lines" ]; then
		note "ok: $1"
	else
		fail "$1: expected no pending request, got:"
		printf '%s\n' "$lines" | sed 's/^/  | /'
	fi
}

# ward_answer approve|deny: answers request $WT_REQ of run $WT_RUN.
ward_answer() {
	local st=0
	"$WARD" "$1" "$WT_RUN" "$WT_REQ" >"$WT_ARTIFACTS/$1.$WT_REQ" 2>&1 </dev/null || st=$?
	assert_eq "ward $1 $WT_RUN $WT_REQ exit status" 0 "$st"
	[ "$st" = 0 ] || show "ward $1" "$WT_ARTIFACTS/$1.$WT_REQ"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	case ${1:-} in
	up)
		[ $# -ge 2 ] || { echo "usage: $0 up DIR [LIFETIME [NAME...]]" >&2; exit 2; }
		NW_DIR=$2
		networld_up "$2" "${3:-300}" "${@:4}"
		;;
	down)
		[ $# -eq 2 ] || { echo "usage: $0 down DIR" >&2; exit 2; }
		networld_down "$2"
		;;
	*)
		echo "usage: $0 up DIR [LIFETIME] | down DIR" >&2
		exit 2
		;;
	esac
fi
