#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hot path keeps each thread's cwd a moment (issue 18): a chdir or an
# fchdir into a read-only host folder, right after writes in /work, is
# seen, so the next relative write is judged where it really lands (the
# host folder: denied by the policy and recorded with its real path), not
# continued as if it were still in /work (the floor would refuse it, and
# the record would not show it). Back in /work, writes go through again.
. "$(dirname "$0")/lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" '[files]' 'write = deny'
prog='
for i in 1 2 3 4 5 6 7 8 9 10; do echo $i > warm$i; done
cd "$1" && { echo x > after-cd 2>/dev/null && echo "CD WROTE" || echo "CD REFUSED"; }
cd /work && echo y > back-in-work && echo "BACK OK"
python3 -c "
import os, sys
for i in range(10):
    open(\"pwarm%d\" % i, \"w\").close()
os.fchdir(os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY))
try:
    open(\"after-fchdir\", \"w\").close()
    print(\"FCHDIR WROTE\")
except OSError as e:
    print(\"FCHDIR REFUSED\", e.errno)
" "$1"'
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" sh "$WT_CANARY"
assert_eq "exit status" 0 "$WT_STATUS"
[ -n "$WT_RUN" ] || die "no run id"
assert_grep "the write after cd is refused" '^CD REFUSED' "$WT_ARTIFACTS/out"
assert_grep "a write back in /work goes through" '^BACK OK' "$WT_ARTIFACTS/out"
assert_grep "the write after fchdir is refused by the policy (EACCES)" \
    '^FCHDIR REFUSED 13' "$WT_ARTIFACTS/out"
rd=$(run_dir "$WT_RUN")
assert_file_content "work/back-in-work" "y" "$rd/work/back-in-work"
assert_absent "nothing written after cd" "$WT_CANARY/after-cd"
assert_absent "nothing written after fchdir" "$WT_CANARY/after-fchdir"
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "the write after cd, judged in the host folder" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"deny\" and .subject == \"$WT_CANARY/after-cd\""
assert_log "the write after fchdir, judged in the host folder" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"deny\" and .subject == \"$WT_CANARY/after-fchdir\""
assert_eq "writes in /work recorded" 0 \
    "$(log_count "$WT_ARTIFACTS/log.json" '(.subject // "") | test("^/work/")')"
canary_untouched
finish
