#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hot path keeps the last folder it found free of symlinks (issue 18,
# supervisor/files.c): a folder renamed away and a symlink to /etc put in
# its place, both by paths the hot path does not take (with ".."), are
# seen, so the next write through the old name is judged where it really
# lands (/etc/passwd: denied by the policy and recorded with that path),
# not continued as if the folder were still there (the floor would refuse
# it with EROFS, and the record would not show it). And the names it
# keeps in that folder free of symlinks: a file written again and again,
# then a symlink to /etc/passwd renamed over it, or hard-linked where a
# name was missing, is judged where it leads at the next write.
. "$(dirname "$0")/lib.sh"

write_policy "$WT_SCRATCH/policy.ini" '[files]' 'write = deny'
prog='
import os
W = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
def attempt(label, path, flags):
    try:
        os.close(os.open(path, flags))
        print(label + "WROTE")
    except OSError as e:
        print(label + "REFUSED", e.errno)
os.mkdir("/work/d")
os.mkdir("/work/sub")
for i in range(10):
    open("/work/d/w%d" % i, "w").close()
os.rename("/work/sub/../d", "/work/sub/../d2")
os.symlink("/etc", "/work/sub/../d")
attempt("", "/work/d/passwd", W)
open("/work/d2/after", "w").close()
print("D2 OK")
os.mkdir("/work/e")
for i in range(10):
    open("/work/e/name", "w").close()
    try:
        os.open("/work/e/gap", os.O_WRONLY)
    except FileNotFoundError:
        pass
os.symlink("/etc/passwd", "/work/e/tmp")
os.rename("/work/e/tmp", "/work/e/name")
attempt("NAME ", "/work/e/name", W)
os.symlink("/etc/group", "/work/e/sl")
os.link("/work/e/sl", "/work/e/gap", follow_symlinks=False)
attempt("GAP ", "/work/e/gap", os.O_WRONLY)
'
ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" -- python3 -c "$prog"
assert_eq "exit status" 0 "$WT_STATUS"
[ -n "$WT_RUN" ] || die "no run id"
assert_grep "the write through the planted symlink is refused by the policy (EACCES)" \
    '^REFUSED 13' "$WT_ARTIFACTS/out"
assert_grep "a write in the renamed folder goes through" '^D2 OK' "$WT_ARTIFACTS/out"
rd=$(run_dir "$WT_RUN")
assert_file_content "work/d2/after" "" "$rd/work/d2/after"
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "the write judged where it leads" "$WT_ARTIFACTS/log.json" \
    '.verdict == "deny" and .subject == "/etc/passwd"'
assert_grep "a symlink renamed over a name written ten times is followed to /etc/passwd, refused" \
    '^NAME REFUSED 13' "$WT_ARTIFACTS/out"
assert_grep "a symlink linked where a name was missing is followed to /etc/group, refused" \
    '^GAP REFUSED 13' "$WT_ARTIFACTS/out"
assert_log "that write judged where it leads" "$WT_ARTIFACTS/log.json" \
    '.verdict == "deny" and .subject == "/etc/group"'
finish
