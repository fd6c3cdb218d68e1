#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Limits that cannot be meant are refused before anything runs (exit 125),
# with the file, line, key and likely intent: `memory = 1024` (1 KiB, every
# program would die of SIGSEGV), `pids = 4`, `--timeout 5M`. At the floors
# themselves a shell, a pipeline and python still run.
. "$(dirname "$0")/lib.sh"

pol=$WT_SCRATCH/limits.ini
write_policy "$pol" '[run]' 'memory = 1024'
ward_fg "$WT_ARTIFACTS/m.out" "$WT_ARTIFACTS/m.err" run --headless --policy "$pol" -- echo ran
assert_eq "memory = 1024: exit status" 125 "$WT_STATUS"
assert_grep "memory = 1024: file, line, key and the likely intent" \
    "^ward: $pol:2: \\[run\\] memory: \"1024\" is 1 KiB, below the 16M minimum; did you mean 1024M\\?\$" \
    "$WT_ARTIFACTS/m.err"
assert_eq "memory = 1024: nothing ran" "" "$(cat "$WT_ARTIFACTS/m.out")"
assert_eq "memory = 1024: no run started" "" "${WT_RUN:-}"

write_policy "$pol" '[run]' 'timeout = 60' 'pids = 4'
ward_fg "$WT_ARTIFACTS/p.out" "$WT_ARTIFACTS/p.err" run --headless --policy "$pol" -- echo ran
assert_eq "pids = 4: exit status" 125 "$WT_STATUS"
assert_grep "pids = 4: line 3, the floor" "^ward: $pol:3: \\[run\\] pids: \"4\" is below the 16 minimum" \
    "$WT_ARTIFACTS/p.err"

ward_fg "$WT_ARTIFACTS/t.out" "$WT_ARTIFACTS/t.err" run --headless --timeout 5M -- echo ran
assert_eq "--timeout 5M: exit status" 125 "$WT_STATUS"
assert_grep "--timeout 5M: did you mean 5m" '^ward: --timeout: "5M" is not a duration; did you mean 5m\?$' \
    "$WT_ARTIFACTS/t.err"

write_policy "$pol" '[run]' 'memory = 16M' 'pids = 16' 'open_files = 64' 'file_size = 1M'
ward_fg "$WT_ARTIFACTS/f.out" "$WT_ARTIFACTS/f.err" run --headless --policy "$pol" -- \
    sh -c 'echo ran | cat; python3 -c "print(6 * 7)"'
assert_eq "at the floors: exit status" 0 "$WT_STATUS"
tr -d '\r' <"$WT_ARTIFACTS/f.out" >"$WT_ARTIFACTS/f.txt"
assert_grep "at the floors: a pipeline ran" '^ran$' "$WT_ARTIFACTS/f.txt"
assert_grep "at the floors: python ran" '^42$' "$WT_ARTIFACTS/f.txt"
finish
