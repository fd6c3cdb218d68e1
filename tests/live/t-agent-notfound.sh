#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The agent pane (tmux) of a program that cannot start says why, never a
# blank screen, and ward exits 127: a name nothing finds; one the host
# finds in a folder the sandbox does not show (the sentence names the
# --in); and with that --in, the program found as on the host runs.
. "$(dirname "$0")/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"

prefix=$WT_SCRATCH/npm-global
mkdir -p "$prefix/bin"
printf '#!/bin/sh\necho "wt-agent is running"\nsleep 1\n' >"$prefix/bin/wt-agent"
chmod 0755 "$prefix/bin/wt-agent"
chmod a+rx "$WT_SCRATCH" "$prefix" "$prefix/bin"

export TMUX_TMPDIR=$WT_SCRATCH
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardnf$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
on_screen() {
	tm capture-pane -p -J -t "$1" >"$WT_SCRATCH/screen.txt" 2>/dev/null &&
	    tr -d '\n│' <"$WT_SCRATCH/screen.txt" | grep -Eq -- "$2"
}

# pane NAME STATUS-FILE ERE ARG...: `ward run --agent ARG...` in a tmux
# session NAME; waits for ERE on its screen (lines joined), then q.
pane() {
	local name=$1 status=$2 ere=$3
	shift 3
	local launch=$WT_SCRATCH/$name.sh
	{
		printf 'export PATH=%q\n' "$prefix/bin:$PATH"
		printf 'TERM=xterm-256color %q run --agent' "$WARD"
		printf ' %q' "$@"
		printf '\necho $? > %q\n' "$status"
	} >"$launch"
	tm -f /dev/null new-session -d -s "$name" -x 100 -y 30 "bash $launch" 2>/dev/null ||
	    tm new-session -d -s "$name" -x 100 -y 30 "bash $launch"
	tm set-option -g status off >/dev/null 2>&1 || true
	if wait_for 30 on_screen "$name" "$ere"; then
		note "ok: $name: the pane says /$ere/"
	else
		show "screen" "$WT_SCRATCH/screen.txt"
		fail "$name: /$ere/ not on screen within 30 s"
	fi
	cp "$WT_SCRATCH/screen.txt" "$WT_ARTIFACTS/screen-$name.txt"
	wait_for 30 on_screen "$name" 'exited|q to leave' || true
	tm send-keys -t "$name" q
	wait_for 20 test -s "$status" || fail "$name: ward did not end after q"
}

pane nothing "$WT_SCRATCH/st1" \
    'cannot run wt-no-such-agent: No such file or directory' -- wt-no-such-agent
assert_eq "a name nothing finds: exit status" 127 "$(cat "$WT_SCRATCH/st1" 2>/dev/null)"

pane hidden "$WT_SCRATCH/st2" \
    "cannot run wt-agent: No such file or directory .*add --in $prefix/bin" -- wt-agent
assert_eq "a folder not shown: exit status" 127 "$(cat "$WT_SCRATCH/st2" 2>/dev/null)"

pane shown "$WT_SCRATCH/st3" 'wt-agent is running' --in "$prefix" -- wt-agent
assert_eq "shown with --in: exit status" 0 "$(cat "$WT_SCRATCH/st3" 2>/dev/null)"
finish
