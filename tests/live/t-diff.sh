#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ward diff / apply / discard / undo on a run folder laid out by hand as
# --project leaves it (copy mode: .wh.NAME whiteouts; and, where mknod
# 0:0 is allowed, overlay mode's character-device whiteout): the patch
# that `git apply` and `patch -p1` take gives exactly the staged result;
# apply of a subset applies only those; a host edit after the run started
# is a conflict and left alone; --commit makes one commit on a new branch
# and leaves the worktree clean; discard and undo restore byte for byte;
# undo restores an approved write outside too.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || { [ "${CI:-}" = true ] && die "no git"; skip "no git"; }
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t \
    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t

# A real run first: the record exists, and gets the fixture's row.
ward_fg "$WT_ARTIFACTS/out.0" "$WT_ARTIFACTS/err.0" run --headless -- true
assert_eq "first run's status" 0 "$WT_STATUS"

P=$WT_SCRATCH/proj
mkdir -p "$P/old"
printf 'one\ntwo\nthree\n' >"$P/a.txt"
printf 'to be deleted\n' >"$P/b.txt"
printf 'moved bytes\nmore\n' >"$P/c.txt"
printf '#!/bin/sh\necho hi\n' >"$P/d.sh"
printf 'bin\000ary\001\002' >"$P/bin.dat"
printf 'same\n' >"$P/keep.txt"
printf 'host side\n' >"$P/conflict.txt"
printf 'in a folder\n' >"$P/old/x.txt"
ln -s a.txt "$P/link"
git -C "$P" init -q -b main
git -C "$P" add -A
git -C "$P" commit -q -m init
PRISTINE=$WT_SCRATCH/pristine
cp -a "$P" "$PRISTINE"
sleep 0.05

RID=0fd1ff00
R=$(run_dir "$RID")
U=$R/projects/0/upper
mkdir -p "$U/sub" "$U/old" "$R/before"
printf '0\t%s\tcopy\n' "$P" >"$R/projects.tsv"
printf 'host = %s\nmode = copy\nstarted_ms = %s\n' "$P" "$(now_ms)" \
    >"$R/projects/0/project.ini"
sleep 0.05
printf 'one\n2\nthree\nfour\n' >"$U/a.txt"
: >"$U/.wh.b.txt"
: >"$U/.wh.c.txt"
printf 'moved bytes\nmore\n' >"$U/sub/c2.txt"
printf 'brand new\n' >"$U/sub/new.txt"
cp -p "$P/d.sh" "$U/d.sh"
chmod 755 "$U/d.sh"
printf 'bin\000ARY\001\002\003' >"$U/bin.dat"
printf 'staged side\n' >"$U/conflict.txt"
cp -p "$P/keep.txt" "$U/keep.txt"		# copied up, not changed
: >"$U/old/.wh..wh..opq"			# old/ emptied as a whole
printf 'fresh\n' >"$U/old/y.txt"
ln -s c.txt "$U/link"
sqlite3 "$(audit_db)" "INSERT INTO runs (id, command, started_ms, ended_ms)
    VALUES ('$RID', 'agent --task t', $(now_ms), $(now_ms))"

# What the staged result is, made by hand.
EXPECT=$WT_SCRATCH/expect
cp -a "$PRISTINE" "$EXPECT"
(cd "$EXPECT" && cp "$U/a.txt" a.txt && rm b.txt && mkdir -p sub &&
    mv c.txt sub/c2.txt && cp "$U/sub/new.txt" sub/ && chmod 755 d.sh &&
    cp "$U/bin.dat" bin.dat && cp "$U/conflict.txt" conflict.txt &&
    rm -r old && mkdir old && cp "$U/old/y.txt" old/ && ln -sfn c.txt link)
same_tree() {	# same_tree A B: same files, bytes, modes and links, .git aside
	local l
	diff -r --no-dereference -x .git "$1" "$2" >"$WT_ARTIFACTS/tree.diff" 2>&1 || return 1
	for l in "$1" "$2"; do
		(cd "$l" && find . -path ./.git -prune -o ! -type d -printf '%p %m %y\n' | sort)
	done >"$WT_ARTIFACTS/tree.modes"
	diff <(cd "$1" && find . -path ./.git -prune -o ! -type d -printf '%p %m %y\n' | sort) \
	    <(cd "$2" && find . -path ./.git -prune -o ! -type d -printf '%p %m %y\n' | sort) \
	    >"$WT_ARTIFACTS/tree.diff"
}

# --- ward diff, through git apply and patch -p1 -----------------------
ward_fg "$WT_SCRATCH/p.patch" "$WT_ARTIFACTS/err.diff" diff "$RID"
assert_eq "ward diff status" 0 "$WT_STATUS"
cp "$WT_SCRATCH/p.patch" "$WT_ARTIFACTS/"
assert_grep "a rename" "^rename from c.txt" "$WT_SCRATCH/p.patch"
assert_grep "a mode change" "^new mode 100755" "$WT_SCRATCH/p.patch"
assert_grep "a binary patch" "^GIT binary patch" "$WT_SCRATCH/p.patch"
assert_grep "the opaque folder's file deleted" "^deleted file mode 100644" "$WT_SCRATCH/p.patch"
assert_no_grep "an unchanged copy-up" "keep.txt" "$WT_SCRATCH/p.patch"
A1=$WT_SCRATCH/apply1
cp -a "$PRISTINE" "$A1"
if git -C "$A1" apply "$WT_SCRATCH/p.patch" 2>"$WT_ARTIFACTS/git-apply.err"; then
	same_tree "$A1" "$EXPECT" && note "ok: git apply gives the staged tree" ||
	    { show "difference" "$WT_ARTIFACTS/tree.diff"; fail "git apply's result differs"; }
else
	show "git apply" "$WT_ARTIFACTS/git-apply.err"
	fail "git apply refused ward diff's patch"
fi
ward_fg "$WT_SCRATCH/t.patch" "$WT_ARTIFACTS/err.diff2" diff "$RID" a.txt sub/new.txt
A2=$WT_SCRATCH/apply2
cp -a "$PRISTINE" "$A2"
if (cd "$A2" && patch -s -p1 <"$WT_SCRATCH/t.patch") >"$WT_ARTIFACTS/patch.err" 2>&1; then
	cmp -s "$A2/a.txt" "$EXPECT/a.txt" && cmp -s "$A2/sub/new.txt" "$EXPECT/sub/new.txt" &&
	    note "ok: patch -p1 takes the text patch" || fail "patch -p1's result differs"
else
	show "patch" "$WT_ARTIFACTS/patch.err"
	fail "patch -p1 refused ward diff's text patch"
fi
ward_fg "$WT_SCRATCH/colour" "$WT_ARTIFACTS/err.colour" diff --color=always "$RID" a.txt
assert_grep "--color=always colours an added line" "$(printf '\033')\\[32m[+]four" "$WT_SCRATCH/colour"
assert_no_grep "no colour in a pipe by default" "$(printf '\033')" "$WT_SCRATCH/p.patch"
ward_fg "$WT_SCRATCH/stat" "$WT_ARTIFACTS/err.stat" diff --stat "$RID"
assert_grep "--stat's summary" "files changed" "$WT_SCRATCH/stat"
ward_fg "$WT_SCRATCH/json" "$WT_ARTIFACTS/err.json" diff --json "$RID"
assert_eq "--json kinds" "added added binary-modified deleted deleted mode modified modified renamed symlink" \
    "$(jq -r '.[] | if .binary then "binary-" + .kind else .kind end' "$WT_SCRATCH/json" | sort | tr '\n' ' ' | sed 's/ $//')"

# --- apply --commit: one commit on a new branch, worktree untouched ---
ward_fg "$WT_SCRATCH/out.commit" "$WT_ARTIFACTS/err.commit" apply "$RID" --commit ward-review
assert_eq "apply --commit status" 0 "$WT_STATUS"
assert_eq "commits on the branch" 1 "$(git -C "$P" rev-list --count main..ward-review)"
assert_eq "the worktree" "" "$(git -C "$P" status --porcelain)"
assert_eq "HEAD" "$(git -C "$PRISTINE" rev-parse HEAD)" "$(git -C "$P" rev-parse HEAD)"
assert_grep "the commit message" "ward run $RID: agent --task t" \
    <(git -C "$P" log -1 --format=%B ward-review)
C=$WT_SCRATCH/committed
mkdir -p "$C"
git -C "$P" archive ward-review | (umask 022 && tar -x --no-same-permissions -C "$C")
same_tree "$C" "$EXPECT" && note "ok: the branch holds the staged tree" ||
    { show "difference" "$WT_ARTIFACTS/tree.diff"; fail "the branch's tree differs"; }

# --- a host edit after the start is a conflict ------------------------
printf 'edited on the host\n' >>"$P/conflict.txt"
ward_fg "$WT_SCRATCH/out.conflict" "$WT_ARTIFACTS/err.conflict" apply "$RID" conflict.txt
assert_eq "apply of a conflict" 1 "$WT_STATUS"
assert_grep "the conflict said" "^conflict: conflict.txt" "$WT_SCRATCH/out.conflict"
assert_grep "both sides shown" "^[+]staged side" "$WT_SCRATCH/out.conflict"
assert_eq "the host's edit kept" "$(printf 'host side\nedited on the host')" "$(cat "$P/conflict.txt")"
[ -e "$U/conflict.txt" ] && note "ok: still staged" || fail "the conflict's staged file went"

# --- apply of a subset ------------------------------------------------
ward_fg "$WT_SCRATCH/out.sub" "$WT_ARTIFACTS/err.sub" apply "$RID" a.txt sub/new.txt
assert_eq "apply a.txt sub/new.txt" 0 "$WT_STATUS"
cmp -s "$P/a.txt" "$EXPECT/a.txt" && note "ok: a.txt applied" || fail "a.txt not applied"
cmp -s "$P/sub/new.txt" "$EXPECT/sub/new.txt" && note "ok: sub/new.txt applied" || fail "sub/new.txt not applied"
cmp -s "$P/b.txt" "$PRISTINE/b.txt" && note "ok: b.txt not applied" || fail "b.txt touched"
cmp -s "$P/bin.dat" "$PRISTINE/bin.dat" && note "ok: bin.dat not applied" || fail "bin.dat touched"
assert_absent "a.txt unstaged" "$U/a.txt"
assert_eq "recorded as applied" 2 \
    "$(sql "SELECT count(*) FROM changes WHERE run = '$RID' AND action = 'applied'")"
assert_eq "the after hash" "$(sha256sum "$P/a.txt" | cut -d' ' -f1)" \
    "$(sql "SELECT after_hash FROM changes WHERE run = '$RID' AND path = '$P/a.txt' AND action = 'applied'")"
"$WARD" log --json "$RID" >"$WT_SCRATCH/log.json" 2>"$WT_ARTIFACTS/err.log" || fail "ward log --json"
assert_eq "ward log --json's applied changes" 2 \
    "$(jq -s '[.[] | select(.kind == "change" and .action == "applied")] | length' "$WT_SCRATCH/log.json")"
"$WARD" log "$RID" >"$WT_SCRATCH/log.txt" 2>&1 || fail "ward log"
assert_grep "ward log shows the change" "change.*applied.*$P/a.txt" "$WT_SCRATCH/log.txt"

# --- discard ----------------------------------------------------------
ward_fg "$WT_SCRATCH/out.disc" "$WT_ARTIFACTS/err.disc" discard "$RID" bin.dat b.txt
assert_eq "discard status" 0 "$WT_STATUS"
assert_absent "bin.dat unstaged" "$U/bin.dat"
assert_absent "b.txt's whiteout" "$U/.wh.b.txt"
ward_fg "$WT_SCRATCH/stat2" "$WT_ARTIFACTS/err.stat2" diff --stat "$RID"
assert_no_grep "bin.dat no longer staged" "bin.dat" "$WT_SCRATCH/stat2"
assert_no_grep "b.txt no longer staged" " b.txt" "$WT_SCRATCH/stat2"

# --- apply the rest (the conflict stays) ------------------------------
ward_fg "$WT_SCRATCH/out.rest" "$WT_ARTIFACTS/err.rest" apply "$RID"
assert_eq "apply of the rest (a conflict left)" 1 "$WT_STATUS"
cp "$EXPECT/conflict.txt" "$WT_SCRATCH/expect-conflict"
(cd "$EXPECT" && cp "$PRISTINE/bin.dat" bin.dat && cp "$PRISTINE/b.txt" b.txt &&
    cp "$P/conflict.txt" conflict.txt)
same_tree "$P" "$EXPECT" && note "ok: the host folder is the staged result" ||
    { show "difference" "$WT_ARTIFACTS/tree.diff"; fail "host after apply differs"; }

# --- undo: refused for a file changed since, then byte for byte -------
printf 'later edit\n' >>"$P/a.txt"
ward_fg "$WT_SCRATCH/out.undo1" "$WT_ARTIFACTS/err.undo1" undo "$RID" a.txt
assert_eq "undo of an edited file" 1 "$WT_STATUS"
assert_grep "refused" "changed since" "$WT_ARTIFACTS/err.undo1"
cp "$EXPECT/a.txt" "$P/a.txt"
ward_fg "$WT_SCRATCH/out.undo" "$WT_ARTIFACTS/err.undo" undo "$RID"
assert_eq "undo status" 0 "$WT_STATUS"
(cd "$PRISTINE" && cp "$P/conflict.txt" conflict.txt)
same_tree "$P" "$PRISTINE" && note "ok: undo restores the host byte for byte" ||
    { show "difference" "$WT_ARTIFACTS/tree.diff"; fail "host after undo differs"; }

# Write-ahead: each host effect was an intent first, now done.
assert_eq "intents left open" 0 \
    "$(sql "SELECT count(*) FROM changes WHERE action IN ('applying', 'undoing')")"
assert_eq "undone rows" "$(sql "SELECT count(*) FROM changes WHERE run = '$RID' AND action = 'applied'")" \
    "$(sql "SELECT count(*) FROM changes WHERE run = '$RID' AND action = 'undone'")"

# --- overlay mode's whiteout: a character device 0:0 ------------------
P2=$WT_SCRATCH/proj2
mkdir -p "$P2"
printf 'gone\n' >"$P2/w.txt"
RID2=0fd1ff01
R2=$(run_dir "$RID2")
mkdir -p "$R2/projects/0/upper"
printf '0\t%s\toverlay\n' "$P2" >"$R2/projects.tsv"
printf 'host = %s\nmode = overlay\nstarted_ms = %s\n' "$P2" "$(now_ms)" >"$R2/projects/0/project.ini"
if mknod "$R2/projects/0/upper/w.txt" c 0 0 2>/dev/null; then
	ward_fg "$WT_SCRATCH/p2.patch" "$WT_ARTIFACTS/err.p2" diff "$RID2"
	assert_grep "the device whiteout is a deletion" "^deleted file mode" "$WT_SCRATCH/p2.patch"
	ward_fg "$WT_SCRATCH/out.p2" "$WT_ARTIFACTS/err.p2a" apply "$RID2"
	assert_absent "w.txt deleted by apply" "$P2/w.txt"
	assert_absent "the whiteout dropped" "$R2/projects/0/upper/w.txt"
	ward_fg "$WT_SCRATCH/out.p2u" "$WT_ARTIFACTS/err.p2u" undo "$RID2"
	assert_file_content "w.txt back" "gone" "$P2/w.txt"
else
	note "mknod c 0 0 refused here: the overlay whiteout case is in test-changes"
fi

# --- undo of an approved write outside --------------------------------
make_canary
write_policy "$WT_SCRATCH/policy.ini" '[run]' 'ask_timeout = 60' '[files]' 'write = ask'
ward_bg "$WT_ARTIFACTS/out.w" "$WT_ARTIFACTS/err.w" \
    run --headless --policy "$WT_SCRATCH/policy.ini" --in "$WT_CANARY" \
    -- sh -c 'echo new > "$1/file"' sh "$WT_CANARY"
wait_pending "$WT_ARTIFACTS/err.w"
"$WARD" approve "$WT_RUN" "$WT_REQ" >/dev/null || fail "ward approve"
ward_wait
assert_file_content "the approved write" "new" "$WT_CANARY/file"
ward_fg "$WT_SCRATCH/out.wu" "$WT_ARTIFACTS/err.wu" undo "$WT_RUN"
assert_eq "undo of an approved write" 0 "$WT_STATUS"
assert_file_content "the canary restored" "old" "$WT_CANARY/file"

# A run that is not there is said, not passed over.
ward_fg "$WT_SCRATCH/out.none" "$WT_ARTIFACTS/err.none" undo 00000000
assert_eq "undo of no run" 1 "$WT_STATUS"
assert_grep "said" "no run 00000000" "$WT_ARTIFACTS/err.none"
ward_fg "$WT_SCRATCH/out.none2" "$WT_ARTIFACTS/err.none2" diff "$RID" no/such/file
assert_eq "diff of a path with nothing staged" 1 "$WT_STATUS"
assert_grep "said" "nothing staged at no/such/file" "$WT_ARTIFACTS/err.none2"

finish
