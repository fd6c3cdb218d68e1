#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# [record] journal = yes and syslog = yes: every recorded event is also
# sent to journald (its native protocol, fields WARD_*) and to syslog
# (RFC 5424). journald does not run in CI containers: the test binds a
# fake of each, unix datagram sockets named by WARD_JOURNAL_SOCKET and
# WARD_SYSLOG_SOCKET, read by a python listener. Then the listener stops
# reading: the run goes on (nothing blocks), the drops are said at its end.
. "$(dirname "$0")/lib.sh"

cat >"$WT_SCRATCH/listen.py" <<'PY'
#!/usr/bin/env python3
"""A fake journald and syslog for t-journal: binds unix datagram sockets
and writes each datagram received as one JSON line (journal: its fields,
the native protocol's binary form understood; syslog: the line as text).

usage: journal-listen.py JOURNAL_SOCK SYSLOG_SOCK OUT_JOURNAL OUT_SYSLOG
"""
import json
import os
import select
import socket
import struct
import sys


def parse_native(d):
    fields = {}
    i = 0
    while i < len(d):
        nl = d.index(b"\n", i)
        line = d[i:nl]
        if b"=" in line:
            k, v = line.split(b"=", 1)
            i = nl + 1
        else:
            k = line
            (n,) = struct.unpack("<Q", d[nl + 1:nl + 9])
            v = d[nl + 9:nl + 9 + n]
            if d[nl + 9 + n:nl + 10 + n] != b"\n":
                raise ValueError("binary field not ended by a newline")
            i = nl + 10 + n
        fields[k.decode()] = v.decode("utf-8", "backslashreplace")
    return fields


def main():
    jpath, spath, jout, sout = sys.argv[1:5]
    socks = []
    for p in (jpath, spath):
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(p)
        socks.append(s)
    outs = {socks[0]: open(jout, "a"), socks[1]: open(sout, "a")}
    while True:
        r, _, _ = select.select(socks, [], [])
        for s in r:
            d = s.recv(1 << 20)
            if s is socks[0]:
                try:
                    rec = parse_native(d)
                except Exception as e:  # noqa: BLE001 - written down for the test
                    rec = {"_error": str(e)}
            else:
                rec = {"line": d.decode("utf-8", "backslashreplace")}
            outs[s].write(json.dumps(rec) + "\n")
            outs[s].flush()


main()
PY

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask' \
    '[record]' 'journal = yes' 'syslog = yes'
J=$WT_SCRATCH/journal.sock S=$WT_SCRATCH/syslog.sock
JO=$WT_ARTIFACTS/journal.jsonl SO=$WT_ARTIFACTS/syslog.jsonl
: >"$JO"; : >"$SO"
python3 "$WT_SCRATCH/listen.py" "$J" "$S" "$JO" "$SO" 2>"$WT_ARTIFACTS/listen.err" &
lpid=$!
WT_BG_PIDS+=("$lpid")
wait_for 5 test -S "$S" || die "the fake journal did not bind its sockets"
export WARD_JOURNAL_SOCKET=$J WARD_SYSLOG_SOCKET=$S

prog='
if echo new > "$1/file"; then echo "WROTE"; else echo "DENIED"; fi
echo DONE'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" sh "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err"
st=0
"$WARD" deny "$WT_RUN" "$WT_REQ" >"$WT_ARTIFACTS/deny" 2>&1 </dev/null || st=$?
assert_eq "ward deny exit status" 0 "$st"
ward_wait 30
assert_eq "exit status" 0 "$WT_STATUS"

j_has() { jq -e -s "map(select($1)) | length > 0" "$JO" >/dev/null 2>&1; }
assert_journal() {
	if wait_for 3 j_has "$2"; then
		note "ok: $1"
	else
		show "journal" "$JO"
		fail "$1: no journal entry matching $2"
	fi
}
uid=$(id -u)
assert_journal "the run's start" ".WARD_RUN == \"$WT_RUN\" and .WARD_KIND == \"run\" and .WARD_SUBJECT == \"start\" and .SYSLOG_IDENTIFIER == \"ward\""
assert_journal "the request, asked" ".WARD_RUN == \"$WT_RUN\" and .WARD_KIND == \"write\" and .WARD_VERDICT == \"ask\" and .WARD_STATE == \"asked\" and .WARD_REQUEST == \"$WT_REQ\" and .WARD_SUBJECT == \"$WT_CANARY/file\""
assert_journal "the decision with every field" ".WARD_RUN == \"$WT_RUN\" and .WARD_KIND == \"write\" and .WARD_VERDICT == \"deny\" and .WARD_HOW == \"person\" and .WARD_STATE == \"done\" and .WARD_REQUEST == \"$WT_REQ\" and (.WARD_DECIDED_BY | test(\"^uid $uid .*via cli\$\")) and (.WARD_WAIT_MS | tonumber > 0) and (.MESSAGE | test(\"^run $WT_RUN write deny: \")) and .PRIORITY == \"5\""
assert_journal "the run's end" ".WARD_RUN == \"$WT_RUN\" and .WARD_KIND == \"run\" and .WARD_SUBJECT == \"exit\""
if jq -e -s 'all(.[]; has("_error") | not) and all(.[]; .MESSAGE | test("\n") | not)' "$JO" >/dev/null; then
	note "ok: every datagram is the native protocol, MESSAGE one line"
else
	fail "a journal datagram did not parse, or a MESSAGE has a newline"
fi
# syslog: RFC 5424, structured data with the same fields.
re="^<13>1 [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\.[0-9]{3}Z [^ ]+ ward [0-9]+ - \\[ward@32473 run=\"$WT_RUN\" kind=\"write\" verdict=\"deny\" how=\"person\" subject=\"[^\"]*/file\" decided_by=\"uid $uid [^\"]*\" wait_ms=\"[0-9]+\" request=\"$WT_REQ\" state=\"done\"\\] run $WT_RUN write deny: "
if wait_for 3 sh -c 'jq -r .line "$1" | grep -Eq -- "$2"' sh "$SO" "$re"; then
	note "ok: the syslog line is RFC 5424 with the fields"
else
	show "syslog" "$SO"
	fail "no RFC 5424 syslog line for the decision"
fi
# The record is still the record.
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "the sqlite record has the decision" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"deny\" and .how == \"person\" and ((.request_id|tostring) == \"$WT_REQ\")"

# journal = no: nothing sent.
before=$(wc -l <"$JO")
write_policy "$WT_SCRATCH/off.ini" '[record]' 'journal = no'
ward_bg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" \
    run --headless --policy "$WT_SCRATCH/off.ini" -- true
ward_wait 30
sleep 0.3
assert_eq "journal = no sends nothing" "$before" "$(wc -l <"$JO")"

# A journal that reads nothing: the run is not slowed, the drops are said.
kill -STOP "$lpid"
write_policy "$WT_SCRATCH/flood.ini" '[record]' 'journal = yes'
t0=$(now_ms)
ward_bg "$WT_ARTIFACTS/out3" "$WT_ARTIFACTS/err3" \
    run --headless --policy "$WT_SCRATCH/flood.ini" -- sh -c 'i=0; while [ $i -lt 600 ]; do /bin/true; i=$((i+1)); done'
ward_wait 60
kill -CONT "$lpid"
assert_eq "flood run exit status" 0 "$WT_STATUS"
note "600 execs recorded with a stalled journal in $(($(now_ms) - t0)) ms"
assert_grep "the drops are said at the end" '^ward(-supervisor)?: journal: [0-9]+ events of run [0-9a-f]{8} not sent' "$WT_ARTIFACTS/err3"
kill "$lpid" 2>/dev/null || true
finish
