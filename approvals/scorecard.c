/* SPDX-License-Identifier: MIT */
#include "approvals/scorecard.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "approvals/audit.h"
#include "approvals/plain.h"
#include "config/util.h"

struct scorecard_ctx {
	char		**lines;
	size_t		 n;
	int64_t		 waits;		/* ms, of the person's answers */
	int64_t		 longest;
	int64_t		 answered;
};

static const char *
scorecard_surface(enum request_kind k)
{
	switch (k) {
	case KIND_WRITE:
		return "files";
	case KIND_CONNECT:
	case KIND_DNS:
	case KIND_HTTP:
	case KIND_SECRET:
		return "network";
	case KIND_PACKAGE:
		return "packages";
	case KIND_EXEC:
		return "programs";
	case KIND_BLOCKED:
		return "system";
	case KIND_RUN:
		break;
	}
	return "run";
}

static void
scorecard_secs(int64_t ms, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRId64 ".%" PRId64 " s", ms / 1000,
	    (ms % 1000) / 100);
}

/* What came of it, and who decided. */
static char *
scorecard_outcome(const struct audit_event *ev)
{
	bool ok = ev->verdict == VERDICT_ALLOW || ev->verdict == VERDICT_STAGE;
	const char *done = ev->verdict == VERDICT_STAGE ? "staged" :
	    ok ? "allowed" : ev->verdict == VERDICT_KILL ? "killed" : "refused";
	char secs[32];

	switch (ev->how) {
	case HOW_PERSON:
		scorecard_secs(ev->wait_ms, secs, sizeof secs);
		return xasprintf("%s by %s, after %s", ok || ev->verdict ==
		    VERDICT_STAGE ? done : "denied", ev->decided_by != NULL &&
		    strstr(ev->decided_by, "via " SCORECARD_SCRIPT_ORIGIN) !=
		    NULL ? "the demo's script" : "you", secs);
	case HOW_TIMEOUT:
		return xasprintf("refused: nobody answered in time");
	case HOW_RUN_RULE:
		return xasprintf("%s by an earlier answer (%s)", done,
		    ev->rule != NULL && *ev->rule ? ev->rule : "for this run");
	case HOW_FLOOR:
		return xasprintf("%s by the sandbox itself, nobody asked",
		    done);
	case HOW_POLICY:
	case HOW_DEFAULT:
	case HOW_SUPERVISOR:
		break;
	}
	if (ev->rule != NULL && strncmp(ev->rule, "never", 5) == 0)
		return xasprintf("%s by the never list, nobody asked", done);
	return xasprintf("%s by the policy%s%s%s, nobody asked", done,
	    ev->rule != NULL && *ev->rule ? " (" : "",
	    ev->rule != NULL ? ev->rule : "",
	    ev->rule != NULL && *ev->rule ? ")" : "");
}

/* What it tried: the plain sentence without its "wants to". */
static char *
scorecard_tried(const struct audit_event *ev)
{
	struct request r = { .kind = ev->kind, .syscall = (char *)ev->syscall,
	    .subject = (char *)ev->subject, .subject2 = (char *)ev->subject2 };
	char *s = plain_request(&r), *t;

	if (strncmp(s, "wants to ", 9) != 0)
		return s;
	t = xstrdup(s + 9);
	free(s);
	return t;
}

static int
scorecard_on_event(const struct audit_event_row *row, void *arg)
{
	struct scorecard_ctx *c = arg;
	const struct audit_event *ev = &row->ev;
	bool refused = ev->verdict == VERDICT_DENY ||
	    ev->verdict == VERDICT_KILL;
	cleanup_free char *tried = NULL, *outcome = NULL;

	if (ev->kind == KIND_RUN || ev->verdict == VERDICT_ASK ||
	    ev->verdict == VERDICT_NONE)
		return 0;
	/* Worth a line: what a person was asked, and what was refused or
	 * let through by a rule outside the run's own folders. */
	if (ev->request_id == 0 && !refused && ev->how != HOW_RUN_RULE)
		return 0;
	if (ev->kind == KIND_EXEC && !refused)
		return 0;
	tried = scorecard_tried(ev);
	outcome = scorecard_outcome(ev);
	strv_push(&c->lines, &c->n, xasprintf("  %-9s %s: %s",
	    scorecard_surface(ev->kind), tried, outcome));
	if (ev->how == HOW_PERSON) {
		c->answered++;
		c->waits += ev->wait_ms;
		if (ev->wait_ms > c->longest)
			c->longest = ev->wait_ms;
	}
	return 0;
}

int
scorecard_lines(struct audit *a, const char *run, const struct summary *s,
    char ***ret, char **cause)
{
	struct scorecard_ctx c = { 0 };
	cleanup_strv char **sum = NULL;
	char avg[32], longest[32];
	int r;

	strv_push(&c.lines, &c.n, xasprintf("What the program tried, and what "
	    "came of it:"));
	if ((r = audit_each_event(a, run, scorecard_on_event, &c,
	    cause)) < 0) {
		strv_free(c.lines);
		return r;
	}
	if (c.n == 1)
		strv_push(&c.lines, &c.n, xstrdup("  nothing outside its own "
		    "folders"));
	if (c.answered > 0) {
		scorecard_secs(c.waits / c.answered, avg, sizeof avg);
		scorecard_secs(c.longest, longest, sizeof longest);
		strv_push(&c.lines, &c.n, xasprintf("The answers took %s on "
		    "average, %s at most.", avg, longest));
	}
	strv_push(&c.lines, &c.n, xstrdup("In numbers:"));
	sum = summary_lines(s);
	for (size_t i = 0; sum[i] != NULL; i++)
		strv_push(&c.lines, &c.n, xasprintf("  %s", sum[i]));
	*ret = c.lines;
	return 0;
}
