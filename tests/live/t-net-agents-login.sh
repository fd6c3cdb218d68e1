#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The real agents logged in with a subscription (issue 33): no API key,
# a login file made by hand with tokens only the world's fake login
# (net-oauth.py) knows, its access token expired, each agent run headless
# under its recipe, whose [secret *_LOGIN] section is kept with only its
# hosts the world's API (api.test:443), against the scripted model API
# (net-model.py). One short task each: its tool call copies the login
# file it reads and its environment to /out. Checked from outside:
#  - the agent refreshed at the token endpoint, which got the REAL
#    refresh token (oauth.log), once; the host's login file then holds
#    the NEW real tokens (oauth.state's), never a phantom, mode 0600;
#  - every model request carried the new real access token, none a
#    phantom; the agent finished its task;
#  - inside, the file read phantoms; no real token (old or new) is in
#    /out, the run folder, the record, ward's or the agent's output;
#  - the record has "NAME refreshed".
# How each agent is pointed at the world (nothing of ward's changes):
#  Claude Code 2.1: ANTHROPIC_BASE_URL=https://api.test (its OAuth
#    token goes as Authorization: Bearer, with the oauth-2025-04-20
#    beta); its token endpoint, https://platform.claude.com/v1/oauth/
#    token, is fixed (CLAUDE_CODE_CUSTOM_OAUTH_URL takes only three
#    approved URLs of Anthropic's), so the world resolves
#    platform.claude.com to its API, with the test CA's certificate
#    for it (run-all.sh names it to networld.sh up); the recipe's
#    refresh is kept as shipped.
#  Codex 0.171: $CODEX_HOME/config.toml's chatgpt_base_url =
#    https://api.test/backend-api/ (ChatGPT sign-in: wham/accounts/check,
#    then codex/responses, Bearer and chatgpt-account-id headers), with
#    request compression and the Responses websocket off; the refresh
#    goes to CODEX_REFRESH_TOKEN_URL_OVERRIDE, passed in by [run] env as
#    https://api2.test/v1/oauth/token, the [secret]'s refresh.
#  Gemini CLI 0.61: CODE_ASSIST_ENDPOINT=https://api.test (passed in
#    by [run] env; the Code Assist API, v1internal:METHOD, net-model.py);
#    its token endpoint, https://oauth2.googleapis.com/token, and its
#    token check there (tokeninfo) are google-auth-library's, fixed: the
#    world resolves oauth2.googleapis.com to its API (as
#    platform.claude.com); the recipe's refresh is kept as shipped.
# Codex 0.171 saves its refreshed login as a temp file (.auth-XXXXXX)
# renamed over auth.json; inside, auth.json is ward's bind of the phantom
# copy, a mount point: the supervisor writes the renamed file's bytes
# into the copy and removes it (the tool call makes the same save, mv,
# and its status is checked), so Codex goes on with its new phantoms.
# Runs in a fake world's client namespace (run-all.sh). Opt-in as
# t-net-agents-e2e is (WARD_TEST_AGENTS=1).
. "$(dirname "$0")/lib.sh"
agents_opt_in
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
. "$(dirname "$0")/agents-lib.sh"
gate_test_init

share=$(cd "$(dirname "$WARD")" && pwd)/share
agents_npm_ready
# (its real path: a link to it would name a folder the sandbox lacks)
AGENTS_NPM=$(cd "$AGENTS_NPM" 2>/dev/null && pwd -P || echo "$AGENTS_NPM")
bin=$AGENTS_NPM/node_modules/.bin
if [ ! -x "$bin/claude" ] && [ ! -x "$bin/codex" ]; then
	[ "${CI:-false}" != true ] ||
	    die "npm could not install Claude Code nor Codex (CI=true: they must run)"
	skip "npm could not install Claude Code nor Codex (see npm.log)"
fi

# model_script STEP...: what the scripted model has the agent run.
model_script() {
	python3 -c 'import json, sys
print(json.dumps({"steps": sys.argv[1:], "done": "All done: the login was read."}))' \
	    "$@" >"$WT_WORLD/ctl/model-script.json"
}

# login_seed JSON: the world's login knows these tokens (a new login:
# net-oauth.py starts over from it).
login_seed() {
	(umask 022 && printf '%s\n' "$1" >"$WT_WORLD/ctl/oauth.json")
}

# recipe_policy RECIPE SECRET OUT [SED-ARG...]: the recipe as shipped,
# its [secret SECRET]'s hosts the world's API, requests waiting 5 s (a
# headless run: nobody answers; they are denied).
recipe_policy() {
	local recipe=$1 secret=$2 out=$3
	shift 3
	sed -e "/^\\[secret $secret\\]/,/^\\[/ s/^hosts = .*/hosts = api.test:443/" \
	    -e 's/^ask_timeout = .*/ask_timeout = 5/' \
	    -e "s|^\\[network\\]\$|[network]\\nupstream_ca = $GATE_CA|" \
	    "$@" "$share/agents/$recipe" >"$out"
	cp "$out" "$WT_ARTIFACTS/$(basename "$out")"
}

# run_agent NAME POLICY CMD...: CMD headless under ward in $WT_SCRATCH/
# NAME-proj; its output in $WT_ARTIFACTS/NAME.out, ward's in NAME.err.
run_agent() {
	local name=$1 pol=$2 proj=$WT_SCRATCH/$1-proj
	shift 2
	mkdir -p "$proj"
	API_MARK=$(wc -l <"$WT_WORLD/api.log")
	ward_fg "$WT_ARTIFACTS/$name.out" "$WT_ARTIFACTS/$name.err" \
	    run --headless --name "$name" --timeout 150 --policy "$pol" \
	    --chdir "$proj" --in "$proj" --in "$AGENTS_NPM" -- "$@"
	show "$name: its output" "$WT_ARTIFACTS/$name.out"
	show "$name: ward's stderr" "$WT_ARTIFACTS/$name.err"
	sleep 0.3
	API_LOG=$WT_ARTIFACTS/$name.api.log
	tail -n +"$((API_MARK + 1))" "$WT_WORLD/api.log" >"$API_LOG"
	jq -r '[.method, .host, .path, (.authorization | .[0:24]), .phantom] | @tsv' \
	    "$API_LOG" >"$WT_ARTIFACTS/$name.api.short" 2>/dev/null || true
	show "$name: what the world's API saw" "$WT_ARTIFACTS/$name.api.short"
}

# secret_part TOKEN: what of TOKEN is secret (a JWT's signature; else
# all of it), what must be nowhere but at the server and the host file.
secret_part() {
	case $1 in
	eyJ*.*.*) printf '%s\n' "${1##*.}" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

# check_login NAME SECRET CREDS MODEL-PATH ACCESS-JQ REFRESH-JQ A1 R1
# [OTHER-REAL...]: the checks of the header, for the agent's run
# ($WT_RUN), its host login file CREDS (jq paths of its tokens).
check_login() {
	local name=$1 secret=$2 creds=$3 mpath=$4 ajq=$5 rjq=$6 a1=$7 r1=$8
	shift 8
	local state=$WT_WORLD/oauth.state a2="" r2="" v reals=()
	assert_eq "$name: ward's exit status" 0 "$WT_STATUS"
	assert_grep "$name: it finished its task" 'All done: the login was read' \
	    "$WT_ARTIFACTS/$name.out"
	[ -n "${WT_RUN:-}" ] || { fail "$name: no run id"; return 0; }

	# the refresh: the real R1 went up, once
	if [ -r "$state" ]; then
		cp "$state" "$WT_ARTIFACTS/$name.oauth.state"
		a2=$(jq -r '.issued[0].access_token // empty' "$state")
		r2=$(jq -r '.issued[0].refresh_token // empty' "$state")
		assert_eq "$name: the login issued tokens once, for a refresh" \
		    refresh_token "$(jq -r '[.issued[].grant] | join(",")' "$state")"
		mapfile -t -O 0 reals < <(jq -r \
		    '.issued[] | .access_token, .refresh_token, (.id_token // empty)' "$state")
	else
		fail "$name: the world's login issued no token: no refresh reached it"
	fi
	touch "$WT_WORLD/oauth.log" 2>/dev/null || true
	assert_eq "$name: the token endpoint got the real refresh token, accepted" 1 \
	    "$(log_count "$WT_WORLD/oauth.log" \
	    ".ok and .grant == \"refresh_token\" and .refresh_token == \"$r1\"")"
	api_has "$name: refreshes with another token than the real one" 0 0 \
	    "(.path | startswith(\"/v1/oauth/token\")) and (.seen | contains(\"$r1\") | not)"
	a2=${a2:-no-A2-issued}
	r2=${r2:-no-R2-issued}

	# the model API: the new real token, never a phantom
	api_has "$name: model requests" 1 "" \
	    ".method == \"POST\" and (.path | test(\"$mpath\"))"
	api_has "$name: model requests without the new real token" 0 0 \
	    ".method == \"POST\" and (.path | test(\"$mpath\")) and .authorization != \"Bearer $a2\""
	api_has "$name: requests with a phantom (any path)" 0 0 '.phantom'

	# the host file: the new real tokens
	assert_eq "$name: the host file's access token is the new real one" "$a2" \
	    "$(jq -r "$ajq" "$creds" 2>/dev/null)"
	assert_eq "$name: the host file's refresh token is the new real one" "$r2" \
	    "$(jq -r "$rjq" "$creds" 2>/dev/null)"
	assert_no_grep "$name: the host file holds no phantom" 'ward-phantom-' "$creds"
	assert_eq "$name: the host file's mode" 600 "$(stat -c %a "$creds")"

	# inside: phantoms only
	local inside=$(run_dir "$WT_RUN")/out/creds-inside.json
	if [ -s "$inside" ]; then
		cp "$inside" "$WT_ARTIFACTS/$name.creds-inside.json"
		assert_grep "$name: the login file inside reads phantoms" 'ward-phantom-' "$inside"
	else
		fail "$name: its tool call left no copy of the login file in /out"
	fi

	# no real token (of the old login, the new, the others) but there
	for v in "$a1" "$r1" "$a2" "$r2" "${reals[@]}" "$@"; do
		v=$(secret_part "$v")
		[ ${#v} -ge 16 ] || continue
		assert_nowhere "$name: a real token is nowhere in ward's state (record, run folder, /out)" \
		    "$v" "$XDG_STATE_HOME"
		assert_nowhere "$name: a real token is nowhere in the agent's or ward's output" \
		    "$v" "$WT_ARTIFACTS/$name.out" "$WT_ARTIFACTS/$name.err"
		assert_nowhere "$name: a real token is nowhere in the runtime folder" \
			"$v" "$XDG_RUNTIME_DIR"
	done

	# the record
	log_json "$WT_RUN" "$WT_ARTIFACTS/$name.log.json"
	assert_log "$name: the record has the refresh, $secret refreshed" \
	    "$WT_ARTIFACTS/$name.log.json" \
	    ".kind == \"secret\" and (tostring | test(\"$secret refreshed\"))"
}

rnd() { od -An -N24 -tx1 /dev/urandom | tr -d ' \n'; }
chmod 700 "$HOME"

# --- Claude Code ---------------------------------------------------------
if [ -x "$bin/claude" ] && [ "${NW_NAMES:-}" = "${NW_NAMES/platform.claude.com/}" ]; then
	note "SKIP Claude Code: the world does not resolve platform.claude.com (run-all.sh names it)"
elif [ -x "$bin/claude" ]; then
	note "--- Claude Code $("$bin/claude" --version 2>/dev/null)"
	dir=$HOME/.claude creds=$HOME/.claude/.credentials.json
	mkdir -p "$dir" && chmod 700 "$dir"
	a1=sk-ant-oat01-$(rnd) r1=sk-ant-ort01-$(rnd)
	# a minute ago: it refreshes before its first call
	(
		umask 077
		printf '{"claudeAiOauth":{"accessToken":"%s","refreshToken":"%s","expiresAt":%s,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}\n' \
		    "$a1" "$r1" "$(($(date +%s) * 1000 - 60000))" >"$creds"
	)
	echo '{"hasCompletedOnboarding":true,"theme":"dark"}' >"$dir/.claude.json"
	login_seed "{\"access_token\":\"$a1\",\"refresh_token\":\"$r1\"}"
	recipe_policy claude-code.ini CLAUDE_LOGIN "$WT_SCRATCH/claude.ini"
	model_script 'cat "$CLAUDE_CONFIG_DIR/.credentials.json" >/out/creds-inside.json; env >/out/env-inside.txt; echo READ-OK'
	export ANTHROPIC_BASE_URL=https://api.test CLAUDE_CONFIG_DIR=$dir
	run_agent claude "$WT_SCRATCH/claude.ini" \
	    "$bin/claude" -p "Read your login file." --allowedTools Bash
	unset ANTHROPIC_BASE_URL CLAUDE_CONFIG_DIR
	check_login claude CLAUDE_LOGIN "$creds" '^/v1/messages' \
	    .claudeAiOauth.accessToken .claudeAiOauth.refreshToken "$a1" "$r1"
	assert_eq "claude: the login file inside holds the refreshed token's expiry (3600 s)" yes \
	    "$(jq -r --argjson t "$(($(date +%s) * 1000))" \
	    'if .claudeAiOauth.expiresAt > $t + 3000000 then "yes" else "no" end' \
	    "$WT_ARTIFACTS/claude.creds-inside.json" 2>/dev/null)"
	api_has "claude: the refresh went to platform.claude.com" 1 1 \
	    '.host == "platform.claude.com" and .path == "/v1/oauth/token"'
else
	[ "${CI:-false}" != true ] || fail "Claude Code could not be installed (CI=true)"
	note "SKIP Claude Code: npm could not install it (see npm.log)"
fi

# --- Codex ---------------------------------------------------------------
if [ -x "$bin/codex" ]; then
	note "--- $("$bin/codex" --version 2>/dev/null)"
	dir=$HOME/.codex creds=$HOME/.codex/auth.json
	mkdir -p "$dir" && chmod 700 "$dir"
	# auth.json as `codex login` leaves it (ChatGPT): JWTs with the
	# claims Codex reads (email, plan, account), the access token
	# expired a minute ago, last refresh 9 days ago; made by the world's
	# own login code (net-oauth.py's jwt). Its tokens: line 1 the seed
	# of the world's login, line 2 the id token.
	python3 - "$nw_here/net-oauth.py" "$creds" >"$WT_SCRATCH/codex.seed" <<-'EOF'
		import importlib.util, json, os, secrets, sys, time
		spec = importlib.util.spec_from_file_location("net_oauth", sys.argv[1])
		m = importlib.util.module_from_spec(spec)
		spec.loader.exec_module(m)
		now = int(time.time())
		acct = "ward-test-account"
		auth = {"chatgpt_plan_type": "plus", "chatgpt_user_id": "user-wardtest",
		        "chatgpt_account_id": acct, "user_id": "user-wardtest"}
		base = {"iss": "https://auth.openai.com", "sub": "ward-test-user",
		        "iat": now - 3660, "exp": now - 60,
		        "https://api.openai.com/auth": auth}
		a = m.jwt(dict(base, **{"https://api.openai.com/profile":
		                        {"email": "ward@example.test"}}))
		i = m.jwt(dict(base, email="ward@example.test", email_verified=True,
		               aud=["app_EMoamEEZ73f0CkXaXp7hrann"]))
		r = "rt_" + secrets.token_hex(24)
		last = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z",
		                     time.gmtime(now - 9 * 86400))
		old = os.umask(0o077)
		with open(sys.argv[2], "w") as f:
		    json.dump({"OPENAI_API_KEY": None, "tokens": {
		        "id_token": i, "access_token": a, "refresh_token": r,
		        "account_id": acct}, "last_refresh": last}, f, indent=2)
		os.umask(old)
		print(json.dumps({"access_token": a, "refresh_token": r, "jwt": True}))
		print(i)
	EOF
	chmod 600 "$creds"
	login_seed "$(sed -n 1p "$WT_SCRATCH/codex.seed")"
	a1=$(sed -n 1p "$WT_SCRATCH/codex.seed" | jq -r .access_token)
	r1=$(sed -n 1p "$WT_SCRATCH/codex.seed" | jq -r .refresh_token)
	i1=$(sed -n 2p "$WT_SCRATCH/codex.seed")
	printf '%s\n' 'model = "gpt-ward-test"' \
	    'chatgpt_base_url = "https://api.test/backend-api/"' \
	    '[features]' 'enable_request_compression = false' \
	    'responses_websockets = false' 'responses_websockets_v2 = false' \
	    >"$dir/config.toml"
	recipe_policy codex.ini CODEX_LOGIN "$WT_SCRATCH/codex.ini" \
	    -e '/^\[secret CODEX_LOGIN\]/,/^\[/ s|^refresh = .*|refresh = api2.test:443/v1/oauth/token|' \
	    -e 's|^env = CODEX_HOME=~/.codex$|&\nenv = CODEX_REFRESH_TOKEN_URL_OVERRIDE=https://api2.test/v1/oauth/token|'
	# (and the same save as Codex's, of the file as it is: its result)
	model_script 'cat "$CODEX_HOME/auth.json" >/out/creds-inside.json; env >/out/env-inside.txt; cp "$CODEX_HOME/auth.json" "$CODEX_HOME/.auth-ward" && mv "$CODEX_HOME/.auth-ward" "$CODEX_HOME/auth.json" 2>/out/save.err; echo $? >/out/save.status; echo READ-OK'
	export CODEX_HOME=$dir
	run_agent codex "$WT_SCRATCH/codex.ini" \
	    "$bin/codex" exec --skip-git-repo-check --sandbox danger-full-access \
	    "Read your login file."
	unset CODEX_HOME
	check_login codex CODEX_LOGIN "$creds" '/codex/responses$' \
	    .tokens.access_token .tokens.refresh_token "$a1" "$r1" "$i1"
	# Codex saves its login as a temp file renamed over auth.json: into
	# the run's copy (the supervisor's), so the file inside holds the
	# refreshed token's phantom
	assert_eq "codex: a save as Codex's inside (mv over auth.json) exits" 0 \
	    "$(cat "$(run_dir "$WT_RUN")/out/save.status" 2>/dev/null)"
	inside=$WT_ARTIFACTS/codex.creds-inside.json
	a2=$(jq -r '.issued[0].access_token // empty' "$WT_WORLD/oauth.state" 2>/dev/null)
	if [ "$(jq -r .tokens.access_token "$inside" 2>/dev/null | cut -d. -f1-2)" = \
	    "$(printf '%s' "$a2" | cut -d. -f1-2)" ]; then
		note "ok: codex: the login file inside holds the refreshed token (a phantom signature)"
	else
		fail "codex: the login file inside does not hold the refreshed token: its save (a temp file renamed over auth.json) did not land"
		grep -m 2 -h 'Failed to refresh token' "$WT_ARTIFACTS/codex.err" | sed 's/^/  | /' || true
		note "codex: a save as Codex's inside (mv over auth.json): exit $(cat "$(run_dir "$WT_RUN")/out/save.status" 2>/dev/null) $(cat "$(run_dir "$WT_RUN")/out/save.err" 2>/dev/null)"
		note "codex: ward refused $(log_count "$WT_ARTIFACTS/codex.log.json" \
		    '.verdict == "deny" and (.subject // "" | test("/v1/oauth/token"))' || true) later refresh(es) as a login inside"
	fi
	assert_eq "codex: the host file's id token is the new real one" \
	    "$(jq -r '.issued[0].id_token // empty' "$WT_WORLD/oauth.state" 2>/dev/null)" \
	    "$(jq -r .tokens.id_token "$creds" 2>/dev/null)"
	api_has "codex: its model requests name its account" 1 "" \
	    '(.path | test("/codex/responses$")) and (.seen | test("chatgpt-account-id: ward-test-account"; "i"))'
else
	[ "${CI:-false}" != true ] || fail "Codex could not be installed (CI=true)"
	note "SKIP Codex: npm could not install it (see npm.log)"
fi

# --- Gemini CLI ------------------------------------------------------------
if [ -x "$bin/gemini" ] && [ "${NW_NAMES:-}" = "${NW_NAMES/oauth2.googleapis.com/}" ]; then
	note "SKIP Gemini CLI: the world does not resolve oauth2.googleapis.com (run-all.sh names it)"
elif [ -x "$bin/gemini" ]; then
	note "--- Gemini CLI $("$bin/gemini" --version 2>/dev/null)"
	dir=$HOME/.gemini creds=$HOME/.gemini/oauth_creds.json
	mkdir -p "$dir" && chmod 700 "$dir"
	a1=ya29.ward$(rnd) r1=1//ward$(rnd)
	i1=$(python3 - "$nw_here/net-oauth.py" <<-'EOF'
		import importlib.util, sys, time
		spec = importlib.util.spec_from_file_location("net_oauth", sys.argv[1])
		m = importlib.util.module_from_spec(spec)
		spec.loader.exec_module(m)
		now = int(time.time())
		print(m.jwt({"iss": "https://accounts.google.com", "sub": "1",
		             "email": "ward@example.test", "iat": now - 3660,
		             "exp": now - 60}))
	EOF
	)
	# as "Login with Google" leaves it, expired a minute ago
	(
		umask 077
		printf '{"access_token":"%s","refresh_token":"%s","scope":"https://www.googleapis.com/auth/cloud-platform openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile","token_type":"Bearer","id_token":"%s","expiry_date":%s}\n' \
		    "$a1" "$r1" "$i1" "$(($(date +%s) * 1000 - 60000))" >"$creds"
	)
	printf '%s\n' '{"security":{"auth":{"selectedType":"oauth-personal"}},' \
	    '"privacy":{"usageStatisticsEnabled":false}}' >"$dir/settings.json"
	login_seed "{\"access_token\":\"$a1\",\"refresh_token\":\"$r1\"}"
	recipe_policy gemini-cli.ini GEMINI_LOGIN "$WT_SCRATCH/gemini.ini" \
	    -e '/^\[secret GEMINI_LOGIN\]/,/^\[/ s/^hosts = api.test:443$/hosts = api.test:443 oauth2.googleapis.com:443/' \
	    -e 's|^env = GEMINI_TELEMETRY_ENABLED=false$|&\nenv = CODE_ASSIST_ENDPOINT=https://api.test|'
	model_script 'cat "$GEMINI_CLI_HOME/.gemini/oauth_creds.json" >/out/creds-inside.json; env >/out/env-inside.txt; echo READ-OK'
	export GEMINI_CLI_HOME=$HOME GEMINI_CLI_TRUST_WORKSPACE=true
	run_agent gemini "$WT_SCRATCH/gemini.ini" \
	    "$bin/gemini" -p "Read your login file." --yolo
	unset GEMINI_CLI_HOME GEMINI_CLI_TRUST_WORKSPACE
	check_login gemini GEMINI_LOGIN "$creds" '^/v1internal:(stream)?[gG]enerateContent' \
	    .access_token .refresh_token "$a1" "$r1" "$i1"
	api_has "gemini: the refresh went to oauth2.googleapis.com/token" 1 1 \
	    '.host == "oauth2.googleapis.com" and .path == "/token"'
	api_has "gemini: its token check (tokeninfo) carried the new real token" 1 "" \
	    ".path == \"/tokeninfo\" and .authorization == \"Bearer $(jq -r '.issued[0].access_token // empty' "$WT_WORLD/oauth.state" 2>/dev/null)\""
else
	[ "${CI:-false}" != true ] || fail "Gemini CLI could not be installed (CI=true)"
	note "SKIP Gemini CLI: npm could not install it (see npm.log)"
fi

finish
