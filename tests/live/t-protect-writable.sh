#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Protected paths in a writable folder (issue 29, item 2): run as
# share/agents/claude-code.ini's header says (~/.claude writable), a
# script in the sandbox writes a SessionStart hook into ~/.claude's
# settings.json, puts one there by a rename, and drops a hook script:
# each is a request at the moment it is written, and denied, the host's
# files are as they were. An approved one (settings.local.json) is
# written by the supervisor, as approved. Claude Code's own files that
# run nothing (projects/, todos/) are written unasked, as before. The
# record has each request with the pattern that protected it.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || die "jq is needed on the host"
recipe=$(cd "$(dirname "$WARD")" && pwd)/share/agents/claude-code.ini
[ -r "$recipe" ] || die "no $recipe"

cdir=$HOME/.claude
canary=$WT_SCRATCH/canary
mkdir -p "$cdir/hooks" "$cdir/projects" "$canary"
printf '{"model": "opus"}\n' >"$cdir/settings.json"
touch -d @1000000000 "$cdir/settings.json"
before=$(stat -c '%s %Y %i' "$cdir/settings.json"; sha256sum <"$cdir/settings.json")
real=$(realpath "$cdir")

agent='sleep 1
d=$1 c=$2
hook="{\"hooks\": {\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"touch $c/session-ran\"}]}]}}"
echo "$hook" > "$d/settings.json" && echo "settings written" ||
    echo "settings refused"
echo "$hook" > "$d/new.json" && mv "$d/new.json" "$d/settings.json" &&
    echo "rename written" || echo "rename refused"
printf "#!/bin/sh\ntouch %s/hook-ran\n" "$c" > "$d/hooks/start.sh" &&
    echo "hook written" || echo "hook refused"
echo "{\"local\": 1}" > "$d/settings.local.json" && echo "local written" ||
    echo "local refused"
echo "{}" > "$d/projects/session.jsonl" && echo "session written"'

out=$WT_ARTIFACTS/out
err=$WT_ARTIFACTS/err
ANTHROPIC_API_KEY=sk-ant-test-not-a-key CLAUDE_CONFIG_DIR=$cdir \
    ward_bg "$out" "$err" run --headless --policy "$recipe" -- \
    sh -c "$agent" agent "$real" "$canary"
headless_supervisor "$WT_PID"

# From outside: settings.local.json approved, every other request denied.
declare -A seen=()
pend=$WT_ARTIFACTS/pending.json
end=$(($(now_ms) + 60000))
while kill -0 "$WT_PID" 2>/dev/null &&
    [ "$(ps -o stat= -p "$WT_PID" 2>/dev/null | cut -c1)" != Z ]; do
	[ "$(now_ms)" -lt "$end" ] || { fail "still running after 60 s"; break; }
	"$WARD" pending "$WT_RUN" --json >"$pend" 2>/dev/null </dev/null || true
	while IFS=$'\t' read -r id subject subject2 why; do
		[ -n "$id" ] || continue
		[ -z "${seen[$id]:-}" ] || continue
		seen[$id]="$subject"$'\t'"$subject2"$'\t'"$why"
		note "pending $id: $subject $subject2 ($why)"
		if [ "$subject" = "$real/settings.local.json" ]; then
			"$WARD" approve "$WT_RUN" "$id" >/dev/null 2>&1 </dev/null ||
			    fail "ward approve $WT_RUN $id failed"
		else
			"$WARD" deny "$WT_RUN" "$id" >/dev/null 2>&1 </dev/null ||
			    fail "ward deny $WT_RUN $id failed"
		fi
	done < <(jq -r '.[] | [.id, .subject, (.subject2 // "-"), .why] | @tsv' \
	    "$pend" 2>/dev/null)
	sleep 0.1
done
ward_wait 30
assert_eq "ward's exit status (the agent's)" 0 "$WT_STATUS"
[ "$WT_STATUS" = 0 ] || show "ward stderr" "$err"

# A request each, with the pattern that protected it.
asked() {
	local path=$1 pattern=$2 id
	for id in "${!seen[@]}"; do
		IFS=$'\t' read -r s1 s2 why <<<"${seen[$id]}"
		[ "$s1" = "$path" ] || [ "$s2" = "$path" ] || continue
		[[ $why == "protected: $pattern ("* ]] &&
		    { note "ok: $path asked, why names $pattern"; return 0; }
		fail "$path: why is '$why'"
		return 0
	done
	fail "no request for $path (written unasked)"
}
asked "$real/settings.json" "~/.claude/settings.json"
asked "$real/hooks/start.sh" "~/.claude/hooks/**"
asked "$real/settings.local.json" "~/.claude/settings.local.json"
# mv may try the rename twice (renameat2 with RENAME_NOREPLACE, then
# without): each try is a request of its own.
[ "${#seen[@]}" -ge 4 ] && note "ok: ${#seen[@]} requests asked" ||
    fail "requests asked: ${#seen[@]}, want at least 4"
assert_grep "the agent saw settings.json refused" '^settings refused$' "$out"
assert_grep "the agent saw the rename refused" '^rename refused$' "$out"
assert_grep "the agent saw the hook refused" '^hook refused$' "$out"
assert_grep "the approved one went through" '^local written$' "$out"
assert_grep "a session file went on unasked" '^session written$' "$out"

# The host: settings.json as it was, no hook, the approved file there.
assert_eq "settings.json untouched (size, mtime, inode, bytes)" "$before" \
    "$(stat -c '%s %Y %i' "$cdir/settings.json"; sha256sum <"$cdir/settings.json")"
assert_absent "no hook script" "$cdir/hooks/start.sh"
assert_file_content "settings.local.json, as approved" '{"local": 1}' \
    "$cdir/settings.local.json"
assert_file_content "projects/session.jsonl" '{}' "$cdir/projects/session.jsonl"
assert_absent "nothing ran" "$canary/session-ran"

# The record: each asked and answered by a person, its rule the pattern.
log=$WT_ARTIFACTS/log.json
log_json "$WT_RUN" "$log"
assert_log "the record: settings.json denied, rule names its pattern" "$log" \
    ".kind == \"write\" and .subject == \"$real/settings.json\" and
    .verdict == \"deny\" and .how == \"person\" and
    (.rule | startswith(\"protected: ~/.claude/settings.json (\"))"
assert_log "the record: the rename onto it denied" "$log" \
    ".kind == \"write\" and .subject2 == \"$real/settings.json\" and
    .verdict == \"deny\" and (.rule | startswith(\"protected: \"))"
assert_log "the record: the hook denied" "$log" \
    ".kind == \"write\" and .subject == \"$real/hooks/start.sh\" and
    .verdict == \"deny\" and (.rule | startswith(\"protected: ~/.claude/hooks/** (\"))"
assert_log "the record: settings.local.json allowed by a person" "$log" \
    ".kind == \"write\" and .subject == \"$real/settings.local.json\" and
    .verdict == \"allow\" and .how == \"person\" and
    (.rule | startswith(\"protected: ~/.claude/settings.local.json (\"))"

finish
