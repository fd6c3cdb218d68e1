#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# [run] output_max: 40 MB of output through a run capped at 1M keeps the
# first and the last half MiB in the record, says how much was dropped
# (ward log, and ward's stderr headless), passes everything through, and
# the supervisor's memory stays flat.
. "$(dirname "$0")/lib.sh"

write_policy "$WT_SCRATCH/policy.ini" '[run]' 'output_max = 1M'
prog='echo HEAD-START; head -c 40000000 /dev/zero | tr "\0" x; echo; echo TAIL-END'
"$WARD" run --headless --policy "$WT_SCRATCH/policy.ini" -- sh -c "$prog" \
    >"$WT_ARTIFACTS/out" 2>"$WT_ARTIFACTS/err" </dev/null &
WT_PID=$! WT_T0=$(now_ms)
WT_BG_PIDS+=("$WT_PID")
hwm=0
while kill -0 "$WT_PID" 2>/dev/null &&
    [ "$(ps -o stat= -p "$WT_PID" 2>/dev/null | cut -c1)" != Z ]; do
	h=$(awk '/^VmHWM/ { print $2 }' "/proc/$WT_PID/status" 2>/dev/null || true)
	[ -z "$h" ] || [ "$h" -le "$hwm" ] || hwm=$h
	sleep 0.05
done
ward_wait 60
WT_RUN=$(run_id_of "$WT_ARTIFACTS/err" || true)
assert_eq "exit status" 0 "$WT_STATUS"
assert_eq "bytes passed through" 40000021 "$(wc -c <"$WT_ARTIFACTS/out")"
kept=$(sql "SELECT sum(length(bytes)) FROM output WHERE run = '$WT_RUN'")
[ "$kept" -le 1048576 ] && [ "$kept" -ge 600000 ] &&
    note "ok: $kept bytes of output in the record" ||
    fail "output in the record: $kept bytes, expected at most 1 MiB and most of it"
assert_eq "the record's output starts with the head" HEAD-START \
    "$(sql "SELECT substr(bytes, 1, 10) FROM output WHERE run = '$WT_RUN' ORDER BY seq LIMIT 1")"
assert_eq "and ends with the tail" "$(printf 'TAIL-END\n')" \
    "$(sql "SELECT substr(CAST(bytes AS TEXT), -9) FROM output WHERE run = '$WT_RUN' ORDER BY seq DESC LIMIT 1")"
"$WARD" log "$WT_RUN" >"$WT_ARTIFACTS/log" 2>&1 </dev/null || true
assert_grep "ward log says output was dropped" \
    "output dropped: $((40000021 - kept)) of 40000021 bytes not recorded" "$WT_ARTIFACTS/log"
assert_grep "ward says so on stderr" "^ward: run $WT_RUN: output dropped" "$WT_ARTIFACTS/err"
if [ "${WARD_SANITIZE:-0}" = 1 ]; then
	# make asan-live: ASan's shadow memory and quarantine are not ward's.
	note "supervisor peak RSS ${hwm} KiB under ASan: not judged (the plain run judges it)"
elif [ "$hwm" -lt 8192 ]; then
	note "ok: supervisor peak RSS ${hwm} KiB"
else
	fail "supervisor peak RSS ${hwm} KiB for 40 MB of output (over 8 MiB)"
fi
finish
