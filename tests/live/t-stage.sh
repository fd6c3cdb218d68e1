#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The stage answer (`ward stage RUN ID`) to a write outside: the program
# writes a copy of the host file kept in the run folder, as if on the
# host; the host file stays byte for byte (and mtime, inode) what it was
# while the run goes on and after it; a later open of the same path is
# staged again unasked; a request that opens no file cannot be staged;
# `ward diff` shows the change by its absolute path, `ward apply` then
# writes it (mode kept, before-image kept) and `ward undo` restores it.
. "$(dirname "$0")/lib.sh"

make_canary
chmod 640 "$WT_CANARY/file"
WT_CANARY_STAT=$(stat -c '%s %Y %i' "$WT_CANARY/file")
printf 'keep me\n' >"$WT_CANARY/other"
write_policy "$WT_SCRATCH/policy.ini" \
    '[run]' 'ask_timeout = 60' '[files]' 'write = ask'

# Two appends to the canary (the second must not ask), then a removal
# (asks: cannot be staged, denied), then wait for "go".
prog='
if echo two >> "$1/file"; then echo "WROTE1"; else echo "DENIED1"; fi
if echo three >> "$1/file"; then echo "WROTE2"; else echo "DENIED2"; fi
if rm -f "$1/other"; then echo "REMOVED"; else echo "KEPT"; fi
i=0; while [ ! -e "$1/go" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
echo "DONE"'
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c "$prog" sh "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err"
assert_eq "pending subject" "$WT_CANARY/file" "$WT_REQ_PATH"
first=$WT_REQ

st=0
"$WARD" stage "$WT_RUN" "$first" >"$WT_ARTIFACTS/stage" 2>&1 </dev/null || st=$?
assert_eq "ward stage exit status" 0 "$st"
assert_grep "ward stage says so" "^staged $WT_RUN $first\$" "$WT_ARTIFACTS/stage"
wait_for 10 grep -q '^WROTE2' "$WT_ARTIFACTS/out" || true
assert_grep "the program's first write succeeded" '^WROTE1\r?$' "$WT_ARTIFACTS/out"
assert_grep "the second open was staged unasked" '^WROTE2\r?$' "$WT_ARTIFACTS/out"
canary_untouched
R=$(run_dir "$WT_RUN")
assert_file_content "the staged copy" "$(printf 'old\ntwo\nthree')" \
    "$R/outside/upper$WT_CANARY/file"

# The removal: a request, but nothing to stage.
want_rm() { grep -Eq "request [0-9]+ pending: write $WT_CANARY/other " "$WT_ARTIFACTS/err"; }
wait_for 10 want_rm || { show "ward stderr" "$WT_ARTIFACTS/err"; die "no request for the removal"; }
second=$(grep -E "request [0-9]+ pending: write $WT_CANARY/other " "$WT_ARTIFACTS/err" |
    sed -nE 's/.* request ([0-9]+) pending.*/\1/p' | head -n 1)
st=0
"$WARD" stage "$WT_RUN" "$second" >"$WT_ARTIFACTS/stage2" 2>&1 </dev/null || st=$?
assert_eq "ward stage of a removal exit status" 1 "$st"
assert_grep "ward stage says why" 'only a write that opens a file can be staged' \
    "$WT_ARTIFACTS/stage2"
st=0
"$WARD" deny "$WT_RUN" "$second" >"$WT_ARTIFACTS/deny" 2>&1 </dev/null || st=$?
assert_eq "ward deny of the removal" 0 "$st"
wait_for 10 grep -q '^KEPT' "$WT_ARTIFACTS/out" || true
assert_grep "the removal was denied" '^KEPT\r?$' "$WT_ARTIFACTS/out"

touch "$WT_CANARY/go"
ward_wait 30
assert_eq "exit status" 0 "$WT_STATUS"
assert_grep "the program ran to its end" '^DONE\r?$' "$WT_ARTIFACTS/out"
canary_untouched
assert_file_content "the other file" "keep me" "$WT_CANARY/other"

log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "the stage answer by a person" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"stage\" and .how == \"person\" and .subject == \"$WT_CANARY/file\" and ((.request_id|tostring) == \"$first\")"
assert_log "the second open staged for the run" "$WT_ARTIFACTS/log.json" \
    ".verdict == \"stage\" and .how == \"run-rule\" and .subject == \"$WT_CANARY/file\""

# --- ward diff: the change by its absolute path --------------------------
st=0
"$WARD" diff "$WT_RUN" --color=never >"$WT_ARTIFACTS/diff" 2>"$WT_ARTIFACTS/diff.err" </dev/null || st=$?
assert_eq "ward diff exit status" 0 "$st"
assert_grep "diff names the file from /" "^diff --git a$WT_CANARY/file b$WT_CANARY/file\$" "$WT_ARTIFACTS/diff"
assert_grep "diff adds the staged lines" '^\+two$' "$WT_ARTIFACTS/diff"
assert_grep "diff adds the staged lines" '^\+three$' "$WT_ARTIFACTS/diff"
assert_grep "diff says how to apply it" 'patch -p1 -d /' "$WT_ARTIFACTS/diff"
"$WARD" diff "$WT_RUN" --stat >"$WT_ARTIFACTS/stat" 2>&1 </dev/null || true
assert_grep "diff --stat names the absolute path" "^ $WT_CANARY/file \\(modified\\) \\| \\+2 -0" "$WT_ARTIFACTS/stat"
# The patch applies with patch -p1 -d DIR to a pristine copy at that
# path below DIR (as patch -p1 -d / would to the host).
mkdir -p "$WT_SCRATCH/root$WT_CANARY"
cp -p "$WT_CANARY/file" "$WT_SCRATCH/root$WT_CANARY/file"
st=0
patch -s -p1 -d "$WT_SCRATCH/root" <"$WT_ARTIFACTS/diff" >"$WT_ARTIFACTS/patch.out" 2>&1 || st=$?
assert_eq "patch -p1 exit status" 0 "$st"
assert_file_content "the patched copy" "$(printf 'old\ntwo\nthree')" "$WT_SCRATCH/root$WT_CANARY/file"
canary_untouched

# --- ward apply, ward undo -------------------------------------------------
st=0
"$WARD" apply "$WT_RUN" "$WT_CANARY/file" >"$WT_ARTIFACTS/apply" 2>&1 </dev/null || st=$?
assert_eq "ward apply exit status" 0 "$st"
assert_grep "apply says so" "^applied $WT_CANARY/file \\(modified\\)" "$WT_ARTIFACTS/apply"
assert_file_content "host file after apply" "$(printf 'old\ntwo\nthree')" "$WT_CANARY/file"
assert_eq "mode kept" 640 "$(stat -c %a "$WT_CANARY/file")"
assert_file_content "before-image" "old" "$R/before$WT_CANARY/file"
[ -e "$R/outside/upper$WT_CANARY/file" ] && fail "still staged after apply" || note "ok: no longer staged"
st=0
"$WARD" undo "$WT_RUN" >"$WT_ARTIFACTS/undo" 2>&1 </dev/null || st=$?
assert_eq "ward undo exit status" 0 "$st"
assert_file_content "host file after undo" "old" "$WT_CANARY/file"
assert_eq "mode after undo" 640 "$(stat -c %a "$WT_CANARY/file")"
finish
