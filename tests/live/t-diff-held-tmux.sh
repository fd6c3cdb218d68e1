#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 29, item 1 in the console: the diff pane holds a protected file.
# A live run whose folder holds, staged (laid out by hand, as --project
# leaves it), a git post-checkout hook and an ordinary file:
#   - the pane lists the hook with its size, HELD and why;
#   - P lists the ordinary file only and says one held file was left
#     out; an armed y applies it, and the hook is not on the host;
#   - p on the hook lists it alone, HELD first; n cancels (nothing on the
#     host); p again and an armed y apply it: the person's own choice,
#     recorded.
# On main before issue 29 P applied both.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

WT_TMUX_W=220 WT_TMUX_H=40 tmux_start run -- sh -c 'echo ready; sleep 60'

stop() {
	[ -n "${run:-}" ] && "$WARD" kill "$run" >/dev/null 2>&1 || true
	tm kill-server >/dev/null 2>&1 || true
}
trap stop EXIT

expect_screen ready 'ready' 15
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1")
[ -n "$run" ] || die "no run in the record"
R=$(run_dir "$run")
P=$WT_SCRATCH/proj
U=$R/projects/0/upper
mkdir -p "$P/.git/hooks" "$U/.git/hooks"
printf 'old\n' >"$P/app.txt"
printf '0\t%s\tcopy\n' "$P" >"$R/projects.tsv"
printf 'host = %s\nmode = copy\nstarted_ms = %s\n' "$P" "$(now_ms)" >"$R/projects/0/project.ini"
sleep 0.05
printf 'new\n' >"$U/app.txt"
printf '#!/bin/sh\ntouch %s/canary\n' "$WT_SCRATCH" >"$U/.git/hooks/post-checkout"
chmod 755 "$U/.git/hooks/post-checkout"

tm send-keys -t ward c
expect_screen pane 'changes \(2 files, staged\)' 10
expect_screen held-line 'added +\.git/hooks/post-checkout  [0-9]+ B  HELD, protected: a git hook' 5
expect_screen size-line 'modified app\.txt  4 B$' 5
# P: all but the held one.
tm send-keys -t ward P
expect_screen confirm 'apply to the host: 1 file' 5
expect_screen left-out '1 held file left out' 5
if grep -q 'post-checkout' "$WT_SCRATCH/screen.txt" &&
    grep -A3 'apply to the host' "$WT_SCRATCH/screen.txt" | grep -q 'post-checkout'; then
	fail "P lists the held hook"
else
	note "ok: P does not list the hook"
fi
sleep 1
tm send-keys -t ward y
expect_screen applied 'applied 1 of 1; conflicts 0, failed 0' 10
assert_file_content "app.txt applied" "new" "$P/app.txt"
assert_absent "P: the hook not on the host" "$P/.git/hooks/post-checkout"
expect_screen one-left 'changes \(1 file, staged\)' 10
# p on the hook: listed alone, HELD first; n cancels.
tm send-keys -t ward p
expect_screen confirm-held 'HELD added +[^ ]*/\.git/hooks/post-checkout' 5
tm send-keys -t ward n
expect_screen cancelled 'apply cancelled' 5
assert_absent "n: the hook not on the host" "$P/.git/hooks/post-checkout"
tm send-keys -t ward p
expect_screen confirm-held2 'HELD added' 5
sleep 1
tm send-keys -t ward y
expect_screen applied-held 'applied 1 of 1' 10
[ -x "$P/.git/hooks/post-checkout" ] && note "ok: p then y: the hook applied, as asked" ||
    fail "p then y did not apply the hook"
assert_absent "nothing ran the hook" "$WT_SCRATCH/canary"
assert_eq "both recorded" "applied applied" \
    "$(sql "SELECT action FROM changes WHERE run = '$run' ORDER BY rowid" | tr '\n' ' ' | sed 's/ $//')"
tm send-keys -t ward c
"$WARD" kill "$run" >/dev/null 2>&1 || fail "ward kill"
expect_screen killed 'killed' 15
tm send-keys -t ward q
finish
