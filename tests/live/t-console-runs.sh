#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every run in one console (issue 15), in a real terminal (tmux): five
# headless runs ask two writes each; before any console is attached
# `ward ps` flags them UNWATCHED and `ward pending` lists the ten oldest
# first across runs with a header; one `ward console` (no RUN) shows the
# runs pane and one queue; the ten requests are cleared in under 15 keys
# (counted here: every key this test sends), each answer reaching the
# right run; the record shows each decision as a person's in the console.
. "$(dirname "$0")/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"

mkdir -p "$WT_SCRATCH/canary"
WT_CANARY=$WT_SCRATCH/canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 120' '[files]' 'write = ask'

RUNS=()
for n in 1 2 3 4 5; do
	# Two writes at once: both wait together.
	ward_bg "$WT_SCRATCH/out.$n" "$WT_SCRATCH/err.$n" run --headless \
	    --name "job$n" --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
	    -- sh -c 'echo a > "$0/$1-a" & echo b > "$0/$1-b"; wait; sleep 30' \
	    "$WT_CANARY" "job$n"
	RUNS+=("$WT_RUN")
done

npending() { "$WARD" pending --no-header 2>/dev/null | wc -l; }
all_asked() { [ "$(npending)" -eq 10 ]; }
wait_for 20 all_asked || { "$WARD" pending >&2 || true; die "not ten requests pending within 20 s"; }
note "ok: ten requests pending in five runs"

# ward pending: a header, oldest first across runs, names, process, why;
# piped without --long it keeps its six fields.
six=$("$WARD" pending 2>/dev/null | awk -F'\t' '{ print NF }' | sort -u)
assert_eq "ward pending piped: six fields, no header" 6 "$six"
"$WARD" pending --long --header >"$WT_ARTIFACTS/pending.txt" 2>&1 </dev/null
assert_eq "ward pending header" "RUN	ID	KIND	SUBJECT	PID	AGE	NAME	PROCESS	WHY" \
    "$(head -n 1 "$WT_ARTIFACTS/pending.txt")"
names=$(tail -n +2 "$WT_ARTIFACTS/pending.txt" | cut -f7 | sort -u | tr '\n' ' ')
assert_eq "ward pending names every run" "job1 job2 job3 job4 job5 " "$names"
procs=$(tail -n +2 "$WT_ARTIFACTS/pending.txt" | cut -f8 | grep -c 'sh' || true)
assert_eq "ward pending shows the process of each" 10 "$procs"
"$WARD" pending --json >"$WT_ARTIFACTS/pending.json" 2>&1 </dev/null
if jq -e '[.[].age_ms] as $a | ($a == ($a | sort | reverse)) and length == 10' \
    "$WT_ARTIFACTS/pending.json" >/dev/null; then
	note "ok: ward pending --json is oldest first across runs"
else
	fail "ward pending --json is not oldest first"
fi

# Nobody watches yet: ward ps says so.
"$WARD" ps >"$WT_ARTIFACTS/ps-before.txt" 2>&1 </dev/null
unw=$(awk -F'\t' '$7 == "0 UNWATCHED"' "$WT_ARTIFACTS/ps-before.txt" | wc -l)
assert_eq "ward ps flags the five runs as unwatched" 5 "$unw"

export TMUX_TMPDIR=$WT_SCRATCH
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardtest$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
tm -f /dev/null new-session -d -s ward -x 120 -y 40 \
    "$(printf '%q' "$WARD") console; sleep 5"

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
expect_screen() {
	if wait_for "$3" on_screen "$2"; then
		note "ok: '$2' on screen"
		capture "$1"
	else
		capture "$1"
		show "screen" "$WT_SCRATCH/screen.txt"
		die "'$2' not on screen within $3 s"
	fi
}

expect_screen runs 'runs: 5 ' 15
expect_screen queue '10 pending in all' 15
for n in 1 2 3 4 5; do
	assert_grep "the runs pane lists job$n" "job$n" "$WT_SCRATCH/screen.txt"
done

# Watched now: ward ps no longer flags them.
watched() { ! "$WARD" ps 2>/dev/null | grep -q UNWATCHED; }
if wait_for 5 watched; then
	note "ok: ward ps: watched once the console is attached"
else
	fail "ward ps still flags a run as unwatched with a console attached"
fi

# Ten answers: a for the first five, d for the rest; each key waits for
# the selected request to be armed (shown 0.5 s) and its answer to land.
keys=0
want=10
for i in $(seq 1 10); do
	before=$(npending)
	sleep 0.8
	if [ "$i" -le 5 ]; then k=a; else k=d; fi
	tm send-keys -t ward "$k"
	keys=$((keys + 1))
	down() { [ "$(npending)" -lt "$before" ]; }
	if ! wait_for 5 down; then
		capture "stuck-$i"
		note "request not answered after key $keys ($k); once more"
		sleep 0.8
		tm send-keys -t ward "$k"
		keys=$((keys + 1))
		wait_for 5 down || true
	fi
	[ "$keys" -ge 15 ] && break
done
capture cleared
left=$(npending)
assert_eq "requests left after $keys keys" 0 "$left"
if [ "$keys" -lt 15 ]; then
	note "ok: ten requests cleared in $keys keystrokes"
else
	fail "ten requests took $keys keystrokes (want under 15)"
fi
expect_screen none 'none pending' 10

# The allowed writes happened, the denied did not: five files in all.
made=$(find "$WT_CANARY" -type f | wc -l)
assert_eq "files written (five allowed)" 5 "$made"

# The record: every run has its two decisions, a person's in the console.
allows=0 denies=0
for r in "${RUNS[@]}"; do
	log_json "$r" "$WT_ARTIFACTS/log-$r.json"
	na=$(log_count "$WT_ARTIFACTS/log-$r.json" '.verdict == "allow" and .how == "person" and .kind == "write"')
	nd=$(log_count "$WT_ARTIFACTS/log-$r.json" '.verdict == "deny" and .how == "person" and .kind == "write"')
	assert_eq "run $r: decisions by a person" 2 "$((na + nd))"
	via=$(jq -r 'select(.how == "person") | .decided_by' "$WT_ARTIFACTS/log-$r.json" | grep -c 'via console' || true)
	assert_eq "run $r: both answered in the console" 2 "$via"
	allows=$((allows + na))
	denies=$((denies + nd))
done
assert_eq "allowed in all" 5 "$allows"
assert_eq "denied in all" 5 "$denies"

tm send-keys -t ward q
session_gone() { ! tm has-session -t ward 2>/dev/null; }
wait_for 10 session_gone || true
for r in "${RUNS[@]}"; do
	"$WARD" kill "$r" >/dev/null 2>&1 || true
done
finish
