#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The console in a real terminal (tmux): live output, a pending request,
# `a` approves it once, the end of the run is shown, `q` leaves.
. "$(dirname "$0")/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"

mkdir -p "$WT_SCRATCH/canary"
WT_CANARY=$WT_SCRATCH/canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

# The launcher keeps ward's exit status for us: tmux does not.
launch=$WT_SCRATCH/launch.sh
{
	echo 'cd "$1" || exit 99'
	# the canary folder goes in as $0 of sh -c
	printf '%q run --policy %q --in %q -- sh -c %q %q\n' "$WARD" \
	    "$WT_SCRATCH/policy.ini" "$WT_CANARY" \
	    'echo hello; echo x > "$0/f"; echo done; sleep 2' "$WT_CANARY"
	echo 'echo $? > "$2"'
} >"$launch"
cp "$launch" "$WT_ARTIFACTS/launch.sh"

export TMUX_TMPDIR=$WT_SCRATCH
# tmux runs the command with $SHELL, else the login shell, which for a
# system user such as wardtest is nologin.
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardtest$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
status=$WT_SCRATCH/status
tm -f /dev/null new-session -d -s ward -x 100 -y 30 \
    "bash $(printf '%q' "$launch") $(printf '%q' "$WT_SCRATCH") $(printf '%q' "$status")"
tm set-option -t ward remain-on-exit off >/dev/null 2>&1 || true

shot=0
capture() {	# capture NAME: the screen now, kept as an artifact
	shot=$((shot + 1))
	tm capture-pane -p -J -t ward >"$WT_ARTIFACTS/screen-$shot-$1.txt" 2>/dev/null || true
	cp "$WT_ARTIFACTS/screen-$shot-$1.txt" "$WT_SCRATCH/screen.txt"
}
on_screen() {	# on_screen ERE
	tm capture-pane -p -J -t ward >"$WT_SCRATCH/screen.txt" 2>/dev/null &&
	    grep -Eq -- "$1" "$WT_SCRATCH/screen.txt"
}
expect_screen() {	# expect_screen NAME ERE SECONDS
	if wait_for "$3" on_screen "$2"; then
		note "ok: '$2' on screen"
		capture "$1"
	else
		capture "$1"
		show "screen" "$WT_SCRATCH/screen.txt"
		die "'$2' not on screen within $3 s"
	fi
}

expect_screen hello 'hello' 15
expect_screen pending 'canary/f' 10
[ ! -e "$WT_CANARY/f" ] && note "ok: nothing written before the answer" ||
    fail "$WT_CANARY/f exists before anyone approved"

# `a` is armed once the request has been on screen for half a second.
sleep 0.6
tm send-keys -t ward a
if ! wait_for 5 test -s "$WT_CANARY/f"; then
	capture after-a
	note "no write 5 s after 'a'; pressing it once more"
	tm send-keys -t ward a
	wait_for 5 test -s "$WT_CANARY/f" || true
fi
assert_file_content "host file written after 'a'" "x" "$WT_CANARY/f"

expect_screen done 'done' 10
expect_screen exited 'exited with status 0' 15
tm send-keys -t ward q
session_gone() { ! tm has-session -t ward 2>/dev/null; }
if wait_for 10 session_gone; then
	note "ok: q left the console"
else
	capture after-q
	fail "the console is still there 10 s after q"
fi
wait_for 5 test -s "$status" || true
assert_eq "ward's exit status after q" 0 "$(cat "$status" 2>/dev/null || echo none)"

# The record names the person's answer.
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1" 2>/dev/null || true)
if [ -n "$run" ]; then
	log_json "$run" "$WT_ARTIFACTS/log.json"
	assert_log "allow by a person in the console" "$WT_ARTIFACTS/log.json" \
	    ".verdict == \"allow\" and .how == \"person\" and .subject == \"$WT_CANARY/f\""
else
	fail "no run recorded in audit.db"
fi
finish
