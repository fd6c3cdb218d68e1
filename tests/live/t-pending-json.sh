#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward pending --json` escapes what the program controls as the lines do
# (issue 15): a write to a name with a bidi override (U+202E) and a zero
# width space (U+200B) is listed with them shown as \u{202e} and \u{200b},
# never as the characters themselves, and a header is printed only when
# asked for (a pipe keeps the six fields).
. "$(dirname "$0")/lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
name=$(printf 'invoice_\xe2\x80\xaetxt.exe\xe2\x80\x8b')
ward_bg "$WT_SCRATCH/out" "$WT_SCRATCH/err" run --headless --name bidi \
    --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c 'echo x > "$0/$1"' "$WT_CANARY" "$name"
wait_pending "$WT_SCRATCH/err"

"$WARD" pending --json >"$WT_ARTIFACTS/pending.json" 2>&1 </dev/null
if grep -q $'\xe2\x80\xae\|\xe2\x80\x8b' "$WT_ARTIFACTS/pending.json"; then
	fail "ward pending --json carries the raw bidi or invisible character"
else
	note "ok: no raw bidi or invisible character in ward pending --json"
fi
subj=$(jq -r '.[0].subject' "$WT_ARTIFACTS/pending.json")
assert_eq "the subject, escaped" "$WT_CANARY/invoice_\\u{202e}txt.exe\\u{200b}" "$subj"
assert_eq "the run's name" bidi "$(jq -r '.[0].name' "$WT_ARTIFACTS/pending.json")"
assert_eq "the why" "no rule matches; [files] write = ask" \
    "$(jq -r '.[0].why' "$WT_ARTIFACTS/pending.json")"

"$WARD" pending --header --long >"$WT_ARTIFACTS/pending.txt" 2>&1 </dev/null
assert_eq "the header line" "RUN	ID	KIND	SUBJECT	PID	AGE	NAME	PROCESS	WHY" \
    "$(head -n 1 "$WT_ARTIFACTS/pending.txt")"
assert_grep "the line's subject escaped" 'invoice_\\u\{202e\}txt' "$WT_ARTIFACTS/pending.txt"
lines=$("$WARD" pending 2>/dev/null | wc -l)
assert_eq "piped: one line, no header" 1 "$lines"

"$WARD" deny "$WT_RUN" "$WT_REQ" >/dev/null 2>&1 || fail "ward deny failed"
ward_wait 15
finish
