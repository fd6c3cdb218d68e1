/* SPDX-License-Identifier: MIT */
/* tui/pen.c: the program's colours (256 indexed, RGB) folded to what the
 * terminal has (8, 16, 256 colours); tui/screen.c: NO_COLOR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tui/grid.h"
#include "tui/pen.h"
#include "tui/screen.h"

static void
test_fold_default_and_none(void **state)
{
	(void)state;
	/* The terminal's own default, whatever it has. */
	assert_int_equal(pen_fold_color(0, 256), -1);
	assert_int_equal(pen_fold_color(0, 8), -1);
	/* A terminal without colours: none, whatever was asked. */
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(1), 0), -1);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(1), 2), -1);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(255, 0, 0), 1), -1);
}

static void
test_fold_indexed(void **state)
{
	(void)state;
	/* What the terminal has stays. */
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(1), 8), 1);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(7), 8), 7);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(9), 16), 9);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(200), 256), 200);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(0), 256), 0);
	/* Bright on 8 colours: the dark twin. */
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(9), 8), 1);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(15), 8), 7);
	/* The cube and the greys on fewer: the nearest basic colour. */
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(196), 16), 9);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(196), 8), 1);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(21), 16), 4);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(232), 16), 0);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(255), 8), 7);
	assert_int_equal(pen_fold_color(GRID_TC_INDEX(46), 8), 2);
}

static void
test_fold_rgb(void **state)
{
	(void)state;
	/* 256: the cube or the grey ramp, never the themable basic 16. */
	assert_int_equal(pen_fold_color(GRID_TC_RGB(255, 0, 0), 256), 196);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(0, 0, 0), 256), 16);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(255, 255, 255), 256), 231);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(0, 95, 135), 256), 24);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(128, 128, 128), 256), 244);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(250, 250, 250), 256), 231);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(10, 10, 12), 256), 232);
	/* More than 256 (a direct-colour terminal): as 256. */
	assert_int_equal(pen_fold_color(GRID_TC_RGB(255, 0, 0), 1 << 24), 196);
	/* 16 and 8: the nearest basic colour. */
	assert_int_equal(pen_fold_color(GRID_TC_RGB(255, 0, 0), 16), 9);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(255, 0, 0), 8), 1);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(0, 0, 200), 8), 4);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(120, 120, 120), 16), 8);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(120, 120, 120), 8), 0);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(240, 240, 240), 8), 7);
	assert_int_equal(pen_fold_color(GRID_TC_RGB(0, 200, 200), 16), 6);
}

/* https://no-color.org: set and not empty turns colour off. */
static void
test_no_color(void **state)
{
	(void)state;
	unsetenv("NO_COLOR");
	assert_false(screen_no_color());
	setenv("NO_COLOR", "", 1);
	assert_false(screen_no_color());
	setenv("NO_COLOR", "1", 1);
	assert_true(screen_no_color());
	unsetenv("NO_COLOR");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_default_and_none),
		cmocka_unit_test(test_fold_indexed),
		cmocka_unit_test(test_fold_rgb),
		cmocka_unit_test(test_no_color),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
