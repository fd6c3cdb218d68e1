#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Crash recovery: a run whose supervisor was SIGKILLed is marked lost by
# the next ward that opens the record (ward log, ward ps, the next run's
# supervisor, ward gc), with when it was noticed; its stale socket is removed; ward
# ps does not list it; no process of its sandbox survives.
. "$(dirname "$0")/lib.sh"

marker='^sleep 301[1-8]$'
no_leftovers "$marker"
sock_dir=$XDG_RUNTIME_DIR/ward

# crash N A B: starts a run of `sleep A & sleep B`, SIGKILLs its
# supervisor, waits for the sandbox to go; sets WT_RUN, KILLED_MS.
crash() {
	local n=$1 a=$2 b=$3 sup
	ward_bg "$WT_ARTIFACTS/out.$n" "$WT_ARTIFACTS/err.$n" \
	    run --headless -- sh -c "sleep $a & sleep $b & wait"
	two() { [ "$(pids_matching "^sleep ($a|$b)\$" | wc -l)" -ge 2 ]; }
	wait_for 10 two || die "run $n: the two sleeps never showed up"
	# a headless ward supervises its run itself (t-sigkill-supervisor.sh)
	headless_supervisor "$WT_PID"
	sup=$WT_PID
	[ -S "$sock_dir/$WT_RUN.sock" ] || die "run $n: no socket $sock_dir/$WT_RUN.sock while it runs"
	KILLED_MS=$(now_ms)
	note "run $n ($WT_RUN): SIGKILL to the supervisor, ward pid $sup"
	kill -KILL "$sup"
	if wait_for 5 no_process_matching "^sleep ($a|$b)\$"; then
		note "ok: no process of run $n survives its supervisor"
	else
		fail "run $n: survivors 5 s after SIGKILL: $(pids_matching "^sleep ($a|$b)\$" | tr '\n' ' ')"
		kill_matching "^sleep ($a|$b)\$"
	fi
	ward_wait 10
	assert_ne "run $n: ward's exit status" 0 "$WT_STATUS"
	assert_eq "run $n: not ended in the record before anyone looks" "" \
	    "$(sql "SELECT ifnull(end_reason, '') FROM runs WHERE id = '$WT_RUN'")"
	[ -S "$sock_dir/$WT_RUN.sock" ] && note "ok: run $n's stale socket is there" ||
	    note "run $n's socket is already gone"
}

# lost_in_record N RUN BY: the runs row and the event say lost, noticed
# after the kill, by BY.
lost_in_record() {
	local n=$1 run=$2 by=$3 ended
	assert_eq "run $n: end_reason" lost \
	    "$(sql "SELECT ifnull(end_reason, '') FROM runs WHERE id = '$run'")"
	ended=$(sql "SELECT ifnull(ended_ms, 0) FROM runs WHERE id = '$run'")
	if [ "$ended" -ge "$KILLED_MS" ]; then
		note "ok: run $n: ended_ms ($ended) is when it was noticed, after the kill ($KILLED_MS)"
	else
		fail "run $n: ended_ms $ended is not after the kill ($KILLED_MS)"
	fi
	assert_eq "run $n: one lost event, by $by" "1 $by" \
	    "$(sql "SELECT count(*) || ' ' || max(decided_by) FROM events WHERE run = '$run' AND kind = 'run' AND subject = 'lost'")"
	assert_absent "run $n: its stale socket" "$sock_dir/$run.sock"
}

# 1. ward log notices and says so.
crash 1 3011 3012
run1=$WT_RUN
st=0
"$WARD" log "$run1" >"$WT_ARTIFACTS/log1" 2>"$WT_ARTIFACTS/log1.err" </dev/null || st=$?
assert_eq "ward log exit status" 0 "$st"
assert_grep "ward log says the run is lost" \
    "^[0-9T:+Z-]+	$run1	run	none	supervisor	lost \\(supervisor gone, noticed [0-9T:+Z-]+\\)	" \
    "$WT_ARTIFACTS/log1"
assert_grep "the record still holds the run's start" "	$run1	run	none	supervisor	start	" \
    "$WT_ARTIFACTS/log1"
lost_in_record 1 "$run1" "ward log"
log_json "$run1" "$WT_ARTIFACTS/log1.json"
assert_log "a run lost event in --json" "$WT_ARTIFACTS/log1.json" \
    '.kind == "run" and .subject == "lost" and .how == "supervisor"'
"$WARD" ps >"$WT_ARTIFACTS/ps1" 2>"$WT_ARTIFACTS/ps1.err" </dev/null || fail "ward ps failed"
assert_no_grep "ward ps does not list the lost run" "^$run1	" "$WT_ARTIFACTS/ps1"
assert_no_grep "and says nothing more of it (noticed once)" "$run1" "$WT_ARTIFACTS/ps1.err"

# 2. ward ps notices: not listed, one line on stderr.
crash 2 3013 3014
run2=$WT_RUN
st=0
"$WARD" ps >"$WT_ARTIFACTS/ps2" 2>"$WT_ARTIFACTS/ps2.err" </dev/null || st=$?
assert_eq "ward ps exit status" 0 "$st"
assert_no_grep "ward ps does not list the lost run" "$run2" "$WT_ARTIFACTS/ps2"
assert_grep "ward ps says the run was found lost" \
    "^ward: run $run2: lost \\(supervisor gone, noticed [0-9T:+Z-]+\\)" "$WT_ARTIFACTS/ps2.err"
lost_in_record 2 "$run2" "ward ps"

# 3. the next run's supervisor notices.
crash 3 3015 3016
run3=$WT_RUN
ward_fg "$WT_ARTIFACTS/out4" "$WT_ARTIFACTS/err4" run --headless -- true
assert_eq "the next run's exit status" 0 "$WT_STATUS"
lost_in_record 3 "$run3" "ward-supervisor"
assert_eq "the next run itself ended normally" exit \
    "$(sql "SELECT ifnull(end_reason, '') FROM runs WHERE id = '$WT_RUN'")"
assert_eq "and its supervisor is known" 1 \
    "$(sql "SELECT count(*) FROM runs WHERE id = '$WT_RUN' AND sup_pid > 0 AND sup_start > 0")"
# 4. ward gc notices (and keeps the run: it is younger than --older-than).
crash 4 3017 3018
run4=$WT_RUN
st=0
"$WARD" gc --older-than 30d >"$WT_ARTIFACTS/gc" 2>&1 </dev/null || st=$?
assert_eq "ward gc exit status" 0 "$st"
lost_in_record 4 "$run4" "ward gc"

assert_eq "every run in the record has an end" 0 \
    "$(sql "SELECT count(*) FROM runs WHERE ended_ms IS NULL")"
assert_eq "integrity_check" ok "$(sql "PRAGMA integrity_check")"
no_process_matching "$marker" || fail "processes of the crashed runs survive: $(pids_matching "$marker" | tr '\n' ' ')"
finish
