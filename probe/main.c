/* SPDX-License-Identifier: MIT */
/*
 * ward probe: a battery of hostile actions, each in a headless sandbox of
 * its own made from the current policy, judged from outside.
 *
 * The hostile program is this binary itself (`ward probe-inside NAME`,
 * probe/inside*.c), shown to the sandbox with --in. Nothing it says
 * decides a verdict: what it prints only names the errno it met, for the
 * report. The verdict (judge.c) comes from the canary folder, the planted
 * secret, the host's TCP and UDP listeners, the supervisor's fate and its
 * sockets, the sandbox's processes and socket tables sampled from /proc,
 * the opens of the race's script (inotify), with root a packet watch on
 * the host's interfaces (watch.c), and the record (run.c).
 *
 * The network probes reach only 127.0.0.1 (the sandbox's own loopback,
 * where the host's listeners must hear nothing), 192.0.2.1 (TEST-NET-1,
 * denied before any packet), 169.254.169.254 (refused by the never list)
 * and a made-up name under .invalid (denied, so never forwarded).
 */
#include "probe/probe.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "config/escape.h"
#include "config/util.h"
#include "probe/defs.h"
#include "probe/judge.h"
#include "probe/report.h"
#include "probe/run.h"
#include "probe/setup.h"
#include "probe/watch.h"

static void
probe_on_signal(int sig)
{
	probe_stop = sig;
}

/* What the outside saw once the run is over; the canary snapshot taken
 * before it, compared. */
static void
probe_gather(struct probe *p, struct probe_run *r, const char *before,
    const char *before_wr, int ino)
{
	cleanup_free char *after = probe_snapshot(p->canary);
	struct probe_outside *o = &r->o.outside;

	r->o.canary_diff = probe_snap_diff(before, after);
	if (before_wr != NULL) {
		cleanup_free char *after_wr = probe_snapshot(p->wr);
		cleanup_free char *d = probe_snap_diff(before_wr, after_wr);

		if (d != NULL && r->o.canary_diff == NULL)
			r->o.canary_diff = xasprintf("writable folder: %s", d);
		else if (d != NULL) {
			char *t = xasprintf("%s; writable folder: %s",
			    r->o.canary_diff, d);

			free(r->o.canary_diff);
			r->o.canary_diff = t;
		}
	}
	o->conns = probe_accept_all(p);
	o->dgrams = probe_drain_udp(p);
	probe_drain_packets(p, o);
	if (ino >= 0)
		o->exec_opens = probe_count_opens(ino);
}

static int
probe_one(struct probe *p, const struct probe_def *d,
    struct probe_result *res, char **cause)
{
	struct probe_run r;
	struct probe_env env = probe_env_of(p);
	cleanup_free char *policy = NULL, *before = NULL, *before_wr = NULL;
	cleanup_free char *script = NULL;
	cleanup_fd int ino = -1;
	int out_fd = -1, err_fd = -1, rc;
	bool changed;

	memset(&r, 0, sizeof r);
	r.o.def = d;
	r.pidfd = -1;
	r.o.exit_code = -1;
	memset(res, 0, sizeof *res);
	res->def = d;
	res->status = -1;
	res->overrides = probe_overrides(d);
	if ((rc = probe_write_policy(p, d, &policy, cause)) < 0)
		return rc;
	before = probe_snapshot(p->canary);
	before_wr = d->writable ? probe_snapshot(p->wr) : NULL;
	(void)probe_accept_all(p);
	(void)probe_drain_udp(p);
	probe_drain_packets(p, NULL);
	if (d->race) {
		script = xasprintf("%s/%s", p->tools, PROBE_RACE_SCRIPT);
		if ((ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0 ||
		    inotify_add_watch(ino, script, IN_OPEN |
		    IN_CLOSE_NOWRITE) < 0) {
			rc = -errno;
			*cause = xasprintf("inotify on %s: %s", script,
			    strerror(errno));
			return rc;
		}
		r.script = script;
	}
	if ((rc = probe_spawn(p, policy, &r, &out_fd, &err_fd, cause)) < 0)
		return rc;
	probe_run_loop(p, &r, out_fd, err_fd);
	if (p->keep) {
		probe_keep_file(p, d->name, "out", &r.o.out);
		probe_keep_file(p, d->name, "err", &r.o.err);
	}
	if (r.o.id[0] == '\0') {
		cleanup_free char *e = escape_mem(r.o.err.p ? r.o.err.p : "",
		    r.o.err.len > 2000 ? 2000 : r.o.err.len);

		*cause = xasprintf("the %s run did not start: %s", d->name, e);
		probe_run_done(&r);
		return -EIO;
	}
	probe_gather(p, &r, before, before_wr, ino);
	if ((rc = probe_read_record(&r, cause)) < 0) {
		probe_run_done(&r);
		return rc;
	}
	probe_judge(&env, &r.o, res);
	changed = r.o.canary_diff != NULL;
	probe_run_done(&r);
	/* An escape must not spoil the probes after it. */
	if (changed) {
		probe_remove_tree(p->canary);
		if ((rc = probe_make_canary(p, cause)) < 0)
			return rc;
		probe_remove_tree(p->wr);
		if ((rc = probe_make_wr(p, cause)) < 0)
			return rc;
	}
	return 0;
}

static void
probe_usage(FILE *f)
{
	fputs("usage: ward probe [--policy FILE] [--json | --summary] [--keep]\n"
	    "\n"
	    "Runs a battery of hostile actions, each in a sandbox of its own\n"
	    "made from the policy (a copy with ask_timeout = 5s and timeout =\n"
	    "20s; the pid, memory and wall-clock probes lower that limit), and\n"
	    "denies every request at once. Each result is judged from outside:\n"
	    "a canary folder, a secret planted in your home and in ward's\n"
	    "environment, TCP and UDP listeners on 127.0.0.1, the supervisor\n"
	    "and its sockets, the sandbox's processes and sockets, the execs\n"
	    "the argv race got to run, with root a packet watch on the host's\n"
	    "interfaces, and the record. The network probes reach only\n"
	    "127.0.0.1, 192.0.2.1 and 169.254.169.254 (both refused before any\n"
	    "packet) and a made-up name under .invalid. Prints one line per\n"
	    "probe, then \"N blocked and logged, M escaped\".\n"
	    "\n"
	    "  --policy FILE  the policy to test (default: the one `ward run`\n"
	    "                 uses)\n"
	    "  --json         the report as JSON\n"
	    "  --summary      one short line per surface (files, secrets,\n"
	    "                 network, kernel, limits), for a slide, then\n"
	    "                 \"N of M probes contained; took T s\"; while\n"
	    "                 it works, its progress on stderr (a counter\n"
	    "                 on a terminal, else a line per probe)\n"
	    "  --keep         keep the temp folder (canary, policy copies,\n"
	    "                 each run's output) and the planted secret\n"
	    "\n"
	    "Exit status: 0 nothing escaped and everything is in the record;\n"
	    "1 something escaped or went unrecorded; 125 the harness failed.\n",
	    f);
}

const struct option probe_opts[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "json", no_argument, NULL, 'j' },
	{ "summary", no_argument, NULL, 's' },
	{ "keep", no_argument, NULL, 'k' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int
probe_main(int argc, char **argv, const char *argv0)
{
	struct probe *p = xcalloc(1, sizeof *p);
	cleanup_free char *cause = NULL, *harness = NULL;
	const char *policy = NULL;
	unsigned ok, escaped, unrecorded, errors;
	int64_t t0 = now_mono_ms();
	bool tty = isatty(STDERR_FILENO) == 1;
	int opt, status;

	p->lfd = p->ufd = p->pfd = -1;
	p->argv0 = argv0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", probe_opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			policy = optarg;
			break;
		case 'j':
			p->json = true;
			break;
		case 's':
			p->summary = true;
			break;
		case 'k':
			p->keep = true;
			break;
		case 'h':
			probe_usage(stdout);
			free(p);
			return 0;
		default:
			fputs("ward probe: see `ward probe --help`\n", stderr);
			free(p);
			return 2;
		}
	}
	if (optind < argc) {
		fputs("ward probe: no arguments expected; see `ward probe "
		    "--help`\n", stderr);
		free(p);
		return 2;
	}
	/* A run's control socket may close under a write. */
	signal(SIGPIPE, SIG_IGN);
	{
		struct sigaction sa = { .sa_handler = probe_on_signal };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}

	if (probe_setup(p, policy, &cause) < 0) {
		cleanup_free char *e = escape_str(cause ? cause : "setup failed");

		fprintf(stderr, "ward probe: %s\n", e);
		probe_teardown(p);
		free(p);
		return 125;
	}
	if (p->json && p->summary) {
		fputs("ward probe: --json or --summary, not both\n", stderr);
		probe_teardown(p);
		free(p);
		return 2;
	}
	if (!p->json && !p->summary) {
		cleanup_free char *pol = escape_str(p->policy_path);
		cleanup_free char *can = escape_str(p->canary);

		printf("ward probe: %zu probes against %s; each run: --in %s, "
		    "ask_timeout = %ds, timeout = %ds, every request denied at "
		    "once\n", probe_n_defs, pol, can,
		    PROBE_ASK_TIMEOUT, PROBE_GUARD);
		fflush(stdout);
	}
	for (size_t i = 0; i < probe_n_defs; i++) {
		free(cause);
		cause = NULL;
		if (probe_stop)
			break;
		if (p->summary)
			probe_progress(stderr, tty, i, probe_n_defs,
			    &probe_defs[i], NULL, now_mono_ms() - t0);
		if (probe_one(p, &probe_defs[i], &p->results[i], &cause) < 0) {
			harness = cause ? steal_ptr(&cause) :
			    xstrdup("a probe failed to run");
			break;
		}
		if (probe_stop)
			break;
		p->n_results = i + 1;
		if (!p->json && !p->summary)
			probe_print_line(&p->results[i]);
		else if (p->summary)
			probe_progress(stderr, tty, i, probe_n_defs,
			    &probe_defs[i], &p->results[i], now_mono_ms() - t0);
	}
	if (p->summary)
		probe_progress_end(stderr, tty);
	if (probe_stop) {
		fprintf(stderr, "ward probe: interrupted by signal %d\n",
		    (int)probe_stop);
		probe_teardown(p);
		free(p);
		return 128 + (int)probe_stop;
	}
	probe_counts(p, &ok, &escaped, &unrecorded, &errors);
	if (p->json)
		probe_print_json(p, harness);
	else if (p->summary) {
		probe_print_summary(p, harness);
		probe_print_total(p, probe_n_defs, now_mono_ms() - t0);
	}
	else {
		if (harness != NULL)
			printf("ward probe: harness failed: %s\n", harness);
		if (unrecorded > 0 || errors > 0)
			printf("%u stopped but not in the record, %u not "
			    "judged\n", unrecorded, errors);
		printf("%u blocked and logged, %u escaped\n", ok, escaped);
	}
	if (escaped > 0 || unrecorded > 0)
		status = 1;
	else if (harness != NULL || errors > 0)
		status = 125;
	else
		status = 0;
	probe_teardown(p);
	free(p);
	return status;
}
