#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A hostile container under `ward oci serve` (issue 34): what ward does
# in place of continuing, checked from outside in the bundle's rootfs,
# the listener's and the name server's logs, and the record. The policy
# makes /tmp writable and asks for the rest (share/oci.ini's shape).
#  1. a symlink in /tmp to /etc/passwd, appended to: asked as /etc/passwd
#     (never as /tmp/lnk), denied: the rootfs's passwd unchanged
#  2. /proc/self/root/etc/evil written: refused unasked, recorded (floor)
#  3. a hard link of /etc/hostname made in /tmp: EXDEV, no link; a
#     rename of it into /tmp: EXDEV, mv's copy then asks to remove it
#     (denied): /etc/hostname stays
#  4. a canary opened read-only, then written through /proc/self/fd/N:
#     refused (a file outside the writable folders), canary unchanged;
#     the same for a file in /tmp works (the file's new bytes)
#  5. /dev/null and /dev/stderr written: work (the program's stderr holds
#     the line); a character device made in /tmp from outside, written:
#     refused (only a regular file is handed in)
#  6. the container's own loopback: a listener and a client in it talk,
#     unasked
#  7. names: resolv.conf inside names ward's stub; a lookup asked, denied:
#     the name server never saw it; another approved: answered, and its
#     connection asked under the name
#  8. the container's supervisor killed: the next trapped write fails
#     (ENOSYS) and nothing is written
# Root only: runc needs root here.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/oci-lib.sh"

if [ "$(id -u)" != 0 ]; then
	[ "${CI:-false}" = true ] && die "runs as root only, and CI runs it as root: not root here"
	skip "runc needs root here: run tests/live/run-all.sh as root"
fi
command -v dnsmasq >/dev/null || die "dnsmasq is missing (.ci/run installs dnsmasq-base)"
oci_init
oci_net_up

sock=$WT_SCRATCH/oci.sock
name=oci-hostile-$$
c=$OCI_PREFIX-h
policy=$WT_SCRATCH/oci.ini
printf '[run]\ntimeout = none\n[files]\nwritable = /tmp\nwrite = ask\n[network]\nconnect = ask\n' >"$policy"

# a name server on the listener's side: web.test is the listener
ip netns exec "$OCI_NS_L" timeout 300 dnsmasq --keep-in-foreground \
    --conf-file=/dev/null --pid-file= --user=root --group=root \
    --no-resolv --no-hosts --bind-interfaces \
    --listen-address="$OCI_LISTEN_ADDR" --port=53 \
    --host-record=web.test,"$OCI_LISTEN_ADDR" \
    --host-record=secret.test,"$OCI_LISTEN_ADDR" --local=/test/ \
    --log-queries --log-facility="$OCI_DIR/dnsmasq.log" \
    </dev/null >"$OCI_DIR/dnsmasq.out" 2>&1 &
WT_BG_PIDS+=("$!")
wait_for 10 sh -c 'ip netns exec "$1" ss -Hlun "src $2:53" | grep -q .' sh \
    "$OCI_NS_L" "$OCI_LISTEN_ADDR" || die "dnsmasq did not start in $OCI_NS_L"

"$WARD" oci profile --socket "$sock" >"$WT_ARTIFACTS/profile.json" </dev/null ||
    die "ward oci profile failed"
oci_serve "$sock" "$policy"

oci_bundle "$c"
r=$OCI_DIR/$c/rootfs
for a in ln mv nslookup stat; do ln -s busybox "$r/bin/$a"; done
echo canary-bytes >"$r/etc/canary"
echo ward-oci >"$r/etc/hostname"
cp "$r/etc/passwd" "$WT_ARTIFACTS/passwd.before"
mknod "$r/tmp/chardev" c 1 3
cat >"$r/prog.sh" <<'PROG'
try() { if "$@"; then echo "$T ok"; else echo "$T failed $?"; fi; }
ln -s /etc/passwd /tmp/lnk
T=1 try sh -c 'echo pwned >>/tmp/lnk'
T=2 try sh -c 'echo evil >/proc/self/root/etc/evil'
T=3 try ln /etc/hostname /tmp/hl
T=3b try mv /etc/hostname /tmp/moved
exec 5</etc/canary
T=4a try sh -c 'echo pwned >/proc/self/fd/5'
exec 5>&-
echo first >/tmp/mine
exec 6</tmp/mine
T=4b try sh -c 'echo second >/proc/self/fd/6'
exec 6>&-
T=5a try sh -c 'echo to-null >/dev/null'
T=5b try sh -c 'echo to-stderr-line >/dev/stderr'
T=5c try sh -c 'echo x >/tmp/chardev'
nc -l -p 7000 >/tmp/loop.got &
sleep 0.5
T=6 try sh -c 'echo over-loopback | nc -w 5 127.0.0.1 7000'
sleep 0.3
cat /etc/resolv.conf
T=7a try nslookup secret.test
T=7b try nslookup web.test
T=7c try sh -c 'printf "GET / HTTP/1.0\r\n\r\n" | nc -w 10 web.test 8080'
echo waiting-for-kill
while [ ! -e /tmp/go ]; do sleep 0.1; done 2>/dev/null
T=8 try sh -c 'echo after >/etc/after-kill'
echo done
PROG

oci_config "$c" false "$WT_ARTIFACTS/profile.json" "$name" /bin/sh /prog.sh
out=$WT_ARTIFACTS/c.out
oci_run_bg "$c" "$out" "${out%.out}.err"

# 1. asked as where it leads
oci_wait_request "$name" write /etc/passwd "$out"
run=$REQ_RUN
oci_pending_of "$name" write /tmp/lnk && fail "1. asked as /tmp/lnk, not as where it leads"
oci_answer deny
oci_wait_line "$out" '^1 failed'
cmp -s "$WT_ARTIFACTS/passwd.before" "$r/etc/passwd" && note "ok: 1. /etc/passwd unchanged" ||
    fail "1. /etc/passwd changed"

# 2. - 6. need no answer
oci_wait_line "$out" '^2 failed'
assert_absent "2. no /etc/evil" "$r/etc/evil"
oci_wait_line "$out" '^3 failed'
assert_absent "3. no hard link in /tmp" "$r/tmp/hl"
assert_eq "3. /etc/hostname's links" 1 "$(stat -c %h "$r/etc/hostname")"
# 3b. a rename out of /etc into /tmp: EXDEV, so mv copies and then asks
# to remove the original (denied): never a rename done unasked
oci_wait_request "$name" write /etc/hostname "$out"
oci_answer deny
oci_wait_line "$out" '^3b failed'
assert_file_content "3b. /etc/hostname still there" ward-oci "$r/etc/hostname"
oci_wait_line "$out" '^4a failed'
assert_file_content "4a. the canary unchanged" canary-bytes "$r/etc/canary"
oci_wait_line "$out" '^4b ok'
assert_file_content "4b. /tmp/mine rewritten through its fd" second "$r/tmp/mine"
oci_wait_line "$out" '^5a ok'
oci_wait_line "$out" '^5b ok'
assert_grep "5b. the line reached the program's stderr" '^to-stderr-line$' "${out%.out}.err"
oci_wait_line "$out" '^5c failed'
oci_wait_line "$out" '^6 ok'
assert_file_content "6. the loopback listener got it" over-loopback "$r/tmp/loop.got"

# 7. names
oci_wait_line "$out" '^nameserver 127\.0\.0\.1$'
assert_grep "7. the rootfs's own resolv.conf untouched" "^nameserver $OCI_LISTEN_ADDR\$" "$r/etc/resolv.conf"
oci_wait_request "$name" dns secret.test "$out"
assert_eq "7a. the same run" "$run" "$REQ_RUN"
oci_answer deny
oci_wait_line "$out" '^7a failed'
assert_no_grep "7a. the name server never saw secret.test" 'secret\.test' "$OCI_DIR/dnsmasq.log"
oci_wait_request "$name" dns web.test "$out"
oci_answer approve
oci_wait_line "$out" '^7b ok'
assert_grep "7b. the name server answered web.test" 'query.*web\.test' "$OCI_DIR/dnsmasq.log"
oci_wait_request "$name" connect "web.test ($OCI_LISTEN_ADDR):8080" "$out"
oci_answer approve
oci_wait_line "$out" '^7c ok'
assert_grep "7c. the listener answered" '^hello from web$' "$out"

# 8. the supervisor killed (serve's child, ours): trapped calls fail
oci_wait_line "$out" '^waiting-for-kill$'
sup=$(pgrep -f -- "--oci-container $c( |\$)" | head -n 1)
[ -n "$sup" ] || die "8. no supervisor process for container $c"
kill -KILL "$sup"
wait_for 5 sh -c '! kill -0 "$1" 2>/dev/null' sh "$sup" || fail "8. the supervisor $sup outlived SIGKILL"
touch "$r/tmp/go"
oci_wait_line "$out" '^8 failed'
assert_absent "8. nothing written once the supervisor is gone" "$r/etc/after-kill"
oci_wait_line "$out" '^done$'
oci_wait "$OCI_PID" 20 || fail "runc run still running after the program's end"

# the record
oci_log_of "$run"
lj=$WT_ARTIFACTS/log.json
assert_log "1. /etc/passwd denied by a person" "$lj" \
    '.kind == "write" and .subject == "/etc/passwd" and .verdict == "deny" and .how == "person"'
assert_log "2. /proc refused by the floor" "$lj" \
    '.kind == "write" and (.subject | startswith("/proc/self/root")) and .verdict == "deny" and .how == "floor"'
assert_log "4a. the reopen refused by the floor" "$lj" \
    '.kind == "write" and .subject == "/etc/canary" and .verdict == "deny" and .how == "floor"'
assert_log "7a. the lookup denied by a person" "$lj" \
    '.kind == "dns" and .subject == "secret.test" and .verdict == "deny" and .how == "person"'
assert_log "the container's start" "$lj" '.kind == "run" and .subject == "container"'
assert_eq "1. opens of /tmp/lnk recorded as such (not where it leads)" 0 \
    "$(log_count "$lj" '.kind == "write" and .subject == "/tmp/lnk" and (.syscall | startswith("open"))')"
finish
