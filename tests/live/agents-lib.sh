# SPDX-License-Identifier: MIT
# The real agents' npm install, shared by t-agents.sh and
# t-net-agents-e2e.sh; sourced after lib.sh. The install is cached in
# $WT_BUILD/agents-npm (the first run, as a user who may write there,
# takes a minute or two; about 750 MB); a user who may not write there
# installs into the test's scratch folder.

AGENTS_PKGS=(@anthropic-ai/claude-code @openai/codex @google/gemini-cli)

agents_have_bins() {
	[ -x "$1/node_modules/.bin/claude" ] && [ -x "$1/node_modules/.bin/codex" ] &&
	    [ -x "$1/node_modules/.bin/gemini" ]
}

agents_npm_install() {
	local dir=$1
	command -v npm >/dev/null || { note "npm is not installed"; return 1; }
	mkdir -p "$dir" || return 1
	note "npm install --prefix $dir ${AGENTS_PKGS[*]} (cached for the next run)"
	# run-all.sh gives each test a clean environment: npm then knows only
	# node's own CA list, not the system's bundle that the machine's
	# registry access may need (a proxy's CA installed there).
	[ -r /etc/ssl/certs/ca-certificates.crt ] &&
	    export NODE_EXTRA_CA_CERTS=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
	timeout 240 npm install --no-audit --no-fund --prefix "$dir" "${AGENTS_PKGS[@]}" \
	    >"$WT_ARTIFACTS/npm.log" 2>&1 || { show "npm" "$WT_ARTIFACTS/npm.log"; return 1; }
}

# agents_npm_ready: sets AGENTS_NPM, the prefix whose node_modules/.bin
# has the agents (installing them when the cache lacks them); an agent
# npm could not install is missing there. WT_AGENTS_NPM, when run-all.sh
# sets it, is that prefix, made before the test.
agents_npm_ready() {
	# run-all.sh's, for a test in a fake world (no registry there)
	if [ -n "${WT_AGENTS_NPM:-}" ]; then
		AGENTS_NPM=$WT_AGENTS_NPM
		return 0
	fi
	AGENTS_NPM=${WT_BUILD:+$WT_BUILD/agents-npm}
	if [ -z "$AGENTS_NPM" ] || ! agents_have_bins "$AGENTS_NPM"; then
		if [ -z "$AGENTS_NPM" ] ||
		    ! { mkdir -p "$AGENTS_NPM" 2>/dev/null && [ -w "$AGENTS_NPM" ]; }; then
			AGENTS_NPM=$WT_SCRATCH/agents-npm
		fi
		agents_npm_install "$AGENTS_NPM" || true
	fi
}

# api_has WHAT MIN MAX JQ-FILTER: the model API logged ($API_LOG, the
# test's slice of the world's api.log) at least MIN (at most MAX, when
# given) requests the filter selects; the log is in the artifacts, not
# printed (a request may be some 80 KB).
api_has() {
	local n
	n=$(log_count "$API_LOG" "$4")
	if [ "$n" -ge "$2" ] && { [ -z "$3" ] || [ "$n" -le "$3" ]; }; then
		note "ok: $1 ($n request(s))"
	else
		fail "$1: $n request(s) match $4 (expected $2..${3:-})"
	fi
}
