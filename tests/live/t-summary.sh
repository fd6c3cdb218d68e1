#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The end-of-run summary and a finished run opened read-only. A headless
# run writes two files in its project (staged) and asks three times for
# writes outside: one denied (ward deny), one left to time out, one
# approved. After it ends, `ward log --summary` (and --json) has those
# counts; `ward console RUN` in a real terminal (tmux) opens the ended run
# read-only from the record, with its summary card, its output and its
# events, and an answer key does nothing but say read-only.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	[ "${CI:-}" = true ] && die "tmux is not installed"
	skip "tmux is not installed"
fi

make_canary
P=$WT_SCRATCH/proj
mkdir -p "$P"
echo "kept" >"$P/old.txt"
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 3' '[files]' 'write = ask'

prog='
cd "$1" && echo one > new1.txt && echo two > new2.txt
for f in denied timedout approved; do
	# (the shell complaint kept off stderr, which ward shares)
	if (echo new > "$2/$f") 2>/dev/null; then echo "WROTE $f"; else echo "REFUSED $f"; fi
done
echo "summary-test-done"'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --project "$P" \
    --in "$WT_CANARY" -- sh -c "$prog" sh "$P" "$WT_CANARY"

# request N's pending line
req_line() {
	grep -E "ward: run $WT_RUN request $2 pending: write " "$1" | head -n 1
}
answer() {	# answer N approve|deny|none
	if ! wait_for 15 req_line "$WT_ARTIFACTS/err" "$1" >/dev/null; then
		show "ward stderr" "$WT_ARTIFACTS/err"
		die "request $1 never pending"
	fi
	[ "$2" = none ] && return 0
	local st=0
	"$WARD" "$2" "$WT_RUN" "$1" >"$WT_ARTIFACTS/$2-$1" 2>&1 </dev/null || st=$?
	assert_eq "ward $2 $WT_RUN $1" 0 "$st"
}
answer 1 deny
answer 2 none
answer 3 approve
ward_wait 30
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the denied write failed" '^REFUSED denied' "$WT_ARTIFACTS/out"
assert_grep "the timed-out write failed" '^REFUSED timedout' "$WT_ARTIFACTS/out"
assert_grep "the approved write went through" '^WROTE approved' "$WT_ARTIFACTS/out"
assert_file_content "the approved file on the host" "new" "$WT_CANARY/approved"

# --- ward log --summary ---
st=0
"$WARD" log --summary --json "$WT_RUN" >"$WT_ARTIFACTS/summary.json" \
    2>"$WT_ARTIFACTS/summary.err" </dev/null || st=$?
assert_eq "ward log --summary --json exit status" 0 "$st"
js() { jq -r "$1" "$WT_ARTIFACTS/summary.json"; }
assert_eq "summary run" "$WT_RUN" "$(js .run)"
assert_eq "asked" 3 "$(js .asked)"
assert_eq "allowed" 1 "$(js .allowed)"
assert_eq "denied" 1 "$(js .denied)"
assert_eq "timed out" 1 "$(js .timed_out)"
assert_eq "unanswered" 0 "$(js .unanswered)"
assert_eq "written on the host" 1 "$(js .written)"
assert_eq "staged in the project" 2 "$(js .staged)"
assert_eq "changed files" 3 "$(js .changed)"
assert_eq "blocked files" 0 "$(js .blocked.files)"
if [ "$(js .execs)" -ge 1 ]; then
	note "ok: $(js .execs) programs started"
else
	fail "no program counted as started"
fi

st=0
"$WARD" log --summary "$WT_RUN" >"$WT_ARTIFACTS/summary.txt" 2>&1 </dev/null || st=$?
assert_eq "ward log --summary exit status" 0 "$st"
assert_grep "text: the run" "^run $WT_RUN\$" "$WT_ARTIFACTS/summary.txt"
assert_grep "text: asked" '^  asked 3: allowed 1, denied 1, timed out 1$' "$WT_ARTIFACTS/summary.txt"
assert_grep "text: changed" '^  changed files 3: 1 written on the host, 2 staged in projects$' "$WT_ARTIFACTS/summary.txt"
assert_grep "text: blocked" '^  blocked [0-9]+: files 0, network [0-9]+, packages 0, exec 0, syscalls [0-9]+$' "$WT_ARTIFACTS/summary.txt"
st=0
"$WARD" log --summary --all >/dev/null 2>"$WT_ARTIFACTS/summary-all.err" </dev/null || st=$?
assert_eq "ward log --summary --all is a usage error" 2 "$st"

# --- ward console RUN on the ended run ---
. "$(dirname "$0")/tmux-lib.sh"
WT_TMUX_H=32
tmux_start console "$WT_RUN"
expect_screen readonly 'ended exited 0, read-only' 15
expect_screen card '-- run summary --' 5
expect_screen asked 'asked 3: allowed 1, denied 1, timed out 1' 5
expect_screen changed 'changed files 3' 5
expect_screen output 'summary-test-done' 5
expect_screen events 'write .*/canary/approved: allow \(person' 5
tm send-keys -t ward a
expect_screen answer-a 'read-only: the run has ended, nothing can be answered' 5
tm send-keys -t ward K
expect_screen answer-K 'read-only: the run has ended' 5
if grep -q 'kill run .*? y/n' "$WT_SCRATCH/screen.txt"; then
	fail "K asked to kill an ended run opened read-only"
fi
# The filter: only the timed-out one.
tm send-keys -t ward / t i m e o u t Enter
expect_screen filter 'events /timeout: 1 of' 5
expect_screen filtered 'write .*/canary/timedout: deny \(timeout' 5
if grep -q 'canary/denied: deny' "$WT_SCRATCH/screen.txt"; then
	fail "the filter 'timeout' still shows the write denied by a person"
fi
tm send-keys -t ward Escape
tm send-keys -t ward q
wait_for 5 test -s "$WT_TMUX_STATUS" || fail "q did not leave the read-only console"
assert_eq "the read-only console's exit status" 0 "$(cat "$WT_TMUX_STATUS" 2>/dev/null)"
# Nothing changed: the request answered before is still as it was.
assert_absent "no file from the read-only console" "$WT_CANARY/denied"

# --- a live run's console shows the summary when the run ends ---
tmux_stop
rm -f "$WT_TMUX_STATUS"
# (sh -c's $1: the canary, given after the script's name)
tmux_start run --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" -- sh -c \
    'echo live-run; sleep 1; echo x > "$1/live" || echo REFUSED-live; exit 3' \
    sh "$WT_CANARY"
expect_screen live-pending 'pending: 1' 15
tm send-keys -t ward d
expect_screen live-ended 'run exited with status 3' 15
expect_screen live-card '-- run summary --' 10
expect_screen live-counts 'asked 1: allowed 0, denied 1, timed out 0' 10
tm send-keys -t ward q
finish
