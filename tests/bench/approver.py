#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Automatic approver and console-like watcher for ward runs (bench only).

    approver.py --stderr FILE --sockdir DIR [--watch-only] [--client NAME]
                [--stats FILE] [--timeout S]

Waits for "ward: run ID started" in FILE (the run's stderr), connects to
DIR/ID.sock and says hello (watch: true). Without --watch-only it allows,
once, every request it is shown (the pending ones in the welcome, then each
"request" message) the moment it arrives. With --watch-only it only reads
and discards every message, as a console would. Either way it leaves when
the supervisor closes the socket. --stats writes, as JSON, how many
requests it decided and the client-side time from receiving each request
to receiving its ack, in microseconds.

The control protocol (approvals/proto.h): frames of a 4-byte big-endian
length and one JSON object.
"""
import argparse
import json
import os
import re
import socket
import struct
import sys
import time

RUN_RE = re.compile(rb"ward: run ([0-9a-f]+) started")


def wait_run_id(path, timeout):
    """The run id from ward's stderr file, once it appears."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(path, "rb") as f:
                m = RUN_RE.search(f.read(4096))
            if m:
                return m.group(1).decode()
        except FileNotFoundError:
            pass
        time.sleep(0.002)
    raise SystemExit("approver: no 'ward: run ID started' in %s" % path)


def connect(sockpath, timeout):
    end = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(sockpath)
            return s
        except (FileNotFoundError, ConnectionRefusedError):
            s.close()
            if time.monotonic() > end:
                raise SystemExit("approver: cannot connect to %s" % sockpath)
            time.sleep(0.002)


class Conn:
    """One control connection: frames in and out."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.eof = False

    def send(self, msg):
        data = json.dumps(msg, separators=(",", ":")).encode()
        self.sock.sendall(struct.pack(">I", len(data)) + data)

    def feed(self):
        """Read what is there (blocking once); False at EOF."""
        try:
            chunk = self.sock.recv(1 << 16)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        return True

    def messages(self):
        """Complete messages buffered so far."""
        out = []
        while len(self.buf) >= 4:
            (n,) = struct.unpack(">I", self.buf[:4])
            if len(self.buf) < 4 + n:
                break
            out.append(json.loads(self.buf[4:4 + n]))
            self.buf = self.buf[4 + n:]
        return out

    def hello(self, client, watch=True):
        self.send({"type": "hello", "version": 1, "client": client,
                   "watch": watch})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stderr", required=True)
    ap.add_argument("--sockdir", required=True)
    ap.add_argument("--watch-only", action="store_true")
    ap.add_argument("--client", default=None)
    ap.add_argument("--stats")
    ap.add_argument("--timeout", type=float, default=30.0)
    a = ap.parse_args()

    run = wait_run_id(a.stderr, a.timeout)
    c = Conn(connect(os.path.join(a.sockdir, run + ".sock"), a.timeout))
    c.hello(a.client or ("console" if a.watch_only else "cli"))

    asked = {}      # request id -> time we saw it (monotonic)
    rtt_us = []     # request seen -> ack received
    decided = 0
    errors = 0
    messages = 0

    def decide(req):
        nonlocal decided
        rid = req["id"]
        if rid in asked:
            return
        asked[rid] = time.monotonic()
        c.send({"type": "decide", "request": rid, "verdict": "allow",
                "scope": "once"})
        decided += 1

    while c.feed():
        now = time.monotonic()
        for m in c.messages():
            messages += 1
            if a.watch_only:
                continue
            t = m.get("type")
            if t == "welcome":
                for req in m.get("pending", []):
                    decide(req)
            elif t == "request":
                decide(m["request"])
            elif t == "ack" and "request" in m:
                t0 = asked.get(m["request"])
                if t0 is not None:
                    rtt_us.append((now - t0) * 1e6)
                if not m.get("ok", False):
                    errors += 1
    if a.stats:
        with open(a.stats, "w") as f:
            json.dump({"run": run, "decided": decided, "ack_errors": errors,
                       "messages": messages, "client_rtt_us": rtt_us}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
