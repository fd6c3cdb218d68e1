/* SPDX-License-Identifier: MIT */
#include "approvals/msg.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "approvals/proto.h"
#include "config/util.h"

static const char *const msg_type_names[] = {
	[MSG_TYPE_HELLO] = "hello",
	[MSG_TYPE_DECIDE] = "decide",
	[MSG_TYPE_KILL] = "kill",
	[MSG_TYPE_WELCOME] = "welcome",
	[MSG_TYPE_ACK] = "ack",
	[MSG_TYPE_REQUEST] = "request",
	[MSG_TYPE_RESOLVED] = "resolved",
	[MSG_TYPE_EVENT] = "event",
	[MSG_TYPE_OUTPUT] = "output",
	[MSG_TYPE_STATE] = "state",
	[MSG_TYPE_ERROR] = "error",
	[MSG_TYPE_INPUT] = "input",
	[MSG_TYPE_RESIZE] = "resize",
	[MSG_TYPE_RELAY_RUNS] = "relay_runs",
	[MSG_TYPE_RELAY_TO] = "relay_to",
	[MSG_TYPE_RELAY_FROM] = "relay_from",
	[MSG_TYPE_RELAY_CLOSED] = "relay_closed",
	[MSG_TYPE_RELAY_EVENTS] = "relay_events",
	[MSG_TYPE_RULES] = "rules",
	[MSG_TYPE_REVOKE] = "revoke",
	[MSG_TYPE_RULE_LIST] = "rule_list",
};

static const char *const msg_run_state_names[] = {
	[RUN_STARTING] = "starting",
	[RUN_RUNNING] = "running",
	[RUN_EXITED] = "exited",
};

const char *
msg_type_name(enum msg_type t)
{
	if ((size_t)t >= ARRAY_SIZE(msg_type_names))
		return NULL;
	return msg_type_names[t];
}

enum msg_type
msg_type(const json_t *msg)
{
	const char *s = json_string_value(json_object_get(msg, "type"));

	if (s == NULL)
		return MSG_TYPE_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(msg_type_names); i++)
		if (msg_type_names[i] != NULL &&
		    strcmp(msg_type_names[i], s) == 0)
			return (enum msg_type)i;
	return MSG_TYPE_OTHER;
}

const char *
msg_run_state_name(enum msg_run_state st)
{
	if ((size_t)st >= ARRAY_SIZE(msg_run_state_names))
		return "?";
	return msg_run_state_names[st];
}

int
msg_run_state_parse(const char *s, enum msg_run_state *ret)
{
	for (size_t i = 0; s != NULL && i < ARRAY_SIZE(msg_run_state_names);
	    i++)
		if (strcmp(msg_run_state_names[i], s) == 0) {
			*ret = (enum msg_run_state)i;
			return 0;
		}
	return -EINVAL;
}

/* ---- helpers ---- */

static json_t *
msg_new(enum msg_type t)
{
	return proto_msg(msg_type_name(t));
}

static void
msg_set(json_t *o, const char *key, json_t *v)
{
	if (v == NULL || json_object_set_new(o, key, v) < 0)
		fatal("out of memory");
}

static int
msg_bad(char **cause, const char *where, const char *key, const char *what)
{
	set_cause(cause, "%s: \"%s\": %s", where, key, what);
	return -EBADMSG;
}

/* An object whose "type" is t; -EBADMSG / -EPROTO otherwise. */
static int
msg_expect(const json_t *msg, enum msg_type t, char **cause)
{
	const char *name = msg_type_name(t);

	if (!json_is_object(msg)) {
		set_cause(cause, "%s: not a JSON object", name);
		return -EBADMSG;
	}
	if (msg_type(msg) != t) {
		const char *got = json_string_value(json_object_get(msg,
		    "type"));

		set_cause(cause, "%s: got a \"%s\" message", name,
		    got != NULL ? got : "(untyped)");
		return -EPROTO;
	}
	return 0;
}

/* A string member: 0 and *ret, 0 and *ret NULL when absent (!required)
 * or null (nullable), -EBADMSG otherwise. */
static int
msg_get_str(const json_t *o, const char *where, const char *key,
    bool required, bool nullable, const char **ret, char **cause)
{
	const json_t *v = json_object_get(o, key);

	*ret = NULL;
	if (v == NULL)
		return required ? msg_bad(cause, where, key, "missing") : 0;
	if (json_is_null(v) && nullable)
		return 0;
	if (!json_is_string(v))
		return msg_bad(cause, where, key, nullable ?
		    "not a string or null" : "not a string");
	*ret = json_string_value(v);
	return 0;
}

/* A request id (an integer from 1): 0 and *ret; 0 and *ret 0 when absent
 * and !required. */
static int
msg_get_id(const json_t *o, const char *where, const char *key,
    bool required, uint64_t *ret, char **cause)
{
	const json_t *v = json_object_get(o, key);

	*ret = 0;
	if (v == NULL)
		return required ? msg_bad(cause, where, key, "missing") : 0;
	if (!json_is_integer(v))
		return msg_bad(cause, where, key, "not an integer");
	if (json_integer_value(v) < 1)
		return msg_bad(cause, where, key, "not a request id");
	*ret = (uint64_t)json_integer_value(v);
	return 0;
}

static int
msg_get_bool(const json_t *o, const char *where, const char *key,
    bool required, bool *ret, char **cause)
{
	const json_t *v = json_object_get(o, key);

	if (v == NULL)
		return required ? msg_bad(cause, where, key, "missing") : 0;
	if (!json_is_boolean(v))
		return msg_bad(cause, where, key, "not a boolean");
	*ret = json_is_true(v);
	return 0;
}

static int
msg_get_verdict(const json_t *o, const char *where, enum verdict *ret,
    char **cause)
{
	const char *s;
	int e;

	if ((e = msg_get_str(o, where, "verdict", true, false, &s, cause)) < 0)
		return e;
	if (verdict_parse(s, ret) < 0) {
		set_cause(cause, "%s: \"verdict\": unknown verdict \"%s\"",
		    where, s);
		return -EBADMSG;
	}
	return 0;
}

/* ---- RUN ---- */

json_t *
msg_run_json(const struct msg_run *ri)
{
	json_t *o = json_object();

	if (o == NULL)
		fatal("out of memory");
	msg_set(o, "id", request_json_string(ri->id ? ri->id : ""));
	msg_set(o, "name", request_json_string(ri->name));
	msg_set(o, "command", request_json_string(ri->command ?
	    ri->command : ""));
	msg_set(o, "state", json_string(msg_run_state_name(ri->state)));
	msg_set(o, "pid", json_integer(ri->pid));
	msg_set(o, "started_ms", json_integer(ri->started_ms));
	msg_set(o, "ended_ms", json_integer(ri->ended_ms));
	msg_set(o, "exit_code", json_integer(ri->exit_code));
	msg_set(o, "exit_signal", json_integer(ri->exit_signal));
	msg_set(o, "end_reason", request_json_string(ri->end_reason));
	msg_set(o, "limits", request_json_string(ri->limits ?
	    ri->limits : ""));
	msg_set(o, "policy", request_json_string(ri->policy ?
	    ri->policy : ""));
	msg_set(o, "headless", json_boolean(ri->headless));
	msg_set(o, "ask_timeout", json_integer(ri->ask_timeout));
	/* Only when some console watches: older receivers and the exact
	 * messages of a run nobody watches stay as they were. */
	if (ri->watchers > 0)
		msg_set(o, "watchers", json_integer(ri->watchers));
	return o;
}

/* "limits" as an object of them: "k=v k=v" in the order sent. */
static char *
msg_limits_text(const json_t *v)
{
	const char *key;
	json_t *val;
	char *out = xstrdup("");

	json_object_foreach((json_t *)v, key, val) {
		cleanup_free char *s = NULL;
		char *next;

		if (json_is_string(val))
			s = xstrdup(json_string_value(val));
		else if (json_is_integer(val))
			s = xasprintf("%" JSON_INTEGER_FORMAT,
			    json_integer_value(val));
		else if (json_is_boolean(val))
			s = xstrdup(json_is_true(val) ? "yes" : "no");
		else
			continue;	/* a kind of limit this ward cannot show */
		next = xasprintf("%s%s%s=%s", out, *out ? " " : "", key, s);
		free(out);
		out = next;
	}
	return out;
}

/* A string member of RUN that may be null (as "" when empty_null). */
static int
msg_run_str(const json_t *run, const char *key, unsigned bit,
    bool empty_null, struct msg_run *ri, const char **field, char **cause)
{
	const json_t *v = json_object_get(run, key);
	int e;

	if (v == NULL)
		return 0;
	if ((e = msg_get_str(run, "run", key, false, true, field,
	    cause)) < 0)
		return e;
	if (*field == NULL && empty_null)
		*field = "";
	ri->have |= bit;
	return 0;
}

/* An integer member of RUN; null counts as absent unless null_is. */
static int
msg_run_int(const json_t *run, const char *key, unsigned bit,
    json_int_t min, json_int_t max, const json_int_t *null_is,
    json_int_t *ret, struct msg_run *ri, char **cause)
{
	const json_t *v = json_object_get(run, key);

	if (v == NULL)
		return 0;
	if (json_is_null(v)) {
		if (null_is != NULL) {
			*ret = *null_is;
			ri->have |= bit;
		}
		return 0;
	}
	if (!json_is_integer(v))
		return msg_bad(cause, "run", key, "not an integer or null");
	if (json_integer_value(v) < min || json_integer_value(v) > max)
		return msg_bad(cause, "run", key, "out of range");
	*ret = json_integer_value(v);
	ri->have |= bit;
	return 0;
}

static int
msg_run_strings(const json_t *run, struct msg_run *ri, char **cause)
{
	const json_t *v;
	int e;

	if ((e = msg_run_str(run, "id", MSG_RUN_ID, true, ri, &ri->id,
	    cause)) < 0 ||
	    (e = msg_run_str(run, "name", MSG_RUN_NAME, false, ri, &ri->name,
	    cause)) < 0 ||
	    (e = msg_run_str(run, "command", MSG_RUN_COMMAND, true, ri,
	    &ri->command, cause)) < 0 ||
	    (e = msg_run_str(run, "end_reason", MSG_RUN_END_REASON, false, ri,
	    &ri->end_reason, cause)) < 0 ||
	    (e = msg_run_str(run, "policy", MSG_RUN_POLICY, false, ri,
	    &ri->policy, cause)) < 0)
		return e;
	if ((v = json_object_get(run, "limits")) != NULL) {
		if (json_is_object(v)) {
			ri->limits_text = msg_limits_text(v);
			ri->limits = ri->limits_text;
			ri->have |= MSG_RUN_LIMITS;
		} else if ((e = msg_run_str(run, "limits", MSG_RUN_LIMITS,
		    true, ri, &ri->limits, cause)) < 0)
			return e;
	}
	if ((v = json_object_get(run, "state")) != NULL && !json_is_null(v)) {
		if (!json_is_string(v))
			return msg_bad(cause, "run", "state", "not a string");
		if (msg_run_state_parse(json_string_value(v), &ri->state) < 0) {
			set_cause(cause, "run: \"state\": unknown state \"%s\"",
			    json_string_value(v));
			return -EBADMSG;
		}
		ri->have |= MSG_RUN_STATE;
	}
	return 0;
}

int
msg_run_parse(const json_t *run, struct msg_run *ri, char **cause)
{
	static const json_int_t no_code = -1, no_signal = 0;
	json_int_t pid = 0, started = 0, ended = 0, code = -1, sig = 0;
	json_int_t ask = 0, watchers = 0;
	const json_t *v;
	int e;

	memset(ri, 0, sizeof *ri);
	ri->state = RUN_UNKNOWN;
	ri->exit_code = -1;
	if (!json_is_object(run)) {
		set_cause(cause, "run: not a JSON object");
		return -EBADMSG;
	}
	if ((e = msg_run_strings(run, ri, cause)) < 0 ||
	    (e = msg_run_int(run, "pid", MSG_RUN_PID, INT_MIN, INT_MAX, NULL, &pid,
	    ri, cause)) < 0 ||
	    (e = msg_run_int(run, "started_ms", MSG_RUN_STARTED, 0,
	    INT64_MAX, NULL, &started, ri, cause)) < 0 ||
	    (e = msg_run_int(run, "ended_ms", MSG_RUN_ENDED, 0, INT64_MAX,
	    NULL, &ended, ri, cause)) < 0 ||
	    (e = msg_run_int(run, "exit_code", MSG_RUN_EXIT_CODE, INT_MIN,
	    INT_MAX, &no_code, &code, ri, cause)) < 0 ||
	    (e = msg_run_int(run, "exit_signal", MSG_RUN_EXIT_SIGNAL, INT_MIN,
	    INT_MAX, &no_signal, &sig, ri, cause)) < 0 ||
	    (e = msg_run_int(run, "ask_timeout", MSG_RUN_ASK_TIMEOUT, 0,
	    UINT_MAX, NULL, &ask, ri, cause)) < 0 ||
	    (e = msg_run_int(run, "watchers", MSG_RUN_WATCHERS, 0,
	    UINT_MAX, NULL, &watchers, ri, cause)) < 0)
		goto fail;
	if ((v = json_object_get(run, "headless")) != NULL) {
		if (!json_is_boolean(v) && !json_is_null(v)) {
			e = msg_bad(cause, "run", "headless", "not a boolean");
			goto fail;
		}
		ri->headless = json_is_true(v);
		ri->have |= MSG_RUN_HEADLESS;
	}
	ri->pid = (pid_t)pid;
	ri->started_ms = started;
	ri->ended_ms = ended;
	ri->exit_code = (int)code;
	ri->exit_signal = (int)sig;
	ri->ask_timeout = (unsigned)ask;
	ri->watchers = (unsigned)watchers;
	return 0;
fail:
	msg_run_done(ri);
	return e;
}

void
msg_run_done(struct msg_run *ri)
{
	free(ri->limits_text);
	ri->limits_text = NULL;
}

/* ---- client -> supervisor ---- */

json_t *
msg_hello(const char *client, bool watch)
{
	json_t *m = msg_new(MSG_TYPE_HELLO);

	msg_set(m, "version", json_integer(PROTO_VERSION));
	msg_set(m, "client", json_string(client));
	msg_set(m, "watch", json_boolean(watch));
	return m;
}

int
msg_hello_parse(const json_t *msg, struct msg_hello *h, char **cause)
{
	const json_t *v;
	int e;

	memset(h, 0, sizeof *h);
	if ((e = msg_expect(msg, MSG_TYPE_HELLO, cause)) < 0)
		return e;
	if ((v = json_object_get(msg, "role")) != NULL) {
		/* Fail closed: a role this supervisor does not know is read
		 * as view, and the hello is still reported bad. */
		if (!json_is_string(v) || (strcmp(json_string_value(v),
		    "view") != 0 && strcmp(json_string_value(v), "answer") != 0)) {
			h->view = true;
			return msg_bad(cause, "hello", "role",
			    "not \"view\" or \"answer\"");
		}
		h->view = strcmp(json_string_value(v), "view") == 0;
	}
	if ((v = json_object_get(msg, "version")) != NULL) {
		if (!json_is_integer(v))
			return msg_bad(cause, "hello", "version",
			    "not an integer");
		h->version = json_integer_value(v);
	}
	if ((e = msg_get_str(msg, "hello", "client", false, false, &h->client,
	    cause)) < 0 ||
	    (e = msg_get_bool(msg, "hello", "watch", false, &h->watch,
	    cause)) < 0 ||
	    (e = msg_get_str(msg, "hello", "origin", false, false, &h->origin,
	    cause)) < 0)
		return e;
	return 0;
}

void
msg_hello_set_origin(json_t *m, const char *origin)
{
	if (msg_type(m) == MSG_TYPE_HELLO)
		msg_set(m, "origin", json_string(origin));
}

json_t *
msg_hello_view(const char *client, bool watch)
{
	json_t *m = msg_hello(client, watch);

	msg_set(m, "role", json_string("view"));
	return m;
}

json_t *
msg_decide(uint64_t request, enum verdict v, enum scope sc, const char *reason)
{
	return msg_decide_rule(request, v, sc, reason, NULL);
}

json_t *
msg_decide_rule(uint64_t request, enum verdict v, enum scope sc,
    const char *reason, const char *rule)
{
	json_t *m = msg_new(MSG_TYPE_DECIDE);

	msg_set(m, "request", json_integer((json_int_t)request));
	msg_set(m, "verdict", json_string(verdict_name(v)));
	msg_set(m, "scope", json_string(scope_name(sc)));
	if (reason != NULL)
		msg_set(m, "reason", request_json_string(reason));
	if (rule != NULL)
		msg_set(m, "rule", request_json_string(rule));
	return m;
}

json_t *
msg_decide_always(uint64_t request, enum verdict v, enum scope sc,
    const char *rule, const char *file, unsigned line)
{
	json_t *m = msg_decide_rule(request, v, sc, NULL, rule);

	if (file != NULL)
		msg_set(m, "always", json_pack("{s:o,s:I}", "file",
		    request_json_string(file), "line", (json_int_t)line));
	return m;
}

/* decide's "always": {"file": non-empty string, "line": 1..}. */
static int
msg_decide_always_parse(const json_t *msg, struct msg_decide *d,
    char **cause)
{
	const json_t *a = json_object_get(msg, "always"), *l;
	int e;

	if (a == NULL || json_is_null(a))
		return 0;
	if (!json_is_object(a))
		return msg_bad(cause, "decide", "always", "not an object");
	if ((e = msg_get_str(a, "decide: \"always\"", "file", true, false,
	    &d->always_file, cause)) < 0)
		return e;
	if (*d->always_file == '\0')
		return msg_bad(cause, "decide: \"always\"", "file", "empty");
	l = json_object_get(a, "line");
	if (!json_is_integer(l) || json_integer_value(l) < 1 ||
	    json_integer_value(l) > 0x7fffffff) {
		d->always_file = NULL;
		return msg_bad(cause, "decide: \"always\"", "line",
		    "not a line number");
	}
	d->always_line = (unsigned)json_integer_value(l);
	return 0;
}

int
msg_decide_parse(const json_t *msg, struct msg_decide *d, char **cause)
{
	const char *scope;
	int e;

	memset(d, 0, sizeof *d);
	d->scope = SCOPE_ONCE;
	if ((e = msg_expect(msg, MSG_TYPE_DECIDE, cause)) < 0 ||
	    (e = msg_get_id(msg, "decide", "request", true, &d->request,
	    cause)) < 0 ||
	    (e = msg_get_verdict(msg, "decide", &d->verdict, cause)) < 0)
		return e;
	if (d->verdict != VERDICT_ALLOW && d->verdict != VERDICT_DENY &&
	    d->verdict != VERDICT_STAGE) {
		set_cause(cause, "decide: \"verdict\": unknown verdict \"%s\"",
		    verdict_name(d->verdict));
		return -EBADMSG;
	}
	if ((e = msg_get_str(msg, "decide", "scope", false, false, &scope,
	    cause)) < 0)
		return e;
	if (scope != NULL && scope_parse(scope, &d->scope) < 0) {
		set_cause(cause, "decide: \"scope\": unknown scope \"%s\"",
		    scope);
		return -EBADMSG;
	}
	if ((e = msg_get_str(msg, "decide", "reason", false, true, &d->reason,
	    cause)) < 0)
		return e;
	if ((e = msg_get_str(msg, "decide", "rule", false, true, &d->rule,
	    cause)) < 0)
		return e;
	return msg_decide_always_parse(msg, d, cause);
}

json_t *
msg_kill(void)
{
	return msg_new(MSG_TYPE_KILL);
}

int
msg_kill_parse(const json_t *msg, char **cause)
{
	return msg_expect(msg, MSG_TYPE_KILL, cause);
}

json_t *
msg_rules(void)
{
	return msg_new(MSG_TYPE_RULES);
}

int
msg_rules_parse(const json_t *msg, char **cause)
{
	return msg_expect(msg, MSG_TYPE_RULES, cause);
}

json_t *
msg_revoke(uint64_t n)
{
	json_t *m = msg_new(MSG_TYPE_REVOKE);

	msg_set(m, "rule", json_integer((json_int_t)n));
	return m;
}

int
msg_revoke_parse(const json_t *msg, uint64_t *n, char **cause)
{
	int e;

	*n = 0;
	if ((e = msg_expect(msg, MSG_TYPE_REVOKE, cause)) < 0)
		return e;
	return msg_get_id(msg, "revoke", "rule", true, n, cause);
}

json_t *
msg_rule_list(const struct msg_rule *v, size_t n)
{
	json_t *m = msg_new(MSG_TYPE_RULE_LIST), *a = json_array();

	if (a == NULL)
		fatal("out of memory");
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();

		if (o == NULL)
			fatal("out of memory");
		msg_set(o, "n", json_integer((json_int_t)v[i].n));
		msg_set(o, "kind", json_string(request_kind_name(v[i].kind)));
		msg_set(o, "verdict", json_string(verdict_name(v[i].verdict)));
		msg_set(o, "pattern", request_json_string(v[i].pattern));
		if (json_array_append_new(a, o) < 0)
			fatal("out of memory");
	}
	msg_set(m, "rules", a);
	return m;
}

static int
msg_rule_parse(const json_t *o, struct msg_rule *r, char **cause)
{
	const char *kind;
	int e;

	if (!json_is_object(o))
		return msg_bad(cause, "rule_list", "rules", "not a list of "
		    "objects");
	if ((e = msg_get_id(o, "rule_list", "n", true, &r->n, cause)) < 0 ||
	    (e = msg_get_str(o, "rule_list", "kind", true, false, &kind,
	    cause)) < 0 ||
	    (e = msg_get_verdict(o, "rule_list", &r->verdict, cause)) < 0 ||
	    (e = msg_get_str(o, "rule_list", "pattern", true, false,
	    &r->pattern, cause)) < 0)
		return e;
	if (request_kind_parse(kind, &r->kind) < 0)
		return msg_bad(cause, "rule_list", "kind", "unknown kind");
	return 0;
}

int
msg_rule_list_parse(const json_t *msg, struct msg_rule_list *l, char **cause)
{
	const json_t *a, *item;
	size_t i;
	int e;

	memset(l, 0, sizeof *l);
	if ((e = msg_expect(msg, MSG_TYPE_RULE_LIST, cause)) < 0)
		return e;
	a = json_object_get(msg, "rules");
	if (!json_is_array(a))
		return msg_bad(cause, "rule_list", "rules", "not a list");
	l->rules = xcalloc(json_array_size(a) + 1, sizeof *l->rules);
	json_array_foreach(a, i, item) {
		if ((e = msg_rule_parse(item, &l->rules[i], cause)) < 0) {
			msg_rule_list_done(l);
			return e;
		}
		l->n_rules = i + 1;
	}
	return 0;
}

void
msg_rule_list_done(struct msg_rule_list *l)
{
	free(l->rules);
	l->rules = NULL;
	l->n_rules = 0;
}

json_t *
msg_input(const void *buf, size_t n)
{
	json_t *m = msg_new(MSG_TYPE_INPUT);
	cleanup_free char *b64 = proto_b64_encode(buf, n);

	msg_set(m, "data", json_string(b64));
	return m;
}

int
msg_input_parse(const json_t *msg, struct msg_input *in, char **cause)
{
	const char *data;
	int e;

	memset(in, 0, sizeof *in);
	if ((e = msg_expect(msg, MSG_TYPE_INPUT, cause)) < 0 ||
	    (e = msg_get_str(msg, "input", "data", true, false, &data,
	    cause)) < 0)
		return e;
	/* Checked before decoding: base64 is 4 bytes for 3. */
	if (strlen(data) > (MSG_INPUT_MAX + 2) / 3 * 4)
		return msg_bad(cause, "input", "data", "too long");
	if (proto_b64_decode(data, &in->data, &in->len) < 0)
		return msg_bad(cause, "input", "data", "not base64");
	if (in->len > MSG_INPUT_MAX) {
		msg_input_done(in);
		return msg_bad(cause, "input", "data", "too long");
	}
	return 0;
}

void
msg_input_done(struct msg_input *in)
{
	free(in->data);
	in->data = NULL;
	in->len = 0;
}

json_t *
msg_resize(int rows, int cols)
{
	json_t *m = msg_new(MSG_TYPE_RESIZE);

	msg_set(m, "rows", json_integer(rows));
	msg_set(m, "cols", json_integer(cols));
	return m;
}

static int
msg_get_winsize(const json_t *o, const char *key, int *ret, char **cause)
{
	const json_t *v = json_object_get(o, key);

	if (v == NULL)
		return msg_bad(cause, "resize", key, "missing");
	if (!json_is_integer(v))
		return msg_bad(cause, "resize", key, "not an integer");
	if (json_integer_value(v) < 1 ||
	    json_integer_value(v) > MSG_WINSIZE_MAX)
		return msg_bad(cause, "resize", key, "out of range");
	*ret = (int)json_integer_value(v);
	return 0;
}

int
msg_resize_parse(const json_t *msg, int *rows, int *cols, char **cause)
{
	int e;

	*rows = *cols = 0;
	if ((e = msg_expect(msg, MSG_TYPE_RESIZE, cause)) < 0 ||
	    (e = msg_get_winsize(msg, "rows", rows, cause)) < 0)
		return e;
	return msg_get_winsize(msg, "cols", cols, cause);
}

/* ---- supervisor -> client ---- */

json_t *
msg_welcome_part(const struct msg_run *ri, const struct queue *q,
    size_t *n_inline)
{
	json_t *m = msg_new(MSG_TYPE_WELCOME), *pending = json_array();
	size_t n = q != NULL ? queue_len(q) : 0, used = 0, k = 0;

	if (pending == NULL)
		fatal("out of memory");
	/* Inline while they fit the budget; the rest follow as "request"
	 * messages, so that no queue (long paths of control characters
	 * come out six times longer in JSON) makes a frame too big. */
	for (; k < n; k++) {
		json_t *j = request_to_json(queue_at(q, k));
		size_t len = json_dumpb(j, NULL, 0, JSON_COMPACT);

		if (used + len > MSG_WELCOME_INLINE) {
			json_decref(j);
			break;
		}
		used += len;
		if (json_array_append_new(pending, j) < 0)
			fatal("out of memory");
	}
	msg_set(m, "version", json_integer(PROTO_VERSION));
	msg_set(m, "run", msg_run_json(ri));
	msg_set(m, "pending", pending);
	if (k < n)
		msg_set(m, "pending_count", json_integer((json_int_t)n));
	if (n_inline != NULL)
		*n_inline = k;
	return m;
}

json_t *
msg_welcome(const struct msg_run *ri, const struct queue *q)
{
	return msg_welcome_part(ri, q, NULL);
}

int
msg_welcome_parse(const json_t *msg, struct msg_welcome *w, char **cause)
{
	const json_t *v, *pending, *count;
	size_t i;
	json_t *item;
	int e;

	memset(w, 0, sizeof *w);
	w->run.state = RUN_UNKNOWN;
	if ((e = msg_expect(msg, MSG_TYPE_WELCOME, cause)) < 0)
		return e;
	if ((v = json_object_get(msg, "version")) != NULL) {
		if (!json_is_integer(v))
			return msg_bad(cause, "welcome", "version",
			    "not an integer");
		w->version = json_integer_value(v);
	}
	pending = json_object_get(msg, "pending");
	if (pending != NULL && !json_is_null(pending) &&
	    !json_is_array(pending))
		return msg_bad(cause, "welcome", "pending", "not a list");
	count = json_object_get(msg, "pending_count");
	if (count != NULL && (!json_is_integer(count) ||
	    json_integer_value(count) < (json_int_t)json_array_size(pending) ||
	    json_integer_value(count) > MSG_PENDING_MAX))
		return msg_bad(cause, "welcome", "pending_count",
		    "not a count of at least the inline ones");
	if ((e = msg_run_parse(json_object_get(msg, "run"), &w->run,
	    cause)) < 0)
		return e;
	w->pending = xcalloc(json_array_size(pending) + 1, sizeof *w->pending);
	json_array_foreach(pending, i, item) {
		if (request_from_json(item, &w->pending[i], cause) < 0) {
			msg_welcome_done(w);
			return -EBADMSG;
		}
		w->n_pending++;
	}
	if (count != NULL)
		w->n_follow = (size_t)json_integer_value(count) - w->n_pending;
	return 0;
}

int
msg_welcome_add(struct msg_welcome *w, struct request *r)
{
	if (w->n_follow == 0) {
		request_free(r);
		return -ERANGE;
	}
	w->pending = xrealloc(w->pending, (w->n_pending + 2) *
	    sizeof *w->pending);
	w->pending[w->n_pending++] = r;
	w->pending[w->n_pending] = NULL;
	w->n_follow--;
	return 0;
}

void
msg_welcome_done(struct msg_welcome *w)
{
	for (size_t i = 0; i < w->n_pending; i++)
		request_free(w->pending[i]);
	free(w->pending);
	w->pending = NULL;
	w->n_pending = w->n_follow = 0;
	msg_run_done(&w->run);
}

json_t *
msg_ack(uint64_t request, bool ok, const char *error)
{
	json_t *m = msg_new(MSG_TYPE_ACK);

	if (request != 0)
		msg_set(m, "request", json_integer((json_int_t)request));
	msg_set(m, "ok", json_boolean(ok));
	if (error != NULL)
		msg_set(m, "error", request_json_string(error));
	return m;
}

int
msg_ack_parse(const json_t *msg, struct msg_ack *a, char **cause)
{
	int e;

	memset(a, 0, sizeof *a);
	if ((e = msg_expect(msg, MSG_TYPE_ACK, cause)) < 0 ||
	    (e = msg_get_id(msg, "ack", "request", false, &a->request,
	    cause)) < 0 ||
	    (e = msg_get_bool(msg, "ack", "ok", true, &a->ok, cause)) < 0)
		return e;
	return msg_get_str(msg, "ack", "error", false, true, &a->error, cause);
}

json_t *
msg_request(const struct request *r)
{
	json_t *m = msg_new(MSG_TYPE_REQUEST);

	msg_set(m, "request", request_to_json(r));
	return m;
}

int
msg_request_parse(const json_t *msg, struct request **ret, char **cause)
{
	int e;

	*ret = NULL;
	if ((e = msg_expect(msg, MSG_TYPE_REQUEST, cause)) < 0)
		return e;
	if (request_from_json(json_object_get(msg, "request"), ret,
	    cause) < 0)
		return -EBADMSG;
	return 0;
}

json_t *
msg_resolved(uint64_t request, enum verdict v, enum how how, const char *by)
{
	json_t *m = msg_new(MSG_TYPE_RESOLVED);

	msg_set(m, "request", json_integer((json_int_t)request));
	msg_set(m, "verdict", json_string(verdict_name(v)));
	msg_set(m, "how", json_string(how_name(how)));
	if (by != NULL)
		msg_set(m, "by", request_json_string(by));
	return m;
}

static int
msg_get_how(const json_t *o, const char *where, enum how *ret, char **cause)
{
	const char *s;
	int e;

	if ((e = msg_get_str(o, where, "how", true, false, &s, cause)) < 0)
		return e;
	if (how_parse(s, ret) < 0) {
		set_cause(cause, "%s: \"how\": unknown how \"%s\"", where, s);
		return -EBADMSG;
	}
	return 0;
}

int
msg_resolved_parse(const json_t *msg, struct msg_resolved *rs, char **cause)
{
	int e;

	memset(rs, 0, sizeof *rs);
	if ((e = msg_expect(msg, MSG_TYPE_RESOLVED, cause)) < 0 ||
	    (e = msg_get_id(msg, "resolved", "request", true, &rs->request,
	    cause)) < 0 ||
	    (e = msg_get_verdict(msg, "resolved", &rs->verdict, cause)) < 0 ||
	    (e = msg_get_how(msg, "resolved", &rs->how, cause)) < 0)
		return e;
	return msg_get_str(msg, "resolved", "by", false, true, &rs->by, cause);
}

json_t *
msg_event(const struct audit_event *ev)
{
	json_t *m = msg_new(MSG_TYPE_EVENT), *e = json_object();

	if (e == NULL)
		fatal("out of memory");
	msg_set(e, "kind", json_string(request_kind_name(ev->kind)));
	msg_set(e, "syscall", request_json_string(ev->syscall));
	msg_set(e, "subject", request_json_string(ev->subject ?
	    ev->subject : ""));
	msg_set(e, "subject2", request_json_string(ev->subject2));
	msg_set(e, "detail", request_json_string(ev->detail));
	msg_set(e, "verdict", json_string(verdict_name(ev->verdict)));
	msg_set(e, "how", json_string(how_name(ev->how)));
	msg_set(e, "rule", request_json_string(ev->rule));
	msg_set(e, "by", request_json_string(ev->decided_by));
	msg_set(e, "pid", json_integer(ev->pid));
	msg_set(e, "time_ms", json_integer(ev->time_ms));
	msg_set(e, "request", json_integer((json_int_t)ev->request_id));
	msg_set(m, "event", e);
	return m;
}

static int
msg_event_ints(const json_t *e, struct audit_event *ev, char **cause)
{
	static const struct {
		const char *key;
		json_int_t min, max;
	} ints[] = {
		{ "pid", INT_MIN, INT_MAX },
		{ "time_ms", 0, INT64_MAX },
		{ "request", 0, INT64_MAX },
	};
	json_int_t val[ARRAY_SIZE(ints)] = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
		const json_t *v = json_object_get(e, ints[i].key);

		if (v == NULL)
			continue;
		if (!json_is_integer(v))
			return msg_bad(cause, "event", ints[i].key,
			    "not an integer");
		val[i] = json_integer_value(v);
		if (val[i] < ints[i].min || val[i] > ints[i].max)
			return msg_bad(cause, "event", ints[i].key,
			    "out of range");
	}
	ev->pid = (pid_t)val[0];
	ev->time_ms = val[1];
	ev->request_id = (uint64_t)val[2];
	return 0;
}

int
msg_event_parse(const json_t *msg, struct audit_event *ev, char **cause)
{
	const json_t *e = json_object_get(msg, "event");
	const char *kind;
	int r;

	memset(ev, 0, sizeof *ev);
	if ((r = msg_expect(msg, MSG_TYPE_EVENT, cause)) < 0)
		return r;
	if (!json_is_object(e))
		return msg_bad(cause, "event", "event", "not an object");
	if ((r = msg_get_str(e, "event", "kind", true, false, &kind,
	    cause)) < 0)
		return r;
	if (request_kind_parse(kind, &ev->kind) < 0) {
		set_cause(cause, "event: \"kind\": unknown kind \"%s\"", kind);
		return -EBADMSG;
	}
	if ((r = msg_get_str(e, "event", "syscall", false, true, &ev->syscall,
	    cause)) < 0 ||
	    (r = msg_get_str(e, "event", "subject", false, true, &ev->subject,
	    cause)) < 0 ||
	    (r = msg_get_str(e, "event", "subject2", false, true,
	    &ev->subject2, cause)) < 0 ||
	    (r = msg_get_str(e, "event", "detail", false, true, &ev->detail,
	    cause)) < 0 ||
	    (r = msg_get_verdict(e, "event", &ev->verdict, cause)) < 0 ||
	    (r = msg_get_how(e, "event", &ev->how, cause)) < 0 ||
	    (r = msg_get_str(e, "event", "rule", false, true, &ev->rule,
	    cause)) < 0 ||
	    (r = msg_get_str(e, "event", "by", false, true, &ev->decided_by,
	    cause)) < 0 ||
	    (r = msg_event_ints(e, ev, cause)) < 0)
		return r;
	if (ev->subject == NULL)
		ev->subject = "";
	return 0;
}

json_t *
msg_output(enum audit_stream stream, const void *buf, size_t n)
{
	json_t *m = msg_new(MSG_TYPE_OUTPUT);
	cleanup_free char *b64 = proto_b64_encode(buf, n);

	msg_set(m, "stream", json_string(audit_stream_name(stream)));
	msg_set(m, "data", json_string(b64));
	return m;
}

int
msg_output_parse(const json_t *msg, struct msg_output *o, char **cause)
{
	const char *stream, *data;
	int e;

	memset(o, 0, sizeof *o);
	if ((e = msg_expect(msg, MSG_TYPE_OUTPUT, cause)) < 0 ||
	    (e = msg_get_str(msg, "output", "stream", true, false, &stream,
	    cause)) < 0 ||
	    (e = msg_get_str(msg, "output", "data", true, false, &data,
	    cause)) < 0)
		return e;
	if (audit_stream_parse(stream, &o->stream) < 0) {
		set_cause(cause, "output: \"stream\": unknown stream \"%s\"",
		    stream);
		return -EBADMSG;
	}
	if (proto_b64_decode(data, &o->data, &o->len) < 0)
		return msg_bad(cause, "output", "data", "not base64");
	return 0;
}

void
msg_output_done(struct msg_output *o)
{
	free(o->data);
	o->data = NULL;
	o->len = 0;
}

json_t *
msg_state(const struct msg_run *ri)
{
	json_t *m = msg_new(MSG_TYPE_STATE);

	msg_set(m, "run", msg_run_json(ri));
	return m;
}

int
msg_state_parse(const json_t *msg, struct msg_run *ri, char **cause)
{
	int e;

	memset(ri, 0, sizeof *ri);
	ri->state = RUN_UNKNOWN;
	if ((e = msg_expect(msg, MSG_TYPE_STATE, cause)) < 0)
		return e;
	return msg_run_parse(json_object_get(msg, "run"), ri, cause);
}

json_t *
msg_error(const char *text)
{
	json_t *m = msg_new(MSG_TYPE_ERROR);

	msg_set(m, "error", request_json_string(text ? text : ""));
	return m;
}

int
msg_error_parse(const json_t *msg, const char **text, char **cause)
{
	int e;

	*text = NULL;
	if ((e = msg_expect(msg, MSG_TYPE_ERROR, cause)) < 0)
		return e;
	return msg_get_str(msg, "error", "error", false, true, text, cause);
}

/* ------------------------------------------------------------------ */
/* ward relay's envelopes */

json_t *
msg_relay_runs(char *const *ids, size_t n)
{
	json_t *m = msg_new(MSG_TYPE_RELAY_RUNS);
	json_t *a;

	if (ids == NULL)
		return m;
	a = json_array();
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(a, json_string(ids[i])) < 0)
			fatal("out of memory");
	msg_set(m, "runs", a);
	return m;
}

int
msg_relay_runs_parse(const json_t *msg, char ***ids, size_t *n,
    char **cause)
{
	const json_t *a, *v;
	size_t i;
	int e;

	*ids = NULL;
	*n = 0;
	if ((e = msg_expect(msg, MSG_TYPE_RELAY_RUNS, cause)) < 0)
		return e;
	if ((a = json_object_get(msg, "runs")) == NULL)
		return 0;
	if (!json_is_array(a))
		return msg_bad(cause, "relay_runs", "runs", "not an array");
	*ids = xcalloc(1, sizeof **ids);
	json_array_foreach(a, i, v) {
		if (!json_is_string(v)) {
			strv_free(*ids);
			*ids = NULL;
			*n = 0;
			return msg_bad(cause, "relay_runs", "runs",
			    "not an array of strings");
		}
		strv_push(ids, n, xstrdup(json_string_value(v)));
	}
	return 0;
}

static json_t *
msg_relay_env(enum msg_type t, const char *run, json_t *inner)
{
	json_t *m = msg_new(t);

	msg_set(m, "run", json_string(run));
	msg_set(m, "msg", json_incref(inner));
	return m;
}

json_t *
msg_relay_to(const char *run, json_t *inner)
{
	return msg_relay_env(MSG_TYPE_RELAY_TO, run, inner);
}

json_t *
msg_relay_from(const char *run, json_t *inner)
{
	return msg_relay_env(MSG_TYPE_RELAY_FROM, run, inner);
}

json_t *
msg_relay_closed(const char *run, const char *error)
{
	json_t *m = msg_new(MSG_TYPE_RELAY_CLOSED);

	msg_set(m, "run", json_string(run));
	msg_set(m, "error", error != NULL ? json_string(error) : json_null());
	return m;
}

int
msg_relay_parse(const json_t *msg, const char **run, json_t **inner,
    const char **error, char **cause)
{
	enum msg_type t = msg_type(msg);
	const char *where = msg_type_name(t);
	json_t *v;
	int e;

	*inner = NULL;
	*error = NULL;
	if (t != MSG_TYPE_RELAY_TO && t != MSG_TYPE_RELAY_FROM &&
	    t != MSG_TYPE_RELAY_CLOSED) {
		set_cause(cause, "relay: not an envelope");
		return -EBADMSG;
	}
	if ((e = msg_get_str(msg, where, "run", true, false, run, cause)) < 0)
		return e;
	if (t == MSG_TYPE_RELAY_CLOSED)
		return msg_get_str(msg, where, "error", false, true, error,
		    cause);
	v = json_object_get(msg, "msg");
	if (!json_is_object(v) || !json_is_string(json_object_get(v, "type")))
		return msg_bad(cause, where, "msg", "not a message");
	*inner = v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* ward events --host: relay_events */

json_t *
msg_relay_events(const char *run, int64_t since_ms, bool json, bool follow)
{
	json_t *m = msg_new(MSG_TYPE_RELAY_EVENTS);

	msg_set(m, "run", run != NULL ? json_string(run) : json_null());
	msg_set(m, "since_ms", json_integer(since_ms));
	msg_set(m, "json", json_boolean(json));
	msg_set(m, "follow", json_boolean(follow));
	return m;
}

/* A boolean member: absent is false. */
static int
msg_get_flag(const json_t *o, const char *where, const char *key, bool *ret,
    char **cause)
{
	const json_t *v = json_object_get(o, key);

	*ret = false;
	if (v == NULL)
		return 0;
	if (!json_is_boolean(v))
		return msg_bad(cause, where, key, "not a boolean");
	*ret = json_is_true(v);
	return 0;
}

int
msg_relay_events_ask_parse(const json_t *msg, const char **run,
    int64_t *since_ms, bool *json, bool *follow, char **cause)
{
	const json_t *v;
	int e;

	*run = NULL;
	*since_ms = 0;
	*json = *follow = false;
	if ((e = msg_expect(msg, MSG_TYPE_RELAY_EVENTS, cause)) < 0)
		return e;
	if (json_object_get(msg, "lines") != NULL)
		return msg_bad(cause, "relay_events", "lines", "an answer, "
		    "not an ask");
	if ((e = msg_get_str(msg, "relay_events", "run", false, true, run,
	    cause)) < 0)
		return e;
	if ((v = json_object_get(msg, "since_ms")) != NULL) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return msg_bad(cause, "relay_events", "since_ms",
			    "not an integer from 0");
		*since_ms = json_integer_value(v);
	}
	if ((e = msg_get_flag(msg, "relay_events", "json", json,
	    cause)) < 0)
		return e;
	return msg_get_flag(msg, "relay_events", "follow", follow, cause);
}

json_t *
msg_relay_events_lines(json_t *lines, bool end, const char *error)
{
	json_t *m = msg_new(MSG_TYPE_RELAY_EVENTS);

	msg_set(m, "lines", lines != NULL ? lines : json_array());
	msg_set(m, "end", json_boolean(end));
	msg_set(m, "error", error != NULL ? json_string(error) : json_null());
	return m;
}

int
msg_relay_events_parse(const json_t *msg, json_t **lines, bool *end,
    const char **error, char **cause)
{
	json_t *a, *v;
	size_t i;
	int e;

	*lines = NULL;
	*end = false;
	*error = NULL;
	if ((e = msg_expect(msg, MSG_TYPE_RELAY_EVENTS, cause)) < 0)
		return e;
	a = json_object_get(msg, "lines");
	if (a == NULL)
		return msg_bad(cause, "relay_events", "lines", "missing");
	if (!json_is_array(a))
		return msg_bad(cause, "relay_events", "lines",
		    "not an array");
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return msg_bad(cause, "relay_events", "lines",
			    "not an array of strings");
	}
	v = json_object_get(msg, "end");
	if (!json_is_boolean(v))
		return msg_bad(cause, "relay_events", "end", v == NULL ?
		    "missing" : "not a boolean");
	*end = json_is_true(v);
	if ((e = msg_get_str(msg, "relay_events", "error", false, true,
	    error, cause)) < 0)
		return e;
	*lines = a;
	return 0;
}
