#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A signal to a headless `ward run` (timeout(1), docker stop, a hang-up)
# reaches the program, whose trap runs: SIGTERM to ward, the program's
# trap writes its marker and exits 3, and ward exits 3. SIGUSR1 and
# SIGINT reach it too. A program that ignores SIGTERM is killed after the
# grace period (10 s), not at once and not never.
. "$(dirname "$0")/lib.sh"

ready() { grep -q "^ready$" "$1"; }

# 1. TERM: the trap runs, its status is ward's.
prog='trap "echo term > /out/marker; exit 3" TERM
trap "echo usr1 >> /out/usr1" USR1
echo ready
while :; do sleep 0.1; done'
ward_bg "$WT_ARTIFACTS/t.out" "$WT_ARTIFACTS/t.err" run --headless -- sh -c "$prog"
headless_supervisor "$WT_PID"
wait_for 20 ready "$WT_ARTIFACTS/t.out" || die "the program did not say ready"
kill -USR1 "$WT_PID"
wait_for 10 test -s "$(run_dir "$WT_RUN")/out/usr1" ||
    fail "SIGUSR1 did not reach the program's trap"
kill -TERM "$WT_PID"
ward_wait 30
assert_eq "ward's exit status is the program's (its TERM trap exits 3)" 3 "$WT_STATUS"
assert_file_content "the trap wrote its marker" "term" "$(run_dir "$WT_RUN")/out/marker"
[ "$WT_ELAPSED_MS" -lt 9000 ] || fail "the trapped TERM took ${WT_ELAPSED_MS} ms"

# 2. INT, as Ctrl-C or timeout -s INT would send it.
prog='trap "exit 4" INT
echo ready
while :; do sleep 0.1; done'
ward_bg "$WT_ARTIFACTS/i.out" "$WT_ARTIFACTS/i.err" run --headless -- sh -c "$prog"
wait_for 20 ready "$WT_ARTIFACTS/i.out" || die "the program did not say ready"
kill -INT "$WT_PID"
ward_wait 30
assert_eq "SIGINT: the program's trap exits 4" 4 "$WT_STATUS"

# 3. A program that ignores TERM: killed after the grace, 10 s.
# Its loop carries this test's pid: the check below looks machine-wide.
prog="trap '' TERM
echo ready
while :; do sleep 0.2; : sigfwd-$$; done"
ward_bg "$WT_ARTIFACTS/g.out" "$WT_ARTIFACTS/g.err" run --headless -- sh -c "$prog"
wait_for 20 ready "$WT_ARTIFACTS/g.out" || die "the program did not say ready"
t0=$(now_ms)
kill -TERM "$WT_PID"
ward_wait 40
took=$(($(now_ms) - t0))
assert_eq "a program that ignores TERM is killed" 137 "$WT_STATUS"
if [ "$took" -ge 9500 ] && [ "$took" -lt 35000 ]; then
	note "ok: killed ${took} ms after the signal (grace 10 s)"
else
	fail "killed ${took} ms after the signal, not after the 10 s grace"
fi
wait_for 5 no_process_matching "sigfwd-$$" || fail "the program outlived ward"
finish
