#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Raw HTTPS requests for t-net-gate-paths.sh, run inside a sandbox: the
request-target goes on the wire byte for byte, as no HTTP library would
send it (curl and requests remove dot segments and fragments). It trusts
what the environment says (SSL_CERT_FILE): no CA of its own.

    net-raw.py [-H 'NAME: VALUE']... HOST TABLE [LINE...]

For each case of TABLE (tests/data/hostile-paths.tsv: VERDICT TAB TARGET
TAB WHY; "\\\\" a backslash, "\\xHH" a byte), or only those on the LINEs
given, one connection to HOST:443 with
    GET TARGET HTTP/1.1 / Host: HOST / [each -H header] / Connection: close
and one line out:
    raw LINE VERDICT status=N       (the response's status)
or  raw LINE VERDICT ERR what went wrong
The target itself is never printed: it is what the table says at LINE.
"""
import re
import socket
import ssl
import sys


def target_of(text):
    out = bytearray()
    i = 0
    while i < len(text):
        if text.startswith("\\\\", i):
            out += b"\\"
            i += 2
        elif re.match(r"\\x[0-9a-fA-F]{2}", text[i:i + 4]):
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        else:
            out += text[i].encode()
            i += 1
    return bytes(out)


def cases(path, only):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if only and n not in only:
                continue
            yield n, fields[0], target_of(fields[1])


def send(host, target, headers):
    ctx = ssl.create_default_context()
    extra = b"".join(h.encode() + b"\r\n" for h in headers)
    with socket.create_connection((host, 443), timeout=15) as raw:
        with ctx.wrap_socket(raw, server_hostname=host) as s:
            s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: " +
                      host.encode() + b"\r\n" + extra +
                      b"Connection: close\r\n\r\n")
            got = b""
            while b"\r\n" not in got:
                chunk = s.recv(4096)
                if not chunk:
                    break
                got += chunk
    status = got.split(b"\r\n", 1)[0].split(b" ")
    if len(status) < 2 or not status[1].isdigit():
        raise ValueError("no status line: %r" % got[:40])
    return int(status[1])


def main():
    args, headers = sys.argv[1:], []
    while len(args) >= 2 and args[0] == "-H":
        headers.append(args[1])
        args = args[2:]
    host, table = args[0], args[1]
    only = {int(a) for a in args[2:]}
    for n, verdict, target in cases(table, only):
        try:
            print("raw %d %s status=%d" % (n, verdict,
                                           send(host, target, headers)),
                  flush=True)
        except Exception as e:  # the line says what it was
            print("raw %d %s ERR %s: %s" % (n, verdict, type(e).__name__,
                                            e), flush=True)


if __name__ == "__main__":
    main()
