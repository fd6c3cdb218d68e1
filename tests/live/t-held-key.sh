#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A held `a` (a key every 30 ms for 4 s) approves nothing: five requests
# appear while it is held, and no key is followed by the quiet moment an
# approve needs (issue 15; tui/model.h MODEL_QUIET_MS).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
prog='sleep 1.5
for i in 1 2 3 4 5; do (echo x > "$0/f$i" 2>/dev/null) & done
wait; echo ANSWERED; sleep 30'
tmux_start run --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" "$WT_CANARY"
expect_screen started 'ward' 15

# Hold `a` down: from before the requests appear until well after.
end=$(($(now_ms) + 4000))
n=0
while [ "$(now_ms)" -lt "$end" ]; do
	tm send-keys -t ward a
	n=$((n + 1))
	sleep 0.03
done
note "sent $n a keys in 4 s"
capture held
grep -Eq 'pending' "$WT_SCRATCH/screen.txt" || fail "no request on screen"
for i in 1 2 3 4 5; do
	[ ! -e "$WT_CANARY/f$i" ] || fail "$WT_CANARY/f$i written: a held key approved it"
done
run=$(sql "SELECT id FROM runs ORDER BY started_ms DESC LIMIT 1" 2>/dev/null || true)
[ -n "$run" ] || die "no run recorded in audit.db"
log_json "$run" "$WT_ARTIFACTS/log.json"
allows=$(log_count "$WT_ARTIFACTS/log.json" '.verdict == "allow" and .kind == "write"')
assert_eq "writes allowed by the held key" 0 "$allows"
tmux_end_run "$run"
finish
