#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward diff` cannot be forged by a file name (issue 29, item 6): an
# agent in a real `ward run --project` creates files whose names hold a
# newline and a forged hunk or header, terminal escapes (window title,
# erase-line), a tab, a quote, a backslash and UTF-8. Judged from outside:
#   - the patch and --stat hold no raw control byte (only the newlines
#     that end lines), and no line the names tried to start;
#   - the names are quoted as git quotes them: git's own
#     `diff --name-only` of the same tree lists the same strings;
#   - `git apply --check` and `git apply` take the patch in a copy of the
#     project, and give each file under its real name.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || { [ "${CI:-}" = true ] && die "no git"; skip "no git"; }
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t \
    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
umask 022

P=$WT_SCRATCH/proj
mkdir -p "$P"
echo "a project" >"$P/README"
git -C "$P" init -q -b main
git -C "$P" add -A
git -C "$P" commit -q -m init
PRISTINE=$WT_SCRATCH/pristine
cp -a "$P" "$PRISTINE"
real=$(realpath "$P")

# The names, made inside by printf (octal escapes: \012 newline, \033
# ESC, \007 BEL, \011 tab).
agent='set -e
cd "$1"
for n in "x\012+forged hunk" "y\012diff --git a_evil b_evil" \
    "\033]0;title\007\033[2K\033[1A" "tab\011here" "q\"uote" \
    "back\\\\slash" "caf\303\251" "plain name"; do
	printf "benign\n" > "$(printf "$n")"
done
ls > /out/names.txt'

ward_fg "$WT_ARTIFACTS/out.run" "$WT_ARTIFACTS/err.run" \
    run --headless --project "$P" -- sh -c "$agent" agent "$real"
assert_eq "the agent's run" 0 "$WT_STATUS"
[ "$WT_STATUS" = 0 ] || show "ward stderr" "$WT_ARTIFACTS/err.run"
run=$WT_RUN
assert_eq "files the agent made" 8 \
    "$(find "$(run_dir "$run")/projects/0/upper" -mindepth 1 -maxdepth 1 -type f -print0 | tr -cd '\000' | wc -c)"

PATCH=$WT_SCRATCH/p.patch
ward_fg "$PATCH" "$WT_ARTIFACTS/err.diff" diff "$run"
cp "$PATCH" "$WT_ARTIFACTS/"
assert_eq "ward diff status" 0 "$WT_STATUS"
ward_fg "$WT_SCRATCH/stat" "$WT_ARTIFACTS/err.stat" diff --stat "$run"
cp "$WT_SCRATCH/stat" "$WT_ARTIFACTS/"
assert_eq "ward diff --stat status" 0 "$WT_STATUS"

# No raw control byte but the newline, in the patch or --stat.
for f in "$PATCH" "$WT_SCRATCH/stat"; do
	if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$f" || [ "$(tr -d '\000' <"$f" | wc -c)" != "$(wc -c <"$f")" ]; then
		fail "a raw control byte in $(basename "$f"):"
		LC_ALL=C grep -n $'[\x01-\x09\x0b-\x1f\x7f]' "$f" | cat -v | sed 's/^/  | /'
	else
		note "ok: no raw control byte in $(basename "$f")"
	fi
done
assert_no_grep "no forged hunk line" '^\+forged hunk' "$PATCH"
assert_no_grep "no forged header line" '^diff --git a_evil' "$PATCH"
assert_grep "the newline name quoted as git quotes it" \
    '^diff --git "a/x\\n\+forged hunk" "b/x\\n\+forged hunk"$' "$PATCH"
assert_grep "the escape name quoted" '^\+\+\+ "b/\\033\]0;title\\a\\033\[2K\\033\[1A"$' "$PATCH"
assert_grep "the UTF-8 name quoted in octal" '^\+\+\+ "b/caf\\303\\251"$' "$PATCH"
assert_grep "a plain name left as it is" '^\+\+\+ b/plain name$' "$PATCH"

# git apply takes it, and gives each file under its real name.
A=$WT_SCRATCH/apply
cp -a "$PRISTINE" "$A"
if git -C "$A" apply --check "$PATCH" 2>"$WT_ARTIFACTS/git-apply-check.err"; then
	note "ok: git apply --check takes the patch"
else
	show "git apply --check" "$WT_ARTIFACTS/git-apply-check.err"
	fail "git apply --check refused ward diff's patch"
fi
git -C "$A" apply "$PATCH" 2>"$WT_ARTIFACTS/git-apply.err" ||
    { show "git apply" "$WT_ARTIFACTS/git-apply.err"; fail "git apply refused the patch"; }
assert_eq "the applied copy has the agent's names" \
    "$(LC_ALL=C sort "$(run_dir "$run")/out/names.txt" | od -c)" \
    "$(cd "$A" && LC_ALL=C ls | LC_ALL=C sort | od -c)"

# The names as git itself quotes them (core.quotePath's default).
git -C "$A" add -A
LC_ALL=C git -C "$A" diff --cached --name-only | LC_ALL=C sort >"$WT_SCRATCH/git-names"
sed -nE 's/^\+\+\+ b\/(.*)$/\1/p; s/^\+\+\+ "b\/(.*)"$/"\1"/p' "$PATCH" | LC_ALL=C sort >"$WT_SCRATCH/ward-names"
cp "$WT_SCRATCH/git-names" "$WT_SCRATCH/ward-names" "$WT_ARTIFACTS/"
assert_eq "ward's quoted names are git's" "$(cat "$WT_SCRATCH/git-names")" "$(cat "$WT_SCRATCH/ward-names")"
sed -nE 's/^ (.*) \(added\) \| .*$/\1/p' "$WT_SCRATCH/stat" | LC_ALL=C sort >"$WT_SCRATCH/stat-names"
assert_eq "--stat's names are git's" "$(cat "$WT_SCRATCH/git-names")" "$(cat "$WT_SCRATCH/stat-names")"

finish
