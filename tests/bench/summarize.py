#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Turn the raw results of tests/bench/run.sh into one table and a TSV.

    summarize.py RESULTS_DIR TSV_PATH

Reads what run.sh left in RESULTS_DIR (see run.sh for the file names),
prints the table on stdout and writes TSV_PATH with the header
workload sandbox median_s ratio_native ratio_bwrap min_ratio max_ratio rss_kib

Definitions (the same in the table and the TSV):
  median_s      median wall time over every run of every round (for the
                approval rows: the p50 or p99 latency, in seconds; for
                scale50: from the go of N concurrent runs to their last exit, median over
                rounds; for scale50_cpu: the CPU seconds of all the
                supervisors (outer bwraps) of one round, median over rounds)
  ratio_native  median_s / median_s of native, same workload
  ratio_bwrap   median_s / median_s of bwrap, same workload (true_record,
                printed "true (record N MB)": ward against a grown record,
                its ratios to true's native and bwrap)
  min_ratio, max_ratio
                the least and greatest over rounds of (this sandbox's
                median in that round / native's median in the same round):
                rounds interleave the sandboxes, so this is the spread of
                the ratio on a machine whose speed drifts
  rss_kib       peak resident set (VmHWM, sampled from /proc) of the
                supervisor (ward itself, which supervises a headless run in
                its own process; ward-supervisor in a build before), or of
                the outer bwrap; the largest seen over the workload's sampled
                runs (scale50: the median over the concurrent supervisors);
                NA natively and for the approval rows
Sandbox bare (true and the files workloads): tests/bench/bare.c, ward's
filter with every trapped call continued and nothing else; bare_read
(files_tmpfs), the same with each path read from the target's memory
first, the floor of a supervisor that judges paths. Below the table,
ward / bare: ward's median over bare's, same workload, same run.
Ratios only: no verdicts.
"""
import glob
import json
import math
import os
import re
import statistics
import sys

SANDBOXES = ("native", "bwrap", "ward")
TIMED_SANDBOXES = ("native", "bwrap", "bare", "bare_read", "ward")
BARE_WORKLOADS = ("true", "files", "files_tmpfs", "files_writable")
PEERS = ("srt", "codex", "firejail")    # run.sh PEERS=1 (tests/bench/peers.sh)
CLI_HWM = {}    # workload -> peak RSS of the ward CLI before its exec
NA = "NA"


def load(path):
    with open(path) as fh:
        return json.load(fh)


def pct(values, p):
    """Nearest-rank percentile."""
    v = sorted(values)
    if not v:
        return None
    k = max(0, math.ceil(p / 100.0 * len(v)) - 1)
    return v[k]


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(x, spec):
    return NA if x is None else format(x, spec)


class Row:
    def __init__(self, workload, sandbox, median, per_round, rss=None,
                 note=""):
        self.workload = workload
        self.sandbox = sandbox
        self.median = median
        self.per_round = per_round      # round -> value
        self.rss = rss
        self.note = note
        self.r_native = self.r_bwrap = self.min_r = self.max_r = None
        self.label = None               # printed instead of workload


def against(r, nat, bw):
    """Fill r's ratios against the native and bwrap rows nat, bw."""
    r.r_native = ratio(r.median, nat.median if nat else None)
    r.r_bwrap = ratio(r.median, bw.median if bw else None)
    if nat:
        rs = [ratio(v, nat.per_round.get(k)) for k, v in r.per_round.items()]
        rs = [x for x in rs if x is not None]
        if rs:
            r.min_r, r.max_r = min(rs), max(rs)


def finish(rows):
    """Fill the ratios of the rows of one workload."""
    by = {r.sandbox: r for r in rows}
    for r in rows:
        against(r, by.get("native"), by.get("bwrap"))


def timed_rows(res, workload, meta):
    """Rows of a hyperfine-timed workload: t.W.S.R.json (+ .rss.json)."""
    rows = []
    # true's second ward line: a grown record (run.sh's ward_record)
    extra = ("ward_record",) if workload == "true" else ()
    # Any other sandbox with results (the peers, or one this script does
    # not know yet) after them, with the same ratios; its RSS is NA.
    known = TIMED_SANDBOXES + extra
    seen = {os.path.basename(f).split(".")[2] for f in
            glob.glob(os.path.join(res, "t.%s.*.json" % workload))
            if os.path.basename(f).count(".") >= 4}
    others = sorted(seen - set(known),
                    key=lambda x: (PEERS.index(x) if x in PEERS else
                                   len(PEERS), x))
    for s in known + tuple(others):
        times, per_round, codes, rss = [], {}, [], None
        for f in sorted(glob.glob(os.path.join(res, "t.%s.%s.*.json" %
                                               (workload, s)))):
            if f.endswith(".rss.json"):
                continue
            rnd = int(f.split(".")[-2])
            d = load(f)["results"][0]
            times += d["times"]
            per_round[rnd] = statistics.median(d["times"])
            codes += d.get("exit_codes", [])
        if not times:
            continue
        # peak RSS: sampled timed runs and the extra sampled runs (r.*)
        # A headless ward supervises its run in its own process
        # ("ward"); a build before that exec'd ward-supervisor, and its
        # "ward" was the front alone.
        want = {"ward": "ward", "ward_record": "ward",
                "bwrap": "bwrap"}.get(s)
        for rf in glob.glob(os.path.join(res, "t.%s.%s.*.rss.json" %
                                         (workload, s))) + \
                glob.glob(os.path.join(res, "r.%s.%s.rss.json" %
                                       (workload, s))):
            procs = load(rf)["procs"]
            names = {p["name"] for p in procs}
            sup = want
            if want == "ward" and "ward-supervisor" in names:
                sup = "ward-supervisor"
                cli = [p["hwm_kib"] for p in procs if p["name"] == "ward"]
                if s == "ward" and cli:
                    CLI_HWM[workload] = max(CLI_HWM.get(workload, 0),
                                            max(cli))
            hw = [p["hwm_kib"] for p in procs if p["name"] == sup]
            if sup and hw:
                rss = max(rss or 0, max(hw))
        ok = sum(1 for c in codes if c == 0)
        note = "exit 0 in %d/%d runs" % (ok, len(codes))
        outs = sorted(glob.glob(os.path.join(res, "t.%s.%s.*.out" %
                                             (workload, s))))
        failed = set()
        for o in outs:
            with open(o, errors="replace") as fh:
                text = fh.read()
            m = re.search(r"\d+ tests? failed:\n((?:    .*\n)+)", text)
            if m:
                failed.update(m.group(1).split())
        if failed:
            note += "; failed: " + " ".join(sorted(failed))
        if s == "bare":
            note += "; ward's filter, every trap continued"
        elif s == "bare_read":
            note += "; the same, each path read first (poll, RECV, pread)"
        elif s == "ward" and workload == "files_tmpfs":
            note += "; in the run's own /tmp"
        elif s == "ward" and workload == "files_writable":
            note += "; policy-writable: each change done by ward, recorded"
        rows.append(Row(workload, s, statistics.median(times), per_round,
                        rss, note))
    finish(rows)
    for r in rows:
        if r.sandbox == "ward_record":
            r.workload, r.sandbox = "true_record", "ward"
            try:
                with open(os.path.join(res, "big-record-mb")) as fh:
                    mb = fh.read().strip()
            except OSError:
                mb = "?"
            r.label = "true (record %s MB)" % mb
    return rows


def read_lat(path):
    with open(path) as fh:
        return [float(x) for x in fh.read().split()]


def approval_rows(res):
    """a.V.R.lat: one latency (µs) a line, V in native bwrap ward
    ward-console ward-allow."""
    variants = {}
    for f in glob.glob(os.path.join(res, "a.*.lat")):
        _, v, rnd, _ = os.path.basename(f).split(".")
        variants.setdefault(v, {})[int(rnd)] = read_lat(f)
    if not variants:
        return [], []
    rows, extra = [], []
    for p in (50, 99):
        group = {}
        for v, label, sandbox in (
                ("native", "approvals_p%d", "native"),
                ("bwrap", "approvals_p%d", "bwrap"),
                ("ward", "approvals_p%d", "ward"),
                ("ward-console", "approvals_console_p%d", "ward"),
                ("ward-allow", "approvals_allow_p%d", "ward")):
            rounds = variants.get(v)
            if not rounds:
                continue
            allv = [x for r in rounds.values() for x in r]
            per_round = {k: pct(r, p) / 1e6 for k, r in rounds.items() if r}
            row = Row(label % p, sandbox, pct(allv, p) / 1e6, per_round)
            row.note = {"native": "create in a host folder",
                        "bwrap": "create in a folder bound rw",
                        "ward": "trapped, asked, auto-approved via socket",
                        "ward-console": "same, a console-like watcher too",
                        "ward-allow": "trapped, allowed by policy glob"}[v]
            row.note += "; %d creates" % len(allv)
            group[v] = row
        for v, row in group.items():
            against(row, group.get("native"), group.get("bwrap"))
            rows.append(row)
    # client-side and audit.db figures, for the notes
    for v in ("ward", "ward-console"):
        rtt, waits, counts, decided = [], [], [], 0
        for f in glob.glob(os.path.join(res, "a.%s.*.stats.json" % v)):
            d = load(f)
            rtt += d["client_rtt_us"]
            decided += d["decided"]
        for f in glob.glob(os.path.join(res, "a.%s.*.waitms" % v)):
            waits += read_lat(f)
        for f in glob.glob(os.path.join(res, "a.%s.*.count" % v)):
            with open(f) as fh:
                counts.append(fh.read().strip())
        if rtt:
            extra.append("%-13s approver's view (request seen -> ack): "
                         "p50 %.0f us, p99 %.0f us over %d decisions"
                         % (v, pct(rtt, 50), pct(rtt, 99), decided))
        if waits:
            extra.append("%-13s audit.db wait_ms: p50 %g ms, p99 %g ms "
                         "(whole ms)" % (v, pct(waits, 50), pct(waits, 99)))
        if counts:
            extra.append("%-13s files really created on the host per run: %s"
                         % (v, " ".join(counts)))
    return rows, extra


def agent_rows(res):
    """agent.json (agentpane.py): a key answered while the pane floods,
    and key-to-echo through ward against a pty with no ward."""
    path = os.path.join(res, "agent.json")
    if not os.path.exists(path):
        return [], []
    d = load(path)
    rows, extra = [], []
    keys = d["key_s"]
    for p in (50, 99):
        if keys:
            r = Row("agent_key_p%d" % p, "ward", pct(keys, p), {},
                    d.get("sup_hwm_kib"),
                    "prefix/Esc answered during a cat of %d MiB, %d keys"
                    % (d["mb"], len(keys)))
            rows.append(r)
    for p in (50, 99):
        nat = d["echo_native_s"]
        war = d["echo_s"]
        if not nat:
            continue
        n = Row("agent_echo_p%d" % p, "native", pct(nat, p), {}, None,
                "key to echo, cat on a pty")
        rows.append(n)
        if war:
            w = Row("agent_echo_p%d" % p, "ward", pct(war, p), {},
                    d.get("sup_hwm_kib"),
                    "key to echo drawn in the agent pane, %d keys" % len(war))
            against(w, n, None)
            rows.append(w)
    extra.append("agent pane: cat of %d MiB took %.1f s in the pane "
                 "(paced by the console); supervisor peak RSS %s KiB, "
                 "console %s KiB" % (d["mb"], d["cat_s"],
                                     d.get("sup_hwm_kib"),
                                     d.get("console_hwm_kib")))
    return rows, extra


def scale_rows(res):
    runs = {}
    for f in glob.glob(os.path.join(res, "s.*.json")):
        _, mode, rnd, _ = os.path.basename(f).split(".")
        runs.setdefault(mode, {})[int(rnd)] = load(f)
    if not runs:
        return [], []
    rows, cpu_rows, extra = [], [], []
    for s in SANDBOXES:
        rr = runs.get(s)
        if not rr:
            continue
        walls = {k: d["wall_s"] for k, d in rr.items()}
        hwm = [x for d in rr.values() for x in d["hwm_kib"]]
        n = list(rr.values())[0]["n"]
        codes = [c for d in rr.values() for c in d["exit_codes"]]
        note = ("%d concurrent runs x %d rounds; exit 0 in %d/%d; all up in "
                "%.2f s (median)" % (
                    n, len(rr), sum(1 for c in codes if c == 0), len(codes),
                    statistics.median(d["start_s"] for d in rr.values())))
        rows.append(Row("scale%d" % n, s, statistics.median(walls.values()),
                        walls, statistics.median(hwm) if hwm else None, note))
        if s != "native":
            cpus = {k: sum(d["cpu_s"]) for k, d in rr.items()}
            cpu_rows.append(Row("scale%d_cpu" % n, s,
                                statistics.median(cpus.values()), cpus))
            if hwm:
                pss = [x for d in rr.values() for x in d.get("pss_kib", [])]
                extra.append(
                    "%-6s per-%s peak RSS over %d runs: median %d KiB, "
                    "max %d KiB%s; CPU per %s: %.1f ms (median round)"
                    % (s, "supervisor" if s == "ward" else "outer bwrap",
                       len(hwm), statistics.median(hwm), max(hwm),
                       "; largest PSS sampled (shared pages divided among "
                       "the %d runs): median %d KiB" % (
                           n, statistics.median(pss)) if pss else "",
                       "supervisor" if s == "ward" else "bwrap",
                       1000 * statistics.median(cpus.values()) / n))
            if s == "ward":
                fl = [len(d.get("console_failed", [])) for d in rr.values()]
                if any(fl):
                    extra.append("ward   runs gone before the watcher "
                                 "reached them: %s" % "/".join(map(str, fl)))
                cc = [d.get("console_connected", 0) for d in rr.values()]
                cm = [d.get("console_messages", 0) for d in rr.values()]
                extra.append("ward   console-like watcher attached to %s of "
                             "%d runs per round; messages received: %s"
                             % ("/".join(map(str, cc)), n,
                                "/".join(map(str, cm))))
    finish(rows)
    # CPU: no native figure; ratio to bwrap only
    bw = [r for r in cpu_rows if r.sandbox == "bwrap"]
    for r in cpu_rows:
        r.r_bwrap = ratio(r.median, bw[0].median if bw else None)
    return rows + cpu_rows, extra


def fleet_rows(res):
    """fleet.json (scale.py --console-log): BENCH_RUNS runs at once, the
    real console attached; frame times as rows, the rest as notes."""
    f = os.path.join(res, "fleet.json")
    if not os.path.exists(f):
        return [], [], None
    d = load(f)
    n = d["n"]
    rows = []
    for p in (50, 99):
        if d["frame_s"]:
            rows.append(Row("fleet%d_frame_p%d" % (n, p), "ward",
                            pct(d["frame_s"], p), {},
                            note="the console's redraw, %d frames with every "
                                 "run in it" % len(d["frame_s"])))
    codes = d["exit_codes"]
    rec = d.get("recorded") or [0, 0, 0]
    pss = sorted(d["pss_kib"])
    extra = ["fleet  %d runs at once, `ward console` attached to all (it saw "
             "%d): all up in %.1f s, all done %.1f s after the go; exit 0 in "
             "%d/%d; the record holds %d of %d runs, %d with their end"
             % (n, d.get("console_runs_seen", 0), d["start_s"], d["wall_s"],
                sum(1 for c in codes if c == 0), len(codes), rec[1], rec[0],
                rec[2])]
    if pss:
        extra.append("fleet  supervisor PSS with all %d up (largest sampled "
                     "from the go to the first end, each): median %d KiB, p99 "
                     "%d KiB, max %d KiB over %d supervisors"
                     % (n, pct(pss, 50), pct(pss, 99), pss[-1], len(pss)))
    life = sorted(d.get("pss_life_kib") or [])
    if life:
        extra.append("fleet  the same over each one's whole life (its first "
                     "moments share the libraries with few others): median "
                     "%d KiB, p99 %d KiB, max %d KiB"
                     % (pct(life, 50), pct(life, 99), life[-1]))
    if d["frame_s"]:
        extra.append("fleet  console frame (queue rebuilt + screen drawn): "
                     "p50 %.1f ms, p99 %.1f ms, max %.1f ms; the whole round "
                     "after poll (messages, scan, frame): p99 %.1f ms"
                     % (pct(d["frame_s"], 50) * 1e3, pct(d["frame_s"], 99) * 1e3,
                        max(d["frame_s"]) * 1e3, pct(d["round_s"], 99) * 1e3))
    cpu = d.get("frame_cpu_s") or []
    if cpu:
        # A frame's wall time includes waiting for a CPU: with the runs
        # busy there are hundreds of processes for two CPUs here.
        extra.append("fleet  the console's own CPU time in a frame: p50 "
                     "%.1f ms, p99 %.1f ms, max %.1f ms (the rest of a "
                     "frame's time it waited for a CPU)"
                     % (pct(cpu, 50) * 1e3, pct(cpu, 99) * 1e3,
                        max(cpu) * 1e3))
    return rows, extra, d


def bare_lines(rows):
    """ward / bare of each workload that has both: medians, and the
    spread of the per-round ratio (rounds interleave the sandboxes)."""
    out = []
    for w in BARE_WORKLOADS:
        by = {r.sandbox: r for r in rows if r.workload == w}
        wa, ba = by.get("ward"), by.get("bare")
        if not wa or not ba:
            continue
        rs = [ratio(v, ba.per_round.get(k)) for k, v in wa.per_round.items()]
        rs = [x for x in rs if x is not None]
        out.append("ward / bare  %-15s %6s   (rounds %s; %.4f s / %.4f s)"
                   % (w, fmt(ratio(wa.median, ba.median), ".2f"),
                      "%.2f..%.2f" % (min(rs), max(rs)) if rs else NA,
                      wa.median, ba.median))
    return out


def main():
    res, tsv = sys.argv[1], sys.argv[2]
    meta = load(os.path.join(res, "meta.json"))
    rows = []
    for w in meta["timed"]:
        rows += timed_rows(res, w, meta)
    arows, aextra = approval_rows(res)
    srows, sextra = scale_rows(res)
    grows, gextra = agent_rows(res)
    frows, fextra, fleet = fleet_rows(res)
    rows += arows + srows + grows + frows
    sextra += gextra + fextra

    os.makedirs(os.path.dirname(os.path.abspath(tsv)), exist_ok=True)
    with open(tsv, "w") as fh:
        fh.write("workload\tsandbox\tmedian_s\tratio_native\tratio_bwrap\t"
                 "min_ratio\tmax_ratio\trss_kib\n")
        for r in rows:
            fh.write("\t".join([
                r.workload, r.sandbox, fmt(r.median, ".6f"),
                fmt(r.r_native, ".3f"), fmt(r.r_bwrap, ".3f"),
                fmt(r.min_r, ".3f"), fmt(r.max_r, ".3f"),
                NA if r.rss is None else "%d" % r.rss]) + "\n")

    hdr = ("%-22s %-8s %11s %8s %8s %15s %8s  %s"
           % ("workload", "sandbox", "median_s", "x native", "x bwrap",
              "min..max x nat", "rss_kib", "notes"))
    # PEERS=1: the peers' versions (tests/bench/peers.sh), above the table
    try:
        with open(os.path.join(res, "peers.txt")) as fh:
            print("peers: " + fh.read().strip())
        print()
    except OSError:
        pass
    print(hdr)
    print("-" * len(hdr))
    last = None
    for r in rows:
        group = r.workload.split("_p")[0].split("_record")[0]
        if last is not None and group != last:
            print()
        last = group
        spread = NA if r.min_r is None else "%.2f..%.2f" % (r.min_r, r.max_r)
        print("%-22s %-8s %11s %8s %8s %15s %8s  %s" % (
            r.label or r.workload, r.sandbox, fmt(r.median, ".6f"),
            fmt(r.r_native, ".2f"), fmt(r.r_bwrap, ".2f"), spread,
            NA if r.rss is None else "%d" % r.rss, r.note))
    cli = ["%s %d" % (w, k) for w, k in CLI_HWM.items()]
    if cli:
        aextra.append("ward CLI's own peak RSS before it execs the supervisor "
                      "(KiB, sampled): " + ", ".join(cli))
    bl = bare_lines(rows)
    if bl:
        print()
        for line in bl:
            print(line)
    if aextra or sextra:
        print()
        for line in aextra + sextra:
            print(line)

    # The targets, as ratios side by side (no verdicts).
    def get(w, s):
        for r in rows:
            if r.workload == w and r.sandbox == s:
                return r
        return None
    print()
    print("issue 6 targets, measured figure beside each (no verdicts):")
    t = get("true", "ward")
    if t:
        print("  start-up ward / bwrap        %6s   (target: within 2x)"
              % fmt(t.r_bwrap, ".2f"))
    t = get("files", "ward")
    if t:
        print("  files ward / bwrap           %6s   (target: within 1.5x)"
              % fmt(t.r_bwrap, ".2f"))
    for w in meta["timed"]:
        if w in ("true", "files", "files_tmpfs", "files_writable"):
            continue
        t = get(w, "ward")
        if t:
            print("  %-28s %6s   (target: within 1.05x)"
                  % (w + " ward / native", fmt(t.r_native, ".3f")))
    t = get("approvals_p99", "ward")
    if t:
        print("  approval round trip p99      %6s ms (target: under 2 ms)"
              % fmt(t.median * 1e3, ".2f"))
    t = [r for r in rows if r.workload.startswith("scale") and
         r.sandbox == "ward" and not r.workload.endswith("_cpu")]
    if t and t[0].rss:
        print("  supervisor RSS (scale, median) %5.2f MiB (target: under 4 MiB)"
              % (t[0].rss / 1024))
    t = get("true", "ward")
    if t and t.rss:
        print("  supervisor peak RSS (true)   %5.2f MiB" % (t.rss / 1024))
    t = get("agent_key_p99", "ward")
    if t:
        print("issue 13 targets:")
        print("  agent pane key answered p99  %6s ms (target: within 100 ms,"
              " during a cat of 100 MB)" % fmt(t.median * 1e3, ".1f"))
        if t.rss:
            print("  supervisor peak RSS (agent)  %5.2f MiB (bounded)"
                  % (t.rss / 1024))
    t, n = get("agent_echo_p50", "ward"), get("agent_echo_p50", "native")
    if t and n:
        print("  added key-to-echo p50        %6s ms (%s ms with ward, %s ms"
              " without)" % (fmt((t.median - n.median) * 1e3, ".2f"),
                             fmt(t.median * 1e3, ".2f"),
                             fmt(n.median * 1e3, ".3f")))
    print()
    print("issue 18 targets, measured figure beside each (no verdicts; "
          "the trapped write-open against its floor is below):")
    t = get("true", "ward")
    if t:
        big = get("true_record", "ward")
        print("  start-up ward / bwrap        %6s   (target: <= 1.0x)%s"
              % (fmt(t.r_bwrap, ".2f"), "" if big is None else
                 "; %s: %s" % (big.label, fmt(big.r_bwrap, ".2f"))))
    t = get("files_tmpfs", "ward")
    if t:
        print("  files on tmpfs ward / bwrap  %6s   (target: <= 1.1x)"
              % fmt(t.r_bwrap, ".2f"))
    t = get("files", "ward")
    if t:
        spread = NA if t.min_r is None else "%.2f..%.2f x native" % (
            t.min_r, t.max_r)
        print("  files on disk ward / bwrap   %6s   (no target; rounds "
              "spread %s)" % (fmt(t.r_bwrap, ".2f"), spread))
    t = get("approvals_p99", "ward")
    if t:
        print("  approval round trip p99      %6s ms (target: < 0.5 ms)"
              % fmt(t.median * 1e3, ".3f"))
    t = get("approvals_allow_p50", "ward")
    if t:
        print("  policy-allowed host write p50 %5s us (target: <= 150 us; "
              "write-ahead included)" % fmt(t.median * 1e6, ".0f"))
        n = get("approvals_p50", "native")
        if n:
            # The same create natively: on this disk the file system's
            # own cost is most of the figure, so ward's share is apart.
            print("    of which the create itself %5s us (native p50); "
                  "ward's own %s us" % (fmt(n.median * 1e6, ".0f"),
                                         fmt((t.median - n.median) * 1e6,
                                             ".0f")))
    for w in meta["timed"]:
        if w.startswith("cc_") or w == "python":
            t = get(w, "ward")
            if t:
                print("  %-28s %6s   (target: <= 1.02x)"
                      % (w + " ward / native", fmt(t.r_native, ".3f")))
    if fleet:
        n, rec = fleet["n"], fleet.get("recorded") or [0, 0, 0]
        pss = fleet["pss_kib"]
        print("  %d runs at once: supervisor PSS with all up, median %s "
              "KiB, max %s KiB (target: <= 600 KiB each)%s"
              % (n, fmt(pct(pss, 50) if pss else None, ".0f"),
                 fmt(max(pss) if pss else None, ".0f"),
                 "" if n >= 500 else " [BENCH_RUNS=%d, not 500]" % n))
        fr = fleet["frame_s"]
        cpu = fleet.get("frame_cpu_s") or []
        print("  console redraw, %d runs      %6s ms p99, %s ms max "
              "(target: < 50 ms); its own CPU in a frame: max %s ms"
              % (n, fmt(pct(fr, 99) * 1e3 if fr else None, ".1f"),
                 fmt(max(fr) * 1e3 if fr else None, ".1f"),
                 fmt(max(cpu) * 1e3 if cpu else None, ".1f")))
        print("  runs completed / recorded    %d / %d of %d (target: all)"
              % (sum(1 for c in fleet["exit_codes"] if c == 0), rec[2], n))

    def over(w, a, b):
        x, y = get(w, a), get(w, b)
        return ratio(x.median, y.median) if x and y else None
    lines = []
    if get("files_tmpfs", "ward"):
        lines.append("  files on tmpfs ward / bare   %6s   (target: <= 1.3x; "
                     "ward / bwrap %s)"
                     % (fmt(over("files_tmpfs", "ward", "bare"), ".2f"),
                        fmt(over("files_tmpfs", "ward", "bwrap"), ".2f")))
    if get("files_tmpfs", "bare_read"):
        lines.append("    the floor under it: bare --read / bare %s (each "
                     "path read, as a judging supervisor must); ward / "
                     "bare --read %s"
                     % (fmt(over("files_tmpfs", "bare_read", "bare"), ".2f"),
                        fmt(over("files_tmpfs", "ward", "bare_read"),
                            ".2f")))
    if get("true", "ward"):
        lines.append("  start-up ward / bwrap        %6s   (target: <= 1.2x)"
                     % fmt(over("true", "ward", "bwrap"), ".2f"))
    t = get("approvals_p99", "ward")
    if t:
        lines.append("  approval round trip p99      %6s ms (target: <= 0.8 ms "
                     "in the full bench; <= 0.5 ms alone)"
                     % fmt(t.median * 1e3, ".3f"))
    if get("files_writable", "ward"):
        lines.append("  files in a policy-writable folder ward / bare %s "
                     "(no target: each change performed and recorded by "
                     "ward)" % fmt(over("files_writable", "ward", "bare"),
                                   ".2f"))
    if lines:
        print()
        print("issue 35 targets, measured figure beside each (no verdicts):")
        for line in lines:
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
