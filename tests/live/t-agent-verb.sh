#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ward agent NAME [ARGS]` (issue 30, point 11): the recipe picked by the
# agent's name, the current folder the project, the program found on the
# caller's PATH. A fake agent named claude, in a folder on PATH that the
# sandbox would not show, writes a file in its current folder: from
# outside, the run used claude-code.ini (the run's copy of its policy),
# started in the project with the ARGS given, and the write is staged
# for `ward apply`, the host's folder untouched until then.
. "$(dirname "$0")/lib.sh"

share=$(cd "$(dirname "$WARD")" && pwd)/share
bin=$WT_SCRATCH/agent-bin
proj=$WT_SCRATCH/proj
home=$WT_SCRATCH/home
mkdir -p "$bin" "$proj"
mkdir -m 700 -p "$home"
printf 'kept\n' >"$proj/README"
cat >"$bin/claude" <<'AGENT'
#!/bin/sh
echo "agent args: $*"
echo "agent cwd: $(pwd)"
echo "edited by the agent" >made-by-agent.txt
AGENT
chmod 755 "$bin/claude"

st=0
(cd "$proj" && HOME=$home PATH=$bin:$PATH "$WARD" agent claude --flag \
    "two words" >"$WT_ARTIFACTS/out" 2>"$WT_ARTIFACTS/err" </dev/null) ||
    st=$?
show "ward stderr" "$WT_ARTIFACTS/err"
show "program output" "$WT_ARTIFACTS/out"
tr -d '\r' <"$WT_ARTIFACTS/out" >"$WT_ARTIFACTS/out.txt"
assert_eq "exit status of ward agent claude" 0 "$st"
assert_grep "the agent got its ARGS" '^agent args: --flag two words$' \
    "$WT_ARTIFACTS/out.txt"
assert_grep "the agent started in the project" "^agent cwd: ${proj//./\\.}\$" \
    "$WT_ARTIFACTS/out.txt"
run=$(run_id_of "$WT_ARTIFACTS/err" || true)
[ -n "$run" ] || die "no run id from ward agent"
assert_eq "the run's policy is claude-code.ini" \
    "$(sha256sum <"$share/agents/claude-code.ini")" \
    "$(sha256sum <"$(run_dir "$run")/policy.ini")"
log_json "$run" "$WT_ARTIFACTS/log.json"
assert_log "the record: the program run by its path on the host's PATH" \
    "$WT_ARTIFACTS/log.json" \
    ".kind == \"exec\" and .subject == \"$bin/claude\""
assert_absent "the host's project: no write before ward apply" \
    "$proj/made-by-agent.txt"
"$WARD" diff "$run" --stat >"$WT_ARTIFACTS/diff" 2>&1 </dev/null || true
assert_grep "ward diff: the agent's file is staged" 'made-by-agent\.txt' \
    "$WT_ARTIFACTS/diff"
"$WARD" apply "$run" >"$WT_ARTIFACTS/apply" 2>&1 </dev/null ||
    fail "ward apply $run exited $?"
assert_file_content "ward apply put the agent's file in place" \
    "edited by the agent" "$proj/made-by-agent.txt"
assert_file_content "the project's other file as it was" kept "$proj/README"

# A name with no recipe: said, 125, no run.
st=0
(cd "$proj" && "$WARD" agent nosuch >"$WT_ARTIFACTS/out.no" \
    2>"$WT_ARTIFACTS/err.no" </dev/null) || st=$?
assert_eq "exit status for an agent with no recipe" 125 "$st"
assert_grep "the refusal names the recipe looked for" \
    'agents/nosuch\.ini: No such file' "$WT_ARTIFACTS/err.no"
assert_no_grep "no run started" 'started' "$WT_ARTIFACTS/err.no"
finish
