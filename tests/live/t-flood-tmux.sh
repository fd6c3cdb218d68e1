#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Floods tamed (issue 15), in a real terminal (tmux): 500 writes into one
# folder and, amid them, one write of an ssh authorized_keys under a
# home-like folder. The console shows the sensitive write first and the
# 500 as one group line; `r` denies it with a typed reason, and the
# group answer denies the other 500 in 3 keys (g d y), the glob shown
# before y. Then `A` shows the exact rule and `y` stores it: the same
# write again is allowed without asking, `ward rules` lists the rule,
# `ward rules revoke` removes it and the next such write is asked again;
# `X` `y` denies it (every pending request of the run).
. "$(dirname "$0")/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"

make_canary
mkdir -p "$WT_CANARY/flood" "$WT_CANARY/home/.ssh" "$WT_CANARY/rule"
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 300' 'pids = 2048' '[files]' 'write = ask'

prog='
import os, sys, threading, time
d = sys.argv[1]
def w(p):
    try:
        with open(p, "w") as f:
            f.write("x")
        return True
    except OSError:
        return False
ts = []
for i in range(500):
    if i == 250:
        ts.append(threading.Thread(target=w,
            args=(d + "/home/.ssh/authorized_keys",)))
        ts[-1].start()
    ts.append(threading.Thread(target=w, args=("%s/flood/f%03d" % (d, i),)))
    ts[-1].start()
for t in ts:
    t.join()
print("FLOOD-DONE", flush=True)
print("FIRST", w(d + "/rule/x"), flush=True)
print("SECOND", w(d + "/rule/x"), flush=True)
while not os.path.exists(d + "/go"):
    time.sleep(0.1)
print("THIRD", w(d + "/rule/x"), flush=True)
time.sleep(300)
'
launch=$WT_SCRATCH/launch.sh
{
	echo 'cd "$1" || exit 99'
	printf '%q run --policy %q --in %q -- python3 -c %q %q\n' "$WARD" \
	    "$WT_SCRATCH/policy.ini" "$WT_CANARY" "$prog" "$WT_CANARY"
	echo 'echo $? > "$2"'
} >"$launch"
cp "$launch" "$WT_ARTIFACTS/launch.sh"

export TMUX_TMPDIR=$WT_SCRATCH
export SHELL=/bin/sh
WT_TMUX_SOCKET=wardtest$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }
status=$WT_SCRATCH/status
tm -f /dev/null new-session -d -s ward -x 100 -y 40 \
    "bash $(printf '%q' "$launch") $(printf '%q' "$WT_SCRATCH") $(printf '%q' "$status")"

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
expect_screen() {	# expect_screen NAME ERE SECONDS
	if wait_for "$3" on_screen "$2"; then
		note "ok: '$2' on screen"
		capture "$1"
	else
		capture "$1"
		show "screen" "$WT_SCRATCH/screen.txt"
		die "'$2' not on screen within $3 s"
	fi
}
n_pending() {	# n_pending [ERE]: pending writes (whose path matches)
	"$WARD" pending 2>/dev/null </dev/null |
	    awk -F'\t' -v re="${1:-.}" '$3 == "write" && $4 ~ re' | wc -l
}
pending_is() { [ "$(n_pending "${2:-.}")" -eq "$1" ]; }
keys=0
key() {	# key KEY...: one keystroke each, counted, a pause after each
	for k in "$@"; do
		tm send-keys -t ward "$k"
		keys=$((keys + 1))
		sleep 0.4
	done
}

wait_for 60 pending_is 501 || { capture flood; die "501 requests not pending within 60 s (have $(n_pending))"; }
note "ok: 501 requests pending"
expect_screen flood '501 in 2 lines' 15
# The sensitive one is drawn above the group.
sens=$(grep -n 'authorized_keys' "$WT_SCRATCH/screen.txt" | head -1 | cut -d: -f1)
grp=$(grep -n '500 alike' "$WT_SCRATCH/screen.txt" | head -1 | cut -d: -f1)
if [ -n "$sens" ] && [ -n "$grp" ] && [ "$sens" -lt "$grp" ]; then
	note "ok: authorized_keys (line $sens) above the group (line $grp)"
else
	fail "authorized_keys not above the group: lines '${sens:-none}' '${grp:-none}'"
fi
assert_grep "its risk is named" 'risk +ssh authorized_keys' "$WT_SCRATCH/screen.txt"

# r: a reason, typed; Enter sends the deny with it.
sleep 1
key g r
tm send-keys -t ward -l 'not my keys'
tm send-keys -t ward Enter
wait_for 15 pending_is 500 || { capture reason; die "the sensitive write still pending after r"; }
note "ok: the sensitive write denied with a reason"
expect_screen reason-said 'denied: not my keys' 10

# The group: g d shows the glob, y denies the 500.
sleep 1
keys=0
key g d
expect_screen group-glob "deny 500 write requests in .*flood/\\*" 5
key y
note "group answer: $keys keys"
[ "$keys" -le 3 ] || fail "the group answer took $keys keys"
wait_for 30 pending_is 0 /flood/ || { capture group; die "$(n_pending /flood/) flood writes still pending after the group answer"; }
note "ok: the group answer denied the rest"
expect_screen flood-done 'FLOOD-DONE' 30
assert_absent "authorized_keys not written" "$WT_CANARY/home/.ssh/authorized_keys"
assert_eq "no flood file written" 0 "$(find "$WT_CANARY/flood" -type f | wc -l)"

# A: the exact rule shown, y stores it.
wait_for 15 pending_is 1 /rule/x || { capture rule; die "the rule write not pending"; }
sleep 1
key A
expect_screen rule-shown "stores the rule: allow write" 5
# the exact rule: the path, whole (the prompt wraps at words)
assert_grep "the rule shown is the path" "(^| )$WT_CANARY/rule/x - y stores it" \
    "$WT_SCRATCH/screen.txt"
key y
expect_screen second 'SECOND True' 15
assert_grep "the first write was allowed" 'FIRST True' "$WT_SCRATCH/screen.txt"
note "ok: the same write again was allowed by the rule, not asked"
assert_file_content "the file written" "x" "$WT_CANARY/rule/x"

"$WARD" rules >"$WT_ARTIFACTS/rules" 2>&1 </dev/null || fail "ward rules failed"
show "ward rules" "$WT_ARTIFACTS/rules"
assert_grep "ward rules lists the rule" "$(printf '\t1\tallow\twrite\t')$WT_CANARY/rule/x\$" \
    "$WT_ARTIFACTS/rules"
run=$(cut -f1 "$WT_ARTIFACTS/rules" | head -1)
st=0
"$WARD" rules revoke "$run" 1 >"$WT_ARTIFACTS/revoke" 2>&1 </dev/null || st=$?
assert_eq "ward rules revoke: exit status" 0 "$st"
"$WARD" rules "$run" >"$WT_ARTIFACTS/rules2" 2>&1 </dev/null || true
assert_eq "no rule left" 0 "$(wc -l <"$WT_ARTIFACTS/rules2")"
st=0
"$WARD" rules revoke "$run" 1 >/dev/null 2>&1 </dev/null || st=$?
assert_eq "revoking a rule that is gone: exit status" 1 "$st"

# After the revoke the same write is asked again.
touch "$WT_CANARY/go"
wait_for 15 pending_is 1 /rule/x || fail "the write after the revoke was not asked"
note "ok: asked again after the revoke"
# X denies every pending request of the run, after y.
sleep 1
key X
expect_screen deny-all 'deny every pending request of this run \(1\)' 5
key y
expect_screen third 'THIRD False' 15
assert_eq "nothing pending after X y" 0 "$(n_pending)"
"$WARD" kill "$run" >/dev/null 2>&1 </dev/null || true
wait_for 15 test -s "$status" || true

log_json "$run" "$WT_ARTIFACTS/log.json"
assert_log "the revoke is recorded" "$WT_ARTIFACTS/log.json" \
    '.kind == "run" and (.subject | startswith("revoke allow write"))'
assert_log "the reason is recorded" "$WT_ARTIFACTS/log.json" \
    '.verdict == "deny" and (.subject | endswith("authorized_keys")) and ((. | tostring) | contains("not my keys"))'
canary_untouched
finish
