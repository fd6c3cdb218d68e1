#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward's front (supervisor/front.c): a headless run is supervised in
# ward's own process, with the supervisor's libraries and none of
# ward-tui's; everything else is ward-tui's, with its argv and its exit
# status; a front without its programs says so.
. "$(dirname "$0")/lib.sh"

# --- what it links ---------------------------------------------------------
readelf -d "$WARD" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$WT_ARTIFACTS/needed"
assert_grep "ward links the record's library (it supervises)" '^libsqlite3\.' "$WT_ARTIFACTS/needed"
for lib in libncursesw libtinfo libvterm libgit2 libnotify libssl libcrypto; do
	assert_no_grep "ward does not link $lib (ward-tui's or ward-gate's)" "^$lib\." "$WT_ARTIFACTS/needed"
done

# --- a headless run: the front is the supervisor ---------------------------
for how in --headless no-terminal; do
	args=(run --headless -- sh -c 'sleep 3011')
	[ "$how" = no-terminal ] && args=(run -- sh -c 'sleep 3011')
	ward_bg "$WT_ARTIFACTS/out.$how" "$WT_ARTIFACTS/err.$how" "${args[@]}"
	exe=$(readlink "/proc/$WT_PID/exe" 2>/dev/null || echo gone)
	# no ward-tui and no ward-supervisor: the run's socket is ward's own
	# pid's, and no program was started between.
	case $exe in
	*/ward) note "ok ($how): ward pid $WT_PID is $exe" ;;
	*) fail "ward ($how) pid $WT_PID is $exe, not ward" ;;
	esac
	kids=$(pgrep -P "$WT_PID" -f 'ward-(supervisor|tui)' || true)
	assert_eq "ward ($how) started no ward-supervisor or ward-tui" "" "$kids"
	sock=$(ls -l "/proc/$WT_PID/fd" 2>/dev/null | grep -c 'socket:' || true)
	[ "$sock" -gt 0 ] && note "ok ($how): ward pid $WT_PID holds sockets (the run's)" ||
	    fail "ward ($how) pid $WT_PID holds no socket: it is not serving its run"
	"$WARD" kill "$WT_RUN" >/dev/null 2>&1 || fail "ward kill $WT_RUN"
	ward_wait 10
	assert_eq "ward ($how): its status is the killed run's" 137 "$WT_STATUS"
done
assert_eq "both runs are recorded as ended" 2 \
    "$(sql "SELECT count(*) FROM runs WHERE ended_ms IS NOT NULL AND command LIKE '%sleep 3011%'")"

# The supervisor's own options after the front's: a bad --status-fd is
# the supervisor's error, with its status.
ward_fg "$WT_ARTIFACTS/sfd" "$WT_ARTIFACTS/sfd.err" run --headless --status-fd 77 -- true
assert_eq "a bad --status-fd: the supervisor's usage status" 125 "$WT_STATUS"
assert_grep "said by the supervisor" 'status-fd 77: not an open file descriptor' "$WT_ARTIFACTS/sfd.err"

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
write_policy "$WT_SCRATCH/lone.ini" '[files]' 'write = deny'
st=0
PATH=/usr/bin:/bin "$lone/ward" run --headless --policy "$WT_SCRATCH/lone.ini" \
    -- sh -c 'exit 7' >"$WT_ARTIFACTS/lone2" 2>"$WT_ARTIFACTS/lone2.err" </dev/null || st=$?
assert_eq "a front alone supervises a headless run itself (the program's status)" 7 "$st"
finish
