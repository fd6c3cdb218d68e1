#include "tui/model.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "approvals/proto.h"
#include "config/escape.h"
#include "config/util.h"
#include "tui/view-report.h"

struct model *
model_new(void)
{
	struct model *m = xcalloc(1, sizeof *m);

	m->run.id = xstrdup("");
	m->run.name = xstrdup("");
	m->run.command = xstrdup("");
	m->run.limits = xstrdup("");
	m->run.exit_code = -1;
	m->focus = PANE_PENDING;
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
	free(p->cwd);
	free(p->why);
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
	free(m->run.end_reason);
	output_done(&m->out);
	for (size_t i = 0; i < m->n_pending; i++)
		model_pending_free(m->pending[i]);
	free(m->pending);
	for (size_t i = 0; i < m->event_count; i++)
		free(m->events[(m->event_first + i) % MODEL_EVENTS].text);
	free(m->message);
	free(m);
}

void
model_set_now(struct model *m, int64_t mono_ms, int64_t wall_ms)
{
	m->now_mono = mono_ms;
	m->now_wall = wall_ms;
}

void
model_message(struct model *m, enum msg_level level, const char *fmt, ...)
{
	va_list ap;

	free(m->message);
	va_start(ap, fmt);
	m->message = xvasprintf(fmt, ap);
	va_end(ap);
	m->message_level = level;
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

bool
model_armed(const struct model *m, uint64_t id)
{
	const struct pending *p = model_pending_find(m, id);

	return p != NULL && p->shown &&
	    m->now_mono - p->shown_at_ms >= MODEL_ARM_MS;
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

char *
model_leave_text(const struct model *m)
{
	const char *run = m->run.id;
	char state[64];

	if (m->run.state == RUN_UNKNOWN)
		return m->disconnected ? xstrdup("ward: supervisor gone") :
		    NULL;
	if (model_run_ended(m)) {
		model_state_text(m, state, sizeof state);
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
	return m->disconnected ? 1 : 0;
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

/* ---- JSON helpers ---- */

/* Member key of o escaped, or NULL when absent or not a string. */
static char *
model_json_escaped(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		return NULL;
	return escape_mem(json_string_value(v), json_string_length(v));
}

static void
model_json_set(const json_t *o, const char *key, char **field)
{
	char *s = model_json_escaped(o, key);

	if (s == NULL && json_is_null(json_object_get(o, key)))
		s = xstrdup("");
	if (s != NULL) {
		free(*field);
		*field = s;
	}
}

static bool
model_json_int(const json_t *o, const char *key, int64_t *ret)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		return false;
	*ret = json_integer_value(v);
	return true;
}

/* "limits" is a string ("timeout=600s memory=2G") or an object of them. */
static char *
model_limits_text(const json_t *v)
{
	const char *key;
	json_t *val;
	char *out = xstrdup("");

	if (json_is_string(v)) {
		free(out);
		return escape_mem(json_string_value(v), json_string_length(v));
	}
	if (!json_is_object(v))
		return out;
	json_object_foreach((json_t *)v, key, val) {
		cleanup_free char *k = escape_str(key);
		cleanup_free char *s = NULL;
		char *next;

		if (json_is_string(val))
			s = escape_mem(json_string_value(val),
			    json_string_length(val));
		else if (json_is_integer(val))
			s = xasprintf("%" JSON_INTEGER_FORMAT,
			    json_integer_value(val));
		else if (json_is_true(val))
			s = xstrdup("yes");
		else if (json_is_false(val))
			s = xstrdup("no");
		else
			continue;
		next = xasprintf("%s%s%s=%s", out, *out ? " " : "", k, s);
		free(out);
		out = next;
	}
	return out;
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
	struct pending *p;
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
	p->cwd = escape_str(r->cwd);
	p->why = escape_str(r->why);
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
	if (m->sel == 0)
		m->sel = p->id;

	/* Keys typed before it appeared were meant for something else. */
	m->alerts.bell = true;
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

static void
model_pending_clear(struct model *m)
{
	for (size_t i = 0; i < m->n_pending; i++)
		model_pending_free(m->pending[i]);
	m->n_pending = 0;
	m->sel = 0;
	model_detail_close(m);
}

/* ---- messages ---- */

static int
model_on_run(struct model *m, const json_t *run)
{
	const json_t *v;
	int64_t n;
	bool was_ended = model_run_ended(m);

	if (!json_is_object(run)) {
		model_message(m, MSG_ERROR, "protocol: run is not an object");
		return -EINVAL;
	}
	model_json_set(run, "id", &m->run.id);
	model_json_set(run, "name", &m->run.name);
	model_json_set(run, "command", &m->run.command);
	if ((v = json_object_get(run, "limits")) != NULL) {
		free(m->run.limits);
		m->run.limits = model_limits_text(v);
	}
	if ((v = json_object_get(run, "end_reason")) != NULL) {
		free(m->run.end_reason);
		m->run.end_reason = json_is_string(v) ?
		    escape_str(json_string_value(v)) : NULL;
	}
	if ((v = json_object_get(run, "state")) != NULL) {
		const char *s = json_is_string(v) ? json_string_value(v) : "";

		if (strcmp(s, "starting") == 0)
			m->run.state = RUN_STARTING;
		else if (strcmp(s, "running") == 0)
			m->run.state = RUN_RUNNING;
		else if (strcmp(s, "exited") == 0)
			m->run.state = RUN_EXITED;
	}
	if (model_json_int(run, "pid", &n))
		m->run.pid = (pid_t)n;
	if (model_json_int(run, "exit_code", &n))
		m->run.exit_code = (int)n;
	else if (json_is_null(json_object_get(run, "exit_code")))
		m->run.exit_code = -1;
	if (model_json_int(run, "exit_signal", &n))
		m->run.exit_signal = (int)n;
	else if (json_is_null(json_object_get(run, "exit_signal")))
		m->run.exit_signal = 0;
	if (model_json_int(run, "started_ms", &n))
		m->run.started_ms = n;
	if (model_json_int(run, "ended_ms", &n))
		m->run.ended_ms = n;
	if (model_json_int(run, "ask_timeout", &n) && n >= 0)
		m->run.ask_timeout = (unsigned)n;
	if ((v = json_object_get(run, "headless")) != NULL)
		m->run.headless = json_is_true(v);

	if (model_run_ended(m) && !was_ended) {
		/* Nothing is left to answer. */
		model_pending_clear(m);
		m->confirm_kill = false;
	}
	return 0;
}

static int
model_on_request(struct model *m, const json_t *o)
{
	struct request *r = NULL;
	cleanup_free char *cause = NULL;
	int e;

	if ((e = request_from_json(o, &r, &cause)) < 0) {
		cleanup_free char *esc = escape_str(cause);

		model_message(m, MSG_ERROR, "protocol: %s", esc);
		return e;
	}
	model_pending_add(m, r);
	request_free(r);
	return 0;
}

static int
model_on_welcome(struct model *m, const json_t *msg)
{
	const json_t *pending = json_object_get(msg, "pending");
	int64_t version = 0;
	size_t i;
	json_t *r;
	int e;

	if (model_json_int(msg, "version", &version) &&
	    version != PROTO_VERSION)
		model_message(m, MSG_WARN, "supervisor speaks protocol %" PRId64
		    ", this console %d", version, PROTO_VERSION);
	if ((e = model_on_run(m, json_object_get(msg, "run"))) < 0)
		return e;
	m->welcomed = true;
	if (pending != NULL && !json_is_array(pending)) {
		model_message(m, MSG_ERROR, "protocol: pending is not a list");
		return -EINVAL;
	}
	model_pending_clear(m);
	json_array_foreach(pending, i, r) {
		if ((e = model_on_request(m, r)) < 0)
			return e;
	}
	if (m->n_pending > 0)
		m->sel = m->pending[0]->id;
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
	int64_t id;
	const struct pending *p;
	cleanup_free char *label = NULL;
	cleanup_free char *verdict = model_json_escaped(msg, "verdict");
	cleanup_free char *how = model_json_escaped(msg, "how");
	cleanup_free char *by = model_json_escaped(msg, "by");
	enum verdict v = VERDICT_NONE;
	bool mine, was_reading;
	char *text;

	if (!model_json_int(msg, "request", &id) || id <= 0) {
		model_message(m, MSG_ERROR,
		    "protocol: resolved without request");
		return -EINVAL;
	}
	if (verdict == NULL)
		verdict = xstrdup("?");
	if (verdict_parse(verdict, &v) < 0)
		v = VERDICT_NONE;
	p = model_pending_find(m, (uint64_t)id);
	label = model_pending_label(p, (uint64_t)id);
	mine = p != NULL && p->sent != VERDICT_NONE;
	was_reading = m->detail && m->sel == (uint64_t)id;
	if (by != NULL && *by != '\0')
		text = xasprintf("%s: %s (%s, %s)", label, verdict,
		    how != NULL ? how : "?", by);
	else
		text = xasprintf("%s: %s (%s)", label, verdict,
		    how != NULL ? how : "?");
	if ((was_reading || m->sel == (uint64_t)id) && !mine)
		model_message(m, MSG_WARN, "%s", text);
	model_event_push(m, text, v);
	model_pending_remove(m, (uint64_t)id);
	return 0;
}

static int
model_on_event(struct model *m, const json_t *msg)
{
	const json_t *e = json_object_get(msg, "event");
	cleanup_free char *kind = NULL, *subject = NULL, *subject2 = NULL;
	cleanup_free char *verdict = NULL, *how = NULL, *rule = NULL;
	enum verdict v = VERDICT_NONE;
	char *text;

	if (!json_is_object(e)) {
		model_message(m, MSG_ERROR, "protocol: event is not an object");
		return -EINVAL;
	}
	kind = model_json_escaped(e, "kind");
	subject = model_json_escaped(e, "subject");
	subject2 = model_json_escaped(e, "subject2");
	verdict = model_json_escaped(e, "verdict");
	how = model_json_escaped(e, "how");
	rule = model_json_escaped(e, "rule");
	if (verdict != NULL && verdict_parse(verdict, &v) < 0)
		v = VERDICT_NONE;
	if (kind != NULL && (strcmp(kind, "run") == 0 ||
	    strcmp(kind, "exec") == 0)) {
		/* What ran, and the run's own life: facts, not decisions. */
		cleanup_free char *detail = model_json_escaped(e, "detail");

		text = xasprintf("%s %s%s%s", kind, subject ? subject : "",
		    detail && *detail ? ": " : "", detail ? detail : "");
		model_event_push(m, text, VERDICT_NONE);
		return 0;
	}
	text = xasprintf("%s %s%s%s: %s (%s%s%s)", kind ? kind : "?",
	    subject ? subject : "", subject2 && *subject2 ? " -> " : "",
	    subject2 && *subject2 ? subject2 : "", verdict ? verdict : "?",
	    how ? how : "?", rule && *rule ? ": " : "",
	    rule && *rule ? rule : "");
	model_event_push(m, text, v);
	return 0;
}

static int
model_on_output(struct model *m, const json_t *msg)
{
	const char *stream = json_string_value(json_object_get(msg, "stream"));
	const char *data = json_string_value(json_object_get(msg, "data"));
	cleanup_free void *buf = NULL;
	enum output_stream s;
	size_t len;

	if (stream == NULL || data == NULL) {
		model_message(m, MSG_ERROR,
		    "protocol: output without stream or data");
		return -EINVAL;
	}
	if (strcmp(stream, "stderr") == 0)
		s = STREAM_STDERR;
	else if (strcmp(stream, "stdout") == 0)
		s = STREAM_STDOUT;
	else
		s = STREAM_PTY;
	if (proto_b64_decode(data, &buf, &len) < 0) {
		model_message(m, MSG_ERROR, "protocol: output is not base64");
		return -EINVAL;
	}
	output_feed(&m->out, s, buf, len);
	return 0;
}

static int
model_on_ack(struct model *m, const json_t *msg)
{
	const json_t *ok = json_object_get(msg, "ok");
	cleanup_free char *error = model_json_escaped(msg, "error");
	int64_t id = 0;

	if (json_is_true(ok))
		return 0;
	if (model_json_int(msg, "request", &id) && id > 0) {
		struct pending *p = model_pending_get(m, (uint64_t)id);

		if (p != NULL)
			p->sent = VERDICT_NONE;
		model_message(m, MSG_ERROR, "#%" PRId64 ": %s", id,
		    error != NULL ? error : "refused");
	} else {
		model_message(m, MSG_ERROR, "refused: %s",
		    error != NULL ? error : "no reason given");
	}
	return 0;
}

int
model_apply_message(struct model *m, const json_t *msg)
{
	const char *type = json_string_value(json_object_get(msg, "type"));

	if (type == NULL) {
		model_message(m, MSG_ERROR, "protocol: message without type");
		return -EINVAL;
	}
	if (strcmp(type, "welcome") == 0)
		return model_on_welcome(m, msg);
	if (strcmp(type, "request") == 0)
		return model_on_request(m, json_object_get(msg, "request"));
	if (strcmp(type, "resolved") == 0)
		return model_on_resolved(m, msg);
	if (strcmp(type, "event") == 0)
		return model_on_event(m, msg);
	if (strcmp(type, "output") == 0)
		return model_on_output(m, msg);
	if (strcmp(type, "state") == 0)
		return model_on_run(m, json_object_get(msg, "run"));
	if (strcmp(type, "ack") == 0)
		return model_on_ack(m, msg);
	if (strcmp(type, "error") == 0) {
		cleanup_free char *error = model_json_escaped(msg, "error");

		model_message(m, MSG_ERROR, "supervisor: %s",
		    error != NULL ? error : "error");
		return 0;
	}
	return 0;
}

void
model_set_disconnected(struct model *m, const char *why)
{
	cleanup_free char *esc = escape_str(why);

	m->disconnected = true;
	m->confirm_kill = false;
	/* Nobody can answer them now; the sandbox dies with its supervisor. */
	model_pending_clear(m);
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

static void
model_select_step(struct model *m, int by)
{
	ssize_t i = model_pending_index(m, m->sel);

	if (m->n_pending == 0)
		return;
	if (i < 0)
		i = 0;
	else
		i += by;
	if (i < 0)
		i = 0;
	if ((size_t)i >= m->n_pending)
		i = (ssize_t)m->n_pending - 1;
	m->sel = m->pending[i]->id;
}

static void
model_allow(struct model *m, struct model_effect *eff)
{
	struct pending *p = model_pending_get(m, m->sel);

	if (p == NULL) {
		model_message(m, MSG_INFO, "no request selected");
		return;
	}
	if (p->sent != VERDICT_NONE) {
		model_message(m, MSG_INFO, "#%" PRIu64 ": answer already sent",
		    p->id);
		return;
	}
	if (!model_armed(m, p->id)) {
		if (p->partial && !p->shown)
			model_message(m, MSG_WARN, "wait: #%" PRIu64 " is not "
			    "shown whole yet; Enter shows all of it", p->id);
		else
			model_message(m, MSG_WARN,
			    "wait: request just appeared");
		return;
	}
	p->sent = VERDICT_ALLOW;
	eff->kind = EFFECT_DECIDE;
	eff->request = p->id;
	eff->verdict = VERDICT_ALLOW;
	model_message(m, MSG_INFO, "allow #%" PRIu64 " once: sent", p->id);
}

static void
model_deny(struct model *m, struct model_effect *eff)
{
	struct pending *p = model_pending_get(m, m->sel);

	if (p == NULL) {
		model_message(m, MSG_INFO, "no request selected");
		return;
	}
	if (p->sent != VERDICT_NONE) {
		model_message(m, MSG_INFO, "#%" PRIu64 ": answer already sent",
		    p->id);
		return;
	}
	p->sent = VERDICT_DENY;
	eff->kind = EFFECT_DECIDE;
	eff->request = p->id;
	eff->verdict = VERDICT_DENY;
	model_message(m, MSG_INFO, "deny #%" PRIu64 " once: sent", p->id);
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
		return;
	}
	if (m->help) {
		m->help = false;	/* any key closes help, and only that */
		return;
	}
	if (a == ACTION_NONE)
		return;
	if (!m->disconnected || model_run_ended(m))
		model_message_clear(m);

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
		if (!m->detail)
			m->focus = m->focus == PANE_OUTPUT ? PANE_PENDING :
			    PANE_OUTPUT;
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
		model_detail_close(m);
		break;
	case ACTION_ALLOW_ONCE:
		model_allow(m, eff);
		break;
	case ACTION_DENY_ONCE:
		model_deny(m, eff);
		break;
	case ACTION_KILL:
		if (model_run_ended(m))
			model_message(m, MSG_INFO, "the run has ended");
		else if (m->disconnected)
			model_message(m, MSG_INFO, "not connected");
		else {
			m->confirm_kill = true;
			model_message(m, MSG_WARN, "kill run? y/n");
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
		m->quit = true;
		eff->kind = EFFECT_QUIT;
		break;
	case ACTION_NOT_YET:
		model_message(m, MSG_INFO,
		    "not available yet: a allows once, d denies once");
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
model_note_view(struct model *m, const struct view_report *rep)
{
	for (size_t i = 0; i < m->n_pending; i++) {
		struct pending *p = m->pending[i];
		const struct view_seen *seen = NULL;

		for (size_t j = 0; j < rep->n_seen; j++) {
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
	m->page_rows = rep->page_rows;
	m->detail_rows = rep->detail_rows;
	m->detail_lines = rep->detail_lines;
	if (m->detail)
		model_detail_scroll(m, 0);
}

void
model_take_alerts(struct model *m, struct model_alerts *ret)
{
	*ret = m->alerts;
	memset(&m->alerts, 0, sizeof m->alerts);
}
