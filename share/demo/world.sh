#!/bin/sh
# SPDX-License-Identifier: MIT
# The outside world `ward demo` shows, made of nothing real: a network
# namespace and a mount namespace of the demo's own (unprivileged: in a
# user namespace of its own, mapped to the user), in which
#
#   pypi.org            151.101.0.223   a PyPI index serving one tiny
#                                       package, wardtiny (registry.py)
#   paste.example.com   203.0.113.7     a paste site (listen.py): where an
#                                       agent might send what it found
#   169.254.169.254                     a cloud metadata service (listen.py)
#
# are addresses on the namespace's loopback, and a name server (dnsmasq)
# answers those names. ward runs inside it, so the supervisor's own
# connections and lookups reach these and nothing else: no packet of the
# demo leaves the machine. Each server counts what reached it
# (DIR/NAME.count, DIR/pypi.log), for the scorecard.
#
#   world.sh DIR CMD [ARG...]    run CMD in a fresh world; its files in DIR
#
# Needs unshare (util-linux), ip (iproute2), dnsmasq and python3; exits
# 3 without running CMD when one is missing or the kernel refuses the
# namespaces (ward demo then says so and runs without a network).
set -eu
dir=$1
shift
here=$(cd "$(dirname "$0")" && pwd)

PYPI=151.101.0.223
PASTE=203.0.113.7
META=169.254.169.254

missing() {
	echo "world: $1" >&2
	exit 3
}

# ip and dnsmasq live in sbin, which a user's PATH may leave out.
PATH=$PATH:/usr/sbin:/sbin
export PATH

if [ "${WARD_DEMO_WORLD_INSIDE:-}" != 1 ]; then
	for t in unshare ip dnsmasq python3 setpriv; do
		command -v "$t" >/dev/null 2>&1 || missing "$t is not installed"
	done
	export WARD_DEMO_WORLD_INSIDE=1
	# Root has the rights already; a user gets them in a user namespace
	# mapped to themselves, and gives them up again before CMD (below).
	if [ "$(id -u)" = 0 ]; then
		unshare --net --mount --propagation private true 2>/dev/null ||
		    missing "the kernel refuses a network namespace"
		exec unshare --net --mount --propagation private -- "$0" "$dir" "$@"
	fi
	unshare --map-current-user --net --mount true 2>/dev/null ||
	    missing "the kernel refuses an unprivileged user namespace"
	exec unshare --map-current-user --net --mount --propagation private \
	    --keep-caps -- "$0" "$dir" "$@"
fi
unset WARD_DEMO_WORLD_INSIDE

pids=
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null || true
	done
}
trap cleanup EXIT INT TERM HUP

ip link set lo up
for a in $PYPI $PASTE $META; do
	ip addr add "$a/32" dev lo
done
# The supervisor asks the host's resolver: here, the world's name server.
echo "nameserver 127.0.0.1" >"$dir/resolv.conf"
mount --bind "$dir/resolv.conf" /etc/resolv.conf

lifetime=3600
python3 "$here/listen.py" --dir "$dir" --lifetime $lifetime \
    --tcp "paste=$PASTE:80" --tcp "meta=$META:80" \
    </dev/null >"$dir/listen.out" 2>&1 &
pids="$pids $!"
python3 "$here/registry.py" --dir "$dir" --lifetime $lifetime \
    --pypi "$PYPI:80" --pypi-name "pypi.org:80" \
    --npm "$PYPI:8092" --npm-name "pypi.org:8092" \
    </dev/null >"$dir/registry.out" 2>&1 &
pids="$pids $!"
# (dnsmasq started by root would become nobody, who cannot write DIR)
as_root=
[ "$(id -u)" = 0 ] && as_root="--user=root --group=root"
# shellcheck disable=SC2086
dnsmasq --keep-in-foreground --conf-file=/dev/null --pid-file= $as_root \
    --no-resolv --no-hosts --bind-interfaces --listen-address=127.0.0.1 \
    --port=53 --address=/pypi.org/$PYPI --address=/paste.example.com/$PASTE \
    --address=/#/ --log-queries --log-facility="$dir/dns.log" \
    </dev/null >"$dir/dns.out" 2>&1 &
pids="$pids $!"
i=0
until [ -e "$dir/listen.ready" ] && [ -e "$dir/pkg.ready" ] &&
    getent hosts pypi.org >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		echo "world: the fake servers did not come up in 10 s" >&2
		cat "$dir/listen.out" "$dir/registry.out" "$dir/dns.out" >&2
		exit 3
	fi
	sleep 0.1
done

# CMD runs as the user, with no capability left from the namespace.
st=0
if [ "$(id -u)" = 0 ]; then
	"$@" || st=$?
else
	setpriv --inh-caps=-all --ambient-caps=-all -- "$@" || st=$?
fi
exit $st
