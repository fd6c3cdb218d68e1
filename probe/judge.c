/* SPDX-License-Identifier: MIT */
/*
 * The judging of one run, from what was seen of it (struct probe_obs):
 * the effects seen from outside, the limits, and the record, each its
 * own part; probe_judge adds them up into a verdict and the report's
 * columns ("stopped", "record", the problems).
 */
#include "probe/judge.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "config/escape.h"
#include "config/util.h"

/* Text with "%c", "%p", "%u", "%t" and "%n" filled in. */
char *
probe_expand(const struct probe_env *p, const char *s)
{
	struct probe_buf b = { 0 };
	char port[16], uport[16];

	snprintf(port, sizeof port, "%u", p->port);
	snprintf(uport, sizeof uport, "%u", p->uport);
	for (; *s != '\0'; s++) {
		const char *v = NULL;

		if (s[0] == '%')
			switch (s[1]) {
			case 'c':
				v = p->canary;
				break;
			case 'p':
				v = port;
				break;
			case 'u':
				v = uport;
				break;
			case 't':
				v = p->tools;
				break;
			case 'n':
				v = p->dnsname;
				break;
			default:
				break;
			}
		if (v != NULL) {
			probe_buf_str(&b, v);
			s++;
		} else
			probe_buf_add(&b, s, 1);
	}
	if (b.p == NULL)
		return xstrdup("");
	return b.p;
}

static void
probe_problem(struct probe_result *res, char *text)
{
	res->problems = xreallocarray(res->problems, res->n_problems + 1,
	    sizeof *res->problems);
	res->problems[res->n_problems++] = text;
}

static bool
probe_matches(const struct probe_env *p, const struct probe_event *e,
    const struct probe_expect *x)
{
	cleanup_free char *subject = NULL;

	if (e->kind != x->kind || e->verdict != x->verdict)
		return false;
	if (x->syscall != NULL && !probe_streq(e->syscall, x->syscall))
		return false;
	if (x->rule != NULL) {
		size_t n = strlen(x->rule);

		if (n > 0 && x->rule[n - 1] == '*' ? e->rule == NULL ||
		    strncmp(e->rule, x->rule, n - 1) != 0 :
		    !probe_streq(e->rule, x->rule))
			return false;
	}
	if (x->subject == NULL)
		return true;
	subject = probe_expand(p, x->subject);
	return probe_streq(e->subject, subject) ||
	    probe_streq(e->subject2, subject);
}

/* The errno names the probe met, from its own lines (for the report
 * only): "EPERM, EACCES". */
static void
probe_errnos(const struct probe_obs *r, struct probe_buf *b)
{
	cleanup_free char *pre = xasprintf("ward-probe: %s: ", r->def->name);
	size_t plen = strlen(pre);

	for (const char *l = r->out.p; l != NULL && *l != '\0';) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len > plen && strncmp(l, pre, plen) == 0) {
			const char *last = l;

			for (const char *q = l; q + 1 < l + len; q++)
				if (q[0] == ':' && q[1] == ' ')
					last = q + 2;
			size_t tl = (size_t)(l + len - last);

			/* An errno name, a resolver's (EAI_NONAME) or a DNS
			 * answer's. */
			if (last > l && tl < 24 && ((last[0] == 'E' &&
			    tl == strspn(last,
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")) ||
			    (tl == 8 && str_has_prefix(last, "NXDOMAIN")) ||
			    (tl == 8 && str_has_prefix(last, "SERVFAIL")) ||
			    (tl == 7 && str_has_prefix(last, "REFUSED")))) {
				cleanup_free char *e = xstrndup(last,
				    (size_t)(l + len - last));

				probe_list_add(b, e, ", ");
			}
		}
		l = nl ? nl + 1 : l + len;
	}
}

static const char *
probe_how_words(const struct probe_event *e)
{
	/* An install refused again at once says so in its rule. */
	if (e->kind == KIND_PACKAGE && e->how == HOW_RUN_RULE &&
	    e->rule != NULL)
		return e->rule;
	switch (e->how) {
	case HOW_PERSON:
		return "person/deny";
	case HOW_POLICY:
		/* The network's rules say which: "never 169.254.0.0/16". */
		if ((e->kind == KIND_CONNECT || e->kind == KIND_DNS) &&
		    e->rule != NULL)
			return e->rule;
		return "policy rule";
	case HOW_DEFAULT:
		return "policy (write = deny)";
	case HOW_TIMEOUT:
		return "nobody answered (ask_timeout)";
	case HOW_RUN_RULE:
		return "rule for this run";
	case HOW_FLOOR:
		return e->rule != NULL ? e->rule : "floor";
	case HOW_SUPERVISOR:
		return "supervisor (run ended)";
	}
	return "?";
}

/* The limit's item of the run's limits text: "pids=64 (rlimits)". */
static char *
probe_limit_item(const char *limits, const char *key)
{
	const char *s = limits ? strstr(limits, key) : NULL;
	const char *how = limits ? strchr(limits, '(') : NULL;
	size_t n;

	if (s == NULL)
		return NULL;
	n = strcspn(s, " ");
	if (how != NULL)
		return xasprintf("%.*s %.*s", (int)n, s,
		    (int)(strcspn(how, ")") + 1), how);
	return xstrndup(s, n);
}

/*
 * The race: every exec of the script that ran, seen from outside, must be
 * in the record by its pid (an exec, or an install let through). What
 * the record shows of its argv may differ from what ran: exec can only
 * be continued, and the floor is what holds for what runs.
 */
static void
probe_judge_race(const struct probe_obs *r, const struct probe_outside *o,
    struct probe_buf *record, struct probe_result *res, unsigned *missing,
    unsigned *errors)
{
	const struct probe_raced *unrec = NULL, *other = NULL;
	const struct probe_event *other_ev = NULL;
	size_t n_unrec = 0, n_other = 0;
	cleanup_free char *item = NULL;

	for (size_t i = 0; i < r->n_raced; i++) {
		const struct probe_raced *rc = &r->raced[i];
		const struct probe_event *ev = NULL;
		const char *rargs;

		for (size_t j = 0; j < r->n_events && ev == NULL; j++) {
			const struct probe_event *e = &r->events[j];

			if (e->pid == rc->pid && (e->kind == KIND_EXEC ||
			    (e->kind == KIND_PACKAGE &&
			    e->verdict == VERDICT_ALLOW)))
				ev = e;
		}
		if (ev == NULL) {
			if (n_unrec++ == 0)
				unrec = rc;
			continue;
		}
		/* The record's argv, past argv[0] (the kernel's is gone:
		 * the #! line replaced it). */
		rargs = ev->detail ? strchr(ev->detail, ' ') : NULL;
		rargs = rargs ? rargs + 1 : "";
		if (!probe_streq(ev->subject, rc->path) ||
		    strcmp(rargs, rc->args) != 0) {
			if (n_other++ == 0) {
				other = rc;
				other_ev = ev;
			}
		}
	}
	item = xasprintf("%zu exec%s of the script ran (seen from outside; "
	    "%u by inotify), %zu in the record by pid", r->n_raced,
	    r->n_raced == 1 ? "" : "s", o->exec_opens, r->n_raced - n_unrec);
	probe_buf_str(record, item);
	if (other != NULL) {
		cleanup_free char *ra = escape_str(other->args);
		cleanup_free char *rd = escape_str(other_ev->detail ?
		    other_ev->detail : "?");
		cleanup_free char *t = xasprintf(", %zu of them ran another "
		    "argv or path than recorded (ran \"pip %s\", recorded "
		    "\"%s\"): exec is continued by design", n_other, ra, rd);

		probe_buf_str(record, t);
	}
	if (unrec != NULL) {
		cleanup_free char *ep = escape_str(unrec->path);
		cleanup_free char *ea = escape_str(unrec->args);

		probe_problem(res, xasprintf("not in the record: %zu of %zu "
		    "execs that ran (seen from outside), e.g. pid %d ran %s %s",
		    n_unrec, r->n_raced, (int)unrec->pid, ep, ea));
		(*missing)++;
	}
	if (o->exec_opens > r->n_raced) {
		probe_problem(res, xasprintf("error: %u execs of the script "
		    "began (inotify) but %zu were seen running: the rest "
		    "cannot be judged", o->exec_opens, r->n_raced));
		(*errors)++;
	}
}

/* What the outside saw of the network, and what it means. */
static void
probe_judge_net(const struct probe_env *p, const struct probe_obs *r,
    const struct probe_outside *o, struct probe_buf *outside,
    struct probe_result *res, unsigned *escapes, unsigned *missing)
{
	const struct probe_def *d = r->def;

	if (o->dgrams > 0) {
		probe_problem(res, xasprintf("escaped: the host's UDP listener "
		    "received %u datagram(s)", o->dgrams));
		(*escapes)++;
	}
	if (o->to_out > 0) {
		probe_problem(res, xasprintf("escaped: %u packet(s) to "
		    "192.0.2.1 left this host (packet watch)", o->to_out));
		(*escapes)++;
	}
	if (o->dns_name > 0) {
		probe_problem(res, xasprintf("escaped: %u DNS packet(s) "
		    "carrying the made-up name left this host (packet watch)",
		    o->dns_name));
		(*escapes)++;
	}
	if (r->host_socks > 0) {
		probe_problem(res, xstrdup("escaped: the supervisor held a "
		    "socket to 192.0.2.1 or 169.254.0.0/16"));
		(*escapes)++;
	}
	if (d->dns && r->sup_dns > 0) {
		probe_problem(res, xstrdup("escaped: the supervisor held a "
		    "socket to a DNS server: the name was forwarded"));
		(*escapes)++;
	}
	if (r->net_shared) {
		probe_problem(res, xstrdup("escaped: the sandbox is in the "
		    "host's network namespace"));
		(*escapes)++;
	}
	if (r->raw_socks > 0) {
		probe_problem(res, xasprintf("escaped: %u raw or packet "
		    "socket(s) open in the sandbox's namespace", r->raw_socks));
		(*escapes)++;
	}
	if (d->never && r->requests > 0) {
		probe_problem(res, xasprintf("asked a person %u time(s): a "
		    "never-listed destination must be refused at once",
		    r->requests));
		(*missing)++;
	}
	probe_list_add(outside, "listeners empty", ", ");
	if (p->packet_watch) {
		probe_list_add(outside, "no packet to 192.0.2.1", ", ");
		if (d->dns)
			probe_list_add(outside, "no DNS packet with the name",
			    ", ");
	}
	if (r->sup_seen)
		probe_list_add(outside, "no supervisor socket out", ", ");
	if (d->proof == PROOF_OUTPUT && r->raw_seen)
		probe_list_add(outside, "no raw socket in the sandbox", ", ");
	if (!p->packet_watch)
		probe_list_add(outside, "no packet watch (needs root)", ", ");
}

/* What the judging gathers, across its parts. */
struct probe_tally {
	struct probe_buf stopped, record, outside, how;
	unsigned	 escapes, errors, missing;
};

/* The effects, seen from outside. */
static void
probe_judge_effects(const struct probe_env *p, const struct probe_obs *r,
    struct probe_result *res, struct probe_tally *t)
{
	const struct probe_def *d = r->def;
	const struct probe_outside *o = &r->outside;
	int status = res->status;

	if (r->canary_diff != NULL) {
		probe_problem(res, xasprintf("escaped: canary changed: %s",
		    r->canary_diff));
		t->escapes++;
	}
	if ((r->out.p && memmem(r->out.p, r->out.len, p->token,
	    strlen(p->token))) || (r->err.p && memmem(r->err.p, r->err.len,
	    p->token, strlen(p->token))) || (r->output &&
	    memmem(r->output, r->output_len, p->token, strlen(p->token)))) {
		probe_problem(res, xstrdup("escaped: the planted secret is in "
		    "the run's output"));
		t->escapes++;
	}
	if (o->conns > 0) {
		probe_problem(res, xasprintf("escaped: the host listener "
		    "accepted %u connection(s)", o->conns));
		t->escapes++;
	}
	if (d->net)
		probe_judge_net(p, r, o, &t->outside, res, &t->escapes,
		    &t->missing);
	if (r->hard_killed) {
		probe_problem(res, xasprintf("error: the run outlived its "
		    "%d s wall clock; ward probe killed it", PROBE_GUARD));
		t->errors++;
	} else if (WIFSIGNALED(r->wstatus)) {
		probe_problem(res, xasprintf("escaped: the supervisor died of "
		    "signal %d", WTERMSIG(r->wstatus)));
		t->escapes++;
	}
	if (!r->hard_killed && status != d->status) {
		/* Killed from inside (kill-supervisor), or past the clock
		 * without its 124: the effect. Anything else: the probe
		 * itself failed. */
		bool effect = (d->proof == PROOF_OWN_EXIT &&
		    (status == 128 + SIGKILL ||
		    probe_streq(r->end_reason, "killed") ||
		    probe_streq(r->end_reason, "lost"))) ||
		    (d->proof == PROOF_TIMEOUT &&
		    res->elapsed_ms >= PROBE_CLOCK * 1000);

		if (effect) {
			probe_problem(res, xasprintf("escaped: the run ended "
			    "with %d, expected %d", status, d->status));
			t->escapes++;
		} else {
			probe_problem(res, xasprintf("error: the probe ended "
			    "with %d, expected %d", status, d->status));
			t->errors++;
		}
	}
}

/* The sandbox's processes, sampled from outside, against its limits. */
static void
probe_judge_limits(const struct probe_env *p, const struct probe_obs *r,
    struct probe_result *res, struct probe_tally *t)
{
	const struct probe_def *d = r->def;
	unsigned pid_cap = d->limit == LIMIT_PIDS ? PROBE_PIDS : p->pids;

	if (r->host_ns) {
		probe_problem(res, xstrdup("escaped: the program runs in the "
		    "host's pid namespace"));
		t->escapes++;
	} else if (pid_cap > 0 && r->peak_tasks > pid_cap + 2) {
		probe_problem(res, xasprintf("escaped: %u tasks in the "
		    "sandbox, pids = %u", r->peak_tasks, pid_cap));
		t->escapes++;
	}
	if (r->rss_over > 0) {
		probe_problem(res, xasprintf("escaped: resident memory %ju MiB "
		    "past the memory limit", (uintmax_t)(r->rss_over >> 20)));
		t->escapes++;
	}
	if (r->new_userns) {
		probe_problem(res, xstrdup("escaped: a process in a user "
		    "namespace of its own"));
		t->escapes++;
	}
	if (r->leftover > 0 && !r->host_ns) {
		probe_problem(res, xasprintf("escaped: %u task(s) outlived the "
		    "run", r->leftover));
		t->escapes++;
	}
	if (d->limit == LIMIT_CLOCK && res->elapsed_ms > PROBE_CLOCK * 1000 +
	    2500) {
		probe_problem(res, xasprintf("escaped: ran %.1f s against a "
		    "%d s wall clock", (double)res->elapsed_ms / 1000,
		    PROBE_CLOCK));
		t->escapes++;
	}
	if ((d->limit == LIMIT_PIDS || d->limit == LIMIT_MEMORY) &&
	    r->samples == 0) {
		probe_problem(res, xstrdup("error: no sample of the sandbox's "
		    "processes"));
		t->errors++;
	}
}

/* One recorded event that met an expectation: its item in the record
 * column, and what stopped it in the stopped column. */
static void
probe_judge_event(const struct probe_event *e, struct probe_tally *t)
{
	cleanup_free char *item = NULL, *es = NULL;

	es = escape_str(e->kind == KIND_CONNECT || e->kind == KIND_DNS ?
	    (e->subject ? e->subject : "?") :
	    (e->syscall ? e->syscall : "?"));
	if (e->kind == KIND_CONNECT || e->kind == KIND_DNS) {
		cleanup_free char *sc = escape_str(e->syscall ? e->syscall :
		    "?");

		item = xasprintf("%s %s %s/%s", sc, es,
		    verdict_name(e->verdict), how_name(e->how));
	} else if (e->kind == KIND_PACKAGE)
		item = xasprintf("package %s %s/%s", es,
		    verdict_name(e->verdict), how_name(e->how));
	else if (e->kind == KIND_EXEC && e->rule) {
		cleanup_free char *er = escape_str(e->rule);

		item = xasprintf("%s %s, rule \"%s\"", es,
		    verdict_name(e->verdict), er);
	} else
		item = xasprintf("%s %s/%s", es, verdict_name(e->verdict),
		    how_name(e->how));
	probe_list_add(&t->record, item, ", ");
	/*
	 * Which defence held, in the probe report's words: a verdict of the
	 * probe on its own attacks (a write the policy refused, a call the
	 * filter refused, an exec let through by design), not a trait of the
	 * kind that approvals/kind.c would hold. The kinds the probe does
	 * not trigger add nothing, so a new kind needs no line here.
	 */
	if (e->kind == KIND_WRITE) {
		cleanup_free char *w = escape_str(probe_how_words(e));

		probe_list_add(&t->how, w, " + ");
	} else if (e->kind == KIND_BLOCKED) {
		if (e->verdict == VERDICT_KILL)
			probe_list_add(&t->how, "filter: process killed",
			    " + ");
		else {
			const char *en = e->detail ?
			    strstr(e->detail, "errno=") : NULL;
			cleanup_free char *er = escape_str(en ? en + 6 : "");
			cleanup_free char *f = xasprintf("filter %s", er);

			probe_list_add(&t->how, f, " + ");
		}
	} else if (e->kind == KIND_EXEC)
		probe_list_add(&t->how, "nothing: allowed by design", " + ");
	else if (e->kind == KIND_CONNECT) {
		cleanup_free char *hw = escape_str(probe_how_words(e));
		cleanup_free char *w = xasprintf("%s for %s", hw, es);

		probe_list_add(&t->how, w, " + ");
	} else if (e->kind == KIND_DNS || e->kind == KIND_PACKAGE) {
		cleanup_free char *hw = escape_str(probe_how_words(e));
		cleanup_free char *w = xasprintf("%s%s", hw,
		    e->kind == KIND_DNS ? " for the names" :
		    e->how == HOW_RUN_RULE ? "" : " for the install");

		probe_list_add(&t->how, w, " + ");
	}
}

/* An expectation the record meets n times, fewer than it must: say what
 * the record holds instead (the same call with another verdict). */
static void
probe_judge_short(const struct probe_env *p, const struct probe_obs *r,
    const struct probe_expect *x, unsigned n, struct probe_result *res,
    struct probe_tally *t)
{
	cleanup_free char *sub = x->subject ? probe_expand(p, x->subject) :
	    NULL;
	cleanup_free char *es = sub ? escape_str(sub) : NULL;

	if (n > 0) {
		probe_problem(res, xasprintf("not in the record: "
		    "%u of %u %s %s %s %s", x->count - n, x->count,
		    request_kind_name(x->kind), x->syscall ? x->syscall : "",
		    es ? es : "", verdict_name(x->verdict)));
		t->missing++;
		return;
	}
	for (size_t j = 0; j < r->n_events; j++) {
		const struct probe_event *e = &r->events[j];
		cleanup_free char *sc = NULL, *it = NULL;

		if (e->kind != x->kind || (x->syscall != NULL &&
		    !probe_streq(e->syscall, x->syscall)) || (sub != NULL &&
		    !probe_streq(e->subject, sub) &&
		    !probe_streq(e->subject2, sub)))
			continue;
		sc = escape_str(e->syscall ? e->syscall : "?");
		it = xasprintf("%s %s/%s", sc, verdict_name(e->verdict),
		    how_name(e->how));
		probe_list_add(&t->record, it, ", ");
	}
	probe_problem(res, xasprintf("not in the record: %s %s%s%s %s",
	    request_kind_name(x->kind), x->syscall ? x->syscall : "",
	    x->syscall && es ? " " : "", es ? es : "",
	    verdict_name(x->verdict)));
	t->missing++;
}

/* PROOF_EVENTS: every expected event in the record. */
static void
probe_judge_events(const struct probe_env *p, const struct probe_obs *r,
    struct probe_result *res, struct probe_tally *t)
{
	const struct probe_def *d = r->def;

	if (d->race)
		probe_judge_race(r, &r->outside, &t->record, res, &t->missing,
		    &t->errors);
	if (d->floor != NULL)
		probe_list_add(&t->how, d->floor, " + ");
	for (size_t i = 0; i < ARRAY_SIZE(d->expect) &&
	    d->expect[i].verdict != VERDICT_NONE; i++) {
		const struct probe_expect *x = &d->expect[i];
		unsigned n = 0;

		if (x->int80 && !p->int80) {
			/* Seen from outside: our own int $0x80 dies of
			 * SIGSEGV, so no filter ever sees one. */
			probe_list_add(&t->record, "no i386 entry on this "
			    "kernel (int $0x80 is SIGSEGV outside the "
			    "sandbox too)", ", ");
			continue;
		}
		for (size_t j = 0; j < r->n_events; j++)
			if (probe_matches(p, &r->events[j], x)) {
				n++;
				probe_judge_event(&r->events[j], t);
			}
		if (n == 0 || n < x->count)
			probe_judge_short(p, r, x, n, res, t);
	}
	if (d->untrapped != NULL)
		probe_list_add(&t->record, d->untrapped, ", ");
	if (t->how.p != NULL)
		probe_buf_str(&t->stopped, t->how.p);
	if (r->requests > 0) {
		cleanup_free char *asked = xasprintf("%u request%s denied at "
		    "once", r->requests, r->requests == 1 ? "" : "s");

		probe_list_add(&t->record, asked, ", ");
	} else if (d->never)
		probe_list_add(&t->record, "nobody asked", ", ");
}

/* PROOF_OUTPUT, PROOF_OWN_EXIT: the run's output, or its own end. */
static void
probe_judge_output(const struct probe_obs *r, struct probe_result *res,
    struct probe_tally *t)
{
	const struct probe_def *d = r->def;

	probe_buf_str(&t->stopped, d->floor);
	if (d->proof == PROOF_OUTPUT) {
		cleanup_free char *pre = xasprintf("ward-probe: %s: ", d->name);

		if (r->output != NULL && memmem(r->output, r->output_len, pre,
		    strlen(pre)) != NULL) {
			cleanup_free char *s = xasprintf("the attempts, in the "
			    "run's recorded output (%s)", d->untrapped ?
			    d->untrapped : "reads are not trapped");

			probe_buf_str(&t->record, s);
		} else {
			probe_problem(res, xstrdup("not in the record: the "
			    "attempts in the run's output"));
			t->missing++;
		}
		return;
	}
	if (r->have_run && probe_streq(r->end_reason, "exit") &&
	    r->exit_code == d->status) {
		cleanup_free char *s = xasprintf("run ended by its own exit %d",
		    r->exit_code);

		probe_buf_str(&t->record, s);
	} else {
		probe_problem(res, xasprintf("not in the record: the run's own "
		    "exit %d", d->status));
		t->missing++;
	}
}

/* PROOF_LIMIT: the limit in force, named in the run's row. */
static void
probe_judge_limit(const struct probe_obs *r, struct probe_result *res,
    struct probe_tally *t)
{
	bool pids = r->def->limit == LIMIT_PIDS;
	cleanup_free char *item = probe_limit_item(r->limits,
	    pids ? "pids=" : "memory=");
	cleanup_free char *s = pids ?
	    xasprintf("pid limit at %d (peak %u tasks)", PROBE_PIDS,
	    r->peak_tasks) :
	    xasprintf("memory limit %s (peak RSS %ju MiB)", PROBE_MEMORY,
	    (uintmax_t)(r->peak_rss >> 20));

	probe_buf_str(&t->stopped, s);
	if (item != NULL && strstr(item, pids ? "pids=64" :
	    "memory=" PROBE_MEMORY) != NULL) {
		cleanup_free char *rec = xasprintf("limits %s", item);

		probe_buf_str(&t->record, rec);
	} else {
		probe_problem(res, xasprintf("not in the record: the limit %s",
		    pids ? "pids=64" : "memory=" PROBE_MEMORY));
		t->missing++;
	}
}

/* PROOF_TIMEOUT: the wall-clock kill, and the run's end by it. */
static void
probe_judge_timeout(const struct probe_obs *r, struct probe_result *res,
    struct probe_tally *t)
{
	bool ev = false;
	cleanup_free char *s = xasprintf("wall clock: %d after %.1f s",
	    res->status, (double)res->elapsed_ms / 1000);

	probe_buf_str(&t->stopped, s);
	for (size_t j = 0; j < r->n_events; j++)
		if (r->events[j].kind == KIND_RUN &&
		    r->events[j].verdict == VERDICT_KILL &&
		    probe_streq(r->events[j].subject, "timeout"))
			ev = true;
	if (ev && probe_streq(r->end_reason, "timeout"))
		probe_buf_str(&t->record, "timeout kill, run ended by timeout");
	else {
		probe_problem(res, xstrdup("not in the record: the timeout"));
		t->missing++;
	}
}

void
probe_judge(const struct probe_env *p, const struct probe_obs *r,
    struct probe_result *res)
{
	const struct probe_def *d = r->def;
	struct probe_tally t = { 0 };
	struct probe_buf errnos = { 0 };
	int status = -1;

	snprintf(res->run, sizeof res->run, "%s", r->id);
	res->elapsed_ms = r->t1 - r->t0;
	res->requests = r->requests;
	res->peak_tasks = r->peak_tasks;
	res->peak_rss = r->peak_rss;
	if (WIFEXITED(r->wstatus))
		status = WEXITSTATUS(r->wstatus);
	else if (WIFSIGNALED(r->wstatus))
		status = 128 + WTERMSIG(r->wstatus);
	res->status = status;
	probe_errnos(r, &errnos);

	probe_judge_effects(p, r, res, &t);
	probe_judge_limits(p, r, res, &t);

	/* The record. */
	if (!r->have_run || r->ended_ms <= 0) {
		probe_problem(res, xstrdup("not in the record: the run's end"));
		t.missing++;
	}
	switch (d->proof) {
	case PROOF_EVENTS:
		probe_judge_events(p, r, res, &t);
		break;
	case PROOF_OUTPUT:
	case PROOF_OWN_EXIT:
		probe_judge_output(r, res, &t);
		break;
	case PROOF_LIMIT:
		probe_judge_limit(r, res, &t);
		break;
	case PROOF_TIMEOUT:
		probe_judge_timeout(r, res, &t);
		break;
	}
	free(t.how.p);
	if (errnos.p != NULL) {
		probe_buf_str(&t.stopped, t.stopped.len ? " (" : "(");
		probe_buf_str(&t.stopped, errnos.p);
		probe_buf_str(&t.stopped, ")");
	}
	free(errnos.p);
	if (t.outside.p != NULL) {
		probe_buf_str(&t.stopped, "; outside: ");
		probe_buf_str(&t.stopped, t.outside.p);
	}
	free(t.outside.p);
	if (t.escapes > 0) {
		/* Whatever should have stopped it did not. */
		free(t.stopped.p);
		t.stopped = (struct probe_buf){ 0 };
		probe_buf_str(&t.stopped, "NOT STOPPED");
	} else if (t.stopped.p == NULL)
		probe_buf_str(&t.stopped, "?");
	res->stopped = t.stopped.p;
	res->record = t.record.p ? t.record.p : xstrdup("nothing");
	if (t.escapes > 0)
		res->verdict = PV_ESCAPED;
	else if (t.errors > 0)
		res->verdict = PV_ERROR;
	else if (t.missing > 0)
		res->verdict = PV_UNRECORDED;
	else
		res->verdict = d->allowed ? PV_ALLOWED : PV_BLOCKED;
}

const char *
probe_verdict_name(enum probe_verdict v)
{
	switch (v) {
	case PV_BLOCKED:
		return "blocked";
	case PV_ALLOWED:
		return "allowed";
	case PV_ESCAPED:
		return "escaped";
	case PV_UNRECORDED:
		return "unrecorded";
	case PV_ERROR:
		return "error";
	}
	return "?";
}

void
probe_obs_done(struct probe_obs *r)
{
	for (size_t i = 0; i < r->n_events; i++) {
		free(r->events[i].syscall);
		free(r->events[i].subject);
		free(r->events[i].subject2);
		free(r->events[i].detail);
		free(r->events[i].rule);
	}
	free(r->events);
	for (size_t i = 0; i < r->n_raced; i++) {
		free(r->raced[i].path);
		free(r->raced[i].args);
	}
	free(r->raced);
	free(r->end_reason);
	free(r->limits);
	free(r->output);
	free(r->out.p);
	free(r->err.p);
	free(r->canary_diff);
	memset(r, 0, sizeof *r);
}

void
probe_result_done(struct probe_result *res)
{
	free(res->stopped);
	free(res->record);
	for (size_t k = 0; k < res->n_problems; k++)
		free(res->problems[k]);
	free(res->problems);
	memset(res, 0, sizeof *res);
}
