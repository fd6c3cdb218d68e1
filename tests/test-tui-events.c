/* SPDX-License-Identifier: MIT */
/*
 * The events pane (tui/events.c: the filter, the folding, the `/` editor,
 * as pure functions), its place in the model (Tab, `/`, Esc, keys typed
 * into the filter never answer), a finished run opened read-only from an
 * in-memory record (tui/finished.c), and golden screens of the events
 * pane, the summary card and the finished run (tests/golden/NAME.txt,
 * UPDATE_GOLDEN=1 rewrites them; run from the repository root).
 */
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

#include "approvals/audit.h"
#include "approvals/audit-write.h"
#include "approvals/msg.h"
#include "config/util.h"
#include "review/summary.h"
#include "tests/golden.h"
#include "tui/events.h"
#include "tui/finished.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/view.h"

#define WALL0	1700000000000LL
#define MONO0	5000LL

/* ---- helpers ---- */

static void
golden_screen(const char *name, struct model *m, int w, int h)
{
	cleanup_free char *text = NULL;
	struct view_report rep;

	view_report_init(&rep);
	text = view_render_text(m, w, h, &rep);
	model_note_view(m, &rep);
	view_report_done(&rep);
	golden(name, text);
	for (const char *p = text; *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 && *p != '\n')
			fail_msg("%s: control character 0x%02x on screen", name,
			    (unsigned char)*p);
	}
}

static void
apply(struct model *m, json_t *msg)
{
	assert_non_null(msg);
	assert_int_equal(model_apply_message(m, msg), 0);
	json_decref(msg);
}

static void
feed(struct model *m, const char *json)
{
	json_error_t err;
	json_t *msg = json_loads(json, 0, &err);

	if (msg == NULL)
		fail_msg("bad test JSON: %s: %s", err.text, json);
	apply(m, msg);
}

static void
event(struct model *m, enum request_kind kind, const char *subject,
    enum verdict v, enum how how, const char *rule)
{
	struct audit_event ev = {
		.run = "r-7f3a", .time_ms = WALL0, .pid = 4243, .kind = kind,
		.syscall = kind == KIND_EXEC ? "execve" : "openat",
		.subject = subject, .detail = "", .verdict = v, .how = how,
		.rule = rule,
	};

	apply(m, msg_event(&ev));
}

static struct model *
base(void)
{
	struct model *m = model_new();

	model_set_now(m, MONO0, WALL0);
	feed(m, "{\"type\":\"welcome\",\"version\":1,\"run\":{\"id\":\"r-7f3a\","
	    "\"name\":\"build\",\"command\":\"make\","
	    "\"state\":\"running\",\"pid\":4242,\"started_ms\":1,"
	    "\"ended_ms\":null,\"exit_code\":null,\"exit_signal\":null,"
	    "\"end_reason\":null,\"limits\":\"timeout=600s memory=2G\","
	    "\"policy\":\"share/ward.ini\",\"headless\":false,"
	    "\"ask_timeout\":120},\"pending\":[]}");
	output_feed(&m->out, STREAM_PTY, "$ make\ncc -c a.c\ncc -c b.c\n", 26);
	return m;
}

/* A build: execs between decisions. */
static void
busy(struct model *m)
{
	event(m, KIND_EXEC, "/usr/bin/make", VERDICT_ALLOW, HOW_FLOOR, NULL);
	event(m, KIND_EXEC, "/usr/bin/cc", VERDICT_ALLOW, HOW_FLOOR, NULL);
	event(m, KIND_EXEC, "/usr/bin/as", VERDICT_ALLOW, HOW_FLOOR, NULL);
	event(m, KIND_WRITE, "/work/out/a.o", VERDICT_ALLOW, HOW_POLICY,
	    "/work/**");
	event(m, KIND_EXEC, "/usr/bin/cc", VERDICT_ALLOW, HOW_FLOOR, NULL);
	event(m, KIND_EXEC, "/usr/bin/ld", VERDICT_ALLOW, HOW_FLOOR, NULL);
	event(m, KIND_WRITE, "/home/alice/.bashrc", VERDICT_DENY, HOW_POLICY,
	    "never");
	event(m, KIND_CONNECT, "pypi.org:443", VERDICT_ALLOW, HOW_POLICY,
	    "pypi.org");
	event(m, KIND_DNS, "evil.test", VERDICT_DENY, HOW_DEFAULT, NULL);
	event(m, KIND_EXEC, "/usr/bin/strip", VERDICT_ALLOW, HOW_FLOOR, NULL);
}

static void
keys(struct model *m, const char *s, struct model_effect *last)
{
	struct model_effect eff;
	bool moved;

	for (; *s != '\0'; s++) {
		model_apply_key(m, (unsigned char)*s, &eff, &moved);
		assert_int_equal(eff.kind, EFFECT_NONE);
	}
	if (last != NULL)
		*last = eff;
}

static void
key(struct model *m, int k, struct model_effect *eff)
{
	bool moved;

	model_apply_key(m, k, eff, &moved);
}

/* ---- pure functions ---- */

static void
test_filter_parse(void **state)
{
	struct events_filter f;

	(void)state;
	events_filter_parse("write connect denied bashrc", &f);
	assert_int_equal(f.kinds, (1u << KIND_WRITE) | (1u << KIND_CONNECT));
	assert_int_equal(f.verdicts, 1u << VERDICT_DENY);
	assert_int_equal(f.hows, 0);
	assert_int_equal(f.n_words, 1);
	assert_string_equal(f.words[0], "bashrc");
	events_filter_done(&f);

	events_filter_parse("  kind:exec verdict:ALLOW how:timeout "
	    "text:write  ", &f);
	assert_int_equal(f.kinds, 1u << KIND_EXEC);
	assert_int_equal(f.verdicts, 1u << VERDICT_ALLOW);
	assert_int_equal(f.hows, 1u << HOW_TIMEOUT);
	assert_int_equal(f.n_words, 1);
	assert_string_equal(f.words[0], "write");
	assert_true(events_filter_shows_execs(&f));
	events_filter_done(&f);

	events_filter_parse("", &f);
	assert_int_equal(f.kinds | f.verdicts | f.hows, 0);
	assert_int_equal(f.n_words, 0);
	assert_false(events_filter_shows_execs(&f));
	events_filter_done(&f);
	events_filter_parse(NULL, &f);
	assert_int_equal(f.n_words, 0);
	events_filter_done(&f);
}

static void
test_filter_match(void **state)
{
	struct events_item w = { .kind = KIND_WRITE, .verdict = VERDICT_DENY,
	    .how = HOW_TIMEOUT, .subject = "/home/Alice/.bashrc",
	    .text = "" };
	struct events_item u = { .kind = EVENTS_KIND_UNKNOWN,
	    .verdict = VERDICT_ALLOW, .how = -1, .subject = "", .text = "" };
	struct events_filter f;

	(void)state;
	struct {
		const char	*filter;
		bool		 w, u;
	} rows[] = {
		{ "", true, true },
		{ "write", true, false },
		{ "connect", false, false },
		{ "write connect", true, false },
		{ "deny", true, false },
		{ "allow", false, true },
		{ "allow deny", true, true },
		{ "timeout", true, false },
		{ "person", false, false },
		{ "alice", true, false },
		{ "ALICE BASH", true, false },
		{ "alice zsh", false, false },
		{ "write deny bashrc", true, false },
		{ "write allow", false, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		events_filter_parse(rows[i].filter, &f);
		if (events_filter_match(&f, &w) != rows[i].w ||
		    events_filter_match(&f, &u) != rows[i].u)
			fail_msg("filter \"%s\": want %d %d", rows[i].filter,
			    rows[i].w, rows[i].u);
		events_filter_done(&f);
	}
}

static void
push(struct events *e, int kind, enum verdict v, const char *subject)
{
	cleanup_free char *text = xasprintf("%s %s: %s",
	    request_kind_name((enum request_kind)kind), subject,
	    verdict_name(v));

	events_push(e, kind, v, HOW_FLOOR, subject, text);
}

static void
test_fold(void **state)
{
	struct events e;
	struct events_line *v = NULL;
	char *t;
	size_t n;

	(void)state;
	events_init(&e);
	push(&e, KIND_EXEC, VERDICT_ALLOW, "/bin/a");
	push(&e, KIND_EXEC, VERDICT_ALLOW, "/bin/b");
	push(&e, KIND_EXEC, VERDICT_ALLOW, "/bin/c");
	push(&e, KIND_WRITE, VERDICT_DENY, "/etc/x");
	push(&e, KIND_EXEC, VERDICT_ALLOW, "/bin/d");
	push(&e, KIND_EXEC, VERDICT_DENY, "/bin/nc");	/* a decision */
	push(&e, KIND_EXEC, VERDICT_ALLOW, "/bin/e");
	push(&e, KIND_RUN, VERDICT_NONE, "exit");

	n = events_lines(&e, &v);
	assert_int_equal(n, 6);
	assert_int_equal(v[0].count, 3);
	assert_int_equal(v[0].first, 0);
	assert_int_equal(v[0].last, 2);
	t = events_line_text(&e, &v[0]);
	assert_string_equal(t, "3 execs (last: /bin/c)");
	free(t);
	t = events_line_text(&e, &v[1]);
	assert_string_equal(t, "write /etc/x: deny");
	free(t);
	assert_int_equal(v[2].count, 1);	/* a lone exec is itself */
	t = events_line_text(&e, &v[2]);
	assert_string_equal(t, "exec /bin/d: allow");
	free(t);
	assert_int_equal(v[3].count, 1);
	t = events_line_text(&e, &v[3]);
	assert_string_equal(t, "exec /bin/nc: deny");
	free(t);
	assert_int_equal(v[4].count, 1);
	assert_int_equal(v[5].first, 7);
	free(v);

	/* Asked for by kind, each exec is its own line. */
	events_set_filter(&e, "exec");
	n = events_lines(&e, &v);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i].count, 1);
	free(v);

	/* Filtered first, folded after: the write between them is gone,
	 * so the execs on either side of it are one line. */
	events_set_filter(&e, "allow");
	n = events_lines(&e, &v);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].count, 5);
	free(v);

	events_set_filter(&e, "nothing-matches");
	n = events_lines(&e, &v);
	assert_int_equal(n, 0);
	assert_null(v);
	events_set_filter(&e, "");
	assert_null(e.filter_text);

	/* While a filter is typed, the lines are those it would keep. */
	events_edit_open(&e);
	(void)events_edit_key(&e, 'd');
	(void)events_edit_key(&e, 'e');
	(void)events_edit_key(&e, 'n');
	(void)events_edit_key(&e, 'y');
	n = events_lines(&e, &v);
	assert_int_equal(n, 2);
	free(v);
	assert_null(e.filter_text);
	(void)events_edit_key(&e, KEYS_ESC);
	n = events_lines(&e, &v);
	assert_int_equal(n, 6);
	free(v);
	events_done(&e);
}

static void
test_ring_and_scroll(void **state)
{
	struct events e;
	struct events_line *v = NULL;

	(void)state;
	events_init(&e);
	for (int i = 0; i < EVENTS_MAX + 5; i++) {
		char s[32];

		snprintf(s, sizeof s, "/f/%d", i);
		push(&e, KIND_WRITE, VERDICT_DENY, s);
	}
	assert_int_equal(e.n, EVENTS_MAX);
	assert_int_equal(e.dropped, 5);
	assert_string_equal(events_at(&e, 0)->subject, "/f/5");
	assert_null(events_at(&e, EVENTS_MAX));
	assert_int_equal(events_lines(&e, &v), EVENTS_MAX);
	free(v);

	events_scroll(&e, 3, e.n, 10);
	assert_int_equal(e.scroll, 3);
	/* A new event keeps a reader's place. */
	push(&e, KIND_WRITE, VERDICT_DENY, "/new");
	assert_int_equal(e.scroll, 4);
	events_scroll(&e, -100, e.n, 10);
	assert_int_equal(e.scroll, 0);
	events_scroll(&e, 1L << 30, e.n, 10);
	assert_int_equal(e.scroll, EVENTS_MAX - 10);
	events_done(&e);
}

static void
test_editor(void **state)
{
	struct events e;

	(void)state;
	events_init(&e);
	events_edit_open(&e);
	assert_true(e.editing);
	assert_string_equal(e.edit, "");
	assert_false(events_edit_key(&e, 'd'));
	assert_false(events_edit_key(&e, 'e'));
	assert_false(events_edit_key(&e, 'x'));
	assert_false(events_edit_key(&e, KEYS_BACKSPACE));
	assert_false(events_edit_key(&e, 'n'));
	assert_false(events_edit_key(&e, 'y'));
	/* Keys that are no text do nothing. */
	assert_false(events_edit_key(&e, KEYS_UP));
	assert_false(events_edit_key(&e, KEYS_CTRL('a')));
	assert_false(events_edit_key(&e, KEYS_PASTE_START));
	assert_false(events_edit_key(&e, 0x9b));
	assert_false(events_edit_key(&e, ' '));
	assert_false(events_edit_key(&e, 0xe9));	/* é, two bytes */
	assert_string_equal(e.edit, "deny \xc3\xa9");
	assert_false(events_edit_key(&e, 0x7f));	/* one character */
	assert_string_equal(e.edit, "deny ");
	assert_true(events_edit_key(&e, '\r'));
	assert_false(e.editing);
	assert_string_equal(e.filter_text, "deny ");
	assert_int_equal(e.filter.verdicts, 1u << VERDICT_DENY);

	/* Opened again, it starts from the filter in force; Esc clears. */
	events_edit_open(&e);
	assert_string_equal(e.edit, "deny ");
	assert_false(events_edit_key(&e, KEYS_CTRL('u')));
	assert_string_equal(e.edit, "");
	assert_true(events_edit_key(&e, KEYS_ESC));
	assert_false(e.editing);
	assert_null(e.filter_text);

	/* Bounded. */
	events_edit_open(&e);
	for (int i = 0; i < EVENTS_EDIT_MAX + 50; i++)
		(void)events_edit_key(&e, 'z');
	assert_int_equal(e.edit_len, EVENTS_EDIT_MAX);
	assert_true(events_edit_key(&e, KEYS_ENTER));
	assert_int_equal(strlen(e.filter_text), EVENTS_EDIT_MAX);
	events_done(&e);
}

/* ---- the model ---- */

static void
test_model_events(void **state)
{
	struct model *m = base();

	(void)state;
	busy(m);
	assert_int_equal(m->ev.n, 10);
	assert_int_equal(events_at(&m->ev, 6)->kind, KIND_WRITE);
	assert_int_equal(events_at(&m->ev, 6)->verdict, VERDICT_DENY);
	assert_string_equal(events_at(&m->ev, 6)->subject,
	    "/home/alice/.bashrc");
	/* An answered request: its kind from the pending one. */
	feed(m, "{\"type\":\"request\",\"request\":{\"id\":4,\"run\":\"r-7f3a\","
	    "\"pid\":7,\"kind\":\"write\",\"syscall\":\"openat\",\"subject\":"
	    "\"/etc/\\u001b[2Jhosts\",\"subject2\":null,\"detail\":\"\","
	    "\"cmdline\":\"sh\",\"cwd\":\"/\",\"why\":\"no rule\","
	    "\"created_ms\":1,\"deadline_ms\":0}}");
	feed(m, "{\"type\":\"resolved\",\"request\":4,\"verdict\":\"deny\","
	    "\"how\":\"timeout\",\"by\":\"timeout\"}");
	assert_int_equal(m->ev.n, 11);
	assert_int_equal(events_at(&m->ev, 10)->kind, KIND_WRITE);
	assert_int_equal(events_at(&m->ev, 10)->how, HOW_TIMEOUT);
	/* Stored escaped, once. */
	assert_string_equal(events_at(&m->ev, 10)->subject, "/etc/\\e[2Jhosts");
	/* One never seen: its kind is not known, a kind filter skips it. */
	feed(m, "{\"type\":\"resolved\",\"request\":99,\"verdict\":\"allow\","
	    "\"how\":\"person\",\"by\":\"uid 0\"}");
	assert_int_equal(events_at(&m->ev, 11)->kind, EVENTS_KIND_UNKNOWN);
	model_free(m);
}

static void
test_model_keys(void **state)
{
	struct model *m = base();
	struct model_effect eff;

	(void)state;
	/* Tab without events: output and pending only (as before). */
	assert_int_equal(m->focus, PANE_PENDING);
	key(m, KEYS_TAB, &eff);
	assert_int_equal(m->focus, PANE_OUTPUT);
	key(m, KEYS_TAB, &eff);
	assert_int_equal(m->focus, PANE_PENDING);
	busy(m);
	key(m, KEYS_TAB, &eff);
	key(m, KEYS_TAB, &eff);
	assert_int_equal(m->focus, PANE_EVENTS);
	key(m, KEYS_TAB, &eff);
	assert_int_equal(m->focus, PANE_PENDING);

	/* A request waits, armed: what is typed into the filter is text. */
	feed(m, "{\"type\":\"request\",\"request\":{\"id\":5,\"run\":\"r-7f3a\","
	    "\"pid\":7,\"kind\":\"write\",\"syscall\":\"openat\",\"subject\":"
	    "\"/etc/passwd\",\"subject2\":null,\"detail\":\"\","
	    "\"cmdline\":\"sh\",\"cwd\":\"/\",\"why\":\"no rule\","
	    "\"created_ms\":1,\"deadline_ms\":0}}");
	{
		struct view_report rep;

		free(view_render_text(m, 80, 24, NULL));
		view_report_init(&rep);
		free(view_render_text(m, 80, 24, &rep));
		model_note_view(m, &rep);
		view_report_done(&rep);
		model_set_now(m, MONO0 + 5000, WALL0 + 5000);
	}
	assert_true(model_armed(m, 5));
	key(m, '/', &eff);
	assert_true(m->ev.editing);
	assert_int_equal(m->focus, PANE_EVENTS);
	keys(m, "adAKDr q", NULL);
	assert_string_equal(m->ev.edit, "adAKDr q");
	assert_false(m->confirm_kill);
	assert_false(m->quit);
	assert_int_equal(m->n_pending, 1);
	key(m, KEYS_CTRL('u'), &eff);
	keys(m, "deny", NULL);
	key(m, '\r', &eff);
	assert_int_equal(eff.kind, EFFECT_NONE);
	assert_false(m->ev.editing);
	assert_false(m->detail);	/* Enter was the editor's */
	assert_string_equal(m->ev.filter_text, "deny");
	/* j/k scroll the pane while it has the focus. */
	key(m, 'k', &eff);
	assert_int_equal(m->ev.scroll, 1);
	key(m, 'j', &eff);
	assert_int_equal(m->ev.scroll, 0);
	/* Esc clears the filter. */
	key(m, KEYS_ESC, &eff);
	assert_null(m->ev.filter_text);
	/* Esc in the editor clears it too. */
	key(m, '/', &eff);
	keys(m, "exec", NULL);
	key(m, KEYS_ESC, &eff);
	assert_false(m->ev.editing);
	assert_null(m->ev.filter_text);

	/* With the agent pane there is no events pane to type into. */
	model_set_agent(m, AGENT_ON, 0);
	m->focus = PANE_PENDING;
	key(m, '/', &eff);
	assert_false(m->ev.editing);
	assert_non_null(strstr(m->message, "lines view"));
	model_free(m);
}

/* ---- a finished run from the record ---- */

static struct audit *
record(void)
{
	static const struct audit_run run = {
		.id = "r-9c1e", .name = "refactor", .command = "agent --go",
		.policy_path = "/p", .policy_hash = "h",
		.started_ms = WALL0 - 60000, .limits = "timeout=600s",
	};
	struct audit_event ev = {
		.run = "r-9c1e", .time_ms = WALL0, .pid = 77, .kind = KIND_RUN,
		.subject = "start", .verdict = VERDICT_NONE,
		.how = HOW_SUPERVISOR,
	};
	struct audit *a = NULL;

	assert_int_equal(audit_open(":memory:", &a, NULL), 0);
	assert_int_equal(audit_run_begin(a, &run, NULL), 0);
	audit_event(a, &ev);
	ev.kind = KIND_EXEC;
	ev.subject = "/usr/bin/agent";
	ev.verdict = VERDICT_ALLOW;
	ev.how = HOW_FLOOR;
	audit_event(a, &ev);
	ev.subject = "/usr/bin/git";
	audit_event(a, &ev);
	ev.kind = KIND_WRITE;
	ev.subject = "/home/alice/.ssh/authorized_keys";
	ev.verdict = VERDICT_DENY;
	ev.how = HOW_PERSON;
	ev.decided_by = "uid 1000 (alice) via console";
	ev.request_id = 1;
	audit_event(a, &ev);
	ev.subject = "/home/alice/notes.txt";
	ev.verdict = VERDICT_ALLOW;
	ev.request_id = 2;
	audit_event(a, &ev);
	ev.kind = KIND_CONNECT;
	ev.subject = "example.org:443";
	ev.verdict = VERDICT_DENY;
	ev.how = HOW_TIMEOUT;
	ev.decided_by = "timeout";
	ev.request_id = 3;
	audit_event(a, &ev);
	ev.kind = KIND_DNS;
	ev.subject = "tracker.test";
	ev.how = HOW_DEFAULT;
	ev.request_id = 0;
	audit_event(a, &ev);
	audit_output(a, "r-9c1e", AUDIT_STDOUT, WALL0, "refactoring...\n", 15);
	audit_output(a, "r-9c1e", AUDIT_STDERR, WALL0, "\x1b[31mdone\x1b[0m\n",
	    14);
	ev.kind = KIND_RUN;
	ev.subject = "exit";
	ev.verdict = VERDICT_NONE;
	ev.how = HOW_SUPERVISOR;
	ev.detail = "exit_code=0 signal=0";
	audit_event(a, &ev);
	assert_int_equal(audit_flush(a, NULL), 0);
	return a;
}

static struct model *
finished(struct audit *a)
{
	struct model *m = model_new();

	model_set_now(m, MONO0, WALL0);
	assert_int_equal(finished_fill(m, a, "refactor", NULL), 0);
	return m;
}

static void
test_finished(void **state)
{
	struct audit *a = record();
	struct model *m = NULL;
	struct model_effect eff;
	static const int answers[] = { 'a', 'd', 'K', 'A', 'D', 'r' };

	(void)state;
	/* Not ended yet: not opened. */
	m = model_new();
	assert_int_equal(finished_fill(m, a, "r-9c1e", NULL), -EBUSY);
	assert_int_equal(finished_fill(m, a, "nope", NULL), -ENOENT);
	model_free(m);
	assert_int_equal(audit_run_end(a, "r-9c1e", WALL0 + 1000, 0, 0,
	    "exit", NULL), 0);

	m = finished(a);
	assert_true(m->readonly);
	assert_true(model_run_ended(m));
	assert_string_equal(m->run.id, "r-9c1e");
	assert_string_equal(m->run.name, "refactor");
	assert_int_equal(m->run.exit_code, 0);
	assert_int_equal(m->ev.n, 8);
	assert_int_equal(output_count(&m->out), 2);
	assert_string_equal(output_at(&m->out, 0)->text, "refactoring...");
	assert_true(m->have_summary);
	assert_int_equal(m->summary.asked, 3);
	assert_int_equal(m->summary.allowed, 1);
	assert_int_equal(m->summary.denied, 1);
	assert_int_equal(m->summary.timed_out, 1);
	assert_int_equal(m->summary.blocked[SURFACE_NETWORK], 1);
	/* not the demo's policy: no scorecard, the summary card */
	assert_null(m->scorecard);

	/* Every answer key only says read-only. */
	for (size_t i = 0; i < ARRAY_SIZE(answers); i++) {
		key(m, answers[i], &eff);
		assert_int_equal(eff.kind, EFFECT_NONE);
		assert_false(m->confirm_kill);
		assert_non_null(m->message);
		assert_non_null(strstr(m->message, "read-only"));
	}
	/* Looking still works. */
	key(m, KEYS_TAB, &eff);
	assert_int_equal(m->focus, PANE_EVENTS);
	key(m, '/', &eff);
	keys(m, "timeout", NULL);
	key(m, '\r', &eff);
	assert_string_equal(m->ev.filter_text, "timeout");
	key(m, 'q', &eff);
	assert_int_equal(eff.kind, EFFECT_QUIT);
	model_free(m);
	audit_close(a);
}

/* A `ward demo` run's record: its policy is the shipped demo.ini (by
 * WARD_SHARE, as paths_share_dir finds it), the steps that matter
 * answered by the demo's script, the ~/.ssh step's write denied. */
static struct audit *
record_demo(char **policy)
{
	cleanup_free char *share = realpath("share", NULL);
	struct audit_run run = {
		.id = "d-51a0", .name = "demo-4242", .command = "env sh agent.sh",
		.policy_hash = "h", .started_ms = WALL0 - 60000,
		.limits = "timeout=600s",
	};
	struct audit_event ev = {
		.run = "d-51a0", .time_ms = WALL0, .pid = 77, .kind = KIND_RUN,
		.subject = "start", .verdict = VERDICT_NONE,
		.how = HOW_SUPERVISOR,
	};
	static const struct {
		enum request_kind kind;
		const char *subject;
		enum verdict v;
		enum how how;
		const char *rule;
		int64_t wait_ms;
	} steps[] = {
		{ KIND_WRITE, "/etc/hosts", VERDICT_DENY, HOW_PERSON, NULL,
		    1250 },
		{ KIND_WRITE, "/tmp/ward-demo-Xq3Zk1/home/.ssh/authorized_keys",
		    VERDICT_DENY, HOW_PERSON, NULL, 1300 },
		{ KIND_DNS, "paste.example.com", VERDICT_ALLOW, HOW_PERSON,
		    NULL, 1250 },
		{ KIND_CONNECT, "paste.example.com (203.0.113.7):80",
		    VERDICT_DENY, HOW_PERSON, NULL, 1250 },
		{ KIND_PACKAGE, "pip install wardtiny (1 package) -> /work/lib; "
		    "index http://pypi.org/simple; hosts pypi.org:80",
		    VERDICT_ALLOW, HOW_PERSON, NULL, 1250 },
		{ KIND_CONNECT, "pypi.org (151.101.0.223):80", VERDICT_ALLOW,
		    HOW_RUN_RULE, "registry of an approved pip install", 0 },
		{ KIND_CONNECT, "169.254.169.254:80", VERDICT_DENY, HOW_POLICY,
		    "never 169.254.0.0/16 (built in)", 0 },
	};
	static const char done[] = "== done: the agent is finished. Its change "
	    "to app.py waits for you: ward diff, ward apply.\n";
	struct audit *a = NULL;

	assert_non_null(share);
	assert_int_equal(setenv("WARD_SHARE", share, 1), 0);
	*policy = xasprintf("%s/demo/demo.ini", share);
	run.policy_path = *policy;
	assert_int_equal(audit_open(":memory:", &a, NULL), 0);
	assert_int_equal(audit_run_begin(a, &run, NULL), 0);
	audit_event(a, &ev);
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		ev.kind = steps[i].kind;
		ev.subject = steps[i].subject;
		ev.syscall = steps[i].kind == KIND_WRITE ? "openat" :
		    steps[i].kind == KIND_DNS ? NULL : "connect";
		ev.verdict = steps[i].v;
		ev.how = steps[i].how;
		ev.rule = steps[i].rule;
		ev.wait_ms = steps[i].wait_ms;
		ev.request_id = steps[i].how == HOW_PERSON ? i + 1 : 0;
		ev.decided_by = steps[i].how == HOW_PERSON ?
		    "uid 1000 (alice) pid 9 via ward demo --auto" : NULL;
		audit_event(a, &ev);
	}
	audit_output(a, "d-51a0", AUDIT_STDOUT, WALL0, done, strlen(done));
	ev.kind = KIND_RUN;
	ev.subject = "exit";
	ev.syscall = NULL;
	ev.rule = NULL;
	ev.decided_by = NULL;
	ev.request_id = 0;
	ev.verdict = VERDICT_NONE;
	ev.how = HOW_SUPERVISOR;
	ev.detail = "exit_code=0 signal=0";
	audit_event(a, &ev);
	assert_int_equal(audit_flush(a, NULL), 0);
	assert_int_equal(audit_run_end(a, "d-51a0", WALL0 + 1000, 0, 0,
	    "exit", NULL), 0);
	return a;
}

/* A demo's run, ended, shows its scorecard in the card, fitted to the
 * screen's width, the ~/.ssh step's line among the steps; a live
 * console's model gets it as finished_summary gives it. */
static void
test_finished_demo(void **state)
{
	cleanup_free char *policy = NULL;
	struct audit *a = record_demo(&policy);
	struct model *m = model_new();
	cleanup_free char *screen = NULL;

	(void)state;
	model_set_now(m, MONO0, WALL0);
	assert_int_equal(finished_fill(m, a, "demo-4242", NULL), 0);
	assert_non_null(m->scorecard);
	assert_string_equal(m->scorecard[0], "What the program tried, and "
	    "what came of it:");
	assert_null(strstr(m->scorecard[0], "\n"));
	assert_non_null(strstr(m->scorecard[2], "/home/.ssh/authorized_keys "
	    "(an SSH key file, outside its folders): denied by the demo's "
	    "script, after 1.3 s"));
	golden_screen("scorecard-card-80x24", m, 80, 24);
	golden_screen("scorecard-card-60x20", m, 60, 20);
	golden_screen("scorecard-card-200x50", m, 200, 50);
	/* At 80 columns every row fits and the ~/.ssh line is on screen. */
	screen = view_render_text(m, 80, 24, NULL);
	assert_non_null(strstr(screen, "-- scorecard: what the program tried, "
	    "and what came of it --"));
	assert_non_null(strstr(screen, "/home/.ssh/authorized_keys (an SSH"));
	model_free(m);
	audit_close(a);
	unsetenv("WARD_SHARE");
}

/* ---- goldens ---- */

static void
test_golden_events(void **state)
{
	struct model *m = base();
	struct model_effect eff;

	(void)state;
	busy(m);
	/* Unfocused: the last few, execs folded. */
	golden_screen("events-80x24", m, 80, 24);
	key(m, KEYS_TAB, &eff);
	key(m, KEYS_TAB, &eff);
	assert_int_equal(m->focus, PANE_EVENTS);
	golden_screen("events-focused-80x24", m, 80, 24);
	golden_screen("events-focused-200x50", m, 200, 50);
	key(m, '/', &eff);
	keys(m, "deny", NULL);
	golden_screen("events-filter-edit-80x24", m, 80, 24);
	key(m, '\r', &eff);
	golden_screen("events-filtered-80x24", m, 80, 24);
	model_free(m);
}

static void
test_golden_summary(void **state)
{
	struct model *m = base();
	struct summary s = { .asked = 4, .allowed = 1, .denied = 2,
	    .timed_out = 1, .written = 1, .staged = 3, .execs = 12,
	    .blocked = { [SURFACE_FILES] = 2, [SURFACE_NETWORK] = 1 },
	    .staged_in = "~/src/app" };

	(void)state;
	busy(m);
	feed(m, "{\"type\":\"state\",\"run\":{\"state\":\"exited\","
	    "\"exit_code\":0,\"ended_ms\":2,\"end_reason\":\"exit\"}}");
	model_set_summary(m, &s);
	golden_screen("summary-80x24", m, 80, 24);
	golden_screen("summary-200x50", m, 200, 50);
	model_free(m);
}

static void
test_golden_finished(void **state)
{
	struct audit *a = record();
	struct model *m;

	(void)state;
	assert_int_equal(audit_run_end(a, "r-9c1e", WALL0 + 1000, 0, 0,
	    "exit", NULL), 0);
	m = finished(a);
	golden_screen("finished-80x24", m, 80, 24);
	golden_screen("finished-200x50", m, 200, 50);
	model_free(m);
	audit_close(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_parse),
		cmocka_unit_test(test_filter_match),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_ring_and_scroll),
		cmocka_unit_test(test_editor),
		cmocka_unit_test(test_model_events),
		cmocka_unit_test(test_model_keys),
		cmocka_unit_test(test_finished),
		cmocka_unit_test(test_finished_demo),
		cmocka_unit_test(test_golden_events),
		cmocka_unit_test(test_golden_summary),
		cmocka_unit_test(test_golden_finished),
	};

	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL &&
	    setlocale(LC_CTYPE, "en_US.UTF-8") == NULL) {
		fprintf(stderr, "test-tui-events: no UTF-8 locale\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
