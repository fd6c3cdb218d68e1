#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `--project DIR` without --chdir starts the program in the project (the
# first one given), so a relative write lands there, staged, and `ward
# diff` shows it; --chdir still says otherwise.
. "$(dirname "$0")/lib.sh"

proj=$WT_SCRATCH/app
other=$WT_SCRATCH/lib
mkdir -p "$proj" "$other"
printf 'one\n' >"$proj/notes.txt"

ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" run --headless \
    --project "$proj" --project "$other" -- \
    sh -c 'pwd; echo "PWD=$PWD"; echo two >> notes.txt'
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "starts in the first project" "^$proj\$" "$WT_ARTIFACTS/out"
assert_grep "PWD says so" "^PWD=$proj\$" "$WT_ARTIFACTS/out"
assert_file_content "the host file is untouched until apply" "one" "$proj/notes.txt"
[ -n "$WT_RUN" ] || die "no run id"
st=0
"$WARD" diff "$WT_RUN" >"$WT_ARTIFACTS/diff" 2>"$WT_ARTIFACTS/diff.err" </dev/null || st=$?
assert_eq "ward diff exit status" 0 "$st"
assert_grep "ward diff shows the relative write" '^\+two$' "$WT_ARTIFACTS/diff"

# --chdir still wins.
ward_fg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" run --headless \
    --project "$proj" --chdir /out -- pwd
assert_eq "with --chdir: exit status" 0 "$WT_STATUS"
assert_grep "--chdir /out wins" '^/out$' "$WT_ARTIFACTS/out2"

# No project: /work, as before.
ward_fg "$WT_ARTIFACTS/out3" "$WT_ARTIFACTS/err3" run --headless -- pwd
assert_grep "no project: /work" '^/work$' "$WT_ARTIFACTS/out3"
finish
