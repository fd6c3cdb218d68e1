#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The loop's quiet rounds (issue 18): while a program does nothing but
# writes that the hot path continues, the supervisor polls the same table
# again without its per-round work. Nothing else may wait on that: the
# run's wall-clock limit still ends it, another process's output still
# reaches the host, and another process's write outside is still judged
# and recorded, all while the streak goes on.
. "$(dirname "$0")/lib.sh"

make_canary
# The streak's own marker, so that nothing else on the machine (a CI
# harness's loop, another test) can look like a survivor.
marker="ward-streak-$$-$RANDOM"
no_leftovers "$marker"
write_policy "$WT_SCRATCH/policy.ini" '[files]' 'write = deny'
# A streak of write-opens in /work that never ends by itself; beside it,
# after half a second, a line of output and a write into the host folder.
prog='
python3 -c "
# '"$marker"'
import os
while True:
    os.close(os.open(\"streak\", os.O_WRONLY | os.O_CREAT, 0o644))
" &
sleep 0.5
echo "BESIDE THE STREAK"
echo x > "$1/outside" 2>/dev/null && echo "OUTSIDE WROTE" || echo "OUTSIDE REFUSED"
wait'
# Seen from outside while it runs: the survivor check below is not vacuous.
(sleep 1.5; pids_matching "$marker" >"$WT_SCRATCH/seen") &
watcher=$!
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --timeout 3 --policy "$WT_SCRATCH/policy.ini" \
    --in "$WT_CANARY" -- sh -c "$prog" sh "$WT_CANARY"
[ -n "$WT_RUN" ] || die "no run id"
assert_eq "exit status: the limit ended the streak" 124 "$WT_STATUS"
if [ "$WT_ELAPSED_MS" -ge 2500 ] && [ "$WT_ELAPSED_MS" -le 8000 ]; then
	note "ok: ended after ${WT_ELAPSED_MS} ms"
else
	fail "ended after ${WT_ELAPSED_MS} ms, expected about 3 s (at most 8 s)"
fi
assert_grep "output beside the streak reaches the host" \
    '^BESIDE THE STREAK$' "$WT_ARTIFACTS/out"
assert_grep "the write outside is refused" '^OUTSIDE REFUSED$' "$WT_ARTIFACTS/out"
assert_absent "nothing written outside" "$WT_CANARY/outside"
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "the write outside, judged and recorded during the streak" \
    "$WT_ARTIFACTS/log.json" \
    ".verdict == \"deny\" and .subject == \"$WT_CANARY/outside\""
assert_log "the run ended by its limit" "$WT_ARTIFACTS/log.json" \
    '.kind == "run" and .subject == "timeout" and .verdict == "kill"'
wait "$watcher"
[ -s "$WT_SCRATCH/seen" ] && note "ok: the streak seen from outside while it ran" ||
    fail "no process matched /$marker/ while the run went on"
wait_for 3 no_process_matching "$marker" ||
    { fail "the streak survives the run: $(ps -o pid=,ppid=,stat=,wchan:24=,args= -p "$(pids_matching "$marker" | paste -sd,)" | cut -c1-120)"
      kill_matching "$marker"; }
canary_untouched
finish
