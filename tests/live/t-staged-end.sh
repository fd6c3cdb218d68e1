#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 30, point 1: a run that leaves project edits staged says so at
# its end, with the two commands, wherever the person is looking: a
# headless run's last stderr line (killed too), the console's screen (the
# summary card and the last status) and its leave line, a console left
# while the run goes on ("so far"), and --pass-through's last line. A run that stages nothing says nothing of it. `ward apply` then
# gives the host the edit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

# An agent's edit: one file changed, one created.
edit='set -e; echo "fixed" >> a.txt; echo "new" > b.txt'

new_project() {	# new_project DIR: a.txt in it; prints its real path
	mkdir -p "$1"
	printf 'broken\n' >"$1/a.txt"
	chmod 755 "$1"
	realpath "$1"
}

# The sentence, as a regex: N files, the folder, the run's commands.
said() {	# said RUN DIR
	printf '2 files staged in %s: `ward diff %s` to read, `ward apply %s` to keep' \
	    "$2" "$1" "$1" | sed 's/[.[*^$]/\\&/g'
}

# --- headless -----------------------------------------------------------
proj=$(new_project "$WT_SCRATCH/headless")
err=$WT_ARTIFACTS/headless.err
ward_fg "$WT_ARTIFACTS/headless.out" "$err" \
    run --project "$proj" --chdir "$proj" -- sh -c "$edit"
[ -n "$WT_RUN" ] || { show "ward stderr" "$err"; die "no run started"; }
assert_eq "headless: exit status" 0 "$WT_STATUS"
assert_grep "headless: the last line names the staged files and commands" \
    "^ward: run $WT_RUN: exited 0 — $(said "$WT_RUN" "$proj")\$" "$err"
assert_eq "headless: the host file is unchanged until apply" broken \
    "$(cat "$proj/a.txt")"
"$WARD" apply "$WT_RUN" >"$WT_ARTIFACTS/apply.out" 2>&1 </dev/null ||
    fail "ward apply $WT_RUN"
assert_file_content "headless: a.txt after apply" "$(printf 'broken\nfixed')" \
    "$proj/a.txt"
assert_file_content "headless: b.txt after apply" new "$proj/b.txt"

# Nothing staged, nothing said.
err=$WT_ARTIFACTS/quiet.err
ward_fg "$WT_ARTIFACTS/quiet.out" "$err" \
    run --project "$proj" --chdir "$proj" -- cat a.txt
assert_eq "no edit: exit status" 0 "$WT_STATUS"
assert_no_grep "no edit: no staged line" 'staged' "$err"

# --- the console, then --pass-through, under tmux --------------------------
# tmux_run NAME ARG...: `ward ARG...` in a 100x30 session; its stderr
# also to $WT_SCRATCH/NAME.err (after the console leaves its screen).
tmux_run() {
	local name=$1 launch=$WT_SCRATCH/launch-$1.sh
	shift
	{
		echo 'export LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color'
		printf '%q' "$WARD"
		printf ' %q' "$@"
		printf ' 2> >(tee %q >&2)\n' "$WT_SCRATCH/$name.err"
		printf 'echo "status $?"; sleep 60\n'
	} >"$launch"
	cp "$launch" "$WT_ARTIFACTS/launch-$name.sh"
	tm -f /dev/null new-session -d -s ward -x 100 -y 30 \
	    "bash $(printf '%q' "$launch")"
}

# The console: the program edits and ends; the card and the last status
# say what waits; q leaves with the same sentence on stderr.
proj=$(new_project "$WT_SCRATCH/console")
tmux_run console run --project "$proj" --chdir "$proj" -- sh -c "$edit"
expect_screen card 'files staged in .*not on the host yet' 20
expect_screen status 'status 0 - 2 files staged: ward apply [0-9a-f]{8}' 5
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1")
expect_screen commands "ward diff $run. to read, .ward apply $run. to keep" 5
tm send-keys -t ward q
expect_screen left '^status 0' 10
assert_grep "console: the leave line names the staged files" \
    "^ward: run $run: exited 0 — $(said "$run" "$proj")\$" "$WT_SCRATCH/console.err"
cp "$WT_SCRATCH/console.err" "$WT_ARTIFACTS/console.err"
tmux_stop

# A console left while the run goes on: what is staged so far.
proj=$(new_project "$WT_SCRATCH/left")
ward_bg "$WT_ARTIFACTS/left.out" "$WT_ARTIFACTS/left.err" \
    run --headless --project "$proj" --chdir "$proj" -- sh -c "$edit; sleep 60"
left_run=$WT_RUN
staged_two() { [ "$(find "$(run_dir "$left_run")/projects/0/upper" -type f | wc -l)" -ge 2 ]; }
wait_for 15 staged_two || fail "the two files were not staged within 15 s"
tmux_run left console "$left_run"
expect_screen left-console 'pending: none' 15
tm send-keys -t ward q
expect_screen left-gone '^status 0' 10
cp "$WT_SCRATCH/left.err" "$WT_ARTIFACTS/left-console.err"
assert_grep "console left: what is staged so far" \
    "^ward: run $left_run so far: $(said "$left_run" "$proj")\$" "$WT_SCRATCH/left.err"
"$WARD" kill "$left_run" >/dev/null 2>&1 || true
ward_wait 20
assert_grep "the killed headless run says it too" \
    "^ward: run $left_run: exited 137 — $(said "$left_run" "$proj")\$" "$WT_ARTIFACTS/left.err"
tmux_stop

# --pass-through: the program has the terminal; ward's last line says it.
proj=$(new_project "$WT_SCRATCH/passthru")
tmux_run passthru run --pass-through --project "$proj" --chdir "$proj" \
    -- sh -c "$edit"
expect_screen passthru-end '^status 0' 20
cp "$WT_SCRATCH/passthru.err" "$WT_ARTIFACTS/passthru.err"
run=$(sed -nE 's/^ward: run ([0-9a-f]{8}) has this terminal.*/\1/p' \
    "$WT_SCRATCH/passthru.err" | head -n 1)
[ -n "$run" ] || { show "stderr" "$WT_SCRATCH/passthru.err"; die "no pass-through run"; }
assert_grep "pass-through: the last line names the staged files" \
    "^ward: run $run: exited 0 — $(said "$run" "$proj")\$" "$WT_SCRATCH/passthru.err"
assert_eq "pass-through: the host file is unchanged" broken "$(cat "$proj/a.txt")"
tm kill-server >/dev/null 2>&1 || true
finish
