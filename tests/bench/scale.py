#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Many concurrent runs of a small workload (bench only, issue 6 workload 5).

    scale.py --mode native|bwrap|ward --n 50 --workdir DIR --out FILE
             [--ward WARD --policy FILE --sockdir DIR] -- CMD...

Makes the FIFO DIR/go and holds it open, starts N copies of CMD at once,
each in its own folder DIR/MODE.K (natively and under bwrap; ward gives each
run a fresh /work), and waits until every copy is blocked reading the FIFO
(CMD starts with `read x < DIR/go`; under ward DIR must be visible in the
sandbox, e.g. below /var) and, under ward, until one console-like watcher is
attached to every run's control socket (hello, watch: true: it then reads
everything sent to it, as a console attached to all the runs would). Then
it writes one line per copy into the FIFO, so that all of them go at once,
and waits for all. Every 50 ms it samples each top process (ward, the supervisor,
the outer bwrap): VmRSS, VmHWM and utime+stime from /proc.

Writes JSON: start_s (first start to all ready), wall_s (go to the last
exit), the exit codes, per top process its last VmHWM and CPU seconds, the
most copies alive at once, and what the watcher saw.

With --console-log FILE (ward only), the real console is attached too:
`ward console` (every run in one console) on a pty of 200x50, started
once the first run is up, with WARD_FRAME_LOG=FILE, so that it writes one line per
frame (tui/console.c: mono ms, frame us, round us, runs, pending); the go
waits until it shows all N runs. With --state DIR, the record
(DIR/ward/audit.db) is read at the end: how many of the runs it holds
with their end recorded.
"""
import argparse
import fcntl
import glob
import json
import os
import pty
import selectors
import signal
import sqlite3
import struct
import termios
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import approver  # noqa: E402

CLK = os.sysconf("SC_CLK_TCK")
# ward supervises a headless run in its own process; a build before
# exec'd ward-supervisor (its "ward" then was the front, for a moment).
TOP_NAMES = ("ward", "ward-supervisor", "bwrap")


def pss_kib(pid):
    """Proportional set size (KiB): the shared pages (libc's text, say)
    divided among the processes that map them. None if unreadable."""
    try:
        with open("/proc/%d/smaps_rollup" % pid) as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def sample(pid):
    """(VmRSS KiB, VmHWM KiB, CPU s, PSS KiB) of pid, or None once it is
    gone (or while it is not yet the supervisor)."""
    try:
        with open("/proc/%d/status" % pid) as fh:
            st = fh.read()
        with open("/proc/%d/stat" % pid) as fh:
            stat = fh.read()
    except OSError:
        return None
    rss = hwm = None
    for line in st.splitlines():
        if line.startswith("Name:") and \
                line.split(None, 1)[1].strip() not in TOP_NAMES:
            return None     # not (yet) the supervisor
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
    if rss is None:
        return None     # a zombie
    f = stat[stat.rindex(")") + 2:].split()
    cpu = (int(f[11]) + int(f[12])) / CLK     # utime, stime
    return rss, hwm, cpu, pss_kib(pid)


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for f in glob.glob("/proc/%d/task/*/children" % p):
            try:
                with open(f) as fh:
                    kids = [int(x) for x in fh.read().split()]
            except OSError:
                kids = []
            out += kids
            todo += kids
    return out


def blocked_on_fifo(pid, fifo_id):
    """Is pid or a descendant asleep reading our FIFO? (Not any pipe: the
    sandbox's init waits on one of its own before the program starts.)"""
    for d in [pid] + descendants(pid):
        try:
            with open("/proc/%d/wchan" % d) as fh:
                if "pipe_read" not in fh.read():
                    continue
            for fd in os.listdir("/proc/%d/fd" % d):
                st = os.stat("/proc/%d/fd/%s" % (d, fd))
                if (st.st_dev, st.st_ino) == fifo_id:
                    return True
        except OSError:
            pass
    return False


class Watcher(threading.Thread):
    """One console-like client attached to every run."""

    def __init__(self, stderr_files, procs, sockdir):
        super().__init__(daemon=True)
        self.files = stderr_files
        self.procs = procs
        self.sockdir = sockdir
        self.stop = threading.Event()
        self.connected = set()
        self.messages = {}
        self.failed = []

    def try_connect(self, k):
        try:
            with open(self.files[k], "rb") as fh:
                m = approver.RUN_RE.search(fh.read(4096))
        except OSError:
            m = None
        if not m:
            return None
        sp = os.path.join(self.sockdir, m.group(1).decode() + ".sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(sp)
        except OSError as e:
            s.close()
            if k < len(self.procs) and self.procs[k].poll() is not None:
                self.failed.append((k, str(e)))
                return False        # gone before we got there
            return None             # not listening yet: try again
        c = approver.Conn(s)
        c.hello("console")
        return c

    def run(self):
        sel = selectors.DefaultSelector()
        pending = set(range(len(self.files)))
        while not self.stop.is_set():
            for k in sorted(pending):
                c = self.try_connect(k)
                if c is None:
                    continue
                pending.discard(k)
                if c is False:
                    continue
                self.connected.add(k)
                sel.register(c.sock, selectors.EVENT_READ, (k, c))
            if not pending and not sel.get_map():
                break
            for key, _ in sel.select(timeout=0.01):
                k, c = key.data
                if not c.feed():
                    sel.unregister(c.sock)
                    c.sock.close()
                    continue
                self.messages[k] = self.messages.get(k, 0) + \
                    len(c.messages())


class Console:
    """The real console, every run in it, on a pty that a thread drains."""

    def __init__(self, ward, log):
        self.log = log
        pid, fd = pty.fork()
        if pid == 0:
            os.environ["WARD_FRAME_LOG"] = log
            os.environ["TERM"] = "xterm-256color"
            os.execv(ward, [ward, "console"])
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        os.kill(pid, signal.SIGWINCH)
        self.pid, self.fd = pid, fd
        self.thread = threading.Thread(target=self.drain, daemon=True)
        self.thread.start()

    def drain(self):
        while True:
            try:
                if not os.read(self.fd, 65536):
                    return
            except OSError:
                return

    def runs_seen(self):
        """The runs in the console's last frame, 0 before any."""
        try:
            with open(self.log, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                fh.seek(max(0, fh.tell() - 256))
                lines = fh.read().splitlines()
            return int(lines[-1].split()[3]) if lines else 0
        except (OSError, ValueError, IndexError):
            return 0

    def stop(self):
        os.kill(self.pid, signal.SIGTERM)
        for _ in range(100):
            if os.waitpid(self.pid, os.WNOHANG)[0] != 0:
                break
            time.sleep(0.05)
        else:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)

    def frames(self):
        """(frame s, round s, frame CPU s) of every frame drawn with runs
        in it."""
        out = []
        try:
            with open(self.log) as fh:
                for line in fh:
                    f = line.split()
                    if len(f) == 6 and int(f[3]) > 0:
                        out.append((int(f[1]) / 1e6, int(f[2]) / 1e6,
                                    int(f[5]) / 1e6))
        except OSError:
            pass
        return out


def recorded(state, errs):
    """How many of the runs (ids from their stderr) the record holds,
    and how many of those with their end."""
    ids = []
    for e in errs:
        try:
            with open(e, "rb") as fh:
                m = approver.RUN_RE.search(fh.read(4096))
        except OSError:
            m = None
        if m:
            ids.append(m.group(1).decode())
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(
        state, "ward", "audit.db"), uri=True)
    held = ended = 0
    for i in ids:
        row = db.execute("SELECT ended_ms FROM runs WHERE id = ?",
                         (i,)).fetchone()
        if row is not None:
            held += 1
            ended += row[0] is not None
    db.close()
    return len(ids), held, ended


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", required=True, choices=["native", "bwrap", "ward"])
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ward")
    ap.add_argument("--policy")
    ap.add_argument("--sockdir")
    ap.add_argument("--ready-timeout", type=float, default=60)
    ap.add_argument("--console-log")
    ap.add_argument("--state")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd

    fifo = os.path.join(a.workdir, "go")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    gofd = os.open(fifo, os.O_RDWR)     # readers never wait for a writer
    st = os.fstat(gofd)
    fifo_id = (st.st_dev, st.st_ino)

    procs, errs = [], []
    for k in range(a.n):
        errs.append(os.path.join(a.workdir, "%s.%d.err" % (a.mode, k)))
    watcher = console = None
    if a.mode == "ward":
        watcher = Watcher(errs, procs, a.sockdir)
        watcher.start()

    t0 = time.monotonic()
    for k in range(a.n):
        d = os.path.join(a.workdir, "%s.%d" % (a.mode, k))
        os.makedirs(d, exist_ok=True)
        if a.mode == "native":
            argv = cmd
        elif a.mode == "bwrap":
            argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev",
                    "--proc", "/proc", "--tmpfs", "/tmp", "--bind", d, d,
                    "--unshare-all", "--die-with-parent", "--new-session"] + cmd
        else:
            argv = [a.ward, "run", "--headless", "--policy", a.policy,
                    "--"] + cmd
        with open(errs[k], "wb") as e:
            procs.append(subprocess.Popen(argv, cwd=d, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=e))

    last, ends, pss_max, pss_life = {}, {}, {}, {}
    # PSS divides a shared page among those that map it: what a
    # supervisor holds "with N runs at once" is its PSS while all N are
    # up, from the go (every run started) to the first end. Before the go
    # the first ones to start share their libraries with few others, and
    # after the first end with fewer and fewer: pss_life keeps the largest
    # over each one's whole life too, for what it is.
    together = [False]

    def poll_all():
        alive = 0
        for k, p in enumerate(procs):
            if k in ends:
                continue
            if p.poll() is not None:
                ends[k] = time.monotonic()
                together[0] = False
                continue
            alive += 1
            s = sample(p.pid) if a.mode != "native" else None
            if s:
                last[k] = s
                if s[3] is not None:
                    pss_life[k] = max(pss_life.get(k, 0), s[3])
                    if together[0]:
                        pss_max[k] = max(pss_max.get(k, 0), s[3])
        return alive

    # Ready: every copy waits on the FIFO (and, under ward, is watched).
    ready = set()
    deadline = time.monotonic() + a.ready_timeout
    while time.monotonic() < deadline:
        poll_all()
        for k, p in enumerate(procs):
            if k not in ready and k not in ends and blocked_on_fifo(p.pid, fifo_id):
                ready.add(k)
        watched = watcher is None or \
            len(watcher.connected) + len(watcher.failed) >= a.n
        # The console leaves at once when no run is live: it starts once
        # the watcher met the first, and finds the rest by its scan.
        if a.console_log and console is None and watcher.connected:
            console = Console(a.ward, a.console_log)
        if a.console_log and (console is None or
                              console.runs_seen() < a.n - len(ends)):
            watched = False
        if len(ready) + len(ends) >= a.n and watched:
            break
        time.sleep(0.05)
    t_go = time.monotonic()
    together[0] = not ends
    max_alive = poll_all()
    os.write(gofd, b"go\n" * a.n)

    while len(ends) < a.n:
        max_alive = max(max_alive, poll_all())
        time.sleep(0.05)
    wall = max(ends.values()) - t_go
    os.close(gofd)
    if watcher:
        watcher.stop.set()
        watcher.join(5)
    frames = []
    if console is not None:
        time.sleep(1)       # the console sees the last runs end
        console.stop()
        frames = console.frames()
    rec = recorded(a.state, errs) if a.state else None

    out = {
        "mode": a.mode, "n": a.n, "start_s": t_go - t0, "wall_s": wall,
        "ready": len(ready),
        "exit_codes": [p.returncode for p in procs],
        "hwm_kib": [last[k][1] for k in sorted(last)],
        "cpu_s": [last[k][2] for k in sorted(last)],
        "pss_kib": [pss_max[k] for k in sorted(pss_max)],
        "pss_life_kib": [pss_life[k] for k in sorted(pss_life)],
        "max_alive": max_alive,
        "console_connected": len(watcher.connected) if watcher else 0,
        "console_failed": watcher.failed if watcher else [],
        "console_messages": sum(watcher.messages.values()) if watcher else 0,
        "frame_s": [f[0] for f in frames],
        "round_s": [f[1] for f in frames],
        "frame_cpu_s": [f[2] for f in frames],
        "console_runs_seen": console.runs_seen() if console else 0,
        "recorded": rec,
    }
    with open(a.out, "w") as fh:
        json.dump(out, fh)


if __name__ == "__main__":
    main()
