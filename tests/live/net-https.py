#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""HTTPS clients of the gate tests (t-net-gate-*.sh), run inside a sandbox.
They trust what the environment says (SSL_CERT_FILE for urllib,
REQUESTS_CA_BUNDLE for requests): no CA of their own.

    net-https.py urllib|requests URL [METHOD [HEADER-VALUE [BODY]]]

sends METHOD (GET) to URL with "x-api-key: HEADER-VALUE" when one is given
and BODY, and prints one line:
    CLIENT METHOD URL status=N body=FIRST-LINE
or  CLIENT METHOD URL ERR what went wrong
"""
import sys


def via_urllib(method, url, headers, body):
    import urllib.error
    import urllib.request
    req = urllib.request.Request(url, data=body, method=method,
                                 headers=headers)
    try:
        r = urllib.request.urlopen(req, timeout=20)
        return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def via_requests(method, url, headers, body):
    import requests
    r = requests.request(method, url, headers=headers, data=body, timeout=20)
    return r.status_code, r.content


def main():
    client, url = sys.argv[1], sys.argv[2]
    method = sys.argv[3] if len(sys.argv) > 3 else "GET"
    headers = {}
    if len(sys.argv) > 4 and sys.argv[4]:
        headers["x-api-key"] = sys.argv[4]
    body = sys.argv[5].encode() if len(sys.argv) > 5 else None
    fn = {"urllib": via_urllib, "requests": via_requests}[client]
    try:
        status, data = fn(method, url, headers, body)
        first = data.decode("utf-8", "replace").split("\n")[0]
        print("%s %s %s status=%d body=%s" % (client, method, url, status,
                                             first), flush=True)
    except Exception as e:  # the line says what it was
        print("%s %s %s ERR %s: %s" % (client, method, url,
                                      type(e).__name__, e), flush=True)


if __name__ == "__main__":
    main()
