/* SPDX-License-Identifier: MIT */
/*
 * supervisor/tell.c: a reason reaches another process's stderr when it
 * is a pipe or a socket, never a regular file nor one of ours, and a
 * full pipe is never waited on.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"
#include "supervisor/tell.h"

static const char line[] = "ward: denied: use /out instead\n";

/* A child whose fd 2 is fd, waiting to be killed; its pidfd. */
static int
child_with_stderr(int fd, pid_t *pid)
{
	int pidfd, ready[2];
	char c;

	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		dup2(fd, 2);
		(void)!write(ready[1], "r", 1);
		for (;;)
			pause();
	}
	/* Its fd 2 is fd only once it says so. */
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(ready[1]);
	pidfd = tell_pidfd(*pid);
	assert_true(pidfd >= 0);
	return pidfd;
}

static void
child_done(pid_t pid, int pidfd)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(pidfd);
}

static void
test_pipe(void **state)
{
	int p[2], pidfd;
	pid_t pid;
	char buf[256] = { 0 };

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pidfd = child_with_stderr(p[1], &pid);
	assert_int_equal(tell_stderr(pidfd, line, strlen(line), NULL, 0), 0);
	assert_int_equal(read(p[0], buf, sizeof buf - 1), (ssize_t)strlen(line));
	assert_string_equal(buf, line);
	child_done(pid, pidfd);
	close(p[0]);
	close(p[1]);
}

static void
test_full_pipe(void **state)
{
	int p[2], pidfd;
	pid_t pid;
	static char chunk[4096];

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	while (write(p[1], chunk, sizeof chunk) > 0)
		;
	assert_int_equal(fcntl(p[1], F_SETFL, 0), 0);	/* shared: blocking */
	pidfd = child_with_stderr(p[1], &pid);
	/* A write that would block is dropped, at once. */
	assert_int_equal(tell_stderr(pidfd, line, strlen(line), NULL, 0),
	    -EAGAIN);
	child_done(pid, pidfd);
	close(p[0]);
	close(p[1]);
}

static void
test_socket(void **state)
{
	int sv[2], pidfd;
	pid_t pid;
	char buf[256] = { 0 };

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
	pidfd = child_with_stderr(sv[0], &pid);
	assert_int_equal(tell_stderr(pidfd, line, strlen(line), NULL, 0), 0);
	assert_int_equal(read(sv[1], buf, sizeof buf - 1), (ssize_t)strlen(line));
	assert_string_equal(buf, line);
	child_done(pid, pidfd);
	close(sv[0]);
	close(sv[1]);
}

static void
test_file_and_ours(void **state)
{
	char path[] = "/tmp/ward-test-tell.XXXXXX";
	int fd = mkstemp(path), p[2], pidfd;
	pid_t pid;
	struct stat st, skip;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	pidfd = child_with_stderr(fd, &pid);
	assert_int_equal(tell_stderr(pidfd, line, strlen(line), NULL, 0),
	    -EBADF);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	child_done(pid, pidfd);
	close(fd);

	/* A pipe the supervisor reads itself: skipped. */
	assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	assert_int_equal(fstat(p[0], &skip), 0);
	pidfd = child_with_stderr(p[1], &pid);
	assert_int_equal(tell_stderr(pidfd, line, strlen(line), &skip, 1),
	    -EBADF);
	assert_true(read(p[0], path, 1) < 0 && errno == EAGAIN);
	child_done(pid, pidfd);
	close(p[0]);
	close(p[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_full_pipe),
		cmocka_unit_test(test_socket),
		cmocka_unit_test(test_file_and_ours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
