#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward run -- ./script.sh` says why it is not found (the sandbox starts in
# an empty /work; host files need --in) and names the --in to add, exit
# 127; --chdir starts the program in an --in folder (pwd prints it) and
# refuses a folder the sandbox does not show (exit 125).
. "$(dirname "$0")/lib.sh"

proj=$WT_SCRATCH/proj
mkdir -p "$proj"
printf '#!/bin/sh\necho "script ran in $(pwd)"\n' >"$proj/script.sh"
chmod +x "$proj/script.sh"
cd "$proj"

# Not found, no --in: why, and the --in that would find it.
ward_fg "$WT_ARTIFACTS/nf.out" "$WT_ARTIFACTS/nf.err" run --headless -- ./script.sh
assert_eq "not found: exit status" 127 "$WT_STATUS"
assert_grep "says it cannot run it" '^ward: cannot run \./script\.sh: No such file or directory' "$WT_ARTIFACTS/nf.err"
assert_grep "says the sandbox starts in /work" 'the sandbox starts in /work' "$WT_ARTIFACTS/nf.err"
assert_grep "names the --in to add and the path to run" \
    "add --in $proj and run $proj/script\\.sh" "$WT_ARTIFACTS/nf.err"

# With --in but still relative to /work: run it by its path, or --chdir.
ward_fg "$WT_ARTIFACTS/nf2.out" "$WT_ARTIFACTS/nf2.err" run --headless --in "$proj" -- ./script.sh
assert_eq "with --in, relative: exit status" 127 "$WT_STATUS"
assert_grep "says to add --chdir" "not in $proj: run $proj/script\\.sh, or add --chdir $proj" \
    "$WT_ARTIFACTS/nf2.err"

# --chdir: the program starts there, and PWD says so.
ward_fg "$WT_ARTIFACTS/cd.out" "$WT_ARTIFACTS/cd.err" run --headless \
    --in "$proj" --chdir "$proj" -- sh -c './script.sh; echo "PWD=$PWD"'
assert_eq "--chdir: exit status" 0 "$WT_STATUS"
tr -d '\r' <"$WT_ARTIFACTS/cd.out" >"$WT_ARTIFACTS/cd.txt"
assert_grep "the script ran in the --in folder" "^script ran in $proj\$" "$WT_ARTIFACTS/cd.txt"
assert_grep "PWD is the --in folder" "^PWD=$proj\$" "$WT_ARTIFACTS/cd.txt"

# A relative --chdir, against our cwd; and the run's own /out.
ward_fg "$WT_ARTIFACTS/rel.out" "$WT_ARTIFACTS/rel.err" run --headless \
    --in . --chdir . -- pwd
assert_eq "--chdir .: exit status" 0 "$WT_STATUS"
assert_eq "--chdir . starts in the folder" "$proj" "$(tr -d '\r' <"$WT_ARTIFACTS/rel.out")"
ward_fg "$WT_ARTIFACTS/out.out" "$WT_ARTIFACTS/out.err" run --headless --chdir /out -- pwd
assert_eq "--chdir /out" "/out" "$(tr -d '\r' <"$WT_ARTIFACTS/out.out")"

# Refused: a host folder the sandbox does not show, one that is missing.
other=$WT_SCRATCH/other
mkdir -p "$other"
ward_fg "$WT_ARTIFACTS/bad.out" "$WT_ARTIFACTS/bad.err" run --headless \
    --in "$proj" --chdir "$other" -- pwd
assert_eq "--chdir to a folder not shown: exit status" 125 "$WT_STATUS"
assert_grep "says why, and the --in that would show it" \
    "^ward: --chdir $other: the sandbox does not show this folder.*add --in $other" \
    "$WT_ARTIFACTS/bad.err"
assert_eq "nothing ran" "" "$(cat "$WT_ARTIFACTS/bad.out")"
ward_fg "$WT_ARTIFACTS/miss.out" "$WT_ARTIFACTS/miss.err" run --headless \
    --chdir "$WT_SCRATCH/missing" -- pwd
assert_eq "--chdir to a missing folder: exit status" 125 "$WT_STATUS"
assert_grep "says it is missing" "^ward: --chdir $WT_SCRATCH/missing: No such file or directory" \
    "$WT_ARTIFACTS/miss.err"
finish
