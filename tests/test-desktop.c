/* approvals/desktop.c: no desktop session, no notification. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "approvals/desktop.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_session),
	};

	return cmocka_run_group_tests_name("desktop", tests, NULL, NULL);
}
