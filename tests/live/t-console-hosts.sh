#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The console over ssh to many hosts (issue 16), in a real terminal
# (tmux): two "hosts" reached through a fake ssh (WARD_SSH: a script that
# runs `ward relay` here with that host's own runtime and state folders,
# so each is a distinct set of runs, and SSH_CONNECTION set as sshd
# would) plus a local run, in one `ward console --hosts --host h2` (h1
# from the hosts file). The rows name their hosts; an answer to each
# remote request reaches its run, recorded "via ssh from ADDR" on its
# own host; a killed link shows "host gone", allows nothing, and comes
# back by itself; leaving ends the ssh children.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 120' '[files]' 'write = ask'

for h in h1 h2; do
	mkdir -m 700 -p "$WT_SCRATCH/$h" "$WT_SCRATCH/$h/run" "$WT_SCRATCH/$h/state"
done
cat >"$WT_SCRATCH/ssh" <<SH
#!/bin/sh
[ "\$1" = -T ] && shift
host=\$1
shift
[ "\$*" = "ward relay" ] || { echo "fake ssh: unexpected command: \$*" >&2; exit 1; }
echo "\$host" >>"$WT_SCRATCH/ssh-hosts"
case \$host in
h1) addr=198.51.100.1 ;;
h2) addr=198.51.100.2 ;;
*) echo "fake ssh: no host \$host" >&2; exit 255 ;;
esac
[ -e "$WT_SCRATCH/\$host.down" ] && exit 255
echo \$\$ >"$WT_SCRATCH/ssh-\$host.pid"
XDG_RUNTIME_DIR=$WT_SCRATCH/\$host/run XDG_STATE_HOME=$WT_SCRATCH/\$host/state \
    SSH_CONNECTION="\$addr 40000 127.0.0.1 22" exec "$WARD" relay
SH
chmod +x "$WT_SCRATCH/ssh"
export WARD_SSH=$WT_SCRATCH/ssh

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
start() {	# start HOST NAME: a run on HOST asking to write NAME
	ward_bg "$WT_SCRATCH/out.$2" "$WT_SCRATCH/err.$2" run --headless \
	    --name "$2" --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
	    -- sh -c "$prog" "$WT_CANARY" "$2"
	wait_pending "$WT_SCRATCH/err.$2"
}
# Oldest first: far1's request heads the queue.
on h1 start h1 far1
RUN1=$WT_RUN PID1=$WT_PID
sleep 1.1
on h2 start h2 far2
RUN2=$WT_RUN PID2=$WT_PID
sleep 1.1
start local loc
RUNL=$WT_RUN PIDL=$WT_PID

# h1 from the hosts file (a comment, a blank line), h2 on the line.
export XDG_CONFIG_HOME=$WT_SCRATCH/config
mkdir -p "$XDG_CONFIG_HOME/ward"
printf '# the build farm\n\n  h1   # the first\n' >"$XDG_CONFIG_HOME/ward/hosts"

# h3 is never reachable (the fake ssh knows no such host).
t_console=$(now_ms)
WT_TMUX_W=130 WT_TMUX_H=40 tmux_start console --hosts --host h2 --host h3
expect_screen rows 'h1:far1' 15
expect_screen rows2 'h2:far2' 10
expect_screen rows3 'local:loc' 10
expect_screen queue 'pending: 3 in all runs' 10
expect_screen h3 'runs: .*host gone: h3 \(trying again\)' 10
assert_grep "the queue names the host of a remote request" '\[h1:far1\] #' "$WT_SCRATCH/screen.txt"
assert_grep "a local request is unmarked" '\[loc\] #' "$WT_SCRATCH/screen.txt"

# The oldest (far1's, on h1): allowed; then far2's (h2) in its place:
# denied. Each key waits for the request to be armed (shown 0.5 s).
tm send-keys -t ward g
sleep 1
tm send-keys -t ward a
wait_for 10 grep -q '^WROTE' "$WT_SCRATCH/out.far1" || true
assert_grep "far1's write allowed through its host's relay" '^WROTE' "$WT_SCRATCH/out.far1"
expect_screen after1 'pending: 2 in all runs' 10
sleep 1
tm send-keys -t ward d
wait_for 10 grep -q '^DENIED' "$WT_SCRATCH/out.far2" || true
assert_grep "far2's write denied through its host's relay" '^DENIED' "$WT_SCRATCH/out.far2"
assert_eq "the local run still waits" "" "$(cat "$WT_SCRATCH/out.loc")"

uid=$(id -u)
on h1 log_json "$RUN1" "$WT_ARTIFACTS/log1.json"
assert_log "h1 records the allow as the ssh user via ssh from its address" "$WT_ARTIFACTS/log1.json" \
    '.verdict == "allow" and .how == "person" and ((.decided_by // "") | test("^uid '"$uid"' .*via ssh from 198\\.51\\.100\\.1$"))'
on h2 log_json "$RUN2" "$WT_ARTIFACTS/log2.json"
assert_log "h2 records the deny via ssh from its address" "$WT_ARTIFACTS/log2.json" \
    '.verdict == "deny" and .how == "person" and ((.decided_by // "") | test("via ssh from 198\\.51\\.100\\.2$"))'

# h1's link breaks (its ssh killed, and it cannot come back yet): its
# run shows "host gone"; h2 and the local run stay.
touch "$WT_SCRATCH/h1.down"
kill -KILL "$(cat "$WT_SCRATCH/ssh-h1.pid")"
expect_screen gone 'h1:far1 .*host gone' 10
expect_screen gone-title 'runs: .*host gone: .*h1.* \(trying again\)' 10
# Selected, far1 says why it cannot be answered, not "supervisor gone".
num=$(sed -nE 's/^[> ] ([1-9]) +h1:far1 .*/\1/p' "$WT_SCRATCH/screen.txt" | head -n 1)
[ -n "$num" ] || die "no row number for h1:far1"
tm send-keys -t ward "$num"
expect_screen gone-why 'host h1 gone: its requests wait there' 10
if grep -Eq 'h2:far2 .*host gone|local:loc .*host gone' "$WT_SCRATCH/screen.txt"; then
	fail "another host's run shows host gone"
else
	note "ok: only h1's run is host gone"
fi
# It is tried again with a back-off (1 s, 2 s, ...): more than one try.
tries() { [ "$(grep -c '^h1$' "$WT_SCRATCH/ssh-hosts")" -ge 3 ]; }
wait_for 10 tries || fail "h1 not tried again after the link broke"
rm -f "$WT_SCRATCH/h1.down"
back() { on_screen 'h1:far1' && ! on_screen 'h1:far1 .*host gone' && ! on_screen 'host gone: .*h1'; }
if wait_for 20 back; then
	note "ok: h1 came back by itself"
	capture back
else
	capture notback
	show "screen" "$WT_SCRATCH/screen.txt"
	fail "h1's run still host gone after its ssh works again"
fi
on h1 "$WARD" ps >"$WT_ARTIFACTS/ps-h1.txt" 2>&1 </dev/null || true
assert_grep "far1 still runs on h1 (nothing ended by the broken link)" "$RUN1" "$WT_ARTIFACTS/ps-h1.txt"

# h3 was tried with a back-off (1 s, 2 s, 4 s, 8 s ... between tries),
# not once a second.
n3=$(grep -c '^h3$' "$WT_SCRATCH/ssh-hosts" || true)
secs=$((($(now_ms) - t_console) / 1000))
note "h3 tried $n3 times in $secs s"
if [ "$n3" -ge 3 ] && [ "$n3" -le $((secs / 2 + 1)) ]; then
	note "ok: an unreachable host is tried again, backing off"
else
	fail "h3 tried $n3 times in $secs s (want 3 or more, backing off)"
fi

# Leaving (the local request still waits: y) ends our ssh children.
p1=$(cat "$WT_SCRATCH/ssh-h1.pid") p2=$(cat "$WT_SCRATCH/ssh-h2.pid")
tm send-keys -t ward q
sleep 0.5
tm send-keys -t ward y
wait_for 10 session_gone || fail "the console did not leave"
dead() { ! kill -0 "$p1" 2>/dev/null && ! kill -0 "$p2" 2>/dev/null; }
if wait_for 5 dead; then
	note "ok: the ssh children ended with the console"
else
	fail "an ssh child ($p1 or $p2) outlived the console"
fi

touch "$WT_CANARY/go"
"$WARD" kill "$RUNL" >/dev/null 2>&1 || true
for p in "$PID1" "$PID2" "$PIDL"; do
	WT_PID=$p
	ward_wait 20
done
assert_eq "the local request was never allowed" "no" "$([ -e "$WT_CANARY/loc" ] && echo yes || echo no)"
finish
