#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The console over a real sshd to two "hosts" (issue 16's test): one sshd
# on 127.0.0.1 listens on two ports, h1 and h2 are two ssh aliases (one
# port and one user key each, the key's forced command running `ward
# relay` with that host's own runtime and state folders, so each is a
# distinct set of runs). In tmux, `ward console --host h1 --host h2`
# approves a request on each; each host's record names the ssh user "via
# ssh from 127.0.0.1". Then h1's ssh client (the console's child) is
# killed while h1 has a request waiting: the request stays pending on h1
# and is denied at its deadline, never allowed; the console shows h1
# gone, then reconnects (a new ssh child) when h1 can be reached again.
# Where sshd cannot reach this user (wardtest's shell is nologin), ssh is
# a script that runs `ward relay` with SSH_CONNECTION set, as
# t-console-hosts does; as root under CI=true, sshd must work.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 120' '[files]' 'write = ask'
write_policy "$WT_SCRATCH/short.ini" \
    '[run]' 'ask_timeout = 10' '[files]' 'write = ask'
for h in h1 h2; do
	mkdir -m 700 -p "$WT_SCRATCH/$h" "$WT_SCRATCH/$h/run" "$WT_SCRATCH/$h/state"
done
hostenv() { printf 'XDG_RUNTIME_DIR=%s XDG_STATE_HOME=%s' "$WT_SCRATCH/$1/run" "$WT_SCRATCH/$1/state"; }

real_sshd() {
	sshd_usable || return 1
	# shellcheck disable=SC2046 # two words on purpose
	sshd_key k1 $(hostenv h1) || return 1
	# shellcheck disable=SC2046
	sshd_key k2 $(hostenv h2) || return 1
	sshd_start 2 || return 1
	sshd_alias h1 "${SSHD_PORTS[0]}" k1
	sshd_alias h2 "${SSHD_PORTS[1]}" k2
	sshd_check h1 && sshd_check h2 && return 0
	sshd_stop
	return 1
}
if real_sshd; then
	note "a real sshd on 127.0.0.1 ports ${SSHD_PORTS[*]} (pid $sshd_pid)"
	via1="via ssh from 127.0.0.1" via2="via ssh from 127.0.0.1"
elif [ "$(id -u)" = 0 ] && [ "${CI:-false}" = true ]; then
	die "as root under CI=true the real sshd must work (see the notes above)"
else
	note "no sshd for $(id -un): ssh is a script that runs 'ward relay'"
	cat >"$WT_SCRATCH/ssh" <<SH
#!/bin/sh
[ "\$1" = -T ] && shift
host=\$1
shift
[ "\$*" = "ward relay" ] || { echo "fake ssh: unexpected command: \$*" >&2; exit 1; }
case \$host in
h1) addr=198.51.100.1 ;;
h2) addr=198.51.100.2 ;;
*) exit 255 ;;
esac
[ -e "$SSHD_DIR/\$host.down" ] && exit 255
XDG_RUNTIME_DIR=$WT_SCRATCH/\$host/run XDG_STATE_HOME=$WT_SCRATCH/\$host/state \
    SSH_CONNECTION="\$addr 40000 127.0.0.1 22" exec "$WARD" relay
SH
	chmod +x "$WT_SCRATCH/ssh"
	mkdir -p "$SSHD_DIR"
	export WARD_SSH=$WT_SCRATCH/ssh
	via1="via ssh from 198.51.100.1" via2="via ssh from 198.51.100.2"
fi

# on HOST CMD...: CMD with HOST's folders (what ssh HOST would see).
on() {
	local h=$1 rt=$XDG_RUNTIME_DIR st=$XDG_STATE_HOME
	shift
	export XDG_RUNTIME_DIR=$WT_SCRATCH/$h/run XDG_STATE_HOME=$WT_SCRATCH/$h/state
	"$@"
	export XDG_RUNTIME_DIR=$rt XDG_STATE_HOME=$st
}

prog='if echo x > "$0/$1"; then echo WROTE; else echo DENIED; fi
i=0; while [ ! -e "$0/go" ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done'
start() {	# start POLICY NAME: a run asking to write NAME
	ward_bg "$WT_SCRATCH/out.$2" "$WT_SCRATCH/err.$2" run --headless \
	    --name "$2" --policy "$WT_SCRATCH/$1" --in "$WT_CANARY" \
	    -- sh -c "$prog" "$WT_CANARY" "$2"
	wait_pending "$WT_SCRATCH/err.$2"
}
# Oldest first: far1's request heads the queue.
on h1 start policy.ini far1
RUN1=$WT_RUN PID1=$WT_PID
sleep 1.1
on h2 start policy.ini far2
RUN2=$WT_RUN PID2=$WT_PID

# No hosts file of the user's: only the two hosts named.
export XDG_CONFIG_HOME=$WT_SCRATCH/config
mkdir -p "$XDG_CONFIG_HOME"
WT_TMUX_W=130 WT_TMUX_H=40 tmux_start console --host h1 --host h2
expect_screen rows 'h1:far1' 20
expect_screen rows2 'h2:far2' 10
expect_screen queue 'pending: 2 in all runs' 10

# The console (the pane's shell's child) and its ssh child for HOST.
console_pid() {	# down from the pane's process to the console (ward-tui)
	local p i
	p=$(tm display-message -p -t ward '#{pane_pid}') || return 1
	for i in 1 2 3 4; do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = ward-tui ] && { echo "$p"; return 0; }
		p=$(ps -o pid= --ppid "$p" | tr -d ' ' | head -n 1)
		[ -n "$p" ] || return 1
	done
	return 1
}
ssh_child() {	# ssh_child HOST: the pid of the console's link to HOST
	local c p
	c=$(console_pid) || return 1
	# ssh names HOST among its arguments; the fake ssh, become `ward
	# relay`, has HOST's runtime folder in its environment.
	for p in $(ps -o pid= --ppid "$c"); do
		if tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | grep -qx -- "$1" ||
		    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
		    grep -qx -- "XDG_RUNTIME_DIR=$WT_SCRATCH/$1/run"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# far1's request (h1): approved; then far2's (h2) in its place: approved.
# Each key waits for the request to be armed (shown 0.5 s).
tm send-keys -t ward g
sleep 1
tm send-keys -t ward a
wait_for 10 grep -q '^WROTE' "$WT_SCRATCH/out.far1" || true
assert_grep "far1's write allowed through h1's sshd" '^WROTE' "$WT_SCRATCH/out.far1"
expect_screen after1 'pending: 1 in all runs' 10
sleep 1
tm send-keys -t ward a
wait_for 10 grep -q '^WROTE' "$WT_SCRATCH/out.far2" || true
assert_grep "far2's write allowed through h2's sshd" '^WROTE' "$WT_SCRATCH/out.far2"

uid=$(id -u) user=$(id -un)
on h1 log_json "$RUN1" "$WT_ARTIFACTS/log1.json"
assert_log "h1 records the allow as the ssh user ($user) $via1" "$WT_ARTIFACTS/log1.json" \
    ".verdict == \"allow\" and .how == \"person\" and ((.decided_by // \"\") | test(\"^uid $uid \\\\($user\\\\) .*$via1\$\"))"
on h2 log_json "$RUN2" "$WT_ARTIFACTS/log2.json"
assert_log "h2 records the allow as the ssh user ($user) $via2" "$WT_ARTIFACTS/log2.json" \
    ".verdict == \"allow\" and .how == \"person\" and ((.decided_by // \"\") | test(\"^uid $uid \\\\($user\\\\) .*$via2\$\"))"

# A request on h1 with a short deadline, seen by the console; then h1's
# link breaks (its ssh client, the console's child, killed; h1 held
# unreachable): the request stays pending on h1 and its deadline denies it.
on h1 start short.ini far3
RUN3=$WT_RUN PID3=$WT_PID
expect_screen far3 'h1:far3' 10
expect_screen queue3 'pending: 1 in all runs' 10
link1=$(ssh_child h1) || die "no ssh child of the console for h1"
link2=$(ssh_child h2) || die "no ssh child of the console for h2"
note "the console's links: h1 pid $link1, h2 pid $link2"
[ "$link1" != "$link2" ] || die "one pid for both links"
touch "$SSHD_DIR/h1.down"
kill -KILL "$link1"
expect_screen gone 'h1:far3 .*host gone' 10
expect_screen gone-title 'runs: .*host gone: .*h1.* \(trying again\)' 10
if grep -Eq 'h2:far2 .*host gone' "$WT_SCRATCH/screen.txt"; then
	fail "h2's run shows host gone"
else
	note "ok: only h1's runs are host gone"
fi
on h1 "$WARD" pending "$RUN3" >"$WT_ARTIFACTS/pending3" 2>&1 </dev/null || true
assert_grep "far3's request still pending on h1 after the link broke" "^$RUN3	[0-9]+	write	" "$WT_ARTIFACTS/pending3"
wait_for 20 grep -q '^DENIED' "$WT_SCRATCH/out.far3" || true
assert_grep "far3's write denied at its deadline" '^DENIED' "$WT_SCRATCH/out.far3"
assert_eq "far3's file never written" "no" "$([ -e "$WT_CANARY/far3" ] && echo yes || echo no)"
on h1 log_json "$RUN3" "$WT_ARTIFACTS/log3.json"
assert_log "h1 records a deny by timeout" "$WT_ARTIFACTS/log3.json" \
    '.verdict == "deny" and .how == "timeout"'
if [ "$(log_count "$WT_ARTIFACTS/log3.json" \
    '.verdict == "allow" and (.request_id > 0 or .kind == "write")')" = 0 ]; then
	note "ok: no request and no write allowed in far3"
else
	fail "far3 has an allowed request or write in its record"
fi

# h1 reachable again: the console reconnects by itself (a new ssh child).
rm -f "$SSHD_DIR/h1.down"
t_up=$(now_ms)
back() { on_screen 'h1:far1' && ! on_screen 'host gone'; }
if wait_for 40 back; then
	note "ok: h1 came back by itself, $(($(now_ms) - t_up)) ms after it could be reached"
	capture back
else
	capture notback
	show "screen" "$WT_SCRATCH/screen.txt"
	fail "h1 still host gone after its ssh works again"
fi
new1=$(ssh_child h1 || true)
if [ -n "$new1" ] && [ "$new1" != "$link1" ]; then
	note "ok: a new link to h1 (pid $new1)"
else
	fail "no new ssh child for h1 (was $link1, now '$new1')"
fi
assert_eq "h2's link untouched" "$link2" "$(ssh_child h2 || true)"

# Leaving ends the ssh children.
tm send-keys -t ward q
sleep 0.5
on_screen '\[y/N\]|y/n|leave' && tm send-keys -t ward y
wait_for 10 session_gone || fail "the console did not leave"
dead() { ! kill -0 "$new1" 2>/dev/null && ! kill -0 "$link2" 2>/dev/null; }
if wait_for 5 dead; then
	note "ok: the ssh children ended with the console"
else
	fail "an ssh child ($new1 or $link2) outlived the console"
fi

touch "$WT_CANARY/go"
for p in "$PID1" "$PID2" "$PID3"; do
	WT_PID=$p
	ward_wait 20
done
sshd_stop
finish
