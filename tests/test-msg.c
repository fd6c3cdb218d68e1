/* SPDX-License-Identifier: MIT */
/*
 * approvals/msg.c: every control-protocol message built, sent through the
 * wire form, parsed back and compared; each builder's exact JSON (the keys
 * PROTOCOL.md documents, in the order the supervisor has always sent
 * them); and malformed messages refused with a cause.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/msg.h"
#include "approvals/proto.h"
#include "config/util.h"

/* Through the wire: a frame (or, for RUN, which is no message, its JSON
 * text), its body parsed back as the peer would. */
static json_t *
wire(json_t *m)
{
	cleanup_free char *buf = NULL;
	json_error_t err;
	json_t *back;
	size_t len;

	if (msg_type(m) == MSG_TYPE_NONE) {
		buf = json_dumps(m, JSON_COMPACT);
		assert_non_null(buf);
		back = json_loads(buf, 0, &err);
		if (back == NULL)
			fail_msg("does not parse: %s", err.text);
		json_decref(m);
		return back;
	}
	assert_int_equal(proto_frame(m, &buf, &len), 0);
	assert_true(len > 4);
	back = json_loadb(buf + 4, len - 4, 0, &err);
	if (back == NULL)
		fail_msg("frame does not parse: %s", err.text);
	json_decref(m);
	return back;
}

/* The builder's JSON, byte for byte. */
static void
assert_json(const json_t *m, const char *want)
{
	cleanup_free char *got = json_dumps(m, JSON_COMPACT);

	assert_non_null(got);
	if (strcmp(got, want) != 0)
		fail_msg("got  %s\nwant %s", got, want);
}

static json_t *
load(const char *text)
{
	json_error_t err;
	json_t *m = json_loads(text, 0, &err);

	if (m == NULL)
		fail_msg("bad test JSON: %s: %s", err.text, text);
	return m;
}

static void
assert_cause(char **cause, const char *want)
{
	assert_non_null(*cause);
	if (strstr(*cause, want) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\"", *cause, want);
	free(*cause);
	*cause = NULL;
}

static void
assert_str_eq_or_null(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static struct msg_run
sample_run(void)
{
	struct msg_run ri = {
		.id = "7f3a09bc", .name = "build", .command = "python3 build.py",
		.state = RUN_RUNNING, .pid = 4242, .started_ms = 1735689600123,
		.ended_ms = 0, .exit_code = -1, .exit_signal = 0,
		.end_reason = NULL, .limits = "timeout=600s memory=2G",
		.policy = "/etc/ward.ini", .headless = false, .ask_timeout = 120,
	};

	return ri;
}

static const char sample_run_json[] = "{\"id\":\"7f3a09bc\",\"name\":\"build\","
    "\"command\":\"python3 build.py\",\"state\":\"running\",\"pid\":4242,"
    "\"started_ms\":1735689600123,\"ended_ms\":0,\"exit_code\":-1,"
    "\"exit_signal\":0,\"end_reason\":null,"
    "\"limits\":\"timeout=600s memory=2G\",\"policy\":\"/etc/ward.ini\","
    "\"headless\":false,\"ask_timeout\":120}";

static void
assert_run_equal(const struct msg_run *a, const struct msg_run *b)
{
	assert_string_equal(a->id, b->id);
	assert_str_eq_or_null(a->name, b->name);
	assert_string_equal(a->command, b->command);
	assert_int_equal(a->state, b->state);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->started_ms, b->started_ms);
	assert_int_equal(a->ended_ms, b->ended_ms);
	assert_int_equal(a->exit_code, b->exit_code);
	assert_int_equal(a->exit_signal, b->exit_signal);
	assert_str_eq_or_null(a->end_reason, b->end_reason);
	assert_string_equal(a->limits, b->limits);
	assert_string_equal(a->policy, b->policy);
	assert_int_equal(a->headless, b->headless);
	assert_int_equal(a->ask_timeout, b->ask_timeout);
}

static struct request *
sample_request(uint64_t id)
{
	struct request *r = request_new();

	r->id = id;
	r->run = xstrdup("7f3a09bc");
	r->pid = 4243;
	r->kind = KIND_WRITE;
	r->syscall = xstrdup("openat");
	r->subject = xstrdup("/etc/hosts");
	r->detail = xstrdup("flags=O_WRONLY");
	r->cmdline = xstrdup("sh -c echo");
	r->cwd = xstrdup("/work");
	r->why = xstrdup("no rule");
	r->created_ms = 1735689600200;
	r->deadline_ms = 1735689720200;
	return r;
}

/* ---- names ---- */

static void
test_names(void **state)
{
	enum msg_run_state st;

	(void)state;
	assert_string_equal(msg_run_state_name(RUN_STARTING), "starting");
	assert_string_equal(msg_run_state_name(RUN_RUNNING), "running");
	assert_string_equal(msg_run_state_name(RUN_EXITED), "exited");
	assert_string_equal(msg_run_state_name(RUN_UNKNOWN), "?");
	assert_string_equal(msg_run_state_name((enum msg_run_state)99),
	    "?");
	assert_int_equal(msg_run_state_parse("exited", &st), 0);
	assert_int_equal(st, RUN_EXITED);
	assert_int_equal(msg_run_state_parse("?", &st), -EINVAL);
	assert_int_equal(msg_run_state_parse(NULL, &st), -EINVAL);
	for (int t = MSG_TYPE_HELLO; t <= MSG_TYPE_ERROR; t++) {
		json_t *m = proto_msg(msg_type_name((enum msg_type)t));

		assert_int_equal(msg_type(m), t);
		json_decref(m);
	}
	assert_null(msg_type_name(MSG_TYPE_NONE));
	assert_null(msg_type_name(MSG_TYPE_OTHER));
	{
		json_t *m = proto_msg("from-the-future");

		assert_int_equal(msg_type(m), MSG_TYPE_OTHER);
		json_decref(m);
		m = json_object();
		assert_int_equal(msg_type(m), MSG_TYPE_NONE);
		json_decref(m);
	}
}

/* ---- client -> supervisor ---- */

static void
test_hello(void **state)
{
	struct msg_hello h;
	json_t *m;

	(void)state;
	m = msg_hello("console", true);
	assert_json(m, "{\"type\":\"hello\",\"version\":1,\"client\":\"console\","
	    "\"watch\":true}");
	m = wire(m);
	assert_int_equal(msg_hello_parse(m, &h, NULL), 0);
	assert_int_equal(h.version, PROTO_VERSION);
	assert_string_equal(h.client, "console");
	assert_true(h.watch);
	json_decref(m);

	m = wire(msg_hello("cli", false));
	assert_int_equal(msg_hello_parse(m, &h, NULL), 0);
	assert_string_equal(h.client, "cli");
	assert_false(h.watch);
	json_decref(m);

	/* A bare hello is a cli that does not watch. */
	m = load("{\"type\":\"hello\"}");
	assert_int_equal(msg_hello_parse(m, &h, NULL), 0);
	assert_int_equal(h.version, 0);
	assert_null(h.client);
	assert_false(h.watch);
	assert_false(h.view);
	json_decref(m);

	/* ward console --view: a read-only role. */
	m = msg_hello_view("console", true);
	assert_json(m, "{\"type\":\"hello\",\"version\":1,\"client\":\"console\","
	    "\"watch\":true,\"role\":\"view\"}");
	m = wire(m);
	assert_int_equal(msg_hello_parse(m, &h, NULL), 0);
	assert_true(h.view);
	assert_true(h.watch);
	json_decref(m);
	m = load("{\"type\":\"hello\",\"role\":\"answer\"}");
	assert_int_equal(msg_hello_parse(m, &h, NULL), 0);
	assert_false(h.view);
	json_decref(m);
	/* An unknown role fails closed: read as view. */
	m = load("{\"type\":\"hello\",\"role\":\"admin\"}");
	assert_true(msg_hello_parse(m, &h, NULL) < 0);
	assert_true(h.view);
	json_decref(m);
}

static void
test_decide(void **state)
{
	struct msg_decide d;
	json_t *m;

	(void)state;
	m = msg_decide(12, VERDICT_DENY, SCOPE_ONCE, "ward probe");
	assert_json(m, "{\"type\":\"decide\",\"request\":12,\"verdict\":\"deny\","
	    "\"scope\":\"once\",\"reason\":\"ward probe\"}");
	m = wire(m);
	assert_int_equal(msg_decide_parse(m, &d, NULL), 0);
	assert_int_equal(d.request, 12);
	assert_int_equal(d.verdict, VERDICT_DENY);
	assert_int_equal(d.scope, SCOPE_ONCE);
	assert_string_equal(d.reason, "ward probe");
	json_decref(m);

	m = msg_decide(3, VERDICT_ALLOW, SCOPE_RUN, NULL);
	assert_json(m, "{\"type\":\"decide\",\"request\":3,\"verdict\":\"allow\","
	    "\"scope\":\"run\"}");
	m = wire(m);
	assert_int_equal(msg_decide_parse(m, &d, NULL), 0);
	assert_int_equal(d.request, 3);
	assert_int_equal(d.verdict, VERDICT_ALLOW);
	assert_int_equal(d.scope, SCOPE_RUN);
	assert_null(d.reason);
	json_decref(m);

	/* The third answer to a write outside: stage it. */
	m = msg_decide(9, VERDICT_STAGE, SCOPE_ONCE, NULL);
	assert_json(m, "{\"type\":\"decide\",\"request\":9,\"verdict\":\"stage\","
	    "\"scope\":\"once\"}");
	m = wire(m);
	assert_int_equal(msg_decide_parse(m, &d, NULL), 0);
	assert_int_equal(d.request, 9);
	assert_int_equal(d.verdict, VERDICT_STAGE);
	assert_int_equal(d.scope, SCOPE_ONCE);
	assert_null(d.reason);
	json_decref(m);

	/* "Always": the line written into the policy file travels along. */
	m = msg_decide_always(4, VERDICT_ALLOW, SCOPE_RUN, "/srv/x",
	    "/home/u/.config/ward/ward.ini", 12);
	assert_json(m, "{\"type\":\"decide\",\"request\":4,\"verdict\":"
	    "\"allow\",\"scope\":\"run\",\"rule\":\"/srv/x\",\"always\":"
	    "{\"file\":\"/home/u/.config/ward/ward.ini\",\"line\":12}}");
	m = wire(m);
	assert_int_equal(msg_decide_parse(m, &d, NULL), 0);
	assert_int_equal(d.scope, SCOPE_RUN);
	assert_string_equal(d.rule, "/srv/x");
	assert_string_equal(d.always_file, "/home/u/.config/ward/ward.ini");
	assert_int_equal(d.always_line, 12);
	json_decref(m);
	m = msg_decide_always(4, VERDICT_ALLOW, SCOPE_RUN, "/srv/x", NULL, 0);
	assert_json(m, "{\"type\":\"decide\",\"request\":4,\"verdict\":"
	    "\"allow\",\"scope\":\"run\",\"rule\":\"/srv/x\"}");
	m = wire(m);
	assert_int_equal(msg_decide_parse(m, &d, NULL), 0);
	assert_null(d.always_file);
	assert_int_equal(d.always_line, 0);
	json_decref(m);

	/* No scope is once. */
	m = load("{\"type\":\"decide\",\"request\":5,\"verdict\":\"allow\"}");
	assert_int_equal(msg_decide_parse(m, &d, NULL), 0);
	assert_int_equal(d.scope, SCOPE_ONCE);
	json_decref(m);
}

static void
test_kill(void **state)
{
	json_t *m;

	(void)state;
	m = msg_kill();
	assert_json(m, "{\"type\":\"kill\"}");
	m = wire(m);
	assert_int_equal(msg_kill_parse(m, NULL), 0);
	json_decref(m);
}

/* ---- supervisor -> client ---- */

static void
test_run(void **state)
{
	struct msg_run ri = sample_run(), back;
	json_t *m;

	(void)state;
	m = msg_run_json(&ri);
	assert_json(m, sample_run_json);
	m = wire(m);
	assert_int_equal(msg_run_parse(m, &back, NULL), 0);
	assert_int_equal(back.have, MSG_RUN_ALL);
	assert_run_equal(&ri, &back);
	msg_run_done(&back);
	json_decref(m);

	/* Ended, with a reason, no name. */
	ri.name = NULL;
	ri.state = RUN_EXITED;
	ri.ended_ms = 1735689700000;
	ri.exit_code = 137;
	ri.exit_signal = 9;
	ri.end_reason = "killed";
	ri.headless = true;
	m = wire(msg_run_json(&ri));
	assert_true(json_is_null(json_object_get(m, "name")));
	assert_int_equal(msg_run_parse(m, &back, NULL), 0);
	assert_run_equal(&ri, &back);
	msg_run_done(&back);
	json_decref(m);
}

/* watchers: sent only when some console watches, parsed when there. */
static void
test_run_watchers(void **state)
{
	struct msg_run ri = sample_run(), back;
	json_t *m;

	(void)state;
	m = wire(msg_run_json(&ri));
	assert_null(json_object_get(m, "watchers"));
	assert_int_equal(msg_run_parse(m, &back, NULL), 0);
	assert_false(back.have & MSG_RUN_WATCHERS);
	assert_int_equal(back.watchers, 0);
	msg_run_done(&back);
	json_decref(m);

	ri.watchers = 2;
	m = wire(msg_run_json(&ri));
	assert_int_equal(json_integer_value(json_object_get(m, "watchers")), 2);
	assert_int_equal(msg_run_parse(m, &back, NULL), 0);
	assert_true(back.have & MSG_RUN_WATCHERS);
	assert_int_equal(back.watchers, 2);
	msg_run_done(&back);
	json_decref(m);

	m = load("{\"watchers\":-1}");
	assert_int_equal(msg_run_parse(m, &back, NULL), -EBADMSG);
	json_decref(m);
}

static void
test_run_partial(void **state)
{
	struct msg_run ri;
	json_t *m;

	(void)state;
	m = load("{\"exit_code\":null,\"exit_signal\":9,"
	    "\"end_reason\":\"killed\",\"ended_ms\":null,\"name\":null}");
	assert_int_equal(msg_run_parse(m, &ri, NULL), 0);
	assert_int_equal(ri.have, MSG_RUN_EXIT_CODE | MSG_RUN_EXIT_SIGNAL |
	    MSG_RUN_END_REASON | MSG_RUN_NAME);
	assert_int_equal(ri.exit_code, -1);
	assert_int_equal(ri.exit_signal, 9);
	assert_string_equal(ri.end_reason, "killed");
	assert_null(ri.name);
	msg_run_done(&ri);
	json_decref(m);

	/* limits as an object of them */
	m = load("{\"limits\":{\"timeout\":\"600s\",\"pids\":512,"
	    "\"net\":false,\"odd\":[1]}}");
	assert_int_equal(msg_run_parse(m, &ri, NULL), 0);
	assert_int_equal(ri.have, MSG_RUN_LIMITS);
	assert_string_equal(ri.limits, "timeout=600s pids=512 net=no");
	msg_run_done(&ri);
	json_decref(m);
}

/* 40 requests of 4 KiB control-character paths: far past a frame inline,
 * so the welcome holds what fits and says how many follow. */
static void
test_welcome_split(void **state)
{
	struct msg_run ri = sample_run();
	struct queue *q = queue_new(NULL, NULL);
	struct msg_welcome w;
	char path[4097];
	size_t k = 99;
	json_t *m;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	for (size_t i = 0; i < sizeof path - 1; i++)
		path[i] = (char)(1 + i % 31);
	path[sizeof path - 1] = '\0';
	for (uint64_t id = 1; id <= 40; id++) {
		struct request *r = sample_request(id);

		free(r->subject);
		free(r->cwd);
		r->subject = xstrdup(path);
		r->cwd = xstrdup(path);
		assert_int_equal(queue_add(q, r, NULL), 0);
	}
	m = msg_welcome_part(&ri, q, &k);
	assert_true(k > 0 && k < 40);
	assert_int_equal(proto_frame(m, &buf, &len), 0);
	assert_true(len <= PROTO_MAX_FRAME);
	free(buf);
	assert_int_equal(json_integer_value(json_object_get(m,
	    "pending_count")), 40);
	m = wire(m);
	assert_int_equal(msg_welcome_parse(m, &w, NULL), 0);
	assert_int_equal(w.n_pending, k);
	assert_int_equal(w.n_follow, 40 - k);
	for (size_t i = k; i < 40; i++) {
		json_t *rm = wire(msg_request(queue_at(q, i)));
		struct request *r = NULL;

		assert_int_equal(proto_frame(rm, &buf, &len), 0);
		assert_true(len <= PROTO_MAX_FRAME);
		free(buf);
		assert_int_equal(msg_request_parse(rm, &r, NULL), 0);
		assert_int_equal(msg_welcome_add(&w, r), 0);
		json_decref(rm);
	}
	assert_int_equal(w.n_pending, 40);
	assert_int_equal(w.n_follow, 0);
	assert_int_equal(w.pending[39]->id, 40);
	assert_string_equal(w.pending[39]->subject, path);
	assert_int_equal(msg_welcome_add(&w, request_new()), -ERANGE);
	msg_welcome_done(&w);
	json_decref(m);

	/* A count below what is inline, or not a count, is refused. */
	m = load("{\"type\":\"welcome\",\"run\":{},\"pending\":[],"
	    "\"pending_count\":-1}");
	assert_int_equal(msg_welcome_parse(m, &w, NULL), -EBADMSG);
	json_decref(m);
	queue_free(q);
}

static void
test_welcome(void **state)
{
	struct msg_run ri = sample_run();
	struct queue *q = queue_new(NULL, NULL);
	struct request *r1 = sample_request(3), *r2 = sample_request(5);
	struct msg_welcome w;
	char want[2048];
	json_t *m;

	(void)state;
	m = msg_welcome(&ri, NULL);
	snprintf(want, sizeof want, "{\"type\":\"welcome\",\"version\":1,"
	    "\"run\":%s,\"pending\":[]}", sample_run_json);
	assert_json(m, want);
	m = wire(m);
	assert_int_equal(msg_welcome_parse(m, &w, NULL), 0);
	assert_int_equal(w.version, PROTO_VERSION);
	assert_run_equal(&ri, &w.run);
	assert_int_equal(w.n_pending, 0);
	msg_welcome_done(&w);
	json_decref(m);

	assert_int_equal(queue_add(q, request_dup(r1), NULL), 0);
	assert_int_equal(queue_add(q, request_dup(r2), NULL), 0);
	m = wire(msg_welcome(&ri, q));
	assert_int_equal(msg_welcome_parse(m, &w, NULL), 0);
	assert_int_equal(w.n_pending, 2);
	assert_int_equal(w.pending[0]->id, 3);
	assert_int_equal(w.pending[1]->id, 5);
	assert_string_equal(w.pending[1]->subject, "/etc/hosts");
	assert_int_equal(w.pending[1]->deadline_ms, r2->deadline_ms);
	msg_welcome_done(&w);
	json_decref(m);

	/* A console's test welcome: only some of RUN, no pending. */
	m = load("{\"type\":\"welcome\",\"run\":{\"id\":\"r1\"}}");
	assert_int_equal(msg_welcome_parse(m, &w, NULL), 0);
	assert_int_equal(w.run.have, MSG_RUN_ID);
	assert_int_equal(w.n_pending, 0);
	msg_welcome_done(&w);
	json_decref(m);

	queue_free(q);
	request_free(r1);
	request_free(r2);
}

static void
test_ack(void **state)
{
	struct msg_ack a;
	json_t *m;

	(void)state;
	m = msg_ack(7, true, NULL);
	assert_json(m, "{\"type\":\"ack\",\"request\":7,\"ok\":true}");
	m = wire(m);
	assert_int_equal(msg_ack_parse(m, &a, NULL), 0);
	assert_int_equal(a.request, 7);
	assert_true(a.ok);
	assert_null(a.error);
	json_decref(m);

	m = msg_ack(7, false, "request 7 of run ab: already decided");
	assert_json(m, "{\"type\":\"ack\",\"request\":7,\"ok\":false,"
	    "\"error\":\"request 7 of run ab: already decided\"}");
	m = wire(m);
	assert_int_equal(msg_ack_parse(m, &a, NULL), 0);
	assert_false(a.ok);
	assert_string_equal(a.error, "request 7 of run ab: already decided");
	json_decref(m);

	m = msg_ack(0, false, "unknown message type");
	assert_json(m, "{\"type\":\"ack\",\"ok\":false,"
	    "\"error\":\"unknown message type\"}");
	m = wire(m);
	assert_int_equal(msg_ack_parse(m, &a, NULL), 0);
	assert_int_equal(a.request, 0);
	json_decref(m);

	m = msg_ack(0, true, NULL);
	assert_json(m, "{\"type\":\"ack\",\"ok\":true}");
	json_decref(m);
}

static void
test_request(void **state)
{
	struct request *r = sample_request(9), *back = NULL;
	json_t *m, *j;
	char want[2048];

	(void)state;
	m = msg_request(r);
	j = request_to_json(r);
	{
		cleanup_free char *body = json_dumps(j, JSON_COMPACT);

		snprintf(want, sizeof want,
		    "{\"type\":\"request\",\"request\":%s}", body);
	}
	json_decref(j);
	assert_json(m, want);
	m = wire(m);
	assert_int_equal(msg_request_parse(m, &back, NULL), 0);
	assert_int_equal(back->id, 9);
	assert_string_equal(back->subject, r->subject);
	assert_null(back->subject2);
	assert_string_equal(back->why, r->why);
	assert_int_equal(back->created_ms, r->created_ms);
	request_free(back);
	request_free(r);
	json_decref(m);
}

static void
test_resolved(void **state)
{
	struct msg_resolved rs;
	json_t *m;

	(void)state;
	m = msg_resolved(4, VERDICT_DENY, HOW_PERSON,
	    "uid 1000 (alice) pid 77 via console");
	assert_json(m, "{\"type\":\"resolved\",\"request\":4,\"verdict\":\"deny\","
	    "\"how\":\"person\",\"by\":\"uid 1000 (alice) pid 77 via console\"}");
	m = wire(m);
	assert_int_equal(msg_resolved_parse(m, &rs, NULL), 0);
	assert_int_equal(rs.request, 4);
	assert_int_equal(rs.verdict, VERDICT_DENY);
	assert_int_equal(rs.how, HOW_PERSON);
	assert_string_equal(rs.by, "uid 1000 (alice) pid 77 via console");
	json_decref(m);

	/* The process went away while the person thought. */
	m = wire(msg_resolved(5, VERDICT_NONE, HOW_TIMEOUT, NULL));
	assert_null(json_object_get(m, "by"));
	assert_int_equal(msg_resolved_parse(m, &rs, NULL), 0);
	assert_int_equal(rs.verdict, VERDICT_NONE);
	assert_int_equal(rs.how, HOW_TIMEOUT);
	assert_null(rs.by);
	json_decref(m);

	/* Closed by the supervisor: nobody waits for it (issue 31). */
	m = msg_resolved(6, VERDICT_NONE, HOW_SUPERVISOR, "asker gone");
	assert_json(m, "{\"type\":\"resolved\",\"request\":6,\"verdict\":\"none\","
	    "\"how\":\"supervisor\",\"by\":\"asker gone\"}");
	m = wire(m);
	assert_int_equal(msg_resolved_parse(m, &rs, NULL), 0);
	assert_int_equal(rs.verdict, VERDICT_NONE);
	assert_int_equal(rs.how, HOW_SUPERVISOR);
	assert_string_equal(rs.by, "asker gone");
	json_decref(m);
}

static void
test_event(void **state)
{
	struct audit_event ev = {
		.run = "7f3a09bc", .time_ms = 1735689600300, .pid = 4243,
		.kind = KIND_WRITE, .syscall = "openat",
		.subject = "/work/out.txt", .subject2 = NULL, .detail = "",
		.verdict = VERDICT_ALLOW, .how = HOW_POLICY,
		.rule = "allow write /work/*", .decided_by = "policy",
		.wait_ms = 5, .request_id = 0,
	}, back;
	json_t *m;

	(void)state;
	m = msg_event(&ev);
	assert_json(m, "{\"type\":\"event\",\"event\":{\"kind\":\"write\","
	    "\"syscall\":\"openat\",\"subject\":\"/work/out.txt\","
	    "\"subject2\":null,\"detail\":\"\",\"verdict\":\"allow\","
	    "\"how\":\"policy\",\"rule\":\"allow write /work/*\","
	    "\"by\":\"policy\",\"pid\":4243,\"time_ms\":1735689600300,"
	    "\"request\":0}}");
	m = wire(m);
	assert_int_equal(msg_event_parse(m, &back, NULL), 0);
	assert_null(back.run);
	assert_int_equal(back.wait_ms, 0);
	assert_int_equal(back.time_ms, ev.time_ms);
	assert_int_equal(back.pid, ev.pid);
	assert_int_equal(back.kind, ev.kind);
	assert_string_equal(back.syscall, ev.syscall);
	assert_string_equal(back.subject, ev.subject);
	assert_null(back.subject2);
	assert_string_equal(back.detail, ev.detail);
	assert_int_equal(back.verdict, ev.verdict);
	assert_int_equal(back.how, ev.how);
	assert_string_equal(back.rule, ev.rule);
	assert_string_equal(back.decided_by, ev.decided_by);
	assert_int_equal(back.request_id, 0);
	json_decref(m);

	/* A lifecycle event: no syscall, detail, rule; a subject not UTF-8. */
	ev.kind = KIND_RUN;
	ev.syscall = NULL;
	ev.subject = "exit \xff";
	ev.detail = NULL;
	ev.rule = NULL;
	ev.decided_by = NULL;
	ev.verdict = VERDICT_NONE;
	ev.how = HOW_SUPERVISOR;
	m = wire(msg_event(&ev));
	assert_int_equal(msg_event_parse(m, &back, NULL), 0);
	assert_int_equal(back.kind, KIND_RUN);
	assert_null(back.syscall);
	assert_string_equal(back.subject, "exit \\xff");
	assert_null(back.detail);
	assert_null(back.rule);
	assert_null(back.decided_by);
	assert_int_equal(back.verdict, VERDICT_NONE);
	json_decref(m);
}

static void
test_input_resize(void **state)
{
	static const char bytes[] = "a\x1b[A\x00\xff\x1d";
	struct msg_input in;
	int rows, cols;
	json_t *m;

	(void)state;
	assert_string_equal(msg_type_name(MSG_TYPE_INPUT), "input");
	assert_string_equal(msg_type_name(MSG_TYPE_RESIZE), "resize");
	m = msg_input("hi", 2);
	assert_json(m, "{\"type\":\"input\",\"data\":\"aGk=\"}");
	assert_int_equal(msg_type(m), MSG_TYPE_INPUT);
	json_decref(m);
	m = wire(msg_input(bytes, sizeof bytes - 1));
	assert_int_equal(msg_input_parse(m, &in, NULL), 0);
	assert_int_equal(in.len, sizeof bytes - 1);
	assert_memory_equal(in.data, bytes, sizeof bytes - 1);
	msg_input_done(&in);
	json_decref(m);
	{
		char *big = xcalloc(1, MSG_INPUT_MAX + 1);
		char *cause = NULL;

		m = msg_input(big, MSG_INPUT_MAX);
		assert_int_equal(msg_input_parse(m, &in, NULL), 0);
		assert_int_equal(in.len, MSG_INPUT_MAX);
		msg_input_done(&in);
		json_decref(m);
		m = msg_input(big, MSG_INPUT_MAX + 1);
		assert_int_equal(msg_input_parse(m, &in, &cause), -EBADMSG);
		assert_cause(&cause, "input: \"data\": too long");
		assert_null(in.data);
		json_decref(m);
		free(big);
	}

	m = msg_resize(50, 200);
	assert_json(m, "{\"type\":\"resize\",\"rows\":50,\"cols\":200}");
	json_decref(m);
	m = wire(msg_resize(24, 80));
	assert_int_equal(msg_resize_parse(m, &rows, &cols, NULL), 0);
	assert_int_equal(rows, 24);
	assert_int_equal(cols, 80);
	json_decref(m);
}

static void
test_output(void **state)
{
	static const char bytes[] = "hi\x1b[0m\r\n\xff\x00z";
	struct msg_output o;
	json_t *m;

	(void)state;
	m = msg_output(AUDIT_PTY, "hi", 2);
	assert_json(m, "{\"type\":\"output\",\"stream\":\"pty\",\"data\":\"aGk=\"}");
	json_decref(m);
	m = wire(msg_output(AUDIT_STDERR, bytes, sizeof bytes - 1));
	assert_int_equal(msg_output_parse(m, &o, NULL), 0);
	assert_int_equal(o.stream, AUDIT_STDERR);
	assert_int_equal(o.len, sizeof bytes - 1);
	assert_memory_equal(o.data, bytes, sizeof bytes - 1);
	msg_output_done(&o);
	json_decref(m);
	m = wire(msg_output(AUDIT_STDOUT, "", 0));
	assert_int_equal(msg_output_parse(m, &o, NULL), 0);
	assert_int_equal(o.stream, AUDIT_STDOUT);
	assert_int_equal(o.len, 0);
	msg_output_done(&o);
	json_decref(m);
}

static void
test_state(void **state)
{
	struct msg_run ri = sample_run(), back;
	char want[2048];
	json_t *m;

	(void)state;
	ri.state = RUN_EXITED;
	ri.exit_code = 3;
	ri.end_reason = "exit";
	m = msg_state(&ri);
	assert_int_equal(json_object_size(m), 2);
	{
		json_t *run = msg_run_json(&ri);
		cleanup_free char *body = json_dumps(run, JSON_COMPACT);

		snprintf(want, sizeof want, "{\"type\":\"state\",\"run\":%s}",
		    body);
		json_decref(run);
	}
	assert_json(m, want);
	m = wire(m);
	assert_int_equal(msg_state_parse(m, &back, NULL), 0);
	assert_run_equal(&ri, &back);
	msg_run_done(&back);
	json_decref(m);
}

static void
test_error(void **state)
{
	const char *text;
	json_t *m;

	(void)state;
	m = msg_error("out of slots");
	assert_json(m, "{\"type\":\"error\",\"error\":\"out of slots\"}");
	m = wire(m);
	assert_int_equal(msg_error_parse(m, &text, NULL), 0);
	assert_string_equal(text, "out of slots");
	json_decref(m);
}

/* ---- refusals ---- */

struct bad {
	const char	*json;
	int		 (*parse)(const json_t *, char **);
	int		 err;
	const char	*cause;
};

static int
p_hello(const json_t *m, char **cause)
{
	struct msg_hello h;

	return msg_hello_parse(m, &h, cause);
}

static int
p_decide(const json_t *m, char **cause)
{
	struct msg_decide d;

	return msg_decide_parse(m, &d, cause);
}

static int
p_kill(const json_t *m, char **cause)
{
	return msg_kill_parse(m, cause);
}

static int
p_input(const json_t *m, char **cause)
{
	struct msg_input in;
	int e = msg_input_parse(m, &in, cause);

	if (e == 0)
		msg_input_done(&in);
	return e;
}

static int
p_resize(const json_t *m, char **cause)
{
	int rows, cols;

	return msg_resize_parse(m, &rows, &cols, cause);
}

static int
p_welcome(const json_t *m, char **cause)
{
	struct msg_welcome w;
	int e = msg_welcome_parse(m, &w, cause);

	if (e == 0)
		msg_welcome_done(&w);
	return e;
}

static int
p_ack(const json_t *m, char **cause)
{
	struct msg_ack a;

	return msg_ack_parse(m, &a, cause);
}

static int
p_request(const json_t *m, char **cause)
{
	struct request *r = NULL;
	int e = msg_request_parse(m, &r, cause);

	request_free(r);
	return e;
}

static int
p_resolved(const json_t *m, char **cause)
{
	struct msg_resolved rs;

	return msg_resolved_parse(m, &rs, cause);
}

static int
p_event(const json_t *m, char **cause)
{
	struct audit_event ev;

	return msg_event_parse(m, &ev, cause);
}

static int
p_output(const json_t *m, char **cause)
{
	struct msg_output o;
	int e = msg_output_parse(m, &o, cause);

	if (e == 0)
		msg_output_done(&o);
	return e;
}

static int
p_state(const json_t *m, char **cause)
{
	struct msg_run ri;
	int e = msg_state_parse(m, &ri, cause);

	if (e == 0)
		msg_run_done(&ri);
	return e;
}

static int
p_error(const json_t *m, char **cause)
{
	const char *t;

	return msg_error_parse(m, &t, cause);
}

static const struct bad bads[] = {
	/* wrong type */
	{ "{\"type\":\"welcome\"}", p_hello, -EPROTO, "hello: got a \"welcome\"" },
	{ "{\"type\":\"kill\"}", p_decide, -EPROTO, "decide: got a \"kill\"" },
	{ "{\"type\":\"decide\"}", p_kill, -EPROTO, "kill: got" },
	{ "{\"run\":{}}", p_state, -EPROTO, "(untyped)" },
	{ "[1]", p_ack, -EBADMSG, "ack: not a JSON object" },
	/* ill-typed members */
	{ "{\"type\":\"hello\",\"watch\":\"yes\"}", p_hello, -EBADMSG,
	  "hello: \"watch\": not a boolean" },
	{ "{\"type\":\"hello\",\"version\":\"1\"}", p_hello, -EBADMSG,
	  "\"version\": not an integer" },
	{ "{\"type\":\"hello\",\"client\":7}", p_hello, -EBADMSG,
	  "\"client\": not a string" },
	/* decide */
	{ "{\"type\":\"decide\",\"verdict\":\"allow\"}", p_decide, -EBADMSG,
	  "decide: \"request\": missing" },
	{ "{\"type\":\"decide\",\"request\":\"4\",\"verdict\":\"allow\"}",
	  p_decide, -EBADMSG, "\"request\": not an integer" },
	{ "{\"type\":\"decide\",\"request\":0,\"verdict\":\"allow\"}",
	  p_decide, -EBADMSG, "\"request\": not a request id" },
	{ "{\"type\":\"decide\",\"request\":4}", p_decide, -EBADMSG,
	  "decide: \"verdict\": missing" },
	{ "{\"type\":\"decide\",\"request\":4,\"verdict\":\"allow\","
	  "\"always\":\"/x\"}", p_decide, -EBADMSG,
	  "decide: \"always\": not an object" },
	{ "{\"type\":\"decide\",\"request\":4,\"verdict\":\"allow\","
	  "\"always\":{\"line\":3}}", p_decide, -EBADMSG,
	  "decide: \"always\": \"file\": missing" },
	{ "{\"type\":\"decide\",\"request\":4,\"verdict\":\"allow\","
	  "\"always\":{\"file\":\"/p\",\"line\":0}}", p_decide, -EBADMSG,
	  "\"line\": not a line number" },
	{ "{\"type\":\"decide\",\"request\":4,\"verdict\":\"maybe\"}", p_decide,
	  -EBADMSG, "unknown verdict \"maybe\"" },
	{ "{\"type\":\"decide\",\"request\":4,\"verdict\":\"kill\"}", p_decide,
	  -EBADMSG, "unknown verdict \"kill\"" },
	{ "{\"type\":\"decide\",\"request\":4,\"verdict\":\"ask\"}", p_decide,
	  -EBADMSG, "unknown verdict \"ask\"" },
	{ "{\"type\":\"decide\",\"request\":4,\"verdict\":\"deny\","
	  "\"scope\":\"forever\"}", p_decide, -EBADMSG,
	  "unknown scope \"forever\"" },
	{ "{\"type\":\"decide\",\"request\":4,\"verdict\":\"deny\","
	  "\"reason\":5}", p_decide, -EBADMSG, "\"reason\": not a string" },
	/* welcome */
	{ "{\"type\":\"welcome\"}", p_welcome, -EBADMSG,
	  "run: not a JSON object" },
	{ "{\"type\":\"welcome\",\"run\":{},\"pending\":{}}", p_welcome,
	  -EBADMSG, "welcome: \"pending\": not a list" },
	{ "{\"type\":\"welcome\",\"run\":{},\"pending\":[{\"id\":\"x\"}]}",
	  p_welcome, -EBADMSG, "request: \"id\": not an integer" },
	{ "{\"type\":\"welcome\",\"run\":{\"state\":\"dozing\"}}", p_welcome,
	  -EBADMSG, "run: \"state\": unknown state \"dozing\"" },
	{ "{\"type\":\"welcome\",\"run\":{\"pid\":\"1\"}}", p_welcome,
	  -EBADMSG, "run: \"pid\": not an integer" },
	{ "{\"type\":\"welcome\",\"run\":{\"id\":3}}", p_welcome, -EBADMSG,
	  "run: \"id\": not a string" },
	{ "{\"type\":\"welcome\",\"run\":{\"headless\":1}}", p_welcome,
	  -EBADMSG, "run: \"headless\": not a boolean" },
	{ "{\"type\":\"welcome\",\"run\":{\"ask_timeout\":-1}}", p_welcome,
	  -EBADMSG, "run: \"ask_timeout\": out of range" },
	/* ack */
	{ "{\"type\":\"ack\"}", p_ack, -EBADMSG, "ack: \"ok\": missing" },
	{ "{\"type\":\"ack\",\"ok\":1}", p_ack, -EBADMSG,
	  "ack: \"ok\": not a boolean" },
	{ "{\"type\":\"ack\",\"ok\":false,\"error\":[]}", p_ack, -EBADMSG,
	  "ack: \"error\": not a string" },
	/* request */
	{ "{\"type\":\"request\"}", p_request, -EBADMSG,
	  "request: not a JSON object" },
	{ "{\"type\":\"request\",\"request\":{\"id\":\"x\"}}", p_request,
	  -EBADMSG, "request: \"id\"" },
	/* resolved */
	{ "{\"type\":\"resolved\",\"verdict\":\"deny\",\"how\":\"person\"}",
	  p_resolved, -EBADMSG, "resolved: \"request\": missing" },
	{ "{\"type\":\"resolved\",\"request\":2,\"verdict\":\"nah\","
	  "\"how\":\"person\"}", p_resolved, -EBADMSG,
	  "unknown verdict \"nah\"" },
	{ "{\"type\":\"resolved\",\"request\":2,\"verdict\":\"deny\"}",
	  p_resolved, -EBADMSG, "resolved: \"how\": missing" },
	{ "{\"type\":\"resolved\",\"request\":2,\"verdict\":\"deny\","
	  "\"how\":\"magic\"}", p_resolved, -EBADMSG, "unknown how \"magic\"" },
	/* event */
	{ "{\"type\":\"event\"}", p_event, -EBADMSG,
	  "event: \"event\": not an object" },
	{ "{\"type\":\"event\",\"event\":{\"verdict\":\"allow\","
	  "\"how\":\"policy\"}}", p_event, -EBADMSG, "event: \"kind\": missing" },
	{ "{\"type\":\"event\",\"event\":{\"kind\":\"teleport\","
	  "\"verdict\":\"allow\",\"how\":\"policy\"}}", p_event, -EBADMSG,
	  "unknown kind \"teleport\"" },
	{ "{\"type\":\"event\",\"event\":{\"kind\":\"write\","
	  "\"verdict\":\"perhaps\",\"how\":\"policy\"}}", p_event, -EBADMSG,
	  "event: \"verdict\": unknown verdict" },
	{ "{\"type\":\"event\",\"event\":{\"kind\":\"write\","
	  "\"verdict\":\"allow\",\"how\":\"policy\",\"pid\":\"3\"}}", p_event,
	  -EBADMSG, "event: \"pid\": not an integer" },
	{ "{\"type\":\"event\",\"event\":{\"kind\":\"write\","
	  "\"verdict\":\"allow\",\"how\":\"policy\",\"subject\":1}}", p_event,
	  -EBADMSG, "event: \"subject\"" },
	/* output */
	{ "{\"type\":\"output\",\"stream\":\"pty\"}", p_output, -EBADMSG,
	  "output: \"data\": missing" },
	{ "{\"type\":\"output\",\"data\":\"aGk=\"}", p_output, -EBADMSG,
	  "output: \"stream\": missing" },
	{ "{\"type\":\"output\",\"stream\":\"pty\",\"data\":\"!!\"}", p_output,
	  -EBADMSG, "output: \"data\": not base64" },
	{ "{\"type\":\"output\",\"stream\":\"tty\",\"data\":\"aGk=\"}",
	  p_output, -EBADMSG, "unknown stream \"tty\"" },
	/* state */
	{ "{\"type\":\"state\",\"run\":[]}", p_state, -EBADMSG,
	  "run: not a JSON object" },
	{ "{\"type\":\"state\",\"run\":{\"exit_code\":\"3\"}}", p_state,
	  -EBADMSG, "run: \"exit_code\": not an integer or null" },
	/* error */
	{ "{\"type\":\"error\",\"error\":1}", p_error, -EBADMSG,
	  "error: \"error\": not a string" },
	/* input, resize */
	{ "{\"type\":\"input\"}", p_input, -EBADMSG,
	  "input: \"data\": missing" },
	{ "{\"type\":\"input\",\"data\":\"!!\"}", p_input, -EBADMSG,
	  "input: \"data\": not base64" },
	{ "{\"type\":\"kill\"}", p_input, -EPROTO, "input: got a \"kill\"" },
	{ "{\"type\":\"resize\",\"rows\":24}", p_resize, -EBADMSG,
	  "resize: \"cols\": missing" },
	{ "{\"type\":\"resize\",\"rows\":0,\"cols\":80}", p_resize,
	  -EBADMSG, "resize: \"rows\": out of range" },
	{ "{\"type\":\"resize\",\"rows\":24,\"cols\":100000}", p_resize,
	  -EBADMSG, "resize: \"cols\": out of range" },
	{ "{\"type\":\"resize\",\"rows\":\"24\",\"cols\":80}", p_resize,
	  -EBADMSG, "resize: \"rows\": not an integer" },
};

static void
test_rejects(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bads); i++) {
		json_t *m = load(bads[i].json);
		char *cause = NULL;
		int e = bads[i].parse(m, &cause);

		if (e != bads[i].err)
			fail_msg("row %zu (%s): got %d, want %d", i, bads[i].json,
			    e, bads[i].err);
		assert_cause(&cause, bads[i].cause);
		/* And without a cause to fill. */
		assert_int_equal(bads[i].parse(m, NULL), bads[i].err);
		json_decref(m);
	}
}

/* Unknown members are for newer peers: ignored. */
static void
test_unknown_members(void **state)
{
	struct msg_decide d;
	struct msg_ack a;
	json_t *m;

	(void)state;
	m = load("{\"type\":\"decide\",\"request\":4,\"verdict\":\"deny\","
	    "\"colour\":\"red\"}");
	assert_int_equal(msg_decide_parse(m, &d, NULL), 0);
	json_decref(m);
	m = load("{\"type\":\"ack\",\"ok\":true,\"later\":{}}");
	assert_int_equal(msg_ack_parse(m, &a, NULL), 0);
	json_decref(m);
}

/* Issue 15: the rule a person confirmed travels with an answer for the
 * run; the run's rules are listed and revoked. */
static void
test_decide_rule(void **state)
{
	struct msg_decide d;
	json_t *m;

	(void)state;
	m = msg_decide_rule(4, VERDICT_ALLOW, SCOPE_RUN, NULL,
	    "/home/u/.ssh/authorized_keys");
	assert_json(m, "{\"type\":\"decide\",\"request\":4,\"verdict\":\"allow\","
	    "\"scope\":\"run\",\"rule\":\"/home/u/.ssh/authorized_keys\"}");
	m = wire(m);
	assert_int_equal(msg_decide_parse(m, &d, NULL), 0);
	assert_int_equal(d.scope, SCOPE_RUN);
	assert_null(d.reason);
	assert_string_equal(d.rule, "/home/u/.ssh/authorized_keys");
	json_decref(m);

	/* Without one, no member (as msg_decide). */
	m = msg_decide_rule(4, VERDICT_DENY, SCOPE_ONCE, "no", NULL);
	assert_json(m, "{\"type\":\"decide\",\"request\":4,\"verdict\":\"deny\","
	    "\"scope\":\"once\",\"reason\":\"no\"}");
	assert_int_equal(msg_decide_parse(m, &d, NULL), 0);
	assert_null(d.rule);
	json_decref(m);

	m = load("{\"type\":\"decide\",\"request\":5,\"verdict\":\"allow\","
	    "\"rule\":7}");
	assert_int_equal(msg_decide_parse(m, &d, NULL), -EBADMSG);
	json_decref(m);
}

static void
test_rules_revoke(void **state)
{
	struct msg_rule v[] = {
		{ .n = 1, .kind = KIND_WRITE, .verdict = VERDICT_ALLOW,
		    .pattern = "/tmp/a\\*b" },
		{ .n = 2, .kind = KIND_CONNECT, .verdict = VERDICT_DENY,
		    .pattern = "example.com:443" },
	};
	struct msg_rule_list l;
	uint64_t n;
	json_t *m;

	(void)state;
	m = msg_rules();
	assert_json(m, "{\"type\":\"rules\"}");
	m = wire(m);
	assert_int_equal(msg_rules_parse(m, NULL), 0);
	json_decref(m);

	m = msg_revoke(2);
	assert_json(m, "{\"type\":\"revoke\",\"rule\":2}");
	m = wire(m);
	assert_int_equal(msg_revoke_parse(m, &n, NULL), 0);
	assert_int_equal(n, 2);
	json_decref(m);
	m = load("{\"type\":\"revoke\",\"rule\":0}");
	assert_int_equal(msg_revoke_parse(m, &n, NULL), -EBADMSG);
	json_decref(m);
	m = load("{\"type\":\"revoke\"}");
	assert_int_equal(msg_revoke_parse(m, &n, NULL), -EBADMSG);
	json_decref(m);

	m = msg_rule_list(v, 2);
	assert_json(m, "{\"type\":\"rule_list\",\"rules\":[{\"n\":1,\"kind\":"
	    "\"write\",\"verdict\":\"allow\",\"pattern\":\"/tmp/a\\\\*b\"},"
	    "{\"n\":2,\"kind\":\"connect\",\"verdict\":\"deny\",\"pattern\":"
	    "\"example.com:443\"}]}");
	m = wire(m);
	assert_int_equal(msg_rule_list_parse(m, &l, NULL), 0);
	assert_int_equal(l.n_rules, 2);
	assert_int_equal(l.rules[1].n, 2);
	assert_int_equal(l.rules[1].kind, KIND_CONNECT);
	assert_int_equal(l.rules[1].verdict, VERDICT_DENY);
	assert_string_equal(l.rules[0].pattern, "/tmp/a\\*b");
	msg_rule_list_done(&l);
	json_decref(m);

	m = msg_rule_list(NULL, 0);
	assert_json(m, "{\"type\":\"rule_list\",\"rules\":[]}");
	assert_int_equal(msg_rule_list_parse(m, &l, NULL), 0);
	assert_int_equal(l.n_rules, 0);
	msg_rule_list_done(&l);
	json_decref(m);

	m = load("{\"type\":\"rule_list\",\"rules\":[{\"n\":1,\"kind\":"
	    "\"nope\",\"verdict\":\"allow\",\"pattern\":\"x\"}]}");
	assert_int_equal(msg_rule_list_parse(m, &l, NULL), -EBADMSG);
	json_decref(m);
	m = load("{\"type\":\"rule_list\"}");
	assert_int_equal(msg_rule_list_parse(m, &l, NULL), -EBADMSG);
	json_decref(m);
}

/* A request's rule travels when set; a request without one parses. */
static void
test_request_rule(void **state)
{
	struct request *r = sample_request(9), *back = NULL;
	json_t *m;

	(void)state;
	r->rule = xstrdup("/x/\\*");
	m = wire(msg_request(r));
	assert_int_equal(msg_request_parse(m, &back, NULL), 0);
	assert_string_equal(back->rule, "/x/\\*");
	request_free(back);
	json_decref(m);
	free(r->rule);
	r->rule = NULL;
	m = wire(msg_request(r));
	assert_null(json_object_get(json_object_get(m, "request"), "rule"));
	assert_int_equal(msg_request_parse(m, &back, NULL), 0);
	assert_null(back->rule);
	request_free(back);
	json_decref(m);
	request_free(r);
}

/* A decide that fails on a later member still names its request (so the
 * supervisor's ack can carry it). */
static void
test_decide_keeps_id(void **state)
{
	struct msg_decide d;
	json_t *m;

	(void)state;
	m = load("{\"type\":\"decide\",\"request\":8,\"verdict\":\"kill\"}");
	assert_int_equal(msg_decide_parse(m, &d, NULL), -EBADMSG);
	assert_int_equal(d.request, 8);
	json_decref(m);
}

/* ward relay's envelopes, and hello's origin the relay sets. */
static void
test_relay(void **state)
{
	char *ids[] = { "7f3a09bc", "0000abcd", NULL };
	cleanup_free char *cause = NULL;
	cleanup_strv char **got = NULL;
	struct msg_hello h;
	const char *run, *err;
	json_t *m, *inner, *hello;
	size_t n = 0;

	(void)state;
	m = msg_relay_runs(NULL, 0);
	assert_json(m, "{\"type\":\"relay_runs\"}");
	m = wire(m);
	assert_int_equal(msg_relay_runs_parse(m, &got, &n, &cause), 0);
	assert_null(got);
	json_decref(m);

	m = msg_relay_runs(ids, 2);
	assert_json(m, "{\"type\":\"relay_runs\",\"runs\":[\"7f3a09bc\","
	    "\"0000abcd\"]}");
	m = wire(m);
	assert_int_equal(msg_relay_runs_parse(m, &got, &n, &cause), 0);
	assert_int_equal(n, 2);
	assert_string_equal(got[1], "0000abcd");
	assert_null(got[2]);
	json_decref(m);

	hello = msg_hello("cli", false);
	/* The far side's claim is replaced by the relay's own. */
	json_object_set_new(hello, "origin", json_string("console"));
	msg_hello_set_origin(hello, "ssh from 192.0.2.1");
	m = msg_relay_to("build", hello);
	assert_json(m, "{\"type\":\"relay_to\",\"run\":\"build\",\"msg\":"
	    "{\"type\":\"hello\",\"version\":1,\"client\":\"cli\","
	    "\"watch\":false,\"origin\":\"ssh from 192.0.2.1\"}}");
	json_decref(hello);
	m = wire(m);
	assert_int_equal(msg_relay_parse(m, &run, &inner, &err, &cause), 0);
	assert_string_equal(run, "build");
	assert_null(err);
	assert_int_equal(msg_hello_parse(inner, &h, &cause), 0);
	assert_string_equal(h.origin, "ssh from 192.0.2.1");
	assert_string_equal(h.client, "cli");
	json_decref(m);

	/* Not a hello: set_origin leaves it alone. */
	inner = msg_kill();
	msg_hello_set_origin(inner, "ssh from 192.0.2.1");
	m = msg_relay_from("7f3a09bc", inner);
	json_decref(inner);
	assert_json(m, "{\"type\":\"relay_from\",\"run\":\"7f3a09bc\","
	    "\"msg\":{\"type\":\"kill\"}}");
	json_decref(m);

	m = wire(msg_relay_closed("7f3a09bc", "no such run"));
	assert_int_equal(msg_relay_parse(m, &run, &inner, &err, &cause), 0);
	assert_null(inner);
	assert_string_equal(err, "no such run");
	json_decref(m);

	m = load("{\"type\":\"relay_to\",\"run\":\"x\",\"msg\":42}");
	assert_int_equal(msg_relay_parse(m, &run, &inner, &err, &cause),
	    -EBADMSG);
	assert_cause(&cause, "\"msg\": not a message");
	json_decref(m);
	m = load("{\"type\":\"relay_from\",\"msg\":{\"type\":\"ack\"}}");
	assert_int_equal(msg_relay_parse(m, &run, &inner, &err, &cause),
	    -EBADMSG);
	assert_cause(&cause, "\"run\": missing");
	json_decref(m);
	strv_free(got);
	got = NULL;
	m = load("{\"type\":\"relay_runs\",\"runs\":[1]}");
	assert_int_equal(msg_relay_runs_parse(m, &got, &n, &cause), -EBADMSG);
	assert_cause(&cause, "not an array of strings");
	json_decref(m);
	m = load("{\"type\":\"hello\",\"origin\":7}");
	assert_int_equal(msg_hello_parse(m, &h, &cause), -EBADMSG);
	assert_cause(&cause, "origin");
	json_decref(m);
}

/* ward events --host: the ask and the answers of relay_events. */
static void
test_relay_events(void **state)
{
	cleanup_free char *cause = NULL;
	const char *run, *err;
	json_t *m, *lines;
	int64_t since;
	bool json, follow, end;

	(void)state;
	m = msg_relay_events("build", 1700000000000LL, true, true);
	assert_json(m, "{\"type\":\"relay_events\",\"run\":\"build\","
	    "\"since_ms\":1700000000000,\"json\":true,\"follow\":true}");
	m = wire(m);
	assert_int_equal(msg_relay_events_ask_parse(m, &run, &since, &json,
	    &follow, &cause), 0);
	assert_string_equal(run, "build");
	assert_true(since == 1700000000000LL);
	assert_true(json);
	assert_true(follow);
	json_decref(m);
	m = wire(msg_relay_events(NULL, 0, false, false));
	assert_json(m, "{\"type\":\"relay_events\",\"run\":null,"
	    "\"since_ms\":0,\"json\":false,\"follow\":false}");
	assert_int_equal(msg_relay_events_ask_parse(m, &run, &since, &json,
	    &follow, &cause), 0);
	assert_null(run);
	assert_false(json || follow);
	json_decref(m);
	/* An ask may leave out all but its type. */
	m = load("{\"type\":\"relay_events\"}");
	assert_int_equal(msg_relay_events_ask_parse(m, &run, &since, &json,
	    &follow, &cause), 0);
	assert_true(run == NULL && since == 0 && !json && !follow);
	json_decref(m);

	lines = json_array();
	json_array_append_new(lines, json_string("{\"seq\":1}"));
	json_array_append_new(lines, json_string("{\"seq\":2}"));
	m = msg_relay_events_lines(lines, false, NULL);
	assert_json(m, "{\"type\":\"relay_events\",\"lines\":["
	    "\"{\\\"seq\\\":1}\",\"{\\\"seq\\\":2}\"],\"end\":false,"
	    "\"error\":null}");
	m = wire(m);
	assert_int_equal(msg_relay_events_parse(m, &lines, &end, &err,
	    &cause), 0);
	assert_int_equal(json_array_size(lines), 2);
	assert_string_equal(json_string_value(json_array_get(lines, 1)),
	    "{\"seq\":2}");
	assert_false(end);
	assert_null(err);
	json_decref(m);
	m = wire(msg_relay_events_lines(NULL, true, "no run \"x\""));
	assert_int_equal(msg_relay_events_parse(m, &lines, &end, &err,
	    &cause), 0);
	assert_int_equal(json_array_size(lines), 0);
	assert_true(end);
	assert_string_equal(err, "no run \"x\"");
	/* An answer is not an ask. */
	assert_int_equal(msg_relay_events_ask_parse(m, &run, &since, &json,
	    &follow, &cause), -EBADMSG);
	assert_cause(&cause, "\"lines\": an answer");
	json_decref(m);

	/* Each field checked, named. */
	m = load("{\"type\":\"relay_events\",\"since_ms\":-1}");
	assert_int_equal(msg_relay_events_ask_parse(m, &run, &since, &json,
	    &follow, &cause), -EBADMSG);
	assert_cause(&cause, "\"since_ms\"");
	json_decref(m);
	m = load("{\"type\":\"relay_events\",\"follow\":1}");
	assert_int_equal(msg_relay_events_ask_parse(m, &run, &since, &json,
	    &follow, &cause), -EBADMSG);
	assert_cause(&cause, "\"follow\": not a boolean");
	json_decref(m);
	m = load("{\"type\":\"relay_events\",\"run\":7}");
	assert_int_equal(msg_relay_events_ask_parse(m, &run, &since, &json,
	    &follow, &cause), -EBADMSG);
	assert_cause(&cause, "\"run\"");
	json_decref(m);
	m = load("{\"type\":\"relay_events\",\"lines\":[1],\"end\":true}");
	assert_int_equal(msg_relay_events_parse(m, &lines, &end, &err,
	    &cause), -EBADMSG);
	assert_cause(&cause, "not an array of strings");
	json_decref(m);
	m = load("{\"type\":\"relay_events\",\"lines\":[]}");
	assert_int_equal(msg_relay_events_parse(m, &lines, &end, &err,
	    &cause), -EBADMSG);
	assert_cause(&cause, "\"end\": missing");
	json_decref(m);
	m = load("{\"type\":\"relay_runs\"}");
	assert_int_equal(msg_relay_events_parse(m, &lines, &end, &err,
	    &cause), -EPROTO);
	json_decref(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_hello),
		cmocka_unit_test(test_relay),
		cmocka_unit_test(test_relay_events),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_kill),
		cmocka_unit_test(test_input_resize),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_run_watchers),
		cmocka_unit_test(test_run_partial),
		cmocka_unit_test(test_welcome),
		cmocka_unit_test(test_welcome_split),
		cmocka_unit_test(test_ack),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_resolved),
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_unknown_members),
		cmocka_unit_test(test_decide_keeps_id),
		cmocka_unit_test(test_decide_rule),
		cmocka_unit_test(test_rules_revoke),
		cmocka_unit_test(test_request_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
