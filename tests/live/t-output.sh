#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward output RUN` prints what the run's program wrote, from the record:
# escaped by default (no ESC or other control byte reaches the terminal:
# a title-setting OSC, colours, a bell and a bad UTF-8 byte come out as
# \e, \a, \xNN text; "\r\n" ends a line), byte for byte with --raw; RUN
# is an id or a --name, the most recent run without it; an unknown run
# exits 1, two runs 2.
. "$(dirname "$0")/lib.sh"

# The bytes the program writes, kept on the host to compare with.
printf 'plain line\r\n\033]0;pwned title\a\033[31mred\033[0m\ttab\n\377bad byte\nlast, no newline' \
    >"$WT_SCRATCH/expect.raw"
cp "$WT_SCRATCH/expect.raw" "$WT_SCRATCH/prog.raw"

ward_fg "$WT_ARTIFACTS/run.out" "$WT_ARTIFACTS/run.err" run --headless \
    --name out-test --in "$WT_SCRATCH" -- cat "$WT_SCRATCH/prog.raw"
assert_eq "the run: exit status" 0 "$WT_STATUS"
run=$WT_RUN
[ -n "$run" ] || die "no run id"

st=0
"$WARD" output --raw "$run" >"$WT_ARTIFACTS/raw" 2>"$WT_ARTIFACTS/raw.err" || st=$?
assert_eq "ward output --raw: exit status" 0 "$st"
if cmp -s "$WT_SCRATCH/expect.raw" "$WT_ARTIFACTS/raw"; then
	note "ok: --raw gives back the bytes the program wrote"
else
	fail "--raw differs from what the program wrote"
	show "--raw (cat -v)" "$WT_ARTIFACTS/raw"
fi

st=0
"$WARD" output "$run" >"$WT_ARTIFACTS/esc" 2>"$WT_ARTIFACTS/esc.err" || st=$?
assert_eq "ward output: exit status" 0 "$st"
printf '%s\n' 'plain line' '\e]0;pwned title\a\e[31mred\e[0m	tab' '\xffbad byte' \
    'last, no newline' >"$WT_SCRATCH/expect.esc"
if cmp -s "$WT_SCRATCH/expect.esc" "$WT_ARTIFACTS/esc"; then
	note "ok: escaped, a line at a time, \\r\\n as a line end"
else
	fail "the escaped output is not what was expected"
	show "expected" "$WT_SCRATCH/expect.esc"
	show "got" "$WT_ARTIFACTS/esc"
fi
ctl=$(LC_ALL=C tr -d '\n\t\040-\176' <"$WT_ARTIFACTS/esc" | wc -c)
assert_eq "control or non-ASCII bytes in the escaped output" 0 "$ctl"

# By name, and the most recent run.
"$WARD" output --raw out-test >"$WT_ARTIFACTS/byname" 2>&1 || true
cmp -s "$WT_SCRATCH/expect.raw" "$WT_ARTIFACTS/byname" &&
    note "ok: RUN may be the run's --name" || fail "ward output out-test differs"
"$WARD" output --raw >"$WT_ARTIFACTS/last" 2>&1 || true
cmp -s "$WT_SCRATCH/expect.raw" "$WT_ARTIFACTS/last" &&
    note "ok: without RUN, the most recent run" || fail "ward output (last run) differs"

st=0
"$WARD" output nosuchrun >/dev/null 2>"$WT_ARTIFACTS/nosuch.err" || st=$?
assert_eq "an unknown run: exit status" 1 "$st"
assert_grep "an unknown run is named" 'no run "nosuchrun" in the record' "$WT_ARTIFACTS/nosuch.err"
st=0
"$WARD" output a b >/dev/null 2>"$WT_ARTIFACTS/usage.err" || st=$?
assert_eq "two runs: exit status" 2 "$st"
finish
