#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Idle peers cannot hold the control socket: with 40 connections that
# never say a word held open, `ward pending`, `ward approve` and `ward
# kill` still work (the supervisor drops a peer that has not finished its
# hello in 5 s, evicts the longest-idle one when the table is full, and the
# CLI tries again; after 5 s every idle peer is gone). Before: 32 idle
# peers made every verb fail, for as long as they stayed.
. "$(dirname "$0")/lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
prog='echo new > "$1/file" && echo WROTE; echo two > "$1/file2"; echo END'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" sh "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err"

sock=$XDG_RUNTIME_DIR/ward/$WT_RUN.sock
[ -S "$sock" ] || die "no control socket at $sock"
python3 - "$sock" >"$WT_ARTIFACTS/idle.log" 2>&1 <<'PY' &
import socket, sys, time
held = []
for i in range(40):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    held.append(s)
print("holding", len(held), flush=True)
# none says a word: past the hello deadline (5 s) every one is let go
time.sleep(7)
closed = 0
for s in held:
    s.setblocking(False)
    try:
        closed += s.recv(1) == b""
    except BlockingIOError:
        pass
    except OSError:
        closed += 1
print("closed", closed, flush=True)
time.sleep(30)
PY
WT_BG_PIDS+=($!)
wait_for 10 grep -q holding "$WT_ARTIFACTS/idle.log" || die "the idle peers did not connect"

st=0
"$WARD" pending "$WT_RUN" >"$WT_ARTIFACTS/pending" 2>"$WT_ARTIFACTS/pending.err" </dev/null || st=$?
assert_eq "ward pending with 40 idle peers: exit status" 0 "$st"
assert_eq "ward pending lists the request" "$WT_REQ" \
    "$(awk -F '\t' -v r="$WT_RUN" '$1 == r { print $2 }' "$WT_ARTIFACTS/pending")"
st=0
"$WARD" approve "$WT_RUN" "$WT_REQ" >"$WT_ARTIFACTS/approve" 2>&1 </dev/null || st=$?
assert_eq "ward approve with 40 idle peers: exit status" 0 "$st"
wait_for 10 grep -q WROTE "$WT_ARTIFACTS/out" || fail "the approved write did not go on"
wait_for 15 grep -q closed "$WT_ARTIFACTS/idle.log" || fail "the idle peers script did not report"
assert_eq "idle peers let go after the hello deadline" "closed 40" \
    "$(grep closed "$WT_ARTIFACTS/idle.log")"
st=0
"$WARD" kill "$WT_RUN" >"$WT_ARTIFACTS/kill" 2>&1 </dev/null || st=$?
assert_eq "ward kill with 40 idle peers: exit status" 0 "$st"
ward_wait 15
assert_eq "exit status (killed)" 137 "$WT_STATUS"
finish
