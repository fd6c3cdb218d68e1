/* SPDX-License-Identifier: MIT */
/*
 * supervisor/oci.c: what a container's run takes as it is given. The fd
 * names a caller's own fd by (oci_fd_path), the devices the supervisor
 * opens for a container (oci_device_ok, on real device nodes and made-up
 * numbers), a thread's file ids, and oci_adopt refusing what is not a
 * seccomp listener (a pipe) while taking a real one, made by a child
 * (tests/listener.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/listener.h"

#include "config/util.h"
#include "supervisor/oci.h"
#include "supervisor/sup.h"

static void
test_fd_path(void **state)
{
	static const struct { const char *path; int fd; } rows[] = {
		{ "/dev/stdin", 0 }, { "/dev/stdout", 1 }, { "/dev/stderr", 2 },
		{ "/dev/fd/7", 7 }, { "/proc/self/fd/12", 12 },
		{ "/proc/thread-self/fd/3", 3 },
		{ "/proc/self/fd/", -1 }, { "/proc/self/fd/1a", -1 },
		{ "/proc/self/fd/../x", -1 }, { "/proc/1/fd/3", -1 },
		{ "/dev/fdx/1", -1 }, { "/dev/fd", -1 },
		{ "/proc/self/fd/1234567890", -1 }, { "/dev/stdout/x", -1 },
		{ "/tmp/stdout", -1 }, { "/proc/self/root/etc/x", -1 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		int got = oci_fd_path(rows[i].path);

		if (got != rows[i].fd)
			fail_msg("%s: %d, wanted %d", rows[i].path, got,
			    rows[i].fd);
	}
}

static bool
dev_ok(mode_t type, unsigned ma, unsigned mi)
{
	struct stat st = { .st_mode = type | 0666,
	    .st_rdev = makedev(ma, mi) };

	return oci_device_ok(&st);
}

static void
test_device_ok(void **state)
{
	static const char *const good[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
		"/dev/urandom", "/dev/tty", "/dev/ptmx",
	};
	struct stat st;
	int p[2];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		if (stat(good[i], &st) < 0)
			fail_msg("stat %s: %s", good[i], strerror(errno));
		if (!oci_device_ok(&st))
			fail_msg("%s refused", good[i]);
	}
	assert_int_equal(pipe(p), 0);
	assert_int_equal(fstat(p[0], &st), 0);
	assert_true(oci_device_ok(&st));
	close(p[0]);
	close(p[1]);
	assert_int_equal(stat("/etc/passwd", &st), 0);
	assert_false(oci_device_ok(&st));
	assert_int_equal(stat("/dev", &st), 0);
	assert_false(oci_device_ok(&st));
	/* Numbers no container should get through the supervisor. */
	assert_false(dev_ok(S_IFCHR, 1, 1));	/* /dev/mem */
	assert_false(dev_ok(S_IFCHR, 1, 4));	/* /dev/port */
	assert_false(dev_ok(S_IFCHR, 1, 11));	/* /dev/kmsg */
	assert_false(dev_ok(S_IFCHR, 10, 200));	/* /dev/net/tun */
	assert_false(dev_ok(S_IFCHR, 4, 1));	/* tty1 */
	assert_false(dev_ok(S_IFCHR, 5, 1));	/* /dev/console */
	assert_false(dev_ok(S_IFBLK, 8, 0));	/* sda */
	assert_false(dev_ok(S_IFBLK, 1, 3));	/* a block node with null's numbers */
	assert_false(dev_ok(S_IFCHR, 144, 0));
	assert_true(dev_ok(S_IFCHR, 136, 5));	/* a pts */
	assert_true(dev_ok(S_IFCHR, 143, 0));
}

static void
test_target_ids(void **state)
{
	uid_t u = 12345;
	gid_t g = 12345;

	(void)state;
	assert_int_equal(oci_target_ids(getpid(), &u, &g), 0);
	assert_int_equal(u, getuid());
	assert_int_equal(g, getgid());
	assert_int_equal(oci_target_ids(0x3fffffff, &u, &g), -ESRCH);
}

/* A real listener: a child installs a filter that allows everything,
 * with a listener, and hands its fd back over a socketpair. */
static int
real_listener(void)
{
	int sv[2], fd = -1;
	pid_t c;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	if ((c = fork()) == 0) {
		char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
		struct iovec iov = { (void *)"l", 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
		    .msg_control = cbuf, .msg_controllen = sizeof cbuf };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		long l;

		if ((l = test_listener_new()) < 0)
			_exit(1);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &(int){ (int)l }, sizeof(int));
		_exit(sendmsg(sv[1], &m, 0) == 1 ? 0 : 2);
	}
	close(sv[1]);
	{
		char b, cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { &b, 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
		    .msg_control = cbuf, .msg_controllen = sizeof cbuf };
		struct cmsghdr *cm;
		int st;

		assert_int_equal(recvmsg(sv[0], &m, MSG_CMSG_CLOEXEC), 1);
		cm = CMSG_FIRSTHDR(&m);
		assert_non_null(cm);
		memcpy(&fd, CMSG_DATA(cm), sizeof fd);
		assert_int_equal(waitpid(c, &st, 0), c);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	close(sv[0]);
	return fd;
}

static struct sup S;

static void
test_adopt_checks(void **state)
{
	struct oci_names names = { .udp = -1, .tcp = -1 };
	char *cause = NULL;
	int p[2], fd;

	(void)state;
	S.oci_pidfd = S.rootfd = -1;
	/* A pipe is no listener, whatever a runtime said. */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(oci_adopt(&S, p[0], getpid(), &names, &cause),
	    -EINVAL);
	assert_non_null(strstr(cause, "not a seccomp listener"));
	free(cause);
	cause = NULL;
	close(p[0]);
	close(p[1]);
	/* A real one passes that check; an init that is not there is
	 * the next refusal, with its pid. */
	fd = real_listener();
	assert_int_equal(oci_adopt(&S, fd, 0x3fffffff, &names, &cause),
	    -ESRCH);
	assert_non_null(strstr(cause, "the container's init"));
	free(cause);
	close(fd);
	assert_int_equal(S.oci_pidfd, -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fd_path),
		cmocka_unit_test(test_device_ok),
		cmocka_unit_test(test_target_ids),
		cmocka_unit_test(test_adopt_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
