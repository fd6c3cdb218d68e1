/* SPDX-License-Identifier: MIT */
#include "tui/finished.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "approvals/audit.h"
#include "approvals/ctl.h"
#include "approvals/msg.h"
#include "config/paths.h"
#include "config/util.h"
#include "review/scorecard.h"
#include "review/summary.h"
#include "tui/model.h"

/* The run want names, copied out of the record. */
struct finished_run {
	const char	*want;
	bool		 found;
	bool		 exact;		/* by id: no later name can replace it */
	char		*id, *name, *command, *limits, *end_reason, *policy;
	int64_t		 started_ms, ended_ms;
	int		 exit_code, exit_signal;
};

static void
finished_run_done(struct finished_run *r)
{
	free(r->id);
	free(r->name);
	free(r->command);
	free(r->limits);
	free(r->end_reason);
	free(r->policy);
}

static char *
finished_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static int
finished_on_run(const struct audit_run_row *row, void *arg)
{
	struct finished_run *r = arg;
	const struct audit_run *run = &row->run;
	bool by_id = run->id != NULL && strcmp(run->id, r->want) == 0;
	bool by_name = run->name != NULL && strcmp(run->name, r->want) == 0;

	if (r->exact || !(by_id || (by_name && (!r->found ||
	    run->started_ms >= r->started_ms))))
		return 0;
	finished_run_done(r);
	r->found = true;
	r->exact = by_id;
	r->id = finished_dup(run->id);
	r->name = finished_dup(run->name);
	r->command = finished_dup(run->command);
	r->limits = finished_dup(run->limits);
	r->end_reason = finished_dup(row->end_reason);
	r->policy = finished_dup(run->policy_path);
	r->started_ms = run->started_ms;
	r->ended_ms = row->ended_ms;
	r->exit_code = row->exit_code;
	r->exit_signal = row->exit_signal;
	return 0;
}

static int
finished_on_event(const struct audit_event_row *row, void *arg)
{
	struct model *m = arg;
	json_t *msg = msg_event(&row->ev);

	(void)model_apply_message(m, msg);
	json_decref(msg);
	return 0;
}

static void
finished_state(struct model *m, const struct finished_run *r)
{
	struct msg_run ri = {
		.id = r->id, .name = r->name, .command = r->command,
		.state = RUN_EXITED, .started_ms = r->started_ms,
		.ended_ms = r->ended_ms, .exit_code = r->exit_code,
		.exit_signal = r->exit_signal, .end_reason = r->end_reason,
		.limits = r->limits != NULL ? r->limits : "",
		.policy = r->policy,
	};
	json_t *msg = msg_state(&ri);

	(void)model_apply_message(m, msg);
	json_decref(msg);
}

/* Is policy the demo's own (share/demo/demo.ini, which only `ward demo`
 * runs with: tui/demo.c)? The same file by its real path. */
static bool
finished_is_demo(const char *policy)
{
	cleanup_free char *share = NULL, *demo = NULL;
	cleanup_free char *a = NULL, *b = NULL;

	if (policy == NULL || *policy != '/')
		return false;
	share = paths_share_dir(NULL);
	demo = xasprintf("%s/demo/demo.ini", share);
	a = realpath(policy, NULL);
	b = realpath(demo, NULL);
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static void
finished_set_summary(struct model *m, struct audit *a, const char *run)
{
	cleanup_free char *runs = paths_runs_dir();
	cleanup_free char *dir = xasprintf("%s/%s", runs, run);
	cleanup_free char *cause = NULL;
	char **card = NULL;
	struct summary s;

	if (summary_from_record(a, run, &s, NULL) < 0)
		return;
	if (strchr(run, '/') == NULL)
		(void)summary_count_staged(dir, &s, &cause);
	model_set_summary(m, &s);
	/* A demo's run shows its scorecard (what `ward demo` prints after
	 * the console) in the console itself, for a room to read. */
	if (finished_is_demo(m->run.policy) &&
	    scorecard_lines(a, run, &s, &card, NULL) == 0)
		model_set_scorecard(m, card);
}

int
finished_fill(struct model *m, struct audit *a, const char *want,
    char **cause)
{
	struct finished_run r = { .want = want };
	cleanup_free char *out = NULL;
	size_t len = 0;
	int e;

	if ((e = audit_each_run(a, finished_on_run, &r, cause)) < 0)
		goto done;
	e = !r.found ? -ENOENT : r.ended_ms == 0 ? -EBUSY : 0;
	if (e < 0)
		goto done;
	finished_state(m, &r);
	if ((e = audit_each_event(a, r.id, finished_on_event, m, cause)) < 0)
		goto done;
	if ((e = audit_read_output(a, r.id, &out, &len, cause)) < 0)
		goto done;
	output_feed(&m->out, STREAM_STDOUT, out, len);
	finished_set_summary(m, a, r.id);
	m->readonly = true;
	m->welcomed = true;
	m->focus = PANE_OUTPUT;
done:
	finished_run_done(&r);
	return e;
}

int
finished_load(struct model *m, const char *want, char **cause)
{
	cleanup_free char *db = paths_audit_db();
	struct ctl_lost *lost = NULL;
	struct audit *a = NULL;
	size_t n = 0;
	int e;

	if ((e = audit_open_readonly(db, &a, cause)) < 0)
		return e;
	/* A run whose supervisor died has ended too: marked lost first. */
	if (ctl_recover(a, "ward console", &lost, &n, NULL) == 0)
		ctl_lost_free(lost, n);
	e = finished_fill(m, a, want, cause);
	audit_close(a);
	return e;
}

char *
finished_staged_text(const char *run)
{
	cleanup_free char *runs = paths_runs_dir();
	cleanup_free char *dir = NULL;
	cleanup_free char *cause = NULL;
	struct summary s = { .staged = -1 };

	if (strchr(run, '/') != NULL)
		return NULL;
	dir = xasprintf("%s/%s", runs, run);
	if (summary_count_staged(dir, &s, &cause) < 0)
		return NULL;
	return summary_staged_text(&s, run);
}

int
finished_summary(struct model *m, const char *run, char **cause)
{
	cleanup_free char *db = paths_audit_db();
	struct audit *a = NULL;
	int e;

	if ((e = audit_open_readonly(db, &a, cause)) < 0)
		return e;
	finished_set_summary(m, a, run);
	audit_close(a);
	return 0;
}
