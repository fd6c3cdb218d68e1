#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The on-call operator's scenario of issue 31, in a real terminal (tmux):
# N headless runs (WARD_SCENARIO_RUNS, 8 by default; the issue's 20 by
# hand) each ask three things at once, by the same program: a write into
# a folder outside (the canary's out/), the name names.test, and a
# `pip install wardtiny` (from a loopback index nobody serves: the
# install is asked before pip runs); one run more floods 500 writes
# (WARD_SCENARIO_FLOOD) and 2 s later writes ~/.ssh/authorized_keys, its
# HOME a folder of the canary. One `ward console` (no RUN) shows them;
# the test clears it as an operator would, reading the selected line and
# pressing its key: the writes outside allowed (a), everything else
# denied (d), y after a line's question. It checks that the first line
# shown, and selected, is the authorized_keys write; that the record
# has every request answered as intended, by a person in the console,
# the authorized_keys deny first of all; that the allowed files are
# there and authorized_keys is not; and that it took under 20 keys. The
# keys and seconds are in $WT_ARTIFACTS/measure.txt (against an older
# build, WARD_BIN_DIR=..., the same loop gives the "before" figures; the
# checks then fail).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux-lib.sh"

N=${WARD_SCENARIO_RUNS:-8}
FLOOD=${WARD_SCENARIO_FLOOD:-500}
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
"$PY" -m pip --version >/dev/null 2>&1 || skip "no pip for $PY"

make_canary
mkdir -p "$WT_CANARY/out" "$WT_CANARY/flood" "$WT_CANARY/home/.ssh" \
    "$WT_CANARY/bin"
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 600' 'pids = 2048' \
    '[files]' 'write = ask' '[network]' 'connect = ask'

# One program for every job: the same command line in every run, so that
# their requests are alike across runs (the subject of the write differs).
# In the canary: the sandbox sees it (--in), not the host's /tmp.
cat >"$WT_CANARY/bin/job.py" <<'EOF'
import os, socket, sys
what, d = sys.argv[1], sys.argv[2]
if what == "write":
    try:
        with open("%s/out/job-%s.txt" % (d, os.urandom(4).hex()), "w") as f:
            f.write("x")
        print("WRITE ok", flush=True)
    except OSError as e:
        print("WRITE refused", e.errno, flush=True)
elif what == "name":
    try:
        socket.getaddrinfo("names.test", 443)
        print("NAME ok", flush=True)
    except socket.gaierror as e:
        print("NAME refused", e.errno, flush=True)
EOF
# Three processes at once, so that the three requests wait together.
cat >"$WT_CANARY/bin/job.sh" <<'EOF'
py=/usr/bin/python3
$py "$1/bin/job.py" write "$1" &
# the resolver keeps asking for 2 minutes (glibc's default gives up
# after 10 s: the request would outlive its asker)
RES_OPTIONS="timeout:30 attempts:4" $py "$1/bin/job.py" name "$1" &
$py -m pip install --no-cache-dir --disable-pip-version-check --no-input \
    --retries 0 --timeout 2 -i http://127.0.0.1:9/simple --target /tmp/lib \
    wardtiny >/dev/null 2>&1
echo "PIP $?"
wait
EOF
cat >"$WT_CANARY/bin/flood.py" <<'EOF'
import os, sys, threading, time
d, n = sys.argv[1], int(sys.argv[2])
def w(p):
    try:
        with open(p, "w") as f:
            f.write("x")
    except OSError:
        pass
ts = [threading.Thread(target=w, args=("%s/flood/f%03d" % (d, i),))
      for i in range(n)]
for t in ts:
    t.start()
time.sleep(2)
w(os.path.expanduser("~/.ssh/authorized_keys"))
for t in ts:
    t.join()
print("FLOOD-DONE", flush=True)
EOF

RUNS=()
for n in $(seq 1 "$N"); do
	ward_bg "$WT_SCRATCH/out.$n" "$WT_SCRATCH/err.$n" run --headless \
	    --name "job$(printf '%02d' "$n")" --policy "$WT_SCRATCH/policy.ini" \
	    --in "$WT_CANARY" -- sh "$WT_CANARY/bin/job.sh" "$WT_CANARY"
	RUNS+=("$WT_RUN")
done
ward_bg "$WT_SCRATCH/out.flood" "$WT_SCRATCH/err.flood" run --headless \
    --name flood --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- env HOME="$WT_CANARY/home" "$PY" "$WT_CANARY/bin/flood.py" \
    "$WT_CANARY" "$FLOOD"
FLOOD_RUN=$WT_RUN

want=$((3 * N + FLOOD + 1))
npending() { "$WARD" pending --no-header 2>/dev/null | wc -l; }
all_asked() { [ "$(npending)" -ge "$want" ]; }
if ! wait_for 60 all_asked; then
	"$WARD" pending >"$WT_ARTIFACTS/pending-short.txt" 2>&1 || true
	cp "$WT_SCRATCH"/out.* "$WT_SCRATCH"/err.* "$WT_ARTIFACTS/" || true
	die "not $want requests pending within 60 s ($(npending))"
fi
"$WARD" pending --long --header >"$WT_ARTIFACTS/pending.txt" 2>&1 </dev/null || true
note "ok: $(npending) requests pending in $((N + 1)) runs"

WT_TMUX_W=200 WT_TMUX_H=50 tmux_start console
expect_screen opened "$want pending in all" 20

# The selected line of the queue: its head ("> [run] ...") and the lines
# under it up to the next head.
sel_block() {
	awk '/^> \[/ { on = 1; print; next }
	    on && /^(  |> )\[/ { exit }
	    on && /^ [^ ]/ { exit }
	    on { print }' "$WT_SCRATCH/screen.txt"
}
# The first line under the queue's header.
first_line() {
	awk 'on { print; exit } /^== pending: / { on = 1 }' \
	    "$WT_SCRATCH/screen.txt"
}
capture first
first_block=$(awk 'on && /^(  |> )\[/ && n++ { exit } on { print }
    /^== pending: / { on = 1 }' "$WT_SCRATCH/screen.txt")
if first_line | grep -q '^> \[' &&
    printf '%s\n' "$first_block" | grep -q '\.ssh/authorized_keys'; then
	note "ok: the first line shown, and selected, is the authorized_keys write"
else
	show "first line" <(printf '%s\n' "$first_block")
	fail "the first line shown is not the authorized_keys write"
fi
if printf '%s\n' "$first_block" | grep -q 'risk .*ssh authorized_keys'; then
	note "ok: with its risk"
else
	fail "the authorized_keys write shows no risk line"
fi

# Clear it: read the selected line, answer it, count every key. As a
# person would: a line whose answer is sent ("allow sent") is waited
# for, not answered again; before a, the line is looked at again after
# the arming time (it may have gone, another in its place); before y,
# the question is read (it must name what was meant, else Esc).
capture_quiet() {
	tm capture-pane -p -J -t ward >"$WT_SCRATCH/screen.txt" 2>/dev/null
}
# The selected line's identity: its run(s) and request ids, never the
# countdown beside them (it changes every second).
sel_head() {
	sel_block | head -n 1 | grep -oE '^> \[[^]]*\] #[0-9]+( \+[0-9]+)?' || true
}
sel_sent() { sel_block | head -n 1 | grep -q ' sent *$'; }
intent() {	# the key the selected line gets: a for the writes outside
	if sel_block | grep -q "$WT_CANARY/out/"; then echo a; else echo d; fi
}
keys=0
t0=$(now_ms)
stuck=0
for i in $(seq 1 $((want + 50))); do
	capture_quiet
	grep -q 'pending: none in any run' "$WT_SCRATCH/screen.txt" && break
	head=$(sel_head)
	if [ -z "$head" ] || sel_sent; then
		sleep 0.05
		continue
	fi
	k=$(intent)
	if [ "$k" = a ]; then
		# armed: shown whole for 0.5 s, no key for 0.4 s
		sleep 0.7
		capture_quiet
		[ "$(sel_head)" = "$head" ] || continue
	fi
	tm send-keys -t ward "$k"
	keys=$((keys + 1))
	if sel_block | head -n 1 | grep -q 'alike'; then
		if wait_for 5 on_screen 'y sends'; then
			q=$(grep -A1 -E '^ (allow|deny) [0-9]+ request' "$WT_SCRATCH/screen.txt" | tr -d '\n')
			if [ "$k" = a ] && ! printf '%s\n' "$q" | grep -q '/out/\*'; then
				capture "wrong-question-$keys"
				tm send-keys -t ward Escape
			else
				tm send-keys -t ward y
			fi
			keys=$((keys + 1))
		else
			capture "no-question-$keys"
		fi
	fi
	# the selection moves on, or the line shows its answer sent
	moved() {
		capture_quiet
		[ "$(sel_head)" != "$head" ] ||
		    grep -q 'pending: none in any run' "$WT_SCRATCH/screen.txt"
	}
	# WARD_SCENARIO_BLIND=1 (for an older build's "before" figures,
	# whose every-run console draws no question): y once more to a
	# question nobody sees
	if [ "${WARD_SCENARIO_BLIND:-}" = 1 ] && ! wait_for 2 moved; then
		tm send-keys -t ward y
		keys=$((keys + 1))
	fi
	if ! wait_for 10 moved; then
		stuck=$((stuck + 1))
		capture "stuck-$keys"
		[ "$stuck" -gt 5 ] && break
	fi
done
t1=$(now_ms)
capture cleared
secs=$(awk -v ms=$((t1 - t0)) 'BEGIN { printf "%.1f", ms / 1000 }')
printf 'runs %d flood %d requests %d keys %d seconds %s\n' "$N" "$FLOOD" \
    "$want" "$keys" "$secs" | tee "$WT_ARTIFACTS/measure.txt"
note "cleared $want requests in $((N + 1)) runs with $keys keys in $secs s"
if [ "$keys" -lt 20 ]; then
	note "ok: under 20 keys"
else
	fail "$keys keys (want under 20)"
fi
left=$(npending)
assert_eq "requests left" 0 "$left"

# The record: what each run was answered, by a person in the console.
for r in "${RUNS[@]}"; do
	log_json "$r" "$WT_ARTIFACTS/log-$r.json"
	f=$WT_ARTIFACTS/log-$r.json
	assert_eq "run $r: its write outside allowed by a person" 1 \
	    "$(log_count "$f" '.kind == "write" and .verdict == "allow" and .how == "person" and (.subject | test("/out/job-")) and (.decided_by | test("via console"))')"
	assert_eq "run $r: names.test denied by a person" 1 \
	    "$(log_count "$f" '.kind == "dns" and .verdict == "deny" and .how == "person" and .subject == "names.test"')"
	assert_eq "run $r: the install denied by a person" 1 \
	    "$(log_count "$f" '.kind == "package" and .verdict == "deny" and .how == "person"')"
done
f=$WT_ARTIFACTS/log-$FLOOD_RUN.json
log_json "$FLOOD_RUN" "$f"
assert_eq "flood: its writes denied by a person" "$FLOOD" \
    "$(log_count "$f" '.kind == "write" and .verdict == "deny" and .how == "person" and (.subject | test("/flood/f"))')"
assert_eq "flood: authorized_keys denied by a person" 1 \
    "$(log_count "$f" '.kind == "write" and .verdict == "deny" and .how == "person" and (.subject | test("authorized_keys$"))')"
assert_absent "authorized_keys on the host" "$WT_CANARY/home/.ssh/authorized_keys"
assert_eq "flood files on the host" 0 "$(find "$WT_CANARY/flood" -type f | wc -l)"
assert_eq "files written outside (one per job)" "$N" \
    "$(find "$WT_CANARY/out" -type f | wc -l)"
# authorized_keys was the first answer of them all (asked at time_ms,
# answered wait_ms later)
ak=$(jq -s '[.[] | select(.how == "person" and (.subject | test("authorized_keys$"))) | .time_ms + .wait_ms] | min' "$f")
first=$(jq -s '[.[] | select(.how == "person") | .time_ms + .wait_ms] | min' "$WT_ARTIFACTS"/log-*.json)
if [ "$ak" != null ] && [ "$ak" = "$first" ]; then
	note "ok: the authorized_keys write was answered first"
else
	fail "the authorized_keys write was not answered first ($ak, first $first)"
fi

tm send-keys -t ward q
wait_for 5 session_gone || tm send-keys -t ward y
wait_for 5 session_gone || true
tmux_stop
for r in "${RUNS[@]}" "$FLOOD_RUN"; do
	"$WARD" kill "$r" >/dev/null 2>&1 || true
done
for p in "${WT_BG_PIDS[@]}"; do
	wait "$p" 2>/dev/null || true
done
finish
