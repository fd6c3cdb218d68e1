# SPDX-License-Identifier: MIT
# Helpers of the container tests (t-oci-*.sh): runc bundles made of
# busybox-static, a network of our own for them, and a cleanup that
# removes what these helpers made and nothing else. Sourced after lib.sh,
# as root (runc and `ip netns` need it).
#
#   oci_init                 checks the tools, makes OCI_DIR (the bundles,
#                            runc's state folder --root, the listener's
#                            files), sets OCI_PREFIX (ward-oci-PID: our
#                            containers and namespaces are named by it)
#                            and the cleanup
#   oci_net_up               two network namespaces joined by a veth pair:
#                              container side  OCI_NS_C  198.51.100.2/24
#                              listener side   OCI_NS_L  198.51.100.1/24
#                            and on the listener side net-listen.py (HTTP on
#                            198.51.100.1:8080): one line per connection it
#                            accepts in $OCI_DIR/listen/web.count
#   oci_bundle NAME          a bundle $OCI_DIR/NAME with rootfs/: bin/busybox
#                            and its applets, etc/passwd, etc/group,
#                            etc/resolv.conf, tmp/,
#                            usr/bin/pip (a script: "pip-ran ARGS")
#   oci_config NAME RO PROFILE WARDNAME ARG...
#                            its config.json from `runc spec`: no terminal,
#                            ARG... the process, root.readonly RO (true or
#                            false; true mounts a tmpfs on /tmp), the
#                            network namespace OCI_NS_C (when oci_net_up
#                            made it, else the runtime's own new one),
#                            annotation ward.name=WARDNAME (none when
#                            empty), linux.seccomp the JSON in the file
#                            PROFILE (none when empty)
#   oci_run NAME OUT ERR     `runc run` of the bundle NAME as container
#                            NAME, in the foreground; sets OCI_STATUS
#   oci_run_bg NAME OUT ERR  the same in the background; sets OCI_PID
#   oci_wait PID SECONDS     waits for it; sets OCI_STATUS
#   oci_serve SOCK POLICY    `ward oci serve` in the background on SOCK
#                            (OCI_SERVE its pid, OCI_SERVE_ERR its stderr),
#                            waited for until the socket is there, 0600
#   oci_serve_alive          is it still running?
#   oci_wait_request NAME KIND TEXT OUT
#                            a pending KIND request of the run named NAME
#                            whose subject holds TEXT, within 30 s (dies
#                            showing OUT, the container's stdout, if none);
#                            sets REQ_RUN and REQ_ID
#   oci_answer VERB          ward VERB REQ_RUN REQ_ID (approve, deny)
#   oci_wait_line OUT ERE    the container printed a line matching ERE
#                            within 30 s
#   oci_log_of RUN           the record's rows of run RUN (ward log --json
#                            --all, selected) into $WT_ARTIFACTS/log.json,
#                            for assert_log
#   oci_send SOCK MODE       what a broken or hostile runtime might send to
#                            a listener socket: MODE garbage (not JSON, no
#                            fd), nofd (a well-formed state, no fd), pipe
#                            (a well-formed state with a pipe's fd); prints
#                            the sender's pid
#
# Nothing here sends a packet outside the two namespaces it made.

OCI_DIR=""
OCI_PREFIX=""
OCI_NS_C=""
OCI_NS_L=""
OCI_LISTEN_PID=""
OCI_CONTAINERS=()
OCI_LISTEN_ADDR=198.51.100.1
OCI_LISTEN_PORT=8080
OCI_CLIENT_ADDR=198.51.100.2

oci_init() {
	[ "$(id -u)" = 0 ] || die "oci-lib.sh needs root"
	local tool missing=""
	for tool in runc busybox jq ip python3; do
		command -v "$tool" >/dev/null || missing+=" $tool"
	done
	[ -z "$missing" ] || die "missing:$missing (.ci/run installs runc, busybox-static, jq, iproute2, python3)"
	# busybox-static: the rootfs holds this one file, so it must need no
	# shared library (Debian's dynamic busybox would not run in it).
	if ldd "$(command -v busybox)" >/dev/null 2>&1; then
		die "$(command -v busybox) is dynamically linked: install busybox-static"
	fi
	OCI_DIR=$(mktemp -d /tmp/ward-oci.XXXXXX)
	chmod 755 "$OCI_DIR"
	mkdir "$OCI_DIR/runc" "$OCI_DIR/listen"
	OCI_PREFIX=ward-oci-$$
	# lib.sh's processes first (serve, runc run), then the containers
	trap 'wt_cleanup; oci_cleanup' EXIT
}

# runc with a state folder of ours: `runc list` of the machine's own
# containers never sees ours, nor ours theirs.
oci_runc() {
	runc --root "$OCI_DIR/runc" "$@"
}

oci_cleanup() {
	local c
	[ -n "$OCI_DIR" ] || return 0
	for c in "${OCI_CONTAINERS[@]}"; do
		oci_runc delete -f "$c" >/dev/null 2>&1 || true
	done
	# the supervisors `ward oci serve` started for our containers (they
	# end with them; one left by a failure is ended here, by pid)
	kill_matching "--oci-container $OCI_PREFIX-"
	if [ -n "$OCI_LISTEN_PID" ]; then
		kill -KILL "$OCI_LISTEN_PID" 2>/dev/null || true
	fi
	# deleting the namespace takes the veth pair with it
	[ -z "$OCI_NS_C" ] || ip netns del "$OCI_NS_C" 2>/dev/null || true
	[ -z "$OCI_NS_L" ] || ip netns del "$OCI_NS_L" 2>/dev/null || true
	if [ "${WARD_LIVE_KEEP:-0}" = 1 ]; then
		echo "  kept $OCI_DIR"
	else
		rm -rf "$OCI_DIR"
	fi
	OCI_DIR=""
}

oci_net_up() {
	# short: a veth's name is at most 15 bytes
	local tag=wo$$
	OCI_NS_C=$OCI_PREFIX-c
	OCI_NS_L=$OCI_PREFIX-l
	ip netns add "$OCI_NS_C" || die "ip netns add $OCI_NS_C failed"
	ip netns add "$OCI_NS_L" || die "ip netns add $OCI_NS_L failed"
	ip link add "${tag}c" netns "$OCI_NS_C" type veth \
	    peer name "${tag}l" netns "$OCI_NS_L" || die "ip link add (veth) failed"
	ip -n "$OCI_NS_C" addr add "$OCI_CLIENT_ADDR/24" dev "${tag}c"
	ip -n "$OCI_NS_L" addr add "$OCI_LISTEN_ADDR/24" dev "${tag}l"
	ip -n "$OCI_NS_C" link set lo up
	ip -n "$OCI_NS_L" link set lo up
	ip -n "$OCI_NS_C" link set "${tag}c" up
	ip -n "$OCI_NS_L" link set "${tag}l" up
	local listen
	listen=$(dirname "$0")/net-listen.py
	[ -f "$listen" ] || die "no $listen (run-all.sh copies share/demo/listen.py there)"
	ip netns exec "$OCI_NS_L" python3 "$listen" --dir "$OCI_DIR/listen" \
	    --lifetime 600 --tcp "web=$OCI_LISTEN_ADDR:$OCI_LISTEN_PORT" \
	    >"$OCI_DIR/listen/listen.log" 2>&1 </dev/null &
	OCI_LISTEN_PID=$!
	# killed by pid in the cleanup, without the shell's "Killed" line
	disown "$OCI_LISTEN_PID"
	if ! wait_for 10 test -e "$OCI_DIR/listen/listen.ready"; then
		show "listener" "$OCI_DIR/listen/listen.log"
		die "the listener in $OCI_NS_L did not start"
	fi
	: >"$OCI_DIR/listen/web.count"
	note "network: $OCI_NS_C ($OCI_CLIENT_ADDR) -> $OCI_NS_L ($OCI_LISTEN_ADDR:$OCI_LISTEN_PORT)"
}

# Connections the listener accepted so far.
oci_listen_count() {
	wc -l <"$OCI_DIR/listen/web.count" | tr -d ' '
}

oci_bundle() {
	local b=$OCI_DIR/$1 r a
	r=$b/rootfs
	mkdir -p "$r"/{bin,usr/bin,etc,tmp,proc,sys,dev,run,var/tmp}
	chmod 1777 "$r/tmp" "$r/var/tmp"
	cp "$(command -v busybox)" "$r/bin/busybox"
	for a in sh echo printf cat ls mkdir rm sleep test true false nc id; do
		ln -s busybox "$r/bin/$a"
	done
	printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$r/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
	# what ward's DNS stub binds its own over (the listener's side runs
	# no name server: the tests connect by address)
	printf 'nameserver %s\n' "$OCI_LISTEN_ADDR" >"$r/etc/resolv.conf"
	# an install-looking command: its exec is what ward judges
	printf '#!/bin/sh\necho "pip-ran $*"\n' >"$r/usr/bin/pip"
	chmod 755 "$r/usr/bin/pip"
}

oci_config() {
	local name=$1 ro=$2 profile=$3 wname=$4 b
	shift 4
	b=$OCI_DIR/$name
	rm -f "$b/config.json"
	(cd "$b" && runc spec) || die "runc spec failed in $b"
	local args ns="" prof=null
	args=$(jq -cn '$ARGS.positional' --args -- "$@")
	[ -z "$OCI_NS_C" ] || ns=/var/run/netns/$OCI_NS_C
	if [ -n "$profile" ]; then
		prof=$(jq -c . "$profile") || die "the profile $profile is not JSON"
	fi
	jq --argjson args "$args" --argjson ro "$ro" --arg ns "$ns" \
	    --arg wname "$wname" --argjson prof "$prof" '
	    .process.terminal = false
	    | .process.args = $args
	    | .process.env = ["PATH=/usr/bin:/bin", "HOME=/"]
	    | .root.readonly = $ro
	    | .hostname = "ward-oci"
	    | (if $ro then .mounts += [{destination: "/tmp", type: "tmpfs",
	        source: "tmpfs", options: ["nosuid", "nodev", "mode=1777"]}]
	       else . end)
	    | (if $ns != "" then .linux.namespaces |= map(
	        if .type == "network" then .path = $ns else . end) else . end)
	    | (if $wname != "" then .annotations["ward.name"] = $wname
	       else . end)
	    | (if $prof != null then .linux.seccomp = $prof
	       else del(.linux.seccomp) end)' \
	    "$b/config.json" >"$b/config.json.new" || die "jq could not edit $b/config.json"
	mv "$b/config.json.new" "$b/config.json"
}

oci_run() {
	local name=$1 out=$2 err=$3
	OCI_CONTAINERS+=("$name")
	OCI_STATUS=0
	timeout 60 runc --root "$OCI_DIR/runc" run -b "$OCI_DIR/$name" "$name" \
	    >"$out" 2>"$err" </dev/null || OCI_STATUS=$?
	oci_runc delete -f "$name" >/dev/null 2>&1 || true
}

oci_run_bg() {
	local name=$1 out=$2 err=$3
	OCI_CONTAINERS+=("$name")
	: >"$out"
	: >"$err"
	runc --root "$OCI_DIR/runc" run -b "$OCI_DIR/$name" "$name" \
	    >"$out" 2>"$err" </dev/null &
	OCI_PID=$!
	WT_BG_PIDS+=("$OCI_PID")
}

# oci_wait PID SECONDS: waits for oci_run_bg's runc to exit; sets
# OCI_STATUS. 1 when it still runs at the limit (left to the cleanup).
oci_wait() {
	local end=$(($(now_ms) + $2 * 1000))
	# a zombie child still answers kill -0; wait reaps it below
	while kill -0 "$1" 2>/dev/null &&
	    [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" != Z ]; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.1
	done
	OCI_STATUS=0
	wait "$1" || OCI_STATUS=$?
}

oci_send() {
	python3 - "$1" "$2" <<'EOF'
import json, os, socket, sys

path, mode = sys.argv[1], sys.argv[2]
state = {
    "ociVersion": "1.0.2", "fds": ["seccompFd"], "pid": os.getpid(),
    "state": {"ociVersion": "1.0.2", "id": "forged", "status": "creating",
              "pid": os.getpid(), "bundle": "/nonexistent",
              "annotations": {"ward.name": "forged"}},
}
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
print(os.getpid(), flush=True)
if mode == "garbage":
    s.sendall(b'{"ociVersion": "1.0.2", "fds": [\x00\xff not json')
elif mode == "nofd":
    s.sendall(json.dumps(state).encode())
elif mode == "pipe":
    r, w = os.pipe()
    socket.send_fds(s, [json.dumps(state).encode()], [r])
else:
    sys.exit("oci_send: unknown mode " + mode)
s.shutdown(socket.SHUT_WR)
s.settimeout(10)
try:
    while s.recv(4096):
        pass
except OSError:
    pass
EOF
}

oci_serve() {
	local sock=$1 policy=$2
	OCI_SERVE_ERR=$WT_ARTIFACTS/serve.err
	"$WARD" oci serve --socket "$sock" --policy "$policy" \
	    >"$WT_ARTIFACTS/serve.out" 2>"$OCI_SERVE_ERR" </dev/null &
	OCI_SERVE=$!
	WT_BG_PIDS+=("$OCI_SERVE")
	oci_serve_up() { test -S "$sock" || ! oci_serve_alive; }
	if ! wait_for 10 oci_serve_up || ! test -S "$sock"; then
		show "ward oci serve stderr" "$OCI_SERVE_ERR"
		oci_serve_alive || die "ward oci serve exited without making its socket $sock"
		die "ward oci serve made no socket $sock within 10 s"
	fi
	assert_eq "the socket's mode" 600 "$(stat -c %a "$sock")"
}

oci_serve_alive() {
	kill -0 "$OCI_SERVE" 2>/dev/null &&
	    [ "$(ps -o stat= -p "$OCI_SERVE" 2>/dev/null | cut -c1)" != Z ]
}

oci_pending_of() {
	"$WARD" pending --json >"$WT_ARTIFACTS/pending.json" 2>&1 </dev/null || return 1
	local hit
	hit=$(jq -r --arg n "$1" --arg k "$2" --arg s "$3" '
	    .[] | select(.name == $n and .kind == $k and (.subject | contains($s)))
	    | "\(.run) \(.id)"' "$WT_ARTIFACTS/pending.json" 2>/dev/null | head -n 1)
	[ -n "$hit" ] || return 1
	read -r REQ_RUN REQ_ID <<<"$hit"
}

oci_wait_request() {
	if ! wait_for 30 oci_pending_of "$1" "$2" "$3"; then
		show "ward pending --json" "$WT_ARTIFACTS/pending.json"
		show "container stdout" "$4"
		show "container stderr" "${4%.out}.err"
		show "ward oci serve stderr" "$OCI_SERVE_ERR"
		die "no pending $2 request for '$3' in a run named $1 within 30 s"
	fi
	note "request $REQ_ID of run $REQ_RUN: $2 $3"
}

oci_answer() {
	local st=0
	"$WARD" "$1" "$REQ_RUN" "$REQ_ID" >"$WT_ARTIFACTS/answer.out" 2>&1 </dev/null || st=$?
	[ "$st" = 0 ] || { show "ward $1" "$WT_ARTIFACTS/answer.out"; fail "ward $1 $REQ_RUN $REQ_ID exited $st"; }
}

oci_wait_line() {
	if wait_for 30 grep -Eq -- "$2" "$1"; then
		note "ok: the program said /$2/"
	else
		show "container stdout" "$1"
		show "container stderr" "${1%.out}.err"
		fail "the program did not say /$2/ within 30 s"
	fi
}

oci_log_of() {
	"$WARD" log --json --all >"$WT_ARTIFACTS/log.all.json" \
	    2>"$WT_ARTIFACTS/log.err" </dev/null || fail "ward log --json --all failed"
	jq -c --arg r "$1" 'select(.run == $r)' "$WT_ARTIFACTS/log.all.json" \
	    >"$WT_ARTIFACTS/log.json"
}
