/* SPDX-License-Identifier: MIT */
/*
 * review/plain.c: each request of tests/data/plain.tsv in plain words.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/util.h"
#include "review/plain.h"
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

/* Beside the path on the console: the path left out of a write's. */
static void
test_plain_brief(void **state)
{
	struct request w = { .kind = KIND_WRITE, .syscall = (char *)"openat",
	    .subject = (char *)"/etc/hosts" };
	struct request u = { .kind = KIND_WRITE, .syscall = (char *)"unlinkat",
	    .subject = (char *)"/home/a/.bashrc" };
	struct request c = { .kind = KIND_CONNECT, .syscall = (char *)"connect",
	    .subject = (char *)"pypi.org (151.101.0.223):443" };
	char *s;

	(void)state;
	s = plain_request_brief(&w);
	assert_string_equal(s, "wants to change a system file");
	free(s);
	s = plain_request_brief(&u);
	assert_string_equal(s, "wants to delete a shell start-up file");
	free(s);
	s = plain_request_brief(&c);
	assert_string_equal(s, "wants to connect to pypi.org (151.101.0.223) "
	    "on port 443");
	free(s);
}

/* A protected path says what it is, the words taken from the request's
 * why as the supervisor wrote them. */
static void
test_plain_protected(void **state)
{
	struct request w = { .kind = KIND_WRITE, .syscall = (char *)"openat",
	    .subject = (char *)"/src/app/.git/hooks/post-checkout",
	    .why = (char *)"protected: .git/hooks/** (a git hook: git runs "
	    "it as you)" };
	struct request m = { .kind = KIND_WRITE, .syscall = (char *)"renameat2",
	    .subject = (char *)"/src/app/x", .subject2 =
	    (char *)"/src/app/.envrc", .why = (char *)"protected: .envrc (x)" };
	struct request p = { .kind = KIND_WRITE, .syscall = (char *)"openat",
	    .subject = (char *)"/src/app/Makefile",
	    .why = (char *)"protected: Makefile (a file your policy protects "
	    "([files] protect))" };
	char *s;

	(void)state;
	s = plain_request(&w);
	assert_string_equal(s, "wants to change a file that runs code on your "
	    "machine later: /src/app/.git/hooks/post-checkout (a git hook: "
	    "git runs it as you)");
	free(s);
	s = plain_request_brief(&w);
	assert_string_equal(s, "wants to change a file that runs code on your "
	    "machine later");
	free(s);
	s = plain_request(&m);
	assert_string_equal(s, "wants to change a file that runs code on your "
	    "machine later: /src/app/x -> /src/app/.envrc (x)");
	free(s);
	s = plain_request(&p);
	assert_string_equal(s, "wants to change a file that runs code on your "
	    "machine later: /src/app/Makefile (a file your policy protects "
	    "([files] protect))");
	free(s);
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
		cmocka_unit_test(test_plain_brief),
		cmocka_unit_test(test_plain_protected),
		cmocka_unit_test(test_plain_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
