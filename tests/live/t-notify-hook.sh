#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# [console] notify_cmd in the person's ward.ini runs once a request has
# waited notify_after seconds, with the request in WARD_* variables: a
# subject holding shell syntax is text, never run (issue 15).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
mkdir -p "$XDG_CONFIG_HOME/ward"
hookout=$WT_SCRATCH/hook.out
write_policy "$XDG_CONFIG_HOME/ward/ward.ini" \
    '[console]' \
    "notify_cmd = printf '%s|%s|%s|%s\\n' \"\$WARD_REQUEST\" \"\$WARD_KIND\" \"\$WARD_SUBJECT\" \"\$WARD_WAITED\" >> $hookout" \
    'notify_after = 2'
cp "$XDG_CONFIG_HOME/ward/ward.ini" "$WT_ARTIFACTS/ward.ini"
name='f$(touch pwned)'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c 'cd "$0" && echo x > "$1" 2>/dev/null; sleep 30' "$WT_CANARY" "$name"
wait_pending "$WT_ARTIFACTS/err"
t0=$(now_ms)
tmux_start console "$WT_RUN"
expect_screen pending 'pending: 1' 15
if wait_for 10 test -s "$hookout"; then
	waited=$(($(now_ms) - t0))
	note "hook ran ${waited} ms after the console attached"
else
	die "notify_cmd did not run within 10 s"
fi
sleep 1
cp "$hookout" "$WT_ARTIFACTS/hook.out"
assert_eq "the hook ran once" 1 "$(wc -l <"$hookout")"
IFS='|' read -r req kind subj secs <"$hookout"
assert_eq "WARD_REQUEST" "$WT_REQ" "$req"
assert_eq "WARD_KIND" write "$kind"
assert_eq "WARD_SUBJECT" "$WT_CANARY/$name" "$subj"
[ "$secs" -ge 2 ] && note "ok: WARD_WAITED=$secs" || fail "WARD_WAITED=$secs, want >= 2"
assert_absent "the subject's \$(...) did not run" "$WT_CANARY/pwned"
[ ! -e pwned ] || fail "pwned created in $(pwd)"
"$WARD" kill "$WT_RUN" >/dev/null 2>&1 || true
ward_wait 15
finish
