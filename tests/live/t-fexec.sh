#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Exec through the program's own fd table: fexecve of an O_PATH and an
# O_RDONLY fd, execve of /proc/self/fd/N, /proc/thread-self/fd/N and
# /dev/fd/N, a memfd copy of a binary (by fexecve and by /proc/self/fd/N).
# Each runs, and the record names what ran (the file, or memfd:NAME); an
# fd that is not open still gets the kernel's ENOENT.
. "$(dirname "$0")/lib.sh"

helper=$(cd "$(dirname "$0")" && pwd)/fexec
[ -x "$helper" ] || die "$helper is missing (make tests builds tests/live/fexec.c)"
echo_real=$(readlink -f /bin/echo)

modes="fexecve-path fexecve-rdonly proc-self thread-self dev-fd memfd memfd-proc"
prog=''
for m in $modes absent; do
	prog+="$helper $m; "
done
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --in "$(dirname "$helper")" -- sh -c "${prog}echo done"
assert_eq "exit status" 0 "$WT_STATUS"
[ -n "$WT_RUN" ] || { show "ward stderr" "$WT_ARTIFACTS/err"; die "no run id"; }
tr -d '\r' <"$WT_ARTIFACTS/out" >"$WT_ARTIFACTS/out.txt"
for m in $modes; do
	assert_grep "$m ran" "^ran-$m\$" "$WT_ARTIFACTS/out.txt"
done
assert_grep "an fd not open: the kernel's ENOENT" '^absent: ENOENT$' "$WT_ARTIFACTS/out.txt"

# What ran, in the record: the file's path or memfd:NAME, never the
# /proc/self path nor "/memfd:... (deleted)".
execs() {
	sql "SELECT subject || '|' || coalesce(rule, '') FROM events
	    WHERE run = '$WT_RUN' AND kind = 'exec' AND detail = 'echo ran-$1'"
}
for m in fexecve-path fexecve-rdonly proc-self thread-self dev-fd; do
	assert_eq "$m recorded as the file" "$echo_real" "$(execs "$m" | cut -d'|' -f1)"
done
for m in proc-self dev-fd; do
	assert_grep "$m: the record says through which fd" \
	    '^[^|]*\|exec through fd [0-9]+ \((/proc/self|/dev)/fd/[0-9]+\)$' <(execs "$m")
done
for m in memfd memfd-proc; do
	assert_eq "$m recorded as memfd:NAME" \
	    "memfd:ward-live-echo|exec from memory (memfd)" "$(execs "$m")"
done
assert_eq "the absent fd ran nothing" "" \
    "$(sql "SELECT subject FROM events WHERE run = '$WT_RUN' AND kind = 'exec' AND detail LIKE '%ran-absent'")"
finish
