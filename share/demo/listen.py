#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Listeners of a fake outside world: `ward demo`'s (share/demo/world.sh) and
the live tests' (tests/live/networld.sh, which runs it as net-listen.py).

    listen.py --dir DIR --lifetime SECS [--tcp NAME=ADDR:PORT]...
               [--udp NAME=ADDR:PORT]...

Each --tcp is a small HTTP server: every connection it accepts adds a line
"PEER" to DIR/NAME.count before anything is read, and a GET is answered
with "hello from NAME". Each --udp adds a line per datagram received.
When everything is bound, DIR/listen.ready appears. The process ends by
itself after --lifetime seconds, whatever happens to whoever started it.
Run it inside the world namespace only: it binds the addresses given.
"""
import argparse
import http.server
import os
import socket
import sys
import threading


def count(path, what):
    with open(path, "a") as f:
        f.write(what + "\n")


def split(spec):
    name, _, where = spec.partition("=")
    addr, _, port = where.rpartition(":")
    if not name or not addr or not port.isdigit():
        sys.exit("net-listen: bad listener %r (NAME=ADDR:PORT)" % spec)
    return name, addr, int(port)


def tcp_server(directory, name, addr, port):
    path = os.path.join(directory, name + ".count")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_GET(self):
            body = ("hello from %s\n" % name).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, fmt, *args):
            sys.stderr.write("%s: %s\n" % (name, fmt % args))

    class Server(http.server.ThreadingHTTPServer):
        allow_reuse_address = True
        daemon_threads = True

        def get_request(self):
            conn, peer = super().get_request()
            count(path, "%s:%d" % peer[:2])
            conn.settimeout(10)
            return conn, peer

    open(path, "w").close()
    srv = Server((addr, port), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()


def udp_server(directory, name, addr, port):
    path = os.path.join(directory, name + ".count")
    open(path, "w").close()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, port))

    def loop():
        while True:
            data, peer = s.recvfrom(65535)
            count(path, "%s:%d %d bytes" % (peer[0], peer[1], len(data)))

    threading.Thread(target=loop, daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--lifetime", type=float, default=600)
    ap.add_argument("--tcp", action="append", default=[])
    ap.add_argument("--udp", action="append", default=[])
    a = ap.parse_args()

    # Bounded whatever happens: no listener outlives its test for long.
    t = threading.Timer(a.lifetime, os._exit, [0])
    t.daemon = True
    t.start()
    for spec in a.tcp:
        tcp_server(a.dir, *split(spec))
    for spec in a.udp:
        udp_server(a.dir, *split(spec))
    open(os.path.join(a.dir, "listen.ready"), "w").close()
    threading.Event().wait()


if __name__ == "__main__":
    main()
