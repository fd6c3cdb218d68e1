#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Contention (D8): 20 heavy runs at once, each writing output and making
# denied writes, all into the one record; meanwhile another writer holds
# the record's write lock for 8 s, longer than sqlite's 5 s busy timeout,
# while 3 short runs end (a single try at writing the end lost it).
# Afterwards every run has its end, every denial the program counted is
# in the record, and every byte of its output.
. "$(dirname "$0")/lib.sh"

runs=${WT_CONTENTION_RUNS:-20}
rounds=${WT_CONTENTION_ROUNDS:-40}
writes=20	# denied writes per round
chunk=131072	# output bytes per round
make_canary
write_policy "$WT_SCRATCH/policy.ini" '[files]' 'write = deny'

# Each round: a chunk of output, then writes the floor refuses; the
# program counts the refusals it saw and says how many at the end.
prog='d=0; r=0
while [ $r -lt '"$rounds"' ]; do
	head -c '"$chunk"' /dev/zero | tr "\0" x
	w=0
	while [ $w -lt '"$writes"' ]; do
		if ! (echo x >"$1/f$r.$w") 2>/dev/null; then d=$((d + 1)); fi
		w=$((w + 1))
	done
	r=$((r + 1))
done
echo
echo "DENIED $d"'

t0=$(now_ms)
pids=()
spids=()
for i in $(seq 1 "$runs"); do
	"$WARD" run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
	    -- sh -c "$prog" sh "$WT_CANARY" >"$WT_ARTIFACTS/out.$i" \
	    2>"$WT_ARTIFACTS/err.$i" </dev/null &
	pids+=("$!")
	WT_BG_PIDS+=("$!")
done
# The short runs: they end while the lock is held.
short=3
for j in $(seq 1 "$short"); do
	"$WARD" run --headless -- sh -c 'sleep 2' >"$WT_ARTIFACTS/sout.$j" \
	    2>"$WT_ARTIFACTS/serr.$j" </dev/null &
	spids+=("$!")
	WT_BG_PIDS+=("$!")
done
all_started() {
	local f
	for f in "$WT_ARTIFACTS"/err.* "$WT_ARTIFACTS"/serr.*; do
		run_id_of "$f" >/dev/null || return 1
	done
}
wait_for 30 all_started || die "not every run said it started within 30 s"
# The holder: BEGIN IMMEDIATE takes the write lock (waiting up to 10 s for
# a supervisor's batch), keeps it 8 s, then lets go.
sqlite3 "$(audit_db)" ".timeout 10000" "BEGIN IMMEDIATE;" \
    "SELECT count(*) FROM runs;" ".system sleep 8" "COMMIT;" \
    >"$WT_ARTIFACTS/holder" 2>&1 &
holder=$!
WT_BG_PIDS+=("$holder")
note "another writer holds the record's write lock for 8 s (pid $holder)"
bad=0
for j in $(seq 1 "$short"); do
	st=0
	wait "${spids[$((j - 1))]}" || st=$?
	[ "$st" = 0 ] || { fail "short run $j: ward exited $st"; show "stderr of short run $j" "$WT_ARTIFACTS/serr.$j"; }
	run=$(run_id_of "$WT_ARTIFACTS/serr.$j" || true)
	row=$(sql "SELECT ifnull(end_reason, 'NULL') || ' ' || ifnull(exit_code, 'NULL') FROM runs WHERE id = '$run'")
	[ "$row" = "exit 0" ] || fail "short run $j ($run): runs row ends '$row', not 'exit 0'"
done
st=0
wait "$holder" || st=$?
[ "$st" = 0 ] || { fail "the lock holder failed ($st)"; show "holder" "$WT_ARTIFACTS/holder"; }
for i in $(seq 1 "$runs"); do
	st=0
	wait "${pids[$((i - 1))]}" || st=$?
	[ "$st" = 0 ] || { fail "run $i: ward exited $st"; show "stderr of run $i" "$WT_ARTIFACTS/err.$i"; bad=1; }
done
note "$runs runs took $(( $(now_ms) - t0 )) ms"
note "record retries said: $(cat "$WT_ARTIFACTS"/err.* | grep -c 'ward: record:' || true)"

total_denied=0
for i in $(seq 1 "$runs"); do
	run=$(run_id_of "$WT_ARTIFACTS/err.$i" || true)
	if [ -z "$run" ]; then
		fail "run $i: no 'ward: run ID started' line"
		continue
	fi
	said=$(sed -nE 's/^DENIED ([0-9]+)$/\1/p' "$WT_ARTIFACTS/out.$i")
	[ "$said" = $((rounds * writes)) ] ||
	    fail "run $i ($run): the program saw ${said:-no} refusals, not $((rounds * writes))"
	total_denied=$((total_denied + ${said:-0}))
	row=$(sql "SELECT ifnull(end_reason, 'NULL') || ' ' || ifnull(exit_code, 'NULL') || ' ' || (ended_ms IS NOT NULL) FROM runs WHERE id = '$run'")
	[ "$row" = "exit 0 1" ] || fail "run $i ($run): runs row ends '$row', not 'exit 0 1'"
	got=$(sql "SELECT count(*) FROM events WHERE run = '$run' AND kind = 'write' AND verdict = 'deny' AND subject LIKE '$WT_CANARY/f%'")
	[ "$got" = "${said:-x}" ] || fail "run $i ($run): $got denials recorded, the program counted ${said:-none}"
	bytes=$(sql "SELECT total(length(bytes)) FROM output WHERE run = '$run' AND stream = 'stdout'")
	printed=$(stat -c %s "$WT_ARTIFACTS/out.$i")
	[ "${bytes%.0}" = "$printed" ] || fail "run $i ($run): $bytes output bytes recorded, $printed printed"
	for ev in start exit; do
		[ "$(sql "SELECT count(*) FROM events WHERE run = '$run' AND kind = 'run' AND subject = '$ev'")" = 1 ] ||
		    fail "run $i ($run): no run $ev event"
	done
done
assert_eq "runs in the record" "$((runs + short))" "$(sql "SELECT count(*) FROM runs")"
assert_eq "runs without an end" 0 "$(sql "SELECT count(*) FROM runs WHERE ended_ms IS NULL OR end_reason IS NULL")"
assert_eq "denials recorded in all" "$((runs * rounds * writes))" \
    "$(sql "SELECT count(*) FROM events WHERE kind = 'write' AND verdict = 'deny'")"
assert_eq "denials the programs counted" "$((runs * rounds * writes))" "$total_denied"
assert_eq "integrity_check" ok "$(sql "PRAGMA integrity_check")"
canary_untouched
finish
