#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward as runc's seccomp agent (issue 34): `ward oci serve` takes the
# notify fd runc hands to linux.seccomp.listenerPath, and the container
# is a run like any other. A busybox container, in a network namespace
# of the test's own joined to a listener's, under share/oci.ini:
#  a) writes /tmp/in-ok: writable, goes on unasked (the file is in the
#     bundle's rootfs, seen from outside);
#  b) writes /etc/denied-file: asked, `ward deny`: the program's call
#     fails, the rootfs holds no such file;
#  c) writes /etc/approved-file: asked, `ward approve`: the rootfs holds
#     it with the program's content;
#  d) connects to 198.51.100.1:8080: asked, denied, the listener got no
#     connection; again: approved, the listener got it and answered;
#  e) runs `pip install wardtiny` (a script in the rootfs): a package
#     request, denied: the exec fails.
# The run is named by the annotation ward.name, lists the container's
# process.args as its command, records every event above, and leaves
# `ward ps` when the container exits. Before serve runs, runc refuses
# to start a container whose profile names its socket. A runtime that
# sends garbage, a state without its fd or with a pipe for one, is
# refused and serve goes on: a second container after them is
# supervised (a write asked and approved).
# Root only: runc needs root here (run-all.sh runs it as root alone).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/oci-lib.sh"

if [ "$(id -u)" != 0 ]; then
	[ "${CI:-false}" = true ] && die "runs as root only, and CI runs it as root: not root here"
	skip "runc needs root here: run tests/live/run-all.sh as root"
fi
oci_init

share=$(dirname "$WARD")/share
[ -f "$share/oci.ini" ] || die "no $share/oci.ini (the default container policy)"
sock=$WT_SCRATCH/oci.sock
name=oci-runc-$$
main=$OCI_PREFIX-main
second=$OCI_PREFIX-second

# --- the pieces without ward: runc, the bundle, the network ----------
oci_net_up
oci_bundle "$main"
oci_config "$main" false "" "" /bin/sh -c \
    "echo preflight; printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 10 $OCI_LISTEN_ADDR $OCI_LISTEN_PORT"
oci_run "$main" "$WT_ARTIFACTS/pre.out" "$WT_ARTIFACTS/pre.err"
if [ "$OCI_STATUS" != 0 ] || ! grep -q '^hello from web$' "$WT_ARTIFACTS/pre.out"; then
	show "runc stdout" "$WT_ARTIFACTS/pre.out"
	show "runc stderr" "$WT_ARTIFACTS/pre.err"
	die "runc cannot run the bundle without ward (status $OCI_STATUS): not ward's fault"
fi
note "ok: runc runs the bundle without ward and reaches the listener"
: >"$OCI_DIR/listen/web.count"

# --- the profile ------------------------------------------------------
st=0
"$WARD" oci profile --socket "$sock" >"$WT_ARTIFACTS/profile.json" \
    2>"$WT_ARTIFACTS/profile.err" </dev/null || st=$?
if [ "$st" != 0 ]; then
	show "ward oci profile stderr" "$WT_ARTIFACTS/profile.err"
	die "ward oci profile --socket $sock exited $st"
fi
assert_eq "the profile's listenerPath" "$sock" \
    "$(jq -r '.listenerPath' "$WT_ARTIFACTS/profile.json")"
assert_eq "the profile notifies" true \
    "$(jq '[.syscalls[] | select(.action == "SCMP_ACT_NOTIFY")] | length > 0' \
    "$WT_ARTIFACTS/profile.json")"

# --- no serve: runc refuses to start the container ---------------------
cat >"$OCI_DIR/$main/rootfs/prog.sh" <<'EOF'
get() { printf 'GET / HTTP/1.0\r\n\r\n'; }
echo started
echo in >/tmp/in-ok && echo "A wrote"
if echo denied >/etc/denied-file; then echo "B wrote"; else echo "B refused"; fi
if echo approved >/etc/approved-file; then echo "C wrote"; else echo "C refused"; fi
# busybox's wget (static glibc) crashes here: nc speaks HTTP/1.0 instead
if get | nc -w 30 "$1" "$2"; then echo "D1 connected"; else echo "D1 refused"; fi
if get | nc -w 30 "$1" "$2"; then echo "D2 connected"; else echo "D2 refused"; fi
if pip install wardtiny; then echo "E ran"; else echo "E refused $?"; fi
echo done
EOF
oci_config "$main" false "$WT_ARTIFACTS/profile.json" "$name" \
    /bin/sh /prog.sh "$OCI_LISTEN_ADDR" "$OCI_LISTEN_PORT"
cp "$OCI_DIR/$main/config.json" "$WT_ARTIFACTS/config.json"
oci_run "$main" "$WT_ARTIFACTS/noserve.out" "$WT_ARTIFACTS/noserve.err"
assert_ne "runc's status with nobody on the socket" 0 "$OCI_STATUS"
assert_no_grep "the program never ran" '^started$' "$WT_ARTIFACTS/noserve.out"
assert_absent "no /tmp/in-ok" "$OCI_DIR/$main/rootfs/tmp/in-ok"
note "runc said: $(tail -n 1 "$WT_ARTIFACTS/noserve.err" | cut -c1-200)"

# --- serve ------------------------------------------------------------
oci_serve "$sock" "$share/oci.ini"
serve_err=$OCI_SERVE_ERR

# --- the container ----------------------------------------------------
out=$WT_ARTIFACTS/main.out
oci_run_bg "$main" "$out" "${out%.out}.err"
rootfs=$OCI_DIR/$main/rootfs

# b) asked: the write is not done while it waits; denied
oci_wait_request "$name" write /etc/denied-file "$out"
run=$REQ_RUN
note "the container is run $run"
# a) went on unasked before b)
assert_grep "a) the write to /tmp went on" '^A wrote$' "$out"
assert_file_content "a) /tmp/in-ok in the rootfs" in "$rootfs/tmp/in-ok"
"$WARD" ps --json >"$WT_ARTIFACTS/ps.json" 2>&1 </dev/null || fail "ward ps --json failed"
assert_eq "ward ps lists the run under the container's name" "$name" \
    "$(jq -r --arg r "$run" '.[] | select(.id == $r) | .name' "$WT_ARTIFACTS/ps.json")"
assert_grep "the run's command is the container's process.args" \
    "\"command\": *\"[^\"]*prog\\.sh" "$WT_ARTIFACTS/ps.json"
assert_absent "b) not written while asked" "$rootfs/etc/denied-file"
oci_answer deny
oci_wait_line "$out" '^B refused$'
assert_absent "b) /etc/denied-file denied" "$rootfs/etc/denied-file"

# c) asked, approved
oci_wait_request "$name" write /etc/approved-file "$out"
assert_eq "c) the same run" "$run" "$REQ_RUN"
oci_answer approve
oci_wait_line "$out" '^C wrote$'
assert_file_content "c) /etc/approved-file in the rootfs" approved "$rootfs/etc/approved-file"

# d) a connection asked: denied, then approved
oci_wait_request "$name" connect "$OCI_LISTEN_ADDR" "$out"
sleep 0.3
assert_eq "d) connections the listener saw while asked" 0 "$(oci_listen_count)"
oci_answer deny
oci_wait_line "$out" '^D1 refused$'
assert_eq "d) connections the listener saw after the deny" 0 "$(oci_listen_count)"
oci_wait_request "$name" connect "$OCI_LISTEN_ADDR" "$out"
oci_answer approve
oci_wait_line "$out" '^D2 connected$'
assert_grep "d) the listener answered the approved one" '^hello from web$' "$out"
assert_eq "d) connections the listener saw after the approval" 1 "$(oci_listen_count)"

# e) a package install asked, denied
oci_wait_request "$name" package wardtiny "$out"
oci_answer deny
oci_wait_line "$out" '^E refused [0-9]+$'
assert_no_grep "e) pip never ran" '^pip-ran' "$out"

# the end: the container exits, the run ends
oci_wait_line "$out" '^done$'
if oci_wait "$OCI_PID" 20; then
	assert_eq "runc run's status (the program's)" 0 "$OCI_STATUS"
else
	fail "runc run (pid $OCI_PID) still running 20 s after the program's last line"
fi
ps_lacks_run() {
	"$WARD" ps --json 2>/dev/null </dev/null >"$WT_ARTIFACTS/ps.end.json" &&
	    jq -e --arg r "$run" 'all(.[]; .id != $r)' "$WT_ARTIFACTS/ps.end.json" >/dev/null
}
if wait_for 15 ps_lacks_run; then
	note "ok: ward ps no longer lists run $run"
else
	show "ward ps --json" "$WT_ARTIFACTS/ps.end.json"
	fail "ward ps still lists run $run 15 s after its container exited"
fi

# --- the record ---------------------------------------------------------
oci_log_of "$run"
lj=$WT_ARTIFACTS/log.json
assert_log "a) /tmp/in-ok allowed unasked" "$lj" \
    '.kind == "write" and (.subject | contains("/tmp/in-ok")) and .verdict == "allow" and .how != "person"'
assert_log "b) /etc/denied-file denied by a person" "$lj" \
    '.kind == "write" and (.subject | contains("/etc/denied-file")) and .verdict == "deny" and .how == "person"'
assert_log "c) /etc/approved-file allowed by a person" "$lj" \
    '.kind == "write" and (.subject | contains("/etc/approved-file")) and .verdict == "allow" and .how == "person"'
assert_log "d) the connection denied by a person" "$lj" \
    ".kind == \"connect\" and (.subject | contains(\"$OCI_LISTEN_ADDR\")) and .verdict == \"deny\" and .how == \"person\""
assert_log "d) the connection allowed by a person" "$lj" \
    ".kind == \"connect\" and (.subject | contains(\"$OCI_LISTEN_ADDR\")) and .verdict == \"allow\" and .how == \"person\""
assert_log "e) the install denied by a person" "$lj" \
    '.kind == "package" and (.subject | contains("wardtiny")) and .verdict == "deny" and .how == "person"'
assert_log "execs recorded (nc)" "$lj" '.kind == "exec" and (.subject | contains("nc"))'
assert_eq "timeouts in the run" 0 "$(log_count "$lj" '.how == "timeout"')"

# --- a broken runtime, then a second container ---------------------------
for mode in garbage nofd pipe; do
	before=$(wc -l <"$serve_err")
	sender=$(oci_send "$sock" "$mode" 2>"$WT_ARTIFACTS/send-$mode.err" | head -n 1) ||
	    true
	[ -n "$sender" ] || { show "sender" "$WT_ARTIFACTS/send-$mode.err"; fail "$mode: could not send"; continue; }
	wait_for 5 sh -c '[ "$(wc -l <"$1")" -gt "$2" ]' sh "$serve_err" "$before" || true
	if tail -n +"$((before + 1))" "$serve_err" | grep -qw -- "$sender"; then
		note "ok: $mode refused: $(tail -n +"$((before + 1))" "$serve_err" | grep -w -- "$sender" | head -n 1 | cut -c1-160)"
	else
		show "ward oci serve stderr" "$serve_err"
		fail "$mode: no line on serve's stderr naming the sender (pid $sender)"
	fi
	oci_serve_alive || die "ward oci serve exited after the $mode message"
done
"$WARD" ps --json 2>/dev/null </dev/null >"$WT_ARTIFACTS/ps.forged.json" || true
assert_eq "no run named forged" "" \
    "$(jq -r '.[] | select(.name == "forged") | .id' "$WT_ARTIFACTS/ps.forged.json" 2>/dev/null)"

oci_bundle "$second"
oci_config "$second" false "$WT_ARTIFACTS/profile.json" "$name-2" /bin/sh -c \
    'if echo two >/etc/second-file; then echo "second wrote"; else echo "second refused"; fi'
out2=$WT_ARTIFACTS/second.out
oci_run_bg "$second" "$out2" "${out2%.out}.err"
oci_wait_request "$name-2" write /etc/second-file "$out2"
assert_ne "the second container is a run of its own" "$run" "$REQ_RUN"
oci_answer approve
oci_wait_line "$out2" '^second wrote$'
assert_file_content "the second container's file" two "$OCI_DIR/$second/rootfs/etc/second-file"
oci_wait "$OCI_PID" 20 ||
    fail "the second container still runs 20 s after its last line"
assert_eq "the second runc run's status" 0 "$OCI_STATUS"
oci_serve_alive && note "ok: serve still serving" || fail "ward oci serve is gone"
finish
