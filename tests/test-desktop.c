/* SPDX-License-Identifier: MIT */
/* approvals/desktop.c: no desktop session, no notification; a backend
 * that hangs never holds the caller; the body keeps its line breaks. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "approvals/desktop.h"
#include "config/util.h"

static void
test_no_session(void **state)
{
	(void)state;
	unsetenv("DISPLAY");
	unsetenv("WAYLAND_DISPLAY");
	unsetenv("DBUS_SESSION_BUS_ADDRESS");
	assert_false(desktop_available());
	assert_int_equal(desktop_notify("ward: run ab12 waits",
	    "write /etc/<b>&amp;</b>"), -ENOTSUP);

	/* Empty counts as unset. */
	setenv("DISPLAY", "", 1);
	assert_false(desktop_available());
	setenv("WAYLAND_DISPLAY", "wayland-0", 1);
	assert_true(desktop_available());
	unsetenv("WAYLAND_DISPLAY");
	setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent", 1);
	assert_true(desktop_available());
}

/* A notification daemon that never replies. */
static int
test_backend_hang(const char *summary, const char *body)
{
	(void)summary;
	(void)body;
	sleep(60);
	return 0;
}

/*
 * "Never blocks" against a daemon that hangs for 60 s: each call must
 * return well before DESKTOP_TIMEOUT_MS (the kill of an overdue child),
 * so the bound is half of it. A tighter one timed the machine's load,
 * not the code (108 ms once, on 2 cores shared by 8 builds).
 */
#define TEST_PROMPT_MS	(DESKTOP_TIMEOUT_MS / 2)

static void
test_hang_never_blocks(void **state)
{
	int64_t t0, t;

	(void)state;
	setenv("DISPLAY", ":99", 1);
	desktop_set_backend(test_backend_hang);
	t0 = now_mono_ms();
	assert_int_equal(desktop_notify("ward: run ab12 waits", "#1 write"), 0);
	t = now_mono_ms() - t0;
	if (t >= TEST_PROMPT_MS)
		fail_msg("desktop_notify took %lld ms", (long long)t);
	/* At most one in flight: the next is dropped, at once. */
	t0 = now_mono_ms();
	assert_int_equal(desktop_notify("ward: run ab12 waits", "#2 write"),
	    -EBUSY);
	assert_true(now_mono_ms() - t0 < TEST_PROMPT_MS);

	/* Killed once overdue; the session is then taken for no desktop. */
	while (now_mono_ms() - t0 < DESKTOP_TIMEOUT_MS + 300) {
		desktop_poll();
		usleep(50 * 1000);
	}
	t0 = now_mono_ms();
	assert_int_equal(desktop_notify("ward: run ab12 waits", "#3 write"),
	    -ENOTSUP);
	assert_true(now_mono_ms() - t0 < TEST_PROMPT_MS);
	desktop_set_backend(NULL);
	unsetenv("DISPLAY");
}

static int test_pipe[2];

/* Hands what it was given to the test, through the pipe. */
static int
test_backend_tell(const char *summary, const char *body)
{
	size_t n = strlen(summary) + 1 + strlen(body) + 1;
	char *buf = malloc(n);

	if (buf == NULL)
		return -ENOMEM;
	memcpy(buf, summary, strlen(summary) + 1);
	memcpy(buf + strlen(summary) + 1, body, strlen(body) + 1);
	if (write(test_pipe[1], buf, n) != (ssize_t)n)
		return -EIO;
	return 0;
}

static void
test_body_lines(void **state)
{
	struct pollfd pfd;
	char buf[512];
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(test_pipe), 0);
	setenv("DISPLAY", ":99", 1);
	desktop_set_backend(test_backend_tell);
	assert_int_equal(desktop_notify("ward: run ab12 waits for you",
	    "#3 write /etc/<b>x\x1b[2J</b>\nby sh -c 'a & b'"), 0);
	pfd.fd = test_pipe[0];
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	n = read(test_pipe[0], buf, sizeof buf - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "ward: run ab12 waits for you");
	/* a real line break; the program's escape sequence shown, the
	 * markup characters as entities */
	assert_string_equal(buf + strlen(buf) + 1,
	    "#3 write /etc/&lt;b&gt;x\\e[2J&lt;/b&gt;\nby sh -c 'a &amp; b'");
	/* the child went away happily: the next one is not refused */
	for (int i = 0; i < 100; i++) {
		desktop_poll();
		usleep(10 * 1000);
	}
	assert_int_equal(desktop_notify("s", "b"), 0);
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	desktop_set_backend(NULL);
	unsetenv("DISPLAY");
	close(test_pipe[0]);
	close(test_pipe[1]);
}

/* libnotify itself, with a bus nobody listens on: the child fails, and
 * the console is told there is no desktop after all. */
static void
test_no_server(void **state)
{
	int64_t t0;
	int r = 0;

	(void)state;
	unsetenv("DISPLAY");
	unsetenv("WAYLAND_DISPLAY");
	setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/ward-bus", 1);
	desktop_set_backend(NULL);
	t0 = now_mono_ms();
	assert_int_equal(desktop_notify("ward: run ab12 waits", "#1"), 0);
	assert_true(now_mono_ms() - t0 < TEST_PROMPT_MS);
	while (now_mono_ms() - t0 < DESKTOP_TIMEOUT_MS + 500 &&
	    (r = desktop_notify("ward: run ab12 waits", "#2")) == -EBUSY)
		usleep(20 * 1000);
	assert_int_equal(r, -ENOTSUP);
	desktop_set_backend(NULL);
	unsetenv("DBUS_SESSION_BUS_ADDRESS");
}

static void
test_markup(void **state)
{
	char *m;

	(void)state;
	m = desktop_markup("a\nb\n\nc\u202e<&>\r");
	assert_string_equal(m, "a\nb\n\nc\\u{202e}&lt;&amp;&gt;\\r");
	free(m);
	m = desktop_markup("");
	assert_string_equal(m, "");
	free(m);
	m = desktop_markup("\n");
	assert_string_equal(m, "\n");
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_session),
		cmocka_unit_test(test_hang_never_blocks),
		cmocka_unit_test(test_body_lines),
		cmocka_unit_test(test_no_server),
		cmocka_unit_test(test_markup),
	};

	return cmocka_run_group_tests_name("desktop", tests, NULL, NULL);
}
