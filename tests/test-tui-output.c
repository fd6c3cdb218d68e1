/* SPDX-License-Identifier: MIT */
/* tui/output.c: the output pane's lines, and what the escape-sequence
 * filter lets through, fed in every split a pipe could deliver. */
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
#include "tui/output.h"

static int
setup(void **state)
{
	*state = xcalloc(1, sizeof(struct output));
	return 0;
}

static int
teardown(void **state)
{
	struct output *o = *state;

	output_done(o);
	free(o);
	return 0;
}

static const char *
line(struct output *o, size_t i)
{
	const struct output_line *l = output_at(o, i);

	assert_non_null(l);
	return l->text;
}

/* A marker as the output pane shows it (config/escape.h). */
#define MK(x) "\xe2\x9f\xa8" x "\xe2\x9f\xa9"

static void
feed_chunks(struct output *o, const char *s, size_t chunk)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i += chunk)
		output_feed(o, STREAM_PTY, s + i,
		    n - i < chunk ? n - i : chunk);
}

static void
test_output_lines(void **state)
{
	struct output *o = *state;
	char *t;

	/* Every split of the same bytes gives the same lines. */
	for (size_t chunk = 1; chunk <= 7; chunk++) {
		output_done(o);
		feed_chunks(o, "one\r\ntwo\nthree\rTHREE\n\ttab\x01\nfour", chunk);
		assert_int_equal(output_count(o), 4);
		assert_string_equal(line(o, 0), "one");
		assert_string_equal(line(o, 1), "two");
		/* A lone CR is shown, never obeyed (issue 15). */
		assert_string_equal(line(o, 2), "three" MK("CR") "THREE");
		assert_string_equal(line(o, 3), "        tab\\x01");
		t = output_partial_text(o, STREAM_PTY);
		assert_string_equal(t, "four");
		free(t);
		assert_int_equal(output_total(o), 5);
	}
	/* Progress bars: CR, erase line, redraw; every step shown. */
	feed_chunks(o, "\r\x1b[K 10%\r\x1b[K 99%\r\n", 100);
	assert_string_equal(line(o, 4), "four" MK("CR") MK("ESC[K") " 10%"
	    MK("CR") MK("ESC[K") " 99%");
	assert_null(output_partial_text(o, STREAM_PTY));
}

static void
test_output_sequences(void **state)
{
	struct output *o = *state;
	static const char in[] =
	    "\x1b[1;31mred\x1b[0m plain\n"			/* SGR */
	    "\x1b]0;pwned title\x07" "after osc\n"			/* OSC, BEL */
	    "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ text\n"	/* OSC 8, ST */
	    "\x1bP1$r0m\x1b\\dcs gone\n"			/* DCS */
	    "\x1b(Bcharset \x1b" "7saved\n"			/* ESC ( B, ESC 7 */
	    "\x1b[?1049h\x1b[2J\x1b[Halt screen\n"
	    "bidi \xe2\x80\xae" "gpj.exe\n"			/* U+202E */
	    "bell\x07 bs\x08 del\x7f c1\xc2\x9b" "31m\n"
	    "bad \xff\xfe" " utf8\n";

	for (size_t chunk = 1; chunk <= 5; chunk += 4) {
		output_done(o);
		feed_chunks(o, in, chunk);
		assert_int_equal(output_count(o), 9);
		/* Every sequence shown whole as a marker (issue 15). */
		assert_string_equal(line(o, 0),
		    MK("ESC[1;31m") "red" MK("ESC[0m") " plain");
		assert_string_equal(line(o, 1),
		    MK("ESC]0;pwned title\\a") "after osc");
		assert_string_equal(line(o, 2), MK("ESC]8;;http://x\\e\\\\")
		    "link" MK("ESC]8;;\\e\\\\") " text");
		assert_string_equal(line(o, 3),
		    MK("ESCP1$r0m\\e\\\\") "dcs gone");
		assert_string_equal(line(o, 4),
		    MK("ESC(B") "charset " MK("ESC7") "saved");
		assert_string_equal(line(o, 5),
		    MK("ESC[?1049h") MK("ESC[2J") MK("ESC[H") "alt screen");
		assert_string_equal(line(o, 6), "bidi \\u{202e}gpj.exe");
		assert_string_equal(line(o, 7),
		    "bell\\a bs" MK("BS") " del\\x7f c1\\u009b31m");
		assert_string_equal(line(o, 8), "bad \\xff\\xfe utf8");
	}
}

/* A program must not be able to hide its output in an endless sequence. */
static void
test_output_unterminated(void **state)
{
	struct output *o = *state;
	char big[5000];

	feed_chunks(o, "\x1b]0;never closed\nvisible\n", 3);
	assert_string_equal(line(o, 0), MK("ESC]0;never closed"));
	assert_string_equal(line(o, 1), "visible");
	memset(big, 'z', sizeof big);
	output_feed(o, STREAM_PTY, "\x1b_", 2);
	output_feed(o, STREAM_PTY, big, sizeof big);
	output_feed(o, STREAM_PTY, "\n", 1);
	/* Nothing hidden: the line splits at OUTPUT_LINE_MAX, all shown. */
	assert_int_equal(output_count(o), 4);
	assert_true(strlen(line(o, 2)) > 4000);
	assert_true(strlen(line(o, 3)) > 800);
	feed_chunks(o, "\x1b[111111111111111111111111111111111111111111111111111"
	    "11111111111111111111111111111111x\n", 5);
	assert_non_null(strchr(line(o, 4), 'x'));
}

static void
test_output_streams_and_utf8(void **state)
{
	struct output *o = *state;
	char *t;

	/* A character split across chunks is not shown as bytes meanwhile. */
	output_feed(o, STREAM_STDOUT, "caf\xc3", 4);
	t = output_partial_text(o, STREAM_STDOUT);
	assert_string_equal(t, "caf");
	free(t);
	output_feed(o, STREAM_STDERR, "err", 3);
	output_feed(o, STREAM_STDOUT, "\xa9 \xe6\x97", 4);
	output_feed(o, STREAM_STDERR, "or\n", 3);
	output_feed(o, STREAM_STDOUT, "\xa5\n", 2);
	assert_int_equal(output_count(o), 2);
	assert_string_equal(line(o, 0), "error");
	assert_int_equal(output_at(o, 0)->stream, STREAM_STDERR);
	assert_string_equal(line(o, 1), "caf\xc3\xa9 \xe6\x97\xa5");
}

static void
test_output_ring_and_long_lines(void **state)
{
	struct output *o = *state;
	char *big = xmalloc(OUTPUT_LINE_MAX * 2 + 10);

	for (int i = 0; i < OUTPUT_LINES + 50; i++) {
		char l[32];
		int n = snprintf(l, sizeof l, "%d\n", i);

		output_feed(o, STREAM_PTY, l, (size_t)n);
	}
	assert_int_equal(output_count(o), OUTPUT_LINES);
	assert_string_equal(line(o, 0), "50");
	assert_string_equal(line(o, OUTPUT_LINES - 1), "2049");

	output_done(o);
	/* A long line of 3-byte characters splits at a character boundary. */
	for (size_t i = 0; i + 3 <= OUTPUT_LINE_MAX * 2; i += 3)
		memcpy(big + i, "\xe6\x97\xa5", 3);
	output_feed(o, STREAM_PTY, big, OUTPUT_LINE_MAX * 2 / 3 * 3);
	output_feed(o, STREAM_PTY, "\n", 1);
	assert_true(output_count(o) >= 2);
	for (size_t i = 0; i < output_count(o); i++)
		assert_null(strstr(line(o, i), "\\x"));
	free(big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_output_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_output_sequences, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_output_unterminated, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_output_streams_and_utf8, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_output_ring_and_long_lines,
		    setup, teardown),
	};

	/* Tabs expand by display width (wcwidth), as the model test runs. */
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		setlocale(LC_CTYPE, "en_US.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
