#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward run --split` inside tmux: the program (fullscreen.c) runs
# pass-through in the original pane, `ward console --lines RUN` opens in
# a new pane below; the request the program raises shows in that console
# and `a` there (once armed) approves it; the console's pane closes when
# the run ends. Outside tmux, --split is a clear error (125).
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	[ "${CI:-}" = true ] && die "tmux is not installed (CI=true: no skip)"
	skip "tmux is not installed"
fi
helper=$(cd "$(dirname "$0")" && pwd)/fullscreen
[ -x "$helper" ] || die "$helper is missing (make tests builds tests/live/fullscreen.c)"

# Outside tmux: refused before any run starts.
st=0
env -u TMUX "$WARD" run --split -- true </dev/null >"$WT_ARTIFACTS/outside" 2>&1 || st=$?
assert_eq "--split outside tmux exits" 125 "$st"
assert_grep "and says it needs tmux" 'not inside tmux' "$WT_ARTIFACTS/outside"
assert_eq "no run was started" "" "$("$WARD" ps 2>/dev/null)"

mkdir -p "$WT_SCRATCH/canary"
WT_CANARY=$WT_SCRATCH/canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

launch=$WT_SCRATCH/launch.sh
{
	echo 'cd "$1" || exit 99'
	printf 'TERM=xterm-256color %q run --split --policy %q --in %q --in %q -- %q %q 2>"$1/stderr"\n' \
	    "$WARD" "$WT_SCRATCH/policy.ini" "$WT_CANARY" \
	    "$(dirname "$helper")" "$helper" "$WT_CANARY"
	echo 'echo $? > "$2"'
	echo 'sleep 30'
} >"$launch"
cp "$launch" "$WT_ARTIFACTS/launch.sh"

export TMUX_TMPDIR=$WT_SCRATCH
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardsplit$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
status=$WT_SCRATCH/status
tm -f /dev/null new-session -d -s ward -x 120 -y 50 \
    "bash $(printf '%q' "$launch") $(printf '%q' "$WT_SCRATCH") $(printf '%q' "$status")"
tm set-option -g status off >/dev/null 2>&1 || true

first=$(tm list-panes -t ward -F '#{pane_id}' | head -1)
shot=0
capture() {	# capture NAME PANE
	shot=$((shot + 1))
	tm capture-pane -p -J -t "$2" >"$WT_ARTIFACTS/screen-$shot-$1.txt" 2>/dev/null || true
	cp "$WT_ARTIFACTS/screen-$shot-$1.txt" "$WT_SCRATCH/screen.txt"
}
on_screen() {	# on_screen PANE ERE
	tm capture-pane -p -J -t "$1" >"$WT_SCRATCH/screen.txt" 2>/dev/null &&
	    grep -Eq -- "$2" "$WT_SCRATCH/screen.txt"
}
expect_screen() {	# expect_screen NAME PANE ERE SECONDS
	if wait_for "$4" on_screen "$2" "$3"; then
		note "ok: '$3' on pane $2"
		capture "$1" "$2"
	else
		capture "$1" "$2"
		show "screen" "$WT_SCRATCH/screen.txt"
		show "ward's stderr" "$WT_SCRATCH/stderr"
		die "'$3' not on pane $2 within $4 s"
	fi
}
two_panes() { [ "$(tm list-panes -t ward 2>/dev/null | wc -l)" -eq 2 ]; }
wait_for 20 two_panes || { tm list-panes -t ward >"$WT_ARTIFACTS/panes" 2>&1; show panes "$WT_ARTIFACTS/panes"; show "ward's stderr" "$WT_SCRATCH/stderr"; die "no second pane 20 s after ward run --split"; }
second=$(tm list-panes -t ward -F '#{pane_id}' | grep -vx -- "$first" | head -1)
note "ok: the split pane $second is there"
assert_eq "the program's pane keeps the focus" "$first" \
    "$(tm display-message -p -t ward '#{pane_id}')"

# The program in its pane, at that pane's size, drawing directly.
rows=$(tm display-message -p -t "$first" '#{pane_height}')
cols=$(tm display-message -p -t "$first" '#{pane_width}')
expect_screen drawn "$first" "^FULLSCREEN size ${rows}x${cols}" 20
expect_screen console "$second" 'ward' 20

# Its request shows in the split console, nowhere in the program's pane.
tm send-keys -t "$first" w
expect_screen pending "$second" 'pending: 1' 15
assert_grep "the console names the file" 'canary/f' "$WT_SCRATCH/screen.txt"
capture program "$first"
assert_no_grep "nothing of ward's over the program" 'pending' "$WT_SCRATCH/screen.txt"
[ ! -e "$WT_CANARY/f" ] && note "ok: nothing written before the answer" ||
    fail "$WT_CANARY/f exists before anyone approved"

# `a` in the console, once armed, approves.
sleep 1
tm send-keys -t "$second" a
if ! wait_for 5 test -s "$WT_CANARY/f"; then
	note "no write 5 s after a; pressing a once more"
	tm send-keys -t "$second" a
	wait_for 5 test -s "$WT_CANARY/f" || true
fi
assert_file_content "host file written after a in the split console" "x" "$WT_CANARY/f"
expect_screen typed-nothing "$first" '^typed: ?$' 5

# The program quits: ward exits with its status, the console's pane goes.
tm send-keys -t "$first" q
wait_for 15 test -s "$status" || { capture after-q "$first"; die "ward did not exit 15 s after q"; }
assert_eq "ward's exit status is the program's" 0 "$(cat "$status")"
one_pane() { [ "$(tm list-panes -t ward 2>/dev/null | wc -l)" -eq 1 ]; }
wait_for 10 one_pane && note "ok: the console's pane closed with the run" ||
    fail "the console's pane is still there after the run ended"
finish
