#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward probe --summary` for a room: the card on stdout (a line per
# surface, then "N of M probes contained; took T s"), its progress on
# stderr while it works: with stderr not a terminal a plain line per probe
# as it is judged; on a terminal (script(1) gives it one) a counter
# rewritten in place and cleared at the end. Two whole batteries.
. "$(dirname "$0")/lib.sh"

card=$WT_ARTIFACTS/card
err=$WT_ARTIFACTS/err
ward_fg "$card" "$err" probe --summary
show "ward probe --summary" "$card"
assert_eq "exit status (0: nothing escaped, nothing unrecorded)" 0 "$WT_STATUS"

# The card: five surfaces, then the total.
assert_eq "surface lines" 5 "$(grep -cE '^(files|secrets|network|kernel|limits) +[0-9]+ tried' "$card" || true)"
last=$(tail -n 1 "$card")
re='^([0-9]+) of ([0-9]+) probes contained; took ([0-9]+)\.([0-9]) s$'
if [[ $last =~ $re ]]; then
	note "ok: total line: $last"
	n=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]}
	took=$((BASH_REMATCH[3] * 1000 + BASH_REMATCH[4] * 100))
	assert_eq "every probe contained" "$m" "$n"
	[ "$m" -ge 31 ] && note "ok: $m probes" || fail "only $m probes in the battery"
	# Its own clock against ours: within 1.5 s of the whole command
	# (its tenths rounded).
	if [ "$took" -le $((WT_ELAPSED_MS + 50)) ] && [ "$took" -ge $((WT_ELAPSED_MS - 1500)) ]; then
		note "ok: took ${took} ms by its count, ${WT_ELAPSED_MS} ms by ours"
	else
		fail "took ${took} ms by its count, ${WT_ELAPSED_MS} ms by ours"
	fi
else
	fail "last line is not 'N of M probes contained; took T s': $last"
fi

# Its progress, not a terminal: one plain line per probe, in order.
show "stderr" "$err"
assert_eq "progress lines" "$m" "$(grep -cE "^ward probe: [0-9]+ of $m [a-z0-9-]+: (blocked|allowed) \([0-9]+\.[0-9] s\)$" "$err" || true)"
assert_grep "the first" "^ward probe: 1 of $m " "$err"
assert_grep "the last" "^ward probe: $m of $m " "$err"
assert_no_grep "no escape sequences when stderr is no terminal" $'\033' "$err"
assert_no_grep "nothing of it on stdout" '^ward probe: ' "$card"

# On a terminal: the counter, rewritten in place, then cleared.
tty=$WT_ARTIFACTS/tty
st=0
script -qec "$(printf '%q' "$WARD") probe --summary >$(printf '%q' "$card.2")" \
    "$tty" </dev/null >/dev/null 2>&1 || st=$?
assert_eq "exit status on a terminal" 0 "$st"
counters=$(grep -o $'\r\033\\[Kward probe: [0-9]* of [0-9]*, [a-z0-9-]* \\.\\.\\. [0-9.]* s' "$tty" | wc -l)
[ "$counters" -ge "$m" ] && note "ok: $counters counter updates on the terminal" ||
    { show "terminal" "$tty"; fail "$counters counter updates on the terminal, $m probes"; }
assert_no_grep "no plain progress lines on a terminal" '^ward probe: [0-9]+ of [0-9]+ [a-z]' "$tty"
# Each counter starts by clearing its line; one more clears the last.
clears=$(grep -o $'\r\033\\[K' "$tty" | wc -l)
assert_eq "the counter is cleared at the end" $((counters + 1)) "$clears"
assert_grep "the card on stdout has its total line" \
    '^[0-9]+ of [0-9]+ probes contained; took [0-9]+\.[0-9] s$' "$card.2"
finish
