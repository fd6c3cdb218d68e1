#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The program's capability bounding set is empty: nothing it execs (a
# setuid or file-capability binary of a bind) can gain a capability.
. "$(dirname "$0")/lib.sh"

ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless -- sh -c 'grep -E "^Cap(Bnd|Eff|Prm|Amb|Inh):" /proc/self/status'
[ "$WT_STATUS" = 0 ] || show "ward stderr" "$WT_ARTIFACTS/err"
assert_eq "exit status" 0 "$WT_STATUS"
tr -d '\r' <"$WT_ARTIFACTS/out" >"$WT_ARTIFACTS/caps"
show "capabilities inside" "$WT_ARTIFACTS/caps"
for c in Bnd Eff Prm Amb Inh; do
	assert_grep "Cap$c is empty" "^Cap$c:[[:space:]]+0+\$" "$WT_ARTIFACTS/caps"
done
finish
