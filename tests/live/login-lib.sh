# SPDX-License-Identifier: MIT
# Helpers of the login-file live tests (t-net-gate-login*.sh, issue 33: a
# subscription login's credential file as a [secret]); sourced after
# lib.sh, networld.sh and gate-lib.sh. The agent stand-ins they run
# inside import login_agent.py (its call(), one line a request), put on
# their path by login_py.

# rnd: 48 random hex digits, a token's random part.
rnd() { od -An -N24 -tx1 /dev/urandom | tr -d ' \n'; }

# creds_json ACCESS REFRESH EXPIRES_MS: a login file's content, as
# Claude Code's .credentials.json.
creds_json() {
	printf '{"claudeAiOauth":{"accessToken":"%s","refreshToken":"%s","expiresAt":%s,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}\n' \
	    "$1" "$2" "$3"
}

# login_home NAME FILE [DIR...]: the agent's folder $WT_SCRATCH/home/NAME
# and each DIR made, 0700 as $WT_SCRATCH/home; sets agent (the folder)
# and creds (FILE in it).
login_home() {
	agent=$WT_SCRATCH/home/$1
	creds=$agent/$2
	shift 2
	mkdir -p "$agent" "$@"
	chmod 700 "$WT_SCRATCH/home" "$agent" "$@"
}

# login_secret FILE: the lines of a [secret LOGIN] from Claude Code's
# login file FILE (its two tokens, for api.test, renewed at api2.test),
# in LOGIN_LINES.
login_secret() {
	LOGIN_LINES=('[secret LOGIN]' "from = file-json:$1"
	    'fields = claudeAiOauth.accessToken=access_token claudeAiOauth.refreshToken=refresh_token'
	    'hosts = api.test:443' 'header = authorization: Bearer {}'
	    'refresh = api2.test:443/v1/oauth/token')
}

# login_policy FILE WRITABLE LINE...: a policy with the gate's network
# (no direct connection, the test CA), [files] writable = WRITABLE (none
# when empty) and the LINEs (the [secret]s).
login_policy() {
	local file=$1 writable=$2
	shift 2
	write_policy "$file" '[run]' 'ask_timeout = 3' \
	    ${writable:+'[files]' "writable = $writable"} \
	    '[network]' 'connect = deny' 'http = deny' "upstream_ca = $GATE_CA" \
	    "$@"
}

# login_py PROG: PROG (python) with this folder first on its path, for
# `import login_agent` inside (NET_IN shows the folder there).
login_py() {
	printf 'import sys\nsys.path.insert(0, %s)\n%s' "'$nw_here'" "$1"
}

# login_run TAG LABEL SECS POLICY PROG ARG...: PROG (login_py's) run in
# the sandbox, its output in $WT_ARTIFACTS/outTAG and errTAG, shown under
# LABEL.
login_run() {
	local tag=$1 label=$2 secs=$3 policy=$4 prog=$5
	shift 5
	ward_fg "$WT_ARTIFACTS/out$tag" "$WT_ARTIFACTS/err$tag" \
	    run --headless --timeout "$secs" --policy "$policy" \
	    "${NET_IN[@]}" -- python3 -c "$(login_py "$prog")" "$@"
	show "program output${label:+ ($label)}" "$WT_ARTIFACTS/out$tag"
	show "ward stderr${label:+ ($label)}" "$WT_ARTIFACTS/err$tag"
}

# login_ran: the first run exited 0, its program ran to its end ("done"),
# ward named the run.
login_ran() {
	assert_eq "exit status" 0 "$WT_STATUS"
	assert_grep "the program ran to its end" '^done\r?$' "$WT_ARTIFACTS/out"
	[ -n "${WT_RUN:-}" ] || die "no run id in ward's stderr"
}

# assert_phantom WHAT VALUE: VALUE is a ward-phantom-... (32 hex digits).
assert_phantom() {
	if [[ $2 =~ ^ward-phantom-[0-9a-f]{32}$ ]]; then
		note "ok: $1 is a phantom"
	else
		fail "$1 is not a ward-phantom-...: $(printf '%q' "$2")"
	fi
}

# assert_host_creds FILE: the host's login file is still JSON, mode 0600.
assert_host_creds() {
	if jq -e . "$1" >/dev/null 2>&1; then
		note "ok: the host file is JSON"
	else
		fail "the host file is not JSON any more"
	fi
	assert_eq "the host file's mode" 600 "$(stat -c %a "$1")"
}

# assert_reply_rest REPLY: the refresh's reply read inside has the
# fields that are no token as the server sent them.
assert_reply_rest() {
	assert_eq "the reply's other fields came as they were" \
	    '3600 Bearer user:inference user:profile' \
	    "$(jq -r '"\(.expires_in) \(.token_type) \(.scope)"' "$1")"
}

# assert_no_real WHAT VALUE...: no VALUE is in ward's state (the record,
# the run's folder, /out), the program's or ward's output
# ($WT_ARTIFACTS) nor the runtime folder.
assert_no_real() {
	local what=$1 v
	shift
	for v in "$@"; do
		assert_nowhere "$what is nowhere in ward's state (record, run folder, /out)" \
		    "$v" "$XDG_STATE_HOME"
		assert_nowhere "$what is nowhere in the program's or ward's output" \
		    "$v" "$WT_ARTIFACTS"
		assert_nowhere "$what is nowhere in the runtime folder" \
		    "$v" "$XDG_RUNTIME_DIR"
	done
}
