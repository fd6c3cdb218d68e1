#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward relay and --host: `ward pending --host` and `ward approve --host`
# reach a run through `ssh HOST ward relay`, and the record names the
# ssh user's uid "via ssh from ADDR". A real sshd on 127.0.0.1 when it
# can run here (its own host key, a user key made by the test, a forced
# command in authorized_keys); else ssh is a script (WARD_SSH) that runs
# `ward relay` with SSH_CONNECTION set, which tests the relay alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

start_sshd() {
	sshd_usable || return 1
	sshd_key user_key "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR" "XDG_STATE_HOME=$XDG_STATE_HOME" || return 1
	sshd_start 1 || return 1
	sshd_alias relayhost "${SSHD_PORTS[0]}" user_key
	if ! sshd_check relayhost; then
		sshd_stop
		return 1
	fi
	WT_VIA="via ssh from 127.0.0.1"
	return 0
}

if start_sshd; then
	note "a real sshd on loopback (pid $sshd_pid)"
	mode=sshd
elif [ "$(id -u)" = 0 ] && [ "${CI:-false}" = true ]; then
	die "as root under CI=true the real sshd must work (see the notes above)"
else
	note "no sshd here: ssh is a script that runs 'ward relay' (the relay alone)"
	mode=fake
	cat >"$WT_SCRATCH/ssh" <<SH
#!/bin/sh
[ "\$1" = -T ] && shift
printf '%s\n' "\$1" >>"$WT_SCRATCH/ssh-hosts"
shift
[ "\$*" = "ward relay" ] || { echo "fake ssh: unexpected command: \$*" >&2; exit 1; }
SSH_CONNECTION="203.0.113.7 40000 127.0.0.1 22" exec "$WARD" relay
SH
	chmod +x "$WT_SCRATCH/ssh"
	export WARD_SSH=$WT_SCRATCH/ssh
	WT_VIA="via ssh from 203.0.113.7"
fi
HOST=relayhost

prog='
if echo new > "$1/file"; then echo "WROTE"; else echo "DENIED"; fi
if echo new > "$1/file2"; then echo "WROTE2"; else echo "DENIED2"; fi
i=0; while [ ! -e "$1/go" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
echo DONE'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" sh "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err"

st=0
"$WARD" pending --host "$HOST" >"$WT_ARTIFACTS/pending" 2>"$WT_ARTIFACTS/pending.err" </dev/null || st=$?
assert_eq "ward pending --host exit status" 0 "$st"
row=$(awk -F '\t' -v r="$WT_RUN" -v n="$WT_REQ" '$1 == r && $2 == n' "$WT_ARTIFACTS/pending")
if [ -n "$row" ]; then
	note "ok: ward pending --host lists run $WT_RUN request $WT_REQ"
else
	show "pending" "$WT_ARTIFACTS/pending"
	show "pending stderr" "$WT_ARTIFACTS/pending.err"
	fail "ward pending --host does not list run $WT_RUN request $WT_REQ"
fi
st=0
"$WARD" pending --json --host "$HOST" "$WT_RUN" >"$WT_ARTIFACTS/pending.json" 2>&1 </dev/null || st=$?
assert_eq "ward pending --json --host RUN exit status" 0 "$st"
if jq -e --arg r "$WT_RUN" --arg p "$WT_CANARY/file" \
    'map(select(.run == $r and .subject == $p)) | length == 1' \
    "$WT_ARTIFACTS/pending.json" >/dev/null 2>&1; then
	note "ok: ward pending --json --host names the request"
else
	show "pending.json" "$WT_ARTIFACTS/pending.json"
	fail "ward pending --json --host RUN does not name the request"
fi

st=0
"$WARD" approve --host "$HOST" "$WT_RUN" "$WT_REQ" >"$WT_ARTIFACTS/approve" 2>&1 </dev/null || st=$?
assert_eq "ward approve --host exit status" 0 "$st"
assert_grep "approve --host says so" "^approved $WT_RUN $WT_REQ\$" "$WT_ARTIFACTS/approve"
wait_for 10 grep -q '^WROTE' "$WT_ARTIFACTS/out" || true
assert_file_content "host file after approve --host" "new" "$WT_CANARY/file"

# The second request: denied through the relay, a second answer refused.
WT_REQ2=$(($WT_REQ + 1))
wait_for 10 grep -qE "request $WT_REQ2 pending" "$WT_ARTIFACTS/err" || true
st=0
"$WARD" deny --host "$HOST" --reason "from afar" "$WT_RUN" "$WT_REQ2" >"$WT_ARTIFACTS/deny" 2>&1 </dev/null || st=$?
assert_eq "ward deny --host exit status" 0 "$st"
st=0
"$WARD" approve --host "$HOST" "$WT_RUN" "$WT_REQ2" >"$WT_ARTIFACTS/approve2" 2>&1 </dev/null || st=$?
assert_eq "second answer through the relay exit status" 1 "$st"
assert_grep "second answer says so" 'already decided' "$WT_ARTIFACTS/approve2"
st=0
"$WARD" approve --host "$HOST" nosuchrun 1 >"$WT_ARTIFACTS/approve3" 2>&1 </dev/null || st=$?
assert_eq "approve --host of an unknown run exit status" 1 "$st"
touch "$WT_CANARY/go"

ward_wait 30
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the denied write failed" '^DENIED2\r?$' "$WT_ARTIFACTS/out"

log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
uid=$(id -u)
assert_log "allow recorded as the ssh user's uid $WT_VIA" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"allow\" and .how == \"person\" and ((.request_id|tostring) == \"$WT_REQ\") and ((.decided_by // \"\") | test(\"^uid $uid .* $WT_VIA\$\"))"
assert_log "deny recorded $WT_VIA" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"deny\" and .how == \"person\" and ((.request_id|tostring) == \"$WT_REQ2\") and ((.decided_by // \"\") | test(\"$WT_VIA\$\"))"

# ward kill --host: recorded via ssh too.
ward_bg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" \
    run --headless --policy "$WT_SCRATCH/policy.ini" -- sleep 60
st=0
"$WARD" kill --host "$HOST" "$WT_RUN" >"$WT_ARTIFACTS/kill" 2>&1 </dev/null || st=$?
assert_eq "ward kill --host exit status" 0 "$st"
ward_wait 15
log_json "$WT_RUN" "$WT_ARTIFACTS/log2.json"
assert_log "kill recorded $WT_VIA" "$WT_ARTIFACTS/log2.json" \
    ".kind == \"run\" and .subject == \"kill\" and ((.decided_by // \"\") | test(\"$WT_VIA\$\"))"

# A link that breaks allows nothing: a relay session that asked for the
# pending requests is killed; the request stays pending on its machine
# and is denied there at its deadline (8 s: the ssh round trip before
# the check must fit in it on a loaded machine).
write_policy "$WT_SCRATCH/short.ini" \
    '[run]' 'ask_timeout = 8' '[files]' 'write = ask'
ward_bg "$WT_ARTIFACTS/out4" "$WT_ARTIFACTS/err4" \
    run --headless --policy "$WT_SCRATCH/short.ini" --in "$WT_CANARY" \
    -- sh -c 'if echo x > "$1/file3"; then echo WROTE3; else echo DENIED3; fi' sh "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err4"
mkfifo "$WT_SCRATCH/link"
python3 - "$WT_RUN" >"$WT_SCRATCH/link" <<'PY' &
import json, struct, sys, time
def frame(o):
    b = json.dumps(o).encode()
    return struct.pack(">I", len(b)) + b
sys.stdout.buffer.write(frame({"type": "relay_to", "run": sys.argv[1],
    "msg": {"type": "hello", "version": 1, "client": "cli", "watch": True}}))
sys.stdout.buffer.flush()
time.sleep(60)
PY
feeder=$!
WT_BG_PIDS+=("$feeder")
"$WARD_SSH" -T "$HOST" ward relay <"$WT_SCRATCH/link" >"$WT_ARTIFACTS/link.out" 2>"$WT_ARTIFACTS/link.err" &
link=$!
WT_BG_PIDS+=("$link")
wait_for 5 test -s "$WT_ARTIFACTS/link.out" || true
if [ -s "$WT_ARTIFACTS/link.out" ]; then
	note "ok: the relay session got its welcome"
else
	show "link stderr" "$WT_ARTIFACTS/link.err"
	fail "no welcome through the relay session"
fi
kill -KILL "$link" "$feeder" 2>/dev/null || true
wait "$link" 2>/dev/null || true
"$WARD" pending "$WT_RUN" >"$WT_ARTIFACTS/pending4" 2>&1 </dev/null || true
assert_grep "still pending on its machine after the link broke" "^$WT_RUN	$WT_REQ	write	" "$WT_ARTIFACTS/pending4"
ward_wait 20
assert_grep "denied at its deadline" '^DENIED3\r?$' "$WT_ARTIFACTS/out4"
log_json "$WT_RUN" "$WT_ARTIFACTS/log4.json"
assert_log "the record says timeout" "$WT_ARTIFACTS/log4.json" \
    ".verdict == \"deny\" and .how == \"timeout\" and ((.request_id|tostring) == \"$WT_REQ\")"

if [ "$mode" = fake ]; then
	assert_grep "ssh was asked for the host" '^relayhost$' "$WT_SCRATCH/ssh-hosts"
fi
sshd_stop
finish
