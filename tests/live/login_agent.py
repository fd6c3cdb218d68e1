# SPDX-License-Identifier: MIT
"""The agent stand-in's HTTP pieces for t-net-gate-login*.sh (issue 33),
imported by the programs those tests run inside ward's sandbox (the
programs put this folder on sys.path: login-lib.sh's login_py). Each
call writes the reply's body to /out/TAG.body and prints one line,
"TAG status=N body=FIRST-LINE", for the tests to grep.
"""
import json
import urllib.error
import urllib.request

API = "https://api.test/login/api"
TOKEN = "https://api2.test/v1/oauth/token"


def call(tag, url, method="GET", headers=None, body=None):
    """One request; (status, body text). Status 0: no answer (the line
    then says why)."""
    req = urllib.request.Request(url, data=body, method=method,
                                 headers=headers or {})
    try:
        r = urllib.request.urlopen(req, timeout=20)
        st, data = r.status, r.read()
    except urllib.error.HTTPError as e:
        st, data = e.code, e.read()
    except Exception as e:
        st, data = 0, ("%s: %s" % (type(e).__name__, e)).encode()
    with open("/out/%s.body" % tag, "wb") as f:
        f.write(data)
    text = data.decode("utf-8", "replace")
    print("%s status=%d body=%s" % (tag, st, text.split("\n")[0]), flush=True)
    return st, text


def bearer(tok):
    return {"Authorization": "Bearer " + tok}


def post_json(tag, obj, url=TOKEN):
    """OBJ as a JSON body POSTed to URL (the token endpoint)."""
    return call(tag, url, "POST", {"Content-Type": "application/json"},
                json.dumps(obj).encode())


def reply(text):
    """A reply's body as JSON; {} when it is not."""
    try:
        return json.loads(text)
    except ValueError:
        return {}


def keep(path, name):
    """The file at PATH as it reads now, copied to /out/NAME."""
    with open(path) as f, open("/out/" + name, "w") as o:
        o.write(f.read())
