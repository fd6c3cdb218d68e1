/* SPDX-License-Identifier: MIT */
/* config/util.c: str_has_prefix/suffix, read_file_max and read_fd_max
 * over real files in a fresh folder. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"

struct fixture {
	char	dir[64];
};

static int
setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof *fx);

	snprintf(fx->dir, sizeof fx->dir, "/tmp/ward-test-util-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *fx = *state;
	static const char *const names[] = { "empty", "max", "over", "big",
	    "nul" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		cleanup_free char *p = xasprintf("%s/%s", fx->dir, names[i]);

		unlink(p);
	}
	rmdir(fx->dir);
	free(fx);
	return 0;
}

/* A file of n bytes (a repeating pattern) named name in the folder. */
static char *
make_file(struct fixture *fx, const char *name, size_t n)
{
	char *path = xasprintf("%s/%s", fx->dir, name);
	cleanup_free char *b = xmalloc(n + 1);
	int fd;

	for (size_t i = 0; i < n; i++)
		b[i] = (char)('a' + i % 26);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, b, n), 0);
	close(fd);
	return path;
}

static void
test_has_prefix_suffix(void **state)
{
	(void)state;
	assert_true(str_has_prefix("git+https://x", "git+"));
	assert_true(str_has_prefix("abc", "abc"));
	assert_true(str_has_prefix("abc", ""));
	assert_true(str_has_prefix("", ""));
	assert_false(str_has_prefix("ab", "abc"));
	assert_false(str_has_prefix("xabc", "abc"));
	assert_true(str_has_suffix("x.tar.gz", ".tar.gz"));
	assert_true(str_has_suffix("abc", "abc"));
	assert_true(str_has_suffix("abc", ""));
	assert_true(str_has_suffix("", ""));
	assert_false(str_has_suffix("bc", "abc"));
	assert_false(str_has_suffix("abcx", "abc"));
}

static void
test_read_empty(void **state)
{
	cleanup_free char *path = make_file(*state, "empty", 0);
	cleanup_free char *buf = NULL, *cause = NULL;
	size_t len = 99;

	assert_int_equal(read_file_max(path, 10, &buf, &len, &cause), 0);
	assert_non_null(buf);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
	assert_null(cause);
}

/* Exactly max bytes is read; one more is -EFBIG with the bound named;
 * sizes across the buffer's growth (4096, 8192 ...) too. */
static void
test_read_max(void **state)
{
	static const size_t sizes[] = { 1, 4094, 4095, 4096, 4097, 8191,
	    8192, 70000 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t n = sizes[i], len = 0;
		cleanup_free char *at = make_file(*state, "max", n);
		cleanup_free char *over = make_file(*state, "over", n + 1);
		cleanup_free char *buf = NULL, *cause = NULL;
		cleanup_free char *want = NULL;

		assert_int_equal(read_file_max(at, n, &buf, &len, &cause), 0);
		assert_int_equal(len, n);
		assert_int_equal(buf[n], '\0');
		assert_int_equal(buf[n - 1], 'a' + (n - 1) % 26);
		assert_null(cause);
		free(buf);
		buf = NULL;
		/* a bound above the size reads it whole as well */
		assert_int_equal(read_file_max(at, n * 3, &buf, &len, NULL), 0);
		assert_int_equal(len, n);
		free(buf);
		buf = NULL;

		len = 7;
		assert_int_equal(read_file_max(over, n, &buf, &len, &cause),
		    -EFBIG);
		assert_null(buf);
		assert_int_equal(len, 7);
		want = xasprintf("%s: larger than %zu bytes", over, n);
		assert_string_equal(cause, want);
	}
}

static void
test_read_too_large(void **state)
{
	cleanup_free char *path = make_file(*state, "big", 1 << 20);
	cleanup_free char *buf = NULL, *cause = NULL;
	size_t len = 0;

	assert_int_equal(read_file_max(path, 0, &buf, &len, &cause), -EFBIG);
	assert_null(buf);
	assert_int_equal(read_file_max(path, 1000, &buf, &len, NULL), -EFBIG);
	assert_null(buf);
	assert_int_equal(read_file_max(path, (1 << 20) - 1, &buf, &len, NULL),
	    -EFBIG);
	assert_int_equal(read_file_max(path, SIZE_MAX, &buf, &len, NULL), 0);
	assert_int_equal(len, 1 << 20);
}

static void
test_read_missing(void **state)
{
	struct fixture *fx = *state;
	cleanup_free char *path = xasprintf("%s/none", fx->dir);
	cleanup_free char *buf = NULL, *cause = NULL, *want = NULL;
	size_t len = 0;

	assert_int_equal(read_file_max(path, 10, &buf, &len, &cause), -ENOENT);
	assert_null(buf);
	want = xasprintf("%s: %s", path, strerror(ENOENT));
	assert_string_equal(cause, want);
	/* a folder opens, and reading it fails */
	free(cause);
	cause = NULL;
	assert_int_equal(read_file_max(fx->dir, 10, &buf, &len, &cause),
	    -EISDIR);
	assert_null(buf);
	assert_non_null(cause);
}

/* read_fd_max: from the fd's offset; the file's own NULs are kept. */
static void
test_read_fd(void **state)
{
	struct fixture *fx = *state;
	cleanup_free char *path = xasprintf("%s/nul", fx->dir);
	cleanup_free char *buf = NULL;
	cleanup_fd int fd = -1;
	size_t len = 0;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, "ab\0cd", 5), 0);
	assert_int_equal(lseek(fd, 1, SEEK_SET), 1);
	assert_int_equal(read_fd_max(fd, 4, &buf, &len), 0);
	assert_int_equal(len, 4);
	assert_memory_equal(buf, "b\0cd", 5);
	free(buf);
	buf = NULL;
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(read_fd_max(fd, 4, &buf, &len), -EFBIG);
	assert_null(buf);
	assert_int_equal(read_fd_max(-1, 4, &buf, &len), -EBADF);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_has_prefix_suffix),
		cmocka_unit_test_setup_teardown(test_read_empty, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_read_max, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_too_large, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_read_missing, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_read_fd, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
