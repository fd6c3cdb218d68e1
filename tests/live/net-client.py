#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The network tests' client, run inside ward's sandbox. One action, one
line of result on stdout, in a form the tests grep:

    net-client.py connect HOST PORT [SECS]  connect HOST:PORT ok | ERR errno text
                                         (SECS 0: a blocking connect; a HOST
                                         with ":" is IPv6)
    net-client.py get URL [SECS]         get URL ok BODY | ERR ...
                                         (urllib; no SECS: a blocking connect)
    net-client.py resolve NAME           resolve NAME ok ADDR | ERR code text
    net-client.py udp HOST PORT [N]      N lines sendto HOST:PORT ok | ERR ...
    net-client.py udpconnect HOST PORT   udpconnect HOST:PORT ok | ERR ...
    net-client.py sendmsg HOST PORT      sendmsg HOST:PORT ok | ERR ...
    net-client.py tcpdns NAME            tcpdns NAME rcode=R [a=ADDR]
                                         (an A query over TCP to the
                                         resolv.conf name server)

Exit status 0 whatever the outcome: the line says what happened.
"""
import socket
import struct
import sys
import urllib.request


def say(*words):
    print(" ".join(str(w) for w in words), flush=True)


def err(e):
    return "ERR %s %s" % (e.errno, e.strerror)


def connect(host, port, secs="20"):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    if float(secs) > 0:
        s.settimeout(float(secs))
    try:
        s.connect((host, int(port)))
        say("connect %s:%s ok" % (host, port))
    except OSError as e:
        say("connect %s:%s %s" % (host, port, err(e)))
    finally:
        s.close()


def get(url, secs=None):
    try:
        if secs is None:
            r = urllib.request.urlopen(url)
        else:
            r = urllib.request.urlopen(url, timeout=float(secs))
        say("get %s ok %s" % (url, r.read().decode().strip()))
    except urllib.error.URLError as e:
        r = e.reason
        if isinstance(r, OSError):
            say("get %s %s" % (url, err(r)))
        else:
            say("get %s ERR - %s" % (url, r))
    except OSError as e:
        say("get %s %s" % (url, err(e)))


def resolve(name):
    try:
        infos = socket.getaddrinfo(name, None, socket.AF_INET,
                                   socket.SOCK_STREAM)
        say("resolve %s ok %s" % (name, infos[0][4][0]))
    except socket.gaierror as e:
        say("resolve %s ERR %s %s" % (name, e.errno, e.strerror))


def udp(host, port, n=1):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(int(n)):
        try:
            s.sendto(b"datagram %d" % i, (host, int(port)))
            say("sendto %s:%s ok" % (host, port))
        except OSError as e:
            say("sendto %s:%s %s" % (host, port, err(e)))


def udpconnect(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect((host, int(port)))
        s.send(b"connected datagram")
        say("udpconnect %s:%s ok" % (host, port))
    except OSError as e:
        say("udpconnect %s:%s %s" % (host, port, err(e)))


def sendmsg(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.sendmsg([b"sendmsg datagram"], [], 0, (host, int(port)))
        say("sendmsg %s:%s ok" % (host, port))
    except OSError as e:
        say("sendmsg %s:%s %s" % (host, port, err(e)))


def tcpdns(name):
    server = None
    with open("/etc/resolv.conf") as f:
        for line in f:
            w = line.split()
            if len(w) >= 2 and w[0] == "nameserver":
                server = w[1]
                break
    q = struct.pack(">HHHHHH", 0x5744, 0x0100, 1, 0, 0, 0)
    for label in name.rstrip(".").split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack(">HH", 1, 1)
    try:
        s = socket.create_connection((server, 53), timeout=20)
        s.sendall(struct.pack(">H", len(q)) + q)
        buf = b""
        while len(buf) < 2 or len(buf) < 2 + struct.unpack(">H", buf[:2])[0]:
            more = s.recv(4096)
            if not more:
                break
            buf += more
    except OSError as e:
        say("tcpdns %s %s" % (name, err(e)))
        return
    m = buf[2:]
    if len(m) < 12:
        say("tcpdns %s ERR short answer (%d bytes)" % (name, len(m)))
        return
    rcode = m[3] & 0x0f
    ancount = struct.unpack(">H", m[6:8])[0]
    words = ["tcpdns", name, "rcode=%d" % rcode]
    # the first A record, if any (answers come after the one question)
    i = 12
    while m[i] != 0:
        i += 1 + m[i]
    i += 5
    for _ in range(ancount):
        if m[i] & 0xc0 == 0xc0:
            i += 2
        else:
            while m[i] != 0:
                i += 1 + m[i]
            i += 1
        rtype, _, _, rdlen = struct.unpack(">HHIH", m[i:i + 10])
        i += 10
        if rtype == 1 and rdlen == 4:
            words.append("a=" + socket.inet_ntoa(m[i:i + 4]))
            break
        i += rdlen
    say(*words)


def main():
    acts = {"connect": connect, "get": get, "resolve": resolve, "udp": udp,
            "udpconnect": udpconnect, "sendmsg": sendmsg, "tcpdns": tcpdns}
    if len(sys.argv) < 2 or sys.argv[1] not in acts:
        sys.exit("usage: net-client.py %s ..." % "|".join(acts))
    acts[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    main()
