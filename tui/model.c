/* SPDX-License-Identifier: MIT */
#include "tui/model.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "approvals/msg.h"
#include "approvals/proto.h"
#include "config/escape.h"
#include "config/util.h"
#include "tui/group.h"
#include "tui/shellwrap.h"
#include "tui/view-report.h"
#include "tui/vt.h"

static void model_diff_clear_files(struct model *);
static void model_answer_reset(struct model *);
static void model_answer_drop(struct model *);
static void model_rules_clear(struct model *);
static void model_answer_gone(struct model *, uint64_t id);
static uint64_t model_first_row_id(const struct model *);
static int model_on_rule_list(struct model *, const json_t *);
static void model_diff_clear_lines(struct model *);
static void model_hold_clear(struct model *);

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

static void
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

static struct pending *
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
static bool
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
static bool
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

static void
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

/* ---- protocol helpers ---- */

/* A message the console cannot use: the status line says why. */
static int
model_bad_message(struct model *m, const char *cause)
{
	cleanup_free char *esc = escape_str(cause != NULL ? cause :
	    "malformed message");

	model_message(m, MSG_ERROR, "protocol: %s", esc);
	return -EINVAL;
}

/* *field becomes s escaped ("" for NULL). */
static void
model_set_text(char **field, const char *s)
{
	free(*field);
	*field = escape_str(s);
}

/* ---- pending ---- */

static void
model_detail_close(struct model *m)
{
	m->detail = false;
	m->detail_scroll = 0;
}

static void
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
static void
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
static void
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

static void
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

static void
model_pending_clear(struct model *m)
{
	for (size_t i = 0; i < m->n_pending; i++)
		model_pending_free(m->pending[i]);
	m->n_pending = 0;
	m->sel = 0;
	model_detail_close(m);
	model_answer_drop(m);	/* nothing asked stays over a new welcome */
}

/* ---- messages ---- */

/* AUTO's pane, shown because the program went full screen: the keys
 * stay the console's, and the status line says how to hand them over. */
static void
model_agent_shown(struct model *m)
{
	char kb[KEYS_NAME_MAX];

	m->agent = true;
	model_message(m, MSG_INFO, "run %s went full screen: its agent pane "
	    "shows; %s or Esc gives it the keys", *m->run.id != '\0' ?
	    m->run.id : "-", keys_name(m->prefix, kb, sizeof kb));
}

/* The program is gone (its run ended, its supervisor went): keys that
 * had been its own are the console's again, and what was typed ahead
 * for it is thrown away rather than read as console keys (the rest of
 * a paste under way stays text: model_apply_key drops it). */
static void
model_agent_release(struct model *m)
{
	if (m->focus != PANE_AGENT)
		return;
	m->focus = PANE_PENDING;
	m->alerts.flush = true;
}

/* A RUN changes what it names and keeps the rest. */
static void
model_on_run(struct model *m, const struct run_info *ri)
{
	bool was_ended = model_run_ended(m);

	if (ri->have & MSG_RUN_ID)
		model_set_text(&m->run.id, ri->id);
	if (ri->have & MSG_RUN_NAME)
		model_set_text(&m->run.name, ri->name);
	if (ri->have & MSG_RUN_COMMAND)
		model_set_text(&m->run.command, ri->command);
	if (ri->have & MSG_RUN_LIMITS)
		model_set_text(&m->run.limits, ri->limits);
	if (ri->have & MSG_RUN_POLICY) {
		free(m->run.policy);
		m->run.policy = xstrdup(ri->policy != NULL ? ri->policy : "");
	}
	if (ri->have & MSG_RUN_END_REASON) {
		free(m->run.end_reason);
		m->run.end_reason = ri->end_reason != NULL ?
		    escape_str(ri->end_reason) : NULL;
	}
	if (ri->have & MSG_RUN_STATE)
		m->run.state = ri->state;
	if (ri->have & MSG_RUN_PID)
		m->run.pid = ri->pid;
	if (ri->have & MSG_RUN_EXIT_CODE)
		m->run.exit_code = ri->exit_code;
	if (ri->have & MSG_RUN_EXIT_SIGNAL)
		m->run.exit_signal = ri->exit_signal;
	if (ri->have & MSG_RUN_STARTED)
		m->run.started_ms = ri->started_ms;
	if (ri->have & MSG_RUN_ENDED)
		m->run.ended_ms = ri->ended_ms;
	if (ri->have & MSG_RUN_ASK_TIMEOUT)
		m->run.ask_timeout = ri->ask_timeout;
	if (ri->have & MSG_RUN_HEADLESS)
		m->run.headless = ri->headless;
	if (ri->have & MSG_RUN_WATCHERS)
		m->run.watchers = ri->watchers;

	if (model_run_ended(m) && !was_ended) {
		/* Nothing is left to answer. */
		model_pending_clear(m);
		model_agent_release(m);
		m->confirm_kill = false;
		m->confirm_quit = false;
	}
}

static int
model_on_state(struct model *m, const json_t *msg)
{
	struct run_info ri;
	cleanup_free char *cause = NULL;

	if (msg_state_parse(msg, &ri, &cause) < 0)
		return model_bad_message(m, cause);
	model_on_run(m, &ri);
	msg_run_done(&ri);
	return 0;
}

static int
model_on_request(struct model *m, const json_t *msg)
{
	struct request *r = NULL;
	cleanup_free char *cause = NULL;

	if (msg_request_parse(msg, &r, &cause) < 0)
		return model_bad_message(m, cause);
	model_pending_add(m, r);
	request_free(r);
	return 0;
}

static int
model_on_welcome(struct model *m, const json_t *msg)
{
	struct msg_welcome w;
	cleanup_free char *cause = NULL;

	if (msg_welcome_parse(msg, &w, &cause) < 0)
		return model_bad_message(m, cause);
	if (w.version != 0 && w.version != PROTO_VERSION)
		model_message(m, MSG_WARN, "supervisor speaks protocol %" PRId64
		    ", this console %d", w.version, PROTO_VERSION);
	model_on_run(m, &w.run);
	m->welcomed = true;
	/* Answers not delivered: their requests, said again, wait for an
	 * answer afresh (armed afresh: new rows), and say so. */
	for (size_t i = 0; i < m->n_pending; i++)
		if (m->pending[i]->fate == FATE_LOST)
			model_lost_add(m, m->pending[i]->id);
	model_pending_clear(m);
	for (size_t i = 0; i < w.n_pending; i++)
		model_pending_add(m, w.pending[i]);
	for (size_t i = 0; i < m->n_lost; i++) {
		struct pending *p = model_pending_get(m, m->lost[i]);

		if (p == NULL)
			continue;
		p->again = true;
		model_message(m, MSG_WARN, "#%" PRIu64 ": the answer was not "
		    "delivered; it waits again", p->id);
	}
	free(m->lost);
	m->lost = NULL;
	m->n_lost = 0;
	if (m->n_pending > 0)
		m->sel = model_first_row_id(m);
	msg_welcome_done(&w);
	return 0;
}

/* "write /etc/passwd" or "#12" when we never saw it. */
static char *
model_pending_label(const struct pending *p, uint64_t id)
{
	if (p == NULL)
		return xasprintf("#%" PRIu64, id);
	if (p->subject2 != NULL && *p->subject2 != '\0')
		return xasprintf("#%" PRIu64 " %s %s -> %s", id,
		    request_kind_name(p->kind), p->subject, p->subject2);
	return xasprintf("#%" PRIu64 " %s %s", id, request_kind_name(p->kind),
	    p->subject);
}

static int
model_on_resolved(struct model *m, const json_t *msg)
{
	struct msg_resolved rs;
	const struct pending *p;
	cleanup_free char *cause = NULL, *label = NULL, *by = NULL;
	const char *verdict, *how;
	bool mine, was_reading;
	char *text;

	if (msg_resolved_parse(msg, &rs, &cause) < 0)
		return model_bad_message(m, cause);
	verdict = verdict_name(rs.verdict);
	how = how_name(rs.how);
	if (rs.by != NULL)
		by = escape_str(rs.by);
	p = model_pending_find(m, rs.request);
	label = model_pending_label(p, rs.request);
	/* Ours: this console's answer, which the supervisor took (its ack
	 * came first, on this connection alone). */
	mine = p != NULL && p->sent != VERDICT_NONE && p->acked &&
	    p->fate == FATE_OPEN;
	was_reading = m->detail && m->sel == rs.request;
	if (by != NULL && *by != '\0')
		text = xasprintf("%s: %s (%s, %s)", label, verdict, how, by);
	else
		text = xasprintf("%s: %s (%s)", label, verdict, how);
	if ((was_reading || m->sel == rs.request) && !mine)
		model_message(m, MSG_WARN, "%s", text);
	model_event_push(m, text, rs.verdict);
	events_push(&m->ev, p != NULL ? (int)p->kind : EVENTS_KIND_UNKNOWN,
	    rs.verdict, (int)rs.how, p != NULL ? p->subject : "", text);
	if (p == NULL)
		return 0;
	if (rs.verdict == VERDICT_NONE) {
		/* Nobody waits for it any more: greyed out a moment. */
		if (mine || m->sel == rs.request)
			model_message(m, MSG_WARN, "#%" PRIu64 ": asker gone: "
			    "closed, nobody waits for an answer", rs.request);
		model_pending_close(m, model_pending_get(m, rs.request),
		    FATE_GONE, VERDICT_NONE);
	} else if (mine) {
		model_pending_close(m, model_pending_get(m, rs.request),
		    FATE_DONE, rs.verdict);
	} else {
		model_pending_remove(m, rs.request);
	}
	return 0;
}

static int
model_on_event(struct model *m, const json_t *msg)
{
	struct audit_event ev;
	cleanup_free char *cause = NULL;
	cleanup_free char *subject = NULL, *subject2 = NULL, *rule = NULL;
	const char *kind;
	char *text;

	if (msg_event_parse(msg, &ev, &cause) < 0)
		return model_bad_message(m, cause);
	kind = request_kind_name(ev.kind);
	subject = escape_str(ev.subject);
	if (ev.kind == KIND_RUN || ev.kind == KIND_EXEC) {
		/* What ran, and the run's own life: facts, not decisions. */
		cleanup_free char *detail = escape_str(ev.detail);

		text = xasprintf("%s %s%s%s", kind, subject,
		    *detail ? ": " : "", detail);
		model_event_push(m, text, VERDICT_NONE);
		events_push(&m->ev, (int)ev.kind, ev.kind == KIND_RUN ?
		    VERDICT_NONE : ev.verdict, (int)ev.how, subject, text);
		return 0;
	}
	subject2 = escape_str(ev.subject2);
	rule = escape_str(ev.rule);
	/* An HTTP request's status and bytes, where a phantom went: the
	 * detail is what the line is for (issue 19). */
	if ((ev.kind == KIND_HTTP || ev.kind == KIND_SECRET) &&
	    ev.detail != NULL && *ev.detail != '\0') {
		cleanup_free char *with = NULL, *detail = escape_str(ev.detail);

		with = xasprintf("%s [%s]", subject2, detail);
		free(subject2);
		subject2 = steal_ptr(&with);
		text = xasprintf("%s %s%s: %s (%s%s%s)", kind, subject,
		    subject2, verdict_name(ev.verdict), how_name(ev.how),
		    *rule ? ": " : "", rule);
	} else
		text = xasprintf("%s %s%s%s: %s (%s%s%s)", kind, subject,
		    *subject2 ? " -> " : "", subject2,
		    verdict_name(ev.verdict), how_name(ev.how), *rule ? ": " :
		    "", rule);
	model_event_push(m, text, ev.verdict);
	events_push(&m->ev, (int)ev.kind, ev.verdict, (int)ev.how, subject,
	    text);
	return 0;
}

static int
model_on_output(struct model *m, const json_t *msg)
{
	struct msg_output o;
	cleanup_free char *cause = NULL;
	enum output_stream s = STREAM_PTY;

	if (msg_output_parse(msg, &o, &cause) < 0)
		return model_bad_message(m, cause);
	switch (o.stream) {
	case AUDIT_STDERR:
		s = STREAM_STDERR;
		break;
	case AUDIT_STDOUT:
		s = STREAM_STDOUT;
		break;
	case AUDIT_PTY:
		s = STREAM_PTY;
		break;
	}
	output_feed(&m->out, s, o.data, o.len);
	if (s == STREAM_PTY) {
		vt_feed(m->vt, o.data, o.len);
		/* The program's bells stay in its pane: ward's bell means a
		 * request, and the program must not be able to ring it. */
		(void)vt_take_bells(m->vt);
		/* AUTO (neither --agent nor --lines): a program gone full
		 * screen is shown in the pane, but what it prints never
		 * moves the keys (issue 31): they stay where the person
		 * left them, on the requests, until the prefix or Esc
		 * gives them to it. */
		if (m->agent_mode == AGENT_AUTO && !m->agent &&
		    vt_altscreen(m->vt))
			model_agent_shown(m);
	}
	msg_output_done(&o);
	return 0;
}

static int
model_on_ack(struct model *m, const json_t *msg)
{
	struct msg_ack a;
	cleanup_free char *cause = NULL, *error = NULL;

	if (msg_ack_parse(msg, &a, &cause) < 0)
		return model_bad_message(m, cause);
	if (a.ok) {
		struct pending *p = a.request != 0 ?
		    model_pending_get(m, a.request) : NULL;

		if (p != NULL && p->sent != VERDICT_NONE)
			p->acked = true;
		return 0;
	}
	if (a.error != NULL)
		error = escape_str(a.error);
	if (a.request != 0) {
		struct pending *p = model_pending_get(m, a.request);

		if (p != NULL)
			p->sent = VERDICT_NONE;
		model_message(m, MSG_ERROR, "#%" PRIu64 ": %s", a.request,
		    error != NULL ? error : "refused");
	} else {
		model_message(m, MSG_ERROR, "refused: %s",
		    error != NULL ? error : "no reason given");
	}
	return 0;
}

static int
model_on_error(struct model *m, const json_t *msg)
{
	const char *text;
	cleanup_free char *cause = NULL, *error = NULL;

	if (msg_error_parse(msg, &text, &cause) < 0)
		return model_bad_message(m, cause);
	if (text != NULL)
		error = escape_str(text);
	model_message(m, MSG_ERROR, "supervisor: %s",
	    error != NULL ? error : "error");
	return 0;
}

/*
 * The program's terminal size, as another client set it (a
 * --pass-through terminal, an agent pane elsewhere): the emulator takes
 * it, so that a console showing the output (not sizing the pty itself)
 * draws a full-screen program as the screen it drew (issue 30, point 6).
 * An agent pane sizes the pty to itself and keeps its own size.
 */
static int
model_on_resize(struct model *m, const json_t *msg)
{
	cleanup_free char *cause = NULL;
	int rows, cols;

	if (msg_resize_parse(msg, &rows, &cols, &cause) < 0)
		return model_bad_message(m, cause);
	m->pty_rows = rows;
	m->pty_cols = cols;
	if (!m->agent)
		vt_resize(m->vt, rows, cols);
	return 0;
}

int
model_apply_message(struct model *m, const json_t *msg)
{
	switch (msg_type(msg)) {
	case MSG_TYPE_NONE:
		model_message(m, MSG_ERROR, "protocol: message without type");
		return -EINVAL;
	case MSG_TYPE_WELCOME:
		return model_on_welcome(m, msg);
	case MSG_TYPE_REQUEST:
		return model_on_request(m, msg);
	case MSG_TYPE_RESOLVED:
		return model_on_resolved(m, msg);
	case MSG_TYPE_EVENT:
		return model_on_event(m, msg);
	case MSG_TYPE_OUTPUT:
		return model_on_output(m, msg);
	case MSG_TYPE_STATE:
		return model_on_state(m, msg);
	case MSG_TYPE_ACK:
		return model_on_ack(m, msg);
	case MSG_TYPE_ERROR:
		return model_on_error(m, msg);
	case MSG_TYPE_RULE_LIST:
		return model_on_rule_list(m, msg);
	case MSG_TYPE_RESIZE:
		return model_on_resize(m, msg);
	case MSG_TYPE_RULES:
	case MSG_TYPE_REVOKE:
	case MSG_TYPE_HELLO:
	case MSG_TYPE_DECIDE:
	case MSG_TYPE_KILL:
	case MSG_TYPE_INPUT:
	case MSG_TYPE_RELAY_RUNS:
	case MSG_TYPE_RELAY_TO:
	case MSG_TYPE_RELAY_FROM:
	case MSG_TYPE_RELAY_CLOSED:
	case MSG_TYPE_RELAY_EVENTS:
	case MSG_TYPE_OTHER:
		break;	/* not for a console, or for a newer one: ignored */
	}
	return 0;
}

void
model_set_disconnected(struct model *m, const char *why)
{
	cleanup_free char *esc = escape_str(why);

	m->disconnected = true;
	model_agent_release(m);
	m->confirm_kill = false;
	m->confirm_quit = false;
	model_answer_drop(m);
	/* Nobody can answer them now; the sandbox dies with its supervisor.
	 * An answer sent and not confirmed was not delivered, as far as
	 * anyone here can tell: its row says so at once and stays. */
	for (size_t i = m->n_pending; i > 0; i--) {
		struct pending *p = m->pending[i - 1];

		if (p->fate == FATE_OPEN && p->sent != VERDICT_NONE) {
			p->fate = FATE_LOST;
			p->fate_ms = m->now_mono;
		} else if (p->fate != FATE_LOST) {
			model_pending_remove(m, p->id);
		}
	}
	if (!model_run_ended(m))
		model_message(m, MSG_ERROR, "supervisor gone%s%s",
		    why ? ": " : "", why ? esc : "");
}

/* ---- actions ---- */

static size_t
model_out_max_scroll(const struct model *m)
{
	size_t n = output_total(&m->out);

	return n > 0 ? n - 1 : 0;
}

static void
model_out_scroll(struct model *m, long by)
{
	long max = (long)model_out_max_scroll(m), s = (long)m->out.scroll + by;

	if (s > max)
		s = max;
	if (s < 0)
		s = 0;
	m->out.scroll = (size_t)s;
}

static void
model_detail_scroll(struct model *m, int by)
{
	int max = m->detail_lines - m->detail_rows;

	m->detail_scroll += by;
	if (m->detail_scroll > max)
		m->detail_scroll = max;
	if (m->detail_scroll < 0)
		m->detail_scroll = 0;
}

/* The first open request of a row (its index), or -1. */
static ssize_t
model_row_open(const struct model *m, const struct group_row *row)
{
	for (size_t k = 0; k < row->n; k++)
		if (m->pending[row->idx[k]]->fate == FATE_OPEN)
			return (ssize_t)row->idx[k];
	return -1;
}

/* The selection moves by the rows the person sees (tui/group.h):
 * sensitive first, a group as one row (its oldest request stands for it). */

static void
model_select_step(struct model *m, int by)
{
	ssize_t i = model_pending_index(m, m->sel);
	struct group_row *rows;
	size_t n = model_pending_rows(m, &rows);
	long r = i < 0 ? 0 : group_row_of(rows, n, (size_t)i) + by;

	if (n == 0)
		return;
	if (i < 0)
		r = 0;
	if (r < 0)
		r = 0;
	if ((size_t)r >= n)
		r = (long)n - 1;
	/* A closed row (struct pending's fate) takes no answer: skipped,
	 * that way first, then the other. */
	if ((i = model_row_open(m, &rows[r])) < 0) {
		long step = by < 0 ? -1 : 1, t;

		for (t = r + step; t >= 0 && (size_t)t < n &&
		    (i = model_row_open(m, &rows[t])) < 0; t += step)
			;
		for (t = r - step; i < 0 && t >= 0 && (size_t)t < n &&
		    (i = model_row_open(m, &rows[t])) < 0; t -= step)
			;
	}
	group_rows_free(rows, n);
	if (i < 0 || m->pending[i]->id == m->sel)
		return;
	/* Every selection change re-arms: the clock starts again now for
	 * one already on screen (the next frame's for one that is not). */
	m->sel = m->pending[i]->id;
	m->pending[i]->shown_at_ms = m->now_mono;
}

bool
model_stageable(const struct pending *p)
{
	static const char *const opens[] = { "open", "openat", "openat2",
	    "creat" };

	if (p == NULL || p->kind != KIND_WRITE || p->syscall == NULL)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(opens); i++)
		if (strcmp(p->syscall, opens[i]) == 0)
			return true;
	return false;
}

/* a, and s (VERDICT_STAGE): armed only, as DESIGN §9 says. */
static void
model_allow(struct model *m, struct model_effect *eff, enum verdict v)
{
	struct pending *p = model_pending_get(m, m->sel);

	if (p == NULL) {
		model_message(m, MSG_INFO, "no request selected");
		return;
	}
	if (v == VERDICT_STAGE && !model_stageable(p)) {
		model_message(m, MSG_INFO, "#%" PRIu64 ": only a write that "
		    "opens a file can be staged", p->id);
		return;
	}
	if (model_row_refuse(m, p))
		return;
	if (!model_armed(m, p->id)) {
		if (!model_quiet(m))
			model_message(m, MSG_WARN, "ignored: keys were still "
			    "arriving; let go, then press a");
		else if (p->partial && !p->shown)
			model_message(m, MSG_WARN, "wait: #%" PRIu64 " is not "
			    "shown whole yet; Enter shows all of it", p->id);
		else
			model_message(m, MSG_WARN,
			    "wait: request just appeared");
		return;
	}
	p->sent = v;
	eff->kind = EFFECT_DECIDE;
	eff->request = p->id;
	eff->verdict = v;
	if (v == VERDICT_STAGE)
		model_message(m, MSG_INFO, "stage #%" PRIu64 ": sent; c shows "
		    "the diff once written", p->id);
	else
		model_message(m, MSG_INFO, "allow #%" PRIu64 " once: sent",
		    p->id);
}

static void
model_deny(struct model *m, struct model_effect *eff)
{
	struct pending *p = model_pending_get(m, m->sel);

	if (p == NULL) {
		model_message(m, MSG_INFO, "no request selected");
		return;
	}
	if (model_row_refuse(m, p))
		return;
	p->sent = VERDICT_DENY;
	eff->kind = EFFECT_DECIDE;
	eff->request = p->id;
	eff->verdict = VERDICT_DENY;
	model_message(m, MSG_INFO, "deny #%" PRIu64 " once: sent", p->id);
}

/* ------------------------------------------------------------------ */
/* Answers that ask first (issue 15): a rule, a group, all, a reason. */

static void
model_rules_clear(struct model *m)
{
	for (size_t i = 0; i < m->rules.n; i++)
		free(m->rules.lines[i]);
	free(m->rules.lines);
	m->rules.lines = NULL;
	m->rules.n = 0;
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

static void
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
static void
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

static uint64_t
model_first_row_id(const struct model *m)
{
	struct group_row *rows;
	size_t n = model_pending_rows(m, &rows);
	uint64_t id = n > 0 ? m->pending[rows[0].idx[0]]->id : 0;

	group_rows_free(rows, n);
	return id;
}

/* The selected request, when it can take an answer now. */
static struct pending *
model_answerable(struct model *m, bool allow)
{
	struct pending *p = model_pending_get(m, m->sel);

	if (p == NULL) {
		model_message(m, MSG_INFO, "no request selected");
		return NULL;
	}
	if (model_row_refuse(m, p))
		return NULL;
	if (allow && !model_armed(m, p->id)) {
		model_message(m, MSG_WARN, "wait: #%" PRIu64 " is not shown "
		    "long enough yet", p->id);
		return NULL;
	}
	return p;
}

/* The ids of the group the selection stands for, when it is a group of
 * more than one and no single request is open (Enter answers one). */
static bool
model_group_ids(struct model *m, uint64_t **ids, size_t *n_ids, char **glob)
{
	ssize_t i = model_pending_index(m, m->sel);
	struct group_row *rows;
	size_t n = model_pending_rows(m, &rows);
	long r = i >= 0 ? group_row_of(rows, n, (size_t)i) : -1;
	bool group = !m->detail && r >= 0 && rows[r].n > 1;

	if (group) {
		*ids = xcalloc(rows[r].n, sizeof **ids);
		*n_ids = 0;
		for (size_t k = 0; k < rows[r].n; k++)
			if (m->pending[rows[r].idx[k]]->sent == VERDICT_NONE)
				(*ids)[(*n_ids)++] = m->pending[rows[r].idx[k]]->id;
		*glob = xstrdup(rows[r].glob);
	}
	group_rows_free(rows, n);
	return group;
}

/* a or d on a group: asks first, with the glob it amounts to. */
static bool
model_group_ask(struct model *m, enum verdict v)
{
	uint64_t *ids = NULL;
	size_t n = 0;
	char *glob = NULL;

	if (!model_group_ids(m, &ids, &n, &glob))
		return false;
	if (v == VERDICT_ALLOW && !model_armed(m, m->sel)) {
		model_message(m, MSG_WARN, "wait: the group is not shown long "
		    "enough yet");
		free(ids);
		free(glob);
		return true;
	}
	model_answer_reset(m);
	m->answer = (struct model_answer){
		.ask = ASK_GROUP, .verdict = v, .ids = ids, .n_ids = n,
		.glob = glob, .request = m->sel,
	};
	return true;
}

static void
model_rule_ask(struct model *m, enum verdict v)
{
	uint64_t *ids = NULL;
	size_t n = 0;
	char *glob = NULL;
	struct pending *p;

	if (model_group_ids(m, &ids, &n, &glob)) {
		free(ids);
		free(glob);
		model_message(m, MSG_INFO, "A and D store one request's rule: "
		    "Enter opens the group's first; a / d answer the group "
		    "once each");
		return;
	}
	if ((p = model_answerable(m, v == VERDICT_ALLOW)) == NULL)
		return;
	if (p->rule == NULL) {
		model_message(m, MSG_WARN, "#%" PRIu64 ": the supervisor did "
		    "not say which rule it would store", p->id);
		return;
	}
	model_answer_reset(m);
	m->answer = (struct model_answer){
		.ask = ASK_RULE, .request = p->id, .verdict = v,
	};
}

/* Where "always" writes p's rule: a write's under [files] allow; an HTTP
 * request's (issue 19) as an HTTP rule under [network] allow, its subject
 * "host:port METHOD PATH" as it is, so only when the path holds no glob
 * character (the rule would be wider than what was asked). */
static void
model_always_target(const struct pending *p, struct model_effect *eff)
{
	bool http = p->kind == KIND_HTTP;

	eff->section = http ? "network" : "files";
	eff->key = "allow";
	eff->entry = http ? p->subject : p->rule_wire;
}

/* W: asks the console where the rule would go; model_always_plan then
 * asks the person. A write's rule or an HTTP request's only, and only
 * into a file the run said it read. */
static void
model_always_ask(struct model *m, struct model_effect *eff)
{
	uint64_t *ids = NULL;
	size_t n = 0;
	char *glob = NULL;
	struct pending *p;

	if (model_group_ids(m, &ids, &n, &glob)) {
		free(ids);
		free(glob);
		model_message(m, MSG_INFO, "W writes one request's rule: Enter "
		    "opens the group's first");
		return;
	}
	if ((p = model_answerable(m, true)) == NULL)
		return;
	if (p->kind != KIND_WRITE && p->kind != KIND_HTTP) {
		model_message(m, MSG_INFO, "#%" PRIu64 ": W (always) is offered "
		    "for writes, a line under [files] allow, and HTTP requests, "
		    "one under [network] allow; A allows for the run", p->id);
		return;
	}
	if (p->kind == KIND_HTTP && strpbrk(p->subject, "*?[\\") != NULL) {
		model_message(m, MSG_INFO, "#%" PRIu64 ": W (always): its path "
		    "holds a glob character, a rule would allow more; A allows "
		    "for the run", p->id);
		return;
	}
	if (p->rule_wire == NULL) {
		model_message(m, MSG_WARN, "#%" PRIu64 ": the supervisor did "
		    "not say which rule it would store", p->id);
		return;
	}
	if (m->always_off != NULL) {
		model_message(m, MSG_WARN, "W: not offered: %s", m->always_off);
		return;
	}
	if (*m->run.policy == '\0') {
		model_message(m, MSG_WARN, "the run did not say which policy "
		    "file it read: nothing to write into");
		return;
	}
	model_answer_reset(m);
	m->answer.request = p->id;
	snprintf(m->answer.note, sizeof m->answer.note, "always, from run %.16s",
	    m->run.id);
	eff->kind = EFFECT_ALWAYS_PLAN;
	eff->request = p->id;
	eff->rule = p->rule_wire;
	eff->file = m->run.policy;
	eff->comment = m->answer.note;
	model_always_target(p, eff);
}

void
model_always_plan(struct model *m, uint64_t id, unsigned line,
    const char *shown, const char *why)
{
	struct pending *p = model_pending_get(m, id);

	if (p == NULL || p->sent != VERDICT_NONE || m->answer.ask != ASK_NONE ||
	    m->answer.request != id)
		return;
	if (why != NULL) {
		cleanup_free char *w = escape_str(why);

		model_message(m, MSG_WARN, "W: not offered: %s", w);
		return;
	}
	m->answer.ask = ASK_ALWAYS;
	m->answer.verdict = VERDICT_ALLOW;
	m->answer.file = escape_str(m->run.policy);
	m->answer.line = line;
	m->answer.shown = escape_str(shown);
}

void
model_always_done(struct model *m, uint64_t id, unsigned line,
    const char *why)
{
	struct pending *p = model_pending_get(m, id);
	cleanup_free char *file = escape_str(m->run.policy);

	if (why != NULL) {
		cleanup_free char *w = escape_str(why);

		if (p != NULL && p->sent == VERDICT_ALLOW)
			p->sent = VERDICT_NONE;
		model_message(m, MSG_ERROR, "#%" PRIu64 ": nothing written or "
		    "sent: %s", id, w);
		return;
	}
	model_message(m, MSG_INFO, "allow #%" PRIu64 " always: written to %s "
	    "line %u, sent", id, file, line);
}

static void
model_reason_ask(struct model *m)
{
	struct pending *p = model_answerable(m, false);

	if (p == NULL)
		return;
	model_answer_reset(m);
	m->answer = (struct model_answer){ .ask = ASK_REASON,
	    .request = p->id, .verdict = VERDICT_DENY };
}

static void
model_deny_all_ask(struct model *m)
{
	uint64_t *ids = xcalloc(m->n_pending + 1, sizeof *ids);
	size_t n = 0;

	for (size_t i = 0; i < m->n_pending; i++)
		if (m->pending[i]->sent == VERDICT_NONE)
			ids[n++] = m->pending[i]->id;
	if (n == 0) {
		free(ids);
		model_message(m, MSG_INFO, "nothing pending to deny");
		return;
	}
	model_answer_reset(m);
	m->answer = (struct model_answer){ .ask = ASK_DENY_ALL,
	    .verdict = VERDICT_DENY, .ids = ids, .n_ids = n };
}

/* y on a group or on all: those still pending and not answered. */
static void
model_answer_many(struct model *m, struct model_effect *eff)
{
	size_t k = 0;

	for (size_t i = 0; i < m->answer.n_ids; i++) {
		struct pending *p = model_pending_get(m, m->answer.ids[i]);

		if (p == NULL || p->sent != VERDICT_NONE)
			continue;
		p->sent = m->answer.verdict;
		m->answer.ids[k++] = p->id;
	}
	m->answer.n_ids = k;
	eff->kind = EFFECT_DECIDE_MANY;
	eff->verdict = m->answer.verdict;
	eff->scope = SCOPE_ONCE;
	eff->requests = m->answer.ids;
	eff->n_requests = k;
	model_message(m, MSG_INFO, "%s %zu request%s once each: sent",
	    verdict_name(m->answer.verdict), k, k == 1 ? "" : "s");
}

/* The answer of a prompt: y sends what was shown, any other key is a
 * no. The ids stay with the model until the next prompt (eff points at
 * them). */
static void
model_answer_confirm(struct model *m, enum action a,
    struct model_effect *eff)
{
	struct pending *p = model_pending_get(m, m->answer.request);
	enum model_ask ask = m->answer.ask;

	m->answer.ask = ASK_NONE;
	if (a != ACTION_YES) {
		model_message(m, MSG_INFO, "cancelled: nothing sent");
		return;
	}
	if (ask == ASK_GROUP || ask == ASK_DENY_ALL) {
		model_answer_many(m, eff);
		return;
	}
	if (p == NULL || p->sent != VERDICT_NONE || p->rule_wire == NULL)
		return;
	if (ask == ASK_ALWAYS) {
		p->sent = VERDICT_ALLOW;
		eff->kind = EFFECT_ALWAYS;
		eff->request = p->id;
		eff->verdict = VERDICT_ALLOW;
		eff->scope = SCOPE_RUN;
		eff->rule = p->rule_wire;
		eff->file = m->run.policy;
		eff->comment = m->answer.note;
		eff->line = m->answer.line;
		model_always_target(p, eff);
		return;
	}
	p->sent = m->answer.verdict;
	eff->kind = EFFECT_DECIDE;
	eff->request = p->id;
	eff->verdict = m->answer.verdict;
	eff->scope = SCOPE_RUN;
	eff->rule = p->rule_wire;
	model_message(m, MSG_INFO, "%s #%" PRIu64 " for the run: sent",
	    verdict_name(m->answer.verdict), p->id);
}

/* UTF-8 of a key's code point into the reason, if it fits. */
static void
model_reason_put(struct model *m, int key)
{
	char buf[4];
	size_t n;
	unsigned c = (unsigned)key;

	if (c < 0x80) {
		buf[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		buf[0] = (char)(0xc0 | (c >> 6));
		buf[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		if (c >= 0xd800 && c < 0xe000)
			return;
		buf[0] = (char)(0xe0 | (c >> 12));
		buf[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		buf[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else if (c < 0x110000) {
		buf[0] = (char)(0xf0 | (c >> 18));
		buf[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		buf[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		buf[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	} else
		return;
	if (m->answer.reason_len + n > MODEL_REASON_MAX)
		return;
	memcpy(m->answer.reason + m->answer.reason_len, buf, n);
	m->answer.reason_len += n;
	m->answer.reason[m->answer.reason_len] = '\0';
}

/* A key while a reason is typed: text, Backspace, Enter sends the deny
 * with it, Esc cancels. Control characters and other keys are dropped:
 * the reason holds printable text only. */
static void
model_reason_key(struct model *m, int key, struct model_effect *eff)
{
	struct pending *p;

	if (m->answer.ask == ASK_GONE) {
		if (key == KEYS_ESC || key == '\r' || key == '\n' ||
		    key == KEYS_ENTER)
			model_answer_reset(m);
		return;
	}
	if (key == KEYS_ESC) {
		model_answer_reset(m);
		model_message(m, MSG_INFO, "cancelled: nothing sent");
		return;
	}
	if (key == KEYS_BACKSPACE || key == 0x7f || key == KEYS_CTRL('h')) {
		while (m->answer.reason_len > 0 &&
		    ((unsigned char)m->answer.reason[--m->answer.reason_len] &
		    0xc0) == 0x80)
			;
		m->answer.reason[m->answer.reason_len] = '\0';
		return;
	}
	if (key == '\r' || key == '\n' || key == KEYS_ENTER) {
		m->answer.ask = ASK_NONE;
		p = model_pending_get(m, m->answer.request);
		if (p == NULL || p->sent != VERDICT_NONE)
			return;
		p->sent = VERDICT_DENY;
		eff->kind = EFFECT_DECIDE;
		eff->request = p->id;
		eff->verdict = VERDICT_DENY;
		eff->scope = SCOPE_ONCE;
		eff->reason = m->answer.reason_len > 0 ? m->answer.reason :
		    NULL;
		model_message(m, MSG_INFO, "deny #%" PRIu64 " with a reason: "
		    "sent", p->id);
		return;
	}
	if (key >= ' ' && key != 0x7f && key < KEYS_UP &&
	    !(key >= 0x80 && key < 0xa0))
		model_reason_put(m, key);
}

/* A key while an answer asks (y sends, any other cancels) or the rules
 * list is open (any key closes it; Esc and q only that): true when the
 * key is used up. */
static bool
model_answer_takes(struct model *m, enum action a, struct model_effect *eff)
{
	if (m->answer.ask != ASK_NONE) {
		model_answer_confirm(m, a, eff);
		return true;
	}
	if (m->rules.open && a != ACTION_RULES) {
		m->rules.open = false;
		return a == ACTION_CLOSE || a == ACTION_QUIT;
	}
	return false;
}

/* The keys of answers that ask first, and the rules list. */
static void
model_answer_action(struct model *m, enum action a, struct model_effect *eff)
{
	if (a == ACTION_ALLOW_RUN || a == ACTION_DENY_RUN)
		model_rule_ask(m, a == ACTION_ALLOW_RUN ? VERDICT_ALLOW :
		    VERDICT_DENY);
	else if (a == ACTION_DENY_REASON)
		model_reason_ask(m);
	else if (a == ACTION_DENY_ALL)
		model_deny_all_ask(m);
	else if (a == ACTION_RULES) {
		m->rules.open = !m->rules.open;
		if (m->rules.open)
			eff->kind = EFFECT_RULES;
	}
}

enum model_prompt
model_prompt(const struct model *m)
{
	if (m->confirm_quit)
		return PROMPT_QUIT;
	if (m->ev.editing)
		return PROMPT_FILTER;
	if (m->pasting)
		return PROMPT_PASTE;
	if (m->answer.ask == ASK_REASON || m->answer.ask == ASK_GONE)
		return PROMPT_REASON;
	if (m->answer.ask != ASK_NONE)
		return PROMPT_ANSWER;
	if (m->confirm_kill)
		return PROMPT_KILL;
	if (m->diff.open && m->diff.confirm != DIFF_OP_NONE)
		return PROMPT_DIFF;
	return PROMPT_NONE;
}

bool
model_prompt_open(const struct model *m)
{
	return model_prompt(m) != PROMPT_NONE;
}

const char *
model_run_label(const struct model *m)
{
	if (*m->run.name != '\0')
		return m->run.name;
	return *m->run.id != '\0' ? m->run.id : "?";
}

static char *
model_ask_text_1(const struct model *m)
{
	const struct pending *p = model_pending_find(m, m->answer.request);
	cleanup_free char *reason = NULL;

	switch (m->answer.ask) {
	case ASK_NONE:
		break;
	case ASK_RULE:
		if (p == NULL)
			break;
		return xasprintf("%s for the run #%" PRIu64 ", stores the rule: "
		    "%s %s %s - y stores it, any other key cancels",
		    verdict_name(m->answer.verdict), p->id,
		    verdict_name(m->answer.verdict), request_kind_name(p->kind),
		    p->rule);
	case ASK_REASON:
		reason = escape_str(m->answer.reason);
		return xasprintf("deny #%" PRIu64 ", reason: %s_  (Enter sends, "
		    "Esc cancels)", m->answer.request, reason);
	case ASK_GONE:
		return xasprintf("#%" PRIu64 " ended before the reason was "
		    "sent: nothing sent - Enter or Esc closes this, other keys "
		    "do nothing", m->answer.request);
	case ASK_GROUP:
		return xasprintf("%s %zu %s requests in %s, once each (no rule "
		    "stored) - y sends, any other key cancels",
		    verdict_name(m->answer.verdict), m->answer.n_ids,
		    p != NULL ? request_kind_name(p->kind) : "",
		    m->answer.glob);
	case ASK_DENY_ALL:
		return xasprintf("deny every pending request of this run (%zu) "
		    "- y sends, any other key cancels", m->answer.n_ids);
	case ASK_ALWAYS:
		if (p == NULL)
			break;
		return xasprintf("allow #%" PRIu64 " always: writes %s, [%s] "
		    "line %u: %s%s - y writes it and allows for the run, any "
		    "other key cancels", p->id, m->answer.file,
		    p->kind == KIND_HTTP ? "network" : "files", m->answer.line,
		    m->answer.shown + strspn(m->answer.shown, " \t"),
		    m->answer.shown[0] == ' ' || m->answer.shown[0] == '\t' ?
		    " (under allow =)" : "");
	}
	return NULL;
}

char *
model_ask_text(const struct model *m)
{
	char *text = model_ask_text_1(m), *named;

	/* With every run in one console, the question names its run. */
	if (text == NULL || !m->many_runs ||
	    (*m->run.name == '\0' && *m->run.id == '\0'))
		return text;
	named = xasprintf("run %s: %s", *m->run.name != '\0' ? m->run.name :
	    m->run.id, text);
	free(text);
	return named;
}

static int
model_on_rule_list(struct model *m, const json_t *msg)
{
	struct msg_rule_list l;
	cleanup_free char *cause = NULL;

	if (msg_rule_list_parse(msg, &l, &cause) < 0)
		return model_bad_message(m, cause);
	model_rules_clear(m);
	m->rules.lines = xcalloc(l.n_rules + 1, sizeof *m->rules.lines);
	for (size_t i = 0; i < l.n_rules; i++) {
		cleanup_free char *pat = escape_str(l.rules[i].pattern);

		m->rules.lines[i] = xasprintf("%3" PRIu64 "  %-5s  %-7s  %s",
		    l.rules[i].n, verdict_name(l.rules[i].verdict),
		    request_kind_name(l.rules[i].kind), pat);
	}
	m->rules.n = l.n_rules;
	m->rules.loaded = true;
	msg_rule_list_done(&l);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The diff pane. */

#define MODEL_DIFF_PAGE	10

static void
model_diff_clear_files(struct model *m)
{
	for (size_t i = 0; i < m->diff.n_files; i++)
		free(m->diff.files[i]);
	free(m->diff.files);
	m->diff.files = NULL;
	m->diff.n_files = 0;
}

static void
model_diff_clear_lines(struct model *m)
{
	for (size_t i = 0; i < m->diff.n_lines; i++)
		free(m->diff.lines[i]);
	free(m->diff.lines);
	m->diff.lines = NULL;
	m->diff.n_lines = 0;
}

/* A line for the grid: tabs to spaces (8 columns), then escaped. */
static char *
model_diff_line(const char *s, size_t n)
{
	cleanup_free char *buf = xmalloc(n * 8 + 1);
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\t') {
			do
				buf[o++] = ' ';
			while (o % 8 != 0);
		} else {
			buf[o++] = s[i];
		}
	}
	return escape_mem(buf, o);
}

void
model_diff_set_files(struct model *m, const char *const *files, size_t n)
{
	model_diff_clear_files(m);
	m->diff.files = xcalloc(n + 1, sizeof *m->diff.files);
	for (size_t i = 0; i < n; i++)
		m->diff.files[i] = model_diff_line(files[i], strlen(files[i]));
	m->diff.n_files = n;
	if (m->diff.sel >= n)
		m->diff.sel = n > 0 ? n - 1 : 0;
}

void
model_diff_set_patch(struct model *m, const char *text, size_t len)
{
	const char *s = text, *end = text + len;

	model_diff_clear_lines(m);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		m->diff.lines = xreallocarray(m->diff.lines,
		    m->diff.n_lines + 1, sizeof *m->diff.lines);
		m->diff.lines[m->diff.n_lines++] = model_diff_line(s, n);
		s += n + 1;
	}
	if (m->diff.scroll > 0 && (size_t)m->diff.scroll >= m->diff.n_lines)
		m->diff.scroll = m->diff.n_lines > 0 ?
		    (int)m->diff.n_lines - 1 : 0;
}

void
model_diff_set_note(struct model *m, const char *note)
{
	free(m->diff.note);
	m->diff.note = note != NULL ? escape_str(note) : NULL;
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

/* Replace a list that runs beside the diff's targets, one per target: a
 * list of another length is dropped, left NULL. */
static void
model_diff_set_column(struct model *m, char ***col, const char *const *from,
    size_t n, char *(*copy)(const char *))
{
	size_t k = 0;

	strv_free(*col);
	*col = NULL;
	if (n != m->diff.n_targets)
		return;
	for (size_t i = 0; i < n; i++)
		strv_push(col, &k, copy(from[i]));
}

void
model_diff_set_hashes(struct model *m, const char *const *hashes, size_t n)
{
	model_diff_set_column(m, &m->diff.hashes, hashes, n, xstrdup);
}

void
model_diff_set_held(struct model *m, const char *const *held, size_t n)
{
	model_diff_set_column(m, &m->diff.held, held, n, escape_str);
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

/* p, P, u, U: the files listed, nothing done until an armed y. The list
 * is a copy: a refresh of the pane while it is shown changes nothing of
 * what y will do. */
static void
model_diff_confirm_start(struct model *m, enum action a)
{
	bool all = a == ACTION_DIFF_APPLY_ALL || a == ACTION_DIFF_DISCARD_ALL;
	bool apply = a == ACTION_DIFF_APPLY || a == ACTION_DIFF_APPLY_ALL;
	size_t k = 0, kh = 0;

	if (m->diff.n_targets == 0 || m->diff.n_targets != m->diff.n_files) {
		model_message(m, MSG_INFO, "nothing staged to %s",
		    a == ACTION_DIFF_APPLY || a == ACTION_DIFF_APPLY_ALL ?
		    "apply" : "discard");
		return;
	}
	model_diff_confirm_done(m);
	for (size_t i = 0; i < m->diff.n_targets; i++) {
		if (!all && i != m->diff.sel)
			continue;
		/* An apply of all leaves the held ones out: a file that
		 * runs code on the host later goes only picked alone. */
		if (all && apply && m->diff.held != NULL &&
		    m->diff.held[i][0] != '\0') {
			m->diff.confirm_held++;
			continue;
		}
		strv_push(&m->diff.confirm_targets, &m->diff.n_confirm,
		    xstrdup(m->diff.targets[i]));
		strv_push(&m->diff.confirm_labels, &k,
		    xstrdup(m->diff.labels[i]));
		if (m->diff.hashes != NULL)
			strv_push(&m->diff.confirm_hashes, &kh,
			    xstrdup(m->diff.hashes[i]));
	}
	if (m->diff.n_confirm == 0) {
		model_message(m, MSG_INFO, "nothing to apply with P: %zu held "
		    "file%s (protected, or over max_apply); select one and "
		    "press p", m->diff.confirm_held,
		    m->diff.confirm_held == 1 ? "" : "s");
		model_diff_confirm_done(m);
		return;
	}
	m->diff.confirm = a == ACTION_DIFF_APPLY || a == ACTION_DIFF_APPLY_ALL ?
	    DIFF_OP_APPLY : DIFF_OP_DISCARD;
}

/* A key while the list is asked about: an armed y does it; y too early
 * says so and keeps asking; any other key is a no, and only that. */
static void
model_diff_confirm_key(struct model *m, enum action a,
    struct model_effect *eff)
{
	const char *verb = m->diff.confirm == DIFF_OP_APPLY ? "apply" :
	    "discard";

	if (a != ACTION_YES) {
		model_diff_confirm_done(m);
		model_message(m, MSG_INFO, "%s cancelled", verb);
		return;
	}
	if (!m->diff.confirm_shown ||
	    m->now_mono - m->diff.confirm_shown_at < MODEL_ARM_MS) {
		model_message(m, MSG_WARN, m->diff.confirm_partial ?
		    "%s: the list is not shown whole; a taller terminal, or "
		    "one file at a time" : "%s: read the list first (y works "
		    "after half a second)", verb);
		return;
	}
	eff->kind = EFFECT_DIFF_ACT;
}

static void
model_diff_scroll(struct model *m, int by)
{
	long s = (long)m->diff.scroll + by;
	long max = m->diff.n_lines > 0 ? (long)m->diff.n_lines - 1 : 0;

	m->diff.scroll = (int)(s < 0 ? 0 : s > max ? max : s);
}

/* An action while the diff pane is open; false: not its own. */
static bool
model_diff_action(struct model *m, enum action a, struct model_effect *eff)
{
	bool up = a == ACTION_UP || a == ACTION_PAGE_UP || a == ACTION_TOP;

	switch (a) {
	case ACTION_UP:
	case ACTION_DOWN:
		model_diff_scroll(m, up ? -1 : 1);
		return true;
	case ACTION_PAGE_UP:
	case ACTION_PAGE_DOWN:
		model_diff_scroll(m, up ? -MODEL_DIFF_PAGE : MODEL_DIFF_PAGE);
		return true;
	case ACTION_TOP:
	case ACTION_BOTTOM:
		model_diff_scroll(m, up ? -(1 << 20) : 1 << 20);
		return true;
	case ACTION_DIFF_NEXT:
	case ACTION_DIFF_PREV:
	case ACTION_RUN_NEXT:	/* inside the diff, ] [ change file as */
	case ACTION_RUN_PREV:	/* they did before { } */
		if (m->diff.n_files == 0)
			return true;
		if ((a == ACTION_DIFF_NEXT || a == ACTION_RUN_NEXT) &&
		    m->diff.sel + 1 < m->diff.n_files)
			m->diff.sel++;
		else if ((a == ACTION_DIFF_PREV || a == ACTION_RUN_PREV) &&
		    m->diff.sel > 0)
			m->diff.sel--;
		m->diff.scroll = 0;
		eff->kind = EFFECT_DIFF_LOAD;
		return true;
	case ACTION_DIFF_APPLY:
	case ACTION_DIFF_APPLY_ALL:
	case ACTION_DIFF_DISCARD:
	case ACTION_DIFF_DISCARD_ALL:
		model_diff_confirm_start(m, a);
		return true;
	case ACTION_DIFF:
	case ACTION_CLOSE:
	case ACTION_QUIT:
		m->diff.open = false;
		return true;
	case ACTION_DETAIL:
	case ACTION_NEXT_PANE:
	case ACTION_VIEW:
	case ACTION_ZOOM:
	case ACTION_RUN_PICK:
	case ACTION_RUN_DISMISS:
	case ACTION_RUN_CLEAR:
		return true;
	case ACTION_NONE:
	case ACTION_ALLOW_ONCE:
	case ACTION_DENY_ONCE:
	case ACTION_STAGE_ONCE:
	case ACTION_KILL:
	case ACTION_YES:
	case ACTION_NO:
	case ACTION_HELP:
	case ACTION_REDRAW:
	case ACTION_RESIZE:
	case ACTION_NOT_YET:
	case ACTION_FILTER:
	case ACTION_ALLOW_RUN:
	case ACTION_DENY_RUN:
	case ACTION_DENY_REASON:
	case ACTION_DENY_ALL:
	case ACTION_RULES:
	case ACTION_ALWAYS:
		return false;
	}
	return false;
}

/* ---- the events pane ---- */

#define MODEL_EVENTS_PAGE	10

static size_t
model_event_lines(const struct model *m)
{
	struct events_line *v = NULL;
	size_t n = events_lines(&m->ev, &v);

	free(v);
	return n;
}

/* Tab: pending, output, events (once there are some), pending. */
static void
model_next_pane(struct model *m)
{
	if (m->focus == PANE_PENDING)
		m->focus = PANE_OUTPUT;
	else if (m->focus == PANE_OUTPUT && m->ev.n > 0)
		m->focus = PANE_EVENTS;
	else
		m->focus = PANE_PENDING;
}

/* A move while the events pane has the focus; false: not a move. */
static bool
model_events_action(struct model *m, enum action a)
{
	bool up = a == ACTION_UP || a == ACTION_PAGE_UP || a == ACTION_TOP;
	long by;

	/* Not a switch: the other actions (and those added later) are
	 * not this pane's. */
	if (a == ACTION_UP || a == ACTION_DOWN)
		by = 1;
	else if (a == ACTION_PAGE_UP || a == ACTION_PAGE_DOWN)
		by = MODEL_EVENTS_PAGE;
	else if (a == ACTION_TOP || a == ACTION_BOTTOM)
		by = 1L << 30;
	else
		return false;
	/* Up is older: further from the newest line. */
	events_scroll(&m->ev, up ? by : -by, model_event_lines(m), 1);
	return true;
}

/* What a finished run opened from the record still does: look, move,
 * leave. A list, not a switch: an action added later is refused until
 * it is named here. */
static bool
model_readonly_allows(enum action a)
{
	static const enum action ok[] = {
		ACTION_NONE, ACTION_UP, ACTION_DOWN, ACTION_PAGE_UP,
		ACTION_PAGE_DOWN, ACTION_TOP, ACTION_BOTTOM, ACTION_NEXT_PANE,
		ACTION_DETAIL, ACTION_CLOSE, ACTION_HELP, ACTION_QUIT,
		ACTION_REDRAW, ACTION_RESIZE, ACTION_DIFF, ACTION_DIFF_NEXT,
		ACTION_DIFF_PREV, ACTION_VIEW, ACTION_ZOOM, ACTION_FILTER,
		ACTION_NO,
	};

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		if (ok[i] == a)
			return true;
	}
	return false;
}

/* The answer to "kill run? y/n" or "leave? ... y/n": true when one was
 * asked (this key answered it, and does nothing else). */
static bool
model_confirm_answer(struct model *m, enum action a, struct model_effect *eff)
{
	if (m->confirm_kill) {
		/* Only y kills; any other key is a no, and only that. */
		m->confirm_kill = false;
		if (a == ACTION_YES && !model_run_ended(m) &&
		    !m->disconnected) {
			eff->kind = EFFECT_KILL;
			model_message(m, MSG_WARN, "kill: sent");
		} else {
			model_message(m, MSG_INFO, "kill cancelled");
		}
		return true;
	}
	if (m->confirm_quit) {
		/* Only y leaves; any other key stays, and only that. */
		m->confirm_quit = false;
		if (a == ACTION_YES) {
			m->quit = true;
			eff->kind = EFFECT_QUIT;
		} else {
			model_message(m, MSG_INFO, "staying");
		}
		return true;
	}
	return false;
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

/* The actions that answer, change or kill: a --view console has none. */
static bool
model_answers(enum action a)
{
	static const enum action answer[] = {
		ACTION_ALLOW_ONCE, ACTION_DENY_ONCE, ACTION_STAGE_ONCE,
		ACTION_ALLOW_RUN, ACTION_DENY_RUN, ACTION_DENY_REASON,
		ACTION_DENY_ALL, ACTION_KILL, ACTION_NOT_YET, ACTION_ALWAYS,
		ACTION_DIFF_APPLY, ACTION_DIFF_APPLY_ALL, ACTION_DIFF_DISCARD,
		ACTION_DIFF_DISCARD_ALL,
	};

	for (size_t i = 0; i < ARRAY_SIZE(answer); i++) {
		if (answer[i] == a)
			return true;
	}
	return false;
}

void
model_apply_action(struct model *m, enum action a, struct model_effect *eff)
{
	int page = m->page_rows > 2 ? m->page_rows - 1 : 1;
	int dpage = m->detail_rows > 2 ? m->detail_rows - 1 : 1;
	int far = 1 << 20;
	bool up = a == ACTION_UP || a == ACTION_PAGE_UP || a == ACTION_TOP;

	memset(eff, 0, sizeof *eff);
	eff->kind = EFFECT_NONE;
	if (a == ACTION_RESIZE || a == ACTION_REDRAW)
		return;
	if (model_answer_takes(m, a, eff))
		return;
	if (model_confirm_answer(m, a, eff))
		return;
	if (m->help) {
		m->help = false;	/* any key closes help, and only that */
		return;
	}
	if (a == ACTION_NONE)
		return;
	if (m->diff.confirm != DIFF_OP_NONE) {
		model_diff_confirm_key(m, a, eff);
		return;
	}
	if (!m->disconnected || model_run_ended(m))
		model_message_clear(m);
	if (m->readonly && !model_readonly_allows(a)) {
		model_message(m, MSG_WARN, "read-only: the run has ended, "
		    "nothing can be answered");
		return;
	}
	if (m->diff.open && model_diff_action(m, a, eff))
		return;
	if (m->view_only && model_answers(a)) {
		model_message(m, MSG_WARN, "view only: this console cannot "
		    "answer or kill (attach without --view to answer)");
		return;
	}
	if (m->focus == PANE_EVENTS && !m->detail && !m->help &&
	    model_events_action(m, a))
		return;

	switch (a) {
	case ACTION_UP:
	case ACTION_DOWN:
		if (m->detail)
			model_detail_scroll(m, up ? -1 : 1);
		else if (m->focus == PANE_PENDING && m->n_pending > 0)
			model_select_step(m, up ? -1 : 1);
		else
			model_out_scroll(m, up ? 1 : -1);
		break;
	case ACTION_PAGE_UP:
	case ACTION_PAGE_DOWN:
		if (m->detail)
			model_detail_scroll(m, up ? -dpage : dpage);
		else
			model_out_scroll(m, up ? page : -page);
		break;
	case ACTION_TOP:
	case ACTION_BOTTOM:
		if (m->detail)
			model_detail_scroll(m, up ? -far : far);
		else if (m->focus == PANE_PENDING && m->n_pending > 0)
			model_select_step(m, up ? -far : far);
		else
			m->out.scroll = up ? model_out_max_scroll(m) : 0;
		break;
	case ACTION_NEXT_PANE:
		if (!m->detail && !m->agent) {
			model_next_pane(m);
			/* Keys typed ahead were meant for the other pane. */
			m->alerts.flush = true;
		}
		break;
	case ACTION_DETAIL:
		if (m->detail)
			model_detail_close(m);
		else if (model_pending_find(m, m->sel) != NULL) {
			m->detail = true;
			m->detail_scroll = 0;
		} else
			model_message(m, MSG_INFO, "no request selected");
		break;
	case ACTION_CLOSE:
		if (!m->detail && m->focus == PANE_EVENTS &&
		    m->ev.filter_text != NULL)
			events_set_filter(&m->ev, NULL);
		model_detail_close(m);
		break;
	case ACTION_FILTER:
		if (m->detail)
			break;
		/* The agent pane's layout has no events pane: an editor
		 * nobody sees must not take the keys. */
		if (m->agent) {
			model_message(m, MSG_INFO, "the events pane is in the "
			    "lines view: v, then /");
			break;
		}
		events_edit_open(&m->ev);
		m->focus = PANE_EVENTS;
		break;
	case ACTION_ALLOW_ONCE:
		if (!model_group_ask(m, VERDICT_ALLOW))
			model_allow(m, eff, VERDICT_ALLOW);
		break;
	case ACTION_STAGE_ONCE:
		model_allow(m, eff, VERDICT_STAGE);
		break;
	case ACTION_DENY_ONCE:
		if (!model_group_ask(m, VERDICT_DENY))
			model_deny(m, eff);
		break;
	case ACTION_ALLOW_RUN:
	case ACTION_DENY_RUN:
	case ACTION_DENY_REASON:
	case ACTION_DENY_ALL:
	case ACTION_RULES:
		model_answer_action(m, a, eff);
		break;
	case ACTION_ALWAYS:
		model_always_ask(m, eff);
		break;
	case ACTION_KILL:
		if (model_run_ended(m))
			model_message(m, MSG_INFO, "the run has ended");
		else if (m->disconnected)
			model_message(m, MSG_INFO, "not connected");
		else {
			char q[256];

			m->confirm_kill = true;
			model_kill_question(m, q, sizeof q);
			model_message_plain(m, MSG_WARN, "%s", q);
		}
		break;
	case ACTION_HELP:
		m->help = true;
		break;
	case ACTION_QUIT:
		if (m->detail) {
			model_detail_close(m);
			break;
		}
		/* Leaving is deliberate while requests wait on a person. */
		if ((model_unanswered(m) > 0 && !model_run_ended(m) &&
		    !m->disconnected && !m->view_only) ||
		    m->others_unanswered > 0) {
			m->confirm_quit = true;
			break;
		}
		m->quit = true;
		eff->kind = EFFECT_QUIT;
		break;
	case ACTION_NOT_YET:
		model_message(m, MSG_INFO,
		    "not available yet: a allows once, d denies once");
		break;
	case ACTION_DIFF:
		m->diff.open = true;
		m->detail = false;
		m->diff.scroll = 0;
		eff->kind = EFFECT_DIFF_LOAD;
		break;
	case ACTION_DIFF_NEXT:
	case ACTION_DIFF_PREV:
	case ACTION_DIFF_APPLY:
	case ACTION_DIFF_APPLY_ALL:
	case ACTION_DIFF_DISCARD:
	case ACTION_DIFF_DISCARD_ALL:
		model_message(m, MSG_INFO, "c opens the diff");
		break;
	case ACTION_VIEW:
		model_detail_close(m);
		m->agent = !m->agent;
		m->focus = m->agent ? PANE_AGENT : PANE_PENDING;
		m->alerts.flush = true;
		m->agent_mode = m->agent ? AGENT_ON : AGENT_OFF;
		break;
	case ACTION_ZOOM:
		m->zoom = m->zoom == ZOOM_NONE ? ZOOM_AGENT :
		    m->zoom == ZOOM_AGENT ? ZOOM_REQUESTS : ZOOM_NONE;
		break;
	case ACTION_RUN_PREV:
	case ACTION_RUN_NEXT:
	case ACTION_RUN_PICK:
	case ACTION_RUN_DISMISS:
	case ACTION_RUN_CLEAR:
		/* tui/fleet.c takes these when the console shows every run. */
		model_message(m, MSG_INFO, "one run here; 'ward console' "
		    "shows every run");
		break;
	case ACTION_YES:
	case ACTION_NO:
	case ACTION_NONE:
	case ACTION_REDRAW:
	case ACTION_RESIZE:
		break;
	}
}

void
model_set_agent(struct model *m, enum agent_mode mode, int prefix)
{
	m->agent_mode = mode;
	m->agent = mode == AGENT_ON;
	if (m->agent)
		m->focus = PANE_AGENT;
	if (prefix > 0)
		m->prefix = prefix;
}

/* A key while the program has the focus: the prefix, or the program's. */
static void
model_agent_key(struct model *m, int key, bool *focus_moved)
{
	if (key == m->prefix) {
		m->focus = PANE_PENDING;
		m->prefix_fresh = true;
		m->pasting = false;
		*focus_moved = true;
		return;
	}
	if (key == KEYS_PASTE_START || key == KEYS_PASTE_END) {
		m->pasting = key == KEYS_PASTE_START;
		vt_paste(m->vt, m->pasting);
		return;
	}
	(void)vt_key(m->vt, key);
}

bool
model_wants_mouse(const struct model *m)
{
	return m->agent && m->focus == PANE_AGENT && !m->help &&
	    !m->detail && vt_mouse_mode(m->vt) != 0;
}

bool
model_wants_raw(const struct model *m)
{
	return m->agent && m->focus == PANE_AGENT && !m->view_only &&
	    !m->help && !m->detail;
}

void
model_apply_mouse(struct model *m, int y, int x, int button, bool pressed)
{
	if (!model_wants_mouse(m) || y < m->agent_y || x < m->agent_x ||
	    y >= m->agent_y + m->agent_rows || x >= m->agent_x + m->agent_cols)
		return;
	vt_mouse(m->vt, y - m->agent_y, x - m->agent_x, button, pressed);
}

static void model_apply_key_1(struct model *, int, struct model_effect *,
    bool *);

/* ---- the trailing silence of an approve (MODEL_TRAIL_MS) ---- */

static void
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

/* Does the effect allow something (a request, a group, a rule)? */
static bool
model_effect_allows(const struct model_effect *eff)
{
	switch (eff->kind) {
	case EFFECT_DECIDE_MANY:
		if (eff->n_requests == 0)
			break;
		/* FALLTHROUGH */
	case EFFECT_DECIDE:
		return eff->verdict == VERDICT_ALLOW ||
		    eff->verdict == VERDICT_STAGE;
	case EFFECT_ALWAYS:
		return true;
	case EFFECT_NONE:
	case EFFECT_DIFF_LOAD:
	case EFFECT_DIFF_ACT:
	case EFFECT_RULES:
	case EFFECT_ALWAYS_PLAN:
	case EFFECT_KILL:
	case EFFECT_QUIT:
		break;
	}
	return false;
}

static char *
model_dup_or_null(const char *s)
{
	return s == NULL ? NULL : xstrdup(s);
}

/* An allowing effect becomes a held one: nothing is marked sent until
 * model_tick sends it. */
static void
model_hold_start(struct model *m, struct model_effect *eff, int64_t at)
{
	struct model_hold *h;

	model_hold_clear(m);
	h = &m->hold;
	h->active = true;
	h->due = at + MODEL_TRAIL_MS;
	h->eff = *eff;
	if (eff->kind == EFFECT_DECIDE_MANY) {
		h->ids = xcalloc(eff->n_requests + 1, sizeof *h->ids);
		memcpy(h->ids, eff->requests, eff->n_requests * sizeof *h->ids);
		h->n_ids = eff->n_requests;
	} else {
		h->ids = xcalloc(1, sizeof *h->ids);
		h->ids[0] = eff->request;
		h->n_ids = 1;
	}
	h->eff.requests = h->ids;
	h->eff.rule = h->rule = model_dup_or_null(eff->rule);
	h->eff.file = h->file = model_dup_or_null(eff->file);
	h->eff.comment = h->comment = model_dup_or_null(eff->comment);
	h->eff.entry = h->entry = model_dup_or_null(eff->entry);
	h->sent_msg = model_dup_or_null(m->message);
	for (size_t i = 0; i < h->n_ids; i++) {
		struct pending *p = model_pending_get(m, h->ids[i]);

		if (p != NULL)
			p->sent = VERDICT_NONE;
	}
	memset(eff, 0, sizeof *eff);
	eff->kind = EFFECT_NONE;
	if (h->n_ids == 1)
		model_message(m, MSG_INFO, "allowing #%" PRIu64 "... (any key "
		    "now cancels)", h->ids[0]);
	else
		model_message(m, MSG_INFO, "allowing %zu requests... (any key "
		    "now cancels)", h->n_ids);
}

static void
model_hold_drop(struct model *m)
{
	if (!m->hold.active)
		return;
	if (m->hold.n_ids == 1)
		model_message(m, MSG_WARN, "ignored: keys were still arriving: "
		    "#%" PRIu64 " not allowed", m->hold.ids[0]);
	else
		model_message(m, MSG_WARN, "ignored: keys were still arriving: "
		    "nothing allowed");
	m->hold.active = false;
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

int64_t
model_due(const struct model *m)
{
	return m->hold.active ? m->hold.due : 0;
}

bool
model_tick(struct model *m, struct model_effect *eff)
{
	struct model_hold *h = &m->hold;
	enum verdict v = h->eff.kind == EFFECT_ALWAYS ? VERDICT_ALLOW :
	    h->eff.verdict;
	size_t k = 0;

	memset(eff, 0, sizeof *eff);
	eff->kind = EFFECT_NONE;
	if (!h->active || m->now_mono < h->due)
		return false;
	h->active = false;
	/* Answered elsewhere or ended while it waited: not again. */
	for (size_t i = 0; i < h->n_ids; i++) {
		struct pending *p = model_pending_get(m, h->ids[i]);

		if (p != NULL && p->sent == VERDICT_NONE)
			h->ids[k++] = h->ids[i];
	}
	if (k == 0) {
		model_message(m, MSG_INFO, "nothing sent: the request ended "
		    "before the allow went");
		return false;
	}
	for (size_t i = 0; i < k; i++)
		model_pending_get(m, h->ids[i])->sent = v;
	h->n_ids = k;
	*eff = h->eff;
	eff->n_requests = h->eff.kind == EFFECT_DECIDE_MANY ? k : 0;
	if (h->sent_msg != NULL)
		model_message(m, MSG_INFO, "%s", h->sent_msg);
	else
		model_message_clear(m);
	return true;
}

void
model_note_key(struct model *m, int key, int64_t at)
{
	if (key == KEYS_RESIZE)
		return;
	model_hold_drop(m);
	if (key == KEYS_PASTE_START || key == KEYS_PASTE_END || m->pasting)
		return;
	m->last_key_ms = at;
	m->keyed = true;
}

void
model_apply_key(struct model *m, int key, struct model_effect *eff,
    bool *focus_moved)
{
	model_apply_key_at(m, key, m->now_mono, false, eff, focus_moved);
}

/* Every key press counts for the quiet period, the program's too: a
 * person typing fast into the agent is not reading a request. A paste
 * is text, not presses (none of it answers anything), but it drops a
 * held approve as every key does. */
void
model_apply_key_at(struct model *m, int key, int64_t at, bool burst,
    struct model_effect *eff, bool *focus_moved)
{
	bool paste = m->pasting || key == KEYS_PASTE_START ||
	    key == KEYS_PASTE_END;
	bool dropped = m->hold.active && key != KEYS_RESIZE;
	uint64_t dropped_id = m->hold.n_ids == 1 ? m->hold.ids[0] : 0;

	m->hold.active = m->hold.active && !dropped;
	m->key_applying = true;
	m->key_at = at;
	m->key_burst = burst;
	model_apply_key_1(m, key, eff, focus_moved);
	m->key_applying = false;
	if (key != KEYS_RESIZE && !paste) {
		m->last_key_ms = at;
		m->keyed = true;
	}
	if (model_effect_allows(eff)) {
		model_hold_start(m, eff, at);
		/* Keys that came together were not typed one by one. */
		if (burst)
			model_hold_drop(m);
	}
	if (dropped && !m->hold.active) {
		if (dropped_id != 0)
			model_message(m, MSG_WARN, "ignored: keys were still "
			    "arriving: #%" PRIu64 " not allowed", dropped_id);
		else
			model_message(m, MSG_WARN, "ignored: keys were still "
			    "arriving: nothing allowed");
	}
}

static void
model_apply_key_1(struct model *m, int key, struct model_effect *eff,
    bool *focus_moved)
{
	bool fresh = m->prefix_fresh;

	memset(eff, 0, sizeof *eff);
	eff->kind = EFFECT_NONE;
	*focus_moved = false;
	m->prefix_fresh = false;
	if (key == KEYS_RESIZE) {
		model_apply_action(m, ACTION_RESIZE, eff);
		return;
	}
	/* Ctrl-C asked "leave?" while the program had the keys: the
	 * answer is the console's, never the program's. */
	if (m->confirm_quit) {
		model_apply_action(m, keys_action(key), eff);
		return;
	}
	/* Once the program is gone, the keys are the console's again. */
	if (m->agent && m->focus == PANE_AGENT &&
	    (model_run_ended(m) || m->disconnected))
		m->focus = PANE_PENDING;
	if (m->agent && m->focus == PANE_AGENT && !m->view_only) {
		model_agent_key(m, key, focus_moved);
		return;
	}
	/* The filter's editor takes every key while it is open: what is
	 * typed there is text, never an answer. */
	if (m->ev.editing) {
		if (key != KEYS_PASTE_START && key != KEYS_PASTE_END)
			(void)events_edit_key(&m->ev, key);
		return;
	}
	/* A paste is text for the program: none of it is a console key
	 * (a pasted "a" must never approve). */
	if (key == KEYS_PASTE_START || key == KEYS_PASTE_END) {
		m->pasting = key == KEYS_PASTE_START;
		return;
	}
	if (m->pasting)
		return;
	if (m->answer.ask == ASK_REASON || m->answer.ask == ASK_GONE) {
		model_reason_key(m, key, eff);
		return;
	}
	if (m->agent && !m->help && !m->confirm_kill && !m->confirm_quit &&
	    !m->detail &&
	    (key == m->prefix || key == KEYS_ESC)) {
		/* The prefix twice: the program gets the prefix's byte. */
		if (key == m->prefix && fresh)
			(void)vt_key(m->vt, key);
		m->focus = PANE_AGENT;
		return;
	}
	model_apply_action(m, keys_action(key), eff);
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
