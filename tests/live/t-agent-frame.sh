#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 31: a frame the program cannot borrow. Under tmux, `ward run` (no
# --agent: the pane's AUTO) runs a hostile program whose other half
# writes outside (a request waits); then it sets its terminal's title to
# ward's words ("== agent: pwned2 ==", "ward: approved") and switches to
# the alternate screen. The person types `d`, meant for the request:
# the record shows the deny by a person (the key reached ward, not the
# program), the program saw no `d`, and the pane's header line is ward's
# (it names the run; the program's title only as quoted data after it).
# Esc then gives the program the keys (its `got:z`), and it leaves on q.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

# A failed check leaves the hostile program waiting for keys: its run is
# killed on the way out, then lib.sh's cleanup ends tmux.
run=
frame_cleanup() {
	if [ -n "$run" ]; then
		"$WARD" kill "$run" >/dev/null 2>&1 </dev/null || true
	fi
	wt_cleanup
}
trap frame_cleanup EXIT

make_canary
mkdir -p "$WT_SCRATCH/bin" "$WT_SCRATCH/go"
prog=$WT_SCRATCH/bin/hostile.sh
cat >"$prog" <<'EOF'
#!/bin/sh
# $1: the folder outside; $2: a folder where the test says "go".
( exec 2>/dev/null; echo x > "$1/f" ) &
printf 'waiting\r\n'
i=0
until [ -e "$2/go" ] || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done
printf '\033]0;ward: approved\007\033]2;== agent: pwned2 ==\007'
printf '\033[?1049h\033[2J\033[H'
printf 'FULL SCREEN of the hostile program\r\n'
stty raw -echo 2>/dev/null
while :; do
	c=$(dd bs=1 count=1 2>/dev/null)
	printf '\r\ngot:%s\r\n' "$c"
	[ "$c" = q ] && break
done
stty sane 2>/dev/null
printf '\033[?1049l'
exit 0
EOF
chmod 755 "$prog"
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

tmux_start run --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    --in "$WT_SCRATCH/bin" --in "$WT_SCRATCH/go" -- \
    "$prog" "$WT_CANARY" "$WT_SCRATCH/go"
tm set-option -g status off >/dev/null 2>&1 || true

expect_screen pending "$WT_CANARY/f" 20
run=$("$WARD" ps 2>/dev/null | awk 'NR == 1 { print $1 }')
[ -n "$run" ] || die "no live run in 'ward ps'"
note "run $run"

# The program goes full screen, with ward's words as its title.
touch "$WT_SCRATCH/go/go"
expect_screen fullscreen '^│FULL SCREEN of the hostile program' 15
# As a person would: a look at the request, then d.
sleep 1
capture before-d
tm send-keys -t ward d

denied() {
	[ "$(sql "SELECT count(*) FROM events WHERE run = '$run' AND
	    verdict = 'deny' AND how = 'person'" 2>/dev/null)" -gt 0 ] 2>/dev/null
}
if wait_for 10 denied; then
	note "ok: the d reached ward: the request is denied by a person"
else
	capture no-deny
	fail "no deny by a person 10 s after d (the key went to the program?)"
fi
capture after-d
assert_no_grep "the program got no d" 'got:d' "$WT_SCRATCH/screen.txt"
[ ! -e "$WT_CANARY/f" ] && note "ok: nothing written" ||
    fail "$WT_CANARY/f was written"

# The frame line is ward's: the header names the run, the program's
# title follows it only as quoted data.
header=$(grep -E '^(==|--) agent' "$WT_SCRATCH/screen.txt" | head -1)
note "header: $header"
case $header in
"-- agent pane, run $run "*|"== agent pane, run $run "*)
	note "ok: the pane's header names run $run" ;;
*)
	show "screen" "$WT_SCRATCH/screen.txt"
	fail "the pane's header is not ward's: '$header'" ;;
esac
case $header in
*"program's title: \"== agent: pwned2 ==\""*)
	note "ok: the program's title only as quoted data" ;;
*)
	fail "the program's title is not shown as quoted data: '$header'" ;;
esac
if grep -E 'pwned2|ward: approved' "$WT_SCRATCH/screen.txt" |
    grep -v "program's title: \"== agent: pwned2 ==\"" | grep -q .; then
	show "screen" "$WT_SCRATCH/screen.txt"
	fail "the program's title stands somewhere else on the screen"
fi
title=$(tm display-message -p -t ward '#{pane_title}' 2>/dev/null || true)
case $title in
*pwned2*|*approved*) fail "the terminal's title is the program's: '$title'" ;;
*) note "ok: the terminal's title is not the program's ('$title')" ;;
esac
assert_grep "the status line says how to give the program the keys" \
    'Esc agent' "$WT_SCRATCH/screen.txt"

# The person's Esc gives the program the keys; its q ends it.
tm send-keys -t ward Escape
sleep 0.3
tm send-keys -t ward z
expect_screen typed '^│got:z' 10
tm send-keys -t ward q
expect_screen exited 'exited with status 0' 15
tm send-keys -t ward q
wait_for 10 session_gone && note "ok: q left the console" ||
    { capture after-q; fail "the console is still there 10 s after q"; }
wait_for 5 test -s "$WT_TMUX_STATUS" || true
assert_eq "ward's exit status after q" 0 "$(cat "$WT_TMUX_STATUS" 2>/dev/null || echo none)"
tmux_stop
finish
