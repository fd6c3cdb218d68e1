/* SPDX-License-Identifier: MIT */
/* tui/shellwrap.c: the command inside an agent's shell wrapper, from the
 * real command lines of tests/data/shellwrap.tsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/tsv.h"
#include "tui/shellwrap.h"

static void
shellwrap_case(char **f, size_t n, int line, void *ctx)
{
	int *bad = ctx;
	char *got = shellwrap_command(f[0]);
	const char *want = f[1];

	(void)n;
	if ((*want == '\0') != (got == NULL) ||
	    (got != NULL && strcmp(got, want) != 0)) {
		fprintf(stderr, "shellwrap.tsv:%d: got \"%s\", want \"%s\"\n",
		    line, got != NULL ? got : "(none)", want);
		(*bad)++;
	}
	free(got);
}

static void
test_table(void **state)
{
	int bad = 0;

	(void)state;
	assert_true(tsv_each("tests/data/shellwrap.tsv", 2, shellwrap_case,
	    &bad) >= 15);
	assert_int_equal(bad, 0);
}

/* A backslash outside quotes keeps what follows; inside "..." only
 * before $ ` " \ is it dropped. */
static void
test_backslashes(void **state)
{
	char *got;

	(void)state;
	got = shellwrap_command("bash -c source a/shell-snapshots/snapshot-b.sh"
	    " && eval \"printf '\\n' \\$HOME\\\\\" < /dev/null");
	assert_non_null(got);
	assert_string_equal(got, "printf '\\n' $HOME\\");
	free(got);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_backslashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
