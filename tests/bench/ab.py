#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Start-up of two (or more) builds, turn about.

  tests/bench/ab.py N LABEL 'COMMAND' STATE [LABEL 'COMMAND' STATE ...]

Runs each COMMAND N times (after 10 warm-up turns), the commands one
after the other in each turn and in the reverse order in the next, with
XDG_STATE_HOME=STATE for that command (its own record, so that one
build's record does not change the other's), and prints the median,
mean, p10 and p90 wall time of each in milliseconds. On a shared
machine whose load moves by a millisecond from one minute to the next,
only runs taken turn about compare: hyperfine's one command after the
other does not. COMMAND is split on spaces (no shell).
"""
import os
import statistics
import subprocess
import sys
import time

WARM = 10


def main(argv):
    if len(argv) < 5 or (len(argv) - 2) % 3 != 0:
        sys.stderr.write(__doc__)
        return 2
    n = int(argv[1])
    specs = [(argv[i], argv[i + 1].split(), argv[i + 2])
             for i in range(2, len(argv), 3)]
    times = {label: [] for label, _, _ in specs}
    with open(os.devnull, "w") as null:
        for turn in range(n + WARM):
            order = specs if turn % 2 == 0 else specs[::-1]
            for label, cmd, state in order:
                env = dict(os.environ, XDG_STATE_HOME=state)
                t = time.perf_counter()
                subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=null,
                               stderr=null, env=env, check=False)
                if turn >= WARM:
                    times[label].append((time.perf_counter() - t) * 1e3)
    for label, _, _ in specs:
        r = sorted(times[label])
        print("%-12s median %.2f mean %.2f p10 %.2f p90 %.2f ms (n=%d)" % (
            label, statistics.median(r), statistics.mean(r),
            r[len(r) // 10], r[len(r) * 9 // 10], len(r)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
