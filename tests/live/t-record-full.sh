#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The program fills the disk the record lives on (a 16 MiB tmpfs as the
# state folder; /work is on it), then makes policy-allowed host writes
# and prints: ward stops the run with exit 125 and one message, the
# reserve beside audit.db lets the last events and the run's end in, no
# host write is made that the record does not hold, the file is intact.
# As root in a mount namespace of its own; as another user in a user
# namespace too (unshare -Urm), so that it needs no help from root.
. "$(dirname "$0")/lib.sh"

own_mount_ns

host=$WT_SCRATCH/host
state=$WT_SCRATCH/small-state
mkdir -p "$host" "$state"
write_policy "$WT_SCRATCH/policy.ini" '[files]' "allow = $host/*" 'write = deny'
prog='dd if=/dev/zero of=/work/fill bs=64k 2>/dev/null; echo filled
i=0
while [ $i -lt 2000 ]; do
	i=$((i + 1))
	if true >"$1/f$i"; then echo "ok $i"; else echo "no $i"; fi
	head -c 4096 /dev/zero | tr "\0" x; echo
done 2>/dev/null'

# Inside the namespace: the tmpfs, the run, and every look at the record
# (the tmpfs is gone once the namespace is).
cat >"$WT_SCRATCH/inner.sh" <<'INNER'
set -u
if [ -z "${MOUNTED:-}" ]; then
	mount -t tmpfs -o size=16m,mode=0700 tmpfs "$STATE" || exit 97
	export MOUNTED=1
	# shellcheck disable=SC2086
	[ -z "${BACK:-}" ] || exec $BACK bash "$0"
fi
export XDG_STATE_HOME=$STATE
st=0
"$WARD" run --headless --policy "$POLICY" --in "$HOST" -- sh -c "$PROG" sh "$HOST" \
    >"$ART/out" 2>"$ART/err" </dev/null || st=$?
echo "$st" >"$ART/status"
db=$STATE/ward/audit.db
echo "$db" >"$ART/db"
sqlite3 -readonly "$db" 'PRAGMA integrity_check' >"$ART/integrity" 2>&1
sqlite3 -readonly "$db" "SELECT subject FROM events WHERE kind = 'write'" >"$ART/subjects" 2>&1
sqlite3 -readonly "$db" "SELECT end_reason FROM runs" >"$ART/ends" 2>&1
"$WARD" log >"$ART/log" 2>&1 || true
[ -e "$db-reserve" ] && echo present >"$ART/reserve" || echo released >"$ART/reserve"
df -k "$STATE" >"$ART/df" 2>&1
INNER
BACK="${back[*]:-}"
export BACK
ART=$WT_ARTIFACTS STATE=$state POLICY=$WT_SCRATCH/policy.ini PROG=$prog \
    HOST=$host WARD=$WARD "${ns[@]}" bash "$WT_SCRATCH/inner.sh" ||
    die "the namespace's script failed ($?): no tmpfs?"

assert_grep "the program filled the disk" '^filled' "$WT_ARTIFACTS/out"
assert_file_content "ward's exit status" 125 "$WT_ARTIFACTS/status"
assert_eq "messages about the record" 1 \
    "$(grep -c 'nothing more can be recorded' "$WT_ARTIFACTS/err" || true)"
assert_grep "the message names the file and sqlite's cause" \
    "^ward: audit: $(cat "$WT_ARTIFACTS/db").*database or disk is full" "$WT_ARTIFACTS/err"
assert_file_content "integrity_check" ok "$WT_ARTIFACTS/integrity"
assert_file_content "the reserve was used" released "$WT_ARTIFACTS/reserve"
assert_file_content "the run's end is recorded" record "$WT_ARTIFACTS/ends"
files=$(find "$host" -maxdepth 1 -name 'f*' -printf "$host/%f\n" | sort)
missing=$(comm -23 <(printf '%s\n' "$files" | sed '/^$/d') <(sort -u "$WT_ARTIFACTS/subjects") | wc -l)
assert_eq "host files made without their event (of $(printf '%s\n' "$files" | sed '/^$/d' | wc -l))" 0 "$missing"
finish
