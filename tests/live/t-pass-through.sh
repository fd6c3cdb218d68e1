#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward run --pass-through` under tmux: a full-screen program
# (fullscreen.c) draws on the terminal itself (at column 0, at the
# terminal's whole size: no pane, no gutter, no strip), keys and a resize
# reach it, ward says one line on stderr and nothing over the program's
# screen; its write request waits for `ward approve` from outside, and ward
# exits with the program's status. A console attached elsewhere with
# --lines shows the request and leaves the program's size alone.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	[ "${CI:-}" = true ] && die "tmux is not installed (CI=true: no skip)"
	skip "tmux is not installed"
fi
helper=$(cd "$(dirname "$0")" && pwd)/fullscreen
[ -x "$helper" ] || die "$helper is missing (make tests builds tests/live/fullscreen.c)"

mkdir -p "$WT_SCRATCH/canary"
WT_CANARY=$WT_SCRATCH/canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

launch=$WT_SCRATCH/launch.sh
{
	echo 'cd "$1" || exit 99'
	printf 'TERM=xterm-256color %q run --pass-through --policy %q --in %q --in %q -- %q %q 2>"$1/stderr"\n' \
	    "$WARD" "$WT_SCRATCH/policy.ini" "$WT_CANARY" \
	    "$(dirname "$helper")" "$helper" "$WT_CANARY"
	echo 'echo $? > "$2"'
	echo 'sleep 30'
} >"$launch"
cp "$launch" "$WT_ARTIFACTS/launch.sh"

export TMUX_TMPDIR=$WT_SCRATCH
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardpass$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
status=$WT_SCRATCH/status
# The status line off before the program starts: turned off after, the
# pane grew from 29 to 30 rows under a program already drawing (it failed
# once in a full run: its bottom row not where the test looked).
printf 'set -g status off\n' >"$WT_SCRATCH/tmux.conf"
tm -f "$WT_SCRATCH/tmux.conf" new-session -d -s ward -x 100 -y 30 \
    "bash $(printf '%q' "$launch") $(printf '%q' "$WT_SCRATCH") $(printf '%q' "$status")"

shot=0
capture() {
	shot=$((shot + 1))
	tm capture-pane -p -J -t ward >"$WT_ARTIFACTS/screen-$shot-$1.txt" 2>/dev/null || true
	cp "$WT_ARTIFACTS/screen-$shot-$1.txt" "$WT_SCRATCH/screen.txt"
}
on_screen() {
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
		show "ward's stderr" "$WT_SCRATCH/stderr"
		die "'$2' not on screen within $3 s"
	fi
}

# It draws on the terminal itself: its first column, the whole 100x30.
expect_screen drawn '^FULLSCREEN size 30x100' 20
# Its bottom row is the terminal's last.
expect_screen bottom '^BOTTOM-RIGHT-CORNER-FILLER' 10
assert_eq "on the terminal's last row" 30 "$(grep -n '^BOTTOM-RIGHT-CORNER-FILLER' "$WT_SCRATCH/screen.txt" | cut -d: -f1)"
assert_no_grep "no gutter of ward's" '│' "$WT_SCRATCH/screen.txt"
assert_no_grep "no header of ward's" '^(--|==) (agent|pending)' "$WT_SCRATCH/screen.txt"

# One line from ward, on stderr, naming the run and how to answer.
run=$("$WARD" ps 2>/dev/null | awk 'NR == 1 { print $1 }')
[ -n "$run" ] || die "no live run in 'ward ps'"
assert_eq "ward's stderr is one line" 1 "$(wc -l <"$WT_SCRATCH/stderr")"
assert_grep "the line names the run and the console" \
    "run $run has this terminal \\(pass-through\\).*ward console --lines $run" "$WT_SCRATCH/stderr"

# Keys reach it; a resize reaches it.
tm send-keys -t ward h e l l o
expect_screen typed '^typed: hello' 10
tm send-keys -t ward Up
expect_screen up '^typed: hello<up>' 10
tm resize-window -t ward -x 120 -y 40 >/dev/null 2>&1 ||
    tm resize-pane -t ward -x 120 -y 40 >/dev/null 2>&1 || true
expect_screen resized '^FULLSCREEN size 40x120' 10

# A console elsewhere, in line view, sees the request; the program keeps
# the terminal's size.
tm new-window -d -t ward -n console \
    "TERM=xterm-256color $(printf '%q' "$WARD") console --lines $run"
tm send-keys -t ward:0 w
pending_req() { "$WARD" pending "$run" 2>/dev/null | awk -F '\t' 'NR == 1 { print $2 }'; }
# A function, so each poll asks again ("$(pending_req)" as an argument
# was asked once, before the first poll: a request slower than that one
# question was never seen).
have_request() { test -n "$(pending_req)"; }
wait_for 15 have_request || { capture no-request; die "no request pending 15 s after w"; }
req=$(pending_req)
note "request $req pending"
capture pending
assert_no_grep "nothing of ward's over the program's screen" 'pending|approve' "$WT_SCRATCH/screen.txt"
console_shows() {
	tm capture-pane -p -J -t ward:console >"$WT_SCRATCH/console.txt" 2>/dev/null &&
	    grep -Eq -- "$1" "$WT_SCRATCH/console.txt"
}
if wait_for 10 console_shows 'pending: 1'; then
	note "ok: the second console shows the request"
else
	show "console" "$WT_SCRATCH/console.txt"
	fail "the console in line view does not show the request"
fi
assert_grep "the console names the file" 'canary/f' "$WT_SCRATCH/console.txt"
sleep 1
capture still-sized
assert_grep "the program keeps the terminal's size" '^FULLSCREEN size 40x120' "$WT_SCRATCH/screen.txt"
[ ! -e "$WT_CANARY/f" ] && note "ok: nothing written before the answer" ||
    fail "$WT_CANARY/f exists before anyone approved"

st=0
"$WARD" approve "$run" "$req" >"$WT_ARTIFACTS/approve" 2>&1 </dev/null || st=$?
assert_eq "ward approve exit status" 0 "$st"
wait_for 5 test -s "$WT_CANARY/f" || true
assert_file_content "host file written after ward approve" "x" "$WT_CANARY/f"

# The program quits; ward returns its status and has said nothing more.
tm send-keys -t ward:0 q
wait_for 15 test -s "$status" || { capture after-q; die "ward did not exit 15 s after q"; }
assert_eq "ward's exit status is the program's" 0 "$(cat "$status")"
assert_eq "still one line on ward's stderr" 1 "$(wc -l <"$WT_SCRATCH/stderr")"
capture exited

# A run killed from outside leaves the terminal as ward found it: out of
# the program's alternate screen, with ward's exit status 137.
launch2=$WT_SCRATCH/launch2.sh
{
	echo 'cd "$1" || exit 99'
	printf 'TERM=xterm-256color %q run --pass-through --name killed --policy %q --in %q -- %q %q 2>"$1/stderr2"\n' \
	    "$WARD" "$WT_SCRATCH/policy.ini" "$(dirname "$helper")" "$helper" "$WT_CANARY"
	echo 'echo $? > "$2"'
	echo 'sleep 30'
} >"$launch2"
status2=$WT_SCRATCH/status2
tm new-window -d -t ward -n killed \
    "bash $(printf '%q' "$launch2") $(printf '%q' "$WT_SCRATCH") $(printf '%q' "$status2")"
killed_drawn() {
	tm capture-pane -p -J -t ward:killed >"$WT_SCRATCH/screen.txt" 2>/dev/null &&
	    grep -q '^FULLSCREEN size' "$WT_SCRATCH/screen.txt"
}
wait_for 20 killed_drawn || die "the second run did not draw"
assert_eq "the program is on its alternate screen" 1 \
    "$(tm display-message -p -t ward:killed '#{alternate_on}')"
"$WARD" kill killed >/dev/null 2>&1 </dev/null || fail "ward kill killed failed"
wait_for 15 test -s "$status2" || die "ward did not exit 15 s after ward kill"
assert_eq "ward's exit status after a kill" 137 "$(cat "$status2")"
assert_eq "the terminal is off the alternate screen again" 0 \
    "$(tm display-message -p -t ward:killed '#{alternate_on}')"

# Usage: --pass-through wants a terminal on stdin, and not --headless.
st=0
"$WARD" run --pass-through -- true </dev/null >"$WT_ARTIFACTS/no-tty" 2>&1 || st=$?
assert_eq "--pass-through without a terminal exits" 125 "$st"
assert_grep "and says why" 'stdin is not one' "$WT_ARTIFACTS/no-tty"
st=0
"$WARD" run --pass-through --headless -- true </dev/null >"$WT_ARTIFACTS/both" 2>&1 || st=$?
assert_eq "--pass-through --headless exits" 125 "$st"
assert_grep "and says why" 'cannot go together' "$WT_ARTIFACTS/both"
finish
