#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A project reviewed end to end through a real `ward run --project`, in
# the overlay and in the copy fallback: a scripted agent creates, edits,
# deletes, renames (with an edit: libgit2's similarity) and chmods files,
# text and binary, one in a new subfolder; while it runs the host edits a
# file the agent also changed and one it never opened.
#   - the host folder is byte for byte unchanged until apply (a listing of
#     paths, modes and sha256; the host's own two edits aside);
#   - `ward diff` says the rename as rename from/to, --stat and --json as
#     renamed, and the patch through `git apply` on a copy of the host
#     gives exactly what the agent saw;
#   - `apply --commit BRANCH` makes one commit on a new branch whose tree
#     is the agent's, the worktree as it was;
#   - `ward apply` of a subset applies only those; `discard` drops one;
#   - `ward apply` of the rest: the file both changed is a conflict, left
#     alone and shown with both sides; the file only the host changed is
#     neither a change nor a conflict, and keeps the host's edit;
#   - `ward undo` restores the host byte for byte.
# t-project.sh checks the staging itself (upper/, whiteouts, modes), and
# t-diff.sh the verbs on folders laid out by hand.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || { [ "${CI:-}" = true ] && die "no git"; skip "no git"; }
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t \
    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
umask 022

# path mode type, then sha256 of each file: a folder as one text, .git
# aside; lines about the paths given (ERE) left out.
listing() {
	local skip=${2:-'^$'}
	(cd "$1" && { find . -mindepth 1 -path ./.git -prune -o -printf '%p %m %y\n' |
	    LC_ALL=C sort; find . -path ./.git -prune -o -type f -print0 |
	    LC_ALL=C sort -z | xargs -0r sha256sum; } | grep -Ev -- "$skip")
}

story() {	# story [EDITED]: 30 lines, line 15 rewritten when EDITED
	local i
	for i in $(seq 1 30); do
		if [ -n "${1:-}" ] && [ "$i" = 15 ]; then
			echo "line fifteen, rewritten by the agent"
		else
			echo "line $i of a story that is long enough to be alike"
		fi
	done
}

make_project() {
	local p=$1
	mkdir -p "$p/sub"
	printf 'line one\nline two\n' >"$p/text.txt"
	printf '\000\001\002\377binary\000' >"$p/blob.bin"
	echo "to be deleted" >"$p/gone.txt"
	story >"$p/story.txt"
	printf '#!/bin/sh\necho hi\n' >"$p/tool.sh"
	chmod 644 "$p/tool.sh"
	echo "in a folder" >"$p/sub/inner.txt"
	echo "both change this" >"$p/both.txt"
	echo "only the host changes this" >"$p/hostonly.txt"
	git -C "$p" init -q -b main
	git -C "$p" add -A
	git -C "$p" commit -q -m init
}

# The agent: its changes, its view into /out, then it waits for the
# test's go (the host edits happen meanwhile).
agent='set -e
umask 022
cd "$1"
echo "line three" >> text.txt
printf "\003\004" >> blob.bin
printf "\000new\377" > new.bin
echo "created" > created.txt
rm gone.txt
mkdir -p docs
mv story.txt docs/story.md
sed -i "s/^line 15 .*/line fifteen, rewritten by the agent/" docs/story.md
chmod 755 tool.sh
mkdir -p fresh/deeper
echo "deep" > fresh/deeper/file.txt
echo "edited inside" > sub/inner.txt
echo "the agent changed this" > both.txt
{ find . -mindepth 1 -path ./.git -prune -o -printf "%p %m %y\n" | LC_ALL=C sort
  find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum; } > /out/view.txt
touch /out/ready
i=0
while [ ! -e /out/go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done'

for mode in overlay copy; do
	note "--- mode $mode"
	P=$WT_SCRATCH/proj-$mode
	make_project "$P"
	sleep 0.1	# the copy keeps mtimes: theirs before the run starts
	real=$(realpath "$P")
	orig=$(listing "$P")
	WARD_PROJECT_MODE=$mode ward_bg "$WT_ARTIFACTS/out-$mode" "$WT_ARTIFACTS/err-$mode" \
	    run --headless --project "$P" -- sh -c "$agent" agent "$real"
	run=$WT_RUN
	rd=$(run_dir "$run")
	if ! wait_for 30 test -e "$rd/out/ready"; then
		show "ward stderr" "$WT_ARTIFACTS/err-$mode"
		die "$mode: the agent did not get ready"
	fi
	assert_eq "$mode: the host unchanged while the agent runs" "$orig" "$(listing "$P")"
	# The host's own edits, during the run.
	sleep 0.05
	echo "the host changed this" >"$P/both.txt"
	echo "the host's own edit" >"$P/hostonly.txt"
	hosted=$(listing "$P")
	touch "$rd/out/go"
	ward_wait 30
	assert_eq "$mode: exit status" 0 "$WT_STATUS"
	[ "$WT_STATUS" = 0 ] || show "ward stderr" "$WT_ARTIFACTS/err-$mode"
	assert_no_grep "$mode: no request was asked" 'request [0-9]+ pending' "$WT_ARTIFACTS/err-$mode"
	assert_eq "$mode: the host byte for byte unchanged after the run (its own edits aside)" \
	    "$hosted" "$(listing "$P")"
	# What the agent saw (hostonly.txt as it was then: not the run's).
	view=$(grep -Ev -- 'hostonly\.txt' "$rd/out/view.txt")
	[ -n "$view" ] || fail "$mode: the agent wrote no view"
	HOSTED=$WT_SCRATCH/hosted-$mode
	cp -a "$P" "$HOSTED"

	# --- ward diff: renames, --stat, --json, git apply ---------------
	ward_fg "$WT_SCRATCH/p-$mode.patch" "$WT_ARTIFACTS/err-diff-$mode" diff "$run"
	assert_eq "$mode: ward diff status" 0 "$WT_STATUS"
	cp "$WT_SCRATCH/p-$mode.patch" "$WT_ARTIFACTS/"
	assert_grep "$mode: the rename with an edit" '^rename from story\.txt$' "$WT_SCRATCH/p-$mode.patch"
	assert_grep "$mode: ... to its new name" '^rename to docs/story\.md$' "$WT_SCRATCH/p-$mode.patch"
	assert_grep "$mode: ... with its similarity" '^similarity index (5|6|7|8|9)[0-9]%$' "$WT_SCRATCH/p-$mode.patch"
	assert_grep "$mode: ... and its hunk" '^\+line fifteen, rewritten by the agent$' "$WT_SCRATCH/p-$mode.patch"
	assert_no_grep "$mode: hostonly.txt is not the run's" 'hostonly' "$WT_SCRATCH/p-$mode.patch"
	ward_fg "$WT_SCRATCH/stat-$mode" "$WT_ARTIFACTS/err-stat-$mode" diff --stat "$run"
	assert_grep "$mode: --stat says renamed" 'story\.txt -> docs/story\.md \(renamed\)' "$WT_SCRATCH/stat-$mode"
	ward_fg "$WT_SCRATCH/json-$mode" "$WT_ARTIFACTS/err-json-$mode" diff --json "$run"
	assert_eq "$mode: --json says renamed, from" "renamed story.txt docs/story.md" \
	    "$(python3 -c 'import json, sys
for c in json.load(open(sys.argv[1])):
    if c["kind"] == "renamed": print(c["kind"], c["from"], c["path"])' "$WT_SCRATCH/json-$mode")"
	A=$WT_SCRATCH/gitapply-$mode
	cp -a "$HOSTED" "$A"
	if git -C "$A" apply "$WT_SCRATCH/p-$mode.patch" 2>"$WT_ARTIFACTS/git-apply-$mode.err"; then
		assert_eq "$mode: git apply of ward diff gives what the agent saw" "$view" \
		    "$(listing "$A" 'hostonly\.txt')"
	else
		show "git apply" "$WT_ARTIFACTS/git-apply-$mode.err"
		fail "$mode: git apply refused ward diff's patch"
	fi

	# --- apply --commit: one commit, the agent's tree, worktree alone -
	st0=$(git -C "$P" status --porcelain)
	ward_fg "$WT_ARTIFACTS/out-commit-$mode" "$WT_ARTIFACTS/err-commit-$mode" \
	    apply "$run" --commit "ward-$mode"
	assert_eq "$mode: apply --commit status" 0 "$WT_STATUS"
	assert_eq "$mode: one commit on the new branch" 1 \
	    "$(git -C "$P" rev-list --count "main..ward-$mode")"
	assert_eq "$mode: HEAD stays on main" main "$(git -C "$P" rev-parse --abbrev-ref HEAD)"
	assert_eq "$mode: the worktree as it was" "$st0" "$(git -C "$P" status --porcelain)"
	assert_eq "$mode: the worktree byte for byte" "$hosted" "$(listing "$P")"
	C=$WT_SCRATCH/commit-$mode
	mkdir -p "$C"
	git -C "$P" -c tar.umask=022 archive "ward-$mode" | tar -x -C "$C"
	assert_eq "$mode: the branch's tree is what the agent saw" "$view" \
	    "$(listing "$C" 'hostonly\.txt')"

	# --- apply of a subset: only those --------------------------------
	ward_fg "$WT_ARTIFACTS/out-sub-$mode" "$WT_ARTIFACTS/err-sub-$mode" \
	    apply "$run" text.txt fresh/deeper/file.txt
	assert_eq "$mode: apply of a subset" 0 "$WT_STATUS"
	assert_file_content "$mode: text.txt applied" "$(printf 'line one\nline two\nline three')" "$P/text.txt"
	assert_file_content "$mode: fresh/deeper/file.txt applied" "deep" "$P/fresh/deeper/file.txt"
	assert_eq "$mode: nothing else changed" "$(listing "$HOSTED" '\./text\.txt|\./fresh')" \
	    "$(listing "$P" '\./text\.txt|\./fresh')"

	# --- discard one: it is gone from the run, the host's stays -------
	ward_fg "$WT_ARTIFACTS/out-disc-$mode" "$WT_ARTIFACTS/err-disc-$mode" discard "$run" created.txt
	assert_eq "$mode: discard" 0 "$WT_STATUS"
	ward_fg "$WT_SCRATCH/stat2-$mode" "$WT_ARTIFACTS/err-stat2-$mode" diff --stat "$run"
	assert_no_grep "$mode: created.txt no longer staged" 'created\.txt' "$WT_SCRATCH/stat2-$mode"
	assert_absent "$mode: created.txt not on the host" "$P/created.txt"

	# --- apply the rest: the conflict, both sides, left alone ---------
	ward_fg "$WT_ARTIFACTS/out-rest-$mode" "$WT_ARTIFACTS/err-rest-$mode" apply "$run"
	assert_eq "$mode: apply with a conflict" 1 "$WT_STATUS"
	o=$WT_ARTIFACTS/out-rest-$mode
	assert_grep "$mode: both.txt is a conflict" '^conflict: both\.txt' "$o"
	assert_grep "$mode: ... the host's side said" "^  the host's side: sha256 $(sha256sum <"$P/both.txt" | cut -c1-12), [0-9]+ bytes, changed " "$o"
	assert_grep "$mode: ... the run's side said" '^  the run.s side:  sha256 [0-9a-f]{12}, 23 bytes$' "$o"
	assert_grep "$mode: ... the host's side shown" '^-the host changed this$' "$o"
	assert_grep "$mode: ... the run's side shown" '^\+the agent changed this$' "$o"
	assert_no_grep "$mode: hostonly.txt is no conflict" 'hostonly' "$o"
	assert_file_content "$mode: both.txt left alone" "the host changed this" "$P/both.txt"
	assert_file_content "$mode: hostonly.txt keeps the host's edit" "the host's own edit" "$P/hostonly.txt"
	assert_eq "$mode: the host is what the agent saw, but for the conflict and the discarded" \
	    "$(printf '%s\n' "$view" | grep -Ev 'both\.txt|created\.txt')" \
	    "$(listing "$P" 'hostonly\.txt|both\.txt|created\.txt')"
	ward_fg "$WT_SCRATCH/stat3-$mode" "$WT_ARTIFACTS/err-stat3-$mode" diff --stat "$run"
	assert_eq "$mode: only the conflict is still staged" 1 "$(grep -c ' | ' "$WT_SCRATCH/stat3-$mode")"

	# --- undo: the host as before any apply, byte for byte ------------
	ward_fg "$WT_ARTIFACTS/out-undo-$mode" "$WT_ARTIFACTS/err-undo-$mode" undo "$run"
	assert_eq "$mode: undo" 0 "$WT_STATUS"
	[ "$WT_STATUS" = 0 ] || show "undo" "$WT_ARTIFACTS/err-undo-$mode"
	assert_eq "$mode: undo restores the host byte for byte" "$hosted" "$(listing "$P")"
	assert_eq "$mode: the record has each apply undone" \
	    "$(sql "SELECT count(*) FROM changes WHERE run = '$run' AND action = 'applied'")" \
	    "$(sql "SELECT count(*) FROM changes WHERE run = '$run' AND action = 'undone'")"
done
finish
