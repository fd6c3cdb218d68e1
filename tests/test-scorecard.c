/* SPDX-License-Identifier: MIT */
/*
 * approvals/scorecard.c on an in-memory record shaped like a `ward demo`
 * run: a write asked and denied, a name allowed and its connection
 * denied, an install allowed and its registry let through, the metadata
 * address refused by the never list, a syscall refused by the floor;
 * programs started are not listed. The lines are a golden file
 * (tests/golden/scorecard.txt).
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
#include "approvals/scorecard.h"
#include "approvals/summary.h"
#include "config/util.h"
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

static void
test_scorecard_demo(void **state)
{
	static const struct audit_run r1 = {
		.id = "r1", .command = "sh agent.sh", .policy_path = "/p",
		.policy_hash = "h", .started_ms = 1000,
	};
	cleanup_strv char **lines = NULL;
	cleanup_free char *text = NULL;
	struct audit *a = NULL;
	struct summary s;

	(void)state;
	assert_int_equal(audit_open(":memory:", &a, NULL), 0);
	assert_int_equal(audit_run_begin(a, &r1, NULL), 0);
	ev(a, KIND_RUN, NULL, "start", VERDICT_NONE, HOW_SUPERVISOR, NULL, 0, 0);
	ev(a, KIND_EXEC, "execve", "/usr/bin/sh", VERDICT_ALLOW, HOW_FLOOR,
	    NULL, 0, 0);
	ev(a, KIND_WRITE, "openat", "/etc/hosts", VERDICT_DENY, HOW_PERSON,
	    NULL, 2400, 1);
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
	for (size_t i = 0; lines[i] != NULL; i++) {
		char *t = xasprintf("%s%s\n", text ? text : "", lines[i]);

		free(text);
		text = t;
	}
	golden("scorecard", text);
	audit_close(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scorecard_demo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
