#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward console --view`: read-only. Its answer keys answer nothing (the
# keys line says "view only"), and the supervisor refuses decide and kill
# from a client whose hello said role "view" (PROTOCOL.md). Another
# console's answer then shows who answered (issue 15).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c 'echo x > "$0/f" 2>/dev/null && echo WROTE; sleep 30' "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err"

tmux_start console --view "$WT_RUN"
expect_screen view 'view only: no answers' 15
expect_screen pending "$WT_CANARY/f" 5
sleep 1
for k in K y d a; do
	tm send-keys -t ward "$k"
	sleep 0.6
done
capture keys
assert_grep "the console says it cannot answer" 'view only: this console cannot answer' "$WT_SCRATCH/screen.txt"
[ ! -e "$WT_CANARY/f" ] || fail "a view console's a wrote the file"
kill -0 "$WT_PID" 2>/dev/null || fail "a view console's K killed the run"

# The supervisor itself refuses a view client's decide and kill.
cat >"$WT_SCRATCH/ctl.py" <<'PY'
import json, socket, struct, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
for m in sys.argv[2:]:
    b = m.encode()
    s.sendall(struct.pack(">I", len(b)) + b)
end, buf = time.time() + 2, b""
s.settimeout(0.2)
while time.time() < end:
    try:
        d = s.recv(65536)
    except socket.timeout:
        continue
    if not d:
        break
    buf += d
    while len(buf) >= 4 and len(buf) >= 4 + struct.unpack(">I", buf[:4])[0]:
        n = struct.unpack(">I", buf[:4])[0]
        msg = json.loads(buf[4:4 + n])
        buf = buf[4 + n:]
        if msg.get("type") == "ack":
            print(json.dumps(msg), flush=True)
PY
python3 "$WT_SCRATCH/ctl.py" "$XDG_RUNTIME_DIR/ward/$WT_RUN.sock" \
    '{"type":"hello","version":1,"client":"console","watch":false,"role":"view"}' \
    "{\"type\":\"decide\",\"request\":$WT_REQ,\"verdict\":\"allow\"}" \
    '{"type":"kill"}' >"$WT_ARTIFACTS/acks" 2>&1 || true
n=$(grep -c '"ok": false.*view only\|view only.*"ok": false' "$WT_ARTIFACTS/acks" || true)
if [ "$n" = 2 ]; then
	note "ok: decide and kill refused: view only"
else
	show "acks" "$WT_ARTIFACTS/acks"
	fail "the supervisor did not refuse a view client's decide and kill"
fi
[ ! -e "$WT_CANARY/f" ] || fail "a view client's decide wrote the file"
kill -0 "$WT_PID" 2>/dev/null || fail "a view client's kill killed the run"

# Another (answering) client answers: the view console shows who.
"$WARD" approve "$WT_RUN" "$WT_REQ" >/dev/null 2>&1 || fail "ward approve failed"
expect_screen answered "allow \\(person, uid [0-9]+ \\(" 10
wait_for 5 test -e "$WT_CANARY/f" || fail "the approved write did not happen"
"$WARD" kill "$WT_RUN" >/dev/null 2>&1 || true
ward_wait 15
finish
