/* SPDX-License-Identifier: MIT */
/*
 * review/scorecard.c on an in-memory record shaped like a `ward demo`
 * run: a write asked and denied, a name allowed and its connection
 * denied, an install allowed and its registry let through, the metadata
 * address refused by the never list, a syscall refused by the floor;
 * programs started are not listed; the demo's ~/.ssh step (a key added
 * to the authorized_keys of the demo's stand-in home, denied) has its
 * line. The lines are a golden file (tests/golden/scorecard.txt), and
 * fitted to 60, 80 and 200 columns (scorecard-60.txt ...); the fitting's
 * rules checked at every width from 8 to 200.
 */
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
#include "config/util.h"
#include "review/scorecard.h"
#include "review/summary.h"
#include "tests/golden.h"

static void
ev(struct audit *a, enum request_kind kind, const char *syscall,
    const char *subject, enum verdict v, enum how how, const char *rule,
    int64_t wait_ms, uint64_t request)
{
	struct audit_event e = {
		.run = "r1", .time_ms = 1000, .pid = 42, .kind = kind,
		.syscall = syscall, .subject = subject, .verdict = v,
		.how = how, .rule = rule, .wait_ms = wait_ms,
		.request_id = request,
	};

	audit_event(a, &e);
}

static char *
join(char *const *lines)
{
	char *text = xstrdup("");

	for (size_t i = 0; lines[i] != NULL; i++) {
		char *t = xasprintf("%s%s\n", text, lines[i]);

		free(text);
		text = t;
	}
	return text;
}

/* The scorecard of a record shaped like a demo's run. */
static char **
demo_lines(void)
{
	static const struct audit_run r1 = {
		.id = "r1", .command = "sh agent.sh", .policy_path = "/p",
		.policy_hash = "h", .started_ms = 1000,
	};
	char **lines = NULL;
	struct audit *a = NULL;
	struct summary s;

	assert_int_equal(audit_open(":memory:", &a, NULL), 0);
	assert_int_equal(audit_run_begin(a, &r1, NULL), 0);
	ev(a, KIND_RUN, NULL, "start", VERDICT_NONE, HOW_SUPERVISOR, NULL, 0, 0);
	ev(a, KIND_EXEC, "execve", "/usr/bin/sh", VERDICT_ALLOW, HOW_FLOOR,
	    NULL, 0, 0);
	ev(a, KIND_WRITE, "openat", "/etc/hosts", VERDICT_DENY, HOW_PERSON,
	    NULL, 2400, 1);
	/* the ~/.ssh step: the demo's stand-in home, never the person's */
	ev(a, KIND_WRITE, "openat", "/tmp/ward-demo-Xq3Zk1/home/.ssh/"
	    "authorized_keys", VERDICT_DENY, HOW_PERSON, NULL, 1300, 7);
	ev(a, KIND_DNS, NULL, "paste.example.com", VERDICT_ALLOW, HOW_PERSON,
	    NULL, 1800, 2);
	/* an answer of the demo's script is not the person's */
	{
		struct audit_event e = {
			.run = "r1", .time_ms = 1000, .pid = 42,
			.kind = KIND_DNS, .subject = "pypi.org",
			.verdict = VERDICT_ALLOW, .how = HOW_PERSON,
			.decided_by = "uid 0 (root) pid 7 via "
			    SCORECARD_SCRIPT_ORIGIN,
			.wait_ms = 2500, .request_id = 6,
		};

		audit_event(a, &e);
	}
	ev(a, KIND_CONNECT, "connect", "paste.example.com (203.0.113.7):80",
	    VERDICT_DENY, HOW_PERSON, NULL, 5200, 3);
	ev(a, KIND_PACKAGE, "execve", "pip install wardtiny (1 package) -> "
	    "/work/lib; index http://pypi.org/simple; hosts pypi.org:80",
	    VERDICT_ALLOW, HOW_PERSON, NULL, 3000, 4);
	ev(a, KIND_CONNECT, "connect", "pypi.org (151.101.0.223):80",
	    VERDICT_ALLOW, HOW_RUN_RULE, "registry of an approved pip install",
	    0, 0);
	ev(a, KIND_CONNECT, "connect", "169.254.169.254:80", VERDICT_DENY,
	    HOW_POLICY, "never 169.254.0.0/16 (built in)", 0, 0);
	ev(a, KIND_BLOCKED, "ptrace", "ptrace", VERDICT_DENY, HOW_FLOOR, NULL,
	    0, 0);
	ev(a, KIND_WRITE, "openat", "/home/u/.bashrc", VERDICT_DENY,
	    HOW_TIMEOUT, NULL, 90000, 5);
	ev(a, KIND_RUN, NULL, "exit", VERDICT_NONE, HOW_SUPERVISOR, NULL, 0, 0);
	assert_int_equal(audit_flush(a, NULL), 0);

	assert_int_equal(summary_from_record(a, "r1", &s, NULL), 0);
	s.staged = 1;
	assert_int_equal(scorecard_lines(a, "r1", &s, &lines, NULL), 0);
	audit_close(a);
	return lines;
}

static void
test_scorecard_demo(void **state)
{
	cleanup_strv char **lines = demo_lines();
	cleanup_free char *text = join(lines);

	(void)state;
	golden("scorecard", text);
	/* the ~/.ssh step has its line, as the other steps */
	assert_non_null(strstr(text, "  files     change /tmp/ward-demo-Xq3Zk1/"
	    "home/.ssh/authorized_keys (an SSH key file, outside its "
	    "folders): denied by you, after 1.3 s\n"));
}

/* At 60, 80 and 200 columns, as a terminal and the console's card show
 * it. */
static void
test_scorecard_fit_golden(void **state)
{
	static const int widths[] = { 60, 80, 200 };
	cleanup_strv char **lines = demo_lines();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(widths); i++) {
		cleanup_strv char **fit = scorecard_fit(lines, widths[i]);
		cleanup_free char *text = join(fit);
		cleanup_free char *name = xasprintf("scorecard-%d",
		    widths[i]);

		golden(name, text);
	}
}

/* Its words, in order, without the spaces between them. */
static char *
squeeze(char *const *lines)
{
	cleanup_free char *text = join(lines);
	char *out = xmalloc(strlen(text) + 1), *o = out;

	for (const char *p = text; *p != '\0'; p++)
		if (*p != ' ' && *p != '\n')
			*o++ = *p;
	*o = '\0';
	return out;
}

/* At every width: no row wider than the width; the words all there, in
 * order, none lost; a word is cut only when it is wider than a row; a
 * step's rows hang under its sentence while 16 columns are left there. */
static void
test_scorecard_fit_rules(void **state)
{
	cleanup_strv char **lines = demo_lines();
	cleanup_free char *want = squeeze(lines);

	(void)state;
	for (int w = 8; w <= 200; w++) {
		cleanup_strv char **fit = scorecard_fit(lines, w);
		cleanup_free char *got = squeeze(fit);

		assert_string_equal(got, want);
		for (size_t i = 0; fit[i] != NULL; i++) {
			if (scorecard_width(fit[i]) > w)
				fail_msg("width %d: row '%s' is wider", w,
				    fit[i]);
			if (fit[i][0] != '\0' &&
			    fit[i][strlen(fit[i]) - 1] == ' ')
				fail_msg("width %d: row '%s' ends in a space",
				    w, fit[i]);
		}
	}
	{
		/* a step at 60: its second row starts under "change" */
		cleanup_strv char **fit = scorecard_fit(lines, 60);

		assert_string_equal(fit[1], "  files     change /etc/hosts (a "
		    "system file, outside its");
		assert_string_equal(fit[2], "            folders): denied by "
		    "you, after 2.4 s");
	}
}

/* Words are never cut while they fit a row; a path wider than a row is
 * cut over rows after a '/', nothing dropped; a step too narrow to hang
 * under its sentence hangs two in; wide characters count two columns;
 * width 0 copies. */
static void
test_scorecard_fit_words(void **state)
{
	char *one[] = { (char *)"  files     change /a/very/long/path/that/"
	    "goes/on/and/on: denied", NULL };
	char *wide[] = { (char *)"  network   look up 例え.jp 例え.jp 例え.jp",
	    NULL };
	char *plain[] = { (char *)"The answers took 2.9 s on average, 5.2 s "
	    "at most.", NULL };
	cleanup_strv char **a = scorecard_fit(one, 30);
	cleanup_strv char **b = scorecard_fit(wide, 24);
	cleanup_strv char **c = scorecard_fit(plain, 30);
	cleanup_strv char **d = scorecard_fit(plain, 0);

	(void)state;
	assert_string_equal(a[0], "  files     change");
	assert_string_equal(a[1], "            /a/very/long/path/");
	assert_string_equal(a[2], "            that/goes/on/and/");
	assert_string_equal(a[3], "            on: denied");
	assert_null(a[4]);
	assert_int_equal(scorecard_width("例え.jp"), 7);
	assert_string_equal(b[0], "  network   look up");
	assert_string_equal(b[1], "    例え.jp 例え.jp");
	assert_string_equal(b[2], "    例え.jp");
	assert_null(b[3]);
	assert_string_equal(c[0], "The answers took 2.9 s on");
	assert_string_equal(c[1], "  average, 5.2 s at most.");
	assert_null(c[2]);
	assert_string_equal(d[0], plain[0]);
	assert_null(d[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scorecard_demo),
		cmocka_unit_test(test_scorecard_fit_golden),
		cmocka_unit_test(test_scorecard_fit_rules),
		cmocka_unit_test(test_scorecard_fit_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
