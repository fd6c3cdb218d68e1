#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Caches a toolchain writes beside its sources go into the run: a
# headless `python3 /in/t.py` (importing a module beside it) under a
# read-only --in with write = ask finishes at once, asks nothing and
# leaves no __pycache__ on the host; `git status` in an --in repository
# writes no index. A policy that passes PYTHONPYCACHEPREFIX in keeps its own.
. "$(dirname "$0")/lib.sh"

proj=$WT_SCRATCH/proj
mkdir -p "$proj"
printf 'import m\nprint("ok", m.X)\n' >"$proj/t.py"
printf 'X = 42\n' >"$proj/m.py"
write_policy "$WT_SCRATCH/ask.ini" '[run]' 'ask_timeout = 30' \
    '[files]' 'write = ask'

ward_fg "$WT_ARTIFACTS/out" "$WT_ARTIFACTS/err" run --headless \
    --policy "$WT_SCRATCH/ask.ini" --in "$proj" -- python3 "$proj/t.py"
assert_eq "python's exit status" 0 "$WT_STATUS"
[ -n "$WT_RUN" ] || { show "ward stderr" "$WT_ARTIFACTS/err"; die "no run id"; }
assert_grep "the script ran" '^ok 42' "$WT_ARTIFACTS/out"
assert_no_grep "no request" 'pending' "$WT_ARTIFACTS/err"
[ "$WT_ELAPSED_MS" -lt 15000 ] && note "ok: finished in ${WT_ELAPSED_MS} ms" ||
    fail "took ${WT_ELAPSED_MS} ms: it waited for a request"
assert_absent "no __pycache__ on the host" "$proj/__pycache__"
assert_eq "no write in the record" 0 \
    "$(sql "SELECT count(*) FROM events WHERE run = '$WT_RUN' AND kind = 'write'")"
n=$(find "$(run_dir "$WT_RUN")/work/.cache/pycache" -name 'm.*.pyc' 2>/dev/null | wc -l)
assert_eq "the bytecode went into the run's /work/.cache/pycache" 1 "$n"

# git status refreshes the index when its stat data differ (as root the
# files' owner does): no optional lock, no write.
repo=$WT_SCRATCH/repo
mkdir -p "$repo"
git -C "$repo" init -q
printf 'a\n' >"$repo/a"
git -C "$repo" add a
git -C "$repo" -c user.email=t@example.invalid -c user.name=t commit -qm a
ward_fg "$WT_ARTIFACTS/git.out" "$WT_ARTIFACTS/git.err" run --headless \
    --policy "$WT_SCRATCH/ask.ini" --in "$repo" -- \
    sh -c "cd '$repo' && git -c safe.directory='*' status --short && echo git-ok"
assert_eq "git's exit status" 0 "$WT_STATUS"
assert_grep "git status ran" '^git-ok' "$WT_ARTIFACTS/git.out"
assert_no_grep "git asked for nothing" 'pending' "$WT_ARTIFACTS/git.err"
assert_absent "no index.lock left" "$repo/.git/index.lock"

# The policy's own value wins, and is the only one.
write_policy "$WT_SCRATCH/env.ini" '[run]' 'env = PYTHONPYCACHEPREFIX'
PYTHONPYCACHEPREFIX=/tmp/mine ward_fg "$WT_ARTIFACTS/env.out" "$WT_ARTIFACTS/env.err" \
    run --headless --policy "$WT_SCRATCH/env.ini" -- sh -c 'env | grep ^PYTHONPYCACHEPREFIX='
tr -d '\r' <"$WT_ARTIFACTS/env.out" >"$WT_ARTIFACTS/env.txt"
assert_eq "the policy's PYTHONPYCACHEPREFIX, once" "PYTHONPYCACHEPREFIX=/tmp/mine" \
    "$(cat "$WT_ARTIFACTS/env.txt")"
finish
