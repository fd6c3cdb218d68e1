#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Caches a toolchain writes beside its sources go into the run: a
# headless `python3 /in/t.py` (importing a module beside it) under a
# read-only --in with write = ask finishes at once, asks nothing and
# leaves no __pycache__ on the host; `git status` in an --in repository
# writes no index; Python still reads the standard library's bytecode
# (issue 18: a pycache prefix made it compile all of it at every run). A
# policy that passes PYTHONDONTWRITEBYTECODE in keeps its own.
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
n=$(find "$(run_dir "$WT_RUN")/work" -name '*.pyc' 2>/dev/null | wc -l)
assert_eq "no bytecode written in the run's /work either" 0 "$n"

# The standard library's bytecode is read where it is: python -v says
# "... .pyc matches ...py" for a module loaded from it.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
if ls "$("$py" -c 'import json, os; print(os.path.dirname(json.__file__))')"/__pycache__/*.pyc >/dev/null 2>&1; then
	ward_fg "$WT_ARTIFACTS/v.out" "$WT_ARTIFACTS/v.err" run --headless \
	    --policy "$WT_SCRATCH/ask.ini" -- "$py" -v -c 'import json'
	assert_eq "python -v's exit status" 0 "$WT_STATUS"
	assert_grep "json's bytecode read from the host's __pycache__" \
	    '__pycache__/__init__\..*\.pyc matches .*/json/__init__\.py' "$WT_ARTIFACTS/v.err"
	assert_no_grep "json not compiled from its source" \
	    '^# code object from /.*/json/__init__\.py$' "$WT_ARTIFACTS/v.err"
else
	note "no bytecode in $py's json/__pycache__: the read-where-it-is check is left out"
fi

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

# The policy's own value wins, and is the only one (empty: Python writes
# bytecode again).
write_policy "$WT_SCRATCH/env.ini" '[run]' 'env = PYTHONDONTWRITEBYTECODE'
PYTHONDONTWRITEBYTECODE= ward_fg "$WT_ARTIFACTS/env.out" "$WT_ARTIFACTS/env.err" \
    run --headless --policy "$WT_SCRATCH/env.ini" -- sh -c 'env | grep ^PYTHONDONTWRITEBYTECODE='
tr -d '\r' <"$WT_ARTIFACTS/env.out" >"$WT_ARTIFACTS/env.txt"
assert_eq "the policy's PYTHONDONTWRITEBYTECODE, once" "PYTHONDONTWRITEBYTECODE=" \
    "$(cat "$WT_ARTIFACTS/env.txt")"
finish
