/* SPDX-License-Identifier: MIT */
/* tui/model.c and tui/keys.c: the console's state and its safety rules,
 * driven by protocol messages and a fake clock, without a terminal. The
 * messages come from the approvals/msg.h builders, as the supervisor
 * sends them; handwritten JSON is kept where a test is about what no
 * builder makes (partial RUNs, limits as an object, malformed messages). */
#include <errno.h>
#include <locale.h>
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
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/view.h"

#define WALL0	1700000000000LL
#define MONO0	5000LL

struct fx {
	struct model	*m;
	int64_t		 mono, wall;
	int		 w, h;
};

static void
tick(struct fx *f, int64_t ms)
{
	f->mono += ms;
	f->wall += ms;
	model_set_now(f->m, f->mono, f->wall);
}

/* What the console does after each round: draw, then note what was drawn. */
static void
frame(struct fx *f)
{
	struct view_report rep;
	char *text;

	view_report_init(&rep);
	text = view_render_text(f->m, f->w, f->h, &rep);
	model_note_view(f->m, &rep);
	view_report_done(&rep);
	free(text);
}

static void
feed(struct fx *f, const char *json)
{
	json_error_t err;
	json_t *msg = json_loads(json, 0, &err);

	if (msg == NULL)
		fail_msg("bad test JSON: %s: %s", err.text, json);
	assert_int_equal(model_apply_message(f->m, msg), 0);
	json_decref(msg);
}

/* A message from a builder, applied as the console would. */
static void
feed_msg(struct fx *f, json_t *msg)
{
	assert_int_equal(model_apply_message(f->m, msg), 0);
	json_decref(msg);
}

static struct request *
sample_request(uint64_t id, const char *subject, int64_t deadline)
{
	struct request *r = request_new();

	r->id = id;
	r->run = xstrdup("r1");
	r->pid = 4242;
	r->kind = KIND_WRITE;
	r->syscall = xstrdup("openat");
	r->subject = xstrdup(subject);
	r->detail = xstrdup("flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644");
	r->cmdline = xstrdup("python3 build.py");
	r->cwd = xstrdup("/work");
	r->why = xstrdup("no rule");
	r->created_ms = WALL0;
	r->deadline_ms = deadline;
	return r;
}

static void
feed_request_at(struct fx *f, uint64_t id, const char *subject,
    int64_t deadline)
{
	struct request *r = sample_request(id, subject, deadline);

	feed_msg(f, msg_request(r));
	request_free(r);
}

/* A REQUEST as the supervisor sends it (request_to_json). */
static json_t *
request_json(uint64_t id, const char *subject, int64_t deadline)
{
	struct request *r = sample_request(id, subject, deadline);
	json_t *j = request_to_json(r);

	request_free(r);
	return j;
}

static void
feed_request(struct fx *f, uint64_t id, const char *subject)
{
	feed_request_at(f, id, subject, f->wall + 120000);
}

static void
feed_welcome(struct fx *f)
{
	const struct msg_run ri = {
		.id = "r1", .name = "build", .command = "python3 build.py",
		.state = RUN_RUNNING, .pid = 4242, .started_ms = 1,
		.ended_ms = 0, .exit_code = -1, .exit_signal = 0,
		.end_reason = NULL, .limits = "timeout=600s memory=2G",
		.policy = "/etc/ward.ini", .headless = false,
		.ask_timeout = 120,
	};

	feed_msg(f, msg_welcome(&ri, NULL));
}

static void
act(struct fx *f, int key, struct model_effect *eff)
{
	model_apply_action(f->m, keys_action(key), eff);
}

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof *f);

	f->m = model_new();
	f->mono = MONO0;
	f->wall = WALL0;
	f->w = 80;
	f->h = 24;
	model_set_now(f->m, f->mono, f->wall);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	model_free(f->m);
	free(f);
	return 0;
}

static void
assert_message(struct fx *f, const char *want)
{
	assert_non_null(f->m->message);
	if (strstr(f->m->message, want) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", f->m->message, want);
}

/* ---- an answer confirmed end to end (issue 31) ---- */

/* The screen as the console would draw it now. */
static char *
screen(struct fx *f)
{
	struct view_report rep;
	char *text;

	view_report_init(&rep);
	text = view_render_text(f->m, f->w, f->h, &rep);
	view_report_done(&rep);
	return text;
}

static void
assert_screen_has(struct fx *f, const char *want, bool has)
{
	char *text = screen(f);

	if ((strstr(text, want) != NULL) != has)
		fail_msg("screen %s \"%s\":\n%s", has ? "lacks" : "has", want,
		    text);
	free(text);
}

/* Requests 1 and 2 on screen, armed; then a on #1. */
static void
allow_first(struct fx *f)
{
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 1, "/etc/hosts");
	feed_request(f, 2, "/etc/motd");
	frame(f);
	tick(f, MODEL_ARM_MS);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 1);
}

/* sent -> the supervisor's ack and resolved -> "allowed ✓", a moment,
 * then the row leaves. */
static void
test_answer_confirmed(void **state)
{
	struct fx *f = *state;

	allow_first(f);
	assert_screen_has(f, "allow sent\xe2\x80\xa6", true);
	assert_int_equal(model_unanswered(f->m), 1);
	/* The ack alone confirms nothing yet. */
	feed_msg(f, msg_ack(1, true, NULL));
	assert_screen_has(f, "allow sent\xe2\x80\xa6", true);
	assert_screen_has(f, "allowed", false);
	feed_msg(f, msg_resolved(1, VERDICT_ALLOW, HOW_PERSON,
	    "uid 1000 (alice) pid 4711 via console"));
	assert_screen_has(f, "allowed \xe2\x9c\x93", true);
	assert_screen_has(f, "allow sent", false);
	assert_non_null(model_pending_find(f->m, 1));
	assert_int_equal(model_pending_find(f->m, 1)->fate, FATE_DONE);
	/* It no longer counts, and the selection went on to #2, armed
	 * afresh. */
	assert_int_equal(model_unanswered(f->m), 1);
	assert_screen_has(f, "pending: 1,", true);
	assert_int_equal(f->m->sel, 2);
	assert_false(model_armed(f->m, 2));
	tick(f, MODEL_DONE_MS - 1);
	model_fates_tick(f->m);
	assert_non_null(model_pending_find(f->m, 1));
	tick(f, 1);
	model_fates_tick(f->m);
	assert_null(model_pending_find(f->m, 1));
	assert_screen_has(f, "allowed \xe2\x9c\x93", false);

	/* No UTF-8 terminal: the same in ASCII. */
	model_set_ascii(f->m, true);
	frame(f);
	tick(f, MODEL_ARM_MS);
	frame(f);
	{
		struct model_effect eff;

		act(f, 'd', &eff);
		assert_int_equal(eff.kind, EFFECT_DECIDE);
	}
	assert_screen_has(f, "deny sent...", true);
	feed_msg(f, msg_ack(2, true, NULL));
	feed_msg(f, msg_resolved(2, VERDICT_DENY, HOW_PERSON, "uid 1000"));
	assert_screen_has(f, "denied ok", true);
}

/* An answer another console gave first (no ack of ours came): the row
 * goes at once, as before, and nothing says "allowed ✓" for us. */
static void
test_answer_not_ours(void **state)
{
	struct fx *f = *state;

	allow_first(f);
	feed_msg(f, msg_resolved(1, VERDICT_DENY, HOW_PERSON,
	    "uid 1000 (bob) pid 99 via console"));
	assert_null(model_pending_find(f->m, 1));
	assert_screen_has(f, "\xe2\x9c\x93", false);
}

/* sent -> the link drops -> "not delivered" at once, and it stays (no
 * timeout); no key answers it; the run says it again: pending again,
 * armed afresh. */
static void
test_answer_not_delivered(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct model *fresh;
	json_t *w, *pending;

	allow_first(f);
	feed_msg(f, msg_ack(1, false, "x"));	/* refused: pending again */
	assert_int_equal(model_pending_find(f->m, 1)->sent, VERDICT_NONE);
	tick(f, MODEL_QUIET_MS);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_screen_has(f, "allow sent", true);
	/* A stalled link: no ack; after a while the row says so. */
	model_fates_tick(f->m);
	tick(f, MODEL_NOREPLY_MS - 1);
	assert_screen_has(f, "no reply", false);
	tick(f, 1);
	assert_screen_has(f, "allow sent\xe2\x80\xa6 no reply 2s", true);

	model_set_disconnected(f->m, "host gone");
	assert_screen_has(f, "allow not delivered", true);
	/* #2, never answered, goes as before. */
	assert_null(model_pending_find(f->m, 2));
	assert_int_equal(model_unanswered(f->m), 0);
	tick(f, 600000);
	model_fates_tick(f->m);
	assert_screen_has(f, "allow not delivered", true);
	f->m->sel = 1;
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "not delivered");
	act(f, 'd', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);

	/* The console dials the run again (a fleet: a new model for it,
	 * fleet_reset), and the welcome says #1 again. */
	fresh = model_new();
	model_set_now(fresh, f->mono, f->wall);
	model_carry_lost(fresh, f->m);
	model_free(f->m);
	f->m = fresh;
	w = msg_welcome(&(const struct msg_run){ .id = "r1", .name = "build",
	    .command = "c", .state = RUN_RUNNING, .pid = 4242,
	    .exit_code = -1, .ask_timeout = 120 }, NULL);
	pending = json_array();
	json_array_append_new(pending, request_json(1, "/etc/hosts",
	    f->wall + 60000));
	json_object_set_new(w, "pending", pending);
	feed_msg(f, w);
	assert_non_null(model_pending_find(f->m, 1));
	assert_int_equal(model_pending_find(f->m, 1)->fate, FATE_OPEN);
	assert_int_equal(model_pending_find(f->m, 1)->sent, VERDICT_NONE);
	assert_true(model_pending_find(f->m, 1)->again);
	assert_int_equal(model_unanswered(f->m), 1);
	assert_message(f, "not delivered; it waits again");
	assert_screen_has(f, "again, denied in", true);
	/* Armed afresh: a at once does nothing. */
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	frame(f);
	tick(f, MODEL_ARM_MS);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
}

/* The supervisor closed a request nobody waits for (resolved, verdict
 * "none", by "asker gone"): greyed out, out of the count, an answer key
 * says so, and it leaves after a moment. */
static void
test_asker_gone(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 1, "pypi.org");
	feed_request(f, 2, "/etc/motd");
	frame(f);
	tick(f, MODEL_ARM_MS);
	frame(f);
	assert_int_equal(model_unanswered(f->m), 2);
	feed_msg(f, msg_resolved(2, VERDICT_NONE, HOW_SUPERVISOR,
	    "asker gone"));
	assert_screen_has(f, "asker gone", true);
	assert_int_equal(model_unanswered(f->m), 1);
	assert_int_equal(f->m->sel, 1);
	feed_msg(f, msg_resolved(1, VERDICT_NONE, HOW_SUPERVISOR,
	    "asker gone"));
	assert_int_equal(model_unanswered(f->m), 0);
	assert_message(f, "#1: asker gone");
	/* Selected still, nothing else open: an answer says why not. */
	assert_int_equal(f->m->sel, 1);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "asker gone: nobody waits");
	act(f, 'd', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	/* j and k step over rows that are leaving. */
	act(f, 'k', &eff);
	assert_int_equal(f->m->sel, 1);
	/* A new request takes the selection from a row that is leaving,
	 * as it would from none. */
	feed_request(f, 3, "/etc/issue");
	assert_int_equal(f->m->sel, 3);
	act(f, 'k', &eff);
	act(f, 'g', &eff);
	assert_int_equal(f->m->sel, 3);
	tick(f, MODEL_GONE_MS);
	model_fates_tick(f->m);
	assert_int_equal(f->m->n_pending, 1);
}

/* ---- keys ---- */

static void
test_keys(void **state)
{
	(void)state;
	assert_int_equal(keys_action('a'), ACTION_ALLOW_ONCE);
	assert_int_equal(keys_action('d'), ACTION_DENY_ONCE);
	assert_int_equal(keys_action('K'), ACTION_KILL);
	assert_int_equal(keys_action('y'), ACTION_YES);
	assert_int_equal(keys_action('q'), ACTION_QUIT);
	assert_int_equal(keys_action('?'), ACTION_HELP);
	assert_int_equal(keys_action('j'), ACTION_DOWN);
	assert_int_equal(keys_action(KEYS_DOWN), ACTION_DOWN);
	assert_int_equal(keys_action('k'), ACTION_UP);
	assert_int_equal(keys_action(KEYS_UP), ACTION_UP);
	assert_int_equal(keys_action(KEYS_TAB), ACTION_NEXT_PANE);
	assert_int_equal(keys_action(KEYS_PAGE_UP), ACTION_PAGE_UP);
	assert_int_equal(keys_action(KEYS_PAGE_DOWN), ACTION_PAGE_DOWN);
	assert_int_equal(keys_action(KEYS_RESIZE), ACTION_RESIZE);
	/* Enter, however the terminal sends it, never approves. */
	assert_int_equal(keys_action('\r'), ACTION_DETAIL);
	assert_int_equal(keys_action('\n'), ACTION_DETAIL);
	assert_int_equal(keys_action(KEYS_ENTER), ACTION_DETAIL);
	/* Nothing but 'a' allows. */
	for (int k = 0; k < 0x80; k++) {
		if (k != 'a')
			assert_int_not_equal(keys_action(k), ACTION_ALLOW_ONCE);
	}
	assert_int_equal(keys_action('e'), ACTION_NONE);
	/* X is "deny all" in every console; x and C drop ended runs. */
	assert_int_equal(keys_action('X'), ACTION_DENY_ALL);
	assert_int_equal(keys_action('x'), ACTION_RUN_DISMISS);
	assert_int_equal(keys_action('C'), ACTION_RUN_CLEAR);
}

/* The table the help screen is drawn from: one row per key (so lookup
 * order cannot matter), and every key it lists does something. */
static void
test_keys_table(void **state)
{
	const struct keys_binding *b;
	char buf[KEYS_NAME_MAX];
	size_t n;

	(void)state;
	b = keys_bindings(&n);
	assert_true(n > 0);
	assert_non_null(b[0].help);
	assert_string_not_equal(b[0].help, KEYS_ALSO);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++)
			assert_int_not_equal(b[i].key, b[j].key);
		assert_int_equal(keys_action(b[i].key), b[i].action);
		if (b[i].help != NULL) {
			assert_int_not_equal(b[i].action, ACTION_NONE);
			assert_int_not_equal(b[i].action, ACTION_NOT_YET);
		}
	}
	assert_string_equal(keys_name('j', buf, sizeof buf), "j");
	assert_string_equal(keys_name(KEYS_PAGE_DOWN, buf, sizeof buf), "PgDn");
	assert_string_equal(keys_name('\r', buf, sizeof buf), "Enter");
	assert_string_equal(keys_name(KEYS_CTRL('l'), buf, sizeof buf), "^L");
	assert_string_equal(keys_name(0x263a, buf, sizeof buf), "U+263A");
}

/* ---- messages ---- */

static void
test_welcome(void **state)
{
	struct fx *f = *state;
	struct model_alerts a;
	char buf[64];

	feed(f, "{\"type\":\"welcome\",\"version\":1,\"run\":{\"id\":\"r1\","
	    "\"name\":\"build\",\"command\":\"make\",\"state\":\"running\","
	    "\"pid\":7,\"limits\":{\"timeout\":\"600s\",\"pids\":512},"
	    "\"ask_timeout\":120,\"headless\":true},\"pending\":[]}");
	assert_string_equal(f->m->run.id, "r1");
	assert_string_equal(f->m->run.name, "build");
	assert_string_equal(f->m->run.limits, "timeout=600s pids=512");
	assert_int_equal(f->m->run.pid, 7);
	assert_int_equal(f->m->run.ask_timeout, 120);
	assert_true(f->m->run.headless);
	assert_true(f->m->welcomed);
	model_state_text(f->m, buf, sizeof buf);
	assert_string_equal(buf, "running");
	model_take_alerts(f->m, &a);
	assert_false(a.bell);
	assert_int_equal(f->m->n_pending, 0);
}

static void
test_welcome_pending_sorted(void **state)
{
	struct fx *f = *state;
	struct model_alerts a;
	json_t *msg = json_pack("{s:s,s:i,s:{s:s,s:s},s:[o,o,o]}", "type",
	    "welcome", "version", 1, "run", "id", "r1", "state", "running",
	    "pending", request_json(9, "/etc/c", 0),
	    request_json(3, "/etc/a", 0), request_json(5, "/etc/b", 0));

	assert_int_equal(model_apply_message(f->m, msg), 0);
	json_decref(msg);
	assert_int_equal(f->m->n_pending, 3);
	assert_int_equal(f->m->pending[0]->id, 3);
	assert_int_equal(f->m->pending[1]->id, 5);
	assert_int_equal(f->m->pending[2]->id, 9);
	/* The oldest is selected first. */
	assert_int_equal(f->m->sel, 3);
	model_take_alerts(f->m, &a);
	assert_true(a.bell);
	assert_true(a.flush);
	assert_int_equal(a.notify, 9);
	model_take_alerts(f->m, &a);
	assert_false(a.bell);
	assert_false(a.flush);
}

static void
test_request_escaped(void **state)
{
	struct fx *f = *state;
	const struct pending *p;

	feed_welcome(f);
	feed_request(f, 1, "/etc/\x1b[31mred\x1b]0;title\x07\xe2\x80\xae" "fdp.exe");
	p = model_pending_find(f->m, 1);
	assert_non_null(p);
	assert_string_equal(p->subject,
	    "/etc/\\e[31mred\\e]0;title\\a\\u{202e}fdp.exe");
	assert_null(strchr(p->subject, 0x1b));
	assert_null(p->subject2);
	assert_string_equal(p->cmdline, "python3 build.py");
	assert_int_equal(p->pid, 4242);
	assert_int_equal(p->kind, KIND_WRITE);
}

static void
test_bad_messages(void **state)
{
	struct fx *f = *state;
	json_t *msg = json_pack("{s:s}", "kind", "nothing");

	assert_int_equal(model_apply_message(f->m, msg), -EINVAL);
	json_decref(msg);
	msg = json_pack("{s:s,s:{s:s}}", "type", "request", "request", "id", "x");
	assert_int_equal(model_apply_message(f->m, msg), -EINVAL);
	assert_int_equal(f->m->n_pending, 0);
	json_decref(msg);
	msg = json_pack("{s:s,s:s,s:s}", "type", "output", "stream", "pty",
	    "data", "!!not base64!!");
	assert_int_equal(model_apply_message(f->m, msg), -EINVAL);
	json_decref(msg);
	/* Unknown types are for newer supervisors; ignored. */
	msg = json_pack("{s:s}", "type", "from-the-future");
	assert_int_equal(model_apply_message(f->m, msg), 0);
	json_decref(msg);
}

/* ---- arming ---- */

static void
test_allow_needs_arming(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 1, "/etc/hosts");
	/* Not drawn yet: however long it waits, `a` does nothing. */
	tick(f, 10000);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "wait: request just appeared");

	frame(f);
	tick(f, 100);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "wait: request just appeared");
	assert_false(model_armed(f->m, 1));

	tick(f, 399);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);

	tick(f, 1);
	frame(f);
	assert_true(model_armed(f->m, 1));
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 1);
	assert_int_equal(eff.verdict, VERDICT_ALLOW);
	assert_message(f, "allow #1 once");
	/* A second press sends nothing more. */
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	act(f, 'd', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "already sent");
}

/* s: the third answer to a write that opens a file, armed like a. */
static void
test_stage(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct request *r;

	assert_int_equal(keys_action('s'), ACTION_STAGE_ONCE);
	feed_welcome(f);
	feed_request(f, 1, "/etc/hosts");
	frame(f);
	act(f, 's', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "wait: request just appeared");
	tick(f, 500);
	frame(f);
	act(f, 's', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 1);
	assert_int_equal(eff.verdict, VERDICT_STAGE);
	assert_message(f, "stage #1");
	assert_int_equal(model_pending_find(f->m, 1)->sent, VERDICT_STAGE);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "already sent");

	/* A rename (or any request that opens no file) cannot be staged. */
	r = sample_request(2, "/etc/motd", f->wall + 120000);
	free(r->syscall);
	r->syscall = xstrdup("rename");
	feed_msg(f, msg_request(r));
	request_free(r);
	f->m->sel = 2;
	frame(f);
	tick(f, 500);
	frame(f);
	act(f, 's', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "only a write that opens a file");
	assert_int_equal(model_pending_find(f->m, 2)->sent, VERDICT_NONE);
}

/* A key through model_apply_key, as the console gives it. */
static void
key(struct fx *f, int k, struct model_effect *eff)
{
	bool moved;

	model_apply_key(f->m, k, eff, &moved);
}

/* The trailing silence after an approve: no key for MODEL_TRAIL_MS,
 * then the console's tick sends it. */
static void
silence(struct fx *f, struct model_effect *eff)
{
	tick(f, MODEL_TRAIL_MS);
	assert_true(model_tick(f->m, eff));
}

/*
 * A held `a` (auto-repeat: a key every 30 ms for 4 s) approves nothing,
 * however long the requests were on screen: no key may have arrived in
 * the MODEL_QUIET_MS before an approving one (issue 15).
 */
static void
test_held_key_never_arms(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	int sent = 0;

	feed_welcome(f);
	for (uint64_t id = 1; id <= 5; id++)
		feed_request(f, id, "/etc/queued");
	frame(f);
	tick(f, 5000);
	frame(f);
	/* The held key starts while another key was just typed: each
	 * repeat then comes 30 ms after a key. */
	key(f, 'x', &eff);
	for (int t = 0; t < 4000; t += 30) {
		tick(f, 30);
		key(f, 'a', &eff);
		sent += eff.kind == EFFECT_DECIDE;
		frame(f);
	}
	assert_int_equal(sent, 0);
	assert_message(f, "keys were still arriving");
	assert_false(model_armed(f->m, 1));
	/* Let go: after the quiet period one press answers one request. */
	tick(f, MODEL_QUIET_MS - 1);
	assert_false(model_armed(f->m, 1));
	tick(f, 1);
	assert_true(model_armed(f->m, 1));
	key(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	silence(f, &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 1);
}

/* Five requests on screen for long: the same key held from a quiet
 * moment answers none, not even the first (each repeat comes within
 * MODEL_TRAIL_MS of the one before); let go, one press answers one. */
static void
test_held_key_answers_none(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	int sent = 0;

	feed_welcome(f);
	for (uint64_t id = 1; id <= 5; id++)
		feed_request(f, id, "/etc/queued");
	frame(f);
	tick(f, 5000);
	frame(f);
	for (int t = 0; t < 4000; t += 30) {
		key(f, 'a', &eff);
		sent += eff.kind == EFFECT_DECIDE;
		frame(f);
		tick(f, 30);
		sent += model_tick(f->m, &eff);
	}
	assert_int_equal(sent, 0);
	assert_int_equal(f->m->n_pending, 5);
	assert_message(f, "ignored: keys were still arriving");
	tick(f, 1000);
	assert_false(model_tick(f->m, &eff));
	key(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	silence(f, &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 1);
}

/* ---- arming judged on arrival (issue 31) ---- */

/* A key as the console gives it: when its read came, and whether that
 * read brought others. */
static void
key_at(struct fx *f, int k, int64_t at, bool burst, struct model_effect *eff)
{
	bool moved;

	model_apply_key_at(f->m, k, at, burst, eff, &moved);
}

/* One request on screen, armed long ago; the clock at its mono. */
static void
armed_one(struct fx *f)
{
	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	frame(f);
	tick(f, 5000);
	frame(f);
	assert_true(model_armed(f->m, 1));
}

/* Repeats 30 ms apart with one gap of 479 ms (an ssh hiccup): the key
 * after the gap is quiet and armed, but the next repeat comes within
 * MODEL_TRAIL_MS and drops it. */
static void
test_arm_route_gap(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	int sent = 0;
	bool held = false;

	armed_one(f);
	for (int i = 0; i < 60; i++) {
		tick(f, i == 30 ? 479 : 30);
		sent += model_tick(f->m, &eff);
		key_at(f, 'a', f->mono, false, &eff);
		sent += eff.kind != EFFECT_NONE;
		held |= model_holding(f->m, 1);
		frame(f);
	}
	assert_true(held);	/* the one after the gap was held... */
	tick(f, 30);
	sent += model_tick(f->m, &eff);
	tick(f, 5000);
	sent += model_tick(f->m, &eff);
	assert_int_equal(sent, 0);	/* ...and dropped */
	assert_int_equal(model_pending_find(f->m, 1)->sent, VERDICT_NONE);
	assert_message(f, "keys were still arriving");
}

/* A console stalled 600 ms while keys kept arriving 30 ms apart: they
 * come in one read, a burst, and none approves; nor does a quiet `a`
 * held just before the stall, whose silence the console could not
 * see (the read comes before the tick). */
static void
test_arm_route_stall(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	int64_t read_at;

	armed_one(f);
	key_at(f, 'a', f->mono, false, &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_true(model_holding(f->m, 1));
	assert_message(f, "allowing #1");
	tick(f, 600);		/* stalled: then the round reads first */
	read_at = f->mono;
	for (int i = 0; i < 20; i++) {
		key_at(f, 'a', read_at, true, &eff);
		assert_int_equal(eff.kind, EFFECT_NONE);
	}
	assert_false(model_tick(f->m, &eff));
	assert_false(model_holding(f->m, 1));
	assert_message(f, "keys were still arriving");
	/* A burst is refused however long the quiet before it. */
	tick(f, 5000);
	key_at(f, 'a', f->mono, true, &eff);
	tick(f, 1000);
	assert_false(model_tick(f->m, &eff));
	assert_int_equal(model_pending_find(f->m, 1)->sent, VERDICT_NONE);
}

/* A hold that starts on an armed request: its first key is quiet and
 * armed, the repeats (30..100 ms) drop it. */
static void
test_arm_route_hold(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	int sent = 0;

	armed_one(f);
	for (int i = 0; i < 40; i++) {
		key_at(f, 'a', f->mono, false, &eff);
		sent += eff.kind != EFFECT_NONE;
		tick(f, i % 2 ? 30 : 100);
		sent += model_tick(f->m, &eff);
		frame(f);
	}
	tick(f, 2000);
	sent += model_tick(f->m, &eff);
	assert_int_equal(sent, 0);
	assert_int_equal(model_pending_find(f->m, 1)->sent, VERDICT_NONE);
}

/* A deliberate `a` commits after MODEL_TRAIL_MS of silence, not before;
 * a key in the window drops it; d is sent at once. */
static void
test_arm_deliberate(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct view_report rep;
	char *text;

	view_report_init(&rep);

	armed_one(f);
	feed_request(f, 2, "/etc/two");
	/* The selected row says when a works, then that it waits. */
	text = view_render_text(f->m, f->w, f->h, &rep);
	assert_non_null(strstr(text, "armed  denied in"));
	free(text);
	key_at(f, 'a', f->mono, false, &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_true(model_holding(f->m, 1));
	text = view_render_text(f->m, f->w, f->h, &rep);
	assert_non_null(strstr(text, "allowing"));
	assert_null(strstr(text, "armed  denied in"));
	free(text);
	view_report_done(&rep);
	/* Not yet marked sent: the view shows "allowing". */
	assert_int_equal(model_pending_find(f->m, 1)->sent, VERDICT_NONE);
	assert_int_equal(model_due(f->m), f->mono + MODEL_TRAIL_MS);
	tick(f, MODEL_TRAIL_MS - 1);
	assert_false(model_tick(f->m, &eff));
	tick(f, 1);
	assert_true(model_tick(f->m, &eff));
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.verdict, VERDICT_ALLOW);
	assert_int_equal(eff.request, 1);
	assert_int_equal(model_pending_find(f->m, 1)->sent, VERDICT_ALLOW);
	assert_message(f, "allow #1 once: sent");
	assert_int_equal(model_due(f->m), 0);
	assert_false(model_tick(f->m, &eff));

	/* d needs no silence, nor a quiet moment. */
	key_at(f, 'j', f->mono, false, &eff);
	assert_int_equal(f->m->sel, 2);
	tick(f, 10);
	key_at(f, 'd', f->mono, false, &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.verdict, VERDICT_DENY);
	assert_int_equal(eff.request, 2);
}

/* A key in the window (here j) drops the held approve, and says so; a
 * request answered elsewhere meanwhile is not answered again; a key the
 * model was not given (model_note_key: typeahead thrown away) drops it
 * too. */
static void
test_arm_window(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	armed_one(f);
	key_at(f, 'a', f->mono, false, &eff);
	tick(f, 150);
	key_at(f, 'j', f->mono, false, &eff);
	assert_false(model_holding(f->m, 1));
	assert_message(f, "ignored: keys were still arriving: #1 not allowed");
	tick(f, 1000);
	assert_false(model_tick(f->m, &eff));

	frame(f);
	key_at(f, 'a', f->mono, false, &eff);
	assert_true(model_holding(f->m, 1));
	model_note_key(f->m, 'x', f->mono + 50);
	assert_false(model_holding(f->m, 1));
	tick(f, 1000);
	assert_false(model_tick(f->m, &eff));

	/* Resolved by another console while held: nothing sent. */
	frame(f);
	key_at(f, 'a', f->mono, false, &eff);
	assert_true(model_holding(f->m, 1));
	feed_msg(f, msg_resolved(1, VERDICT_DENY, HOW_PERSON,
	    "uid 1000 via console"));
	tick(f, MODEL_TRAIL_MS);
	assert_false(model_tick(f->m, &eff));
	assert_int_equal(eff.kind, EFFECT_NONE);
}

/* The arrival, not the reading, counts: a key read late (the console
 * was busy) that arrived before the request had been shown for
 * MODEL_ARM_MS does not arm; one read late that arrived after does. */
static void
test_arm_judged_on_arrival(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	int64_t shown;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	frame(f);
	shown = f->mono;
	tick(f, 2000);		/* read 2 s later... */
	key_at(f, 'a', shown + 100, false, &eff);	/* ...came at 100 ms */
	assert_false(model_holding(f->m, 1));
	assert_message(f, "request just appeared");
	tick(f, 2000);
	key_at(f, 'a', f->mono - 300, false, &eff);
	assert_true(model_holding(f->m, 1));
	/* Its silence counts from its arrival, too. */
	assert_int_equal(model_due(f->m), f->mono - 300 + MODEL_TRAIL_MS);
	assert_true(model_tick(f->m, &eff));
	assert_int_equal(eff.kind, EFFECT_DECIDE);
}

/* Every answer that allows waits for the silence: A's y (a rule for the
 * run) too, and a y that came in a burst is dropped; D's y is sent at
 * once. */
static void
test_arm_rule_yes(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct request *r;

	feed_welcome(f);
	for (uint64_t id = 1; id <= 2; id++) {
		r = sample_request(id, id == 1 ? "/etc/one" : "/etc/two",
		    f->wall + 120000);
		r->rule = xstrdup(id == 1 ? "/etc/one" : "/etc/two");
		feed_msg(f, msg_request(r));
		request_free(r);
	}
	frame(f);
	tick(f, 5000);
	frame(f);
	key_at(f, 'A', f->mono, false, &eff);
	assert_int_equal(f->m->answer.ask, ASK_RULE);
	tick(f, 800);
	key_at(f, 'y', f->mono, true, &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_false(model_holding(f->m, 1));
	assert_message(f, "keys were still arriving");

	tick(f, 1000);
	frame(f);
	key_at(f, 'A', f->mono, false, &eff);
	tick(f, 800);
	key_at(f, 'y', f->mono, false, &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_true(model_holding(f->m, 1));
	tick(f, MODEL_TRAIL_MS);
	assert_true(model_tick(f->m, &eff));
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.scope, SCOPE_RUN);
	assert_string_equal(eff.rule, "/etc/one");

	key_at(f, 'j', f->mono, false, &eff);
	tick(f, 100);
	key_at(f, 'D', f->mono, false, &eff);
	key_at(f, 'y', f->mono + 10, false, &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.verdict, VERDICT_DENY);
}

/* A read that ends inside a key waits for the rest (tui/screen.c). */
static void
test_keys_tail(void **state)
{
	static const struct {
		const char	*bytes;
		bool		 cut;
	} rows[] = {
		{ "a", false }, { "aaa", false }, { "\033", true },
		{ "a\033", true }, { "\033[", true }, { "\033[1;5", true },
		{ "\033[A", false }, { "\033[1;5A", false },
		{ "\033[200~", false }, { "\033[20", true },
		{ "\033O", true }, { "\033OP", false },
		{ "\033[M", true }, { "\033[M !", true },
		{ "\033[M !!", false }, { "\033[<0;10;20", true },
		{ "\033[<0;10;20M", false }, { "\033x", false },
		{ "\033[Aa", false }, { "\xc3", true }, { "\xc3\xa9", false },
		{ "\xe2\x82", true }, { "\xe2\x82\xac", false },
		{ "\xf0\x9f\x98", true }, { "\xf0\x9f\x98\x80", false },
		{ "\033[Aa\xc3", true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		if (keys_tail_incomplete((const unsigned char *)rows[i].bytes,
		    strlen(rows[i].bytes)) != rows[i].cut)
			fail_msg("row %zu: want %d", i, rows[i].cut);
	}
}

/* Every selection change re-arms, the person's own moves too. */
static void
test_selection_change_rearms(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	feed_request(f, 2, "/etc/two");
	frame(f);
	tick(f, 5000);
	frame(f);
	assert_true(model_armed(f->m, 2));
	tick(f, 1000);
	key(f, 'j', &eff);
	assert_int_equal(f->m->sel, 2);
	tick(f, 1000);
	frame(f);
	assert_true(model_armed(f->m, 2));
	key(f, 'k', &eff);
	tick(f, MODEL_ARM_MS - 1);
	frame(f);
	assert_false(model_armed(f->m, 1));
	key(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	tick(f, MODEL_ARM_MS);
	frame(f);
	key(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	silence(f, &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 1);
}

/* Typeahead goes when the focus moves (Tab, v) and when a request
 * appears. */
static void
test_focus_move_flushes(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct model_alerts a;

	feed_welcome(f);
	model_take_alerts(f->m, &a);
	key(f, '\t', &eff);
	model_take_alerts(f->m, &a);
	assert_true(a.flush);
	key(f, 'j', &eff);
	model_take_alerts(f->m, &a);
	assert_false(a.flush);
	feed_request(f, 1, "/etc/one");
	model_take_alerts(f->m, &a);
	assert_true(a.flush);
}

static void
test_enter_never_approves(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	static const int enters[] = { '\r', '\n', KEYS_ENTER };

	feed_welcome(f);
	feed_request(f, 1, "/etc/hosts");
	frame(f);
	tick(f, 5000);
	frame(f);
	for (size_t i = 0; i < 6; i++) {
		act(f, enters[i % 3], &eff);
		assert_int_equal(eff.kind, EFFECT_NONE);
		assert_int_equal(f->m->detail, i % 2 == 0);
		frame(f);
	}
	assert_int_equal(model_pending_find(f->m, 1)->sent, VERDICT_NONE);
	/* Esc and q close the detail view too, and q does not leave then. */
	act(f, '\r', &eff);
	assert_true(f->m->detail);
	act(f, KEYS_ESC, &eff);
	assert_false(f->m->detail);
	act(f, '\r', &eff);
	act(f, 'q', &eff);
	assert_false(f->m->detail);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_false(f->m->quit);
}

static void
test_deny(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 4, "/etc/hosts");
	/* Deny is safe: no arming needed. */
	act(f, 'd', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 4);
	assert_int_equal(eff.verdict, VERDICT_DENY);
	assert_int_equal(model_pending_find(f->m, 4)->sent, VERDICT_DENY);
	feed_msg(f, msg_resolved(4, VERDICT_DENY, HOW_PERSON,
	    "uid 1000 via console"));
	assert_int_equal(f->m->n_pending, 0);
	assert_int_equal(f->m->sel, 0);
	assert_int_equal(f->m->event_count, 1);
	assert_string_equal(model_event_at(f->m, 0)->text,
	    "#4 write /etc/hosts: deny (person, uid 1000 via console)");
	assert_int_equal(model_event_at(f->m, 0)->verdict, VERDICT_DENY);
	act(f, 'd', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "no request selected");
}

static void
test_new_request_flushes_and_keeps_selection(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct model_alerts a;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	model_take_alerts(f->m, &a);
	frame(f);
	tick(f, 600);
	frame(f);
	assert_true(model_armed(f->m, 1));

	feed_request(f, 2, "/etc/two");
	model_take_alerts(f->m, &a);
	assert_true(a.flush);
	assert_true(a.bell);
	assert_int_equal(a.notify, 2);
	/* The person's selection stays where they put it. */
	assert_int_equal(f->m->sel, 1);
	assert_true(model_armed(f->m, 1));
	assert_false(model_armed(f->m, 2));

	/* Moving to the new one: it arms on its own clock. */
	frame(f);
	act(f, 'j', &eff);
	assert_int_equal(f->m->sel, 2);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	tick(f, 500);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 2);
}

/*
 * The selected request is decided elsewhere (or expires) just as the
 * person presses `a` twice: the selection moves on, and the second `a`
 * must not approve the next one, however long that one was on screen.
 */
static void
test_selection_moved_by_others_rearms(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct model_alerts a;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	feed_request(f, 2, "/etc/two");
	frame(f);
	tick(f, 5000);
	frame(f);
	assert_true(model_armed(f->m, 1));
	assert_true(model_armed(f->m, 2));
	model_take_alerts(f->m, &a);

	feed_msg(f, msg_resolved(1, VERDICT_DENY, HOW_TIMEOUT, "timeout"));
	assert_int_equal(f->m->sel, 2);
	assert_false(model_armed(f->m, 2));
	model_take_alerts(f->m, &a);
	assert_true(a.flush);
	assert_message(f, "#1 write /etc/one: deny (timeout, timeout)");
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	frame(f);
	tick(f, 500);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 2);
}

static void
test_help_hides_and_disarms(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	frame(f);
	tick(f, 1000);
	frame(f);
	assert_true(model_armed(f->m, 1));
	act(f, '?', &eff);
	assert_true(f->m->help);
	frame(f);
	assert_false(model_armed(f->m, 1));
	/* Any key closes help and does only that: this `a` does not allow. */
	act(f, 'a', &eff);
	assert_false(f->m->help);
	assert_int_equal(eff.kind, EFFECT_NONE);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	tick(f, 500);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
}

static void
test_too_small_disarms(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	f->w = 79;
	frame(f);
	tick(f, 5000);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	f->w = 80;
	frame(f);
	tick(f, 500);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
}

/* The compact layout (60x15) never arms `a`; Enter's whole view does. */
static void
test_compact_arms_in_detail(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	f->w = 60;
	f->h = 15;
	frame(f);
	tick(f, 5000);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	act(f, '\r', &eff);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	tick(f, MODEL_ARM_MS);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
}

/* A request taller than its pane is never armed from the pane: the person
 * reads it whole in the detail view (Enter), to its last line. */
static void
test_tall_request_needs_detail(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	char path[4200];

	memset(path, 'x', sizeof path - 1);
	path[0] = '/';
	path[sizeof path - 1] = '\0';
	feed_welcome(f);
	feed_request(f, 1, path);
	frame(f);
	tick(f, 5000);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "Enter shows all of it");

	act(f, '\r', &eff);
	frame(f);
	tick(f, 5000);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_true(f->m->detail_lines > f->m->detail_rows);
	act(f, 'G', &eff);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	tick(f, 500);
	frame(f);
	/* Scrolling back up keeps it armed: it was read whole. */
	act(f, 'g', &eff);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
}

/* ---- kill, quit ---- */

static void
test_kill_confirm(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	frame(f);
	tick(f, 1000);
	frame(f);
	act(f, 'K', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_true(f->m->confirm_kill);
	assert_message(f, "kill run build (");
	/* Any other key says no, and does nothing else: not even `a`. */
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_false(f->m->confirm_kill);
	assert_message(f, "kill cancelled");
	act(f, 'K', &eff);
	act(f, 'n', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	act(f, 'K', &eff);
	act(f, 'Y', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);	/* y alone: nothing */
	act(f, 'K', &eff);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_KILL);
}

static void
test_quit(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	char *leave;

	feed_welcome(f);
	act(f, 'q', &eff);
	assert_int_equal(eff.kind, EFFECT_QUIT);
	assert_true(f->m->quit);
	leave = model_leave_text(f->m);
	assert_string_equal(leave,
	    "ward: run r1 continues; reattach with: ward console r1");
	free(leave);
	assert_int_equal(model_exit_status(f->m, false), 0);
}

/* q (or Ctrl-C) with requests waiting asks first; only y leaves. */
static void
test_quit_asks_with_pending(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	char q[256];

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	feed_request_at(f, 2, "/etc/two", f->wall + 114000);
	act(f, 'q', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_false(f->m->quit);
	assert_true(f->m->confirm_quit);
	model_quit_question(f->m, q, sizeof q);
	assert_string_equal(q, "leave? 2 requests wait up to 2:00 for another "
	    "console, then they are denied. y/n");
	/* Any other key stays, and does only that: not even `a`. */
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_false(f->m->confirm_quit);
	assert_false(f->m->quit);
	act(f, 'q', &eff);
	act(f, 'n', &eff);
	assert_false(f->m->quit);
	act(f, 'd', &eff);	/* deny #1: one is left */
	act(f, 'q', &eff);
	model_quit_question(f->m, q, sizeof q);
	assert_string_equal(q, "leave? 1 request waits up to 1:54 for another "
	    "console, then it is denied. y/n");
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_QUIT);
	assert_true(f->m->quit);
	/* ward run's status says the run goes on; ward console's is 0. */
	assert_int_equal(model_exit_status(f->m, true), MODEL_EXIT_DETACHED);
	assert_int_equal(model_exit_status(f->m, false), 0);
}

/* --view: no answer key answers, q never asks, and the keys line says so. */
static void
test_view_only(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	static const int keys[] = { 'a', 'd', 'K', 'A', 'D', 'r' };

	model_set_view_only(f->m);
	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	frame(f);
	tick(f, 5000);
	frame(f);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		key(f, keys[i], &eff);
		assert_int_equal(eff.kind, EFFECT_NONE);
		assert_message(f, "view only");
		tick(f, 1000);
	}
	assert_false(f->m->confirm_kill);
	act(f, 'q', &eff);
	assert_int_equal(eff.kind, EFFECT_QUIT);
}

/* The notify_cmd hook's requests: each once, oldest first, after N s,
 * not those answered. */
static void
test_overdue(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	const struct pending *p;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	feed_request(f, 2, "/etc/two");
	assert_null(model_take_overdue(f->m, 30));
	act(f, 'd', &eff);		/* #1 answered: not for the hook */
	tick(f, 29999);
	assert_null(model_take_overdue(f->m, 30));
	tick(f, 1);
	p = model_take_overdue(f->m, 30);
	assert_non_null(p);
	assert_int_equal(p->id, 2);
	assert_null(model_take_overdue(f->m, 30));
}

static void
test_run_ends(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	char buf[64], *leave;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	feed(f, "{\"type\":\"state\",\"run\":{\"id\":\"r1\",\"state\":\"exited\","
	    "\"exit_code\":3,\"exit_signal\":null,\"end_reason\":\"exit\","
	    "\"ended_ms\":99}}");
	assert_true(model_run_ended(f->m));
	assert_int_equal(f->m->n_pending, 0);
	model_state_text(f->m, buf, sizeof buf);
	assert_string_equal(buf, "exited 3");
	act(f, 'K', &eff);
	assert_false(f->m->confirm_kill);
	assert_message(f, "the run has ended");
	/* The socket closing after the end is no failure. */
	model_set_disconnected(f->m, "connection closed");
	assert_int_equal(model_exit_status(f->m, false), 0);
	assert_int_equal(model_exit_status(f->m, true), 3);
	leave = model_leave_text(f->m);
	assert_string_equal(leave, "ward: run r1: exited 3");
	free(leave);

	feed(f, "{\"type\":\"state\",\"run\":{\"exit_code\":null,"
	    "\"exit_signal\":9,\"end_reason\":\"killed\"}}");
	model_state_text(f->m, buf, sizeof buf);
	assert_string_equal(buf, "killed");
	assert_int_equal(model_exit_status(f->m, true), 137);
	feed(f, "{\"type\":\"state\",\"run\":{\"end_reason\":\"timeout\"}}");
	model_state_text(f->m, buf, sizeof buf);
	assert_string_equal(buf, "timeout");
}

static void
test_supervisor_gone(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	char *leave;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	model_set_disconnected(f->m, "connection closed");
	assert_true(f->m->disconnected);
	assert_int_equal(f->m->n_pending, 0);
	assert_message(f, "supervisor gone");
	act(f, 'K', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_false(f->m->confirm_kill);
	act(f, 'q', &eff);
	assert_int_equal(eff.kind, EFFECT_QUIT);
	assert_int_equal(model_exit_status(f->m, false), 1);
	assert_int_equal(model_exit_status(f->m, true), 1);
	leave = model_leave_text(f->m);
	assert_string_equal(leave, "ward: run r1: supervisor gone");
	free(leave);
}

static void
test_ack_error(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 1, "/etc/one");
	act(f, 'd', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	feed_msg(f, msg_ack(1, false, "already decided"));
	assert_message(f, "#1: already decided");
	assert_int_equal(f->m->message_level, MSG_ERROR);
	assert_int_equal(model_pending_find(f->m, 1)->sent, VERDICT_NONE);
	feed_msg(f, msg_ack(0, false, "\x1b[2Jno"));
	assert_message(f, "refused: \\e[2Jno");
	feed_msg(f, msg_ack(1, true, NULL));
}

static void
test_countdown(void **state)
{
	struct fx *f = *state;
	char buf[64];

	feed_welcome(f);
	feed_request_at(f, 1, "/etc/x", WALL0 + 114000);
	model_countdown(f->m, model_pending_find(f->m, 1), buf, sizeof buf);
	assert_string_equal(buf, "denied in 1:54");
	tick(f, 500);
	model_countdown(f->m, model_pending_find(f->m, 1), buf, sizeof buf);
	assert_string_equal(buf, "denied in 1:54");
	tick(f, 600);
	model_countdown(f->m, model_pending_find(f->m, 1), buf, sizeof buf);
	assert_string_equal(buf, "denied in 1:53");
	tick(f, 200000);
	model_countdown(f->m, model_pending_find(f->m, 1), buf, sizeof buf);
	assert_string_equal(buf, "denied in 0:00");
}

static void
test_moves_and_panes(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	for (uint64_t i = 1; i <= 3; i++)
		feed_request(f, i, "/etc/x");
	assert_int_equal(f->m->focus, PANE_PENDING);
	act(f, 'j', &eff);
	act(f, KEYS_DOWN, &eff);
	act(f, 'j', &eff);
	assert_int_equal(f->m->sel, 3);
	act(f, 'k', &eff);
	assert_int_equal(f->m->sel, 2);
	act(f, 'g', &eff);
	assert_int_equal(f->m->sel, 1);
	act(f, 'G', &eff);
	assert_int_equal(f->m->sel, 3);

	for (int i = 0; i < 100; i++) {
		char line[32];
		int n = snprintf(line, sizeof line, "line %d\n", i);

		output_feed(&f->m->out, STREAM_PTY, line, (size_t)n);
	}
	frame(f);
	act(f, KEYS_TAB, &eff);
	assert_int_equal(f->m->focus, PANE_OUTPUT);
	act(f, 'k', &eff);
	assert_int_equal(f->m->out.scroll, 1);
	act(f, KEYS_PAGE_UP, &eff);
	assert_int_equal(f->m->out.scroll, 1 + (size_t)f->m->page_rows - 1);
	act(f, 'g', &eff);
	assert_int_equal(f->m->out.scroll, 99);
	/* New lines keep a reader's place. */
	output_feed(&f->m->out, STREAM_PTY, "more\n", 5);
	assert_int_equal(f->m->out.scroll, 100);
	act(f, KEYS_END, &eff);
	assert_int_equal(f->m->out.scroll, 0);
	act(f, KEYS_TAB, &eff);
	assert_int_equal(f->m->focus, PANE_PENDING);
	assert_int_equal(f->m->sel, 3);
}

/* ---- output ---- */

static const char *
line(struct fx *f, size_t i)
{
	const struct output_line *l = output_at(&f->m->out, i);

	assert_non_null(l);
	return l->text;
}

static void
test_output_message(void **state)
{
	struct fx *f = *state;
	static const char bytes[] = "hi \x1b[32mthere\x1b[0m\r\nsecond";
	char *t;

	feed_msg(f, msg_output(AUDIT_PTY, bytes, sizeof bytes - 1));
	assert_int_equal(output_count(&f->m->out), 1);
	/* The colours are shown as markers, never obeyed (issue 15). */
	assert_string_equal(line(f, 0), "hi \xe2\x9f\xa8" "ESC[32m\xe2\x9f\xa9"
	    "there\xe2\x9f\xa8" "ESC[0m\xe2\x9f\xa9");
	t = output_partial_text(&f->m->out, STREAM_PTY);
	assert_string_equal(t, "second");
	free(t);
}

static void
test_events(void **state)
{
	struct fx *f = *state;
	const struct audit_event ev = {
		.kind = KIND_WRITE, .syscall = "openat",
		.subject = "/work/\x1b[2Jx", .subject2 = NULL, .detail = "",
		.verdict = VERDICT_ALLOW, .how = HOW_POLICY,
		.rule = "allow write /work/*", .pid = 3, .time_ms = 1,
	};

	feed_msg(f, msg_event(&ev));
	assert_int_equal(f->m->event_count, 1);
	assert_string_equal(model_event_at(f->m, 0)->text,
	    "write /work/\\e[2Jx: allow (policy: allow write /work/*)");
	assert_int_equal(model_event_at(f->m, 0)->verdict, VERDICT_ALLOW);
	for (int i = 0; i < MODEL_EVENTS + 5; i++)
		feed_msg(f, msg_resolved(77, VERDICT_DENY, HOW_TIMEOUT, NULL));
	assert_int_equal(f->m->event_count, MODEL_EVENTS);
	assert_string_equal(model_event_at(f->m, 0)->text,
	    "#77: deny (timeout)");
}

/* Kinds http and secret (issue 19): the line carries the detail (status,
 * bytes, where the phantom was), and a secret is shown as a refusal. */
static void
test_events_gate(void **state)
{
	struct fx *f = *state;
	const struct audit_event http = {
		.kind = KIND_HTTP, .syscall = "http",
		.subject = "api.test:443 GET /v1/x",
		.detail = "status 200, 81 B up, 167 B down, secret TOKEN",
		.verdict = VERDICT_ALLOW, .how = HOW_POLICY,
		.rule = "api.test:443 GET /v1/**", .time_ms = 1,
	};
	const struct audit_event secret = {
		.kind = KIND_SECRET, .syscall = "http",
		.subject = "TOKEN to api2.test:443",
		.detail = "in header x-api-key; GET /\x1b[2J",
		.verdict = VERDICT_DENY, .how = HOW_POLICY,
		.rule = "[secret TOKEN] hosts", .time_ms = 2,
	};

	feed_msg(f, msg_event(&http));
	feed_msg(f, msg_event(&secret));
	assert_int_equal(f->m->event_count, 2);
	assert_string_equal(model_event_at(f->m, 0)->text,
	    "http api.test:443 GET /v1/x [status 200, 81 B up, 167 B down, "
	    "secret TOKEN]: allow (policy: api.test:443 GET /v1/**)");
	assert_string_equal(model_event_at(f->m, 1)->text,
	    "secret TOKEN to api2.test:443 [in header x-api-key; GET "
	    "/\\e[2J]: deny (policy: [secret TOKEN] hosts)");
	assert_int_equal(model_event_at(f->m, 1)->verdict, VERDICT_DENY);
}

/* The diff pane: c opens it and asks for a load; j/k scroll its patch;
 * ] and [ move between files (each a load), stopping at the ends; Esc
 * and q close it (q does not leave); the request keys are not taken. */
static void
test_diff_pane(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	static const char *const files[] = { "modified a", "added b" };
	static const char patch[] = "diff --git a/a b/a\n@@ -1 +1 @@\n-x\n"
	    "+\ty\x1b[2J\n";

	act(f, 'c', &eff);
	assert_true(f->m->diff.open);
	assert_int_equal(eff.kind, EFFECT_DIFF_LOAD);
	model_diff_set_files(f->m, files, 2);
	model_diff_set_patch(f->m, patch, strlen(patch));
	assert_int_equal(f->m->diff.n_lines, 4);
	/* tab expanded, escape escaped */
	assert_non_null(strstr(f->m->diff.lines[3], "+       y"));
	assert_null(strchr(f->m->diff.lines[3], '\x1b'));
	act(f, 'j', &eff);
	act(f, 'j', &eff);
	assert_int_equal(f->m->diff.scroll, 2);
	act(f, 'G', &eff);
	assert_int_equal(f->m->diff.scroll, 3);
	act(f, 'g', &eff);
	assert_int_equal(f->m->diff.scroll, 0);
	act(f, ']', &eff);
	assert_int_equal(f->m->diff.sel, 1);
	assert_int_equal(eff.kind, EFFECT_DIFF_LOAD);
	act(f, ']', &eff);
	assert_int_equal(f->m->diff.sel, 1);
	act(f, '[', &eff);
	assert_int_equal(f->m->diff.sel, 0);
	/* fewer files than sel: sel follows */
	f->m->diff.sel = 1;
	model_diff_set_files(f->m, files, 1);
	assert_int_equal(f->m->diff.sel, 0);
	act(f, 'q', &eff);
	assert_false(f->m->diff.open);
	assert_false(f->m->quit);
	act(f, 'c', &eff);
	act(f, KEYS_ESC, &eff);
	assert_false(f->m->diff.open);
	/* ] outside the pane only says how to open it */
	act(f, ']', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
}

/* p / P / u / U in the diff pane: the exact files listed first, nothing
 * done until an armed y (drawn whole for MODEL_ARM_MS); y too early keeps
 * asking; any other key cancels; the list is a copy a refresh leaves
 * alone; outside the pane, p only says how to open it. */
static void
diff_targets(struct fx *f, size_t n)
{
	static const char *const files[] = { "modified a", "added b",
	    "deleted c" };
	static const char *const targets[] = { "/h/a", "/h/b", "/h/c" };
	static const char *const labels[] = { "modified /h/a",
	    "added    /h/b", "deleted  /h/\x1b[2Jc" };

	static const char *const hashes[] = { "aaaa", "bbbb", "-" };

	model_diff_set_files(f->m, files, n);
	model_diff_set_targets(f->m, targets, labels, n);
	model_diff_set_hashes(f->m, hashes, n);
}

static void
test_diff_confirm(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	act(f, 'p', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_int_equal(f->m->diff.confirm, DIFF_OP_NONE);
	act(f, 'c', &eff);
	diff_targets(f, 3);
	act(f, ']', &eff);
	/* p: the selected file only */
	act(f, 'p', &eff);
	assert_int_equal(f->m->diff.confirm, DIFF_OP_APPLY);
	assert_int_equal(f->m->diff.n_confirm, 1);
	assert_string_equal(f->m->diff.confirm_targets[0], "/h/b");
	/* the hash it was listed with goes with it: y applies those bytes */
	assert_non_null(f->m->diff.confirm_hashes);
	assert_string_equal(f->m->diff.confirm_hashes[0], "bbbb");
	/* not drawn yet: y is refused and the question stays */
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_int_equal(f->m->diff.confirm, DIFF_OP_APPLY);
	frame(f);
	tick(f, MODEL_ARM_MS - 1);
	frame(f);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_non_null(strstr(f->m->message, "read the list first"));
	tick(f, 1);
	frame(f);
	/* a refresh of the pane changes nothing of what y does */
	diff_targets(f, 1);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_DIFF_ACT);
	assert_string_equal(f->m->diff.confirm_targets[0], "/h/b");
	assert_string_equal(f->m->diff.confirm_hashes[0], "bbbb");
	model_diff_confirm_done(f->m);
	assert_int_equal(f->m->diff.confirm, DIFF_OP_NONE);
	/* P: all, U: all to discard; n (or any other key) cancels */
	diff_targets(f, 3);
	act(f, 'P', &eff);
	assert_int_equal(f->m->diff.n_confirm, 3);
	assert_null(strchr(f->m->diff.confirm_labels[2], '\x1b'));
	frame(f);
	tick(f, MODEL_ARM_MS);
	frame(f);
	act(f, 'n', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_int_equal(f->m->diff.confirm, DIFF_OP_NONE);
	assert_true(f->m->diff.open);
	act(f, 'U', &eff);
	assert_int_equal(f->m->diff.confirm, DIFF_OP_DISCARD);
	assert_int_equal(f->m->diff.n_confirm, 3);
	frame(f);
	tick(f, MODEL_ARM_MS);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_int_equal(f->m->diff.confirm, DIFF_OP_NONE);
	act(f, 'u', &eff);
	assert_int_equal(f->m->diff.n_confirm, 1);
	/* the refresh to one file moved sel to it */
	assert_string_equal(f->m->diff.confirm_targets[0], "/h/a");
	/* shown, then off screen (help): arming starts again */
	frame(f);
	tick(f, MODEL_ARM_MS);
	f->m->diff.open = false;
	frame(f);
	f->m->diff.open = true;
	frame(f);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	tick(f, MODEL_ARM_MS);
	frame(f);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_DIFF_ACT);
	model_diff_confirm_done(f->m);
	/* nothing staged: nothing to ask */
	diff_targets(f, 0);
	act(f, 'P', &eff);
	assert_int_equal(f->m->diff.confirm, DIFF_OP_NONE);
}

/* A held file (protected, or over max_apply): P leaves it out and says
 * so; p on it alone lists it, and y applies it; U discards it with the
 * rest. P with only held files asks nothing. */
static void
test_diff_confirm_held(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	static const char *const held[] = { "", "protected: a git hook: "
	    "git runs it as you", "" };
	static const char *const held1[] = { "protected: a git hook" };

	act(f, 'c', &eff);
	diff_targets(f, 3);
	model_diff_set_held(f->m, held, 3);
	act(f, 'P', &eff);
	assert_int_equal(f->m->diff.confirm, DIFF_OP_APPLY);
	assert_int_equal(f->m->diff.n_confirm, 2);
	assert_int_equal(f->m->diff.confirm_held, 1);
	assert_string_equal(f->m->diff.confirm_targets[0], "/h/a");
	assert_string_equal(f->m->diff.confirm_targets[1], "/h/c");
	act(f, 'n', &eff);
	assert_int_equal(f->m->diff.confirm_held, 0);
	act(f, 'U', &eff);
	assert_int_equal(f->m->diff.n_confirm, 3);
	act(f, 'n', &eff);
	act(f, ']', &eff);
	act(f, 'p', &eff);
	assert_int_equal(f->m->diff.n_confirm, 1);
	assert_string_equal(f->m->diff.confirm_targets[0], "/h/b");
	frame(f);
	tick(f, MODEL_ARM_MS);
	frame(f);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_DIFF_ACT);
	model_diff_confirm_done(f->m);
	diff_targets(f, 1);
	model_diff_set_held(f->m, held1, 1);
	act(f, 'P', &eff);
	assert_int_equal(f->m->diff.confirm, DIFF_OP_NONE);
	assert_non_null(strstr(f->m->message, "1 held file"));
}

/* A list longer than the screen never arms: y is refused. */
static void
test_diff_confirm_partial(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	char *files[40], *targets[40];

	for (size_t i = 0; i < 40; i++) {
		files[i] = xasprintf("added    f%zu", i);
		targets[i] = xasprintf("/h/f%zu", i);
	}
	act(f, 'c', &eff);
	model_diff_set_files(f->m, (const char *const *)files, 40);
	model_diff_set_targets(f->m, (const char *const *)targets,
	    (const char *const *)files, 40);
	act(f, 'P', &eff);
	assert_int_equal(f->m->diff.n_confirm, 40);
	frame(f);
	tick(f, 10 * MODEL_ARM_MS);
	frame(f);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_non_null(strstr(f->m->message, "not shown whole"));
	for (size_t i = 0; i < 40; i++) {
		free(files[i]);
		free(targets[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_diff_confirm, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_diff_confirm_partial,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_diff_confirm_held,
		    setup, teardown),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_keys_table),
		cmocka_unit_test_setup_teardown(test_diff_pane, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_welcome, setup, teardown),
		cmocka_unit_test_setup_teardown(test_welcome_pending_sorted, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_request_escaped, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bad_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_allow_needs_arming, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_held_key_never_arms, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_held_key_answers_none,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_selection_change_rearms, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_arm_route_gap, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_arm_route_stall, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_arm_route_hold, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_arm_deliberate, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_arm_window, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_arm_judged_on_arrival, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_arm_rule_yes, setup,
		    teardown),
		cmocka_unit_test(test_keys_tail),
		cmocka_unit_test_setup_teardown(test_focus_move_flushes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_enter_never_approves, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_deny, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_new_request_flushes_and_keeps_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_selection_moved_by_others_rearms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_hides_and_disarms, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_compact_arms_in_detail, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_too_small_disarms, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tall_request_needs_detail,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill_confirm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quit_asks_with_pending, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_view_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overdue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_supervisor_gone, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ack_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_countdown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_moves_and_panes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_output_message, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_events_gate, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answer_confirmed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_answer_not_ours, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_answer_not_delivered,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_asker_gone, setup,
		    teardown),
	};

	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		setlocale(LC_CTYPE, "en_US.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
