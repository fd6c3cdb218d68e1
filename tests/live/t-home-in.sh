#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A project under the real home folder (HOME is /root or /home/USER here):
# --in ~/p shows its files, writable = ~/p is writable and the host file
# changes. The home itself stays hidden around them.
. "$(dirname "$0")/lib.sh"

case $HOME in
/home/* | /root) ;;
*) note "(HOME=$HOME is not a real home; the test still runs)" ;;
esac
p=$(mktemp -d "$HOME/ward-live-p.XXXXXX")
trap 'rm -rf "$p"; wt_cleanup' EXIT
printf 'hello\n' >"$p/f"
printf 'secret\n' >"$HOME/ward-live-beside.$$"
trap 'rm -rf "$p" "$HOME/ward-live-beside.$$"; wt_cleanup' EXIT

ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --in "$p" -- sh -c "cat '$p/f'; ls -A '$HOME'"
[ "$WT_STATUS" = 0 ] || show "ward stderr" "$WT_ARTIFACTS/err"
assert_eq "exit status (--in ~/p)" 0 "$WT_STATUS"
assert_grep "--in ~/p shows its file" '^hello\r?$' "$WT_ARTIFACTS/out"
assert_no_grep "the rest of the home stays hidden" 'ward-live-beside' "$WT_ARTIFACTS/out"

write_policy "$WT_SCRATCH/policy.ini" '[files]' "writable = $p"
ward_fg "$WT_ARTIFACTS/out2" "$WT_ARTIFACTS/err2" \
    run --headless --policy "$WT_SCRATCH/policy.ini" -- \
    sh -c "cat '$p/f' && echo changed > '$p/f' && echo new > '$p/g'"
[ "$WT_STATUS" = 0 ] || show "ward stderr" "$WT_ARTIFACTS/err2"
assert_eq "exit status (writable = ~/p)" 0 "$WT_STATUS"
assert_grep "writable = ~/p shows its file" '^hello\r?$' "$WT_ARTIFACTS/out2"
assert_file_content "the host file changed" "changed" "$p/f"
assert_file_content "the new file is on the host" "new" "$p/g"
assert_no_grep "no request was asked" 'request [0-9]+ pending' "$WT_ARTIFACTS/err2"
assert_eq "the new file belongs to the folder's owner" "$(stat -c %u "$p")" \
    "$(stat -c %u "$p/g" 2>/dev/null || echo gone)"

# An approved write into the read-only --in ~/p is done on the host: the
# hidden home around it does not stop it.
write_policy "$WT_SCRATCH/ask.ini" '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
ward_bg "$WT_ARTIFACTS/out3" "$WT_ARTIFACTS/err3" \
    run --headless --policy "$WT_SCRATCH/ask.ini" --in "$p" -- \
    sh -c "if echo approved > '$p/f'; then echo WROTE; else echo DENIED; fi"
wait_pending "$WT_ARTIFACTS/err3"
assert_eq "pending subject" "$p/f" "$WT_REQ_PATH"
"$WARD" approve "$WT_RUN" "$WT_REQ" >"$WT_ARTIFACTS/approve" 2>&1 || \
    fail "ward approve: $(cat "$WT_ARTIFACTS/approve")"
ward_wait 30
assert_grep "the program's write went through" '^WROTE\r?$' "$WT_ARTIFACTS/out3"
assert_file_content "the host file holds the approved write" "approved" "$p/f"
finish
