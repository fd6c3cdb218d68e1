#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 30, point 6: the companion console of a --pass-through run whose
# program is full-screen (fullscreen.c, curses on the alternate screen)
# shows it as a screen, through the console's own terminal emulator at
# the program's size, read-only, never as a wall of escape markers; keys
# typed on the program's terminal show there; nothing typed in the
# console reaches the program. `ward output` of the run then hints at
# --screen, and `ward output --screen` prints the program's last screen.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	[ "${CI:-}" = true ] && die "tmux is not installed (CI=true: no skip)"
	skip "tmux is not installed"
fi
helper=$(cd "$(dirname "$0")" && pwd)/fullscreen
[ -x "$helper" ] || die "$helper is missing (make tests builds tests/live/fullscreen.c)"

mkdir -p "$WT_SCRATCH/canary"
WT_CANARY=$WT_SCRATCH/canary
status=$WT_SCRATCH/status
launch=$WT_SCRATCH/launch.sh
{
	echo 'export LANG=C.UTF-8 LC_ALL=C.UTF-8'
	printf 'TERM=xterm-256color %q run --pass-through --in %q --in %q -- %q %q 2>%q\n' \
	    "$WARD" "$WT_CANARY" "$(dirname "$helper")" "$helper" "$WT_CANARY" \
	    "$WT_SCRATCH/stderr"
	printf 'echo $? > %q\n' "$status"
	echo 'sleep 60'
} >"$launch"
cp "$launch" "$WT_ARTIFACTS/launch.sh"

export TMUX_TMPDIR=$WT_SCRATCH SHELL=/bin/sh
# Two servers: the program's terminal small (70x20), the console's big
# (120x45), so that the console could not draw the program at its own
# size by chance.
WT_TMUX_SOCKET=wardscr$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
tc() { tmux -L "wardscrc$$" "$@"; }
stop() {
	tc kill-server >/dev/null 2>&1 || true
	wt_cleanup
}
trap stop EXIT
printf 'set -g status off\n' >"$WT_SCRATCH/tmux.conf"
tm -f "$WT_SCRATCH/tmux.conf" new-session -d -s ward -x 70 -y 20 \
    "bash $(printf '%q' "$launch")"

shot=0
shows() {	# shows SERVER-FN ERE: the screen of that server matches
	"$1" capture-pane -p -J -t ward >"$WT_SCRATCH/screen.txt" 2>/dev/null &&
	    grep -Eq -- "$2" "$WT_SCRATCH/screen.txt"
}
expect() {	# expect SERVER-FN NAME ERE SECONDS
	shot=$((shot + 1))
	if wait_for "$4" shows "$1" "$3"; then
		note "ok: '$3' on the $2 screen"
	else
		show "$2 screen" "$WT_SCRATCH/screen.txt"
		fail "'$3' not on the $2 screen within $4 s"
	fi
	cp "$WT_SCRATCH/screen.txt" "$WT_ARTIFACTS/screen-$shot-$2.txt"
}

expect tm program '^FULLSCREEN size 20x70' 20
run=$("$WARD" ps 2>/dev/null | awk 'NR == 1 { print $1 }')
[ -n "$run" ] || die "no live run in 'ward ps'"
tm send-keys -t ward h i
expect tm program '^typed: hi' 10

# The companion console, as ward's own line says: --lines.
tc -f "$WT_SCRATCH/tmux.conf" new-session -d -s ward -x 120 -y 45 \
    "LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color $(printf '%q' "$WARD") console --lines $run; sleep 30"
expect tc console "output: the program's screen, 70x20, read-only" 15
expect tc console '│ FULLSCREEN size 20x70' 5
expect tc console '│ typed: hi' 5
expect tc console '│ BOTTOM-RIGHT-CORNER-FILLER' 5
assert_no_grep "console: no escape markers" '⟨ESC|\\e\[|ESC\[' "$WT_SCRATCH/screen.txt"
# What the program types next shows there too.
tm send-keys -t ward y o
expect tc console '│ typed: hiyo' 10
# Keys in the console never reach the program (--lines: read-only).
tc send-keys -t ward z z
sleep 1
expect tm program '^typed: hiyo$' 5
assert_eq "the program keeps its terminal's size" 1 \
    "$(grep -c '^FULLSCREEN size 20x70' "$WT_SCRATCH/screen.txt")"

tm send-keys -t ward q
wait_for 15 test -s "$status" || die "ward did not exit 15 s after q"
assert_eq "ward's exit status is the program's" 0 "$(cat "$status")"
tc kill-server >/dev/null 2>&1 || true

# ward output: a hint; --screen: the last screen, as text.
st=0
"$WARD" output "$run" >"$WT_ARTIFACTS/output.txt" 2>"$WT_ARTIFACTS/output.err" </dev/null || st=$?
assert_eq "ward output exit status" 0 "$st"
assert_grep "ward output hints at --screen" "ward output --screen $run" "$WT_ARTIFACTS/output.err"
st=0
"$WARD" output --screen=70x20 "$run" >"$WT_ARTIFACTS/screen.txt" 2>"$WT_ARTIFACTS/screen.err" </dev/null || st=$?
assert_eq "ward output --screen exit status" 0 "$st"
assert_grep "--screen: the program's first row" '^FULLSCREEN size 20x70$' "$WT_ARTIFACTS/screen.txt"
assert_grep "--screen: what was typed" '^typed: hiyo$' "$WT_ARTIFACTS/screen.txt"
assert_grep "--screen: its last row" '^BOTTOM-RIGHT-CORNER-FILLER$' "$WT_ARTIFACTS/screen.txt"
assert_no_grep "--screen: no escapes" '\\e|\\x1b' "$WT_ARTIFACTS/screen.txt"
assert_eq "--screen: 20 rows at most" 1 "$([ "$(wc -l <"$WT_ARTIFACTS/screen.txt")" -le 20 ] && echo 1 || echo 0)"
st=0
"$WARD" output --screen=bad "$run" >/dev/null 2>"$WT_ARTIFACTS/bad.err" </dev/null || st=$?
assert_eq "--screen=bad: usage error" 2 "$st"
finish
