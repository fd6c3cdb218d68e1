#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The agent pane under load (issue 13), driven through a pty of our own.

    agentpane.py --ward WARD --policy P --dir D --mb N --keys K --out JSON

D is a folder every sandbox sees (below /var/tmp): it holds the N MiB file
the program cats and the folder it asks to write into (shown read-only by
--in, so that the write is trapped and asked). The console is `ward run
--agent` on a pty of 120x40 that this script reads (a person's terminal).

1. The program raises a write request (left pending) and cats N MiB into
   its pane. Meanwhile K times: the prefix key (^]) into the console's
   pty, then the time until the console has drawn the focus on the
   requests ("Esc agent" on its status line), then Esc and the time until
   it is back ("keys go to"): a key answered, p50 and p99 (Esc includes
   curses' 25 ms wait for the rest of an escape sequence).
2. After the cat: the program's terminal in cooked mode (`cat`), K keys
   typed into the console's pty, each timed until its echo comes back
   drawn in the agent pane: key-to-echo through ward. The same K keys
   typed into a pty of `cat` run with no ward: the reference.
3. The supervisor's peak RSS (VmHWM) and the console's, at the end.

Writes JSON: key_s, echo_s, echo_native_s (lists, seconds), cat_s,
sup_hwm_kib, console_hwm_kib, mb. A bench, no verdicts.
"""
import argparse
import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time

ROWS, COLS = 40, 120


def set_size(fd):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))


def spawn(argv, env):
    """argv on a new pty; returns (pid, master fd)."""
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    set_size(fd)
    return pid, fd


class Reader:
    """What came out of a pty master, kept whole, read as it comes."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()

    def pump(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.fd, 1 << 16)
        except OSError:
            return False
        self.buf += data
        return bool(data)

    def wait_for(self, needle, since, timeout):
        """Time (monotonic) when needle appeared past offset since."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.buf.find(needle, since) >= 0:
                return time.monotonic()
            self.pump(0.05)
        return None

    def drain(self, secs):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            self.pump(0.02)


def hwm_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def supervisor_pid(name):
    """The ward-supervisor whose command line names the run."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"ward-supervisor") and \
                name.encode() in argv:
            return int(d)
    return None


def timed_key(rd, key, needle, timeout=5.0):
    since = len(rd.buf)
    t0 = time.monotonic()
    os.write(rd.fd, key)
    t1 = rd.wait_for(needle, since, timeout)
    return None if t1 is None else t1 - t0


def echo_times(rd, keys, settle):
    """Keys typed one by one, each timed until its echo is back."""
    out = []
    letters = b"QXZJVWY"
    for i in range(keys):
        c = letters[i % len(letters):i % len(letters) + 1]
        t = timed_key(rd, c, c)
        if t is not None:
            out.append(t)
        rd.drain(settle)
        if i % 60 == 59:
            # A fresh line: cooked mode keeps at most a line of 4095.
            os.write(rd.fd, b"\r")
            rd.drain(settle)
    return out


def native_echo(keys, env):
    pid, fd = spawn(["cat"], env)
    rd = Reader(fd)
    rd.drain(0.2)
    out = echo_times(rd, keys, 0.005)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(fd)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ward", required=True)
    ap.add_argument("--policy", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--keys", type=int, default=100)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    big = os.path.join(a.dir, "big")
    asked = os.path.join(a.dir, "asked")
    os.makedirs(asked, exist_ok=True)
    os.chmod(a.dir, 0o755)
    with open(big, "wb") as fh:
        line = b"".join(b"%07d the agent says something long enough\n" % i
                        for i in range(1024))
        for _ in range(a.mb * (1 << 20) // len(line)):
            fh.write(line)
    os.chmod(big, 0o644)

    name = "bench-agent-%d" % os.getpid()
    env = dict(os.environ, TERM="xterm-256color")
    env.pop("WARD_PREFIX", None)
    env.pop("NO_COLOR", None)
    script = ("touch %s/f & sleep 1; cat %s; : > /out/catdone; exec cat"
              % (asked, big))
    pid, fd = spawn([a.ward, "run", "--agent", "--name", name,
                     "--policy", a.policy, "--in", a.dir,
                     "--", "sh", "-c", script], env)
    rd = Reader(fd)
    if rd.wait_for(b"pending: 1", 0, 30) is None:
        sys.stderr.write("agentpane: no request in the strip after 30 s\n")
        return 2
    sup = supervisor_pid(name)
    runs = os.path.join(os.environ.get("XDG_STATE_HOME") or
                        os.path.expanduser("~/.local/state"), "ward", "runs")
    ps = subprocess.run([a.ward, "ps"], capture_output=True, text=True).stdout
    rid = [ln.split("\t")[0] for ln in ps.splitlines()
           if len(ln.split("\t")) > 1 and ln.split("\t")[1] == name]
    if not rid:
        sys.stderr.write("agentpane: run %s not in ward ps\n" % name)
        return 2
    done = os.path.join(runs, rid[0], "out", "catdone")
    t_cat = time.monotonic()
    keys = []
    # 1: the prefix and Esc, answered while the cat floods the pane.
    while len(keys) < 2 * a.keys:
        t = timed_key(rd, b"\x1d", b"Esc agent")
        if t is not None:
            keys.append(t)
        t = timed_key(rd, b"\x1b", b"keys go to")
        if t is not None:
            keys.append(t)
        rd.drain(0.02)
        if os.path.exists(done):
            break
    # the rest of the cat
    while not os.path.exists(done):
        rd.drain(0.2)
        if time.monotonic() - t_cat > 600:
            sys.stderr.write("agentpane: the cat did not end in 600 s\n")
            break
    cat_s = time.monotonic() - t_cat
    rd.drain(1.0)
    # 2: key to echo through ward.
    echo = echo_times(rd, a.keys, 0.02)
    sup_hwm = hwm_kib(sup) if sup else None
    con_hwm = hwm_kib(pid)
    subprocess.run([a.ward, "kill", name], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    rd.drain(1.0)
    os.write(fd, b"q")
    rd.drain(0.5)
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    native = native_echo(a.keys, env)
    with open(a.out, "w") as fh:
        json.dump({"key_s": keys, "echo_s": echo, "echo_native_s": native,
                   "cat_s": cat_s, "sup_hwm_kib": sup_hwm,
                   "console_hwm_kib": con_hwm, "mb": a.mb,
                   "keys_during_cat": len(keys)}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
