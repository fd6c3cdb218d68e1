/* SPDX-License-Identifier: MIT */
/*
 * supervisor/install.c: the exec paths that name an fd of the program's
 * own table (/proc/self/fd/N, /dev/fd/N ...), and what such an fd is for
 * the record. The test process is the program (its own /proc entries).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/install.h"

static void
test_path_fd(void **state)
{
	static const struct {
		const char	*path;
		int		 fd;
	} t[] = {
		{ "/proc/self/fd/3", 3 }, { "/proc/thread-self/fd/17", 17 },
		{ "/dev/fd/0", 0 }, { "/dev/fd/123456789", 123456789 },
		{ "/dev/stdin", 0 }, { "/dev/stdout", 1 }, { "/dev/stderr", 2 },
		{ "/proc/self/fd/", -1 }, { "/proc/self/fd/3/", -1 },
		{ "/proc/self/fd/3x", -1 }, { "/proc/self/fd/-3", -1 },
		{ "/dev/fd/1234567890", -1 }, { "/proc/1/fd/3", -1 },
		{ "/proc/self/cwd", -1 }, { "/dev/fd", -1 },
		{ "/dev/stdin2", -1 }, { "/usr/bin/true", -1 },
		{ "dev/fd/3", -1 }, { "", -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (install_path_fd(t[i].path) != t[i].fd)
			fail_msg("\"%s\": %d, want %d", t[i].path,
			    install_path_fd(t[i].path), t[i].fd);
}

static void
test_fd_name(void **state)
{
	char buf[4096];
	int fd = open("/usr/bin/true", O_RDONLY | O_CLOEXEC);
	int mfd = memfd_create("ward-test", MFD_CLOEXEC);
	int empty = memfd_create("", MFD_CLOEXEC);
	char real[4096];

	(void)state;
	assert_true(fd >= 0 && mfd >= 0 && empty >= 0);
	assert_non_null(realpath("/usr/bin/true", real));
	assert_int_equal(install_fd_name(getpid(), fd, buf, sizeof buf), 0);
	assert_string_equal(buf, real);
	/* A memfd never had a path: "memfd:NAME", not "/memfd:NAME (deleted)". */
	assert_int_equal(install_fd_name(getpid(), mfd, buf, sizeof buf), 0);
	assert_string_equal(buf, "memfd:ward-test");
	assert_int_equal(install_fd_name(getpid(), empty, buf, sizeof buf), 0);
	assert_string_equal(buf, "memfd:");
	/* An fd that is not open: the kernel's ENOENT for its exec. */
	close(fd);
	assert_int_equal(install_fd_name(getpid(), fd, buf, sizeof buf),
	    -ENOENT);
	close(mfd);
	close(empty);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_fd),
		cmocka_unit_test(test_fd_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
