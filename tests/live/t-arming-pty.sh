#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Burst-proof arming, judged on the keys' arrival (issue 31): the three
# routes that approved before, replayed by a pty writer (pty-keys.py, one
# write(2) a key; not tmux send-keys) into `ward console RUN`, each on a
# headless run that asks for a write outside:
#   gap    `a` repeats 30 ms apart with one 479 ms gap (an ssh hiccup);
#   stall  the console SIGSTOPped 0.6 s while `a` keeps coming 30 ms
#          apart, then SIGCONT;
#   hold   armed first, then a hold of `a` (repeats 30 ms apart).
# The record (`ward events --json`), read by the writer right after the
# route, shows nothing allowed; then one deliberate `a` after a quiet
# moment does allow it (the record says so, and the file is written), so
# the test can fail. The every-run console (`ward console`) replays the
# hold too.
. "$(dirname "$0")/lib.sh"

WRITER=$(dirname "$0")/pty-keys.py
[ -f "$WRITER" ] || die "no $WRITER"
make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 120' '[files]' 'write = ask'

# The keys of each route; the console starts 300 ms before them, so
# gap and stall begin before the request is armed (500 ms on screen)
# and only what they test can approve.
declare -A ROUTE=(
	[gap]='keys a 30 30; sleep 479; keys a 30 30'
	[stall]='keys a 30 30; stall 600 30 a; keys a 30 10'
	[hold]='sleep 1500; keys a 30 60'
)

# route NAME one|every: a run asks; the writer replays the route into
# `ward console RUN` (one) or `ward console` (every), snapshots the
# record, waits, presses `a` once, waits, leaves.
route() {
	local name=$1 which=$2
	local f=$WT_CANARY/$name out=$WT_ARTIFACTS/$name
	ward_bg "$out.run.out" "$out.run.err" run --headless --name "arm-$name" \
	    --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
	    -- sh -c 'echo x > "$0"; sleep 60' "$f"
	local run=$WT_RUN
	wait_pending "$out.run.err"
	local console=(console)
	[ "$which" = every ] || console+=("$run")
	local snap="$WARD events --json --run $run > $out.before.json"
	local st=0
	python3 "$WRITER" --log "$out.tty" --steps "sleep 300;
	    ${ROUTE[${name%-every}]}; sleep 400; exec $snap; mark quiet;
	    sleep 1500; mark deliberate; keys a 0 1; sleep 1000; keys q 0 1" \
	    -- "$WARD" "${console[@]}" >"$out.writer" 2>&1 || st=$?
	cat "$out.writer" | sed 's/^/  writer: /'
	[ "$st" = 0 ] || note "$name: the console's status: $st"
	local allowed
	allowed=$(jq -c 'select(.kind == "write" and .verdict == "allow")' \
	    "$out.before.json" | wc -l)
	assert_eq "$name: writes allowed by the route's keys" 0 "$allowed"
	"$WARD" events --json --run "$run" >"$out.after.json" 2>&1 </dev/null || true
	allowed=$(jq -c 'select(.kind == "write" and .verdict == "allow" and
	    .how == "person")' "$out.after.json" | wc -l)
	assert_eq "$name: the deliberate a allowed the write" 1 "$allowed"
	wait_for 5 test -s "$f" || fail "$name: $f not written after the allow"
	"$WARD" kill "$run" >/dev/null 2>&1 || true
	ward_wait 15
}

command -v jq >/dev/null || die "jq is not installed"
for name in gap stall hold; do
	note "route $name: ward console RUN"
	route "$name" one
done
note "route hold: ward console (every run)"
route hold-every every
finish
