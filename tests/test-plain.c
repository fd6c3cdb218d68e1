/*
 * approvals/plain.c: each request of tests/data/plain.tsv in plain words.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/plain.h"
#include "config/util.h"
#include "tests/tsv.h"

static void
plain_case(char **f, size_t n, int line, void *ctx)
{
	struct request r = { .syscall = f[1], .subject = f[2],
	    .subject2 = *f[3] ? f[3] : NULL };
	int *bad = ctx;
	char *got;

	(void)n;
	assert_int_equal(request_kind_parse(f[0], &r.kind), 0);
	got = plain_request(&r);
	if (strcmp(got, f[4]) != 0) {
		fprintf(stderr, "plain.tsv:%d: %s\n  got  %s\n  want %s\n",
		    line, f[2], got, f[4]);
		(*bad)++;
	}
	free(got);
}

static void
test_plain_table(void **state)
{
	int bad = 0;

	(void)state;
	assert_true(tsv_each("tests/data/plain.tsv", 5, plain_case, &bad) >=
	    20);
	assert_int_equal(bad, 0);
}

static void
test_plain_kinds(void **state)
{
	(void)state;
	assert_string_equal(plain_path_kind(NULL), "a file");
	assert_string_equal(plain_path_kind("relative/x"), "a file");
	assert_string_equal(plain_path_kind("/etc"), "a system file");
	assert_string_equal(plain_path_kind("/root/.ssh/id_ed25519"),
	    "an SSH key file");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_table),
		cmocka_unit_test(test_plain_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
