/* SPDX-License-Identifier: MIT */
/*
 * review/summary.c on an in-memory record: a run that asks (allowed,
 * denied, timed out, one left unanswered), writes on the host, is refused
 * on every surface, runs programs; another run's rows never count.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/audit.h"
#include "approvals/audit-changes.h"
#include "approvals/audit-write.h"
#include "config/util.h"
#include "review/summary.h"

static void
ev(struct audit *a, const char *run, enum request_kind kind,
    const char *subject, const char *subject2, enum verdict v, enum how how,
    uint64_t request)
{
	struct audit_event e = {
		.run = run, .time_ms = 1000, .pid = 42, .kind = kind,
		.syscall = "openat", .subject = subject, .subject2 = subject2,
		.verdict = v, .how = how, .request_id = request,
	};

	audit_event(a, &e);
}

static struct audit *
record(void)
{
	static const struct audit_run r1 = {
		.id = "r1", .command = "sh", .policy_path = "/p",
		.policy_hash = "h", .started_ms = 1000,
	};
	static const struct audit_run r2 = {
		.id = "r2", .command = "sh", .policy_path = "/p",
		.policy_hash = "h", .started_ms = 2000,
	};
	struct audit *a = NULL;

	assert_int_equal(audit_open(":memory:", &a, NULL), 0);
	assert_int_equal(audit_run_begin(a, &r1, NULL), 0);
	assert_int_equal(audit_run_begin(a, &r2, NULL), 0);
	ev(a, "r1", KIND_RUN, "start", NULL, VERDICT_NONE, HOW_SUPERVISOR, 0);
	/* asked: allowed, denied by a person, timed out, denied at the end */
	ev(a, "r1", KIND_WRITE, "/home/u/a", NULL, VERDICT_ALLOW, HOW_PERSON, 1);
	ev(a, "r1", KIND_WRITE, "/home/u/b", NULL, VERDICT_DENY, HOW_PERSON, 2);
	ev(a, "r1", KIND_CONNECT, "example.org:443", NULL, VERDICT_DENY,
	    HOW_TIMEOUT, 3);
	ev(a, "r1", KIND_PACKAGE, "npm left-pad", NULL, VERDICT_DENY,
	    HOW_SUPERVISOR, 4);
	/* asked and never answered (the supervisor died) */
	ev(a, "r1", KIND_WRITE, "/home/u/c", NULL, VERDICT_ASK, HOW_SUPERVISOR,
	    5);
	/* allowed by policy: two writes of one file, a rename */
	ev(a, "r1", KIND_WRITE, "/tmp/x", NULL, VERDICT_ALLOW, HOW_POLICY, 0);
	ev(a, "r1", KIND_WRITE, "/tmp/x", NULL, VERDICT_ALLOW, HOW_POLICY, 0);
	ev(a, "r1", KIND_WRITE, "/tmp/y", "/tmp/z", VERDICT_ALLOW, HOW_POLICY,
	    0);
	/* refused without asking, on each surface */
	ev(a, "r1", KIND_WRITE, "/etc/passwd", NULL, VERDICT_DENY, HOW_POLICY, 0);
	ev(a, "r1", KIND_WRITE, "/etc/shadow", NULL, VERDICT_DENY, HOW_DEFAULT, 0);
	ev(a, "r1", KIND_DNS, "evil.test", NULL, VERDICT_DENY, HOW_POLICY, 0);
	ev(a, "r1", KIND_CONNECT, "10.0.0.1:22", NULL, VERDICT_DENY,
	    HOW_RUN_RULE, 0);
	ev(a, "r1", KIND_PACKAGE, "pip x", NULL, VERDICT_DENY, HOW_POLICY, 0);
	ev(a, "r1", KIND_EXEC, "/bin/nc", NULL, VERDICT_DENY, HOW_POLICY, 0);
	ev(a, "r1", KIND_BLOCKED, "ptrace", NULL, VERDICT_DENY, HOW_FLOOR, 0);
	ev(a, "r1", KIND_BLOCKED, "int 0x80", NULL, VERDICT_KILL, HOW_FLOOR, 0);
	/* programs started */
	ev(a, "r1", KIND_EXEC, "/bin/sh", NULL, VERDICT_ALLOW, HOW_FLOOR, 0);
	ev(a, "r1", KIND_EXEC, "/bin/ls", NULL, VERDICT_ALLOW, HOW_FLOOR, 0);
	ev(a, "r1", KIND_RUN, "exited", NULL, VERDICT_NONE, HOW_SUPERVISOR, 0);
	/* another run: none of it counts */
	ev(a, "r2", KIND_WRITE, "/home/u/a", NULL, VERDICT_DENY, HOW_PERSON, 1);
	ev(a, "r2", KIND_WRITE, "/etc/hosts", NULL, VERDICT_DENY, HOW_POLICY, 0);
	assert_int_equal(audit_flush(a, NULL), 0);
	return a;
}

static void
test_counts(void **state)
{
	struct audit *a = record();
	struct summary s;

	(void)state;
	assert_int_equal(summary_from_record(a, "r1", &s, NULL), 0);
	assert_int_equal(s.events, 20);
	assert_int_equal(s.asked, 5);
	assert_int_equal(s.allowed, 1);
	assert_int_equal(s.denied, 2);
	assert_int_equal(s.timed_out, 1);
	assert_int_equal(s.unanswered, 1);
	/* /home/u/a, /tmp/x once, /tmp/y and /tmp/z */
	assert_int_equal(s.written, 4);
	assert_int_equal(s.applied, 0);
	assert_int_equal(s.staged, -1);
	assert_int_equal(s.blocked[SURFACE_FILES], 2);
	assert_int_equal(s.blocked[SURFACE_NETWORK], 2);
	assert_int_equal(s.blocked[SURFACE_PACKAGES], 1);
	assert_int_equal(s.blocked[SURFACE_EXEC], 1);
	assert_int_equal(s.blocked[SURFACE_SYSCALLS], 2);
	assert_int_equal(summary_blocked_total(&s), 8);
	assert_int_equal(s.execs, 2);
	assert_int_equal(summary_changed(&s), 4);

	assert_int_equal(summary_from_record(a, "r2", &s, NULL), 0);
	assert_int_equal(s.asked, 1);
	assert_int_equal(s.denied, 1);
	assert_int_equal(s.blocked[SURFACE_FILES], 1);
	assert_int_equal(s.written, 0);

	assert_int_equal(summary_from_record(a, "nope", &s, NULL), 0);
	assert_int_equal(s.events, 0);
	assert_int_equal(s.asked, 0);
	audit_close(a);
}

static void
test_changes_table(void **state)
{
	struct audit *a = record();
	struct audit_change ch = {
		.run = "r1", .time_ms = 5000, .path = "/src/p/a.c",
		.kind = "modified", .action = "applied", .before_hash = "-",
		.after_hash = "-", .by = "uid 0 (root)",
	};
	struct summary s;

	(void)state;
	assert_int_equal(audit_change(a, &ch, NULL, NULL), 0);
	assert_int_equal(audit_change(a, &ch, NULL, NULL), 0);	/* again */
	ch.path = "/src/p/b.c";
	ch.action = "discarded";
	assert_int_equal(audit_change(a, &ch, NULL, NULL), 0);
	ch.path = "/home/u/a";	/* already counted as written */
	ch.action = "committed";
	assert_int_equal(audit_change(a, &ch, NULL, NULL), 0);
	assert_int_equal(summary_from_record(a, "r1", &s, NULL), 0);
	assert_int_equal(s.applied, 1);
	assert_int_equal(s.written, 4);
	s.staged = 3;
	assert_int_equal(summary_changed(&s), 8);
	audit_close(a);
}

static void
test_lines_json(void **state)
{
	struct audit *a = record();
	struct summary s;
	char **v;
	json_t *o;

	(void)state;
	assert_int_equal(summary_from_record(a, "r1", &s, NULL), 0);
	v = summary_lines(&s);
	assert_int_equal(strv_len(v), 4);
	assert_string_equal(v[0], "asked 5: allowed 1, denied 2, timed out 1, "
	    "unanswered 1");
	assert_string_equal(v[1], "changed files 4: 4 written on the host, "
	    "staged unknown");
	assert_string_equal(v[2], "blocked 8: files 2, network 2, packages 1, "
	    "exec 1, syscalls 2");
	assert_string_equal(v[3], "started 2 programs");
	strv_free(v);

	s.unanswered = 0;
	s.staged = 2;
	s.applied = 1;
	v = summary_lines(&s);
	assert_string_equal(v[0], "asked 5: allowed 1, denied 2, timed out 1");
	assert_string_equal(v[1], "changed files 7: 4 written on the host, "
	    "1 applied, 2 staged in projects");
	strv_free(v);

	o = summary_json(&s);
	assert_int_equal(json_integer_value(json_object_get(o, "asked")), 5);
	assert_int_equal(json_integer_value(json_object_get(o, "timed_out")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "changed")), 7);
	assert_int_equal(json_integer_value(json_object_get(o, "staged")), 2);
	assert_int_equal(json_integer_value(json_object_get(
	    json_object_get(o, "blocked"), "network")), 2);
	assert_int_equal(json_integer_value(json_object_get(o,
	    "blocked_total")), 8);
	json_decref(o);
	s.staged = -1;
	o = summary_json(&s);
	assert_true(json_is_null(json_object_get(o, "staged")));
	json_decref(o);
	audit_close(a);
}

static void
test_staged_no_projects(void **state)
{
	struct summary s = { .staged = -1 };
	char *cause = NULL;

	(void)state;
	assert_int_equal(summary_count_staged("/nonexistent/ward-run", &s,
	    &cause), 0);
	assert_null(cause);
	assert_int_equal(s.staged, 0);
	assert_string_equal(summary_surface_name(SURFACE_EXEC), "exec");
	assert_string_equal(summary_surface_name(SURFACE_COUNT), "unknown");
}

/* Issue 30, point 1: the sentence a run's end says, and nothing when
 * nothing waits; a folder name is escaped. */
static void
test_staged_text(void **state)
{
	struct summary s = { .staged = 2, .staged_in = "~/proj" };
	char *t;

	(void)state;
	t = summary_staged_text(&s, "ab12cd34");
	assert_string_equal(t, "2 files staged in ~/proj: `ward diff "
	    "ab12cd34` to read, `ward apply ab12cd34` to keep");
	free(t);
	s.staged = 1;
	snprintf(s.staged_in, sizeof s.staged_in, "/tmp/a\033[2Jb");
	t = summary_staged_text(&s, "r");
	assert_null(strchr(t, '\033'));
	assert_non_null(strstr(t, "1 file staged in /tmp/a"));
	free(t);
	s.staged = 0;
	assert_null(summary_staged_text(&s, "r"));
	s.staged = -1;
	assert_null(summary_staged_text(&s, "r"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_changes_table),
		cmocka_unit_test(test_lines_json),
		cmocka_unit_test(test_staged_no_projects),
		cmocka_unit_test(test_staged_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
