#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward approve` lets one write outside through: the supervisor writes the
# host file itself and keeps its before-image; a second answer is refused.
. "$(dirname "$0")/lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

# After the write the program waits for "go" (created on the host, seen
# through the read-only bind) so that the supervisor is still there for
# the second approve.
prog='
if echo new > "$1/file"; then echo "WROTE"; else echo "DENIED"; fi
i=0; while [ ! -e "$1/go" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
echo "DONE"'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" sh "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err"
assert_eq "pending subject" "$WT_CANARY/file" "$WT_REQ_PATH"
canary_untouched		# nothing happens before the answer

# ward pending: run TAB id TAB kind TAB subject TAB pid TAB age
st=0
"$WARD" pending >"$WT_ARTIFACTS/pending" 2>"$WT_ARTIFACTS/pending.err" </dev/null || st=$?
assert_eq "ward pending exit status" 0 "$st"
row=$(awk -F '\t' -v r="$WT_RUN" -v n="$WT_REQ" '$1 == r && $2 == n' "$WT_ARTIFACTS/pending")
if [ -z "$row" ]; then
	show "ward pending" "$WT_ARTIFACTS/pending"
	fail "ward pending does not list run $WT_RUN request $WT_REQ"
else
	IFS=$'\t' read -r -a f <<<"$row"
	assert_eq "ward pending field count" 6 "${#f[@]}"
	assert_eq "ward pending kind" write "${f[2]:-}"
	assert_eq "ward pending subject" "$WT_CANARY/file" "${f[3]:-}"
	assert_eq "ward pending pid" "$WT_REQ_PID" "${f[4]:-}"
	[[ ${f[5]:-} =~ ^[0-9] ]] && note "ok: ward pending age '${f[5]}'" ||
	    fail "ward pending age: expected a number of seconds, got '${f[5]:-}'"
fi
st=0
"$WARD" pending --json >"$WT_ARTIFACTS/pending.json" 2>&1 </dev/null || st=$?
assert_eq "ward pending --json exit status" 0 "$st"
if jq -e -s --arg r "$WT_RUN" '[.. | objects | select(.run == $r)] | length > 0' \
    "$WT_ARTIFACTS/pending.json" >/dev/null 2>&1; then
	note "ok: ward pending --json names the run"
else
	show "ward pending --json" "$WT_ARTIFACTS/pending.json"
	fail "ward pending --json is not JSON naming run $WT_RUN"
fi

st=0
"$WARD" approve "$WT_RUN" "$WT_REQ" >"$WT_ARTIFACTS/approve" 2>&1 </dev/null || st=$?
assert_eq "ward approve exit status" 0 "$st"

wait_for 10 grep -q '^WROTE' "$WT_ARTIFACTS/out" || true
assert_grep "the program's write succeeded" '^WROTE\r?$' "$WT_ARTIFACTS/out"
assert_file_content "host file after approve" "new" "$WT_CANARY/file"
assert_file_content "before-image in the run folder" "old" \
    "$(run_dir "$WT_RUN")/before$WT_CANARY/file"

st=0
"$WARD" approve "$WT_RUN" "$WT_REQ" >"$WT_ARTIFACTS/approve2" 2>&1 </dev/null || st=$?
assert_eq "second approve exit status" 1 "$st"
assert_grep "second approve says so" 'already decided' "$WT_ARTIFACTS/approve2"
st=0
"$WARD" approve "$WT_RUN" 999 >"$WT_ARTIFACTS/approve3" 2>&1 </dev/null || st=$?
assert_eq "approve of an unknown request exit status" 1 "$st"

touch "$WT_CANARY/go"
ward_wait 30
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^DONE\r?$' "$WT_ARTIFACTS/out"

log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
uid=$(id -u)
assert_log "allow by a person, decided_by naming uid $uid" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"allow\" and .how == \"person\" and .subject == \"$WT_CANARY/file\" and ((.request_id|tostring) == \"$WT_REQ\") and ((.decided_by // \"\") | test(\"uid $uid([^0-9]|\$)\"))"
assert_log "the wait is recorded" "$WT_ARTIFACTS/log.json" \
    ".how == \"person\" and .wait_ms > 0"
finish
