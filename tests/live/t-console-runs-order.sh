#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The every-run console's runs pane, in a real terminal (tmux), issue 31:
# runs listed by start time (not by id), 1-9 in that order; K's question
# and the status lines name their run; X is "deny all" (never a
# dismiss); an ended run counted apart and dropped by C after y to a
# question that counts it; the selected run's events pane and its `/`
# filter drawn. Every effect is checked on the screen and, for answers
# and kills, in the record.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 120' '[files]' 'write = ask'

# Started in this order, named against it: the pane lists them zz, aa, mm.
declare -A ID
for name in zz-first aa-second mm-third; do
	ward_bg "$WT_SCRATCH/out.$name" "$WT_SCRATCH/err.$name" run --headless \
	    --name "$name" --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
	    -- sh -c 'if [ "$1" = zz-first ]; then echo x > "$0/zz" || echo DENIED; fi
i=0; while [ ! -e "$0/end-$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done' \
	    "$WT_CANARY" "$name"
	ID[$name]=$WT_RUN
	sleep 0.05
done
asked() { "$WARD" pending --no-header "${ID[zz-first]}" 2>/dev/null | grep -q .; }
wait_for 10 asked || die "zz-first's write not pending within 10 s"

WT_TMUX_W=120 WT_TMUX_H=40 tmux_start console
expect_screen runs 'runs: 3 running, 0 ended' 15
for row in "1 +zz-first" "2 +aa-second" "3 +mm-third"; do
	assert_grep "row $row" "^[> ] $row " "$WT_SCRATCH/screen.txt"
done

# 2 is aa-second, whatever its id.
tm send-keys -t ward 2
expect_screen pick2 "run 2: ${ID[aa-second]} \\(aa-second\\)" 5

# K names the run; n keeps it.
tm send-keys -t ward K
expect_screen kill-q "kill run aa-second \\(${ID[aa-second]}\\)\\? y/n" 5
tm send-keys -t ward n
expect_screen kill-n 'run aa-second: kill cancelled' 5
"$WARD" ps >"$WT_ARTIFACTS/ps.txt" 2>&1 </dev/null || true
assert_grep "aa-second still runs after n" "${ID[aa-second]}" "$WT_ARTIFACTS/ps.txt"

# X on a run with nothing pending: its "deny all", said for that run.
tm send-keys -t ward X
expect_screen x-none 'run aa-second: nothing pending to deny' 5

# 1: zz-first and its request; d answers it, the line names the run.
tm send-keys -t ward 1
expect_screen pick1 "run 1: ${ID[zz-first]} \\(zz-first\\)" 5
tm send-keys -t ward d
expect_screen denied 'run zz-first: deny #[0-9]+ once: sent' 5
log_json "${ID[zz-first]}" "$WT_ARTIFACTS/log1.json"
denied() { log_json "${ID[zz-first]}" "$WT_ARTIFACTS/log1.json"; [ "$(log_count "$WT_ARTIFACTS/log1.json" '.verdict == "deny" and .how == "person"')" -gt 0 ]; }
wait_for 5 denied || true
assert_log "zz-first's write denied by the person" "$WT_ARTIFACTS/log1.json" \
    ".verdict == \"deny\" and .how == \"person\" and .subject == \"$WT_CANARY/zz\""

# Its events pane, at 120x40 with room for it: the decision shown.
expect_screen events 'recent decisions' 5
assert_grep "the events pane shows the deny" "write $WT_CANARY/zz: deny" "$WT_SCRATCH/screen.txt"
# / opens the filter, drawn; 3 typed there is text, not run 3.
tm send-keys -t ward / d e n y ' ' 3
expect_screen filter 'filter /deny 3_' 5
assert_grep "still run 1 (3 was text)" "run 1: ${ID[zz-first]}" "$WT_SCRATCH/screen.txt"
tm send-keys -t ward BSpace BSpace Enter
expect_screen filtered 'write .*zz: deny' 5

# mm-third ends: counted apart; x on a live one says so; C asks, y drops.
touch "$WT_CANARY/end-mm-third"
expect_screen ended 'runs: 2 running, 1 ended' 10
tm send-keys -t ward x
expect_screen x-live 'run zz-first: x dismisses a run that has ended' 5
tm send-keys -t ward C
expect_screen clear-q 'dismiss 1 ended run\? y/n' 5
tm send-keys -t ward y
expect_screen cleared 'runs: 2 running, 0 ended' 5
if grep -q 'mm-third' "$WT_SCRATCH/screen.txt"; then
	fail "mm-third still listed after C y"
else
	note "ok: C y dropped the ended run"
fi

tm send-keys -t ward q
if wait_for 5 session_gone; then
	note "ok: the console left"
else
	capture not-left
	fail "the console is still there 5 s after q"
	tmux_stop
fi
touch "$WT_CANARY/end-zz-first" "$WT_CANARY/end-aa-second"
for name in zz-first aa-second; do
	"$WARD" kill "${ID[$name]}" >/dev/null 2>&1 || true
done
ward_wait 20
finish
