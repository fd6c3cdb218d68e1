#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The console's diff pane in a real terminal (tmux): a live run whose
# folder holds a staged project change (laid out by hand, as --project
# leaves it); `v` shows the changed file and its hunk, a change made
# while the pane is open shows up within a few seconds, `v` closes it.
# From the pane, p applies the selected file and U discards all: each
# lists the exact files first, y too early is refused, an armed y does
# it and the status line says what came of it; the host is checked. A
# file rewritten after p listed it (with its sha256) is refused by y.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	[ "${CI:-}" = true ] && die "tmux is not installed"
	skip "tmux is not installed"
fi

launch=$WT_SCRATCH/launch.sh
printf '%q run -- sh -c %q\n' "$WARD" 'echo ready; sleep 60' >"$launch"
export TMUX_TMPDIR=$WT_SCRATCH SHELL=/bin/sh
WT_TMUX_SOCKET=warddiff$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
tm -f /dev/null new-session -d -s ward -x 100 -y 30 "bash $(printf '%q' "$launch")"
on_screen() {
	tm capture-pane -p -J -t ward >"$WT_SCRATCH/screen.txt" 2>/dev/null &&
	    grep -Eq -- "$1" "$WT_SCRATCH/screen.txt"
}
expect_screen() {	# expect_screen NAME ERE SECONDS
	if wait_for "$3" on_screen "$2"; then
		note "ok: '$2' on screen"
	else
		show "screen" "$WT_SCRATCH/screen.txt"
		fail "'$2' not on screen within $3 s"
	fi
	cp "$WT_SCRATCH/screen.txt" "$WT_ARTIFACTS/screen-$1.txt"
}
stop() {
	[ -n "${run:-}" ] && "$WARD" kill "$run" >/dev/null 2>&1 || true
	tm kill-server >/dev/null 2>&1 || true
}
trap stop EXIT

expect_screen ready 'ready' 15
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1")
[ -n "$run" ] || die "no run in the record"
R=$(run_dir "$run")
P=$WT_SCRATCH/proj
mkdir -p "$P" "$R/projects/0/upper"
printf 'first line\nold line\n' >"$P/app.txt"
printf '0\t%s\tcopy\n' "$P" >"$R/projects.tsv"
printf 'host = %s\nmode = copy\nstarted_ms = %s\n' "$P" "$(now_ms)" >"$R/projects/0/project.ini"
printf 'first line\nstaged line\n' >"$R/projects/0/upper/app.txt"

tm send-keys -t ward c
expect_screen pane 'changes \(1 file, staged\)' 10
expect_screen file '> modified app.txt' 5
expect_screen hunk '^\+staged line' 5
expect_screen old '^-old line' 5
# The agent goes on writing: the open pane follows.
printf 'new\n' >"$R/projects/0/upper/later.txt"
expect_screen live 'changes \(2 files, staged\)' 10
tm send-keys -t ward ']'
expect_screen next '^\+new' 5
# p: later.txt alone, listed with its host path; y at once is too early.
tm send-keys -t ward p y
expect_screen confirm 'apply to the host: 1 file' 5
expect_screen confirm-path "added +$P/later.txt" 5
expect_screen too-early 'read the list first' 5
[ -e "$P/later.txt" ] && fail "applied before an armed y" ||
    note "ok: nothing applied before an armed y"
sleep 1
tm send-keys -t ward y
expect_screen applied 'applied 1 of 1; conflicts 0, failed 0' 10
assert_file_content "later.txt applied to the host" "new" "$P/later.txt"
assert_file_content "app.txt not applied" "$(printf 'first line\nold line')" "$P/app.txt"
expect_screen one-left 'changes \(1 file, staged\)' 10
# The race (issue 29, item 7): p lists app.txt with the sha256 the pane
# read; the agent rewrites it before y; y applies nothing of it.
tm send-keys -t ward p
expect_screen race-list "modified +$P/app.txt +sha256 $(printf 'first line\nstaged line\n' | sha256sum | cut -c1-12)" 5
printf 'EVIL payload\n' >"$R/projects/0/upper/app.txt"
sleep 1
tm send-keys -t ward y
expect_screen race-refused 'applied 0 of 1; conflicts 0, failed 1' 10
grep -q EVIL "$P/app.txt" && fail "the pane applied the rewritten app.txt" ||
    note "ok: the host's app.txt holds no EVIL"
assert_file_content "app.txt as it was" "$(printf 'first line\nold line')" "$P/app.txt"
# U: all that is left, dropped; n first cancels.
tm send-keys -t ward U
expect_screen discard-list 'discard, the host.s copy stays: 1 file' 5
tm send-keys -t ward n
expect_screen cancelled 'discard cancelled' 5
[ -e "$R/projects/0/upper/app.txt" ] && note "ok: n discards nothing" ||
    fail "n discarded app.txt"
tm send-keys -t ward U
expect_screen discard-again 'discard, the host.s copy stays: 1 file' 5
sleep 1
tm send-keys -t ward y
expect_screen discarded 'discarded 1 of 1' 10
assert_absent "app.txt dropped from the run" "$R/projects/0/upper/app.txt"
assert_file_content "the host's app.txt as it was" "$(printf 'first line\nold line')" "$P/app.txt"
expect_screen nothing 'nothing staged' 10
assert_eq "both recorded" "applied discarded" \
    "$(sql "SELECT action FROM changes WHERE run = '$run' ORDER BY rowid" | tr '\n' ' ' | sed 's/ $//')"
tm send-keys -t ward c
expect_screen closed '== (output|pending)|-- output' 5
"$WARD" kill "$run" >/dev/null 2>&1 || fail "ward kill"
expect_screen killed 'killed' 15
tm send-keys -t ward q
finish
