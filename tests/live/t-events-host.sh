#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward events --json names the run ("name": its --name, null without
# one), and ward events --host HOST reads the record of HOST through
# `ssh HOST ward relay` (relay_events, PROTOCOL.md 8): the far side's
# record is its own state folder (XDG_STATE_HOME set in the forced
# command, or by the fake ssh), which this side's `ward events` does not
# see. A real sshd on 127.0.0.1 when it can run here (a key whose forced
# command is the relay: nothing but the relay runs there); else ssh is a
# script that runs `ward relay` with that state folder.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" '[files]' 'write = deny'
FAR=$WT_SCRATCH/far-state
mkdir -p "$FAR"

start_sshd() {
	sshd_usable || return 1
	sshd_key user_key "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR" "XDG_STATE_HOME=$FAR" || return 1
	sshd_start 1 || return 1
	sshd_alias evhost "${SSHD_PORTS[0]}" user_key
	if ! sshd_check evhost; then
		sshd_stop
		return 1
	fi
	return 0
}

if start_sshd; then
	note "a real sshd on loopback (pid $sshd_pid), forced command ward relay"
	mode=sshd
elif [ "$(id -u)" = 0 ] && [ "${CI:-false}" = true ]; then
	die "as root under CI=true the real sshd must work (see the notes above)"
else
	note "no sshd here: ssh is a script that runs 'ward relay' (the relay alone)"
	mode=fake
	cat >"$WT_SCRATCH/ssh" <<SH
#!/bin/sh
[ "\$1" = -T ] && shift
shift
[ "\$*" = "ward relay" ] || { echo "fake ssh: unexpected command: \$*" >&2; exit 1; }
XDG_STATE_HOME="$FAR" exec "$WARD" relay
SH
	chmod +x "$WT_SCRATCH/ssh"
	export WARD_SSH=$WT_SCRATCH/ssh
fi
HOST=evhost

# A run on "the far side": its record is in $FAR. Its write is refused
# by the policy: a deny row to find.
XDG_STATE_HOME=$FAR ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --name far-build --policy "$WT_SCRATCH/policy.ini" \
    --in "$WT_CANARY" -- sh -c 'echo x > "$1/file" || echo DENIED' sh "$WT_CANARY"
ward_wait 30
FAR_RUN=$WT_RUN

# This side's record has no such run.
st=0
"$WARD" events --json --run far-build >"$WT_ARTIFACTS/local.jsonl" 2>"$WT_ARTIFACTS/local.err" </dev/null || st=$?
assert_eq "ward events --run far-build here (not in this record) exit status" 1 "$st"

# --host: the far side's record, every line with its host and the name.
st=0
t0=$(now_ms)
"$WARD" events --json --host "$HOST" --run far-build >"$WT_ARTIFACTS/far.jsonl" 2>"$WT_ARTIFACTS/far.err" </dev/null || st=$?
note "ward events --host took $(($(now_ms) - t0)) ms ($mode)"
assert_eq "ward events --json --host exit status" 0 "$st"
if [ -s "$WT_ARTIFACTS/far.jsonl" ] && jq -e -s --arg r "$FAR_RUN" --arg h "$HOST" \
    'length >= 3 and all(.run == $r and .name == "far-build" and .host == $h)' \
    "$WT_ARTIFACTS/far.jsonl" >/dev/null 2>&1; then
	note "ok: $(wc -l <"$WT_ARTIFACTS/far.jsonl") lines from $HOST, each with run, name and host"
else
	show "far.jsonl" "$WT_ARTIFACTS/far.jsonl"
	show "stderr" "$WT_ARTIFACTS/far.err"
	fail "ward events --json --host: not the far run's lines with name and host"
fi
assert_log "the far run's start" "$WT_ARTIFACTS/far.jsonl" \
    ".kind == \"run\" and .subject == \"start\""
assert_log "the far run's denied write" "$WT_ARTIFACTS/far.jsonl" \
    ".kind == \"write\" and .verdict == \"deny\" and .subject == \"$WT_CANARY/file\""
assert_log "the far run's end" "$WT_ARTIFACTS/far.jsonl" \
    ".kind == \"run\" and .subject == \"exit\""

# Text lines too, tab-separated, the same count.
st=0
"$WARD" events --host "$HOST" --run "$FAR_RUN" >"$WT_ARTIFACTS/far.txt" 2>&1 </dev/null || st=$?
assert_eq "ward events --host (text) exit status" 0 "$st"
assert_eq "text lines as many as JSON lines" "$(wc -l <"$WT_ARTIFACTS/far.jsonl")" "$(wc -l <"$WT_ARTIFACTS/far.txt")"
assert_grep "a text line names the run" "	$FAR_RUN	run	" "$WT_ARTIFACTS/far.txt"

# An unknown run there: said, exit 1.
st=0
"$WARD" events --host "$HOST" --run nosuchrun >"$WT_ARTIFACTS/nosuch" 2>&1 </dev/null || st=$?
assert_eq "ward events --host --run nosuchrun exit status" 1 "$st"
assert_grep "the far side says which run" 'no run "nosuchrun" in the record' "$WT_ARTIFACTS/nosuch"

# --follow --host: a far run that waits; the follower sees its start,
# then its end once it goes on, and stops by itself after it.
XDG_STATE_HOME=$FAR ward_bg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" \
    run --headless --name far-wait --policy "$WT_SCRATCH/policy.ini" \
    --in "$WT_CANARY" -- sh -c 'i=0; while [ ! -e "$1/go" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; echo DONE' sh "$WT_CANARY"
"$WARD" events --follow --json --host "$HOST" --run far-wait >"$WT_ARTIFACTS/follow.jsonl" 2>"$WT_ARTIFACTS/follow.err" </dev/null &
fpid=$!
WT_BG_PIDS+=("$fpid")
fstart() { jq -e -s 'map(select(.kind == "run" and .subject == "start" and .name == "far-wait")) | length == 1' "$WT_ARTIFACTS/follow.jsonl" >/dev/null 2>&1; }
if wait_for 5 fstart; then
	note "ok: the follower has the far run's start"
else
	show "follow" "$WT_ARTIFACTS/follow.jsonl"
	show "follow stderr" "$WT_ARTIFACTS/follow.err"
	fail "ward events --follow --host: no start line within 5 s"
fi
touch "$WT_CANARY/go"
ward_wait 30
t0=$(now_ms)
fgone() { ! kill -0 "$fpid" 2>/dev/null; }
if wait_for 5 fgone; then
	st=0
	wait "$fpid" || st=$?
	note "ok: the follower stopped $(($(now_ms) - t0)) ms after the far run ended"
	assert_eq "ward events --follow --host exit status" 0 "$st"
else
	fail "ward events --follow --host --run did not stop after the run ended"
	kill "$fpid" 2>/dev/null || true
fi
assert_log "the follower has the far run's end" "$WT_ARTIFACTS/follow.jsonl" \
    ".kind == \"run\" and .subject == \"exit\" and .name == \"far-wait\" and .host == \"$HOST\""

# Here: a named run and an unnamed one, "name" their --name and null.
ward_bg "$WT_ARTIFACTS/out3" "$WT_ARTIFACTS/err3" \
    run --headless --name near-named --policy "$WT_SCRATCH/policy.ini" -- true
ward_wait 30
NAMED=$WT_RUN
ward_bg "$WT_ARTIFACTS/out4" "$WT_ARTIFACTS/err4" \
    run --headless --policy "$WT_SCRATCH/policy.ini" -- true
ward_wait 30
UNNAMED=$WT_RUN
"$WARD" events --json >"$WT_ARTIFACTS/near.jsonl" 2>&1 </dev/null || true
assert_log "a named run's lines say its name" "$WT_ARTIFACTS/near.jsonl" \
    ".run == \"$NAMED\" and .name == \"near-named\" and .subject == \"start\""
assert_log "an unnamed run's name is null" "$WT_ARTIFACTS/near.jsonl" \
    ".run == \"$UNNAMED\" and has(\"name\") and .name == null and .subject == \"start\""
if jq -e -s 'all(keys_unsorted[1:3] == ["run", "name"])' "$WT_ARTIFACTS/near.jsonl" >/dev/null 2>&1; then
	note "ok: \"name\" comes right after \"run\""
else
	fail "\"name\" is not right after \"run\" in ward events --json"
fi

sshd_stop
finish
