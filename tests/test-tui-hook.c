/* SPDX-License-Identifier: MIT */
/* tui/hook.c: the notify_cmd hook runs off the loop, with the request in
 * WARD_* variables (never in the command's text), and is bounded. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"
#include "tui/hook.h"

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n;

	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return xstrdup(buf);
}

static void
wait_gone(struct hook *h, int64_t *now, int64_t step)
{
	for (int i = 0; i < 400 && hook_pid(h) != 0; i++) {
		usleep(10000);
		*now += step;
		hook_tick(h, *now);
	}
}

static void
test_env_not_text(void **state)
{
	char out[] = "/tmp/ward-test-hook-XXXXXX";
	int fd = mkstemp(out);
	cleanup_free char *cmd = NULL;
	cleanup_free char *got = NULL;
	struct hook *h;
	int64_t now = 1000;
	/* What the program controls: shell syntax that must not run. */
	const struct hook_request r = {
		.run = "r1", .run_name = "build", .id = 7, .kind = "write",
		.subject = "/tmp/x; touch /tmp/ward-test-hook-pwned $(id)",
		.process = "sh -c `reboot`", .waited_s = 61,
	};

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink("/tmp/ward-test-hook-pwned");
	cmd = xasprintf("printf '%%s|%%s|%%s|%%s|%%s|%%s\\n' \"$WARD_RUN\" "
	    "\"$WARD_REQUEST\" \"$WARD_KIND\" \"$WARD_SUBJECT\" "
	    "\"$WARD_PROCESS\" \"$WARD_WAITED\" > %s", out);
	h = hook_new(cmd);
	assert_int_equal(hook_fire(h, &r, now), 0);
	assert_true(hook_pid(h) > 0);
	/* One at a time. */
	assert_int_equal(hook_fire(h, &r, now), -EBUSY);
	wait_gone(h, &now, 1);
	assert_int_equal(hook_pid(h), 0);
	got = slurp(out);
	assert_string_equal(got, "r1|7|write|/tmp/x; touch "
	    "/tmp/ward-test-hook-pwned $(id)|sh -c `reboot`|61\n");
	assert_int_not_equal(access("/tmp/ward-test-hook-pwned", F_OK), 0);
	hook_free(h);
	unlink(out);
}

static void
test_bounded(void **state)
{
	struct hook *h = hook_new("sleep 30 & sleep 30");
	const struct hook_request r = { .run = "r1", .run_name = "",
	    .id = 1, .kind = "write", .subject = "/x", .process = "p" };
	int64_t now = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(hook_fire(h, &r, now), 0);
	pid = hook_pid(h);
	hook_tick(h, now + HOOK_TIMEOUT_MS - 1);
	assert_int_equal(hook_pid(h), pid);
	now += HOOK_TIMEOUT_MS;
	hook_tick(h, now);
	wait_gone(h, &now, 0);
	assert_int_equal(hook_pid(h), 0);
	/* Its whole group went: the background sleep too (once whoever
	 * inherited it has reaped it). */
	for (int i = 0; i < 300 && kill(-pid, 0) == 0; i++)
		usleep(10000);
	assert_int_equal(kill(-pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	hook_free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_not_text),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
