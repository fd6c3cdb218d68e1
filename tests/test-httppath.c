/* SPDX-License-Identifier: MIT */
/* config/httppath.c: the request targets an HTTP rule may judge, from
 * the table tests/data/hostile-paths.tsv (a line a case); then the
 * rules' own globs, which the policy holds to the same form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config/httppath.h"
#include "config/util.h"
#include "tests/hostile-paths.h"

struct tally {
	size_t	pass, refuse, bad;
};

static void
check_row(char **f, size_t n, int line, void *arg)
{
	struct tally *t = arg;
	cleanup_free char *target = hostile_target(f[1]);
	const char *why = httppath_check(target);
	bool refuse = strcmp(f[0], "refuse") == 0;

	(void)n;
	if (!refuse && strcmp(f[0], "pass") != 0) {
		print_error("%s:%d: verdict %s is not pass or refuse\n",
		    HOSTILE_PATHS, line, f[0]);
		t->bad++;
		return;
	}
	refuse ? t->refuse++ : t->pass++;
	if (refuse && why == NULL) {
		print_error("%s:%d: %s passed, should be refused (%s)\n",
		    HOSTILE_PATHS, line, f[1], f[2]);
		t->bad++;
	} else if (!refuse && why != NULL) {
		print_error("%s:%d: %s refused (%s), should pass\n",
		    HOSTILE_PATHS, line, f[1], why);
		t->bad++;
	} else if (refuse && strstr(why, f[2]) == NULL) {
		print_error("%s:%d: %s refused for \"%s\", not for \"%s\"\n",
		    HOSTILE_PATHS, line, f[1], why, f[2]);
		t->bad++;
	}
}

static void
test_table(void **state)
{
	struct tally t = { 0 };

	(void)state;
	tsv_each(HOSTILE_PATHS, 3, check_row, &t);
	assert_true(t.refuse >= 60);
	assert_true(t.pass >= 15);
	assert_int_equal(t.bad, 0);
}

/* Every escape of every byte, alone in a segment: refused unless it is
 * one a server decodes to no other path (a reserved character but
 * / ; and %, or a byte of UTF-8 after its lead), and never for a reason
 * that names no byte. */
static void
test_every_escape(void **state)
{
	(void)state;
	for (unsigned b = 0; b < 256; b++) {
		char t[32];
		const char *why;
		bool ok = b >= 0x20 && b < 0x7f && strchr("/\\;.-_~", (int)b) ==
		    NULL && !((b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') ||
		    (b >= 'A' && b <= 'Z'));

		snprintf(t, sizeof t, "/ok/%%%02x/a", b);
		why = httppath_check(t);
		if (ok != (why == NULL))
			fail_msg("%s: %s", t, why ? why : "passed");
		snprintf(t, sizeof t, "/ok/%%%02X", b);
		if (ok != (httppath_check(t) == NULL))
			fail_msg("%s: upper case differs", t);
	}
}

/* Raw bytes: pchar and '/' pass in the path, '?' starts the query,
 * nothing else passes. */
static void
test_every_byte(void **state)
{
	(void)state;
	for (unsigned b = 1; b < 256; b++) {
		char t[16];
		bool ok = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
		    (b >= '0' && b <= '9') || (b != 0 &&
		    strchr("-._~!$&'()*+,=:@/?", (int)b) != NULL);

		snprintf(t, sizeof t, "/ok/x%cx", (char)b);
		if (ok != (httppath_check(t) == NULL))
			fail_msg("byte 0x%02x: %s", b, httppath_check(t) ?
			    httppath_check(t) : "passed");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_every_escape),
		cmocka_unit_test(test_every_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
