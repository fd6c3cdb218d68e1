/* SPDX-License-Identifier: MIT */
/*
 * supervisor/hostout.c: the supervisor's own output never blocks, holds
 * a bounded amount, and on a terminal lets no escape of the program's
 * leave its current line.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"
#include "supervisor/hostout.h"

/* What the read end holds now. */
static size_t
drain(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size && (r = read(fd, buf + n, size - n)) > 0)
		n += (size_t)r;
	return n;
}

static void
test_stalled_reader(void **state)
{
	struct hostout o;
	int p[2];
	static char chunk[65536];
	size_t fed = 0;

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	hostout_init(&o, p[1]);
	assert_true(o.own_fd >= 0);	/* its own non-blocking description */
	memset(chunk, 'x', sizeof chunk);
	/* Nobody reads: everything past the pipe waits in the buffer, up to
	 * the bound, and no write blocks. */
	while (hostout_room(&o) > 0 && fed < 64u << 20) {
		size_t n = hostout_room(&o) < sizeof chunk ?
		    hostout_room(&o) : sizeof chunk;

		hostout_write(&o, chunk, n, false);
		fed += n;
	}
	assert_int_equal(hostout_room(&o), 0);
	assert_true(hostout_pending(&o));
	assert_int_equal(hostout_poll_fd(&o), o.own_fd);
	/* ward's own line still finds room past the bound. */
	hostout_write(&o, "ward: x\n", 8, true);
	assert_int_equal(o.dropped, 0);
	assert_true(hostout_flush(&o));
	/* The reader comes back: it gets all of it, in order. */
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	{
		size_t got = 0;
		static char buf[1 << 16];
		char last[8];

		for (int i = 0; i < 100000 && (hostout_flush(&o) ||
		    got < fed + 8); i++) {
			size_t n = drain(p[0], buf, sizeof buf);

			if (n >= 8)
				memcpy(last, buf + n - 8, 8);
			got += n;
		}
		assert_int_equal(got, fed + 8);
		assert_memory_equal(last, "ward: x\n", 8);
	}
	assert_false(hostout_pending(&o));
	hostout_done(&o);
	close(p[0]);
	close(p[1]);
}

static void
test_broken_reader(void **state)
{
	struct hostout o;
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	hostout_init(&o, p[1]);
	close(p[0]);
	hostout_write(&o, "abc", 3, false);	/* EPIPE (SIGPIPE ignored) */
	assert_true(o.broken);
	assert_false(hostout_pending(&o));
	assert_true(hostout_room(&o) > 0);	/* the program is still read */
	hostout_done(&o);
	close(p[1]);
}

/* On a terminal (forced here on a pipe): what the program's escapes
 * become, fed in pieces that split the sequences. */
static void
test_terminal_filter(void **state)
{
	static const char in[] =
	    "a\033[1A\033[2Kb\033[31mc\033[0m\033[?1049h\033[H\033[2J"
	    "\033]0;title\007\033Md\033[5Ge\033(Bf\033]8;;x\033\\g\r\n";
	static const char want[] =
	    "a\033[2Kb\033[31mc\033[0m" "d\033[5Ge" "fg\r\n";
	struct hostout o;
	char out[256];
	size_t n;
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	hostout_init(&o, p[1]);
	o.tty = true;
	for (size_t i = 0; i < sizeof in - 1; i += 3)
		hostout_write(&o, in + i, sizeof in - 1 - i < 3 ?
		    sizeof in - 1 - i : 3, false);
	n = drain(p[0], out, sizeof out);
	assert_int_equal(n, sizeof want - 1);
	assert_memory_equal(out, want, n);

	/* ward's own line starts on a line of its own. */
	hostout_write(&o, "partial", 7, false);
	hostout_write(&o, "ward[1]: x\n", 11, true);
	n = drain(p[0], out, sizeof out);
	assert_int_equal(n, 7 + 2 + 11);
	assert_memory_equal(out, "partial\r\nward[1]: x\n", n);
	hostout_done(&o);
	close(p[0]);
	close(p[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stalled_reader),
		cmocka_unit_test(test_broken_reader),
		cmocka_unit_test(test_terminal_filter),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
