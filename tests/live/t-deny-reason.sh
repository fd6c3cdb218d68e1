#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A deny with a reason is said on ward's own stderr, never written through
# the program's fd 2: here fd 2 is an O_PATH descriptor of a 0600 file the
# program cannot write (root's, when ward runs as root) in a writable
# folder. Before: the supervisor reopened /proc/PID/fd/2 for writing with
# its own credentials and overwrote the start of that file.
. "$(dirname "$0")/lib.sh"

make_canary
wr=$WT_SCRATCH/wr
mkdir -p "$wr"
printf 'CANARY-CONTENT-0123456789\n' >"$wr/secret"
chmod 0600 "$wr/secret"
sum0=$(sha256sum <"$wr/secret")
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask' "writable = $wr"

prog='
import os, sys
fd = os.open(sys.argv[1] + "/secret", os.O_PATH)
os.dup2(fd, 2)
try:
    open(sys.argv[2] + "/file", "w").write("new\n")
    print("WROTE", flush=True)
except OSError as e:
    print("DENIED", e.errno, flush=True)
# the old supervisor told the reason after the answer: stay for it
import time; time.sleep(0.5)
'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- python3 -c "$prog" "$wr" "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err"
st=0
"$WARD" deny --reason "not allowed here" "$WT_RUN" "$WT_REQ" \
    >"$WT_ARTIFACTS/deny" 2>&1 </dev/null || st=$?
assert_eq "ward deny exit status" 0 "$st"
ward_wait 30
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program saw EACCES" '^DENIED 13' "$WT_ARTIFACTS/out"
canary_untouched
assert_eq "the 0600 file behind fd 2 is unchanged" "$sum0" "$(sha256sum <"$wr/secret")"
assert_grep "the reason on ward's own stderr" '^ward: denied: not allowed here$' \
    "$WT_ARTIFACTS/err"
finish
