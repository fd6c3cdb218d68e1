#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The real Claude Code and Codex (npm, as t-agents.sh installs them) do a
# small task under their recipes, in ward's agent pane in a real terminal
# (tmux), against a scripted model API in the fake world (net-model.py,
# served by net-tls.py at https://api.test/ with the world's test CA;
# Messages SSE for Claude Code, Responses SSE for Codex). The script has
# each agent: fix a bug in the project (a staged write), run the
# project's tests, install a package (denied, with a reason), write a
# file outside the project (denied, with a reason) and fetch from a new
# host (approved). The test answers from outside with `ward approve` and
# `ward deny` and checks, from outside:
#  - every model request carried the real key (the API's log), the
#    phantom never; the key is nowhere in the record, the run's folders,
#    the project, the agent's config folder or what the terminal showed;
#  - the edit is staged: the host file unchanged, `ward diff` shows it;
#    `ward apply` puts it in place and the project's tests pass on the
#    host; the end of the run says what waits (when this ward says it);
#  - each denial reached the agent: the next model request's tool result
#    has the program's "Permission denied" (and, once ward tells it, the
#    person's reason: "ward: denied: REASON"); the approved host
#    answered (its tool result has "hello from web");
#  - the outside file is untouched.
# Claude Code runs twice: as `claude -p` (its one-shot mode) and on its
# own full screen, typed to through the pane as a person would (its key
# question answered, the task typed, /exit); Codex as `codex exec`. Each
# in the agent pane, the real key a [secret] whose host is api.test.
# Runs in a fake world's client namespace (run-all.sh). Opt-in as
# t-agents is (WARD_TEST_AGENTS=1, agents_opt_in): the npm install is cached in $WT_BUILD/agents-npm; without
# npm the test skips, never under CI=true.
. "$(dirname "$0")/lib.sh"
agents_opt_in
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
. "$(dirname "$0")/agents-lib.sh"
gate_test_init

command -v tmux >/dev/null || {
	[ "${CI:-false}" != true ] || die "tmux is not installed (CI=true)"
	skip "tmux is not installed"
}
share=$(cd "$(dirname "$WARD")" && pwd)/share
agents_npm_ready
if [ ! -x "$AGENTS_NPM/node_modules/.bin/claude" ] &&
    [ ! -x "$AGENTS_NPM/node_modules/.bin/codex" ]; then
	[ "${CI:-false}" != true ] ||
	    die "npm could not install Claude Code nor Codex (CI=true: they must run)"
	skip "npm could not install Claude Code nor Codex (see npm.log)"
fi

# The ward binaries say what a run leaves staged at its end (issue 30)
# only once that is built; until then the test notes its absence.
end_line=no
# (its line: "N file(s) staged in DIR: `ward diff ID` to read, `ward
# apply ID` to keep").
grep -aqF '` to keep' "$(dirname "$WARD")"/ward* 2>/dev/null && end_line=yes

# The same for a person's reason told to the agent ("ward: denied:
# REASON" on the denied process's stderr).
reason_told=no
grep -aqF 'ward: denied: %s' "$(dirname "$WARD")"/ward-supervisor 2>/dev/null &&
    reason_told=yes

export TMUX_TMPDIR=$WT_SCRATCH SHELL=/bin/sh
WT_TMUX_SOCKET=warde2e$$
tm() { tmux -L "$WT_TMUX_SOCKET" "$@"; }

# make_project DIR: a module with a bug and its test, the agent's task.
make_project() {
	mkdir -p "$1"
	printf 'def add(a, b):\n    return a - b\n' >"$1/calc.py"
	printf '%s\n' 'from calc import add' \
	    'assert add(2, 3) == 5, "add(2, 3) is %d" % add(2, 3)' \
	    'print("TESTS PASS")' >"$1/test_calc.py"
}

# model_script STEP...: what the scripted model has the agent run.
model_script() {
	python3 -c 'import json, sys
print(json.dumps({"steps": sys.argv[1:], "done": "All done: the bug is fixed."}))' \
	    "$@" >"$WT_WORLD/ctl/model-script.json"
}

# answer_requests RUN-NAME STATUS-FILE OUTSIDE LIMIT: answers the run's
# requests from outside until the run ends: an install is denied, a write
# under OUTSIDE is denied, a lookup of or a connection to other.test is
# approved, anything else (a start-up host the recipe does not name) is
# denied; each answer a line in $WT_ARTIFACTS/NAME.answers.
answer_requests() {
	local name=$1 status=$2 outside=$3 limit=$4 end line id kind subj verb
	local log=$WT_ARTIFACTS/$name.answers
	: >"$log"
	end=$(($(now_ms) + limit * 1000))
	while [ ! -s "$status" ] && [ "$(now_ms)" -lt "$end" ]; do
		"$WARD" pending --json "$name" 2>/dev/null </dev/null |
		    jq -r '.[] | [.id, .kind, .subject] | @tsv' 2>/dev/null \
		    >"$WT_SCRATCH/pending.tsv" || true
		while IFS=$'\t' read -r id kind subj; do
			[ -n "$id" ] || continue
			local reason=""
			case $kind:$subj in
			package:* | install:*)
				verb=deny reason="use the copy vendored in the project" ;;
			write:"$outside"/* | create:"$outside"/*)
				verb=deny reason="stay inside the project" ;;
			dns:other.test | connect:other.test:* | connect:*:8080)
				verb=approve ;;
			*) verb=deny reason="not part of the task" ;;
			esac
			if [ "$verb" = deny ]; then
				"$WARD" deny --reason "$reason" "$name" "$id" \
				    >/dev/null 2>&1 </dev/null || true
			else
				"$WARD" approve "$name" "$id" >/dev/null 2>&1 </dev/null || true
			fi
			printf '%s %s %s %s\n' "$verb" "$id" "$kind" "$subj" >>"$log"
		done <"$WT_SCRATCH/pending.tsv"
		sleep 0.3
	done
	sed 's/^/  answered: /' "$log"
}

# drive NAME POLICY PROJECT OUTSIDE CMD...: CMD under `ward run --agent`
# in a tmux pane of 120x40, the requests answered, until it ends (at
# most 150 s); $DRIVE_KEYS, when set, names a function that types to
# it once it started. Sets RUN (its id) and STATUS (ward's exit status); the
# final screen is $WT_ARTIFACTS/NAME.screen.
drive() {
	local name=$1 pol=$2 proj=$3 outside=$4 launch status
	shift 4
	launch=$WT_SCRATCH/$name.launch
	status=$WT_SCRATCH/$name.status
	rm -f "$status"
	{
		printf 'cd %q || exit 99\n' "$proj"
		printf 'TERM=xterm-256color %q run --agent --name %q --timeout 150' \
		    "$WARD" "$name"
		printf ' --policy %q --project %q --chdir %q --in %q --in %q --' \
		    "$pol" "$proj" "$proj" "$AGENTS_NPM" "$outside"
		printf ' %q' "$@"
		printf '\necho $? >%q\nsleep 600\n' "$status"
	} >"$launch"
	cp "$launch" "$WT_ARTIFACTS/$name.launch"
	tm -f /dev/null new-session -d -s "$name" -x 120 -y 40 "bash $(printf '%q' "$launch")"
	tm set-option -g status off >/dev/null 2>&1 || true
	# the run's id, from ward ps once it is up
	RUN=""
	local i
	for i in $(seq 100); do
		RUN=$("$WARD" ps 2>/dev/null </dev/null | awk -v n="$name" '$0 ~ n { print $1; exit }')
		[ -n "$RUN" ] && break
		[ -s "$status" ] && break
		sleep 0.2
	done
	note "$name: run ${RUN:-(none seen)}"
	# The program ends by itself; its console then waits for q.
	answer_requests "$name" "$WT_SCRATCH/$name.exited" "$outside" 150 &
	local answerer=$!
	WT_BG_PIDS+=("$answerer")
	# An interactive agent is typed to, through the pane.
	[ -z "${DRIVE_KEYS:-}" ] || "$DRIVE_KEYS" "$name"
	exited() {
		tm capture-pane -p -J -t "$name" >"$WT_SCRATCH/$name.screen" 2>/dev/null
		grep -Eq 'exited with status|exited [0-9]' "$WT_SCRATCH/$name.screen" ||
		    [ -s "$status" ]
	}
	if wait_for 160 exited; then
		note "$name: the program ended"
	else
		fail "$name: the program did not end within 160 s"
	fi
	cp "$WT_SCRATCH/$name.screen" "$WT_ARTIFACTS/$name.pane-end"
	echo done >"$WT_SCRATCH/$name.exited"
	wait "$answerer" 2>/dev/null || true
	[ -s "$status" ] || tm send-keys -t "$name" q
	wait_for 15 test -s "$status" || {
		tm send-keys -t "$name" q
		wait_for 10 test -s "$status" || true
	}
	STATUS=$(cat "$status" 2>/dev/null || echo none)
	tm capture-pane -p -J -S -200 -t "$name" >"$WT_ARTIFACTS/$name.screen" 2>/dev/null || true
	show "$name: the terminal after ward" "$WT_ARTIFACTS/$name.screen"
	# The server goes too: the next agent's session gets a new one, with
	# the environment (its key) exported then, not this one's.
	tm kill-server >/dev/null 2>&1 || true
}

# api_mark: where this agent's requests begin in the API's log (root's
# file: a test as another user cannot empty it). api_since NAME: them,
# into $API_LOG.
api_mark() { API_MARK=$(wc -l <"$WT_WORLD/api.log"); }
api_since() {
	API_LOG=$WT_ARTIFACTS/$1.api.log
	sleep 0.3
	tail -n +"$((API_MARK + 1))" "$WT_WORLD/api.log" >"$API_LOG"
}

# run_ended RUN: the record has the run's end, as `ward apply` wants it
# (the console may leave before the supervisor has written it).
run_ended() {
	[ -n "$(sql "SELECT ended_ms FROM runs WHERE id = '$1' AND ended_ms IS NOT NULL" 2>/dev/null)" ]
}

# check_run NAME PROJECT OUTSIDE REAL KEY-FILTER: the checks from outside
# (the header above).
check_run() {
	local name=$1 proj=$2 outside=$3 real=$4 keyf=$5 n
	assert_eq "$name: ward's exit status" 0 "$STATUS"
	[ -n "$RUN" ] || { fail "$name: no run id"; return 0; }
	api_since "$name"
	n=$(log_count "$API_LOG" '.path | startswith("/v1/")')
	note "$name: $n model request(s)"
	[ "$n" -ge 6 ] && note "ok: $name: the agent asked the model at each step" ||
	    fail "$name: $n model requests, expected at least 6 (5 steps and the end)"
	api_has "$name: model requests without the real key" 0 0 \
	    "(.path | startswith(\"/v1/\")) and ($keyf) != \"$real\""
	api_has "$name: requests with a phantom" 0 0 '.phantom'
	# Each step's result went back to the model: the next request's
	# tool result (the history repeats in each later one). The shells
	# say a refused write as "zsh: permission denied: PATH" (Claude
	# Code's) or "sh: cannot create PATH: Permission denied" (dash).
	api_has "$name: the project's tests passed inside" 1 "" \
	    '.seen | contains("TESTS PASS")'
	# dash says "sh: 1: python3: Permission denied"; the command's own
	# "pip exit 126" may come before or after it (stdout and stderr
	# race in the pane's pty).
	api_has "$name: the denied install reached the agent as permission denied" 1 "" \
	    '.seen | test("permission denied[^\"]{0,40}(python3|pip)|(python3|pip): permission denied"; "i")'
	api_has "$name: the denied write reached the agent as permission denied" 1 "" \
	    "(.seen | contains(\"$outside/canary\")) and (.seen | test(\"permission denied: [^\\\"]*canary|canary: permission denied\"; \"i\"))"
	# A person's reason, once ward tells it to the denied process's
	# stderr when that is a pipe: Codex reads its commands' output from
	# pipes; Claude Code's Bash tool sends it to a file, which ward never
	# writes (a deputy write), so there the reason is only noted.
	if [ "$reason_told" = no ]; then
		note "note: $name: this ward does not tell the reason to the agent"
	elif [ "$name" = codex ]; then
		api_has "$name: the person's reason reached the agent" 1 "" \
		    '.seen | contains("ward: denied: stay inside the project")'
	elif grep -qF 'ward: denied: stay inside the project' "$API_LOG"; then
		note "ok: $name: the person's reason reached the agent"
	else
		note "note: $name: the person's reason did not reach the agent (its tool's output is a file)"
	fi
	api_has "$name: the approved host answered the agent" 1 "" \
	    '.seen | contains("hello from web")'
	assert_grep "$name: the lookup of other.test was asked and approved" \
	    '^approve [0-9]+ (dns|connect) other\.test' "$WT_ARTIFACTS/$name.answers"

	# the edit: staged, announced, then applied
	wait_for 30 run_ended "$RUN" || fail "$name: no end of run $RUN in the record after 30 s"
	assert_grep "$name: the host's calc.py is unchanged before apply" \
	    'return a - b' "$proj/calc.py"
	"$WARD" diff "$RUN" >"$WT_ARTIFACTS/$name.diff" 2>&1 </dev/null ||
	    fail "$name: ward diff $RUN failed"
	assert_grep "$name: ward diff shows the agent's edit" '^\+    return a \+ b$' \
	    "$WT_ARTIFACTS/$name.diff"
	assert_grep "$name: ward diff shows the old line" '^-    return a - b$' \
	    "$WT_ARTIFACTS/$name.diff"
	if [ "$end_line" = yes ]; then
		assert_grep "$name: the end of the run says what is staged" \
		    "1 file staged in .*ward apply $RUN" "$WT_ARTIFACTS/$name.screen"
		assert_grep "$name: the pane's last status says it too" \
		    "1 file staged: ward apply $RUN" "$WT_ARTIFACTS/$name.pane-end"
	else
		note "note: this ward has no end-of-run line on staged changes (issue 30, built elsewhere)"
	fi
	local st=0
	"$WARD" apply "$RUN" >"$WT_ARTIFACTS/$name.apply" 2>&1 </dev/null || st=$?
	assert_eq "$name: ward apply $RUN exit status" 0 "$st"
	[ "$st" = 0 ] || show "ward apply" "$WT_ARTIFACTS/$name.apply"
	assert_grep "$name: the host's calc.py has the edit after apply" \
	    'return a \+ b' "$proj/calc.py"
	(cd "$proj" && python3 test_calc.py) >"$WT_ARTIFACTS/$name.hosttest" 2>&1 ||
	    true
	assert_grep "$name: the project's tests pass on the host" '^TESTS PASS$' \
	    "$WT_ARTIFACTS/$name.hosttest"
	assert_file_content "$name: the file outside the project is untouched" \
	    old "$outside/canary"

	# the key: only the API saw it
	assert_nowhere "$name: the real key is nowhere in ward's state (record, runs)" \
	    "$real" "$XDG_STATE_HOME/ward"
	assert_nowhere "$name: the real key is nowhere in the project or the config folder" \
	    "$real" "$proj" "$HOME/.claude" "$HOME/.codex"
	assert_nowhere "$name: the real key is not on the terminal" "$real" \
	    "$WT_ARTIFACTS/$name.screen" "$WT_ARTIFACTS/$name.pane-end" \
	    "$WT_ARTIFACTS/$name.diff"
}

# recipe_policy RECIPE SECRET OUT: the recipe as shipped, with its
# [secret]'s host the world's API (api.test:443, verified with the test
# CA) and requests waiting 100 s.
recipe_policy() {
	sed -e "/^\\[secret $2\\]/,/^\\[/ s/^hosts = .*/hosts = api.test:443/" \
	    -e 's/^ask_timeout = .*/ask_timeout = 100/' \
	    -e "s|^\\[network\\]\$|[network]\\nupstream_ca = $GATE_CA|" \
	    "$share/agents/$1" >"$3"
	cp "$3" "$WT_ARTIFACTS/$(basename "$3")"
}

# The script, the same for both agents: $OUT is the outside folder.
steps() {
	local out=$1
	model_script \
	    "sed -i 's/return a - b/return a + b/' calc.py && echo EDITED" \
	    "python3 test_calc.py" \
	    "python3 -m pip install $PKG_OPTS --target /tmp/lib wardtiny; echo pip exit \$?" \
	    "echo pwned > $out/canary; echo write exit \$?" \
	    "curl -sS -m 20 http://other.test:8080/; echo curl exit \$?"
}
PKG_OPTS="--no-cache-dir --disable-pip-version-check --no-input -i http://pypi.test:8091/simple/ --trusted-host pypi.test:8091"

# --- Claude Code ---------------------------------------------------------
if [ -x "$AGENTS_NPM/node_modules/.bin/claude" ]; then
	note "--- Claude Code $("$AGENTS_NPM/node_modules/.bin/claude" --version 2>/dev/null)"
	proj=$WT_SCRATCH/claude-proj out=$WT_SCRATCH/claude-out
	make_project "$proj"
	mkdir -p "$out" "$HOME/.claude" && echo old >"$out/canary"
	recipe_policy claude-code.ini ANTHROPIC_API_KEY "$WT_SCRATCH/claude.ini"
	steps "$out"
	real=sk-ant-ward$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	api_mark
	export ANTHROPIC_API_KEY=$real ANTHROPIC_BASE_URL=https://api.test \
	    CLAUDE_CONFIG_DIR=$HOME/.claude CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	    DISABLE_AUTOUPDATER=1
	drive claude "$WT_SCRATCH/claude.ini" "$proj" "$out" \
	    "$AGENTS_NPM/node_modules/.bin/claude" -p \
	    "Fix the bug in calc.py and run the tests." --allowedTools Bash
	unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL
	check_run claude "$proj" "$out" "$real" '.["x-api-key"]'
	assert_grep "claude: its last answer on the pane" 'All done: the bug is fixed' \
	    "$WT_ARTIFACTS/claude.pane-end"
else
	[ "${CI:-false}" != true ] || fail "Claude Code could not be installed (CI=true)"
	note "SKIP Claude Code: npm could not install it (see npm.log)"
fi


# --- Codex ---------------------------------------------------------------
if [ -x "$AGENTS_NPM/node_modules/.bin/codex" ]; then
	note "--- $("$AGENTS_NPM/node_modules/.bin/codex" --version 2>/dev/null)"
	proj=$WT_SCRATCH/codex-proj out=$WT_SCRATCH/codex-out
	make_project "$proj"
	mkdir -p "$out" "$HOME/.codex" && echo old >"$out/canary"
	# The model provider: the world's API, its key from OPENAI_API_KEY
	# (the recipe's [secret]: a phantom inside).
	printf '%s\n' 'model = "gpt-ward-test"' 'model_provider = "wardtest"' \
	    '[model_providers.wardtest]' 'name = "the test world"' \
	    'base_url = "https://api.test/v1"' 'env_key = "OPENAI_API_KEY"' \
	    'wire_api = "responses"' >"$HOME/.codex/config.toml"
	recipe_policy codex.ini OPENAI_API_KEY "$WT_SCRATCH/codex.ini"
	steps "$out"
	real=sk-ward$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	api_mark
	export OPENAI_API_KEY=$real CODEX_HOME=$HOME/.codex
	drive codex "$WT_SCRATCH/codex.ini" "$proj" "$out" \
	    "$AGENTS_NPM/node_modules/.bin/codex" exec --skip-git-repo-check \
	    --sandbox danger-full-access "Fix the bug in calc.py and run the tests."
	unset OPENAI_API_KEY
	check_run codex "$proj" "$out" "$real" '(.authorization | ltrimstr("Bearer "))'
	assert_grep "codex: its last answer on the pane" 'All done: the bug is fixed' \
	    "$WT_ARTIFACTS/codex.pane-end"
else
	[ "${CI:-false}" != true ] || fail "Codex could not be installed (CI=true)"
	note "SKIP Codex: npm could not install it (see npm.log)"
fi


# --- Claude Code, interactive ------------------------------------------
# Its own screen in the agent pane, typed to as a person would: its
# question about the key (the phantom: a new one each run, issue 30
# point 3) answered "1. Yes", the task typed at its prompt, /exit when
# it has answered.
on_pane() {
	tm capture-pane -p -J -t "$1" >"$WT_SCRATCH/$1.now" 2>/dev/null &&
	    grep -Eq -- "$2" "$WT_SCRATCH/$1.now"
}
claude_keys() {
	local name=$1
	if ! wait_for 60 on_pane "$name" 'Detected a custom API key|for shortcuts'; then
		fail "$name: neither its key question nor its prompt within 60 s"
		return 0
	fi
	if on_pane "$name" 'Detected a custom API key'; then
		note "$name: Claude Code asks about the key (the phantom); answering 1. Yes"
		tm send-keys -t "$name" 1
		wait_for 20 on_pane "$name" 'for shortcuts' ||
		    { tm send-keys -t "$name" Enter; wait_for 20 on_pane "$name" 'for shortcuts'; } ||
		    { fail "$name: no prompt after the key question"; return 0; }
	fi
	sleep 1
	tm send-keys -t "$name" -l "Fix the bug in calc.py and run the tests."
	sleep 0.5
	tm send-keys -t "$name" Enter
	if wait_for 120 on_pane "$name" 'All done: the bug is fixed'; then
		note "ok: $name: its answer on its own screen, in the pane"
		cp "$WT_SCRATCH/$name.now" "$WT_ARTIFACTS/$name.answered"
	else
		fail "$name: no answer on its screen within 120 s"
	fi
	tm send-keys -t "$name" -l "/exit"
	sleep 0.5
	tm send-keys -t "$name" Enter
}

if [ -x "$AGENTS_NPM/node_modules/.bin/claude" ]; then
	note "--- Claude Code, interactive"
	proj=$WT_SCRATCH/claudei-proj out=$WT_SCRATCH/claudei-out
	make_project "$proj"
	mkdir -p "$out" && echo old >"$out/canary"
	# Its first-run screens done (theme, this folder trusted), as after
	# a person's first start; the key question is left to come.
	cfg=$HOME/.claude/.claude.json
	[ -s "$cfg" ] || echo '{}' >"$cfg"
	jq --arg p "$proj" '.hasCompletedOnboarding = true | .theme = "dark" |
	    .projects[$p] = {hasTrustDialogAccepted: true,
	    hasCompletedProjectOnboarding: true}' "$cfg" >"$cfg.new" &&
	    mv "$cfg.new" "$cfg"
	steps "$out"
	real=sk-ant-ward$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	api_mark
	export ANTHROPIC_API_KEY=$real ANTHROPIC_BASE_URL=https://api.test
	DRIVE_KEYS=claude_keys drive claudei "$WT_SCRATCH/claude.ini" "$proj" "$out" \
	    "$AGENTS_NPM/node_modules/.bin/claude" --allowedTools Bash
	unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL
	check_run claudei "$proj" "$out" "$real" '.["x-api-key"]'
fi

finish
