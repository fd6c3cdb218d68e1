#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Protected paths in a --project run (issue 29, items 1 and 2): an agent
# that writes .git/hooks/post-checkout, adds core.fsmonitor to
# .git/config, writes .envrc and a hook in the folder core.hooksPath
# names gets a request for each, at the moment
# it writes (never staged silently, whatever the project's "writable
# without a request" says). Denied, nothing of them is staged: `ward diff
# --stat` does not list them, the host's .git is byte for byte as it was,
# and the person's own next steps outside the sandbox (`ward apply`,
# `git status`, `git checkout -b x`) run nothing. The record has each
# request, with the pattern that protected it. An ordinary file written
# beside them is still staged unasked.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || die "git is needed on the host"
command -v jq >/dev/null || die "jq is needed on the host"

proj=$WT_SCRATCH/proj
canary=$WT_SCRATCH/canary
mkdir -p "$proj" "$canary"
chmod 755 "$proj"
git -C "$proj" init -q -b main
echo "the project" >"$proj/README"
git -C "$proj" add README
git -C "$proj" -c user.name=t -c user.email=t@t commit -q -m init
# The project's hooks live in .githooks (core.hooksPath, read by ward at
# the run's start): protected as .git/hooks is.
git -C "$proj" config core.hooksPath .githooks
mkdir "$proj/.githooks"
real=$(realpath "$proj")

# The project's .git, hooks and config as one text, before and after.
git_state() {
	(cd "$1/.git" && find . -path ./objects -prune -o -path ./logs -prune \
	    -o -name index -prune -o -printf '%p %m %y\n' | LC_ALL=C sort &&
	    sha256sum config) 2>&1
}
before=$(git_state "$proj")
[ -e "$proj/.envrc" ] && die ".envrc before the run"

# The agent: each write goes on when refused (the script reports it),
# then an ordinary file that must be staged unasked. It waits a moment
# first, so that ward is seen supervising it even where nothing is asked.
agent='sleep 1
cd "$1"
c=$2
printf "#!/bin/sh\ntouch %s/hook-ran\n" "$c" > .git/hooks/post-checkout &&
    chmod 755 .git/hooks/post-checkout && echo "hook written" ||
    echo "hook refused"
printf "[core]\n\tfsmonitor = \"touch %s/fsmonitor-ran; false\"\n" "$c" \
    >> .git/config && echo "config written" || echo "config refused"
printf "touch %s/envrc-ran\n" "$c" > .envrc && echo "envrc written" ||
    echo "envrc refused"
printf "#!/bin/sh\ntouch %s/hookspath-ran\n" "$c" > .githooks/post-checkout &&
    chmod 755 .githooks/post-checkout && echo "hookspath written" ||
    echo "hookspath refused"
echo "plain" > notes.txt && echo "notes written"'

out=$WT_ARTIFACTS/out
err=$WT_ARTIFACTS/err
ward_bg "$out" "$err" run --headless --project "$proj" -- \
    sh -c "$agent" agent "$real" "$canary"
headless_supervisor "$WT_PID"

# Answer from outside: each pending request checked in `ward pending
# --json` (kind write, the path, why naming the protected pattern), then
# denied. Stop once ward ends (before the change nothing is asked).
declare -A seen=()
pend=$WT_ARTIFACTS/pending.json
end=$(($(now_ms) + 60000))
while kill -0 "$WT_PID" 2>/dev/null &&
    [ "$(ps -o stat= -p "$WT_PID" 2>/dev/null | cut -c1)" != Z ]; do
	[ "$(now_ms)" -lt "$end" ] || { fail "still running after 60 s"; break; }
	"$WARD" pending "$WT_RUN" --json >"$pend" 2>/dev/null </dev/null || true
	while IFS=$'\t' read -r id subject why; do
		[ -n "$id" ] || continue
		[ -z "${seen[$id]:-}" ] || continue
		seen[$id]="$subject"$'\t'"$why"
		note "pending $id: $subject ($why)"
		"$WARD" deny "$WT_RUN" "$id" >/dev/null 2>&1 </dev/null ||
		    fail "ward deny $WT_RUN $id failed"
	done < <(jq -r '.[] | [.id, .subject, .why] | @tsv' "$pend" 2>/dev/null)
	sleep 0.1
done
ward_wait 30
assert_eq "ward's exit status (the agent's)" 0 "$WT_STATUS"

# One request a file, each naming its pattern and saying it runs code.
for want in ".git/hooks/post-checkout	.git/hooks/**" \
    ".git/config	.git/config" ".envrc	.envrc" \
    ".githooks/post-checkout	$real/.githooks/**"; do
	path=${want%%	*} pattern=${want#*	}
	hit=
	for id in "${!seen[@]}"; do
		[ "${seen[$id]%%	*}" = "$real/$path" ] || continue
		hit=$id
		[[ ${seen[$id]#*	} == "protected: $pattern ("* ]] &&
		    note "ok: $path asked, why names $pattern" ||
		    fail "$path: why is '${seen[$id]#*	}'"
	done
	[ -n "$hit" ] || fail "no request for $path (it was written unasked)"
done
assert_eq "requests asked" 4 "${#seen[@]}"
assert_grep "the agent saw the hook refused" '^hook refused$' "$out"
assert_grep "the agent saw the config refused" '^config refused$' "$out"
assert_grep "the agent saw .envrc refused" '^envrc refused$' "$out"
assert_grep "the agent saw .githooks refused" '^hookspath refused$' "$out"
assert_grep "the ordinary file went on" '^notes written$' "$out"

# Nothing of them staged; the ordinary file is.
up=$(run_dir "$WT_RUN")/projects/0/upper
for f in .git/hooks/post-checkout .git/config .envrc .githooks/post-checkout; do
	assert_absent "$f not staged in upper/" "$up/$f"
done
assert_file_content "notes.txt staged" "plain" "$up/notes.txt"
stat_out=$WT_ARTIFACTS/diff-stat
"$WARD" diff "$WT_RUN" --stat >"$stat_out" 2>&1 </dev/null || true
assert_grep "ward diff --stat lists notes.txt" 'notes\.txt' "$stat_out"
assert_no_grep "ward diff --stat lists no hook" 'hooks' "$stat_out"
assert_no_grep "ward diff --stat lists no .git/config" '\.git/config' "$stat_out"
assert_no_grep "ward diff --stat lists no .envrc" 'envrc' "$stat_out"

# The record: each asked, denied by a person, the pattern in its rule.
log=$WT_ARTIFACTS/log.json
log_json "$WT_RUN" "$log"
for want in ".git/hooks/post-checkout	.git/hooks/**" \
    ".git/config	.git/config" ".envrc	.envrc" \
    ".githooks/post-checkout	$real/.githooks/**"; do
	path=${want%%	*} pattern=${want#*	}
	assert_log "the record: $path denied by a person, rule names $pattern" \
	    "$log" ".kind == \"write\" and .subject == \"$real/$path\" and
	    .verdict == \"deny\" and .how == \"person\" and
	    (.rule | startswith(\"protected: $pattern (\")) and .request_id > 0"
done

# The person's next steps, outside the sandbox: apply what is staged,
# then git as they would use it. Nothing the agent wrote may run.
apply_out=$WT_ARTIFACTS/apply
"$WARD" apply "$WT_RUN" >"$apply_out" 2>&1 </dev/null ||
    { show "ward apply" "$apply_out"; fail "ward apply failed"; }
assert_file_content "notes.txt applied" "plain" "$proj/notes.txt"
assert_eq "the host's .git is as it was" "$before" "$(git_state "$proj")"
assert_absent ".envrc not on the host" "$proj/.envrc"
assert_absent ".githooks/post-checkout not on the host" \
    "$proj/.githooks/post-checkout"
git -C "$proj" status --short >"$WT_ARTIFACTS/git-status" 2>&1 ||
    fail "git status failed"
git -C "$proj" checkout -q -b x >"$WT_ARTIFACTS/git-checkout" 2>&1 ||
    fail "git checkout -b x failed"
for c in hook-ran fsmonitor-ran envrc-ran hookspath-ran; do
	assert_absent "nothing ran: no $c" "$canary/$c"
done

# Outside the projects, a policy's allow does not reach a protected path:
# with `allow = DIR/**` over an --in folder, ok.txt is written unasked on
# the host, DIR/.envrc is asked (and denied here).
inp=$WT_SCRATCH/in
mkdir -p "$inp"
chmod 755 "$inp"
inreal=$(realpath "$inp")
pol=$WT_SCRATCH/allow.ini
write_policy "$pol" "[files]" "allow = $inreal/**"
out2=$WT_ARTIFACTS/out-in
err2=$WT_ARTIFACTS/err-in
ward_bg "$out2" "$err2" run --headless --policy "$pol" --in "$inp" -- \
    sh -c 'sleep 1; echo ok > "$1/ok.txt" && echo "ok written"
	echo "touch $2/in-envrc-ran" > "$1/.envrc" && echo "envrc written" ||
	    echo "envrc refused"' agent "$inreal" "$canary"
n=0
end=$(($(now_ms) + 30000))
while kill -0 "$WT_PID" 2>/dev/null &&
    [ "$(ps -o stat= -p "$WT_PID" 2>/dev/null | cut -c1)" != Z ]; do
	[ "$(now_ms)" -lt "$end" ] || { fail "--in run still running after 30 s"; break; }
	"$WARD" pending "$WT_RUN" --json >"$pend" 2>/dev/null </dev/null || true
	while IFS=$'\t' read -r id subject why; do
		[ -n "$id" ] || continue
		n=$((n + 1))
		note "pending $id: $subject ($why)"
		assert_eq "--in: the request is for .envrc" "$inreal/.envrc" "$subject"
		"$WARD" deny "$WT_RUN" "$id" >/dev/null 2>&1 </dev/null || true
	done < <(jq -r '.[] | [.id, .subject, .why] | @tsv' "$pend" 2>/dev/null)
	sleep 0.1
done
ward_wait 30
assert_eq "--in: one request" 1 "$n"
assert_grep "--in: ok.txt went through, allowed" '^ok written$' "$out2"
assert_grep "--in: .envrc refused" '^envrc refused$' "$out2"
assert_file_content "--in: ok.txt on the host" ok "$inp/ok.txt"
assert_absent "--in: no .envrc on the host" "$inp/.envrc"

finish
