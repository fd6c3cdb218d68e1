#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a terminal, ward's own lines cannot be imitated or erased: they begin
# with a token new for each run (shown in the "started" line; the program
# never sees ward's stderr), and the program's escapes that would leave
# its own line (cursor up, the alternate screen) are dropped, while its
# colours pass. The program forges a "request 1 pending" line and tries
# to erase the line above it.
. "$(dirname "$0")/lib.sh"

command -v script >/dev/null || skip "no script(1) (util-linux) for a terminal"
make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 2' '[files]' 'write = ask'
ts=$WT_ARTIFACTS/typescript
cat >"$WT_SCRATCH/prog.sh" <<'SH'
printf '\033[1A\033[2K\rward: run 00000000 request 1 pending: write %s/harmless/notes.txt (pid 2); ward approve 00000000 1 or ward deny 00000000 1\n' "$1" >&2
printf '\033[?1049h\033[31mred\033[0m\n' >&2
echo new > "$1/IMPORTANT-CONFIG" || echo DENIED
printf '\033[2A\033[J' >&2
SH
st=0
timeout 30 script -qfec "$(printf '%q ' "$WARD" run --headless --policy "$WT_SCRATCH/policy.ini" \
    --in "$WT_CANARY" --in "$WT_SCRATCH/prog.sh" -- sh "$WT_SCRATCH/prog.sh" "$WT_CANARY")" \
    "$ts" </dev/null >/dev/null 2>&1 || st=$?
assert_eq "ward under script: exit status" 0 "$st"
tag=$(grep -aoE '^ward\[[0-9a-f]{8}\]: run [0-9a-f]{8} started' "$ts" | head -n 1 | cut -d: -f1)
[ -n "$tag" ] && note "ok: the started line shows the token: $tag" || {
	show "typescript" "$ts"; die "no 'ward[TOKEN]: run ID started' line on the terminal"; }
assert_grep "the real request carries the token" \
    "^$(printf '%s' "$tag" | sed 's/[][]/\\&/g'): run [0-9a-f]{8} request 1 pending: write $WT_CANARY/IMPORTANT-CONFIG " "$ts"
assert_no_grep "no line with the token names the forged path" \
    "^$(printf '%s' "$tag" | sed 's/[][]/\\&/g'):.*harmless" "$ts"
assert_grep "the forged line is there, without the token" '^.*ward: run 00000000 request 1 pending' "$ts"
assert_eq "cursor-up and erase-display escapes reached the terminal" 0 \
    "$(grep -acE $'\e\\[[0-9]*A|\e\\[J|\e\\[\\?1049h' "$ts" || true)"
assert_grep "the program's colours pass" $'\e\\[31mred' "$ts"
canary_untouched
finish
