# SPDX-License-Identifier: MIT
"""A fake OAuth login of the live tests' world (net-tls.py serves it; a
subscription login's API and token endpoint, as Claude Code's, Codex's
and Gemini CLI's logins have: t-net-gate-login.sh, issue 33).

The test starts it by writing DIR/ctl/oauth.json (the world's ctl
folder, every user's):
    {"access_token": A1, "refresh_token": R1 [, "jwt": true]}
the real tokens its host credential file holds; with "jwt" (Codex's,
Gemini CLI's logins) the tokens it issues are JWT-shaped (header.payload.
signature, base64url) and a reply carries an "id_token" JWT too. Until then the paths
below answer 404. A new oauth.json (other tokens) starts the login over:
the state forgets what it issued before. The server's own state, DIR/oauth.state (JSON, read
by the test from outside the sandbox):
    {"access_token": current, "refresh_token": current,
     "issued": [{"grant", "access_token", "refresh_token"
                 [, "id_token"]}, ...]}
and each token request is one JSON line in DIR/oauth.log:
    {"grant", "refresh_token" (as received), "ok", "status"}
(every request is in DIR/NAME.log too, headers and body: net-tls.py).

    /login/api        the API: 200 "login api ok METHOD" when the
                      request's Authorization is "Bearer " + the current
                      access token, else 401 "bad token"
    /tokeninfo        Google's check of an access token (Gemini CLI's):
                      200 and its claims when the Authorization is
                      "Bearer " + the current access token, else 400
    /v1/oauth/token   the token endpoint (also at /token, Google's
                      path: Gemini CLI's), POST, a JSON or form body:
                      grant_type=refresh_token with the current refresh
                      token: new random access and refresh tokens
                      (rotated: the old ones stop working), answered
                      {"access_token", "refresh_token", "expires_in":
                      3600, "token_type": "Bearer", "scope"
                      [, "id_token"]}; another
                      refresh token: 400 {"error": "invalid_grant"};
                      grant_type=authorization_code (a login): real
                      tokens too, new ones, so a login that got through
                      would be seen; anything else 400
"""
import base64
import json
import os
import secrets
import time
import threading
import urllib.parse

LOCK = threading.Lock()
SCOPE = "user:inference user:profile"


def _paths(directory):
    return (os.path.join(directory, "ctl", "oauth.json"),
            os.path.join(directory, "oauth.state"),
            os.path.join(directory, "oauth.log"))


def _read(path):
    try:
        with open(path) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return None
    if isinstance(s, dict) and s.get("access_token") and s.get("refresh_token"):
        return s
    return None


def _load(directory):
    seed_path, state_path, _ = _paths(directory)
    seed = _read(seed_path)
    state = _read(state_path)
    # a new seed (another login of the same world: t-net-agents-login
    # logs in one agent after another) starts over from it
    if state is not None and (seed is None or state.get("seed") == seed):
        state.setdefault("issued", [])
        return state
    if seed is None:
        return None
    s = dict(seed, seed=seed, issued=[])
    return s


def _save(directory, s):
    _, state, _ = _paths(directory)
    tmp = state + ".tmp"
    with open(tmp, "w") as f:
        json.dump(s, f)
    os.chmod(tmp, 0o644)
    os.replace(tmp, state)


def _log(directory, line):
    _, _, log = _paths(directory)
    with open(log, "a") as f:
        f.write(json.dumps(line) + "\n")


def _new(kind):
    # shaped like Claude Code's: sk-ant-oat01-... / sk-ant-ort01-...
    return "sk-ant-%s01-%s" % (kind, secrets.token_hex(24))


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(claims):
    """A JWT-shaped token: its signature 32 random bytes (nobody checks
    it here)."""
    head = {"alg": "RS256", "typ": "JWT", "kid": "ward-test"}
    return ".".join((_b64(json.dumps(head).encode()),
                     _b64(json.dumps(claims).encode()),
                     _b64(secrets.token_bytes(32))))


def _claims(kind):
    now = int(time.time())
    return {"iss": "https://auth.test", "sub": "ward-test-user",
            "email": "ward@example.test", "kind": kind, "iat": now,
            "exp": now + 3600, "jti": secrets.token_hex(8)}


def _reply(status, obj):
    return status, "application/json", json.dumps(obj).encode()


def _params(headers, body):
    text = body.decode("utf-8", "replace")
    ctype = (headers.get("Content-Type") or "").lower()
    if "json" in ctype or text.lstrip().startswith("{"):
        try:
            got = json.loads(text)
            return got if isinstance(got, dict) else {}
        except ValueError:
            return {}
    return {k: v[0] for k, v in urllib.parse.parse_qs(text).items()}


def _token(directory, s, method, headers, body):
    if method != "POST":
        return _reply(405, {"error": "method_not_allowed"})
    p = _params(headers, body)
    grant = p.get("grant_type", "")
    got = p.get("refresh_token", "")
    if not (grant == "authorization_code" or
            (grant == "refresh_token" and got and got == s["refresh_token"])):
        _log(directory, {"grant": grant, "refresh_token": got, "ok": False,
                         "status": 400})
        return _reply(400, {"error": "invalid_grant"})
    if s.get("jwt"):
        a, r = jwt(_claims("access")), "rt_" + secrets.token_hex(24)
    else:
        a, r = _new("oat"), _new("ort")
    s["access_token"], s["refresh_token"] = a, r
    issued = {"grant": grant, "access_token": a, "refresh_token": r}
    reply = {"access_token": a, "refresh_token": r, "expires_in": 3600,
             "token_type": "Bearer", "scope": SCOPE}
    if s.get("jwt"):
        issued["id_token"] = reply["id_token"] = jwt(_claims("id"))
    s["issued"].append(issued)
    _save(directory, s)
    _log(directory, {"grant": grant, "refresh_token": got, "ok": True,
                     "status": 200})
    return _reply(200, reply)


def answer(directory, method, path, headers, body):
    """(status, content type, body) for a login path, or None."""
    p = path.split("?")[0]
    if p not in ("/login/api", "/v1/oauth/token", "/token", "/tokeninfo"):
        return None
    with LOCK:
        s = _load(directory)
        if s is None:
            return 404, "text/plain", b"no login (ctl/oauth.json)\n"
        if p in ("/v1/oauth/token", "/token"):
            return _token(directory, s, method, headers, body)
        if p == "/tokeninfo":
            if headers.get("Authorization", "") != "Bearer " + s["access_token"]:
                return _reply(400, {"error": "invalid_token"})
            return _reply(200, {"aud": "ward-test-client",
                                "sub": "ward-test-user",
                                "email": "ward@example.test",
                                "email_verified": "true", "expires_in": 3599,
                                "scope": "openid https://www.googleapis.com/auth/cloud-platform"})
        if headers.get("Authorization", "") == "Bearer " + s["access_token"]:
            return 200, "text/plain", ("login api ok %s\n" % method).encode()
        return 401, "text/plain", b"bad token\n"
