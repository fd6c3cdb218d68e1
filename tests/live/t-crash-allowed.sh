#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGKILL the supervisor at random moments of a burst of policy-allowed
# host writes (the supervisor creates each file on the host itself):
# every host file it created has its event (committed before the file
# was made), every answer the program saw is in the record.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/crash-lib.sh"

host=$WT_SCRATCH/host
prog='i=0
while [ $i -lt 10000 ]; do
	i=$((i + 1))
	if true >"$1/f$i"; then echo "ok $i"; else echo "no $i"; fi
done 2>/dev/null'
kills=${CRASH_KILLS:-8}
made=0
for ((k = 1; k <= kills; k++)); do
	rm -rf "$host"
	mkdir -p "$host"
	write_policy "$WT_SCRATCH/policy.ini" '[files]' "allow = $host/*" 'write = deny'
	crash_start "$WT_SCRATCH/policy.ini" "$host" "$prog"
	crash_pause
	crash_kill
	files=$(find "$host" -maxdepth 1 -name 'f*' -printf '%f\n' | sed 's/^f//' | sort -u)
	made=$((made + $(printf '%s\n' "$files" | sed '/^$/d' | wc -l)))
	recorded=$(crash_recorded "$host")
	crash_missing "kill $k: host files the supervisor created" "$files" "$recorded"
	crash_missing "kill $k: successes the program saw" "$(crash_answers ok)" \
	    "$(crash_recorded "$host" allow)"
	crash_integrity
done
[ "$made" -gt 0 ] && note "ok: the kills came during the burst ($made host files made)" ||
    fail "no kill hit the burst: no host file was made"
finish
