/* SPDX-License-Identifier: MIT */
#include "review/logjson.h"

#include "approvals/request.h"
#include "config/escape.h"
#include "config/util.h"

json_t *
logjson_str(const char *s)
{
	json_t *j;

	if (s == NULL)
		return json_null();
	if ((j = json_string(s)) == NULL) {
		cleanup_free char *e = escape_str(s);

		j = json_string(e);
	}
	if (j == NULL)
		fatal("out of memory");
	return j;
}

static void
logjson_set(json_t *o, const char *key, json_t *v)
{
	if (v == NULL || json_object_set_new(o, key, v) < 0)
		fatal("out of memory");
}

json_t *
logjson_event(const struct audit_event_row *row, const char *time)
{
	const struct audit_event *ev = &row->ev;
	const char *state = audit_state_name(row->state);
	json_t *o = json_object();

	if (o == NULL)
		fatal("out of memory");
	logjson_set(o, "seq", json_integer(row->seq));
	logjson_set(o, "run", logjson_str(ev->run));
	if (time != NULL)
		logjson_set(o, "time", json_string(time));
	logjson_set(o, "time_ms", json_integer(ev->time_ms));
	logjson_set(o, "pid", json_integer(ev->pid));
	logjson_set(o, "kind", logjson_str(request_kind_name(ev->kind)));
	logjson_set(o, "syscall", logjson_str(ev->syscall));
	logjson_set(o, "subject", logjson_str(ev->subject));
	logjson_set(o, "subject2", logjson_str(ev->subject2));
	logjson_set(o, "detail", logjson_str(ev->detail));
	logjson_set(o, "verdict", logjson_str(verdict_name(ev->verdict)));
	logjson_set(o, "how", logjson_str(how_name(ev->how)));
	logjson_set(o, "rule", logjson_str(ev->rule));
	logjson_set(o, "decided_by", logjson_str(ev->decided_by));
	logjson_set(o, "wait_ms", json_integer(ev->wait_ms));
	logjson_set(o, "request_id", json_integer((json_int_t)ev->request_id));
	logjson_set(o, "state", logjson_str(state));
	return o;
}
