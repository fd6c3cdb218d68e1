#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The agent pane's prefix key as a setting: `[console] prefix` in the
# run's policy, else in the user's ~/.config/ward/ward.ini (read for its
# [console] section alone), WARD_PREFIX over both. Under tmux, with
# fullscreen.c in the agent pane: the status line names the prefix, that
# key moves the focus to the requests and Esc gives it back; the default
# ^] is then just a key for the program.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	[ "${CI:-}" = true ] && die "tmux is not installed (CI=true: no skip)"
	skip "tmux is not installed"
fi
helper=$(cd "$(dirname "$0")" && pwd)/fullscreen
[ -x "$helper" ] || die "$helper is missing (make tests builds tests/live/fullscreen.c)"
mkdir -p "$WT_SCRATCH/canary"
WT_CANARY=$WT_SCRATCH/canary

export TMUX_TMPDIR=$WT_SCRATCH
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardprefix$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
on_screen() {
	tm capture-pane -p -J -t ward >"$WT_SCRATCH/screen.txt" 2>/dev/null &&
	    grep -Eq -- "$1" "$WT_SCRATCH/screen.txt"
}
expect_screen() {	# expect_screen NAME ERE SECONDS
	if wait_for "$3" on_screen "$2"; then
		note "ok: $1: '$2' on screen"
		cp "$WT_SCRATCH/screen.txt" "$WT_ARTIFACTS/screen-$1.txt"
	else
		cp "$WT_SCRATCH/screen.txt" "$WT_ARTIFACTS/screen-$1.txt"
		show "screen" "$WT_SCRATCH/screen.txt"
		die "$1: '$2' not on screen within $3 s"
	fi
}

# one NAME POLICY KEY SPELLED [ENV...]: a run whose prefix should be KEY
# (tmux's name), shown as SPELLED (an ERE).
one() {
	local name=$1 policy=$2 key=$3 spelled=$4
	shift 4
	local launch=$WT_SCRATCH/launch-$name.sh
	{
		echo 'cd "$1" || exit 99'
		printf 'env TERM=xterm-256color %s %q run --agent --policy %q --in %q --in %q -- %q %q\n' \
		    "$*" "$WARD" "$policy" "$WT_CANARY" "$(dirname "$helper")" \
		    "$helper" "$WT_CANARY"
	} >"$launch"
	tm -f /dev/null new-session -d -s ward -x 100 -y 30 \
	    "bash $(printf '%q' "$launch") $(printf '%q' "$WT_SCRATCH")"
	tm set-option -g status off >/dev/null 2>&1 || true
	expect_screen "$name-drawn" '^│FULLSCREEN size' 20
	expect_screen "$name-named" "keys go to the agent +$spelled requests" 10
	tm send-keys -t ward "$key"
	expect_screen "$name-focus" "$spelled/Esc agent" 10
	tm send-keys -t ward Escape
	expect_screen "$name-back" 'keys go to the agent' 10
	# ^] when it is not the prefix: the program's key, no focus move.
	if [ "$key" != "C-]" ]; then
		tm send-keys -t ward C-]
		sleep 0.5
		on_screen 'keys go to the agent' && note "ok: $name: ^] stays the program's" ||
		    fail "$name: ^] moved the focus though the prefix is $key"
	fi
	tm send-keys -t ward q
	expect_screen "$name-exited" 'exited with status 0' 15
	tm send-keys -t ward q
	gone() { ! tm has-session -t ward 2>/dev/null; }
	wait_for 10 gone || { fail "$name: the console is still there after q"; tm kill-server 2>/dev/null || true; }
}

write_policy "$WT_SCRATCH/plain.ini" '[run]' 'ask_timeout = 60'
write_policy "$WT_SCRATCH/policy-a.ini" '[run]' 'ask_timeout = 60' '[console]' 'prefix = C-a'

# The run's policy sets it.
one policy "$WT_SCRATCH/policy-a.ini" C-a '\^A'
# The user's own ward.ini, for its [console] section alone (its [run] is
# nonsense the console never judges), when the run's policy has none.
mkdir -p "$XDG_CONFIG_HOME/ward"
printf '[run]\nnot_a_key = 1\n[console]\nprefix = Ctrl-b\n' >"$XDG_CONFIG_HOME/ward/ward.ini"
one user "$WT_SCRATCH/plain.ini" C-b '\^B'
# The run's policy over the user's file; WARD_PREFIX over both.
one policy-over-user "$WT_SCRATCH/policy-a.ini" C-a '\^A'
one env "$WT_SCRATCH/policy-a.ini" C-g '\^G' WARD_PREFIX=C-g
rm -f "$XDG_CONFIG_HOME/ward/ward.ini"
# Neither: ^].
one default "$WT_SCRATCH/plain.ini" C-] '\^\]'
finish
