#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Prompts own the keyboard in the every-run console (issue 31), in a real
# terminal (tmux): three headless runs each ask for a write outside; one
# `ward console` (no RUN) answers the second of them with `r`, the reason
# "ok deny" typed (its k, space and d once moved the selection, paged and
# denied another run's request once), Enter; then the next with `r`,
# "bad k", a pause of a second, "and", Enter (its k once selected another
# run and the a after the pause allowed that run's write). The prompt is
# on screen while it is typed. The record (`ward events --json`) has each
# of the two denied by a person with its whole reason and nothing else
# decided: the third run's request is still asked, no write was allowed.
# At 60x20 the console is compact and the prompt drawn there too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 300' '[files]' 'write = ask'

RUNS=()
stop() {
	local r
	for r in "${RUNS[@]}"; do
		"$WARD" kill "$r" >/dev/null 2>&1 || true
	done
	wt_cleanup
}
trap stop EXIT

npending() { "$WARD" pending --no-header 2>/dev/null | wc -l; }
# One after the other, each asking before the next starts: the queue,
# oldest first, is p1's, p2's, p3's.
for n in 1 2 3; do
	ward_bg "$WT_SCRATCH/out.$n" "$WT_SCRATCH/err.$n" run --headless \
	    --name "p$n" --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
	    -- sh -c 'echo x > "$0/$1" && echo WROTE; sleep 300' \
	    "$WT_CANARY" "p$n-file"
	RUNS+=("$WT_RUN")
	asked() { [ "$(npending)" -ge "$n" ]; }
	wait_for 20 asked || die "run p$n's write not pending within 20 s"
	sleep 0.05
done
note "ok: three runs, a write pending in each"

# The prompt's screens are checked and the keys go on all the same: what
# the keys did is the record's to say.
see() {	# see NAME ERE SECONDS: as expect_screen, a failure only
	if wait_for "$3" on_screen "$2"; then
		note "ok: '$2' on screen"
	else
		fail "'$2' not on screen within $3 s"
	fi
	capture "$1"
}

WT_TMUX_W=120 WT_TMUX_H=40
tmux_start console
expect_screen queue '3 pending in all' 15
# g selects the oldest (p1's: the console opens on the oldest it heard
# of first, and the runs answer it in any order), j the next, p2's.
sleep 0.6
tm send-keys -t ward g
see p1-selected '> \[p1\] #' 5
tm send-keys -t ward j
expect_screen p2-selected '> \[p2\] #' 5

# r, "ok deny", Enter: every key is the reason's.
sleep 0.6
tm send-keys -t ward r
see prompt-open 'run p2: deny #[0-9]+, reason: _' 5
tm send-keys -t ward -l 'ok deny'
see prompt-typed 'run p2: deny #[0-9]+, reason: ok deny_' 5
tm send-keys -t ward Enter
two() { [ "$(npending)" -eq 2 ]; }
wait_for 10 two || fail "after r ok deny Enter: $(npending) pending, want 2"
capture after-ok-deny

# The selection is on the request in p2's place: p3's. r, "bad k",
# a second, "and", Enter.
see p3-selected '> \[p3\] #' 10
sleep 0.6
tm send-keys -t ward r
see prompt2-open 'run p3: deny #[0-9]+, reason: _' 5
tm send-keys -t ward -l 'bad k'
sleep 1
tm send-keys -t ward -l 'and'
see prompt2-typed 'run p3: deny #[0-9]+, reason: bad kand_' 5
tm send-keys -t ward Enter
one() { [ "$(npending)" -eq 1 ]; }
wait_for 10 one || fail "after r bad k, and, Enter: $(npending) pending, want 1"
sleep 0.5
capture after-bad-kand

# The record: p2's denied with "ok deny", p3's with "bad kand", both a
# person's; p1's still asked; nothing allowed.
"$WARD" events --json >"$WT_ARTIFACTS/events.json" 2>"$WT_ARTIFACTS/events.err" </dev/null ||
    fail "ward events --json failed: $(cat "$WT_ARTIFACTS/events.err")"
writes() {	# writes RUN: its write rows, one JSON object a line
	jq -c --arg r "$1" 'select(.run == $r and .kind == "write")' \
	    "$WT_ARTIFACTS/events.json"
}
for i in 0 1 2; do
	writes "${RUNS[$i]}" >"$WT_ARTIFACTS/writes-p$((i + 1)).json"
done
assert_eq "p1: one write in the record" 1 "$(wc -l <"$WT_ARTIFACTS/writes-p1.json")"
assert_eq "p1's write: still asked, not answered" "asked ask" \
    "$(jq -r '"\(.state) \(.verdict)"' "$WT_ARTIFACTS/writes-p1.json")"
assert_eq "p2's write: denied by a person with the whole reason" \
    'done deny person ok deny' \
    "$(jq -r '"\(.state) \(.verdict) \(.how) \(.rule)"' "$WT_ARTIFACTS/writes-p2.json")"
assert_eq "p3's write: denied by a person with the whole reason" \
    'done deny person bad kand' \
    "$(jq -r '"\(.state) \(.verdict) \(.how) \(.rule)"' "$WT_ARTIFACTS/writes-p3.json")"
allowed=$(jq -c 'select(.verdict == "allow" and .kind == "write")' \
    "$WT_ARTIFACTS/events.json" | wc -l)
assert_eq "writes allowed in any run" 0 "$allowed"
for n in 1 2 3; do
	assert_absent "p$n's file" "$WT_CANARY/p$n-file"
done
assert_eq "p1's request still pending" "p1" \
    "$("$WARD" pending --long --no-header 2>/dev/null | cut -f7)"

# At 60x20 the every-run console is compact (it said "terminal too
# small" below 80x24): the one request left, its run named, and `r`'s
# prompt drawn there too (Esc cancels it: nothing sent).
tm resize-window -t ward -x 60 -y 20 >/dev/null 2>&1 ||
    die "tmux could not resize the window to 60x20"
see compact 'pending: 1 in all, line 1 of 1: \[p1\] #' 5
assert_no_grep "no too-small notice at 60x20" 'too small' "$WT_SCRATCH/screen.txt"
sleep 0.6
tm send-keys -t ward r
see compact-prompt 'run p1: deny #[0-9]+, reason: _' 5
tm send-keys -t ward Escape
see compact-cancelled 'cancelled: nothing sent' 5
assert_eq "p1's request still pending after Esc" 1 "$(npending)"

# Leaving asks (p1's waits): y leaves.
tm send-keys -t ward q
expect_screen leave 'leave\? ' 5
tm send-keys -t ward y
wait_for 10 session_gone || fail "the console is still there 10 s after q y"
tm kill-server >/dev/null 2>&1 || true
finish
