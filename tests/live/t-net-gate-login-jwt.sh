#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A login file whose tokens are JWTs (issue 33; Codex's auth.json, Gemini
# CLI's oauth_creds.json): the host file $WT_SCRATCH/home/.codex/auth.json
# (0600) holds tokens.access_token and tokens.id_token (JWTs) and
# tokens.refresh_token, plus fields that are no token (account_id,
# last_refresh, OPENAI_API_KEY null). The policy's [secret CODEX] names
# the three with the reply fields that renew them. Inside, each JWT keeps
# its header and payload (an agent reads exp and email there) and has a
# phantom for its signature, the only secret part; the refresh token is a
# phantom. The API gets the real access JWT; a refresh (Codex's JSON body)
# takes the real refresh token up, the reply comes in with the new JWTs'
# signatures and the new refresh token as fresh phantoms, the host file
# gets the real ones (the other fields as they were, still 0600); the API
# then gets the new real JWT. No real signature nor refresh token is in
# /out, the output, the run's folder, the record; the record has
# "CODEX refreshed". The world's login is net-oauth.py in JWT mode.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
. "$(dirname "$0")/login-lib.sh"
gate_test_init

login_home .codex auth.json
# The tokens, made by the world's own login code (net-oauth.py's jwt):
# an access JWT that expired a minute ago, an id JWT, a refresh token.
# The host file and the world's ctl/oauth.json (jwt mode).
(
	umask 077
	python3 - "$nw_here/net-oauth.py" "$creds" "$WT_WORLD/ctl/oauth.json" <<-'EOF'
		import importlib.util, json, os, secrets, sys, time
		spec = importlib.util.spec_from_file_location("net_oauth", sys.argv[1])
		m = importlib.util.module_from_spec(spec)
		spec.loader.exec_module(m)
		now = int(time.time())
		a = m.jwt({"iss": "https://auth.test", "email": "ward@example.test",
		           "kind": "access", "iat": now - 3660, "exp": now - 60})
		i = m.jwt({"iss": "https://auth.test", "email": "ward@example.test",
		           "kind": "id", "iat": now - 3660, "exp": now - 60})
		r = "rt_" + secrets.token_hex(24)
		with open(sys.argv[2], "w") as f:
		    json.dump({"OPENAI_API_KEY": None,
		               "tokens": {"id_token": i, "access_token": a,
		                          "refresh_token": r,
		                          "account_id": "acct-ward-test"},
		               "last_refresh": "2026-01-02T03:04:05.000000Z"}, f,
		              indent=2)
		os.umask(0o022)
		with open(sys.argv[3], "w") as f:
		    json.dump({"access_token": a, "refresh_token": r, "jwt": True}, f)
	EOF
)
chmod 600 "$creds"
[ ! -e "$WT_WORLD/oauth.state" ] || die "the world's login has a state already"
a1=$(jq -r .tokens.access_token "$creds")
i1=$(jq -r .tokens.id_token "$creds")
r1=$(jq -r .tokens.refresh_token "$creds")
orig=$WT_SCRATCH/auth.orig.json
cp "$creds" "$orig"

login_policy "$WT_SCRATCH/policy.ini" "$agent" \
    '[secret CODEX]' "from = file-json:$creds" \
    'fields = tokens.access_token=access_token tokens.refresh_token=refresh_token' \
    '  tokens.id_token=id_token' \
    'hosts = api.test:443' 'header = authorization: Bearer {}' \
    'refresh = api2.test:443/v1/oauth/token'

prog='
import base64, json, sys, time
from login_agent import API, bearer, call, keep, post_json, reply
creds = sys.argv[1]

def claims(tag, tok):
    try:
        p = tok.split(".")[1]
        c = json.loads(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4)))
        print("%s email=%s kind=%s exp=%s" % (tag, c["email"], c["kind"],
              c["exp"]), flush=True)
        return c
    except Exception as e:
        print("%s claims ERR %s" % (tag, e), flush=True)
        return {}

raw = open(creds).read()
open("/out/auth-before.json", "w").write(raw)
a = json.loads(raw)
t = a["tokens"]
c = claims("access", t["access_token"])
claims("id", t["id_token"])
call("api1", API, headers=bearer(t["access_token"]))
print("expired=%s" % ("yes" if c.get("exp", 0) <= time.time() else "no"),
      flush=True)
st, text = post_json("refresh", {"client_id": "app_ward_test",
                                 "grant_type": "refresh_token",
                                 "refresh_token": t["refresh_token"],
                                 "scope": "openid profile email"})
got = reply(text)
keep(creds, "auth-mid.json")
if st == 200 and got.get("access_token"):
    for k in ("id_token", "access_token", "refresh_token"):
        if got.get(k):
            t[k] = got[k]
    a["last_refresh"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(creds, "w") as f:
        json.dump(a, f, indent=2)
    print("saved", flush=True)
claims("access2", t["access_token"])
call("api2", API, headers=bearer(t["access_token"]))
keep(creds, "auth-after.json")
print("done", flush=True)
'
login_run "" "" 90 "$WT_SCRATCH/policy.ini" "$prog" "$creds"
login_ran
out=$(run_dir "$WT_RUN")/out

# jwt_phantom WHAT INSIDE REAL: INSIDE is REAL with its signature a
# phantom (the header and payload as they are).
jwt_phantom() {
	if [ "${2%.*}" = "${3%.*}" ]; then
		note "ok: $1: the header and payload as they are"
	else
		fail "$1: not REAL's header.payload: $(printf '%q' "$2")"
	fi
	assert_phantom "$1's signature" "${2##*.}"
}
sig() { printf '%s\n' "${1##*.}"; }

# The server's truth: what it issued.
state=$WT_WORLD/oauth.state
a2=no-A2-issued i2=no-ID2-issued r2=no-R2-issued
if [ -r "$state" ]; then
	a2=$(jq -r '.issued[0].access_token // "no-A2-issued"' "$state")
	i2=$(jq -r '.issued[0].id_token // "no-ID2-issued"' "$state")
	r2=$(jq -r '.issued[0].refresh_token // "no-R2-issued"' "$state")
	assert_eq "the server issued tokens once (the refresh)" refresh_token \
	    "$(jq -r '[.issued[].grant] | join(",")' "$state")"
else
	fail "the world's login issued no token ($state): no refresh reached it"
fi

# --- inside: the JWTs with phantom signatures -----------------------------
before=$out/auth-before.json
jwt_phantom "inside, the access token" "$(jq -r .tokens.access_token "$before")" "$a1"
jwt_phantom "inside, the id token" "$(jq -r .tokens.id_token "$before")" "$i1"
pr1=$(jq -r .tokens.refresh_token "$before")
assert_phantom "inside, the refresh token" "$pr1"
assert_eq "inside, the fields that are no token" \
    "$(jq -c '[.OPENAI_API_KEY, .tokens.account_id, .last_refresh]' "$orig")" \
    "$(jq -c '[.OPENAI_API_KEY, .tokens.account_id, .last_refresh]' "$before")"
assert_grep "inside, the access JWT's payload reads" \
    '^access email=ward@example\.test kind=access exp=[0-9]+\r?$' "$WT_ARTIFACTS/out"
assert_grep "inside, the id JWT's payload reads" \
    '^id email=ward@example\.test kind=id exp=[0-9]+\r?$' "$WT_ARTIFACTS/out"
assert_grep "the agent found its token expired" '^expired=yes\r?$' "$WT_ARTIFACTS/out"

# --- the API and the refresh ----------------------------------------------
assert_grep "the API answered the first call" '^api1 status=200 ' "$WT_ARTIFACTS/out"
assert_api "the API got the real access JWT" api 1 \
    ".path == \"/login/api\" and .authorization == \"Bearer $a1\""
assert_grep "the refresh was answered" '^refresh status=200 ' "$WT_ARTIFACTS/out"
assert_api "the token endpoint got the real refresh token" api 1 \
    ".path == \"/v1/oauth/token\" and (.seen | contains(\"$r1\"))"
reply=$out/refresh.body
if jq -e . "$reply" >/dev/null 2>&1; then
	jwt_phantom "the reply's access token" "$(jq -r .access_token "$reply")" "$a2"
	jwt_phantom "the reply's id token" "$(jq -r .id_token "$reply")" "$i2"
	pr2=$(jq -r .refresh_token "$reply")
	assert_phantom "the reply's refresh token" "$pr2"
	assert_ne "the new refresh token has a fresh phantom" "$pr1" "$pr2"
	assert_ne "the new access JWT has a fresh phantom" \
	    "$(sig "$(jq -r .tokens.access_token "$before")")" \
	    "$(sig "$(jq -r .access_token "$reply")")"
	assert_reply_rest "$reply"
else
	fail "the refresh's reply read inside is not JSON"
	show "refresh reply" "$reply"
fi
# the host file renewed while the sandbox had it open: inside, phantoms
assert_grep "after the refresh, the file inside still reads phantoms" \
    'ward-phantom-' "$out/auth-mid.json"
assert_nowhere "after the refresh, the file inside holds no real refresh token" \
    "$r2" "$out/auth-mid.json"
assert_grep "the agent read the new JWT's payload" \
    '^access2 email=ward@example\.test kind=access exp=[0-9]+\r?$' "$WT_ARTIFACTS/out"
assert_grep "the API answered the call after the refresh" '^api2 status=200 ' \
    "$WT_ARTIFACTS/out"
assert_api "the API got the new real access JWT" api 1 \
    ".path == \"/login/api\" and .authorization == \"Bearer $a2\""
assert_api "no request reached the world with a phantom" api 0 '.phantom'

# --- the host file ----------------------------------------------------------
assert_host_creds "$creds"
for f in access_token:"$a2" id_token:"$i2" refresh_token:"$r2"; do
	if [ "$(jq -r ".tokens.${f%%:*}" "$creds" 2>/dev/null)" = "${f#*:}" ]; then
		note "ok: the host file has the server's new ${f%%:*}"
	else
		fail "the host file's ${f%%:*} is not the server's new one"
	fi
done
assert_eq "the host file's fields that are no token are as they were" \
    "$(jq -c '[.OPENAI_API_KEY, .tokens.account_id, .last_refresh]' "$orig")" \
    "$(jq -c '[.OPENAI_API_KEY, .tokens.account_id, .last_refresh]' "$creds" 2>/dev/null)"
assert_nowhere "no phantom in the host's agent folder" ward-phantom- "$agent"

# --- the record; no secret part anywhere --------------------------------------
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
assert_log "the refresh is a secret event, CODEX refreshed" "$WT_ARTIFACTS/log.json" \
    '.kind == "secret" and (tostring | test("CODEX refreshed"))'
assert_no_real "a real signature or refresh token" \
    "$(sig "$a1")" "$(sig "$i1")" "$r1" "$(sig "$a2")" "$(sig "$i2")" "$r2"
finish
