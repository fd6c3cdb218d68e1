#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward oci serve, the runtime's end (tui/oci-serve.c), against a fake
# ward-supervisor: ward-tui is copied beside a script of that name (the
# supervisor is found beside the executable), which writes down its argv,
# its descriptors and its session, then holds the listener as a
# supervisor would. The runtime is tests/live/ocisend, and runc when
# root and runc and busybox are installed.
#   - the socket 0600 in a folder made 0700; "listening on PATH"
#   - a good state: the supervisor's argv exactly, the listener as fd 3,
#     stdin /dev/null, no other descriptor, a session of its own
#   - refused, one line each naming the cause and the peer's pid: a pipe
#     for a listener, not JSON, a pid that is a string, two descriptors,
#     none, an id with '/', policy=../x, a policy that does not exist, an
#     unknown metadata key (a peer of another uid: test-oci-state, on
#     an abstract socket; here the scratch folder's parents are closed
#     to other users)
#   - a silent runtime does not hold up the next one
#   - a second serve on the socket exits 1; SIGTERM removes the socket,
#     exit 0, the supervisor goes on; a stale socket is replaced
#   - runc 1.1 (which keeps the connection open): supervised, and the
#     container's trapped call waits on the fd serve handed over; then
#     with the real ward-supervisor and `ward oci profile`'s profile:
#     the container runs, and is a run in the record (its execs)
. "$(dirname "$0")/lib.sh"

send=$(cd "$(dirname "$0")" && pwd)/ocisend
[ -x "$send" ] || die "$send is missing (make tests builds tests/live/ocisend.c)"
tui=$(dirname "$WARD")/ward-tui
[ -x "$tui" ] || die "no ward-tui beside $WARD"

bin=$WT_SCRATCH/bin
share=$WT_SCRATCH/share
outs=$WT_SCRATCH/sup
mkdir -p "$bin" "$share" "$outs"
cp "$tui" "$bin/ward-tui"
printf '[run]\n' >"$share/oci.ini"
cat >"$bin/ward-supervisor" <<EOF
#!/bin/sh
# t-oci-serve's fake supervisor
out=$outs/sup-\$\$
{
	for a in "\$@"; do printf 'arg %s\n' "\$a"; done
	printf 'fd0 %s\n' "\$(readlink /proc/\$\$/fd/0)"
	printf 'fd3 %s\n' "\$(readlink /proc/\$\$/fd/3)"
	for n in 4 5 6 7 8 9; do
		[ -e /proc/\$\$/fd/\$n ] && printf 'extra fd %s\n' "\$n"
	done
	printf 'session %s\n' "\$(ps -o sid= -p \$\$ | tr -d ' ')"
	printf 'pid %s\n' "\$\$"
} >"\$out.tmp"
mv "\$out.tmp" "\$out"
exec sleep 60
EOF
chmod +x "$bin/ward-supervisor"

sockdir=$WT_SCRATCH/run/oci
sock=$sockdir/oci.sock
err=$WT_ARTIFACTS/serve.err
bundle=$WT_SCRATCH/bundle
mkdir -p "$bundle"
printf '{"process":{"args":["sh","-c","echo hi"]}}\n' >"$bundle/config.json"

serve_start() {	# ERRFILE
	WARD_SHARE=$share "$bin/ward-tui" oci serve --socket "$sock" 2>"$1" &
	SERVE=$!
	WT_BG_PIDS+=("$SERVE")
	wait_for 5 grep -q 'listening on' "$1" || { show serve "$1"; die "serve did not start"; }
}

# state ID [METADATA]: a runc-shaped state of this shell's pid
state() {
	local md=""
	[ -n "${2:-}" ] && md="\"metadata\":\"$2\","
	printf '{"ociVersion":"1.0.2","fds":["seccompFd"],"pid":%d,%s"state":{"ociVersion":"1.0.2","id":"%s","status":"creating","pid":%d,"bundle":"%s","annotations":{"ward.name":"my box"}}}' \
	    $$ "$md" "$1" $$ "$bundle"
}

sup_out() {	# ID: the fake supervisor's file for container ID, once whole
	local f
	for f in "$outs"/sup-*; do
		case $f in *.tmp) continue ;; esac
		[ -f "$f" ] && grep -q -- "^arg $1\$" "$f" && { echo "$f"; return 0; }
	done
	return 1
}

serve_start "$err"
assert_grep "says where it listens" "^ward oci: listening on $sock\$" "$err"
assert_eq "socket mode" "600 socket" "$(stat -c '%a %F' "$sock")"
assert_eq "folder mode" "700" "$(stat -c '%a' "$sockdir")"

# A silent runtime first: the good one after it must not wait for it.
"$send" "$sock" none 7 </dev/null &
silent=$!
WT_BG_PIDS+=("$silent")
sleep 0.3
t0=$(now_ms)
state c1 | "$send" "$sock" listener || fail "ocisend c1"
wait_for 3 sup_out c1 >/dev/null || die "no supervisor for c1"
took=$(($(now_ms) - t0))
note "c1 supervised in $took ms, a silent runtime connected before it"
[ "$took" -lt 3000 ] || fail "c1 waited for the silent runtime ($took ms)"
out=$(sup_out c1)
WT_BG_PIDS+=("$(sed -n 's/^pid //p' "$out")")
assert_eq "the supervisor's argv" \
    "--headless --oci-listener 3 --oci-pid $$ --oci-container c1 --name my_box --policy $share/oci.ini -- sh -c echo hi" \
    "$(sed -n 's/^arg //p' "$out" | tr '\n' ' ' | sed 's/ $//')"
assert_grep "fd 3 is the container's listener" '^fd3 anon_inode:seccomp notify$' "$out"
assert_grep "stdin /dev/null" '^fd0 /dev/null$' "$out"
assert_no_grep "no other descriptor of serve's" '^extra fd' "$out"
assert_eq "a session of its own" "$(sed -n 's/^pid //p' "$out")" "$(sed -n 's/^session //p' "$out")"
assert_grep "says what it started" \
    "^ward oci: container c1 \\(pid $$\\): supervised as my_box, policy $share/oci.ini\$" "$err"

# Refusals: one line each, the cause and the peer's pid.
refuse() {	# WHAT KIND CAUSE-ERE (the state on stdin)
	local what=$1 kind=$2 want=$3 pid
	"$send" "$sock" "$kind" &
	pid=$!
	wait "$pid" || true
	wait_for 3 grep -Eq "^ward oci: refused a connection from pid $pid: $want" "$err" ||
	    fail "$what: no line 'refused a connection from pid $pid: $want'"
	grep -Eq "^ward oci: refused a connection from pid $pid: $want" "$err" &&
	    note "ok: $what refused: $(grep "from pid $pid:" "$err" | sed 's/.*: refused/refused/')"
}
state c2 | refuse "a pipe for a listener" pipe "the descriptor is not a seccomp listener \\('pipe:\\["
echo 'not json' | refuse "not JSON" listener "not JSON: at byte"
echo '{"ociVersion":"1","fds":["seccompFd"],"pid":"5"}' | refuse "a string pid" listener "pid: not a number \\(a string\\)"
state c3 | refuse "two descriptors" two "fds: names 1 descriptors, the message carried 2"
state c4 | refuse "no descriptor" none "fds: names 1 descriptors, the message carried 0"
state 'a/b' | refuse "an id with /" listener "state.id: 'a/b' is not a container id"
state c5 'policy=../x' | refuse "policy=../x" listener "container c5: metadata: policy='../x' is not a policy name"
state c6 'policy=nosuch' | refuse "a missing policy" listener "container c6: policy .*/oci/nosuch.ini: No such file"
state c7 'colour=red' | refuse "an unknown metadata key" listener "container c7: metadata: unknown key 'colour'"
wait "$silent" || true
wait_for 8 grep -q "from pid $silent: no whole message within 5000 ms" "$err" &&
    note "ok: the silent runtime refused at its deadline" || fail "the silent runtime: no deadline line"
cat "$outs"/sup-* >"$WT_ARTIFACTS/sups" 2>/dev/null || true
assert_no_grep "no supervisor for a refused connection" '^arg c[2-7]$' "$WT_ARTIFACTS/sups"

# A second serve on the same socket: exit 1, the first one untouched.
set +e
WARD_SHARE=$share "$bin/ward-tui" oci serve --socket "$sock" 2>"$WT_ARTIFACTS/second.err"
st=$?
set -e
assert_eq "a second serve's exit status" 1 "$st"
assert_grep "a second serve says why" "already listens on $sock" "$WT_ARTIFACTS/second.err"

# SIGTERM: the socket goes, exit 0, the supervisor stays.
kill -TERM "$SERVE"
set +e
wait "$SERVE"
st=$?
set -e
assert_eq "serve's exit status on SIGTERM" 0 "$st"
assert_absent "the socket removed" "$sock"
supid=$(sed -n 's/^pid //p' "$out")
kill -0 "$supid" 2>/dev/null && note "ok: the supervisor goes on after serve" ||
    fail "the supervisor (pid $supid) ended with serve"

# A stale socket (nobody answers) is replaced; a regular file is not.
python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$sock"
serve_start "$WT_ARTIFACTS/stale.err"
note "ok: a stale socket replaced"
kill -TERM "$SERVE"
wait "$SERVE" || true
echo x >"$sock"
set +e
WARD_SHARE=$share "$bin/ward-tui" oci serve --socket "$sock" 2>"$WT_ARTIFACTS/file.err"
st=$?
set -e
assert_eq "over a regular file: exit status" 1 "$st"
assert_file_content "the regular file left as it was" x "$sock"
rm -f "$sock"

# runc: its real message, and a connection it keeps open.
if [ "$(id -u)" = 0 ] && command -v runc >/dev/null && [ -x /bin/busybox ] &&
    file -L /bin/busybox 2>/dev/null | grep -q 'statically linked'; then
	rb=$WT_SCRATCH/rb
	mkdir -p "$rb/rootfs/bin" "$rb/rootfs/proc" "$rb/rootfs/dev"
	cp /bin/busybox "$rb/rootfs/bin/"
	(cd "$rb" && runc spec)
	python3 - "$rb/config.json" "$sock" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["terminal"] = False
c["process"]["args"] = ["/bin/busybox", "sh", "-c", "echo inside"]
c["root"]["readonly"] = True
c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW",
    "listenerPath": sys.argv[2],
    "syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_NOTIFY"}]}
json.dump(c, open(sys.argv[1], "w"))
EOF
	serve_start "$WT_ARTIFACTS/runc-serve.err"
	id=ward-t-oci-$$
	runc --root "$WT_SCRATCH/runc" run --bundle "$rb" "$id" >"$WT_ARTIFACTS/runc.out" 2>&1 &
	runc_pid=$!
	WT_BG_PIDS+=("$runc_pid")
	wait_for 10 sup_out "$id" >/dev/null || { show serve "$WT_ARTIFACTS/runc-serve.err"; die "runc's container was not supervised"; }
	out=$(sup_out "$id")
	assert_grep "runc: fd 3 is the listener" '^fd3 anon_inode:seccomp notify$' "$out"
	assert_grep "runc: the command from config.json" '^arg echo inside$' "$out"
	# busybox sh asks getppid (for $PPID) before it runs anything: the
	# call waits on the listener the fake holds and never answers.
	sleep 1
	assert_eq "runc: the container waits on the supervisor" "" "$(cat "$WT_ARTIFACTS/runc.out")"
	kill "$(sed -n 's/^pid //p' "$out")"
	# Its listener closed, the trapped call fails (ENOSYS) and the
	# container goes on.
	set +e
	wait "$runc_pid"
	st=$?
	set -e
	assert_eq "runc: exit status once the supervisor is gone" 0 "$st"
	assert_grep "runc: the container ran" '^inside$' "$WT_ARTIFACTS/runc.out"
	kill -TERM "$SERVE"
	wait "$SERVE" || true

	# The real supervisor (beside the real ward-tui), and the profile
	# `ward oci profile` prints: the container is a run in the record.
	"$WARD" oci profile --socket "$sock" >"$WT_SCRATCH/profile.json"
	python3 - "$rb/config.json" "$WT_SCRATCH/profile.json" <<'EOF2'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["seccomp"] = json.load(open(sys.argv[2]))
json.dump(c, open(sys.argv[1], "w"))
EOF2
	rerr=$WT_ARTIFACTS/real-serve.err
	WARD_SHARE=$share "$tui" oci serve --socket "$sock" 2>"$rerr" &
	SERVE=$!
	WT_BG_PIDS+=("$SERVE")
	wait_for 5 grep -q 'listening on' "$rerr" || die "the real serve did not start"
	id=ward-t-oci-real-$$
	set +e
	timeout 30 runc --root "$WT_SCRATCH/runc" run --bundle "$rb" "$id" >"$WT_ARTIFACTS/runc-real.out" 2>&1
	st=$?
	set -e
	assert_eq "runc with ward-supervisor: exit status" 0 "$st"
	assert_grep "runc with ward-supervisor: the container ran" '^inside$' "$WT_ARTIFACTS/runc-real.out"
	assert_grep "serve started the supervisor" "^ward oci: container $id \\(pid [0-9]+\\): supervised as $id" "$rerr"
	run=$(sed -n 's/^ward: run \([0-9a-f]\{8\}\) started$/\1/p' "$rerr" | head -1)
	[ -n "$run" ] || { show serve "$rerr"; die "no run id from the supervisor"; }
	"$WARD" log "$run" >"$WT_ARTIFACTS/real-log" 2>&1 || true
	assert_grep "the record: a container's run" $'\tcontainer\t' "$WT_ARTIFACTS/real-log"
	assert_grep "the record: the container's exec" $'\texec\t.*\t/bin/busybox\t' "$WT_ARTIFACTS/real-log"
	kill -TERM "$SERVE"
	wait "$SERVE" || true
else
	note "runc part skipped: needs root, runc and a static /bin/busybox"
fi
finish
