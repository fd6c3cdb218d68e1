#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The agent pane in a real terminal (tmux): a full-screen curses program
# (fullscreen.c) under `ward run` draws inside the pane at the pane's
# size (and a resize), gets the keys once the person's Esc gives them
# (its going full screen does not), raises a write request that appears
# in the strip while it keeps drawing; `a` typed into the program does not
# approve, the prefix key and then `a` (once armed) does; its title and
# its fake request block stay inside its pane.
. "$(dirname "$0")/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"
helper=$(cd "$(dirname "$0")" && pwd)/fullscreen
[ -x "$helper" ] || die "$helper is missing (make tests builds tests/live/fullscreen.c)"

mkdir -p "$WT_SCRATCH/canary"
WT_CANARY=$WT_SCRATCH/canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

launch=$WT_SCRATCH/launch.sh
{
	echo 'cd "$1" || exit 99'
	printf 'TERM=xterm-256color %q run --policy %q --in %q --in %q -- %q %q\n' \
	    "$WARD" "$WT_SCRATCH/policy.ini" "$WT_CANARY" \
	    "$(dirname "$helper")" "$helper" "$WT_CANARY"
	echo 'echo $? > "$2"'
} >"$launch"
cp "$launch" "$WT_ARTIFACTS/launch.sh"

export TMUX_TMPDIR=$WT_SCRATCH
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardagent$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
status=$WT_SCRATCH/status
tm -f /dev/null new-session -d -s ward -x 100 -y 30 \
    "bash $(printf '%q' "$launch") $(printf '%q' "$WT_SCRATCH") $(printf '%q' "$status")"
# Only the pane's own size counts: no status bar under it.
tm set-option -g status off >/dev/null 2>&1 || true
tm set-option -t ward remain-on-exit off >/dev/null 2>&1 || true

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
		die "'$2' not on screen within $3 s"
	fi
}
tick() { grep -Eo 'tick [0-9]+' "$WT_SCRATCH/screen.txt" | head -1; }

# Its drawing, in the pane: behind ward's gutter, at the pane's size
# (100x30: the title, the pane's header, 25 rows, the strip's header,
# the status and key lines; the gutter takes a column).
expect_screen drawn '^│FULLSCREEN size [0-9]+x[0-9]+' 20
expect_screen sized '^│FULLSCREEN size 25x99' 10
assert_grep "the pane's header, ward's" '^(--|==) agent pane, run [0-9a-f]+ ' "$WT_SCRATCH/screen.txt"
# Without --agent the pane shows once the program goes full screen, but
# the keys stay on the requests until the person's Esc (issue 31).
expect_screen keys-stay 'Esc agent' 10
tm send-keys -t ward Escape
expect_screen keys-given 'keys go to the agent' 10

# The terminal's cursor stands where the program's is (curses leaves it
# after its last text, BOTTOM-RIGHT-CORNER-FILLER on the pane's last
# row: screen row 2 + 24, column 1 + 26), shown while the pane has the
# keys.
cursor_at() { tm display-message -p -t ward '#{cursor_flag} #{cursor_y} #{cursor_x}' 2>/dev/null; }
cursor_is() { [ "$(cursor_at)" = "$1" ]; }
if wait_for 5 cursor_is "1 26 27"; then
	note "ok: the cursor is the program's, shown, at 26,27"
else
	fail "the cursor: expected '1 26 27' (shown, row, column), got '$(cursor_at)'"
fi

# Keys reach it.
tm send-keys -t ward h e l l o
expect_screen typed '^│typed: hello' 10
tm send-keys -t ward Up
expect_screen up '^│typed: hello<up>' 10

# A resize reaches it (SIGWINCH on the pty).
tm resize-window -t ward -x 120 -y 40 >/dev/null 2>&1 ||
    tm resize-pane -t ward -x 120 -y 40 >/dev/null 2>&1 || true
expect_screen resized '^│FULLSCREEN size 35x119' 10

# Its title and its fake request stay inside its pane.
tm send-keys -t ward t
expect_screen faked 'FAKE-REQUEST' 10
title=$(tm display-message -p -t ward '#{pane_title}' 2>/dev/null || true)
assert_ne "the terminal's title is not the program's" "PWNED-TITLE" "$title"
if grep -E 'FAKE-REQUEST|pending: 1, oldest' "$WT_SCRATCH/screen.txt" | grep -vq '^│'; then
	show "screen" "$WT_SCRATCH/screen.txt"
	fail "the program's fake request stands outside its pane"
else
	note "ok: every line of the fake request is behind the gutter"
fi
assert_grep "its title shown as data on ward's header" "^(--|==) agent pane, run [0-9a-f]+ [-=] program's title: \"PWNED-TITLE\"" "$WT_SCRATCH/screen.txt"

# A write request: in the strip, while the program keeps drawing.
tm send-keys -t ward w
expect_screen pending '^(--|==) pending: 1' 15
assert_grep "the request names the file" 'canary/f' "$WT_SCRATCH/screen.txt"
t1=$(tick)
sleep 1
capture drawing
t2=$(tick)
assert_ne "the program keeps drawing while the request waits" "$t1" "$t2"
[ ! -e "$WT_CANARY/f" ] && note "ok: nothing written before the answer" ||
    fail "$WT_CANARY/f exists before anyone approved"

# `a` typed into the program is the program's: no answer.
sleep 0.8
tm send-keys -t ward a
expect_screen typed-a '^│typed: hello<up>a' 10
sleep 1.5
[ ! -e "$WT_CANARY/f" ] && note "ok: 'a' typed into the agent approved nothing" ||
    fail "'a' typed into the agent pane approved the write"

# The prefix moves the focus; `a` right away is too early (not armed).
tm send-keys -t ward C-]
tm send-keys -t ward a
sleep 1
[ ! -e "$WT_CANARY/f" ] && note "ok: 'a' at once after the prefix is not armed" ||
    fail "'a' approved before the request was on screen with the focus on it"
capture early
if wait_for 5 cursor_is "0 $(cursor_at | cut -d' ' -f2-)"; then
	note "ok: no cursor while the requests have the keys"
else
	fail "the cursor is shown with the focus on the requests: '$(cursor_at)'"
fi
# Once armed, it approves.
sleep 0.2
tm send-keys -t ward a
if ! wait_for 5 test -s "$WT_CANARY/f"; then
	capture after-a
	note "no write 5 s after prefix + a; pressing a once more"
	tm send-keys -t ward a
	wait_for 5 test -s "$WT_CANARY/f" || true
fi
assert_file_content "host file written after prefix + a" "x" "$WT_CANARY/f"

# Only a watching console types into the program: a client that said no
# hello (a CLI verb, a script) is refused, and its "q" never arrives.
run=$("$WARD" ps 2>/dev/null | awk 'NR == 1 { print $1 }')
[ -n "$run" ] || die "no live run in 'ward ps'"
reply=$(python3 - "$XDG_RUNTIME_DIR/ward/$run.sock" <<'PY'
import base64, json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
for m in ({"type": "input", "data": base64.b64encode(b"q").decode()},
          {"type": "resize", "rows": 5, "cols": 5}):
    b = json.dumps(m).encode()
    s.sendall(struct.pack(">I", len(b)) + b)
out = []
for _ in range(2):
    n = struct.unpack(">I", s.recv(4, socket.MSG_WAITALL))[0]
    out.append(json.loads(s.recv(n, socket.MSG_WAITALL))["error"])
print(" | ".join(out))
PY
)
assert_eq "input and resize from a client that is no console" \
    "input needs a watching console | input needs a watching console" "$reply"

# Esc gives the keys back to the program; the prefix twice sends it.
tm send-keys -t ward Escape
sleep 0.3
tm send-keys -t ward z
expect_screen back '^│typed: hello<up>az' 10
tm send-keys -t ward C-]
sleep 0.2
tm send-keys -t ward C-]
expect_screen prefix-twice '^│typed: hello<up>az<prefix>' 10

tm send-keys -t ward q
expect_screen exited 'exited with status 0' 15
tm send-keys -t ward q
session_gone() { ! tm has-session -t ward 2>/dev/null; }
wait_for 10 session_gone && note "ok: q left the console" ||
    { capture after-q; fail "the console is still there 10 s after q"; }
wait_for 5 test -s "$status" || true
assert_eq "ward's exit status after q" 0 "$(cat "$status" 2>/dev/null || echo none)"
finish
