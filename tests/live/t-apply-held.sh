#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 29, item 1: what the agent leaves for git to run is held out of
# `ward apply`. A real --project run writes a post-checkout hook (it
# would make a canary), core.fsmonitor in .git/config (the same), an
# .envrc (direnv would run it) and an ordinary file. Then, from outside:
#   - `ward diff --stat` marks both as held ("protected"), --json names
#     the pattern, the patch has a "# ward: held" line git apply skips;
#   - `ward apply RUN --commit BRANCH` commits the ordinary file, not the
#     .envrc;
#   - `ward apply RUN` applies the ordinary file only, says what it left
#     and how to apply it, exit 0; the host's .git is byte for byte as it
#     was; the record has the ordinary file's apply and nothing of the
#     held ones;
#   - the person's next steps, `git status` and `git checkout -b x` on
#     the host, run nothing: no canary;
#   - `ward apply RUN .git` (a folder above it) still leaves them;
#     `ward apply RUN .git/config` (named) applies it.
# On main before issue 29 `ward apply` applied both, and git checkout
# made the canary.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || { [ "${CI:-}" = true ] && die "no git"; skip "no git"; }
command -v sqlite3 >/dev/null || { [ "${CI:-}" = true ] && die "no sqlite3"; skip "no sqlite3"; }
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t \
    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
umask 022

P=$WT_SCRATCH/proj
CANARY=$WT_SCRATCH/canary-ran
mkdir -p "$P"
echo "one" >"$P/a.txt"
git -C "$P" init -q -b main
git -C "$P" add -A
git -C "$P" commit -q -m init
real=$(realpath "$P")
# What git runs or trusts of .git: its config, hooks and info.
gitsum() { (cd "$P/.git" && find config hooks info -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum); }
git_before=$(gitsum)

# The agent: a hook and an fsmonitor command that would each make the
# canary outside, and an ordinary edit.
agent='set -e
cd "$1"
printf "#!/bin/sh\necho hook >> %s\n" "$2" > .git/hooks/post-checkout
chmod 755 .git/hooks/post-checkout
git config core.fsmonitor "echo fsmonitor >> $2; false"
echo "echo envrc >> $2" > .envrc
echo "two" >> a.txt
echo done'

# A write to a protected path may be asked (a request): approve each,
# so that both are staged and the test judges apply's side.
ward_bg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" \
    run --headless --project "$P" -- sh -c "$agent" agent "$real" "$CANARY"
approved=" "
end=$(($(now_ms) + 30000))
while kill -0 "$WT_PID" 2>/dev/null && [ "$(now_ms)" -lt "$end" ]; do
	for n in $(sed -nE "s/^ward: run $WT_RUN request ([0-9]+) pending: .*/\1/p" \
	    "$WT_ARTIFACTS/err" | tr -d '\r'); do
		case $approved in *" $n "*) continue ;; esac
		"$WARD" approve "$WT_RUN" "$n" >/dev/null 2>&1 || true
		approved="$approved$n "
		note "approved request $n"
	done
	[ "$(ps -o stat= -p "$WT_PID" 2>/dev/null | cut -c1)" = Z ] && break
	sleep 0.1
done
ward_wait 10
assert_eq "the run's status" 0 "$WT_STATUS"
RID=$WT_RUN
U=$(run_dir "$RID")/projects/0/upper
[ -f "$U/.git/hooks/post-checkout" ] || { show "ward stderr" "$WT_ARTIFACTS/err"; die "the hook was not staged"; }
assert_grep "core.fsmonitor staged" 'fsmonitor = ' "$U/.git/config"
assert_eq "the host's .git config, hooks and info untouched by the run" "$git_before" "$(gitsum)"

# --- ward diff marks them ----------------------------------------------
ward_fg "$WT_SCRATCH/stat" "$WT_ARTIFACTS/err.stat" diff --stat "$RID"
assert_eq "diff --stat status" 0 "$WT_STATUS"
show "ward diff --stat" "$WT_SCRATCH/stat"
assert_eq "--stat: the hook held" "   held: protected: a git hook: git runs it as you; ward apply leaves it staged unless named by path" "$(grep -A1 '^ \.git/hooks/post-checkout (added)' "$WT_SCRATCH/stat" | tail -n 1)"
assert_eq "--stat: three held lines, all protected" 3 \
    "$(grep -cE '^   held: protected: ' "$WT_SCRATCH/stat" || true)"
assert_grep "--stat: sizes shown" '^ a\.txt \(modified\) \| \+1 -0 \([0-9]+ B\)$' "$WT_SCRATCH/stat"
ward_fg "$WT_SCRATCH/json" "$WT_ARTIFACTS/err.json" diff --json "$RID"
assert_eq "--json: the patterns" ".envrc=.envrc .git/config=.git/config .git/hooks/post-checkout=.git/hooks/** a.txt=null" \
    "$(python3 -c 'import json,sys
print(" ".join("%s=%s" % (c["path"], c["protected"] or "null") for c in json.load(open(sys.argv[1]))))' "$WT_SCRATCH/json")"
ward_fg "$WT_SCRATCH/patch" "$WT_ARTIFACTS/err.patch" diff "$RID"
assert_eq "the patch: a held line before each" 3 "$(grep -c '^# ward: held: protected' "$WT_SCRATCH/patch" || true)"

# --- apply --commit: the ordinary file only -----------------------------
ward_fg "$WT_SCRATCH/commit" "$WT_ARTIFACTS/err.commit" apply "$RID" --commit agent
show "ward apply --commit" "$WT_SCRATCH/commit"
assert_eq "apply --commit's status" 0 "$WT_STATUS"
assert_grep "--commit says .envrc was left out" '^left out of the commit: \.envrc: protected: ' "$WT_SCRATCH/commit"
assert_eq "the branch holds a.txt, no .envrc" "a.txt" \
    "$(git -C "$P" ls-tree --name-only agent | tr '\n' ' ' | sed 's/ $//')"

# --- ward apply: the ordinary file only ----------------------------------
ward_fg "$WT_SCRATCH/apply" "$WT_ARTIFACTS/err.apply" apply "$RID"
show "ward apply" "$WT_SCRATCH/apply"
assert_eq "apply's status" 0 "$WT_STATUS"
assert_file_content "a.txt applied" "$(printf 'one\ntwo')" "$P/a.txt"
assert_absent "the hook not on the host" "$P/.git/hooks/post-checkout"
assert_absent ".envrc not on the host" "$P/.envrc"
assert_no_grep "no fsmonitor on the host" 'fsmonitor' "$P/.git/config"
assert_eq "the host's .git config, hooks and info as they were" "$git_before" "$(gitsum)"
assert_grep "apply says the hook was left" "^left staged: $real/\\.git/hooks/post-checkout: protected: .*'ward apply $RID $real/\\.git/hooks/post-checkout' applies it$" "$WT_SCRATCH/apply"
assert_grep "apply says the config was left" "^left staged: $real/\\.git/config: protected: " "$WT_SCRATCH/apply"
assert_grep "apply counts them" '^3 files left staged' "$WT_SCRATCH/apply"
assert_eq "the record: a.txt applied, nothing of .git" "$real/a.txt applied" \
    "$(sql "SELECT path, action FROM changes WHERE run = '$RID' AND action != 'committed'" | tr '\t' ' ')"

# --- the person's next steps run nothing ---------------------------------
git -C "$P" status --short >"$WT_SCRATCH/git-status" 2>&1 || true
git -C "$P" checkout -q -b x >"$WT_SCRATCH/git-checkout" 2>&1 || fail "git checkout -b x failed"
git -C "$P" checkout -q main >>"$WT_SCRATCH/git-checkout" 2>&1 || true
assert_absent "nothing ran: no canary after git status and git checkout" "$CANARY"

# --- a folder above does not name them; the path itself does -------------
ward_fg "$WT_SCRATCH/apply2" "$WT_ARTIFACTS/err.apply2" apply "$RID" .git
assert_absent "apply RUN .git: the hook still held" "$P/.git/hooks/post-checkout"
assert_no_grep "apply RUN .git: the config still held" 'fsmonitor' "$P/.git/config"
ward_fg "$WT_SCRATCH/apply3" "$WT_ARTIFACTS/err.apply3" apply "$RID" .git/config
assert_eq "apply RUN .git/config: status" 0 "$WT_STATUS"
assert_grep "named, .git/config applied" 'fsmonitor = ' "$P/.git/config"
assert_absent "the hook still held" "$P/.git/hooks/post-checkout"
assert_eq "the record has the named apply" 1 \
    "$(sql "SELECT count(*) FROM changes WHERE run = '$RID' AND path = '$real/.git/config' AND action = 'applied'")"
# What it applied is the person's own choice now: not run here.
git -C "$P" config --unset core.fsmonitor
assert_absent "still no canary" "$CANARY"
finish
