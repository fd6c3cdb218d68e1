#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A person's reason reaches the denied process on its own stderr when
# that is a pipe or a socket (an agent's tool reads it there): one line
# "ward: denied: REASON", before the program sees its error. A stderr
# that is a regular file gets nothing (ward writes through no file of
# the program's). Judged from the files the program's readers leave in
# /out and from the host canary.
. "$(dirname "$0")/lib.sh"

make_canary
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

# deny_run NAME PROG: runs PROG (sh -c, $1 the canary folder), denies its
# one write with the reason, waits for the end.
deny_run() {
	local name=$1 prog=$2 st=0
	: >"$WT_ARTIFACTS/$name.err"
	ward_bg "$WT_ARTIFACTS/$name.out" "$WT_ARTIFACTS/$name.err" \
	    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
	    -- sh -c "$prog" sh "$WT_CANARY"
	wait_pending "$WT_ARTIFACTS/$name.err"
	"$WARD" deny --reason "use /out instead" "$WT_RUN" "$WT_REQ" \
	    >"$WT_ARTIFACTS/$name.deny" 2>&1 </dev/null || st=$?
	assert_eq "$name: ward deny exit status" 0 "$st"
	ward_wait 30
	assert_eq "$name: exit status" 0 "$WT_STATUS"
}

# 1. stderr a pipe, read by cat into /out.
deny_run pipe '{ echo new > "$1/file"; } 2>&1 | cat > /out/pipe.txt'
got=$(run_dir "$WT_RUN")/out/pipe.txt
cp "$got" "$WT_ARTIFACTS/pipe.txt" 2>/dev/null || true
assert_grep "the pipe carries the reason" '^ward: denied: use /out instead$' "$got"
first=$(head -n 1 "$got")
assert_eq "the reason comes before the program's own error" \
    "ward: denied: use /out instead" "$first"
assert_grep "then the program's error" 'Permission denied' "$got"
canary_untouched

# 2. stderr a socket (python's socketpair), read back by the program.
prog='python3 - "$1" <<"PY" > /out/sock.txt
import os, socket, sys
a, b = socket.socketpair()
os.dup2(a.fileno(), 2)
try:
    open(sys.argv[1] + "/file", "w").write("new\n")
except OSError as e:
    print("errno", e.errno)
b.settimeout(5)
print(b.recv(4096).decode(), end="")
PY'
deny_run sock "$prog"
got=$(run_dir "$WT_RUN")/out/sock.txt
cp "$got" "$WT_ARTIFACTS/sock.txt" 2>/dev/null || true
assert_grep "the program saw EACCES" '^errno 13$' "$got"
assert_grep "the socket carries the reason" '^ward: denied: use /out instead$' "$got"
canary_untouched

# 3. stderr a regular file: nothing of ward's in it.
deny_run file 'echo new 2>/out/err.txt >"$1/file"; echo done'
got=$(run_dir "$WT_RUN")/out/err.txt
cp "$got" "$WT_ARTIFACTS/err.txt" 2>/dev/null || true
[ -e "$got" ] || die "no $got"
assert_grep "the file has the program's own error" 'Permission denied' "$got"
assert_no_grep "a regular file gets nothing" 'ward: denied' "$got"
assert_grep "ward's own stderr says it" '^ward: denied: use /out instead' "$WT_ARTIFACTS/file.err"
canary_untouched
finish
