#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 30, points 7 and 8, in a real 80x24 terminal (tmux): a write
# asked from inside Claude Code's Bash-tool wrapper (a shell snapshot
# sourced, the command eval'd, the cwd written after) under the agent
# pane. The request takes at most 4 rows under a pane that keeps the
# rest, its title whole; its process line is the eval'd command; Enter
# shows the wrapper whole; d denies it and the canary is untouched.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
snap=$WT_SCRATCH/home/.claude/shell-snapshots
mkdir -p "$snap"
echo ': snapshot' >"$snap/snapshot-bash-1764880000000-x1y2z3.sh"
chmod -R a+rX "$WT_SCRATCH/home"
# The wrapper, as Claude Code 2.1 builds it.
cmd="echo 'agent line' >> $WT_CANARY/file"
q=${cmd//\'/\'\\\'\'}
script="source $snap/snapshot-bash-1764880000000-x1y2z3.sh && { shopt -u extglob || setopt NO_EXTENDED_GLOB; } 2>/dev/null || true && eval '$q' < /dev/null && pwd -P >| /tmp/claude-5f2a-cwd; echo AGENT-DONE; sleep 30"

launch=$WT_SCRATCH/launch.sh
{
	echo 'export LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color'
	printf '%q run --agent --policy %q --in %q --in %q -- /bin/bash -c %q\n' \
	    "$WARD" "$WT_SCRATCH/policy.ini" "$WT_CANARY" "$WT_SCRATCH/home" "$script"
	echo 'sleep 30'
} >"$launch"
cp "$launch" "$WT_ARTIFACTS/launch.sh"
printf 'set -g status off\n' >"$WT_SCRATCH/tmux.conf"
tm -f "$WT_SCRATCH/tmux.conf" new-session -d -s ward -x 80 -y 24 \
    "bash $(printf '%q' "$launch")"

expect_screen pending '^[> ] #[0-9]+  wants to change a file' 20
s=$WT_SCRATCH/screen.txt
assert_grep "the process line is the eval'd command" \
    "^    process  echo 'agent line' >> .*file\$" "$s"
assert_no_grep "no wrapper in the strip" 'shell-snapshots|claude-5f2a-cwd' "$s"
# Rows of the strip: from its header to the last row of the request.
head=$(grep -nE '^(--|==) pending: 1' "$s" | cut -d: -f1)
last=$(grep -nE '^    (process|path|risk) ' "$s" | tail -n 1 | cut -d: -f1)
[ -n "$head" ] && [ -n "$last" ] || fail "no strip found"
rows=$((last - head))
[ "$rows" -le 4 ] && note "ok: the request takes $rows rows (at most 4)" ||
    fail "the request takes $rows rows, more than 4"
agent=$(grep -c '^│' "$s" || true)
[ "$agent" -ge 14 ] && note "ok: the agent keeps $agent rows" ||
    fail "the agent keeps $agent rows (fewer than 14)"

# Enter: the wrapper whole (the prefix first when the keys go to the
# agent).
if on_screen 'keys go to the agent'; then
	tm send-keys -t ward C-]
fi
expect_screen requests 'Enter all' 10
tm send-keys -t ward Enter
expect_screen whole '^  in +/bin/bash -c source ' 10
canary_untouched
tm send-keys -t ward d
expect_screen done 'AGENT-DONE' 15
canary_untouched
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1")
"$WARD" kill "$run" >/dev/null 2>&1 || true
tm kill-server >/dev/null 2>&1 || true
finish
