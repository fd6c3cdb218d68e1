#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward run` on a terminal the console cannot draw on: TERM naming a type
# terminfo does not know, and TERM=dumb (no cursor addressing). ward says
# so and runs headless, so the run is never left with nobody to answer:
# the request is announced, `ward approve` answers it, the program's
# status comes back. (Before: an unknown TERM ended the console with
# status 1 and left the run waiting; dumb drew a broken screen.)
. "$(dirname "$0")/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"

write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

export TMUX_TMPDIR=$WT_SCRATCH
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardterm$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }

on_screen() {	# on_screen SESSION ERE
	tm capture-pane -p -J -t "$1" >"$WT_SCRATCH/screen.txt" 2>/dev/null &&
	    grep -Eq -- "$2" "$WT_SCRATCH/screen.txt"
}

# The only live run's request, from `ward pending`: "RUN ID".
pending_req() {
	"$WARD" pending 2>/dev/null | awk -F'\t' 'NR == 1 { print $1, $2 }'
}
has_pending() { [ -n "$(pending_req)" ]; }

check_term() {	# check_term NAME TERM
	local name=$1 term=$2 canary=$WT_SCRATCH/canary-$1
	local launch=$WT_SCRATCH/launch-$1.sh status=$WT_SCRATCH/status-$1
	mkdir -p "$canary"
	{
		echo 'cd "$1" || exit 99'
		printf 'export TERM=%q\n' "$term"
		printf '%q run --policy %q --in %q -- sh -c %q %q\n' "$WARD" \
		    "$WT_SCRATCH/policy.ini" "$canary" \
		    'echo hello; echo x > "$0/f"; echo done' "$canary"
		echo 'echo $? > "$2"'
		# keep the pane for the capture
		echo 'sleep 30'
	} >"$launch"
	cp "$launch" "$WT_ARTIFACTS/"
	tm -f /dev/null new-session -d -s "$name" -x 100 -y 30 \
	    "bash $(printf '%q' "$launch") $(printf '%q' "$WT_SCRATCH") $(printf '%q' "$status")"

	if wait_for 15 on_screen "$name" 'running headless'; then
		note "ok: TERM=$term: ward says it runs headless"
	else
		fail "TERM=$term: no 'running headless' on screen within 15 s"
	fi
	cp "$WT_SCRATCH/screen.txt" "$WT_ARTIFACTS/screen-$name-1.txt"
	if ! wait_for 15 has_pending; then
		tm capture-pane -p -J -t "$name" >"$WT_ARTIFACTS/screen-$name-2.txt" 2>/dev/null || true
		show "screen" "$WT_ARTIFACTS/screen-$name-2.txt"
		# a console that died leaves the run; end it
		"$WARD" ps 2>/dev/null | awk -F'\t' '{ print $1 }' | while read -r r; do
			"$WARD" kill "$r" >/dev/null 2>&1 || true
		done
		die "TERM=$term: no pending request within 15 s"
	fi
	if wait_for 10 on_screen "$name" 'request [0-9]+ pending'; then
		note "ok: TERM=$term: the request is announced on the terminal"
	else
		fail "TERM=$term: the request is not announced on the terminal"
	fi
	set -- $(pending_req)
	"$WARD" approve "$1" "$2" >/dev/null || fail "ward approve $1 $2"
	wait_for 10 test -s "$status" || true
	tm capture-pane -p -J -t "$name" >"$WT_ARTIFACTS/screen-$name-3.txt" 2>/dev/null || true
	assert_eq "TERM=$term: ward's exit status" 0 "$(cat "$status" 2>/dev/null || echo none)"
	assert_file_content "TERM=$term: host file written after approve" "x" "$canary/f"
	assert_grep "TERM=$term: the program's output on the terminal" '^done' \
	    "$WT_ARTIFACTS/screen-$name-3.txt"
	if ! grep -q 'running headless' "$WT_ARTIFACTS/screen-$name-3.txt"; then
		show "screen" "$WT_ARTIFACTS/screen-$name-3.txt"
	fi
	tm kill-session -t "$name" 2>/dev/null || true
}

check_term unknown ward-no-such-terminal-xyz
check_term dumb dumb
finish
