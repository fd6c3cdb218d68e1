/* SPDX-License-Identifier: MIT */
#include "tui/model.h"
#include "tui/model-int.h"

#include <errno.h>
#include <inttypes.h>

#include "approvals/msg.h"
#include "approvals/proto.h"
#include "config/escape.h"
#include "config/util.h"
#include "tui/vt.h"

/*
 * The supervisor's messages applied to the model (model_apply_message):
 * a run's state, its requests and how they ended, events, output, acks.
 */

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
model_on_run(struct model *m, const struct msg_run *ri)
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
	struct msg_run ri;
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
