#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A person's keyboard, timed, for the console's arming tests (issue 31).

    pty-keys.py [--size COLSxROWS] [--log FILE] --steps STEPS -- CMD ARG...

Runs CMD in a new pty of its own (not tmux: tmux send-keys reaches the
program through tmux's own reads and timing) and writes the keys of
STEPS into it, each write(2) one key, so the console reads them as they
arrive. The pty's output is read all along (a console blocked on a full
pty would stall by itself) and kept in --log. STEPS, separated by ';':

    sleep MS                 wait
    keys C EVERY_MS COUNT    C COUNT times, EVERY_MS apart (a held key)
    stall MS EVERY_MS C      SIGSTOP CMD for MS while C keeps coming
                             EVERY_MS apart, then SIGCONT
    exec SHELL-COMMAND       run it (sh -c) and wait for it
    mark NAME                print "mark NAME <CLOCK_REALTIME ms>"

After the steps CMD gets 5 s to leave, then SIGTERM, then SIGKILL (by
its pid). Exit status: CMD's, or 1 when a step failed.
"""
import argparse
import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time


def ms_sleep(ms):
    time.sleep(ms / 1000.0)


def now_ms():
    return int(time.time() * 1000)


def writer(fd):
    def put(c):
        os.write(fd, c.encode())
    return put


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="100x30")
    ap.add_argument("--log", default=os.devnull)
    ap.add_argument("--steps", required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")
    cols, rows = (int(x) for x in a.size.split("x"))

    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ.setdefault("LANG", "C.UTF-8")
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.kill(pid, signal.SIGWINCH)

    log = open(a.log, "wb")

    def drain():
        while True:
            try:
                b = os.read(fd, 65536)
            except OSError:
                return
            if not b:
                return
            log.write(b)
            log.flush()

    t = threading.Thread(target=drain, daemon=True)
    t.start()
    put = writer(fd)
    status = 0
    for step in (s.strip() for s in a.steps.split(";")):
        if not step:
            continue
        w = step.split(None, 1)
        op, rest = w[0], (w[1] if len(w) > 1 else "")
        if op == "sleep":
            ms_sleep(int(rest))
        elif op == "keys":
            c, every, count = rest.split()
            for i in range(int(count)):
                if i:
                    ms_sleep(int(every))
                put(c)
        elif op == "stall":
            ms, every, c = rest.split()
            end = time.monotonic() + int(ms) / 1000.0
            os.kill(pid, signal.SIGSTOP)
            n = 0
            while time.monotonic() < end:
                put(c)
                n += 1
                ms_sleep(int(every))
            os.kill(pid, signal.SIGCONT)
            print("stall: %d keys while stopped" % n, flush=True)
        elif op == "exec":
            if subprocess.call(["sh", "-c", rest]) != 0:
                print("step failed: " + step, file=sys.stderr)
                status = 1
        elif op == "mark":
            print("mark %s %d" % (rest, now_ms()), flush=True)
        else:
            print("unknown step: " + step, file=sys.stderr)
            status = 1
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        end = time.monotonic() + 5
        while time.monotonic() < end:
            p, st = os.waitpid(pid, os.WNOHANG)
            if p == pid:
                if status == 0:
                    status = os.waitstatus_to_exitcode(st)
                    status = status if status >= 0 else 128 - status
                return status
            time.sleep(0.05)
    return 1


if __name__ == "__main__":
    sys.exit(main())
