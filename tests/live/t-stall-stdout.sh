#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A reader of ward's stdout that stops reading never stops the loop: the
# program blocks in its write, while the wall-clock limit, `ward pending`
# and the rest go on. Before: the supervisor blocked in write(1), and a
# --timeout 3 run ended only when the reader went away (12 s).
. "$(dirname "$0")/lib.sh"

fifo=$WT_SCRATCH/fifo
mkfifo "$fifo"
# holds the read end open and never reads
sleep 12 <"$fifo" &
WT_BG_PIDS+=($!)
ward_bg "$fifo" "$WT_ARTIFACTS/err" run --headless --timeout 3 -- sh -c yes
sleep 1
t0=$(now_ms)
st=0
timeout 10 "$WARD" pending "$WT_RUN" >"$WT_ARTIFACTS/pending" \
    2>"$WT_ARTIFACTS/pending.err" </dev/null || st=$?
took=$(($(now_ms) - t0))
assert_eq "ward pending while the reader stalls: exit status" 0 "$st"
[ "$took" -lt 3000 ] && note "ok: ward pending answered in $took ms" ||
    fail "ward pending took $took ms while the reader stalled"
ward_wait 20
assert_eq "exit status (the wall-clock limit)" 124 "$WT_STATUS"
[ "$WT_ELAPSED_MS" -lt 5000 ] && note "ok: ended ${WT_ELAPSED_MS} ms after start" ||
    fail "the --timeout 3 run took ${WT_ELAPSED_MS} ms: the loop waited on its reader"
assert_grep "the limit is said" 'hit its wall-clock limit' "$WT_ARTIFACTS/err"
finish
