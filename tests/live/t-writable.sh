#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every change in a writable host folder is in the record (issue 29): a
# create, a folder, a rename, a chmod, a symlink and the removals, each
# a write row (how policy, rule "writable folder W") that `ward log` and
# `ward log --json` show, and that `ward log --summary` counts. Judged
# from outside: the host folder, the record. Before, the folder's changes
# left only exec rows.
. "$(dirname "$0")/lib.sh"

W=$WT_SCRATCH/w
mkdir -p "$W"
write_policy "$WT_SCRATCH/policy.ini" '[files]' "writable = $W"
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" -- sh -c "
	cd '$W' && echo one > a && mkdir d && mv a d/b && chmod 600 d/b &&
	cat d/b && ln -s d/b l && rm l && echo kept > k && rm d/b && rmdir d"
[ "$WT_STATUS" = 0 ] || show "ward stderr" "$WT_ARTIFACTS/err"
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program read its own file back" '^one\r?$' "$WT_ARTIFACTS/out"
assert_file_content "the kept file is on the host" "kept" "$W/k"
assert_absent "the removed folder is gone from the host" "$W/d"
assert_no_grep "no request was asked" 'request [0-9]+ pending' "$WT_ARTIFACTS/err"
[ -n "$WT_RUN" ] || die "no run id"

"$WARD" log "$WT_RUN" >"$WT_ARTIFACTS/log" 2>&1 </dev/null || fail "ward log"
"$WARD" log --json "$WT_RUN" >"$WT_ARTIFACTS/log.json" 2>&1 </dev/null ||
    fail "ward log --json"
"$WARD" log --summary "$WT_RUN" >"$WT_ARTIFACTS/summary" 2>&1 </dev/null ||
    fail "ward log --summary"
"$WARD" log --summary --json "$WT_RUN" >"$WT_ARTIFACTS/summary.json" 2>&1 \
    </dev/null || fail "ward log --summary --json"

# ward log: one write row a change, each allowed by policy.
for s in "$W/a" "$W/d" "$W/a -> $W/d/b" "$W/d/b" "$W/l" "$W/k"; do
	assert_grep "ward log has the change $s" \
	    "	write	allow	policy	$(printf '%s' "$s" | sed 's/[.[\*^$]/\\&/g')	" \
	    "$WT_ARTIFACTS/log"
done

# ward log --json: the call, the rule naming the folder.
rows() {
	jq -c --arg w "$W" 'select(.kind == "write" and .how == "policy" and
	    .rule == ("writable folder " + $w)) | [.syscall, .subject,
	    .subject2]' "$WT_ARTIFACTS/log.json"
}
rows >"$WT_ARTIFACTS/rows" || fail "jq on ward log --json"
show "write rows" "$WT_ARTIFACTS/rows"
for want in \
    "\"$W/a\",null" "\"mkdir\",\"$W/d\",null" \
    "\"$W/a\",\"$W/d/b\"" "\"$W/d/b\",null" "\"$W/l\",null" \
    "\"$W/k\",null"; do
	assert_grep "ward log --json has $want" "$(printf '%s' "$want" | sed 's/[.[\*^$]/\\&/g')\]$" \
	    "$WT_ARTIFACTS/rows"
done
assert_grep "the chmod is a row" '^\["(fchmodat|fchmodat2|chmod)",' "$WT_ARTIFACTS/rows"
assert_grep "the rmdir is a row" '^\["(rmdir|unlinkat)","'"$W"'/d",null\]$' "$WT_ARTIFACTS/rows"
n=$(wc -l <"$WT_ARTIFACTS/rows")
# echo, mkdir, mv, chmod, ln, rm l, echo k, rm d/b, rmdir
assert_eq "one row a change" 9 "$n"

# ward log --summary: counted.
show "summary" "$WT_ARTIFACTS/summary"
assert_grep "ward log --summary counts them" '\(9 changes in writable folders\)' \
    "$WT_ARTIFACTS/summary"
assert_eq "--summary --json's writable_changes" 9 \
    "$(jq -r '.writable_changes' "$WT_ARTIFACTS/summary.json")"

# As root, the supervisor makes these changes with the program's own ids,
# through the sandbox's own (idmapped) view of the folder: in a folder of
# wardtest's, a file of another user's stays theirs, what the program
# makes is wardtest's, and its own file takes a chmod, chown and touch on
# the fd it was handed, as under a plain CONTINUE.
if [ "$(id -u)" = 0 ] && id wardtest >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	O=$WT_SCRATCH/o
	mkdir -p "$O"
	chown wardtest:wardtest "$O"
	printf 'theirs\n' >"$O/other"
	chown nobody "$O/other"
	chmod 644 "$O/other"
	write_policy "$WT_SCRATCH/o.ini" '[files]' "writable = $O"
	ward_fg "$WT_ARTIFACTS/out-o" "$WT_ARTIFACTS/err-o" \
	    run --headless --policy "$WT_SCRATCH/o.ini" -- sh -c "
		cd '$O' || exit 9
		if echo evil >> other; then echo WROTE-OTHER; fi
		echo n > new && chmod 640 new && touch new &&
		    chown \$(id -u):\$(id -g) new && echo OWN-OK"
	show "inside" "$WT_ARTIFACTS/out-o"
	assert_no_grep "another user's file is not the program's to write" \
	    'WROTE-OTHER' "$WT_ARTIFACTS/out-o"
	assert_file_content "another user's file is as it was" "theirs" "$O/other"
	assert_grep "its own file takes chmod, touch, chown" '^OWN-OK\r?$' \
	    "$WT_ARTIFACTS/out-o"
	assert_eq "the new file is the folder owner's" "wardtest:wardtest 640" \
	    "$(stat -c '%U:%G %a' "$O/new" 2>/dev/null || echo gone)"
fi
finish
