#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An answer is trusted only once confirmed (issue 31): `ward console
# --host h1` (a fake ssh that runs `ward relay` here with h1's own
# folders, as t-console-hosts builds it) answers a request of a run on
# h1 while the far side is stopped (SIGSTOP on the relay): the row says
# "allow sent", then "no reply 2s", and no more; the relay is then
# killed before the answer
# got through, and the row says "not delivered" within a second (not
# silently pending, not after a timeout), and keeps saying it. The
# record on h1 has no allow and the write was not made. When h1 is
# reached again its run says the request again: pending "again", and
# an answer to it then is confirmed ("denied ✓"). The same for a local
# run whose supervisor is stopped, then killed, with the answer on its
# way.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 120' '[files]' 'write = ask'

mkdir -m 700 -p "$WT_SCRATCH/h1" "$WT_SCRATCH/h1/run" "$WT_SCRATCH/h1/state"
cat >"$WT_SCRATCH/ssh" <<SH
#!/bin/sh
[ "\$1" = -T ] && shift
host=\$1
shift
[ "\$*" = "ward relay" ] || { echo "fake ssh: unexpected command: \$*" >&2; exit 1; }
[ "\$host" = h1 ] || { echo "fake ssh: no host \$host" >&2; exit 255; }
[ -e "$WT_SCRATCH/h1.down" ] && exit 255
echo \$\$ >"$WT_SCRATCH/ssh-h1.pid"
XDG_RUNTIME_DIR=$WT_SCRATCH/h1/run XDG_STATE_HOME=$WT_SCRATCH/h1/state \
    SSH_CONNECTION="198.51.100.1 40000 127.0.0.1 22" exec "$WARD" relay
SH
chmod +x "$WT_SCRATCH/ssh"
export WARD_SSH=$WT_SCRATCH/ssh

on() {	# on h1 CMD...: CMD with h1's folders
	local rt=$XDG_RUNTIME_DIR st=$XDG_STATE_HOME
	shift
	export XDG_RUNTIME_DIR=$WT_SCRATCH/h1/run XDG_STATE_HOME=$WT_SCRATCH/h1/state
	"$@"
	export XDG_RUNTIME_DIR=$rt XDG_STATE_HOME=$st
}

prog='if echo x > "$0/$1"; then echo WROTE; else echo DENIED; fi
i=0; while [ ! -e "$0/go" ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done'
on h1 ward_bg "$WT_SCRATCH/out.far" "$WT_SCRATCH/err.far" run --headless \
    --name far --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" "$WT_CANARY" far
on h1 wait_pending "$WT_SCRATCH/err.far"
RUN1=$WT_RUN PID1=$WT_PID REQ1=$WT_REQ

WT_TMUX_W=130 WT_TMUX_H=40 tmux_start console --host h1
expect_screen rows 'h1:far' 15
expect_screen queue 'pending: 1 in all runs' 10
relay=$(cat "$WT_SCRATCH/ssh-h1.pid")
kill -0 "$relay" || die "no relay process $relay"

# The far side stalls: the answer goes into the link and no further.
kill -STOP "$relay"
sleep 1			# armed: shown whole 0.5 s, keys quiet 0.4 s
tm send-keys -t ward a
expect_screen sent 'allow sent' 5
# No ack comes back: the row says so after 2 s, and still not allowed.
expect_screen noreply 'allow sent.* no reply [0-9]+s' 5
assert_no_grep "nothing confirmed over a stalled link" 'allowed' "$WT_SCRATCH/screen.txt"

# The far side goes: the link drops before the answer was delivered.
touch "$WT_SCRATCH/h1.down"
t0=$(now_ms)
kill -KILL "$relay"
if wait_for 1 on_screen 'not delivered'; then
	note "ok: \"not delivered\" on screen $(( $(now_ms) - t0 )) ms after the link dropped"
	capture lost
else
	capture notlost
	show "screen" "$WT_SCRATCH/screen.txt"
	fail "the row did not say \"not delivered\" within 1 s of the link dropping"
fi
assert_grep "the row names the answer that was lost" 'allow not delivered' "$WT_SCRATCH/screen.txt"
# It stays so: not silently pending again, not cleared after a while.
sleep 4
capture still
assert_grep "still \"not delivered\" 4 s later" 'allow not delivered' "$WT_SCRATCH/screen.txt"
assert_no_grep "not counted as pending while out of reach" 'pending: 1 in all runs' "$WT_SCRATCH/screen.txt"

assert_eq "the write was not made" "no" "$([ -e "$WT_CANARY/far" ] && echo yes || echo no)"
assert_eq "the program still waits" "" "$(cat "$WT_SCRATCH/out.far")"
on h1 log_json "$RUN1" "$WT_ARTIFACTS/log1.json"
assert_eq "h1's record has no allow" 0 \
    "$(log_count "$WT_ARTIFACTS/log1.json" '.verdict == "allow" and .kind == "write"')"

# h1 comes back: the run says #REQ1 again, pending again, armed afresh.
rm -f "$WT_SCRATCH/h1.down"
expect_screen again 'again, denied in' 20
expect_screen again-count 'pending: 1 in all runs' 5
sleep 1
tm send-keys -t ward d
expect_screen confirmed 'denied (✓|ok)' 10
wait_for 10 grep -q '^DENIED' "$WT_SCRATCH/out.far" || true
assert_grep "the second answer reached the run" '^DENIED' "$WT_SCRATCH/out.far"
on h1 log_json "$RUN1" "$WT_ARTIFACTS/log2.json"
assert_log "the deny is recorded via ssh" "$WT_ARTIFACTS/log2.json" \
    ".request_id == $REQ1 and .verdict == \"deny\" and .how == \"person\""
assert_eq "and never an allow" 0 \
    "$(log_count "$WT_ARTIFACTS/log2.json" '.verdict == "allow" and .kind == "write"')"

# The same when the supervisor goes away: a local run, its supervisor
# (headless: ward's own process) stopped, answered, then killed.
ward_bg "$WT_SCRATCH/out.loc" "$WT_SCRATCH/err.loc" run --headless \
    --name loc --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" "$WT_CANARY" loc
wait_pending "$WT_SCRATCH/err.loc"
RUNL=$WT_RUN PIDL=$WT_PID
headless_supervisor "$PIDL"
expect_screen loc-row 'local:loc' 10
expect_screen loc-count 'pending: 1 in all runs' 10
kill -STOP "$PIDL"
sleep 1
tm send-keys -t ward a
expect_screen loc-sent 'allow sent' 5
t0=$(now_ms)
kill -KILL "$PIDL"
if wait_for 1 on_screen 'allow not delivered'; then
	note "ok: \"not delivered\" $(( $(now_ms) - t0 )) ms after the supervisor was killed"
	capture loc-lost
else
	capture loc-notlost
	show "screen" "$WT_SCRATCH/screen.txt"
	fail "the row did not say \"not delivered\" within 1 s of the supervisor's death"
fi
WT_PID=$PIDL
ward_wait 10
assert_eq "the local write was not made" "no" "$([ -e "$WT_CANARY/loc" ] && echo yes || echo no)"
log_json "$RUNL" "$WT_ARTIFACTS/logl.json"
assert_eq "the local record has no allow" 0 \
    "$(log_count "$WT_ARTIFACTS/logl.json" '.verdict == "allow" and .kind == "write"')"

# Nothing waits unanswered: q leaves at once.
tm send-keys -t ward q
wait_for 10 session_gone || fail "the console did not leave"
tmux_stop
touch "$WT_CANARY/go"
WT_PID=$PID1
ward_wait 20
finish
