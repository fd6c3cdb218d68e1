#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward's front (tui/front.c): libc alone; a headless run becomes
# ward-supervisor in one exec; everything else is ward-tui's, with its
# argv and its exit status; a front without its programs says so.
. "$(dirname "$0")/lib.sh"

# --- what it links ---------------------------------------------------------
needed=$(readelf -d "$WARD" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
    grep -vE '^lib(asan|ubsan)\.' | tr '\n' ' ')
[ "${WARD_SANITIZE:-0}" = 1 ] && note "sanitized: libasan and libubsan not counted"
assert_eq "ward needs only libc" "libc.so.6 " "$needed"

# --- a headless run: the front becomes the supervisor ----------------------
for how in --headless no-terminal; do
	args=(run --headless -- sh -c 'sleep 3011')
	[ "$how" = no-terminal ] && args=(run -- sh -c 'sleep 3011')
	ward_bg "$WT_ARTIFACTS/out.$how" "$WT_ARTIFACTS/err.$how" "${args[@]}"
	exe=$(readlink "/proc/$WT_PID/exe" 2>/dev/null || echo gone)
	# ward's own pid is the supervisor's: no ward-tui in between.
	case $exe in
	*/ward-supervisor) note "ok ($how): ward pid $WT_PID is $exe" ;;
	*) fail "ward ($how) pid $WT_PID is $exe, not ward-supervisor" ;;
	esac
	"$WARD" kill "$WT_RUN" >/dev/null 2>&1 || fail "ward kill $WT_RUN"
	ward_wait 10
done
assert_eq "both runs are recorded as ended" 2 \
    "$(sql "SELECT count(*) FROM runs WHERE ended_ms IS NOT NULL AND command LIKE '%sleep 3011%'")"

# --- the rest is ward-tui's ------------------------------------------------
ward_fg "$WT_ARTIFACTS/ver" "$WT_ARTIFACTS/ver.err" --version
assert_eq "ward --version exits" 0 "$WT_STATUS"
assert_grep "ward --version prints ward's" '^ward [0-9]' "$WT_ARTIFACTS/ver"
ward_fg "$WT_ARTIFACTS/pt" "$WT_ARTIFACTS/pt.err" run --headless --pass-through -- true
assert_eq "--headless with --pass-through: ward-tui's usage error" 125 "$WT_STATUS"
assert_grep "and it says why" 'cannot go together' "$WT_ARTIFACTS/pt.err"
ward_fg "$WT_ARTIFACTS/pb" "$WT_ARTIFACTS/pb.err" ps --bogus
assert_eq "ward ps --bogus: ward-tui's status" 2 "$WT_STATUS"
ward_fg "$WT_ARTIFACTS/nr" "$WT_ARTIFACTS/nr.err" run --headless
assert_eq "ward run with no command" 125 "$WT_STATUS"
assert_grep "said by ward-tui" 'no command given' "$WT_ARTIFACTS/nr.err"

# --- a front alone ---------------------------------------------------------
lone=$WT_SCRATCH/lone
mkdir -p "$lone" && cp "$WARD" "$lone/ward"
st=0
PATH=/usr/bin:/bin "$lone/ward" ps >"$WT_ARTIFACTS/lone" 2>"$WT_ARTIFACTS/lone.err" </dev/null || st=$?
assert_eq "a front without ward-tui exits" 125 "$st"
assert_grep "and says what it looked for" 'cannot start ward-tui' "$WT_ARTIFACTS/lone.err"
st=0
PATH=/usr/bin:/bin "$lone/ward" run --headless -- true >"$WT_ARTIFACTS/lone2" \
    2>"$WT_ARTIFACTS/lone2.err" </dev/null || st=$?
assert_eq "a front without ward-supervisor exits" 125 "$st"
assert_grep "and says so" 'cannot start ward-supervisor' "$WT_ARTIFACTS/lone2.err"
finish
