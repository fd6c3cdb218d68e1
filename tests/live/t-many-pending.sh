#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# No program can lock the person out: 40 parked requests whose paths and
# folders are 4 KiB of control characters (six bytes each in JSON) come
# to far more than a frame can hold; `ward pending` still lists them all
# and `ward kill` still ends the run. Before: the welcome went over the
# 1 MiB frame limit, every client was dropped and the run survived
# `ward kill`.
. "$(dirname "$0")/lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 120' '[files]' 'write = ask'
# a 4 KiB folder path of control characters, made on the host
deep=$(python3 - "$WT_CANARY" <<'PY'
import os, sys
name = "".join(chr(1 + i % 31) for i in range(250))
d = sys.argv[1]
for i in range(16):
    d = os.path.join(d, name)
os.makedirs(d)
sys.stdout.write(d.encode("unicode_escape").decode())
PY
)
prog='
import os, sys, threading, time
d = sys.argv[1].encode().decode("unicode_escape")
os.chdir(d)
def w(i):
    try:
        open("f%02d" % i, "w").write("x")
    except OSError:
        pass
for i in range(40):
    threading.Thread(target=w, args=(i,), daemon=True).start()
time.sleep(100)
'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- python3 -c "$prog" "$deep"
count_pending() {
	[ "$(grep -c "^ward: run $WT_RUN request [0-9]* pending: " "$WT_ARTIFACTS/err")" -ge 40 ]
}
wait_for 30 count_pending || die "40 requests were not parked within 30 s"

st=0
"$WARD" pending --json "$WT_RUN" >"$WT_ARTIFACTS/pending.json" \
    2>"$WT_ARTIFACTS/pending.err" </dev/null || st=$?
assert_eq "ward pending --json: exit status" 0 "$st"
assert_eq "ward pending --json lists every request" 40 \
    "$(jq length "$WT_ARTIFACTS/pending.json" 2>/dev/null || echo bad)"
st=0
"$WARD" pending "$WT_RUN" >"$WT_ARTIFACTS/pending" 2>&1 </dev/null || st=$?
assert_eq "ward pending: exit status" 0 "$st"
assert_eq "ward pending rows" 40 "$(wc -l <"$WT_ARTIFACTS/pending")"
st=0
"$WARD" kill "$WT_RUN" >"$WT_ARTIFACTS/kill" 2>&1 </dev/null || st=$?
assert_eq "ward kill: exit status" 0 "$st"
ward_wait 15
assert_eq "exit status (killed)" 137 "$WT_STATUS"
canary_untouched
finish
