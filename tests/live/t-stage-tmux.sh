#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The console in a real terminal (tmux): a pending write outside shows
# the stage key among its answers; `s` stages it: the program writes its
# staged copy, the host file is unchanged, the diff pane (c) shows the
# staged line by the file's absolute path, and `ward apply --reviewed`
# (plain apply is refused while the run goes on) then writes it.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	[ "${CI:-}" = true ] && die "tmux is not installed"
	skip "tmux is not installed"
fi

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

launch=$WT_SCRATCH/launch.sh
printf '%q run --policy %q --in %q -- sh -c %q %q\n' "$WARD" \
    "$WT_SCRATCH/policy.ini" "$WT_CANARY" \
    'echo ready; if echo staged-line >> "$0/file"; then echo WRO\TE; fi; sleep 60' \
    "$WT_CANARY" >"$launch"
cp "$launch" "$WT_ARTIFACTS/launch.sh"
export TMUX_TMPDIR=$WT_SCRATCH SHELL=/bin/sh
WT_TMUX_SOCKET=wardstage$$
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

expect_screen pending 'canary/file' 15
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1")
[ -n "$run" ] || die "no run in the record"
# The whole request (Enter) names the stage key once armed.
tm send-keys -t ward Enter
expect_screen hint 's stages it' 5
canary_untouched
tm send-keys -t ward s
if ! wait_for 5 on_screen 'WROTE'; then
	note "no write 5 s after 's'; pressing it once more"
	tm send-keys -t ward s
fi
expect_screen wrote 'WROTE' 10
canary_untouched
assert_file_content "the staged copy" "$(printf 'old\nstaged-line')" \
    "$(run_dir "$run")/outside/upper$WT_CANARY/file"

tm send-keys -t ward Escape
tm send-keys -t ward c
expect_screen pane "modified +$WT_CANARY/file" 10
expect_screen hunk '^\+staged-line' 5
tm send-keys -t ward c

# The run goes on: plain apply is refused; the reviewed bytes go in.
st=0
"$WARD" apply "$run" "$WT_CANARY/file" >"$WT_ARTIFACTS/apply0" 2>&1 </dev/null || st=$?
assert_eq "plain ward apply on the live run: refused" 1 "$st"
canary_untouched
"$WARD" diff --json "$run" >"$WT_SCRATCH/reviewed.json" 2>"$WT_ARTIFACTS/diff-json.err" </dev/null ||
    fail "ward diff --json"
st=0
"$WARD" apply "$run" "$WT_CANARY/file" --reviewed "$WT_SCRATCH/reviewed.json" \
    >"$WT_ARTIFACTS/apply" 2>&1 </dev/null || st=$?
assert_eq "ward apply --reviewed exit status" 0 "$st"
assert_file_content "host file after apply" "$(printf 'old\nstaged-line')" "$WT_CANARY/file"
"$WARD" kill "$run" >/dev/null 2>&1 || fail "ward kill"
expect_screen killed 'killed' 15
tm send-keys -t ward q
finish
