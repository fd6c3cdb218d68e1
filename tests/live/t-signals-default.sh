#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The program starts with every signal at its default and none blocked,
# whatever ward was started with (nohup-style ignored signals, the
# supervisor's own ignored SIGPIPE and blocked SIGCHLD/SIGINT/SIGTERM/
# SIGHUP): an ignored signal would stay ignored across exec.
. "$(dirname "$0")/lib.sh"

(
	trap '' HUP INT QUIT USR1 PIPE
	ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
	    run --headless -- grep -E '^Sig(Ign|Blk):' /proc/self/status
	echo "$WT_STATUS" > "$WT_ARTIFACTS/status"
)
assert_eq "exit status" 0 "$(cat "$WT_ARTIFACTS/status")"
assert_grep "no signal ignored" '^SigIgn:[[:space:]]*0000000000000000$' "$WT_ARTIFACTS/out"
assert_grep "no signal blocked" '^SigBlk:[[:space:]]*0000000000000000$' "$WT_ARTIFACTS/out"
finish
