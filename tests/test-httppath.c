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
#include "tests/rfc3986.h"

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
	} else if (!refuse && (why = rfc3986_differs(target)) != NULL) {
		print_error("%s:%d: %s is in the table to pass, but %s\n",
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

/*
 * Targets made of the pieces attacks are made of, at random (a fixed
 * seed: the same cases every run): each one httppath_check passes must
 * be one RFC 3986's own algorithms leave as it is (tests/rfc3986.h).
 */
static void
test_random_against_rfc(void **state)
{
	static const char *const piece[] = {
		"/", "/", "/", ".", "..", "a", "ok", "%2e", "%2E", "%2f",
		"%5c", "%25", "%u002e", ";", "\\", "%", "2e", "%00", "%c0%ae",
		"%41", "?", "#", "%3b", "~", "%7e", "%20", "=", "x", "%e2%80%a5",
		"%c3%a9", "%ef%bc%8f", "%2", "...", "%252e",
	};
	unsigned seed = 29, passed = 0;
	const char *why;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		char t[256] = "/";
		int n = 1 + (int)(rand_r(&seed) % 9);

		if (rand_r(&seed) % 16 == 0)
			t[0] = '\0';
		for (int k = 0; k < n; k++)
			strcat(t, piece[rand_r(&seed) % ARRAY_SIZE(piece)]);
		if (httppath_check(t) != NULL)
			continue;
		passed++;
		if ((why = rfc3986_differs(t)) != NULL)
			fail_msg("%s passed, but %s", t, why);
	}
	/* The pieces make enough canonical paths to mean something. */
	assert_true(passed > 2000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_every_escape),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_random_against_rfc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
