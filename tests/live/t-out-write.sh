#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A write into /out lands in the run's out folder, without asking.
. "$(dirname "$0")/lib.sh"

ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless -- sh -c 'echo hello; echo data > /out/result.txt'

[ -n "$WT_RUN" ] || { show "ward stderr" "$WT_ARTIFACTS/err"; die "no 'ward: run <ID> started' line"; }
assert_eq "exit status" 0 "$WT_STATUS"
assert_eq "ward's first line on stderr" "ward: run $WT_RUN started" \
    "$(head -n 1 "$WT_ARTIFACTS/err" | tr -d '\r')"
assert_grep "the program's stdout passes through" '^hello\r?$' "$WT_ARTIFACTS/out"

rd=$(run_dir "$WT_RUN")
for d in work out before; do
	[ -d "$rd/$d" ] && note "ok: run folder has $d/" || fail "run folder $rd lacks $d/"
done
[ -s "$rd/policy.ini" ] && note "ok: run folder keeps policy.ini" || fail "run folder $rd lacks policy.ini"
assert_file_content "runs/ID/out/result.txt" "data" "$rd/out/result.txt"

assert_no_grep "no request was asked" 'request [0-9]+ pending' "$WT_ARTIFACTS/err"
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_eq "events with a request id" 0 \
    "$(log_count "$WT_ARTIFACTS/log.json" '(.request_id // 0) != 0')"
assert_eq "events decided by a person or a timeout" 0 \
    "$(log_count "$WT_ARTIFACTS/log.json" '.how == "person" or .how == "timeout"')"
assert_eq "runs row in audit.db" "$WT_RUN" "$(sql "SELECT id FROM runs WHERE id = '$WT_RUN'")"
assert_eq "exit code in audit.db" 0 "$(sql "SELECT exit_code FROM runs WHERE id = '$WT_RUN'")"
finish
