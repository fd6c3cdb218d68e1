#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGKILL the supervisor at random moments of a burst of 10,000 denied
# writes: every denial the program saw is in the record (an answer waits
# for the commit of its event), the file is intact, nothing survives.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/crash-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" '[files]' 'write = deny'
prog='i=0
while [ $i -lt 10000 ]; do
	i=$((i + 1))
	if true >"$1/f$i"; then echo "ok $i"; else echo "no $i"; fi
done 2>/dev/null'
kills=${CRASH_KILLS:-8}
seen=0
for ((k = 1; k <= kills; k++)); do
	crash_start "$WT_SCRATCH/policy.ini" "$WT_CANARY" "$prog"
	crash_pause
	crash_kill
	answers=$(crash_answers no)
	seen=$((seen + $(printf '%s\n' "$answers" | sed '/^$/d' | wc -l)))
	crash_missing "kill $k: denials the program saw" "$answers" \
	    "$(crash_recorded "$WT_CANARY" deny)"
	crash_integrity
done
[ "$seen" -gt 0 ] && note "ok: the kills came while the program was being answered ($seen denials seen)" ||
    fail "no kill hit the burst: the program saw no denial"
canary_untouched
finish
