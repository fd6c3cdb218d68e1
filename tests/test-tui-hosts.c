/* SPDX-License-Identifier: MIT */
/* tui/hosts.c: the hosts file of `ward console --hosts` (issue 16) and
 * the back-off of a broken link. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"
#include "tui/hosts.h"

static void
test_parse(void **state)
{
	cleanup_strv char **h = NULL;
	cleanup_free char *cause = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(hosts_parse("# the farm\n\nbuild1\n  user@build2  "
	    "# a comment\n\tbuild1\r\nlast", &h, &n, &cause), 0);
	assert_int_equal(n, 3);
	assert_string_equal(h[0], "build1");
	assert_string_equal(h[1], "user@build2");
	assert_string_equal(h[2], "last");
	assert_null(h[3]);
	/* Nothing, only comments: nothing added, no error. */
	assert_int_equal(hosts_parse("", &h, &n, &cause), 0);
	assert_int_equal(hosts_parse("#\n   # x\n\n", &h, &n, &cause), 0);
	assert_int_equal(n, 3);
}

static void
test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"ok\n-oProxyCommand=x\n",	/* an option, not a host */
		"ok\ntwo words\n",
		"ok\nctl\x01here\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cleanup_strv char **h = NULL;
		cleanup_free char *cause = NULL;
		size_t n = 0;

		assert_int_equal(hosts_parse(bad[i], &h, &n, &cause), -EINVAL);
		assert_non_null(cause);
		assert_non_null(strstr(cause, "line 2"));
		assert_int_equal(n, 1);		/* the line before it */
	}
	assert_false(hosts_valid(""));
	assert_false(hosts_valid("-x"));
	assert_false(hosts_valid("a b"));
	assert_true(hosts_valid("user@host.example:22"));
	{
		char longname[300];

		memset(longname, 'a', sizeof longname - 1);
		longname[sizeof longname - 1] = '\0';
		assert_false(hosts_valid(longname));
	}
}

static void
test_add(void **state)
{
	cleanup_strv char **h = NULL;
	cleanup_free char *cause = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(hosts_add("b1", &h, &n, &cause), 0);
	assert_int_equal(hosts_add("b1", &h, &n, &cause), 0);
	assert_int_equal(n, 1);
	assert_int_equal(hosts_add("-b", &h, &n, &cause), -EINVAL);
	assert_non_null(cause);
	assert_int_equal(n, 1);
}

static void
test_load(void **state)
{
	char dir[] = "/tmp/test-hosts.XXXXXX";
	cleanup_free char *path = NULL, *cause = NULL, *old = NULL;
	cleanup_strv char **h = NULL;
	size_t n = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/ward/hosts", dir);
	if (getenv("XDG_CONFIG_HOME") != NULL)
		old = xstrdup(getenv("XDG_CONFIG_HOME"));
	setenv("XDG_CONFIG_HOME", dir, 1);
	/* No file: no host, no error. */
	assert_int_equal(hosts_load(NULL, &h, &n, &cause), 0);
	assert_int_equal(n, 0);
	{
		cleanup_free char *wd = xasprintf("%s/ward", dir);

		assert_int_equal(mkdir(wd, 0700), 0);
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# hosts\nalpha\nbeta\n", f);
	fclose(f);
	assert_int_equal(hosts_load(NULL, &h, &n, &cause), 0);
	assert_int_equal(n, 2);
	assert_string_equal(h[1], "beta");
	f = fopen(path, "w");
	fputs("gamma\nbad host\n", f);
	fclose(f);
	assert_int_equal(hosts_load(path, &h, &n, &cause), -EINVAL);
	assert_non_null(strstr(cause, path));
	assert_non_null(strstr(cause, "line 2"));
	unlink(path);
	{
		cleanup_free char *wd = xasprintf("%s/ward", dir);

		rmdir(wd);
	}
	rmdir(dir);
	if (old != NULL)
		setenv("XDG_CONFIG_HOME", old, 1);
	else
		unsetenv("XDG_CONFIG_HOME");
}

static void
test_backoff(void **state)
{
	static const int64_t want[] = { 1000, 2000, 4000, 8000, 16000, 30000,
	    30000 };
	int64_t d = 0;

	(void)state;
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		d = hosts_backoff(d);
		assert_int_equal(d, want[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_backoff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
