#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward gc` removes an old run's folder and rows, and only that run's;
# a live run is never taken, whatever its age.
. "$(dirname "$0")/lib.sh"

ward_fg "$WT_ARTIFACTS/out.old" "$WT_ARTIFACTS/err.old" \
    run --headless -- sh -c 'echo old-output; echo x > /work/f; exit 0'
old=$WT_RUN
assert_eq "first run's exit status" 0 "$WT_STATUS"
ward_fg "$WT_ARTIFACTS/out.new" "$WT_ARTIFACTS/err.new" \
    run --headless -- sh -c 'echo new-output; exit 0'
new=$WT_RUN
assert_eq "second run's exit status" 0 "$WT_STATUS"
[ -n "$old" ] && [ -n "$new" ] || die "no run ids"
[ -d "$(run_dir "$old")" ] || die "no folder for run $old"
[ -d "$(run_dir "$new")" ] || die "no folder for run $new"

# A third run stays live (parked on a request) while gc runs.
make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
ward_bg "$WT_ARTIFACTS/out.live" "$WT_ARTIFACTS/err.live" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c 'echo new > "$1/file"' sh "$WT_CANARY"
live=$WT_RUN
wait_pending "$WT_ARTIFACTS/err.live"

# Age the first and the live run by 40 days, as a forgotten record would be.
rows() { sql "SELECT (SELECT count(*) FROM runs WHERE id = '$1') || ' ' ||
    (SELECT count(*) FROM events WHERE run = '$1') || ' ' ||
    (SELECT count(*) FROM output WHERE run = '$1')"; }
sqlite3 "$(audit_db)" "UPDATE runs SET started_ms = started_ms - 40*86400*1000
    WHERE id IN ('$old', '$live')"
old_rows=$(rows "$old")
new_rows=$(rows "$new")
note "rows before (runs events output): old $old_rows, new $new_rows"
[ "${old_rows%% *}" = 1 ] || fail "the old run has no row: $old_rows"
[ "$(echo "$old_rows" | cut -d' ' -f3)" -gt 0 ] || fail "the old run has no output rows"

# --dry-run: says it, removes nothing.
st=0
"$WARD" gc --dry-run >"$WT_ARTIFACTS/dry" 2>&1 </dev/null || st=$?
assert_eq "ward gc --dry-run exit status" 0 "$st"
assert_grep "the dry run names the old run" "^$old	" "$WT_ARTIFACTS/dry"
# Its start in local time with the offset (RFC 3339), never a bare time.
assert_grep "the dry run's start has its offset" "^$old	[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})	" "$WT_ARTIFACTS/dry"
assert_grep "the dry run says what it would free" '^would remove 1 run: 1 folder; from the record 1 run, [0-9]+ events?, [0-9]+ output rows?; would free' "$WT_ARTIFACTS/dry"
[ -d "$(run_dir "$old")" ] && note "ok: the dry run left the folder" ||
    fail "the dry run removed $(run_dir "$old")"
assert_eq "rows after the dry run" "$old_rows" "$(rows "$old")"

st=0
"$WARD" gc >"$WT_ARTIFACTS/gc" 2>&1 </dev/null || st=$?
assert_eq "ward gc exit status" 0 "$st"
show "ward gc" "$WT_ARTIFACTS/gc"
assert_grep "gc names the old run" "^$old	" "$WT_ARTIFACTS/gc"
assert_no_grep "gc leaves the new run" "^$new	" "$WT_ARTIFACTS/gc"
assert_no_grep "gc leaves the live run" "^$live	" "$WT_ARTIFACTS/gc"
assert_grep "gc says what it freed" '^removed 1 run: 1 folder; from the record 1 run, [0-9]+ events?, [0-9]+ output rows?; freed [0-9.]+ (B|KiB|MiB)' "$WT_ARTIFACTS/gc"
[ ! -e "$(run_dir "$old")" ] && note "ok: the old run's folder is gone" ||
    fail "$(run_dir "$old") is still there"
assert_eq "the old run's rows" "0 0 0" "$(rows "$old")"
assert_eq "the new run's rows" "$new_rows" "$(rows "$new")"
[ -d "$(run_dir "$new")" ] && note "ok: the new run's folder stays" ||
    fail "$(run_dir "$new") was removed"
[ -d "$(run_dir "$live")" ] && note "ok: the live run's folder stays" ||
    fail "$(run_dir "$live") of a live run was removed"
assert_eq "the live run's row" 1 "$(sql "SELECT count(*) FROM runs WHERE id = '$live'")"

"$WARD" deny "$live" "$WT_REQ" >/dev/null 2>&1 </dev/null || fail "ward deny"
ward_wait 30
finish
