/* SPDX-License-Identifier: MIT */
/* approvals/launch.c: the supervisor's argv and its ready line. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "approvals/launch.h"
#include "config/util.h"

static void
test_argv(void **state)
{
	char *cmd[] = { (char *)"sh", (char *)"-c", (char *)"true" };
	const char *want[] = { "ward-supervisor", "--headless", "--policy",
	    "/p.ini", "--ready-fd", "7", "--", "sh", "-c", "true" };
	struct launch l;

	(void)state;
	launch_init(&l);
	assert_non_null(l.path);
	assert_non_null(strstr(l.path, "ward-supervisor"));
	launch_opt(&l, "--headless", NULL);
	launch_opt(&l, "--policy", "/p.ini");
	launch_ready_fd(&l, 7);
	launch_command(&l, cmd, 3);
	assert_int_equal(l.argc, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_string_equal(l.argv[i], want[i]);
	assert_null(l.argv[l.argc]);
	launch_done(&l);
	assert_null(l.argv);
}

static void
test_is_run_id(void **state)
{
	(void)state;
	assert_true(launch_is_run_id("0123abcd", 8));
	assert_false(launch_is_run_id("0123abc", 7));
	assert_false(launch_is_run_id("0123ABCD", 8));
	assert_false(launch_is_run_id("0123abcde", 9));
	assert_false(launch_is_run_id("ward: no", 8));
}

struct lines {
	char	 seen[256];
	unsigned n;
};

static void
on_line(const char *line, void *arg)
{
	struct lines *l = arg;

	l->n++;
	strncat(l->seen, line, sizeof l->seen - strlen(l->seen) - 2);
	strcat(l->seen, "|");
}

static void
test_ready_after_lines(void **state)
{
	struct lines seen = { .n = 0 };
	char id[9];
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	/* A line split across writes, then the id, then more. */
	assert_int_equal(write(p[1], "ward: a warn", 12), 12);
	assert_int_equal(write(p[1], "ing\ndeadbeef\nafter\n", 19), 19);
	assert_int_equal(launch_wait_ready(p[0], 1000, id, on_line, &seen),
	    0);
	assert_string_equal(id, "deadbeef");
	assert_int_equal(seen.n, 1);
	assert_string_equal(seen.seen, "ward: a warning|");
	close(p[0]);
	close(p[1]);
}

static void
test_ready_closed_without_id(void **state)
{
	struct lines seen = { .n = 0 };
	char id[9];
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(write(p[1], "ward: cannot start\n", 19), 19);
	close(p[1]);
	assert_int_equal(launch_wait_ready(p[0], -1, id, on_line, &seen),
	    -EPIPE);
	assert_string_equal(id, "");
	assert_string_equal(seen.seen, "ward: cannot start|");
	close(p[0]);
}

static void
test_ready_timeout(void **state)
{
	char id[9];
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(launch_wait_ready(p[0], 30, id, NULL, NULL),
	    -ETIMEDOUT);
	close(p[0]);
	close(p[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_is_run_id),
		cmocka_unit_test(test_ready_after_lines),
		cmocka_unit_test(test_ready_closed_without_id),
		cmocka_unit_test(test_ready_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
