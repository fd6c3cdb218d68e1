/* SPDX-License-Identifier: MIT */
/* config/settings.c: the [console] section of the person's ward.ini. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/settings.h"
#include "config/util.h"

static char *
write_file(const char *text)
{
	char *path = xstrdup("/tmp/ward-test-settings-XXXXXX");
	int fd = mkstemp(path);
	size_t n = strlen(text);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	return path;
}

static void
test_defaults_and_missing(void **state)
{
	struct settings s;

	(void)state;
	assert_int_equal(settings_load("/nonexistent/ward.ini", &s, NULL), 0);
	assert_null(s.notify_cmd);
	assert_null(s.path);
	assert_int_equal(s.notify_after, SETTINGS_NOTIFY_AFTER);
	settings_done(&s);
}

static void
test_console_keys(void **state)
{
	cleanup_free char *path = write_file(
	    "[run]\ntimeout = 5m\n"
	    "[console]\n"
	    "notify_cmd = notify-send \"ward: $WARD_SUBJECT\"\n"
	    "notify_after = 30\n"
	    "prefix = C-a\n"
	    "[files]\nwrite = ask\n");
	struct settings s;

	(void)state;
	assert_int_equal(settings_load(path, &s, NULL), 0);
	assert_string_equal(s.notify_cmd, "notify-send \"ward: $WARD_SUBJECT\"");
	assert_int_equal(s.notify_after, 30);
	assert_string_equal(s.prefix, "C-a");
	assert_string_equal(s.path, path);
	settings_done(&s);
	unlink(path);
}

static void
test_bad_values(void **state)
{
	static const char *const bad[][2] = {
		{ "[console]\nnotify_after = 0\n", ":2: [console] notify_after" },
		{ "[console]\nnotify_after = -5\n", "notify_after" },
		{ "[console]\nnotify_after = 10s\n", "notify_after" },
		{ "[console]\nnotify_after = 86401\n", "1 to 86400" },
		{ "\n[console]\nnotify = x\n", ":3: [console] unknown key \"notify\"" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cleanup_free char *path = write_file(bad[i][0]);
		cleanup_free char *cause = NULL;
		struct settings s;

		assert_int_equal(settings_load(path, &s, &cause), -EINVAL);
		assert_non_null(cause);
		if (strstr(cause, bad[i][1]) == NULL ||
		    strstr(cause, path) == NULL)
			fail_msg("case %zu: cause \"%s\" lacks \"%s\"", i, cause,
			    bad[i][1]);
		settings_done(&s);
		unlink(path);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_missing),
		cmocka_unit_test(test_console_keys),
		cmocka_unit_test(test_bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
