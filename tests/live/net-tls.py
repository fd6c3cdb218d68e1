#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fake HTTPS APIs of the live tests' world (tests/live/networld.sh
starts it in the world namespace; the gate tests, t-net-gate-*.sh, use it).

    net-tls.py --dir DIR --lifetime SECS
               --serve NAME=ADDR:PORT:CERT:KEY ...

Each --serve is a threading HTTPS server (HTTP/1.1) with that certificate.
Every request it reads adds one JSON line to DIR/NAME.log, before it is
answered:
    {"method", "host", "path", "x-api-key", "authorization",
     "accept-encoding", "body", "complete", "phantom", "seen"}
(the header values as they arrived, "" when absent; body = the length
read; complete = all of Content-Length came (a short body is logged when
the connection ends, and not answered); phantom = "ward-phantom-" is in
a header, the path or the body; seen = the headers, the path and the
body as read, latin-1, for a test to look for a value in).
Every TLS handshake that completes adds a line to DIR/NAME.count. Answers:
    /sse     chunked text/event-stream: "data: one", flushed; then it waits
             until DIR/ctl/sse-go exists (at most 5 s) and sends
             "data: two"; DIR/NAME.sse gets "one sent", then "two sent go"
             or "two sent timeout". /sse?id=ID waits for DIR/ctl/sse-go-ID
             and its lines end in " ID"
    /echo    an upstream that reflects the request (as httpbin's /headers,
             many error pages): 200, the x-api-key header back in an
             X-Echo-Key header, and a body of "x-api-key: V",
             "authorization: V", "body: BODY" lines, with its
             Content-Length
    /echo-chunked  the same body in chunks of 5 bytes, each flushed (a
             value is cut across chunks and TLS records)
    /echo-close    the same body in writes of 7 bytes, no length: it
             ends with the connection (Connection: close)
    /echo-gzip     the same body gzip'ed with Content-Encoding: gzip,
             whatever the request's Accept-Encoding said
    /v1/messages, /v1/responses, .../models
             scripted model APIs (net-model.py)
    /login/api, /v1/oauth/token
             a fake OAuth login's API and token endpoint (net-oauth.py),
             once a test wrote DIR/ctl/oauth.json
    other    200 "hello from NAME METHOD PATH" (no header echoed)
When everything is bound, DIR/tls.ready appears. The process ends by
itself after --lifetime seconds.
"""
import argparse
import gzip
import http.server
import json
import os
import socket
import ssl
import sys
import threading
import time
import urllib.parse

def _load(name):
    # net-model.py (the scripted model APIs), net-oauth.py (a fake
    # login), beside this file (their names have a dash, as run-all.sh
    # copies net-*.py: no plain import)
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        name + ".py")
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"),
                                                  path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


net_model = _load("net-model")
net_oauth = _load("net-oauth")

PHANTOM = "ward-phantom-"

def append(path, line):
    with open(path, "a") as f:
        f.write(line + "\n")


def split(spec):
    name, _, rest = spec.partition("=")
    parts = rest.split(":")
    if not name or len(parts) != 4 or not parts[1].isdigit():
        sys.exit("net-tls: bad --serve %r (NAME=ADDR:PORT:CERT:KEY)" % spec)
    return name, parts[0], int(parts[1]), parts[2], parts[3]


def handler_for(directory, name):
    log = os.path.join(directory, name + ".log")
    sse = os.path.join(directory, name + ".sse")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def record(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = b""
            try:
                while len(body) < n:
                    got = self.rfile.read(n - len(body))
                    if not got:
                        break
                    body += got
            except OSError:
                pass
            seen = str(self.headers) + self.path + body.decode("latin-1")
            self.body = body
            append(log, json.dumps({
                "method": self.command,
                "host": self.headers.get("Host", ""),
                "path": self.path,
                "x-api-key": self.headers.get("x-api-key", ""),
                "authorization": self.headers.get("Authorization", ""),
                "accept-encoding": self.headers.get("Accept-Encoding", ""),
                "body": len(body),
                "complete": len(body) == n,
                "phantom": PHANTOM in seen,
                "seen": seen,
            }))
            if len(body) < n:
                self.close_connection = True
                return False
            return True

        def answer(self):
            if not self.record():
                return
            if self.path.split("?")[0] == "/sse":
                return self.stream()
            if self.path.split("?")[0].startswith("/echo"):
                return self.echo(self.path.split("?")[0])
            got = net_oauth.answer(directory, self.command, self.path,
                                   self.headers, self.body)
            if got is not None:
                return self.model(got[1], got[2], got[0])
            got = net_model.answer(directory, self.path, self.body)
            if got is not None:
                return self.model(*got)
            body = ("hello from %s %s %s\n" %
                    (name, self.command, self.path)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def echo(self, path):
            key = self.headers.get("x-api-key", "")
            body = ("x-api-key: %s\nauthorization: %s\nbody: %s\n" % (
                key, self.headers.get("Authorization", ""),
                self.body.decode("latin-1"))).encode("latin-1")
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("X-Echo-Key", key)
            if path == "/echo-chunked":
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for i in range(0, len(body), 5):
                    self.chunk(body[i:i + 5])
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                return
            if path == "/echo-close":
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.flush()
                for i in range(0, len(body), 7):
                    self.wfile.write(body[i:i + 7])
                    self.wfile.flush()
                self.close_connection = True
                return
            if path == "/echo-gzip":
                body = gzip.compress(body)
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def model(self, ctype, body, status=200):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def chunk(self, data):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        def stream(self):
            q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            sid = q.get("id", [""])[0]
            if not sid.isalnum():
                sid = ""
            go = os.path.join(directory, "ctl",
                              "sse-go-" + sid if sid else "sse-go")
            tail = " " + sid if sid else ""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.chunk(b"data: one\n\n")
            append(sse, "one sent" + tail)
            end = time.monotonic() + 5
            while not os.path.exists(go) and time.monotonic() < end:
                time.sleep(0.05)
            why = "go" if os.path.exists(go) else "timeout"
            self.chunk(b"data: two\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            append(sse, "two sent " + why + tail)
            self.close_connection = True

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = answer

        def log_message(self, fmt, *args):
            sys.stderr.write("%s: %s\n" % (name, fmt % args))

    return Handler


def serve(directory, spec):
    name, addr, port, cert, key = split(spec)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.set_alpn_protocols(["http/1.1"])
    count = os.path.join(directory, name + ".count")
    open(count, "a").close()
    open(os.path.join(directory, name + ".log"), "a").close()

    class Server(http.server.ThreadingHTTPServer):
        allow_reuse_address = True
        daemon_threads = True

        def finish_request(self, request, client_address):
            # the handshake in the request's own thread: a client that
            # never finishes one holds up nobody else
            request.settimeout(10)
            try:
                tls = ctx.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError) as e:
                sys.stderr.write("%s: handshake from %s: %s\n" %
                                 (name, client_address[0], e))
                return
            append(count, "%s:%d" % client_address[:2])
            try:
                self.RequestHandlerClass(tls, client_address, self)
            finally:
                tls.close()

        def handle_error(self, request, client_address):
            sys.stderr.write("%s: error with %s: %s\n" %
                             (name, client_address, sys.exc_info()[1]))

    srv = Server((addr, port), handler_for(directory, name))
    threading.Thread(target=srv.serve_forever, daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--lifetime", type=float, default=300)
    ap.add_argument("--serve", action="append", default=[])
    a = ap.parse_args()
    os.makedirs(os.path.join(a.dir, "ctl"), exist_ok=True)
    for spec in a.serve:
        serve(a.dir, spec)
    open(os.path.join(a.dir, "tls.ready"), "w").close()
    time.sleep(a.lifetime)


if __name__ == "__main__":
    main()
