#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Peak RSS of the sandbox's top process, sampled (bench only).

    sampler.py --parent PID --out FILE [--interval S]

While PID (hyperfine, which runs each command as its direct child with -N)
lives, reads every INTERVAL seconds the children of PID and, for each,
VmHWM (peak resident set) from /proc/CHILD/status. VmHWM only grows, so
the last sample before a child exits is its peak up to then. Writes JSON
{"samples": K, "procs": [{"pid", "name", "hwm_kib"}...]} to FILE.

The top process is ward itself under ward (it supervises a headless run
in its own process; ward-supervisor, exec'd in place, in a build
before), the outer bwrap under bwrap, the workload itself natively.
"""
import argparse
import glob
import json
import os
import time


def children(pid):
    out = []
    for f in glob.glob("/proc/%d/task/*/children" % pid):
        try:
            with open(f) as fh:
                out += [int(x) for x in fh.read().split()]
        except OSError:
            pass
    return out


def status(pid):
    name, hwm = None, None
    try:
        with open("/proc/%d/status" % pid) as fh:
            for line in fh:
                if line.startswith("Name:"):
                    name = line.split(None, 1)[1].strip()
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                    break
    except OSError:
        pass
    return name, hwm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--parent", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--interval", type=float, default=0.02)
    a = ap.parse_args()

    procs = {}
    samples = 0
    while os.path.exists("/proc/%d" % a.parent):
        for c in children(a.parent):
            name, hwm = status(c)
            if hwm is None:
                continue
            # keyed by name too: ward's own peak before it execs the
            # supervisor is not the supervisor's
            p = procs.setdefault((c, name),
                                 {"pid": c, "name": name, "hwm_kib": 0})
            p["hwm_kib"] = max(p["hwm_kib"], hwm)
        samples += 1
        time.sleep(a.interval)
    with open(a.out, "w") as fh:
        json.dump({"samples": samples, "procs": list(procs.values())}, fh)


if __name__ == "__main__":
    main()
