/* SPDX-License-Identifier: MIT */
#include "review/summary.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approvals/audit.h"
#include "approvals/kind.h"
#include "approvals/request.h"
#include "approvals/staged.h"
#include "config/escape.h"
#include "config/util.h"

const char *
summary_surface_name(enum summary_surface s)
{
	return kind_surface_name(s);
}

/* The paths seen, to count each file once: collected, then sorted. */
struct summary_ctx {
	struct summary	*s;
	char	       **written;	/* allowed writes' paths */
	size_t		 n_written;
	char	       **applied;	/* applied changes' paths */
	size_t		 n_applied;
};

static int
summary_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts v and drops repeats; the number left. */
static size_t
summary_unique(char **v, size_t n)
{
	size_t k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, summary_cmp);
	for (size_t i = 1; i < n; i++) {
		if (strcmp(v[i], v[k]) == 0) {
			free(v[i]);
			continue;
		}
		v[++k] = v[i];
	}
	v[k + 1] = NULL;
	return k + 1;
}

static void
summary_path_add(char ***v, size_t *n, const char *path)
{
	if (path != NULL && *path != '\0')
		strv_push(v, n, xstrdup(path));
}

static int
summary_on_event(const struct audit_event_row *row, void *arg)
{
	struct summary_ctx *c = arg;
	struct summary *s = c->s;
	const struct audit_event *ev = &row->ev;
	bool refused = ev->verdict == VERDICT_DENY ||
	    ev->verdict == VERDICT_KILL;
	enum summary_surface surface = kind_info(ev->kind)->surface;

	s->events++;
	if (ev->kind == KIND_RUN)
		return 0;
	if (ev->request_id != 0) {
		s->asked++;
		/* staged: let through onto a copy in the run */
		if (ev->verdict == VERDICT_ALLOW ||
		    ev->verdict == VERDICT_STAGE)
			s->allowed++;
		else if (refused && ev->how == HOW_TIMEOUT)
			s->timed_out++;
		else if (refused)
			s->denied++;
		else
			s->unanswered++;
	} else if (refused && surface != SURFACE_NONE) {
		s->blocked[surface]++;
	}
	if (ev->kind == KIND_EXEC && ev->verdict == VERDICT_ALLOW)
		s->execs++;
	/* An intent whose outcome never came may not have happened, but
	 * it may have: it counts (the record says "intent" of it). */
	if (ev->kind == KIND_WRITE && ev->verdict == VERDICT_ALLOW &&
	    ev->request_id == 0 && ev->how == HOW_POLICY && ev->rule != NULL &&
	    str_has_prefix(ev->rule, "writable folder "))
		s->writable++;
	if (ev->kind == KIND_WRITE && ev->verdict == VERDICT_ALLOW) {
		summary_path_add(&c->written, &c->n_written, ev->subject);
		summary_path_add(&c->written, &c->n_written, ev->subject2);
	}
	return 0;
}

static int
summary_on_change(const struct audit_change_row *row, void *arg)
{
	struct summary_ctx *c = arg;
	const char *act = row->ch.action;

	if (act == NULL || (strcmp(act, "applied") != 0 &&
	    strcmp(act, "committed") != 0))
		return 0;
	summary_path_add(&c->applied, &c->n_applied, row->ch.path);
	return 0;
}

int
summary_from_record(struct audit *a, const char *run, struct summary *s,
    char **cause)
{
	struct summary_ctx c = { .s = s };
	int r;

	memset(s, 0, sizeof *s);
	s->staged = -1;
	if (run == NULL)
		return -EINVAL;
	r = audit_each_event(a, run, summary_on_event, &c, cause);
	if (r == 0)
		r = audit_each_change(a, run, summary_on_change, &c, cause);
	s->written = (int64_t)summary_unique(c.written, c.n_written);
	c.n_applied = summary_unique(c.applied, c.n_applied);
	/* A file applied that was also written on the host is one file. */
	for (size_t i = 0; i < c.n_applied; i++) {
		if (s->written == 0 || bsearch(&c.applied[i], c.written,
		    (size_t)s->written, sizeof *c.written, summary_cmp) == NULL)
			s->applied++;
	}
	strv_free(c.written);
	strv_free(c.applied);
	return r < 0 ? r : 0;
}

int
summary_count_staged(const char *run_dir, struct summary *s, char **cause)
{
	return staged_count(run_dir, &s->staged, s->staged_in,
	    sizeof s->staged_in, cause);
}

char *
summary_staged_text(const struct summary *s, const char *run)
{
	return staged_text(s->staged, s->staged_in, run);
}

int64_t
summary_blocked_total(const struct summary *s)
{
	int64_t n = 0;

	for (size_t i = 0; i < SURFACE_COUNT; i++)
		n += s->blocked[i];
	return n;
}

int64_t
summary_changed(const struct summary *s)
{
	return s->written + s->applied + (s->staged > 0 ? s->staged : 0);
}

char **
summary_lines(const struct summary *s)
{
	char **v = NULL;
	size_t n = 0;
	cleanup_free char *blocked = xstrdup("");
	cleanup_free char *changed = NULL;

	if (s->unanswered > 0)
		strv_push(&v, &n, xasprintf("asked %lld: allowed %lld, denied "
		    "%lld, timed out %lld, unanswered %lld", (long long)s->asked,
		    (long long)s->allowed, (long long)s->denied,
		    (long long)s->timed_out, (long long)s->unanswered));
	else
		strv_push(&v, &n, xasprintf("asked %lld: allowed %lld, denied "
		    "%lld, timed out %lld", (long long)s->asked,
		    (long long)s->allowed, (long long)s->denied,
		    (long long)s->timed_out));
	changed = xasprintf("changed files %lld: %lld written on the host",
	    (long long)summary_changed(s), (long long)s->written);
	if (s->applied > 0) {
		char *t = xasprintf("%s, %lld applied", changed,
		    (long long)s->applied);

		free(changed);
		changed = t;
	}
	if (s->writable > 0) {
		char *t = xasprintf("%s (%lld change%s in writable folders)",
		    changed, (long long)s->writable, s->writable == 1 ? "" :
		    "s");

		free(changed);
		changed = t;
	}
	{
		char *t = s->staged >= 0 ? xasprintf("%s, %lld staged in "
		    "projects", changed, (long long)s->staged) :
		    xasprintf("%s, staged unknown", changed);

		free(changed);
		changed = t;
	}
	strv_push(&v, &n, steal_ptr(&changed));
	for (size_t i = 0; i < SURFACE_COUNT; i++) {
		char *t = xasprintf("%s%s%s %lld", blocked, i ? ", " : "",
		    summary_surface_name((enum summary_surface)i),
		    (long long)s->blocked[i]);

		free(blocked);
		blocked = t;
	}
	strv_push(&v, &n, xasprintf("blocked %lld: %s",
	    (long long)summary_blocked_total(s), blocked));
	strv_push(&v, &n, xasprintf("started %lld program%s",
	    (long long)s->execs, s->execs == 1 ? "" : "s"));
	return v;
}

json_t *
summary_json(const struct summary *s)
{
	json_t *o = json_object(), *b = json_object();

	json_object_set_new(o, "asked", json_integer(s->asked));
	json_object_set_new(o, "allowed", json_integer(s->allowed));
	json_object_set_new(o, "denied", json_integer(s->denied));
	json_object_set_new(o, "timed_out", json_integer(s->timed_out));
	json_object_set_new(o, "unanswered", json_integer(s->unanswered));
	json_object_set_new(o, "changed", json_integer(summary_changed(s)));
	json_object_set_new(o, "written", json_integer(s->written));
	json_object_set_new(o, "writable_changes",
	    json_integer(s->writable));
	json_object_set_new(o, "applied", json_integer(s->applied));
	json_object_set_new(o, "staged", s->staged >= 0 ?
	    json_integer(s->staged) : json_null());
	for (size_t i = 0; i < SURFACE_COUNT; i++)
		json_object_set_new(b,
		    summary_surface_name((enum summary_surface)i),
		    json_integer(s->blocked[i]));
	json_object_set_new(o, "blocked", b);
	json_object_set_new(o, "blocked_total",
	    json_integer(summary_blocked_total(s)));
	json_object_set_new(o, "execs", json_integer(s->execs));
	return o;
}
