# SPDX-License-Identifier: MIT
# Crash consistency, the way sqlite tests it: SIGKILL ward-supervisor at a
# random moment of a run, then look at what is left from outside. Sourced
# by tests/live/t-crash-*.sh after lib.sh.
#
# The program logs every answer it got (one "ok N" or "no N" line per
# call, one write(2) each) to its stdout, which the test captures: an
# answer the program saw is in that file.

WT_MARK=wt-crash-$$

# crash_start POLICY DIR PROG: starts the run in the background with the
# host folder DIR seen inside (--in; $1 of the program, which is `sh -c
# PROG $WT_MARK DIR`, so that its processes carry the marker); WT_PID is
# the supervisor.
crash_start() {
	local policy=$1 dir=$2 prog=$3
	: >"$WT_ARTIFACTS/out"
	ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
	    run --headless --policy "$policy" --in "$dir" \
	    -- sh -c "$prog" "$WT_MARK" "$dir"
	headless_supervisor "$WT_PID"
}

# crash_kill: SIGKILL to the supervisor; no process of the run survives it.
crash_kill() {
	kill -KILL "$WT_PID" 2>/dev/null || true
	ward_wait 10
	if wait_for 5 no_process_matching "$WT_MARK"; then
		note "ok: nothing of run $WT_RUN survives the supervisor"
	else
		ps -eo pid,ppid,stat,cmd >"$WT_ARTIFACTS/ps" || true
		fail "survivors of run $WT_RUN: $(pids_matching "$WT_MARK" | tr '\n' ' ')"
		kill_matching "$WT_MARK"
	fi
}

# A random pause of 100..1300 ms.
crash_pause() {
	sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "0.%03d", 100 + r % 900 }')"
	[ $((RANDOM % 4)) -ne 0 ] || sleep 0.4
}

crash_integrity() {
	assert_eq "integrity_check after the kill" ok "$(sql 'PRAGMA integrity_check')"
}

# crash_answers WORD: the numbers N of the program's "WORD N" lines.
crash_answers() {
	tr -d '\r' <"$WT_ARTIFACTS/out" | sed -nE "s/^$1 ([0-9]+)\$/\\1/p" | sort -u
}

# crash_recorded DIR [VERDICT]: the numbers N of the run's write events
# on DIR/fN (with that verdict, when given), as the record has them.
crash_recorded() {
	local where=""
	[ -z "${2:-}" ] || where=" AND verdict = '$2'"
	sql "SELECT subject FROM events WHERE run = '$WT_RUN' AND kind = 'write'$where" |
	    sed -nE "s|^$1/f([0-9]+)\$|\\1|p" | sort -u
}

# crash_missing WHAT LIST-A LIST-B: fails naming what of A is not in B.
crash_missing() {
	local what=$1 missing
	missing=$(comm -23 <(printf '%s\n' "$2" | sed '/^$/d') <(printf '%s\n' "$3" | sed '/^$/d') | wc -l)
	if [ "$missing" -eq 0 ]; then
		note "ok: $what: 0 missing (of $(printf '%s\n' "$2" | sed '/^$/d' | wc -l))"
	else
		fail "$what: $missing missing from the record, e.g. $(comm -23 <(printf '%s\n' "$2" | sed '/^$/d') <(printf '%s\n' "$3" | sed '/^$/d') | head -n 3 | tr '\n' ' ')"
		cp "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/out.$WT_RUN" 2>/dev/null || true
	fi
}
