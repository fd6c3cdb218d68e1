/* SPDX-License-Identifier: MIT */
/* tui/model.c's answers that ask first (issue 15): A and D show the exact
 * rule and send it with the answer, r types a reason, a group answer
 * shows its glob, X denies all; a timeout never stores a rule; sensitive
 * requests come first and new ones never take the selection. Golden
 * screens: groups and rule confirmation. Driven as test-tui-model.c. */
#include <errno.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/msg.h"
#include "approvals/proto.h"
#include "config/util.h"
#include "tests/golden.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/view.h"

#define WALL0	1700000000000LL

static struct request *sample_request_pid(uint64_t, const char *, int64_t,
    pid_t);

/* The supervisor's rule for a write: the path with glob characters
 * escaped (approvals/decide.h answers_pattern). */
static char *
answers_pattern_like(const char *s)
{
	char *o = xmalloc(strlen(s) * 2 + 1), *p = o;

	for (; *s; s++) {
		if (strchr("*?[]\\", *s) != NULL)
			*p++ = '\\';
		*p++ = *s;
	}
	*p = '\0';
	return o;
}
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
	return sample_request_pid(id, subject, deadline, 4242);
}

static struct request *
sample_request_pid(uint64_t id, const char *subject, int64_t deadline,
    pid_t pid)
{
	struct request *r = request_new();

	r->id = id;
	r->run = xstrdup("r1");
	r->pid = pid;
	r->kind = KIND_WRITE;
	r->syscall = xstrdup("openat");
	r->subject = xstrdup(subject);
	r->detail = xstrdup("flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644");
	r->cmdline = xstrdup("python3 build.py");
	r->cwd = xstrdup("/work");
	r->why = xstrdup("no rule");
	r->created_ms = WALL0;
	r->deadline_ms = deadline;
	r->rule = answers_pattern_like(subject);
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

static void
assert_ask(struct fx *f, const char *want)
{
	cleanup_free char *t = model_ask_text(f->m);

	assert_non_null(t);
	if (strstr(t, want) == NULL)
		fail_msg("prompt \"%s\" lacks \"%s\"", t, want);
}

static void
golden_fx(struct fx *f, const char *name)
{
	cleanup_free char *file = xasprintf("%s-%dx%d", name, f->w, f->h);
	cleanup_free char *text = NULL;
	struct view_report rep;

	view_report_init(&rep);
	text = view_render_text(f->m, f->w, f->h, &rep);
	view_report_done(&rep);
	golden(file, text);
}

/* Shown whole long enough to arm (as the person would see it). */
static void
arm(struct fx *f)
{
	frame(f);
	tick(f, MODEL_ARM_MS + 100);
	frame(f);
}

/* A and D show the exact rule, y sends it with scope run; anything else
 * cancels and sends nothing. */
static void
test_rule_confirmed(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 3, "/tmp/w/a*b");
	arm(f);
	act(f, 'A', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_int_equal(f->m->answer.ask, ASK_RULE);
	assert_ask(f, "allow write /tmp/w/a\\\\*b");
	golden_fx(f, "rule-confirm");
	/* a held A is a no: the second cancels */
	act(f, 'A', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_int_equal(f->m->answer.ask, ASK_NONE);
	assert_message(f, "cancelled");
	assert_int_equal(model_pending_find(f->m, 3)->sent, VERDICT_NONE);

	act(f, 'A', &eff);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 3);
	assert_int_equal(eff.verdict, VERDICT_ALLOW);
	assert_int_equal(eff.scope, SCOPE_RUN);
	assert_string_equal(eff.rule, "/tmp/w/a\\*b");
	assert_int_equal(model_pending_find(f->m, 3)->sent, VERDICT_ALLOW);

	/* D needs no arming; it too shows the rule first */
	feed_request(f, 4, "/tmp/v/c");
	frame(f);
	act(f, 'j', &eff);
	assert_int_equal(f->m->sel, 4);
	act(f, 'D', &eff);
	assert_ask(f, "deny write /tmp/v/c");
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.verdict, VERDICT_DENY);
	assert_int_equal(eff.scope, SCOPE_RUN);
	assert_string_equal(eff.rule, "/tmp/v/c");
}

/* A before arming does nothing; a supervisor that did not say the rule
 * gets no A at all. */
static void
test_rule_needs_arming_and_rule(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct request *r;

	feed_welcome(f);
	feed_request(f, 1, "/tmp/w/x");
	act(f, 'A', &eff);
	assert_int_equal(f->m->answer.ask, ASK_NONE);
	assert_message(f, "wait");
	r = sample_request(2, "/tmp/v/y", f->wall + 1000);
	free(r->rule);
	r->rule = NULL;
	feed_msg(f, msg_request(r));
	request_free(r);
	arm(f);
	act(f, 'j', &eff);
	arm(f);
	act(f, 'D', &eff);
	assert_int_equal(f->m->answer.ask, ASK_NONE);
	assert_message(f, "did not say which rule");
}

/* The request ends while the rule is on screen: nothing is stored, and
 * a late y sends nothing. */
static void
test_timeout_never_stores(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 5, "/tmp/w/x");
	arm(f);
	act(f, 'A', &eff);
	assert_int_equal(f->m->answer.ask, ASK_RULE);
	feed_msg(f, msg_resolved(5, VERDICT_DENY, HOW_TIMEOUT, NULL));
	assert_int_equal(f->m->answer.ask, ASK_NONE);
	assert_message(f, "no rule stored");
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
}

/* r: a reason typed on one line, Backspace, Enter sends it with the
 * deny; control characters never get in; Esc cancels. */
static void
test_reason(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	bool moved;

	feed_welcome(f);
	feed_request(f, 7, "/tmp/w/x");
	model_apply_key(f->m, 'r', &eff, &moved);
	assert_int_equal(f->m->answer.ask, ASK_REASON);
	for (const char *p = "no\x1b[2Jpe"; *p; p++)
		model_apply_key(f->m, (unsigned char)*p == 0x1b ? 0x07 : *p,
		    &eff, &moved);
	model_apply_key(f->m, 0xe9, &eff, &moved);	/* é */
	model_apply_key(f->m, KEYS_BACKSPACE, &eff, &moved);
	model_apply_key(f->m, '!', &eff, &moved);
	assert_ask(f, "reason: no[2Jpe!_");
	/* a reason key is text, never an answer */
	model_apply_key(f->m, 'y', &eff, &moved);
	model_apply_key(f->m, 'a', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	model_apply_key(f->m, '\r', &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 7);
	assert_int_equal(eff.verdict, VERDICT_DENY);
	assert_int_equal(eff.scope, SCOPE_ONCE);
	assert_string_equal(eff.reason, "no[2Jpe!ya");
	assert_null(eff.rule);

	feed_request(f, 8, "/tmp/w/y");
	feed_msg(f, msg_resolved(7, VERDICT_DENY, HOW_PERSON, NULL));
	model_apply_key(f->m, 'r', &eff, &moved);
	model_apply_key(f->m, 'x', &eff, &moved);
	model_apply_key(f->m, KEYS_ESC, &eff, &moved);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_int_equal(f->m->answer.ask, ASK_NONE);
	assert_int_equal(model_pending_find(f->m, 8)->sent, VERDICT_NONE);
}

/* A flood: one group line, the sensitive write first; the selection
 * stays where it was; d on the group shows the glob and y denies the
 * rest once each: the sensitive one and the flood in 4 keys. */
static void
test_flood(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	char path[64];

	feed_welcome(f);
	for (uint64_t i = 1; i <= 500; i++) {
		snprintf(path, sizeof path, "/tmp/w/flood/f%03u", (unsigned)i);
		feed_request(f, i, path);
		if (i == 250)
			feed_request(f, 1000, "/tmp/h/.ssh/authorized_keys");
	}
	frame(f);
	assert_int_equal(f->m->sel, 1);		/* never stolen */
	golden_fx(f, "groups");
	f->w = 200;
	f->h = 50;
	golden_fx(f, "groups");
	f->w = 80;
	f->h = 24;

	act(f, 'g', &eff);			/* the first row: sensitive */
	assert_int_equal(f->m->sel, 1000);
	act(f, 'd', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 1000);
	feed_msg(f, msg_resolved(1000, VERDICT_DENY, HOW_PERSON, NULL));
	frame(f);
	act(f, 'g', &eff);
	act(f, 'd', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_int_equal(f->m->answer.ask, ASK_GROUP);
	assert_ask(f, "deny 500 write requests in /tmp/w/flood/*");
	golden_fx(f, "group-confirm");
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE_MANY);
	assert_int_equal(eff.verdict, VERDICT_DENY);
	assert_int_equal(eff.n_requests, 500);
	assert_int_equal(eff.requests[0], 1);
	assert_int_equal(eff.requests[499], 500);
	assert_int_equal(model_pending_find(f->m, 77)->sent, VERDICT_DENY);
}

/* A group (5 or more alike): its allow is armed like a; A on a group is
 * refused (one rule each; Enter opens one). */
static void
test_group_allow(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	for (uint64_t i = 1; i <= 5; i++) {
		char p[32];

		snprintf(p, sizeof p, "/tmp/w/%c", (char)('a' + i));
		feed_request(f, i, p);
	}
	act(f, 'a', &eff);
	assert_int_equal(f->m->answer.ask, ASK_NONE);
	assert_message(f, "not shown long enough");
	arm(f);
	act(f, 'A', &eff);
	assert_int_equal(f->m->answer.ask, ASK_NONE);
	assert_message(f, "Enter opens");
	act(f, 'a', &eff);
	assert_ask(f, "allow 5 write requests in /tmp/w/*");
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE_MANY);
	assert_int_equal(eff.verdict, VERDICT_ALLOW);
	assert_int_equal(eff.n_requests, 5);
	/* in the detail view a is for the one shown */
	for (uint64_t i = 6; i <= 10; i++)
		feed_request(f, i, "/tmp/v/a");
	act(f, 'j', &eff);
	assert_int_equal(f->m->sel, 6);
	act(f, '\r', &eff);
	frame(f);
	tick(f, MODEL_ARM_MS + 100);
	frame(f);
	act(f, 'a', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE);
	assert_int_equal(eff.request, 6);
}

/* X: every pending request of the run, asked first. */
static void
test_deny_all(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct request *r;

	feed_welcome(f);
	act(f, 'X', &eff);
	assert_message(f, "nothing pending");
	feed_request(f, 1, "/tmp/w/a");
	feed_request(f, 2, "/etc/x");
	r = sample_request_pid(3, "/tmp/q/z", f->wall + 1000, 99);
	feed_msg(f, msg_request(r));
	request_free(r);
	act(f, 'X', &eff);
	assert_ask(f, "deny every pending request of this run (3)");
	act(f, 'n', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	act(f, 'X', &eff);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_DECIDE_MANY);
	assert_int_equal(eff.n_requests, 3);
}

/* R asks the supervisor, then lists what it said. */
static void
test_rules_list(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	const struct msg_rule v[] = {
		{ .n = 1, .kind = KIND_WRITE, .verdict = VERDICT_ALLOW,
		    .pattern = "/tmp/w/\x1b[2Jx" },
	};

	feed_welcome(f);
	act(f, 'R', &eff);
	assert_int_equal(eff.kind, EFFECT_RULES);
	assert_true(f->m->rules.open);
	feed_msg(f, msg_rule_list(v, 1));
	assert_int_equal(f->m->rules.n, 1);
	assert_string_equal(f->m->rules.lines[0],
	    "  1  allow  write    /tmp/w/\\e[2Jx");
	golden_fx(f, "rules");
	act(f, 'j', &eff);
	assert_false(f->m->rules.open);
}

/* W: the console is asked where the rule would go in the run's policy
 * file, the prompt shows that file and line, y has it written and the
 * answer sent for the run; a refusal or a failed write sends nothing. */
static void
test_always(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct request *r;

	feed_welcome(f);
	feed_request(f, 3, "/tmp/w/x");
	act(f, 'W', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "wait");
	arm(f);
	act(f, 'W', &eff);
	assert_int_equal(eff.kind, EFFECT_ALWAYS_PLAN);
	assert_int_equal(eff.request, 3);
	assert_string_equal(eff.rule, "/tmp/w/x");
	assert_string_equal(eff.file, "/etc/ward.ini");
	assert_string_equal(eff.comment, "always, from run r1");
	/* The file is not the person's: nothing asked. */
	model_always_plan(f->m, 3, 0, NULL, "/etc/ward.ini is the machine's");
	assert_int_equal(f->m->answer.ask, ASK_NONE);
	assert_message(f, "not offered: /etc/ward.ini is the machine's");

	act(f, 'W', &eff);
	assert_int_equal(eff.kind, EFFECT_ALWAYS_PLAN);
	model_always_plan(f->m, 3, 12, "    /tmp/w/x ; always, from run r1",
	    NULL);
	assert_int_equal(f->m->answer.ask, ASK_ALWAYS);
	assert_ask(f, "allow #3 always: writes /etc/ward.ini, [files] line 12: "
	    "/tmp/w/x ; always, from run r1 (under allow =) - y writes it");
	golden_fx(f, "always-confirm");
	act(f, 'n', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "cancelled");

	/* y: written where shown, then the answer; a failed write
	 * leaves the request to answer again. */
	act(f, 'W', &eff);
	model_always_plan(f->m, 3, 12, "    /tmp/w/x ; always, from run r1",
	    NULL);
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_ALWAYS);
	assert_int_equal(eff.request, 3);
	assert_int_equal(eff.verdict, VERDICT_ALLOW);
	assert_int_equal(eff.scope, SCOPE_RUN);
	assert_string_equal(eff.rule, "/tmp/w/x");
	assert_string_equal(eff.file, "/etc/ward.ini");
	assert_int_equal(eff.line, 12);
	assert_int_equal(model_pending_find(f->m, 3)->sent, VERDICT_ALLOW);
	model_always_done(f->m, 3, 0, "changed since the line was shown");
	assert_int_equal(model_pending_find(f->m, 3)->sent, VERDICT_NONE);
	assert_message(f, "nothing written or sent: changed since");
	act(f, 'W', &eff);
	model_always_plan(f->m, 3, 13, "    /tmp/w/x ; always, from run r1",
	    NULL);
	act(f, 'y', &eff);
	assert_int_equal(eff.line, 13);
	model_always_done(f->m, 3, 13, NULL);
	assert_int_equal(model_pending_find(f->m, 3)->sent, VERDICT_ALLOW);
	assert_message(f, "written to /etc/ward.ini line 13");

	/* Not a write: no line to write. */
	r = sample_request(4, "example.com:443", f->wall + 100000);
	r->kind = KIND_CONNECT;
	feed_msg(f, msg_request(r));
	request_free(r);
	f->m->sel = 4;
	arm(f);
	act(f, 'W', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "offered for writes");

	/* A late plan for an answered request asks nothing. */
	model_always_plan(f->m, 3, 12, "x", NULL);
	assert_int_equal(f->m->answer.ask, ASK_NONE);
}

/* W on an HTTP request (issue 19): an HTTP rule under [network] allow,
 * the request's subject as it is; the decide carries the run's rule.
 * A path with a glob character is not offered (the rule would be wider). */
static void
test_always_http(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;
	struct request *r = sample_request(5, "api2.test:443 POST /repos/a/x",
	    f->wall + 100000);

	feed_welcome(f);
	r->kind = KIND_HTTP;
	free(r->syscall);
	r->syscall = xstrdup("http");
	feed_msg(f, msg_request(r));
	request_free(r);
	f->m->sel = 5;
	arm(f);
	act(f, 'W', &eff);
	assert_int_equal(eff.kind, EFFECT_ALWAYS_PLAN);
	assert_string_equal(eff.section, "network");
	assert_string_equal(eff.key, "allow");
	assert_string_equal(eff.entry, "api2.test:443 POST /repos/a/x");
	model_always_plan(f->m, 5, 7, "    api2.test:443 POST /repos/a/x ; "
	    "always, from run r1", NULL);
	assert_ask(f, "allow #5 always: writes /etc/ward.ini, [network] line "
	    "7: api2.test:443 POST /repos/a/x ; always");
	act(f, 'y', &eff);
	assert_int_equal(eff.kind, EFFECT_ALWAYS);
	assert_string_equal(eff.section, "network");
	assert_string_equal(eff.entry, "api2.test:443 POST /repos/a/x");
	assert_non_null(eff.rule);
	model_always_done(f->m, 5, 7, NULL);

	r = sample_request(6, "api2.test:443 GET /a*b", f->wall + 100000);
	r->kind = KIND_HTTP;
	feed_msg(f, msg_request(r));
	request_free(r);
	f->m->sel = 6;
	arm(f);
	act(f, 'W', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "glob character");
}

/* W is an answer: a --view console has none; a run whose file is not
 * on this machine is never offered one. */
static void
test_always_refused(void **state)
{
	struct fx *f = *state;
	struct model_effect eff;

	feed_welcome(f);
	feed_request(f, 3, "/tmp/w/x");
	arm(f);
	f->m->always_off = "the run is on another host";
	act(f, 'W', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "not offered: the run is on another host");
	f->m->always_off = NULL;
	model_set_view_only(f->m);
	act(f, 'W', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_message(f, "view only");
	assert_int_equal(model_pending_find(f->m, 3)->sent, VERDICT_NONE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_always, setup, teardown),
		cmocka_unit_test_setup_teardown(test_always_http, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_always_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rule_confirmed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rule_needs_arming_and_rule,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_never_stores, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_reason, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_allow, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_deny_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rules_list, setup,
		    teardown),
	};

	setlocale(LC_ALL, "C.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
