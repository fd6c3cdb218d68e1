/* SPDX-License-Identifier: MIT */
/* tui/vt.c: the agent pane's emulator. Escape sequences fed in land as
 * cells inside the pane's rectangle only; what a program asks of the
 * terminal (title, bell, alternate screen) is recorded, not obeyed. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/util.h"
#include "tui/grid.h"
#include "tui/keys.h"
#include "tui/vt.h"

static void
feed(struct vt *t, const char *s)
{
	vt_feed(t, s, strlen(s));
}

/* Row y of g as text, trailing blanks cut. */
static char *
row_text(const struct grid *g, int y)
{
	char *all = grid_text(g), *line = all, *nl;

	for (int i = 0; i < y && line != NULL; i++)
		line = (nl = strchr(line, '\n')) != NULL ? nl + 1 : NULL;
	assert_non_null(line);
	line = xstrndup(line, strcspn(line, "\n"));
	free(all);
	return line;
}

static void
test_vt_cells_clipped(void **state)
{
	struct vt *t = vt_new(5, 10);
	struct grid *g = grid_new(30, 10);
	char *s;

	(void)state;
	/* Ward's own text around the pane, then the program's screen. */
	for (int y = 0; y < 10; y++)
		grid_put(g, y, 0, 30, "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWW", 0);
	feed(t, "\x1b[2J\x1b[1;1Hhello\x1b[4;8Hxyzzy-far");
	/* Absolute moves far outside the program's screen stay inside. */
	feed(t, "\x1b[99;99HZ\x1b[1;200HQ");
	vt_draw(t, g, 2, 5, 5, 10);

	s = row_text(g, 2);
	assert_string_equal(s, "WWWWWhello    QWWWWWWWWWWWWWWW");
	free(s);
	/* The long text wrapped at the pane's right edge, never beyond. */
	s = row_text(g, 6);
	assert_string_equal(s, "WWWWWzy-far   ZWWWWWWWWWWWWWWW");
	free(s);
	for (int y = 0; y < 10; y++) {
		s = row_text(g, y);
		assert_int_equal(strlen(s), 30);
		assert_memory_equal(s, "WWWWW", 5);
		assert_string_equal(s + 15, "WWWWWWWWWWWWWWW");
		if (y < 2 || y >= 7)
			assert_string_equal(s, "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWW");
		free(s);
	}
	/* A pane smaller than the program's screen clips it too. */
	grid_clear(g);
	vt_draw(t, g, 0, 0, 2, 3);
	s = row_text(g, 0);
	assert_string_equal(s, "hel");
	free(s);
	s = row_text(g, 2);
	assert_string_equal(s, "");
	free(s);
	grid_free(g);
	vt_free(t);
}

static void
test_vt_title_bell_recorded(void **state)
{
	struct vt *t = vt_new(4, 20);
	struct grid *g = grid_new(20, 4);
	size_t n;
	char *s;

	(void)state;
	assert_string_equal(vt_title(t), "");
	feed(t, "\x1b]0;ward: #1 write /etc/passwd\x07" "ok\x07");
	assert_string_equal(vt_title(t), "ward: #1 write /etc/passwd");
	assert_int_equal(vt_title_sets(t), 1);
	feed(t, "\x1b]2;second\x1b\\");
	assert_string_equal(vt_title(t), "second");
	assert_int_equal(vt_title_sets(t), 2);
	assert_int_equal(vt_take_bells(t), 1);
	assert_int_equal(vt_take_bells(t), 0);
	/* Palette changes and mode switches are taken by the emulator:
	 * nothing of them is on the screen or waits for the terminal. */
	feed(t, "\x1b]4;1;rgb:ff/00/00\x07\x1b[?1049h\x1b[?1049l");
	vt_draw(t, g, 0, 0, 4, 20);
	s = row_text(g, 0);
	assert_string_equal(s, "ok");
	free(s);
	/* A query is answered for the program, through the output. */
	vt_output_clear(t);
	feed(t, "\x1b[6n");
	assert_non_null(vt_output(t, &n));
	assert_int_equal(n, strlen("\x1b[1;3R"));
	assert_memory_equal(vt_output(t, &n), "\x1b[1;3R", n);
	grid_free(g);
	vt_free(t);
}

/*
 * Issue 31: the title is recorded as the program sent it, cut at
 * VT_TITLE_MAX, for the agent view to escape and quote
 * (tui/view-agent.c); setting it touches nothing else. (libvterm 0.1
 * drops a title split across two writes: then none is shown.)
 */
static void
test_vt_title_raw(void **state)
{
	struct vt *t = vt_new(4, 20);
	char big[1200];

	(void)state;
	feed(t, "\x1b]2;== agent: pwned2 ==\x07");
	assert_string_equal(vt_title(t), "== agent: pwned2 ==");
	feed(t, "\x1b]0;ward \xe2\x80\xae\"approved\"\x1b\\");
	assert_string_equal(vt_title(t), "ward \xe2\x80\xae\"approved\"");
	memset(big, 'w', sizeof big);
	memcpy(big, "\x1b]2;", 4);
	memcpy(big + sizeof big - 2, "\x07", 2);
	feed(t, big);
	assert_int_equal(strlen(vt_title(t)), VT_TITLE_MAX - 1);
	assert_false(vt_altscreen(t));
	assert_int_equal(vt_mouse_mode(t), 0);
	vt_free(t);
}

static void
test_vt_altscreen(void **state)
{
	struct vt *t = vt_new(4, 20);

	(void)state;
	assert_false(vt_altscreen(t));
	assert_false(vt_was_fullscreen(t));
	feed(t, "\x1b[?1049h");
	assert_true(vt_altscreen(t));
	feed(t, "\x1b[?1049l");
	assert_false(vt_altscreen(t));
	assert_true(vt_was_fullscreen(t));
	feed(t, "\x1b[?1000h");
	assert_int_equal(vt_mouse_mode(t), 1);
	vt_free(t);
}

static void
expect_out(struct vt *t, const char *want)
{
	size_t n;
	const char *o = vt_output(t, &n);

	assert_int_equal(n, strlen(want));
	if (n > 0)
		assert_memory_equal(o, want, n);
	vt_output_clear(t);
}

static void
test_vt_keys(void **state)
{
	struct vt *t = vt_new(4, 20);

	(void)state;
	assert_true(vt_key(t, 'a'));
	assert_true(vt_key(t, 0x00e9));
	assert_true(vt_key(t, '\r'));
	assert_true(vt_key(t, KEYS_CTRL('c')));
	expect_out(t, "a\xc3\xa9\r\x03");
	assert_true(vt_key(t, KEYS_UP));
	expect_out(t, "\x1b[A");
	/* The cursor keys follow the mode the program set (DECCKM). */
	feed(t, "\x1b[?1h");
	assert_true(vt_key(t, KEYS_UP));
	expect_out(t, "\x1bOA");
	assert_true(vt_key(t, KEYS_LEFT | KEYS_MOD_CTRL));
	expect_out(t, "\x1b[1;5D");
	assert_true(vt_key(t, KEYS_F0 + 1));
	expect_out(t, "\x1bOP");
	assert_true(vt_key(t, KEYS_BACKTAB));
	expect_out(t, "\x1b[Z");
	assert_false(vt_key(t, KEYS_RESIZE));
	assert_false(vt_key(t, KEYS_PASTE_START));
	expect_out(t, "");
	/* Bracketed paste only when the program asked for it. */
	vt_paste(t, true);
	vt_key(t, 'x');
	vt_paste(t, false);
	expect_out(t, "x");
	feed(t, "\x1b[?2004h");
	vt_paste(t, true);
	vt_key(t, 'x');
	vt_paste(t, false);
	expect_out(t, "\x1b[200~x\x1b[201~");
	vt_free(t);
}

static void
test_vt_mouse(void **state)
{
	struct vt *t = vt_new(10, 40);

	(void)state;
	/* Not asked for: nothing. */
	vt_mouse(t, 2, 3, 1, true);
	expect_out(t, "");
	feed(t, "\x1b[?1000h");
	vt_mouse(t, 2, 3, 1, true);
	/* X10 encoding: button 0, col 4, row 3, each + 32. */
	expect_out(t, "\x1b[M\x20\x24\x23");
	feed(t, "\x1b[?1006h");
	vt_mouse(t, 2, 3, 1, false);
	expect_out(t, "\x1b[<0;4;3m");
	vt_mouse(t, 99, 3, 1, true);
	expect_out(t, "");
	vt_free(t);
}

static void
test_vt_resize_and_wide(void **state)
{
	struct vt *t = vt_new(2, 4);
	struct grid *g = grid_new(10, 3);
	int rows, cols;
	char *s;

	(void)state;
	vt_resize(t, 3, 8);
	vt_size(t, &rows, &cols);
	assert_int_equal(rows, 3);
	assert_int_equal(cols, 8);
	/* A wide character, and a control the grid would spell out. */
	feed(t, "\xe4\xb8\xad" "b\x1b[2;1H\xe2\x80\xae" "c");
	vt_draw(t, g, 0, 1, 3, 8);
	s = row_text(g, 0);
	assert_string_equal(s, " \xe4\xb8\xad" "b");
	free(s);
	s = row_text(g, 1);
	/* U+202E (bidi override) has no width: libvterm keeps it as a
	 * combining char of nothing, or drops it; it never reorders. */
	assert_null(strstr(s, "\xe2\x80\xae"));
	assert_non_null(strchr(s, 'c'));
	free(s);
	grid_free(g);
	vt_free(t);
}

/* The program's colours reach the cells as it asked for them: basic,
 * 256 indexed and RGB, foreground and background, blanks on a colour
 * too; the default is none. tui/screen.c folds them. */
static void
test_vt_colors(void **state)
{
	struct vt *t = vt_new(4, 20);
	struct grid *g = grid_new(22, 6);

	(void)state;
	feed(t, "\x1b[31mA\x1b[38;5;200mB\x1b[38;2;1;2;3mC"
	    "\x1b[0;48;5;4m \x1b[0;44;97mE\x1b[48;2;9;8;7mF\x1b[0mG");
	vt_draw(t, g, 1, 1, 4, 20);
	assert_int_equal(grid_cell(g, 1, 1)->cp, 'A');
	assert_int_equal(grid_cell(g, 1, 1)->fg, GRID_TC_INDEX(1));
	assert_int_equal(grid_cell(g, 1, 1)->bg, 0);
	/* The console's own colour stays on the basic ones. */
	assert_int_equal(GRID_COLOR_OF(grid_cell(g, 1, 1)->attr), GRID_RED);
	assert_int_equal(grid_cell(g, 1, 2)->fg, GRID_TC_INDEX(200));
	assert_int_equal(grid_cell(g, 1, 3)->fg, GRID_TC_RGB(1, 2, 3));
	/* A blank on a background of its own. */
	assert_int_equal(grid_cell(g, 1, 4)->cp, ' ');
	assert_int_equal(grid_cell(g, 1, 4)->fg, 0);
	assert_int_equal(grid_cell(g, 1, 4)->bg, GRID_TC_INDEX(4));
	assert_int_equal(grid_cell(g, 1, 5)->fg, GRID_TC_INDEX(15));
	assert_int_equal(grid_cell(g, 1, 5)->bg, GRID_TC_INDEX(4));
	assert_int_equal(grid_cell(g, 1, 6)->bg, GRID_TC_RGB(9, 8, 7));
	assert_int_equal(grid_cell(g, 1, 7)->cp, 'G');
	assert_int_equal(grid_cell(g, 1, 7)->fg, 0);
	assert_int_equal(grid_cell(g, 1, 7)->bg, 0);
	/* Outside the rectangle, nothing. */
	assert_int_equal(grid_cell(g, 1, 0)->fg, 0);
	assert_int_equal(grid_cell(g, 0, 1)->bg, 0);
	grid_free(g);
	vt_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vt_cells_clipped),
		cmocka_unit_test(test_vt_title_bell_recorded),
		cmocka_unit_test(test_vt_title_raw),
		cmocka_unit_test(test_vt_altscreen),
		cmocka_unit_test(test_vt_keys),
		cmocka_unit_test(test_vt_mouse),
		cmocka_unit_test(test_vt_resize_and_wide),
		cmocka_unit_test(test_vt_colors),
	};

	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		setlocale(LC_CTYPE, "en_US.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
