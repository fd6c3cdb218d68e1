#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fake package registries of a fake outside world: `ward demo`'s
(share/demo/world.sh) and the live tests' (tests/live/networld.sh, which runs
it as pkg-registry.py).

    registry.py --dir DIR --lifetime SECS
                    --pypi ADDR:PORT --pypi-name NAME:PORT
                    --npm ADDR:PORT --npm-name NAME:PORT

Made offline, at start, into DIR/pkg/: a tiny pure-Python package
"wardtiny" 1.0.0 as a wheel (assembled with zipfile: wardtiny/__init__.py
and its dist-info, RECORD with hashes) and a tiny npm package "wardtiny"
1.0.0 as the tarball `npm pack` makes (package/package.json,
package/index.js; built with tarfile, so no npm is needed here).

Served, with the standard library only:
  --pypi  a PEP 503 simple index:  /simple/ and /simple/wardtiny/ (a link to
          the wheel with its sha256), /packages/<wheel>
  --npm   an npm registry:         /wardtiny (the packument, dist.tarball on
          http://NAME:PORT/wardtiny/-/wardtiny-1.0.0.tgz with shasum and
          integrity), /wardtiny/-/wardtiny-1.0.0.tgz
Anything else is a 404. Every request, answered or not, is one line
"METHOD PATH STATUS PEER" in DIR/pypi.log or DIR/npm.log (written before
the answer is sent, so a client that got an answer has its line there).
When both listen, DIR/pkg.ready appears. The process ends by itself after
--lifetime seconds. Run it inside the world namespace only.
"""
import argparse
import base64
import gzip
import hashlib
import http.server
import io
import json
import os
import sys
import tarfile
import threading
import time
import zipfile

NAME = "wardtiny"
VERSION = "1.0.0"
# What `import wardtiny` and `require("wardtiny")` give, checked by the tests.
PY_SOURCE = 'MESSAGE = "wardtiny 1.0.0 from the fake index"\n'
JS_SOURCE = 'module.exports = "wardtiny 1.0.0 from the fake registry";\n'

# Fixed times: the same bytes every run.
EPOCH = (2020, 1, 1, 0, 0, 0)
MTIME = 1577836800


def b64_sha256(data):
    d = hashlib.sha256(data).digest()
    return base64.urlsafe_b64encode(d).rstrip(b"=").decode()


def make_wheel(path):
    """A PEP 427 wheel of wardtiny, pure Python."""
    di = "%s-%s.dist-info" % (NAME, VERSION)
    files = [
        ("%s/__init__.py" % NAME, PY_SOURCE.encode()),
        ("%s/METADATA" % di, (
            "Metadata-Version: 2.1\n"
            "Name: %s\n"
            "Version: %s\n"
            "Summary: A tiny package for ward's live tests\n" % (NAME, VERSION)
        ).encode()),
        ("%s/WHEEL" % di, (
            "Wheel-Version: 1.0\n"
            "Generator: ward-tests\n"
            "Root-Is-Purelib: true\n"
            "Tag: py3-none-any\n"
        ).encode()),
        ("%s/top_level.txt" % di, (NAME + "\n").encode()),
    ]
    record = "".join("%s,sha256=%s,%d\n" % (n, b64_sha256(d), len(d))
                     for n, d in files)
    record += "%s/RECORD,,\n" % di
    files.append(("%s/RECORD" % di, record.encode()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            info = zipfile.ZipInfo(n, EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, d)


def make_npm_tarball(path):
    """What `npm pack` makes of package.json + index.js."""
    pkg = {
        "name": NAME,
        "version": VERSION,
        "description": "A tiny package for ward's live tests",
        "main": "index.js",
        "license": "MIT",
    }
    files = [
        ("package/package.json", (json.dumps(pkg, indent=2) + "\n").encode()),
        ("package/index.js", JS_SOURCE.encode()),
    ]
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for n, d in files:
            info = tarfile.TarInfo(n)
            info.size = len(d)
            info.mode = 0o644
            info.mtime = MTIME
            t.addfile(info, io.BytesIO(d))
    with open(path, "wb") as f:
        f.write(gzip.compress(raw.getvalue(), mtime=0))
    return pkg


def split(spec):
    addr, _, port = spec.rpartition(":")
    if not addr or not port.isdigit():
        sys.exit("pkg-registry: bad ADDR:PORT %r" % spec)
    return addr, int(port)


def serve(logpath, addr, port, routes):
    """routes: path -> (content type, bytes)."""
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "ward-fake-registry/1"

        def log_request(self, code="-", size="-"):
            pass

        def log_message(self, fmt, *args):
            sys.stderr.write("%s: %s\n" % (os.path.basename(logpath),
                                           fmt % args))

        def answer(self, head):
            path = self.path.split("?", 1)[0]
            hit = routes.get(path)
            status = 200 if hit else 404
            with lock, open(logpath, "a") as f:
                f.write("%s %s %d %s:%d\n" % (self.command, self.path, status,
                                               *self.client_address[:2]))
            ctype, body = hit or ("text/plain", b"not found\n")
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def do_GET(self):
            self.answer(False)

        def do_HEAD(self):
            self.answer(True)

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            if n:
                self.rfile.read(min(n, 1 << 20))
            self.answer(False)

        do_PUT = do_POST

    class Server(http.server.ThreadingHTTPServer):
        allow_reuse_address = True
        daemon_threads = True

        def get_request(self):
            conn, peer = super().get_request()
            conn.settimeout(20)
            return conn, peer

    open(logpath, "a").close()
    srv = Server((addr, port), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--lifetime", type=float, default=600)
    ap.add_argument("--pypi", required=True)
    ap.add_argument("--pypi-name", required=True)
    ap.add_argument("--npm", required=True)
    ap.add_argument("--npm-name", required=True)
    a = ap.parse_args()

    t = threading.Timer(a.lifetime, os._exit, [0])
    t.daemon = True
    t.start()

    pkgdir = os.path.join(a.dir, "pkg")
    os.makedirs(pkgdir, exist_ok=True)

    # --- PyPI ---
    whl_name = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    whl_path = os.path.join(pkgdir, whl_name)
    make_wheel(whl_path)
    with open(whl_path, "rb") as f:
        whl = f.read()
    html = "text/html; charset=utf-8"
    pypi = {
        "/simple/": (html, (
            '<!DOCTYPE html>\n<html><body>\n'
            '<a href="/simple/%s/">%s</a>\n</body></html>\n' % (NAME, NAME)
        ).encode()),
        "/simple/%s/" % NAME: (html, (
            '<!DOCTYPE html>\n<html><body>\n'
            '<a href="/packages/%s#sha256=%s">%s</a>\n</body></html>\n'
            % (whl_name, hashlib.sha256(whl).hexdigest(), whl_name)
        ).encode()),
        "/packages/%s" % whl_name: ("application/octet-stream", whl),
    }

    # --- npm ---
    tgz_name = "%s-%s.tgz" % (NAME, VERSION)
    tgz_path = os.path.join(pkgdir, tgz_name)
    pkg = make_npm_tarball(tgz_path)
    with open(tgz_path, "rb") as f:
        tgz = f.read()
    tarball_path = "/%s/-/%s" % (NAME, tgz_name)
    version = dict(pkg)
    version.update({
        "_id": "%s@%s" % (NAME, VERSION),
        "dist": {
            "tarball": "http://%s%s" % (a.npm_name, tarball_path),
            "shasum": hashlib.sha1(tgz).hexdigest(),
            "integrity": "sha512-" + base64.b64encode(
                hashlib.sha512(tgz).digest()).decode(),
        },
    })
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(MTIME))
    packument = {
        "_id": NAME,
        "name": NAME,
        "description": pkg["description"],
        "dist-tags": {"latest": VERSION},
        "versions": {VERSION: version},
        "time": {"created": stamp, "modified": stamp, VERSION: stamp},
        "modified": stamp,
    }
    js = "application/json"
    npm = {
        "/%s" % NAME: (js, (json.dumps(packument, indent=1) + "\n").encode()),
        tarball_path: ("application/octet-stream", tgz),
    }

    serve(os.path.join(a.dir, "pypi.log"), *split(a.pypi), pypi)
    serve(os.path.join(a.dir, "npm.log"), *split(a.npm), npm)
    open(os.path.join(a.dir, "pkg.ready"), "w").close()
    threading.Event().wait()


if __name__ == "__main__":
    main()
