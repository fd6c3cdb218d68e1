#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every request names who asked (issue 30, point 5): the lookup of a name
# no rule names was asked by "the DNS stub", pid 0. Now the stub's peer
# (the query's source port, over UDP and over TCP) is looked up in the
# sandbox's own socket tables: the pending request (ward pending --json,
# read from outside) names the process that sent the query, its host pid
# and command line, and so does the record once it is denied.
. "$(dirname "$0")/lib.sh"

write_policy "$WT_SCRATCH/policy.ini" '[run]' 'ask_timeout = 60' \
    '[network]' 'connect = ask'

udp='import socket
try:
    socket.getaddrinfo("udp-who.test", 443)
except socket.gaierror as e:
    print("udp refused", e.errno)'
# A query over TCP to the resolver the sandbox is given (ward's stub).
tcp='import socket, struct
ns = [l.split()[1] for l in open("/etc/resolv.conf") if l.startswith("nameserver")][0]
q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
for part in "tcp-who.test".split("."):
    q += bytes([len(part)]) + part.encode()
q += b"\0" + struct.pack(">HH", 1, 1)
s = socket.create_connection((ns, 53))
s.sendall(struct.pack(">H", len(q)) + q)
n = struct.unpack(">H", s.recv(2))[0]
r = s.recv(n)
print("tcp rcode", r[3] & 15)'

for proto in udp tcp; do
	note "--- $proto"
	marker="w30-who-$proto-$$"
	prog=${!proto}
	ward_bg "$WT_ARTIFACTS/out.$proto" "$WT_ARTIFACTS/err.$proto" \
	    run --headless --timeout 90 --policy "$WT_SCRATCH/policy.ini" \
	    -- python3 -c "$prog" "$marker"
	wait_pending "$WT_ARTIFACTS/err.$proto" 30
	assert_eq "$proto: pending kind" dns "$WT_REQ_KIND"
	assert_eq "$proto: pending subject" "$proto-who.test" "$WT_REQ_PATH"
	host_pid=$(pgrep -f -- "^python3 -c .* $marker\$" | head -n 1 || true)
	[ -n "$host_pid" ] || fail "$proto: no python3 with $marker on the host"
	assert_eq "$proto: the request's pid is the asking process's" \
	    "$host_pid" "$WT_REQ_PID"
	"$WARD" pending --json "$WT_RUN" >"$WT_ARTIFACTS/pending.$proto.json" \
	    </dev/null || fail "$proto: ward pending --json exited $?"
	assert_eq "$proto: pending --json pid" "$host_pid" \
	    "$(jq -r '.[0].pid' "$WT_ARTIFACTS/pending.$proto.json")"
	jq -r '.[0].cmdline' "$WT_ARTIFACTS/pending.$proto.json" \
	    >"$WT_ARTIFACTS/cmdline.$proto"
	assert_grep "$proto: pending --json names the command line" \
	    "^python3 -c .*$marker\$" "$WT_ARTIFACTS/cmdline.$proto"
	assert_no_grep "$proto: not the DNS stub" 'DNS stub' \
	    "$WT_ARTIFACTS/cmdline.$proto"
	"$WARD" deny "$WT_RUN" "$WT_REQ" >/dev/null </dev/null ||
	    fail "$proto: ward deny exited $?"
	ward_wait 60
	show "program output ($proto)" "$WT_ARTIFACTS/out.$proto"
	log_json "$WT_RUN" "$WT_ARTIFACTS/log.$proto.json"
	assert_log "$proto: the record's dns row names the pid" \
	    "$WT_ARTIFACTS/log.$proto.json" \
	    ".kind == \"dns\" and .subject == \"$proto-who.test\" and .pid == $host_pid"
done
assert_grep "udp: the lookup was refused after the denial" '^udp refused -2' \
    "$WT_ARTIFACTS/out.udp"
assert_grep "tcp: NXDOMAIN after the denial" '^tcp rcode 3' \
    "$WT_ARTIFACTS/out.tcp"
finish
