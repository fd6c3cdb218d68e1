# SPDX-License-Identifier: MIT
# Helpers for the console's tmux tests (issue 15's safety rules); sourced
# after lib.sh. tmux_start CMD... starts ward's console in a 100x30 tmux
# session "ward" (or $WT_TMUX_W x $WT_TMUX_H) with a UTF-8 locale (or
# $WT_TMUX_LANG); ward's exit status lands in
# $WT_SCRATCH/status (tmux does not keep it).

if ! command -v tmux >/dev/null; then
	[ "${CI:-false}" = true ] && die "tmux is not installed (CI)"
	skip "tmux is not installed"
fi

export TMUX_TMPDIR=$WT_SCRATCH
# tmux runs the command with $SHELL, else the login shell, which for a
# system user such as wardtest is nologin.
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardtest$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
WT_TMUX_STATUS=$WT_SCRATCH/status

tmux_start() {	# tmux_start ARG...: `ward ARG...` in the session
	local launch=$WT_SCRATCH/launch.sh
	{
		# WT_TMUX_LANG=C: a terminal whose locale is not UTF-8
		printf 'export LANG=%s LC_ALL=%s\n' "${WT_TMUX_LANG:-C.UTF-8}" \
		    "${WT_TMUX_LANG:-C.UTF-8}"
		printf '%q' "$WARD"
		printf ' %q' "$@"
		printf '\necho $? > %q\n' "$WT_TMUX_STATUS"
	} >"$launch"
	cp "$launch" "$WT_ARTIFACTS/launch.sh"
	tm -u -f /dev/null new-session -d -s ward -x "${WT_TMUX_W:-100}" \
	    -y "${WT_TMUX_H:-30}" \
	    "bash $(printf '%q' "$launch")"
	tm set-option -t ward remain-on-exit off >/dev/null 2>&1 || true
}

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
session_gone() { ! tm has-session -t ward 2>/dev/null; }
# tmux_stop: ends the tmux server and waits until it is gone (its socket
# removed), so that the next tmux_start cannot reach a dying server
# ("server exited unexpectedly").
tmux_stop() {
	tm kill-server >/dev/null 2>&1 || true
	wait_for 5 test ! -e "$TMUX_TMPDIR/tmux-$(id -u)/$WT_TMUX_SOCKET" ||
	    note "the tmux server's socket is still there after 5 s"
}
# tmux_end_run [RUN]: kills RUN (else the newest run), waits for the
# console's "q to leave", leaves with q, then ends the tmux server. The
# console stays after its run ends, so waiting for the session alone
# waits in vain.
tmux_end_run() {
	local run=${1:-$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1" 2>/dev/null || true)}
	# a run already over: nothing to kill, its console shows the same
	[ -n "$run" ] && "$WARD" kill "$run" >/dev/null 2>&1 || true
	if wait_for 10 on_screen 'q to leave'; then
		tm send-keys -t ward q
		wait_for 5 session_gone || fail "the console is still there 5 s after q"
	else
		capture not-ended
		fail "no 'q to leave' on screen 10 s after ward kill $run"
	fi
	tmux_stop
}
