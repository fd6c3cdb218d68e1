/* SPDX-License-Identifier: MIT */
#include "tui/model.h"
#include "tui/model-int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config/escape.h"
#include "config/util.h"
#include "tui/group.h"
#include "tui/shellwrap.h"
#include "tui/view-report.h"
#include "tui/vt.h"

/*
 * The model's state: its lookups and texts, the request rows (added,
 * removed, closed: their fates) and arming (model_note_view). The other
 * jobs are in tui/model-*.c, listed in tui/model-int.h.
 */

struct model *
model_new(void)
{
	struct model *m = xcalloc(1, sizeof *m);

	m->run.id = xstrdup("");
	m->run.name = xstrdup("");
	m->run.command = xstrdup("");
	m->run.limits = xstrdup("");
	m->run.policy = xstrdup("");
	m->run.exit_code = -1;
	m->run.state = RUN_UNKNOWN;
	m->focus = PANE_PENDING;
	m->prefix = MODEL_PREFIX;
	/* The size the supervisor gives the pty until the console says. */
	m->vt = vt_new(24, 80);
	events_init(&m->ev);
	return m;
}

static void
model_pending_free(struct pending *p)
{
	if (p == NULL)
		return;
	free(p->syscall);
	free(p->subject);
	free(p->subject2);
	free(p->detail);
	free(p->cmdline);
	free(p->command);
	free(p->cwd);
	free(p->why);
	free(p->rule);
	free(p->rule_wire);
	free(p);
}

void
model_free(struct model *m)
{
	if (m == NULL)
		return;
	free(m->run.id);
	free(m->run.name);
	free(m->run.command);
	free(m->run.limits);
	free(m->run.policy);
	strv_free(m->scorecard);
	model_answer_reset(m);
	model_rules_clear(m);
	free(m->run.end_reason);
	output_done(&m->out);
	model_diff_clear_files(m);
	model_diff_clear_lines(m);
	free(m->diff.note);
	model_diff_set_targets(m, NULL, NULL, 0);
	model_diff_confirm_done(m);
	for (size_t i = 0; i < m->n_pending; i++)
		model_pending_free(m->pending[i]);
	free(m->pending);
	free(m->lost);
	for (size_t i = 0; i < m->event_count; i++)
		free(m->events[(m->event_first + i) % MODEL_EVENTS].text);
	free(m->message);
	model_hold_clear(m);
	vt_free(m->vt);
	events_done(&m->ev);
	free(m);
}

void
model_set_now(struct model *m, int64_t mono_ms, int64_t wall_ms)
{
	m->now_mono = mono_ms;
	m->now_wall = wall_ms;
}

void
model_set_ascii(struct model *m, bool ascii)
{
	m->ascii = ascii;
	m->out.ascii = ascii;
}

void
model_set_view_only(struct model *m)
{
	m->view_only = true;
	if (m->focus == PANE_AGENT)
		m->focus = PANE_PENDING;
}

void
model_message(struct model *m, enum msg_level level, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	free(m->message);
	/* With every run in one console, the line names its run. */
	if (m->many_runs && (*m->run.name != '\0' || *m->run.id != '\0')) {
		m->message = xasprintf("run %s: %s", *m->run.name != '\0' ?
		    m->run.name : m->run.id, text);
		free(text);
	} else
		m->message = text;
	m->message_level = level;
}

void
model_message_plain(struct model *m, enum msg_level level, const char *fmt,
    ...)
{
	va_list ap;

	free(m->message);
	va_start(ap, fmt);
	m->message = xvasprintf(fmt, ap);
	va_end(ap);
	m->message_level = level;
}

void
model_kill_question(const struct model *m, char *buf, size_t len)
{
	if (*m->run.name != '\0')
		snprintf(buf, len, "kill run %s (%s)? y/n", m->run.name,
		    m->run.id);
	else if (*m->run.id != '\0')
		snprintf(buf, len, "kill run %s? y/n", m->run.id);
	else
		snprintf(buf, len, "kill run? y/n");
}

void
model_message_clear(struct model *m)
{
	free(m->message);
	m->message = NULL;
	m->message_level = MSG_INFO;
}

/* ---- lookups ---- */

ssize_t
model_pending_index(const struct model *m, uint64_t id)
{
	for (size_t i = 0; i < m->n_pending; i++) {
		if (m->pending[i]->id == id)
			return (ssize_t)i;
	}
	return -1;
}

struct pending *
model_pending_get(const struct model *m, uint64_t id)
{
	ssize_t i = model_pending_index(m, id);

	return i < 0 ? NULL : m->pending[i];
}

const struct pending *
model_pending_find(const struct model *m, uint64_t id)
{
	return model_pending_get(m, id);
}

/* When arming is judged: the arrival of the key being applied (the
 * console may read it late), else now (what the view shows). */
static int64_t
model_arm_now(const struct model *m)
{
	return m->key_applying ? m->key_at : m->now_mono;
}

/* The key came alone and none arrived for MODEL_QUIET_MS before it: a
 * held or repeating key is not, nor keys a stalled console reads in one
 * go. */
bool
model_quiet(const struct model *m)
{
	if (m->key_applying && m->key_burst)
		return false;
	return !m->keyed || model_arm_now(m) - m->last_key_ms >= MODEL_QUIET_MS;
}

bool
model_armed(const struct model *m, uint64_t id)
{
	const struct pending *p = model_pending_find(m, id);

	return p != NULL && p->shown &&
	    model_arm_now(m) - p->shown_at_ms >= MODEL_ARM_MS &&
	    model_quiet(m);
}

const struct model_event *
model_event_at(const struct model *m, size_t i)
{
	if (i >= m->event_count)
		return NULL;
	return &m->events[(m->event_first + i) % MODEL_EVENTS];
}

bool
model_run_ended(const struct model *m)
{
	return m->run.state == RUN_EXITED;
}

void
model_state_text(const struct model *m, char *buf, size_t len)
{
	const char *why = m->run.end_reason;

	switch (m->run.state) {
	case RUN_UNKNOWN:
		snprintf(buf, len, "connecting");
		return;
	case RUN_STARTING:
		snprintf(buf, len, "starting");
		return;
	case RUN_RUNNING:
		snprintf(buf, len, "running");
		return;
	case RUN_EXITED:
		break;
	}
	if (why != NULL && strcmp(why, "timeout") == 0)
		snprintf(buf, len, "timeout");
	else if (why != NULL && (strcmp(why, "kill") == 0 ||
	    strcmp(why, "killed") == 0))
		snprintf(buf, len, "killed");
	else if (m->run.exit_signal > 0)
		snprintf(buf, len, "signal %d", m->run.exit_signal);
	else if (m->run.exit_code >= 0)
		snprintf(buf, len, "exited %d", m->run.exit_code);
	else
		snprintf(buf, len, "exited");
}

void
model_countdown(const struct model *m, const struct pending *p, char *buf,
    size_t len)
{
	int64_t left, s;

	if (p->deadline_ms == 0) {
		snprintf(buf, len, "no deadline");
		return;
	}
	left = p->deadline_ms - m->now_wall;
	if (left < 0)
		left = 0;
	s = (left + 999) / 1000;
	if (s >= 3600)
		snprintf(buf, len, "denied in %" PRId64 ":%02" PRId64
		    ":%02" PRId64, s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "denied in %" PRId64 ":%02" PRId64, s / 60,
		    s % 60);
}

bool
model_row_status(const struct model *m, const struct pending *p,
    bool selected, char *buf, size_t len)
{
	const char *v = p->sent == VERDICT_ALLOW ? "allow" :
	    p->sent == VERDICT_STAGE ? "stage" : "deny";
	const char *done = p->sent == VERDICT_ALLOW ? "allowed" :
	    p->sent == VERDICT_STAGE ? "staged" :
	    p->sent == VERDICT_KILL ? "killed" : "denied";
	const char *dots = m->ascii ? "..." : "\xe2\x80\xa6";
	char when[48];

	switch (p->fate) {
	case FATE_DONE:
		snprintf(buf, len, "%s %s", done,
		    m->ascii ? "ok" : "\xe2\x9c\x93");
		return true;
	case FATE_LOST:
		snprintf(buf, len, "%s not delivered", v);
		return true;
	case FATE_GONE:
		snprintf(buf, len, "asker gone");
		return true;
	case FATE_OPEN:
		break;
	}
	if (p->sent != VERDICT_NONE && !p->acked && p->sent_ms != 0 &&
	    m->now_mono - p->sent_ms >= MODEL_NOREPLY_MS) {
		snprintf(buf, len, "%s sent%s no reply %" PRId64 "s", v, dots,
		    (m->now_mono - p->sent_ms) / 1000);
		return false;
	}
	if (model_holding(m, p->id)) {
		/* An allow waiting out the trailing silence (arming). */
		snprintf(buf, len, "allowing%s", dots);
		return false;
	}
	if (p->sent != VERDICT_NONE) {
		snprintf(buf, len, "%s sent%s", v, dots);
		return false;
	}
	model_countdown(m, p, when, sizeof when);
	/* Where `a` would work now (tui/model.h: arming). */
	snprintf(buf, len, "%s%s%s", selected && model_armed(m, p->id) ?
	    "armed  " : "", p->again ? "again, " : "", when);
	return false;
}

/* Why an answer key does nothing on p (said on the status line), or
 * false when p takes an answer. */
bool
model_row_refuse(struct model *m, const struct pending *p)
{
	switch (p->fate) {
	case FATE_GONE:
		model_message(m, MSG_INFO, "#%" PRIu64 ": asker gone: nobody "
		    "waits for an answer; nothing sent", p->id);
		return true;
	case FATE_LOST:
		model_message(m, MSG_WARN, "#%" PRIu64 ": the answer was not "
		    "delivered; the run is out of reach, nothing sent", p->id);
		return true;
	case FATE_DONE:
	case FATE_OPEN:
		break;
	}
	if (p->sent != VERDICT_NONE) {
		model_message(m, MSG_INFO, "#%" PRIu64 ": answer already sent",
		    p->id);
		return true;
	}
	return false;
}

char *
model_leave_text(const struct model *m)
{
	const char *run = m->run.id;
	char state[64];

	if (m->run.state == RUN_UNKNOWN)
		return m->disconnected ? xstrdup("ward: supervisor gone") :
		    NULL;
	if (model_run_ended(m)) {
		cleanup_free char *staged = m->have_summary ?
		    summary_staged_text(&m->summary, run) : NULL;

		model_state_text(m, state, sizeof state);
		if (staged != NULL)
			return xasprintf("ward: run %s: %s \u2014 %s", run,
			    state, staged);
		return xasprintf("ward: run %s: %s", run, state);
	}
	if (m->disconnected)
		return xasprintf("ward: run %s: supervisor gone", run);
	return xasprintf("ward: run %s continues; reattach with: "
	    "ward console %s", run, run);
}

int
model_exit_status(const struct model *m, bool exit_with_run)
{
	if (model_run_ended(m)) {
		if (!exit_with_run)
			return 0;
		if (m->run.exit_code >= 0)
			return m->run.exit_code & 0xff;
		if (m->run.exit_signal > 0)
			return 128 + m->run.exit_signal;
		return 1;
	}
	if (m->disconnected)
		return 1;
	return exit_with_run ? MODEL_EXIT_DETACHED : 0;
}

size_t
model_unanswered(const struct model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_pending; i++)
		n += m->pending[i]->sent == VERDICT_NONE;
	return n;
}

size_t
model_open_count(const struct model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_pending; i++)
		n += m->pending[i]->fate == FATE_OPEN;
	return n;
}

void
model_quit_question(const struct model *m, char *buf, size_t len)
{
	const struct pending *last = NULL;
	size_t n = model_unanswered(m) + m->others_unanswered;
	char when[64];

	/* The one denied last says how long any of them waits. */
	for (size_t i = 0; i < m->n_pending; i++) {
		const struct pending *p = m->pending[i];

		if (p->sent != VERDICT_NONE)
			continue;
		if (last == NULL || p->deadline_ms == 0 ||
		    (last->deadline_ms != 0 && p->deadline_ms > last->deadline_ms))
			last = p;
	}
	if (last == NULL && n > 0) {
		snprintf(buf, len, "leave? %zu request%s wait%s in other runs "
		    "for another console, then denied. y/n", n,
		    n == 1 ? "" : "s", n == 1 ? "s" : "");
		return;
	}
	if (last == NULL) {
		snprintf(buf, len, "leave? y/n");
		return;
	}
	if (last->deadline_ms == 0) {
		snprintf(buf, len, "leave? %zu request%s wait%s with no deadline "
		    "for another console. y/n", n,
		    n == 1 ? "" : "s", n == 1 ? "s" : "");
		return;
	}
	model_countdown(m, last, when, sizeof when);
	/* "denied in 1:54" -> "1:54" */
	snprintf(buf, len, "leave? %zu request%s wait%s up to %s for another "
	    "console, then %s denied. y/n", n,
	    n == 1 ? "" : "s", n == 1 ? "s" : "", when + strlen("denied in "),
	    n == 1 ? "it is" : "they are");
}

/* ---- events ---- */

void
model_event_push(struct model *m, char *text, enum verdict v)
{
	struct model_event *e;

	if (m->event_count == MODEL_EVENTS) {
		free(m->events[m->event_first].text);
		m->event_first = (m->event_first + 1) % MODEL_EVENTS;
		m->event_count--;
	}
	e = &m->events[(m->event_first + m->event_count) % MODEL_EVENTS];
	e->text = text;
	e->verdict = v;
	m->event_count++;
}

/* ---- what was asked, as requests go (model-answer.c asks) ---- */

void
model_rules_clear(struct model *m)
{
	for (size_t i = 0; i < m->rules.n; i++)
		free(m->rules.lines[i]);
	free(m->rules.lines);
	m->rules.lines = NULL;
	m->rules.n = 0;
}

void
model_answer_reset(struct model *m)
{
	free(m->answer.ids);
	free(m->answer.glob);
	free(m->answer.file);
	free(m->answer.shown);
	m->answer = (struct model_answer){ .ask = ASK_NONE };
}

/* Nothing asked can be sent any more. A reason being typed stays a
 * prompt (ASK_GONE) until Enter or Esc: the keys still to come were
 * typed as its text, and must not reach the queue as commands. */
void
model_answer_drop(struct model *m)
{
	uint64_t id = m->answer.request;
	bool typing = m->answer.ask == ASK_REASON || m->answer.ask == ASK_GONE;

	model_answer_reset(m);
	if (typing) {
		m->answer.ask = ASK_GONE;
		m->answer.request = id;
	}
}

/* A request ended (answered elsewhere, timed out): a rule or a reason
 * asked for it is never sent. A group keeps the rest. */
static void
model_answer_gone(struct model *m, uint64_t id)
{
	if ((m->answer.ask != ASK_RULE && m->answer.ask != ASK_REASON &&
	    m->answer.ask != ASK_ALWAYS) || m->answer.request != id)
		return;
	model_answer_drop(m);
	model_message(m, MSG_WARN, "#%" PRIu64 " ended before it was "
	    "answered: nothing sent, no rule stored", id);
}

/* ---- a held approve (model-answer.c holds it) ---- */

void
model_hold_clear(struct model *m)
{
	struct model_hold *h = &m->hold;

	free(h->ids);
	free(h->rule);
	free(h->file);
	free(h->comment);
	free(h->entry);
	free(h->sent_msg);
	memset(h, 0, sizeof *h);
}

bool
model_holding(const struct model *m, uint64_t id)
{
	if (!m->hold.active)
		return false;
	for (size_t i = 0; i < m->hold.n_ids; i++)
		if (m->hold.ids[i] == id)
			return true;
	return false;
}

/* ---- the diff pane's lists (model-diff.c moves in them) ---- */

void
model_diff_clear_files(struct model *m)
{
	for (size_t i = 0; i < m->diff.n_files; i++)
		free(m->diff.files[i]);
	free(m->diff.files);
	m->diff.files = NULL;
	m->diff.n_files = 0;
}

void
model_diff_clear_lines(struct model *m)
{
	for (size_t i = 0; i < m->diff.n_lines; i++)
		free(m->diff.lines[i]);
	free(m->diff.lines);
	m->diff.lines = NULL;
	m->diff.n_lines = 0;
}

void
model_diff_set_targets(struct model *m, const char *const *targets,
    const char *const *labels, size_t n)
{
	strv_free(m->diff.targets);
	strv_free(m->diff.labels);
	strv_free(m->diff.hashes);
	strv_free(m->diff.held);
	m->diff.targets = NULL;
	m->diff.labels = NULL;
	m->diff.hashes = NULL;
	m->diff.held = NULL;
	m->diff.n_targets = 0;
	for (size_t i = 0, k = 0; i < n; i++) {
		strv_push(&m->diff.targets, &m->diff.n_targets,
		    xstrdup(targets[i]));
		strv_push(&m->diff.labels, &k, escape_str(labels[i]));
	}
}

void
model_diff_confirm_done(struct model *m)
{
	strv_free(m->diff.confirm_targets);
	strv_free(m->diff.confirm_labels);
	strv_free(m->diff.confirm_hashes);
	m->diff.confirm_targets = NULL;
	m->diff.confirm_labels = NULL;
	m->diff.confirm_hashes = NULL;
	m->diff.n_confirm = 0;
	m->diff.confirm_held = 0;
	m->diff.confirm = DIFF_OP_NONE;
	m->diff.confirm_shown = false;
	m->diff.confirm_partial = false;
}

/* ---- pending ---- */

void
model_detail_close(struct model *m)
{
	m->detail = false;
	m->detail_scroll = 0;
}

void
model_detail_scroll(struct model *m, int by)
{
	int max = m->detail_lines - m->detail_rows;

	m->detail_scroll += by;
	if (m->detail_scroll > max)
		m->detail_scroll = max;
	if (m->detail_scroll < 0)
		m->detail_scroll = 0;
}

void
model_pending_add(struct model *m, const struct request *r)
{
	struct pending *p, *q;
	size_t at;

	if (model_pending_index(m, r->id) >= 0)
		return;
	p = xcalloc(1, sizeof *p);
	p->id = r->id;
	p->kind = r->kind;
	p->pid = r->pid;
	p->syscall = escape_str(r->syscall);
	p->subject = escape_str(r->subject);
	p->subject2 = r->subject2 != NULL ? escape_str(r->subject2) : NULL;
	p->detail = escape_str(r->detail);
	p->cmdline = escape_str(r->cmdline);
	{
		/* Unquoted from the program's own bytes, then escaped:
		 * escaping first would double the wrapper's backslashes. */
		cleanup_free char *inner = shellwrap_command(r->cmdline);

		p->command = inner != NULL ? escape_str(inner) : NULL;
	}
	p->cwd = escape_str(r->cwd);
	p->why = escape_str(r->why);
	if (r->rule != NULL) {
		p->rule_wire = xstrdup(r->rule);
		p->rule = escape_str(r->rule);
	}
	p->created_ms = r->created_ms;
	p->deadline_ms = r->deadline_ms;

	for (at = m->n_pending; at > 0 && m->pending[at - 1]->id > p->id; at--)
		;
	m->pending = xreallocarray(m->pending, m->n_pending + 1,
	    sizeof *m->pending);
	memmove(m->pending + at + 1, m->pending + at,
	    (m->n_pending - at) * sizeof *m->pending);
	m->pending[at] = p;
	m->n_pending++;
	/* Nothing selected, or only a row that is leaving (confirmed, its
	 * asker gone): as if it had gone already. */
	if (m->sel == 0 || ((q = model_pending_get(m, m->sel)) != NULL &&
	    (q->fate == FATE_DONE || q->fate == FATE_GONE)))
		m->sel = p->id;

	/* Keys typed before it appeared were meant for something else.
	 * Not while the program has the keys: they are its own, none of
	 * them can answer, and the prefix flushes on the way over. */
	m->alerts.bell = true;
	if (!(m->agent && m->focus == PANE_AGENT))
		m->alerts.flush = true;
	if (p->id > m->alerts.notify)
		m->alerts.notify = p->id;
}

/*
 * Removes a request. When it was the selected one, the selection moves to
 * the next (or the previous), and that one must be armed afresh: the
 * person did not choose it, and a second `a` meant for the old one must
 * not land on it.
 */
void
model_pending_remove(struct model *m, uint64_t id)
{
	ssize_t i = model_pending_index(m, id);
	size_t at;

	if (i < 0)
		return;
	model_answer_gone(m, id);
	at = (size_t)i;
	model_pending_free(m->pending[at]);
	memmove(m->pending + at, m->pending + at + 1,
	    (m->n_pending - at - 1) * sizeof *m->pending);
	m->n_pending--;
	if (m->sel != id)
		return;
	if (m->detail)
		model_detail_close(m);
	if (m->n_pending == 0) {
		m->sel = 0;
		return;
	}
	if (at >= m->n_pending)
		at = m->n_pending - 1;
	m->sel = m->pending[at]->id;
	m->pending[at]->shown = false;
	m->alerts.flush = true;
}

/*
 * Closes a row (struct pending's fate): it stays drawn, with its
 * status, and leaves the counts; when it was selected the selection
 * moves to the next open row (armed afresh, as model_pending_remove
 * does), or stays when none is left.
 */
void
model_pending_close(struct model *m, struct pending *p,
    enum pending_fate fate, enum verdict v)
{
	ssize_t at = model_pending_index(m, p->id);

	p->fate = fate;
	p->fate_ms = m->now_mono;
	if (v != VERDICT_NONE)
		p->sent = v;
	else if (p->sent == VERDICT_NONE)
		p->sent = VERDICT_DENY;
	model_answer_gone(m, p->id);
	if (m->sel != p->id || at < 0)
		return;
	for (size_t k = 1; k < m->n_pending; k++) {
		/* After it first, then before it. */
		struct pending *q = m->pending[((size_t)at + k) % m->n_pending];

		if (q->fate != FATE_OPEN || q->sent != VERDICT_NONE)
			continue;
		if (m->detail)
			model_detail_close(m);
		m->sel = q->id;
		q->shown = false;
		m->alerts.flush = true;
		return;
	}
}

void
model_fates_tick(struct model *m)
{
	for (size_t i = m->n_pending; i > 0; i--) {
		struct pending *p = m->pending[i - 1];
		int64_t keep = p->fate == FATE_DONE ? MODEL_DONE_MS :
		    p->fate == FATE_GONE ? MODEL_GONE_MS : -1;

		if (p->sent == VERDICT_NONE)
			p->sent_ms = 0;
		else if (p->sent_ms == 0)
			p->sent_ms = m->now_mono;
		if (keep >= 0 && m->now_mono - p->fate_ms >= keep)
			model_pending_remove(m, p->id);
	}
}

void
model_lost_add(struct model *m, uint64_t id)
{
	for (size_t i = 0; i < m->n_lost; i++)
		if (m->lost[i] == id)
			return;
	m->lost = xreallocarray(m->lost, m->n_lost + 1, sizeof *m->lost);
	m->lost[m->n_lost++] = id;
}

void
model_carry_lost(struct model *m, const struct model *old)
{
	for (size_t i = 0; i < old->n_lost; i++)
		model_lost_add(m, old->lost[i]);
	for (size_t i = 0; i < old->n_pending; i++)
		if (old->pending[i]->fate == FATE_LOST)
			model_lost_add(m, old->pending[i]->id);
}

void
model_pending_clear(struct model *m)
{
	for (size_t i = 0; i < m->n_pending; i++)
		model_pending_free(m->pending[i]);
	m->n_pending = 0;
	m->sel = 0;
	model_detail_close(m);
	model_answer_drop(m);	/* nothing asked stays over a new welcome */
}

size_t
model_pending_rows(const struct model *m, struct group_row **rows)
{
	struct group_in *v = xcalloc(m->n_pending + 1, sizeof *v);
	size_t n;

	for (size_t i = 0; i < m->n_pending; i++)
		v[i] = (struct group_in){ .kind = m->pending[i]->kind,
		    .process = m->pending[i]->cmdline,
		    .subject = m->pending[i]->subject };
	n = group_rows(v, m->n_pending, rows);
	free(v);
	return n;
}

uint64_t
model_first_row_id(const struct model *m)
{
	struct group_row *rows;
	size_t n = model_pending_rows(m, &rows);
	uint64_t id = n > 0 ? m->pending[rows[0].idx[0]]->id : 0;

	group_rows_free(rows, n);
	return id;
}

void
model_set_summary(struct model *m, const struct summary *s)
{
	m->summary = *s;
	m->have_summary = true;
}

void
model_set_scorecard(struct model *m, char **lines)
{
	strv_free(m->scorecard);
	m->scorecard = lines;
}

void
model_note_view(struct model *m, const struct view_report *rep)
{
	/* Requests behind the agent's focus are not being read: arming
	 * starts when the focus is on them (DESIGN §9). */
	bool blind = m->agent && m->focus == PANE_AGENT;

	m->agent_rows = rep->agent_rows;
	m->agent_cols = rep->agent_cols;
	m->agent_y = rep->agent_y;
	m->agent_x = rep->agent_x;
	/* Without the agent pane, the pty's size as the supervisor says it
	 * (model_on_resize) is what the program draws at. */
	if (m->agent_rows > 0 && m->agent_cols > 0 &&
	    (m->agent || m->pty_rows == 0))
		vt_resize(m->vt, m->agent_rows, m->agent_cols);
	for (size_t i = 0; i < m->n_pending; i++) {
		struct pending *p = m->pending[i];
		const struct view_seen *seen = NULL;

		for (size_t j = 0; j < rep->n_seen && !blind; j++) {
			if (rep->seen[j].id == p->id) {
				seen = &rep->seen[j];
				break;
			}
		}
		if (seen == NULL) {
			p->shown = false;
			p->partial = false;
		} else if (seen->whole) {
			if (!p->shown) {
				p->shown = true;
				p->shown_at_ms = m->now_mono;
			}
			p->partial = false;
		} else {
			p->partial = true;
		}
	}
	if (m->diff.confirm == DIFF_OP_NONE || rep->diff_confirm <= 0) {
		m->diff.confirm_shown = false;
		m->diff.confirm_partial = rep->diff_confirm < 0;
	} else if (!m->diff.confirm_shown) {
		m->diff.confirm_shown = true;
		m->diff.confirm_shown_at = m->now_mono;
		m->diff.confirm_partial = false;
	}
	m->page_rows = rep->page_rows;
	m->detail_rows = rep->detail_rows;
	m->detail_lines = rep->detail_lines;
	if (m->detail)
		model_detail_scroll(m, 0);
}

const struct pending *
model_take_overdue(struct model *m, unsigned after_s)
{
	for (size_t i = 0; i < m->n_pending; i++) {
		struct pending *p = m->pending[i];

		if (p->hooked || p->sent != VERDICT_NONE ||
		    m->now_wall - p->created_ms < (int64_t)after_s * 1000)
			continue;
		p->hooked = true;
		return p;
	}
	return NULL;
}

void
model_take_alerts(struct model *m, struct model_alerts *ret)
{
	*ret = m->alerts;
	memset(&m->alerts, 0, sizeof m->alerts);
}
