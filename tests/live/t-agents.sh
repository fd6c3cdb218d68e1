#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The recipes of share/agents/ run the real agents: `claude --version`,
# `codex --help` and `gemini --version`, from an npm install on the host
# shown with --in, run headless under their recipe (exit 0, their output
# passed through); the recipe's config folder ("~/.claude" and so on,
# expanded to this user's home) is writable from inside and what is
# written there is on the host after the run; the record has the run's
# start, its exec and its exit, and the hosts each tried (dns and connect
# events, printed; none for these commands). Then each is asked to work
# (`claude -p`, `codex exec`, `gemini -p`, with a fake key) under its
# recipe closed off (no allow lines, connect = deny: nothing leaves the
# machine): the record names the hosts it tried, its API host among them
# and allowed by the recipe. aider is a pip package: its recipe is parsed
# by test-policy only.
#
# The npm install (agents-lib.sh) is cached in $WT_BUILD/agents-npm (the first run, as a
# user who may write there, takes a minute or two); without the cache,
# and when npm cannot install, an agent is skipped with a message, but
# under CI=true at least one of them must run. It runs only with
# WARD_TEST_AGENTS=1 (agents_opt_in): make check downloads nothing else.
. "$(dirname "$0")/lib.sh"
agents_opt_in
. "$(dirname "$0")/agents-lib.sh"

share=$(cd "$(dirname "$WARD")" && pwd)/share
agents_npm_ready
npm_dir=$AGENTS_NPM

# Each recipe's config folder, in this user's (fresh) home; the variable
# that points the agent at it, as ward(1)'s CODING AGENTS says to set it.
mkdir -p "$HOME/.claude" "$HOME/.codex" "$HOME/.gemini" "$HOME/.aider"
export CLAUDE_CONFIG_DIR=$HOME/.claude CODEX_HOME=$HOME/.codex GEMINI_CLI_HOME=$HOME
# The recipes' API keys are [secret]s, read when a run starts: a run
# whose key is not set does not start, as for a user without one. Fake
# keys (none of these commands reaches an API).
export ANTHROPIC_API_KEY=sk-ant-ward-test OPENAI_API_KEY=sk-ward-test \
    GEMINI_API_KEY=ward-test

ran=0
# try NAME RECIPE ERE CMD...: CMD under the recipe, its output matching ERE.
try() {
	local name=$1 recipe=$2 ere=$3
	shift 3
	if [ ! -x "$npm_dir/node_modules/.bin/$name" ]; then
		note "SKIP $name: npm could not install it (see npm.log)"
		return 0
	fi
	ward_fg "$WT_ARTIFACTS/$name.out" "$WT_ARTIFACTS/$name.err" run --headless \
	    --timeout 60 --policy "$share/agents/$recipe" --in "$npm_dir" \
	    -- "$npm_dir/node_modules/.bin/$name" "$@"
	assert_eq "$name $*: exit status" 0 "$WT_STATUS"
	tr -d '\r' <"$WT_ARTIFACTS/$name.out" >"$WT_ARTIFACTS/$name.txt"
	assert_grep "$name $*: its output passed through" "$ere" "$WT_ARTIFACTS/$name.txt"
	note "$name $* took $WT_ELAPSED_MS ms"
	[ -n "$WT_RUN" ] || { fail "$name: no run id"; return 0; }
	log_json "$WT_RUN" "$WT_ARTIFACTS/$name.log"
	assert_log "$name: the record has its exec" "$WT_ARTIFACTS/$name.log" \
	    ".kind == \"exec\" and .subject == \"$npm_dir/node_modules/.bin/$name\""
	assert_log "$name: the record has its exit 0" "$WT_ARTIFACTS/$name.log" \
	    '.kind == "run" and .subject == "exit" and (.detail | startswith("exit_code=0"))'
	hosts=$(jq -r 'select(.kind == "dns" or .kind == "connect")
	    | "\(.kind) \(.subject) \(.verdict)"' "$WT_ARTIFACTS/$name.log" | sort -u |
	    tr '\n' ';')
	note "$name $*: hosts tried: ${hosts:-none}"
	ran=$((ran + 1))
}

try claude claude-code.ini '^[0-9]+\.[0-9]+\.[0-9]+ \(Claude Code\)$' --version
try codex codex.ini '^Usage: codex ' --help
try gemini gemini-cli.ini '^[0-9]+\.[0-9]+\.[0-9]+' --version

# What each agent tries to reach when asked to work: the recipe without
# its allow lines and [secret] sections (a secret's hosts are allowed)
# and with connect = deny, so that every lookup is refused by ward's DNS
# stub before anything leaves the machine; a fake key, passed in by name
# in place of its [secret]; the agent retries until the wall-clock limit.
# The record names the hosts it tried; its API host is among them, and is
# one the recipe allows.
# reach NAME RECIPE API-HOST CMD...
reach() {
	local name=$1 recipe=$2 api=$3 pol=$WT_SCRATCH/$2.closed
	shift 3
	[ -x "$npm_dir/node_modules/.bin/$name" ] || return 0
	# Its protect lines go too: a write to a protected file would be a
	# request nobody here answers, and this looks at hosts.
	awk '/^\[/ { skip = /^\[secret / } !skip' "$share/agents/$recipe" |
	    grep -v '^allow = ' |
	    awk '/^protect *=/ { prot = 1; next } prot && /^[ \t]/ { next }
		{ prot = 0 } 1' |
	    sed 's/^connect = ask$/connect = deny/' >"$pol"
	secrets=$(sed -n 's/^\[secret \([A-Za-z0-9_]*\)\]$/\1/p' \
	    "$share/agents/$recipe" | tr '\n' ' ')
	[ -z "$secrets" ] || printf '[run]\nenv = %s\n' "$secrets" >>"$pol"
	ward_fg "$WT_ARTIFACTS/$name-reach.out" "$WT_ARTIFACTS/$name-reach.err" \
	    run --headless --timeout 15 --policy "$pol" --in "$npm_dir" \
	    -- "$npm_dir/node_modules/.bin/$name" "$@"
	note "$name $*: exit $WT_STATUS (124: still retrying at the limit)"
	[ -n "$WT_RUN" ] || { fail "$name: no run id"; return 0; }
	log_json "$WT_RUN" "$WT_ARTIFACTS/$name-reach.log"
	hosts=$(jq -r 'select(.kind == "dns" or .kind == "connect") | .subject' \
	    "$WT_ARTIFACTS/$name-reach.log" | sort | uniq -c |
	    awk '{printf "%s (%s) ", $2, $1}')
	note "$name $*: hosts tried: ${hosts:-none}"
	assert_log "$name: the record has the lookup of $api, refused" \
	    "$WT_ARTIFACTS/$name-reach.log" \
	    ".kind == \"dns\" and .subject == \"$api\" and .verdict == \"deny\""
	assert_eq "$name: lookups or connections allowed" 0 \
	    "$(log_count "$WT_ARTIFACTS/$name-reach.log" \
	    '(.kind == "dns" or .kind == "connect") and .verdict == "allow"')"
	assert_grep "$recipe allows $api" "^allow = ${api//./\\.}:443 " \
	    "$share/agents/$recipe"
}

ANTHROPIC_API_KEY=sk-ant-ward-test reach claude claude-code.ini \
    api.anthropic.com -p hello
OPENAI_API_KEY=sk-ward-test reach codex codex.ini api.openai.com \
    exec --skip-git-repo-check --sandbox danger-full-access hello
GEMINI_API_KEY=ward-test reach gemini gemini-cli.ini \
    generativelanguage.googleapis.com --skip-trust -p hello

# The config folders: "~/..." is this user's home, bound writable at its
# own path, and the variable passed by name finds it.
for r in claude-code.ini:CLAUDE_CONFIG_DIR codex.ini:CODEX_HOME gemini-cli.ini:GEMINI_CLI_HOME aider.ini:; do
	recipe=${r%%:*} var=${r#*:}
	case $recipe in
	claude-code.ini) dir=$HOME/.claude ;; codex.ini) dir=$HOME/.codex ;;
	gemini-cli.ini) dir=$HOME/.gemini ;; aider.ini) dir=$HOME/.aider ;;
	esac
	rm -f "$dir/ward-persists"
	prog="echo kept >$dir/ward-persists"
	[ -z "$var" ] || prog+=" && echo var=\${$var:-unset}"
	ward_fg "$WT_ARTIFACTS/w.out" "$WT_ARTIFACTS/w.err" run --headless \
	    --timeout 30 --policy "$share/agents/$recipe" -- sh -c "$prog"
	assert_eq "$recipe: a write into $dir: exit status" 0 "$WT_STATUS"
	assert_file_content "$recipe: what the run wrote in $dir is on the host" \
	    kept "$dir/ward-persists"
	if [ -n "$var" ]; then
		tr -d '\r' <"$WT_ARTIFACTS/w.out" >"$WT_ARTIFACTS/w.txt"
		assert_grep "$recipe: $var is passed in by name" \
		    "^var=${!var}\$" "$WT_ARTIFACTS/w.txt"
	fi
done

if [ "$ran" = 0 ]; then
	if [ "${CI:-false}" = true ]; then
		fail "no agent could be installed with npm (CI=true: at least one must run)"
	else
		finish_msg="no agent could be installed with npm"
		[ "$WT_FAILS" -gt 0 ] || skip "$finish_msg (the recipes' folders were checked)"
	fi
fi
finish
