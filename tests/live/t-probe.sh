#!/usr/bin/env bash
# `ward probe`: the whole battery of hostile actions against the default
# policy. Nothing escapes, everything is in the record (exit 0), one line
# per probe, and the card ends in "N blocked and logged, 0 escaped".
# ward probe judges each probe from outside itself; here we check its
# verdict and that it cleans up after itself (the planted secret above all).
. "$(dirname "$0")/lib.sh"

card=$WT_ARTIFACTS/card
ward_fg "$card" "$WT_ARTIFACTS/err" probe
show "ward probe" "$card"
[ -s "$WT_ARTIFACTS/err" ] && show "ward probe stderr" "$WT_ARTIFACTS/err"

assert_eq "exit status (0: nothing escaped, nothing unrecorded)" 0 "$WT_STATUS"
if [ "$WT_ELAPSED_MS" -le 60000 ]; then
	note "ok: the battery took ${WT_ELAPSED_MS} ms"
else
	fail "the battery took ${WT_ELAPSED_MS} ms, over 60 s"
fi

last=$(tail -n 1 "$card" | tr -d '\r')
if [[ $last =~ ^([0-9]+)\ blocked\ and\ logged,\ ([0-9]+)\ escaped$ ]]; then
	note "ok: final line: $last"
	blocked=${BASH_REMATCH[1]}
	assert_eq "escaped" 0 "${BASH_REMATCH[2]}"
	[ "$blocked" -ge 25 ] && note "ok: $blocked probes blocked and logged" ||
	    fail "only $blocked probes blocked and logged (the battery has 25)"
	assert_eq "probe lines (blocked or allowed)" "$blocked" \
	    "$(grep -cE '^(blocked|allowed) ' "$card" || true)"
else
	fail "final line not 'N blocked and logged, M escaped': $last"
fi
assert_no_grep "no probe escaped, went unrecorded or failed" \
    '^(ESCAPED|UNRECORDED|ERROR) ' "$card"
assert_grep "memfd exec allowed and recorded" \
    '^allowed +memfd-exec .*exec from memory|^allowed +memfd-exec .*execveat allow' "$card"
assert_grep "fork bomb stopped at the pid limit" '^blocked +fork-bomb .*pids=64' "$card"
assert_grep "wall clock ends the run with 124" '^blocked +wall-clock .*: 124 after' "$card"

# Nothing left behind: the secret planted in the home, the temp folder.
left=$(find "$HOME" -maxdepth 1 -name '.ward-probe-secret-*' 2>/dev/null | head -n 3)
[ -z "$left" ] && note "ok: no secret left in \$HOME" ||
    fail "ward probe left its secret behind: $left"
tmp=$(sed -nE 's|.*--in (/[^,]*)/canary,.*|\1|p' "$card" | head -n 1)
if [ -n "$tmp" ]; then
	assert_absent "the temp folder is removed" "$tmp"
else
	fail "no temp folder named on the first line of the card"
fi
finish
