#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A subscription login's credential file as a [secret] (issue 33): the
# host file $WT_SCRATCH/home/.agent/creds.json (0600, shaped as Claude
# Code's .credentials.json: claudeAiOauth.accessToken, .refreshToken,
# .expiresAt in the past, .scopes) holds real tokens A1, R1 that the
# world's fake login (net-oauth.py, in net-tls.py) knows. The policy:
#   [secret LOGIN] from = file-json:<it>, fields = accessToken=access_token
#   refreshToken=refresh_token, hosts = api.test:443, header =
#   authorization: Bearer {}, refresh = api2.test:443/v1/oauth/token
# Inside, an agent stand-in (python3) reads the file (phantoms, expiry and
# scopes as they are), calls the API (the server sees A1, never a
# phantom), sees the token expired, refreshes (the server gets R1 and
# rotates to A2, R2; the sandbox reads fresh phantoms; the host file gets
# A2, R2, still 0600, and the file inside still reads phantoms), writes the new tokens into its file like an agent
# (the write stays inside: the host file never holds a phantom), calls
# the API again (the server sees A2). A login inside (authorization_code,
# JSON or form) and a refresh with a token of its own are refused with
# ward's 403 ("log in on the host") and never reach the server (nor one
# with a query after the endpoint's path); /echo (the API host
# reflecting the Authorization header) hands back no real token. No real token is in /out, the program's or ward's output, the
# run's folder, the record; the record has "LOGIN refreshed" (secret).
# The next run reads the host file's new tokens as the very phantoms the
# refresh gave (stable per token). Without the host file the run still
# starts (ward says so) and a login inside is refused all the same.
# Runs in a fake world's client namespace (run-all.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/networld.sh"
. "$(dirname "$0")/gate-lib.sh"
. "$(dirname "$0")/login-lib.sh"
gate_test_init

a1=sk-ant-oat01-$(rnd)
r1=sk-ant-ort01-$(rnd)
# a minute ago: the agent finds its token expired and refreshes
expires=$(($(date +%s) * 1000 - 60000))

login_home .agent creds.json
(umask 077; creds_json "$a1" "$r1" "$expires" >"$creds")
chmod 600 "$creds"
# the world's login knows them (ctl: every user's folder of the world)
(
	umask 022
	printf '{"access_token":"%s","refresh_token":"%s"}\n' "$a1" "$r1" \
	    >"$WT_WORLD/ctl/oauth.json"
)
# the world's self-check ran before: its login starts from these
[ ! -e "$WT_WORLD/oauth.state" ] || die "the world's login has a state already"

login_secret "$creds"
login_policy "$WT_SCRATCH/policy.ini" "$agent" "${LOGIN_LINES[@]}"

# The agent stand-in: everything it reads goes to /out, one line a step
# on stdout. No token is ever in its command line (the record keeps
# exec's arguments): it reads them from its file.
prog='
import json, os, sys, time
from login_agent import API, TOKEN, bearer, call, keep, post_json, reply
creds = sys.argv[1]

raw = open(creds).read()
open("/out/creds-before.json", "w").write(raw)
print("mode=%o" % (os.stat(creds).st_mode & 0o777), flush=True)
c = json.loads(raw)
o = c["claudeAiOauth"]
print("access=%s" % o["accessToken"], flush=True)
print("refresh=%s" % o["refreshToken"], flush=True)

call("api1", API, headers=bearer(o["accessToken"]))

expired = o["expiresAt"] <= time.time() * 1000
print("expired=%s" % ("yes" if expired else "no"), flush=True)
st, text = post_json("refresh", {"grant_type": "refresh_token",
                                 "refresh_token": o["refreshToken"],
                                 "client_id": "ward-test-client"})
got = reply(text)
# the file again, after the refresh, before the agent writes it
keep(creds, "creds-mid.json")
if st == 200 and got.get("access_token"):
    o["accessToken"] = got["access_token"]
    o["refreshToken"] = got.get("refresh_token", o["refreshToken"])
    o["expiresAt"] = int(time.time() * 1000) + 1000 * got.get("expires_in", 0)
    # as an agent saves its login: the file rewritten in place
    with open(creds, "w") as f:
        json.dump(c, f)
    print("saved", flush=True)
print("access2=%s" % o["accessToken"], flush=True)
print("refresh2=%s" % o["refreshToken"], flush=True)

call("api2", API, headers=bearer(o["accessToken"]))

# a login inside: the code exchange, as JSON and as a form
post_json("login", {"grant_type": "authorization_code", "code": "ward-code",
                    "redirect_uri": "http://localhost:54545/callback",
                    "code_verifier": "ward-verifier",
                    "client_id": "ward-test-client", "state": "ward-state"})
call("loginform", TOKEN, "POST",
     {"Content-Type": "application/x-www-form-urlencoded"},
     b"grant_type=authorization_code&code=ward-code&client_id=ward-test-client")
# the same with a query (the endpoint ignores it)
call("loginq", TOKEN + "?from=ward-test", "POST",
     {"Content-Type": "application/x-www-form-urlencoded"},
     b"grant_type=authorization_code&code=ward-code&client_id=ward-test-client")
# a refresh with a token of its own (no phantom of LOGIN)
post_json("own", {"grant_type": "refresh_token",
                  "refresh_token": "sk-ant-ort01-of-its-own"})

# an upstream that reflects the request: nothing real comes back in
call("echo", "https://api.test/echo", headers=bearer(o["accessToken"]))
call("echobody", "https://api.test/echo", "POST",
     dict(bearer(o["accessToken"]), **{"Content-Type": "text/plain"}),
     ("token=%s" % o["accessToken"]).encode())

keep(creds, "creds-after.json")
# an agent that saves atomically: a new file renamed over it
tmp = creds + ".tmp"
try:
    c["savedBy"] = "rename"
    with open(tmp, "w") as f:
        json.dump(c, f)
    os.rename(tmp, creds)
    print("rename=ok", flush=True)
    keep(creds, "creds-renamed.json")
    print("tmp=%s" % ("left" if os.path.exists(tmp) else "gone"), flush=True)
except OSError as e:
    print("rename=%s" % e.strerror, flush=True)
    try:
        os.unlink(tmp)
    except OSError:
        pass
print("done", flush=True)
'
login_run "" "" 90 "$WT_SCRATCH/policy.ini" "$prog" "$creds"
login_ran
rd=$(run_dir "$WT_RUN")
out=$rd/out

val() { sed -nE "s/^$1=(.*)\\r?\$/\\1/p" "$WT_ARTIFACTS/out" | tr -d '\r' | head -n 1; }
pa1=$(val access)
pr1=$(val refresh)
pa2=$(val access2)
pr2=$(val refresh2)
note "phantoms: access $pa1, refresh $pr1; after the refresh $pa2, $pr2"

# The server's truth: the tokens it issued.
state=$WT_WORLD/oauth.state
a2="" r2=""
if [ -r "$state" ]; then
	a2=$(jq -r '.issued[0].access_token // empty' "$state")
	r2=$(jq -r '.issued[0].refresh_token // empty' "$state")
	assert_eq "the server issued tokens once (the refresh), never for a login" \
	    refresh_token "$(jq -r '[.issued[].grant] | join(",")' "$state")"
else
	fail "the world's login issued no token ($state): no refresh reached it"
fi
# (every token the server issued, a login's too, if one got through)
reals=("$a1" "$r1")
[ ! -r "$state" ] || mapfile -t -O 2 reals < <(jq -r \
    '.issued[] | .access_token, .refresh_token' "$state")
a2=${a2:-no-A2-issued}
r2=${r2:-no-R2-issued}

# --- inside: the file read with phantoms, nothing else changed ----------
before=$out/creds-before.json
jq -e . "$before" >/dev/null 2>&1 || fail "the file read inside is not JSON"
note "inside, the file's mode: $(val mode)"
assert_phantom "the access token inside" "$pa1"
assert_phantom "the refresh token inside" "$pr1"
assert_ne "access and refresh tokens have their own phantoms" "$pa1" "$pr1"
assert_eq "inside, expiresAt is the host's" "$expires" \
    "$(jq -r .claudeAiOauth.expiresAt "$before")"
assert_eq "inside, scopes are the host's" 'user:inference user:profile' \
    "$(jq -r '.claudeAiOauth.scopes | join(" ")' "$before")"
assert_eq "inside, the other fields are the host's" max \
    "$(jq -r .claudeAiOauth.subscriptionType "$before")"
assert_eq "inside, the file's keys" \
    'accessToken expiresAt refreshToken scopes subscriptionType' \
    "$(jq -r '.claudeAiOauth | keys | join(" ")' "$before")"
assert_grep "the agent found its token expired" '^expired=yes\r?$' "$WT_ARTIFACTS/out"

# --- the API: the real token arrived, the phantom never ------------------
assert_grep "the API answered the first call" '^api1 status=200 body=login api ok GET' \
    "$WT_ARTIFACTS/out"
assert_api "the API got the real A1" api 1 \
    ".path == \"/login/api\" and .authorization == \"Bearer $a1\""
assert_grep "the API answered the call after the refresh" \
    '^api2 status=200 body=login api ok GET' "$WT_ARTIFACTS/out"
assert_api "the API got the real A2" api 1 \
    ".path == \"/login/api\" and .authorization == \"Bearer $a2\""
# (but the echo's body: a phantom in a body to its own host goes up as
# it is, a phantom, not the value)
assert_api "no request reached the world with a phantom in a header" api 0 \
    '.phantom and (.path != "/echo" or .method != "POST")'

# --- the refresh: real R1 went up, phantoms came back -------------------
assert_grep "the refresh was answered" '^refresh status=200 ' "$WT_ARTIFACTS/out"
assert_api "the token endpoint got the real R1 in the refresh" api 1 \
    ".host == \"api2.test\" and .path == \"/v1/oauth/token\" and (.seen | contains(\"$r1\"))"
reply=$out/refresh.body
if jq -e . "$reply" >/dev/null 2>&1; then
	assert_eq "the reply's access_token is what the agent kept" "$pa2" \
	    "$(jq -r .access_token "$reply")"
	assert_eq "the reply's refresh_token is what the agent kept" "$pr2" \
	    "$(jq -r .refresh_token "$reply")"
	assert_reply_rest "$reply"
else
	fail "the refresh's reply read inside is not JSON"
	show "refresh reply" "$reply"
fi
assert_phantom "the new access token inside" "$pa2"
assert_phantom "the new refresh token inside" "$pr2"
assert_ne "the new access token has a fresh phantom" "$pa1" "$pa2"
assert_ne "the new refresh token has a fresh phantom" "$pr1" "$pr2"
# The host file was renewed (A2, R2) while the sandbox had it open: the
# file inside still reads phantoms, never the real A2, R2.
mid=$out/creds-mid.json
assert_grep "after the refresh, the file inside still reads phantoms" \
    '"accessToken": *"ward-phantom-' "$mid"
for v in "$a2" "$r2"; do
	assert_nowhere "after the refresh, the file inside holds no real token" "$v" "$mid"
done
assert_grep "the agent saved its new login inside" '^saved\r?$' "$WT_ARTIFACTS/out"
after=$out/creds-after.json
assert_eq "inside, the file holds what the agent wrote" "$pa2 $pr2" \
    "$(jq -r '.claudeAiOauth | "\(.accessToken) \(.refreshToken)"' "$after" 2>/dev/null)"
# An agent that saves atomically (Codex: a new file renamed over it):
# the save lands in the run's copy, the new file is gone, the host file
# is not touched by it.
assert_eq "an atomic save inside (rename over the file)" ok "$(val rename)"
assert_eq "the renamed file is gone" gone "$(val tmp)"
assert_eq "inside, the file is the one renamed over it" rename \
    "$(jq -r .savedBy "$out/creds-renamed.json" 2>/dev/null)"
assert_no_grep "the host file has nothing of the save inside" savedBy "$creds"

# --- the host file: the real new tokens, never a phantom ------------------
assert_host_creds "$creds"
assert_eq "the host file's owner" "$(id -u)" "$(stat -c %u "$creds")"
if [ "$(jq -r .claudeAiOauth.accessToken "$creds" 2>/dev/null)" = "$a2" ]; then
	note "ok: the host file has the real A2"
else
	fail "the host file's accessToken is not the server's A2"
fi
if [ "$(jq -r .claudeAiOauth.refreshToken "$creds" 2>/dev/null)" = "$r2" ]; then
	note "ok: the host file has the real R2"
else
	fail "the host file's refreshToken is not the server's R2"
fi
assert_eq "the host file's scopes are as they were" 'user:inference user:profile' \
    "$(jq -r '.claudeAiOauth.scopes | join(" ")' "$creds" 2>/dev/null)"
assert_eq "the host file's other fields are as they were" max \
    "$(jq -r .claudeAiOauth.subscriptionType "$creds" 2>/dev/null)"
note "the host file's expiresAt: $(jq -r .claudeAiOauth.expiresAt "$creds" 2>/dev/null) (was $expires)"
assert_no_grep "the host file holds no phantom" 'ward-phantom-' "$creds"
left=$(find "$agent" -mindepth 1 ! -name creds.json -printf '%f ' 2>/dev/null)
note "the agent folder on the host besides creds.json: ${left:-nothing}"
assert_nowhere "no phantom in the host's agent folder" ward-phantom- "$agent"

# --- logins inside: refused, never at the server --------------------------
for t in login loginform loginq own; do
	assert_grep "$t: ward's 403 saying to log in on the host" \
	    "^$t status=403 body=.*log in on the host" "$WT_ARTIFACTS/out"
done
assert_api "no code exchange reached the token endpoint" api 0 \
    '(.seen | contains("authorization_code"))'
assert_api "no refresh with a token of its own reached it" api 0 \
    '(.seen | contains("of-its-own"))'
assert_api "the token endpoint saw one request (the refresh)" api 1 \
    '.path == "/v1/oauth/token"'

# --- the echo: nothing real comes back in ---------------------------------
assert_grep "the echo answered" '^echo status=200 ' "$WT_ARTIFACTS/out"
assert_grep "the echo of the header holds the phantom" \
    "^authorization: Bearer $pa2\$" "$out/echo.body"
# (a phantom in a body to its own host goes up as it is: whatever comes
# back holds no real token, the checks below on /out)
note "the echo of a body with the phantom: $(grep -E '^echobody ' "$WT_ARTIFACTS/out" | tr -d '\r')"

# --- the next run: the host file's new tokens, the same phantoms ----------
run1=$WT_RUN
prog2='
import json, sys
from login_agent import API, bearer, call
o = json.load(open(sys.argv[1]))["claudeAiOauth"]
print("access=%s" % o["accessToken"], flush=True)
print("refresh=%s" % o["refreshToken"], flush=True)
call("api", API + "?run=2", headers=bearer(o["accessToken"]))
print("done", flush=True)
'
login_run 2 "run 2" 60 "$WT_SCRATCH/policy.ini" "$prog2" "$creds"
assert_eq "run 2: exit status" 0 "$WT_STATUS"
assert_grep "run 2: the access token is the phantom the refresh gave" \
    "^access=$pa2\\r?\$" "$WT_ARTIFACTS/out2"
assert_grep "run 2: the refresh token is the phantom the refresh gave" \
    "^refresh=$pr2\\r?\$" "$WT_ARTIFACTS/out2"
assert_grep "run 2: the API answered" '^api status=200 body=login api ok GET' \
    "$WT_ARTIFACTS/out2"
assert_api "run 2: the API got the real A2 from the host file" api 1 \
    ".path == \"/login/api?run=2\" and .authorization == \"Bearer $a2\""

# --- no host file: no secret to show, a login inside still refused -------
login_secret "$WT_SCRATCH/home/.none/creds.json"
login_policy "$WT_SCRATCH/policy-none.ini" "" "${LOGIN_LINES[@]}"
prog3='
from login_agent import TOKEN, call
call("login", TOKEN, "POST",
     {"Content-Type": "application/x-www-form-urlencoded"},
     b"grant_type=authorization_code&code=ward-code-3")
print("done", flush=True)
'
login_run 3 "no host file" 60 "$WT_SCRATCH/policy-none.ini" "$prog3"
assert_eq "no host file: the run ran (exit status)" 0 "$WT_STATUS"
assert_grep "no host file: ward says so on stderr" 'LOGIN' "$WT_ARTIFACTS/err3"
assert_grep "no host file: a login inside gets ward's 403" \
    '^login status=403 body=.*log in on the host' "$WT_ARTIFACTS/out3"
assert_api "no host file: no code exchange reached the token endpoint" api 0 \
    '(.seen | contains("authorization_code"))'
WT_RUN=$run1

# --- the record ----------------------------------------------------------
log_json "$WT_RUN" "$WT_ARTIFACTS/log.json"
events_json "$WT_RUN" "$WT_ARTIFACTS/events.json"
for f in log events; do
	assert_log "$f: the refresh is a secret event, LOGIN refreshed" \
	    "$WT_ARTIFACTS/$f.json" \
	    '.kind == "secret" and (tostring | test("LOGIN refreshed"))'
done
"$WARD" log "$WT_RUN" >"$WT_ARTIFACTS/log.txt" 2>&1 </dev/null || true
assert_grep "ward log shows the refresh" 'LOGIN refreshed' "$WT_ARTIFACTS/log.txt"
"$WARD" events --json >"$WT_ARTIFACTS/events-all.json" 2>&1 </dev/null || true

# --- no real token anywhere but at the server and in the host file -------
assert_no_real "a real token" "${reals[@]}"
finish
