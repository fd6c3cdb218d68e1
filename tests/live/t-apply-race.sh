#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the person reviewed is what gets applied (issue 29, item 7): the
# race replayed through a real `ward run --project`, judged from outside.
#   - the agent stages note.txt = "benign" and ok.txt, and waits;
#   - the person reads `ward diff --json` (a sha256 per file, the patch
#     "+benign") and saves it;
#   - plain `ward apply` while the run goes on is refused, saying how
#     (ward kill, or --reviewed), and the host is untouched;
#   - the agent then rewrites note.txt to "EVIL payload";
#   - `ward apply --reviewed` refuses note.txt by name (changed since it
#     was reviewed) and applies ok.txt, whose bytes are the reviewed ones;
#     the host's note.txt never holds EVIL;
#   - once the run has ended, plain `ward apply` works as before.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || { [ "${CI:-}" = true ] && die "no jq"; skip "no jq"; }
umask 022

P=$WT_SCRATCH/proj
mkdir -p "$P"
echo "original" >"$P/note.txt"
echo "untouched" >"$P/ok.txt"
real=$(realpath "$P")

agent='set -e
cd "$1"
echo "benign" > note.txt
echo "fine" > ok.txt
touch /out/ready
i=0
while [ ! -e /out/rewrite ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
printf "EVIL payload\n" > note.txt
touch /out/rewritten
i=0
while [ ! -e /out/go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done'

ward_bg "$WT_ARTIFACTS/out.run" "$WT_ARTIFACTS/err.run" \
    run --headless --project "$P" -- sh -c "$agent" agent "$real"
run=$WT_RUN
rd=$(run_dir "$run")
if ! wait_for 30 test -e "$rd/out/ready"; then
	show "ward stderr" "$WT_ARTIFACTS/err.run"
	die "the agent did not get ready"
fi

# --- the review --------------------------------------------------------
REV=$WT_SCRATCH/reviewed.json
ward_fg "$REV" "$WT_ARTIFACTS/err.diff" diff --json "$run"
cp "$REV" "$WT_ARTIFACTS/"
assert_eq "ward diff --json status" 0 "$WT_STATUS"
assert_eq "the review shows +benign" "+benign" \
    "$(jq -r '.[] | select(.path == "note.txt") | .patch' "$REV" | grep -x '+benign')"
assert_eq "the review's sha256 of note.txt is the staged bytes'" \
    "$(printf 'benign\n' | sha256sum | cut -d' ' -f1)" \
    "$(jq -r '.[] | select(.path == "note.txt") | .sha256' "$REV")"

# --- plain apply on a live run: refused ---------------------------------
ward_fg "$WT_ARTIFACTS/out.apply0" "$WT_ARTIFACTS/err.apply0" apply "$run"
assert_eq "plain apply while the run goes on: refused" 1 "$WT_STATUS"
assert_grep "the refusal says to stop the run" "ward kill $run" "$WT_ARTIFACTS/err.apply0"
assert_grep "the refusal says --reviewed" "--reviewed" "$WT_ARTIFACTS/err.apply0"
assert_file_content "note.txt untouched after the refusal" "original" "$P/note.txt"
assert_file_content "ok.txt untouched after the refusal" "untouched" "$P/ok.txt"

# --- the agent rewrites after the review ---------------------------------
touch "$rd/out/rewrite"
if ! wait_for 30 test -e "$rd/out/rewritten"; then
	show "ward stderr" "$WT_ARTIFACTS/err.run"
	die "the agent did not rewrite note.txt"
fi

ward_fg "$WT_ARTIFACTS/out.apply1" "$WT_ARTIFACTS/err.apply1" apply "$run" --reviewed "$REV"
assert_eq "apply --reviewed with a file changed since: status 1" 1 "$WT_STATUS"
assert_grep "note.txt refused by name" "note.txt: changed since it was reviewed" "$WT_ARTIFACTS/err.apply1"
assert_grep "the refusal says what to do" "ward diff --json $run" "$WT_ARTIFACTS/err.apply1"
if grep -q EVIL "$P/note.txt"; then
	fail "the host's note.txt holds EVIL: $(cat "$P/note.txt")"
else
	note "ok: the host's note.txt holds no EVIL"
fi
assert_file_content "note.txt as it was" "original" "$P/note.txt"
assert_file_content "ok.txt, reviewed and unchanged, applied" "fine" "$P/ok.txt"
assert_grep "ok.txt reported applied" "applied .*/ok.txt" "$WT_ARTIFACTS/out.apply1"

# A review file that is not one: refused, naming the file.
echo '{"not": "an array"}' >"$WT_SCRATCH/bad.json"
ward_fg "$WT_ARTIFACTS/out.bad" "$WT_ARTIFACTS/err.bad" apply "$run" --reviewed "$WT_SCRATCH/bad.json"
assert_eq "a --reviewed file that is no review: status 1" 1 "$WT_STATUS"
assert_grep "it names the file" "bad.json" "$WT_ARTIFACTS/err.bad"

# --- the run ends: plain apply works as before -----------------------------
touch "$rd/out/go"
ward_wait 30
assert_eq "the run's exit status" 0 "$WT_STATUS"
ward_fg "$WT_ARTIFACTS/out.apply2" "$WT_ARTIFACTS/err.apply2" apply "$run"
assert_eq "plain apply after the run ended" 0 "$WT_STATUS"
[ "$WT_STATUS" = 0 ] || show "apply stderr" "$WT_ARTIFACTS/err.apply2"
assert_file_content "the ended run's note.txt applied" "EVIL payload" "$P/note.txt"

finish
