#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every run in one console keeps its runs (issue 15): when a run's
# supervisor drops the console's connection while the run goes on (its
# client table full of newer consoles: it closes the longest idle), the
# console dials the run again within about a second, says it afresh from
# the welcome (the runs pane's watcher count jumps to the newcomers'), and
# an answer given after that still reaches the run.
. "$(dirname "$0")/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"

make_canary
mkdir -p "$WT_SCRATCH/gate"
mkfifo "$WT_SCRATCH/gate/go"
chmod 755 "$WT_SCRATCH/gate"
chmod 666 "$WT_SCRATCH/gate/go"
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 120' '[files]' 'write = ask'
ward_bg "$WT_SCRATCH/out" "$WT_SCRATCH/err" run --headless --name gated \
    --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" --in "$WT_SCRATCH/gate" \
    -- sh -c 'echo a > "$0/one"; read x < "$1/go"; echo b > "$0/two"; sleep 60' \
    "$WT_CANARY" "$WT_SCRATCH/gate"
wait_pending "$WT_SCRATCH/err"

export TMUX_TMPDIR=$WT_SCRATCH
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardtest$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
tm -f /dev/null new-session -d -s ward -x 120 -y 40 \
    "$(printf '%q' "$WARD") console; sleep 5"
shot=0
capture() {
	shot=$((shot + 1))
	tm capture-pane -p -J -t ward >"$WT_ARTIFACTS/screen-$shot-$1.txt" 2>/dev/null || true
	cp "$WT_ARTIFACTS/screen-$shot-$1.txt" "$WT_SCRATCH/screen.txt"
}
on_screen() {
	tm capture-pane -p -J -t ward >"$WT_SCRATCH/screen.txt" 2>/dev/null &&
	    grep -Eq -- "$1" "$WT_SCRATCH/screen.txt"
}
expect_screen() {
	if wait_for "$3" on_screen "$2"; then
		note "ok: '$2' on screen"
		capture "$1"
	else
		capture "$1"
		show "screen" "$WT_SCRATCH/screen.txt"
		die "'$2' not on screen within $3 s"
	fi
}

expect_screen first 'canary/one' 15
expect_screen watched1 'gated .* watched 1 ' 5
sleep 0.8
tm send-keys -t ward d
npending() { "$WARD" pending 2>/dev/null | wc -l; }
none() { [ "$(npending)" -eq 0 ]; }
wait_for 5 none || fail "the first request was not answered from the console"

# 32 newer watching consoles fill the supervisor's table: the console,
# idle longest, is closed.
sock=$XDG_RUNTIME_DIR/ward/$WT_RUN.sock
python3 - "$sock" >"$WT_ARTIFACTS/crowd.log" 2>&1 <<'PY' &
import json, socket, struct, sys, time
held = []
hello = json.dumps({"type": "hello", "version": 1, "client": "console",
                    "watch": True}).encode()
for i in range(32):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    s.sendall(struct.pack(">I", len(hello)) + hello)
    held.append(s)
    time.sleep(0.02)
print("holding", len(held), flush=True)
time.sleep(20)
PY
WT_BG_PIDS+=($!)

# Back from a fresh welcome: the others are counted now.
expect_screen reconnected 'gated .* watched (2|3)[0-9] ' 10
assert_no_grep "not left as gone" 'gated .* gone ' "$WT_SCRATCH/screen.txt"

# An answer after the reconnect reaches the run.
echo go >"$WT_SCRATCH/gate/go"
expect_screen second 'canary/two' 15
sleep 0.8
tm send-keys -t ward d
wait_for 5 none || { capture stuck; fail "the second request was not answered after the reconnect"; }
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
n=$(log_count "$WT_ARTIFACTS/log.json" '.verdict == "deny" and .how == "person" and (.decided_by | test("via console"))')
assert_eq "both denials recorded as a person's in the console" 2 "$n"
assert_absent "the denied writes did not happen" "$WT_CANARY/one"
assert_absent "the second neither" "$WT_CANARY/two"
tm send-keys -t ward q
"$WARD" kill "$WT_RUN" >/dev/null 2>&1 || true
finish
