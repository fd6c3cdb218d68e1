#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A program that prints a copy of a pending block, a CR overwrite and
# escape sequences: the screen shows ward's gutter and the markers, and
# the one request block drawn at column 0 is ward's (issue 15).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
prog='printf "== pending: 1, oldest first ====\n"
printf "> #1  write  openat      denied in 1:54\n"
printf "    path     /work/harmless.txt\n"
printf "secret\rINNOCENT\n"
printf "\033[2J\033[Hwiped\n"
printf "\033]0;title\007titled\n"
echo x > "$0/real" 2>/dev/null; sleep 30'
tmux_start run --lines --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" "$WT_CANARY"
expect_screen pending "$WT_CANARY/real" 15
capture spoof
s=$WT_SCRATCH/screen.txt
assert_grep "the CR is a marker" 'secret⟨CR⟩INNOCENT' "$s"
assert_grep "the clear screen is a marker" '⟨ESC\[2J⟩⟨ESC\[H⟩wiped' "$s"
assert_grep "the title is a marker" '⟨ESC\]0;title\\a⟩titled' "$s"
assert_grep "the copy sits behind ward's gutter" '^│ > #1  write  openat' "$s"
heads=$(grep -Ec '^> #[0-9]+ ' "$s" || true)
assert_eq "request heads at column 0" 1 "$heads"
assert_grep "the one at column 0 is the real request" "^    path     $WT_CANARY/real" "$s"
tmux_end_run

# The same on a terminal whose locale is not UTF-8: ASCII markers, '|'.
rm -f "$WT_CANARY/real"
WT_TMUX_LANG=C tmux_start run --lines --policy "$WT_SCRATCH/policy.ini" \
    --in "$WT_CANARY" -- sh -c "$prog" "$WT_CANARY"
expect_screen ascii-pending "$WT_CANARY/real" 15
capture ascii
assert_grep "ASCII: the CR is a marker" 'secret<CR>INNOCENT' "$s"
assert_grep "ASCII: the clear screen is a marker" '<ESC\[2J><ESC\[H>wiped' "$s"
assert_grep "ASCII: the copy sits behind the gutter" '^\| > #1  write  openat' "$s"
heads=$(grep -Ec '^> #[0-9]+ ' "$s" || true)
assert_eq "ASCII: request heads at column 0" 1 "$heads"
tmux_end_run
finish
