/* SPDX-License-Identifier: MIT */
/* config/escape.c: a table of input bytes -> what the terminal gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unictype.h>

#include "config/escape.h"
#include "config/util.h"

struct esc_case {
	const char	*in;
	size_t		 len;	/* 0: strlen(in) */
	const char	*out;	/* escape_mem() */
	const char	*line;	/* escape_line(), when it differs */
};

static const struct esc_case cases[] = {
	/* plain text, and the backslash that makes escapes unambiguous */
	{ "", 0, "", NULL },
	{ "hello, world", 0, "hello, world", NULL },
	{ "a\\b", 0, "a\\\\b", NULL },
	{ "\\x41", 0, "\\\\x41", NULL },
	{ "~!@#$%^&*()_+{}|:\"<>?`-=[];',./", 0,
	  "~!@#$%^&*()_+{}|:\"<>?`-=[];',./", NULL },

	/* C0 controls by name, the rest as \xNN; DEL */
	{ "a\nb", 0, "a\\nb", NULL },
	{ "a\r\nb", 0, "a\\r\\nb", NULL },
	{ "a\tb", 0, "a\\tb", "a\tb" },
	{ "\a\b\f\v", 0, "\\a\\b\\f\\v", NULL },
	{ "\x01\x02\x1f", 0, "\\x01\\x02\\x1f", NULL },
	{ "\x7f", 0, "\\x7f", NULL },
	{ "a\0b", 3, "a\\x00b", NULL },

	/* escape sequences: shown, not obeyed */
	{ "\x1b[31mred\x1b[0m", 0, "\\e[31mred\\e[0m", NULL },
	{ "\x1b[2J\x1b[H", 0, "\\e[2J\\e[H", NULL },
	{ "\x1b]0;title\x07", 0, "\\e]0;title\\a", NULL },
	/* OSC 52: write the clipboard */
	{ "\x1b]52;c;ZWNobyBwd25lZA==\x07", 0, "\\e]52;c;ZWNobyBwd25lZA==\\a", NULL },
	{ "\x1b]52;c;Zm9v\x1b\\", 0, "\\e]52;c;Zm9v\\e\\\\", NULL },
	/* DCS, and tmux passthrough */
	{ "\x1bP+q\x1b\\", 0, "\\eP+q\\e\\\\", NULL },
	{ "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\", 0,
	  "\\ePtmux;\\e\\e]52;c;eA==\\a\\e\\\\", NULL },

	/* C1 controls, UTF-8 encoded: CSI, OSC, NEL, ST */
	{ "\xc2\x9b" "31m", 0, "\\u009b31m", NULL },
	{ "\xc2\x9d" "52;c;eA==\xc2\x9c", 0, "\\u009d52;c;eA==\\u009c", NULL },
	{ "\xc2\x80\xc2\x85\xc2\x9f", 0, "\\u0080\\u0085\\u009f", NULL },
	/* ... and raw, which is not UTF-8 */
	{ "\x9b" "31m", 0, "\\x9b31m", NULL },

	/* bidi: "Trojan Source" */
	{ "admin\xe2\x80\xae" "txt.exe", 0, "admin\\u{202e}txt.exe", NULL },
	{ "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 0,
	  "\\u{202a}\\u{202b}\\u{202c}\\u{202d}", NULL },
	{ "\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", 0,
	  "\\u{2066}\\u{2067}\\u{2068}\\u{2069}", NULL },
	{ "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 0, "\\u{200e}\\u{200f}\\u{061c}", NULL },
	/* zero width and invisible */
	{ "pay\xe2\x80\x8bpal.com", 0, "pay\\u{200b}pal.com", NULL },
	{ "\xe2\x80\x8c\xe2\x80\x8d", 0, "\\u{200c}\\u{200d}", NULL },
	{ "\xe2\x81\xa0\xe2\x81\xa4", 0, "\\u{2060}\\u{2064}", NULL },
	/* U+2065 is unassigned but default-ignorable: Unicode reserves it
	 * for invisible characters, so it is shown escaped */
	{ "\xe2\x81\xa5", 0, "\\u{2065}", NULL },
	{ "\xef\xbb\xbfx", 0, "\\u{feff}x", NULL },
	{ "soft\xc2\xad" "hyphen", 0, "soft\\u{00ad}hyphen", NULL },
	{ "\xe1\xa0\x8e", 0, "\\u{180e}", NULL },
	{ "\xef\xbf\xb9\xef\xbf\xbb", 0, "\\u{fff9}\\u{fffb}", NULL },
	{ "\xef\xbf\xbc", 0, "\xef\xbf\xbc", NULL },	/* U+FFFC object replacement: kept */
	/* tags U+E0000..U+E007F (hidden text in "ASCII smuggling") */
	{ "a\xf3\xa0\x80\x81\xf3\xa0\x81\xa8\xf3\xa0\x81\xbf", 0,
	  "a\\u{e0001}\\u{e0068}\\u{e007f}", NULL },
	/* U+E0080 is unassigned but default-ignorable, like the whole
	 * tag plane: escaped (it would be invisible once assigned) */
	{ "\xf3\xa0\x82\x80", 0, "\\u{e0080}", NULL },

	/* valid text kept as is */
	{ "caf\xc3\xa9 \xc2\xa0 \xc2\xa1", 0, "caf\xc3\xa9 \xc2\xa0 \xc2\xa1", NULL },
	{ "\xe4\xb8\xad\xe6\x96\x87\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 0,
	  "\xe4\xb8\xad\xe6\x96\x87\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", NULL },
	{ "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d", 0,
	  "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d", NULL },
	{ "\xf0\x9f\x98\x80\xf0\x9f\x9a\x80", 0, "\xf0\x9f\x98\x80\xf0\x9f\x9a\x80", NULL },
	{ "\xf4\x8f\xbf\xbf", 0, "\xf4\x8f\xbf\xbf", NULL },		/* U+10FFFF */
	{ "\xe2\x80\xa8", 0, "\\u{2028}", NULL },	/* line separator */
	{ "a\xcd\x8f" "b", 0, "a\\u{034f}b", NULL },	/* grapheme joiner */
	{ "\xe3\x85\xa4", 0, "\\u{3164}", NULL },	/* hangul filler */
	{ "x\xef\xb8\x8f", 0, "x\\u{fe0f}", NULL },	/* variation selector */

	/* invalid UTF-8: each bad byte as \xNN, then go on */
	{ "\xff\xfe", 0, "\\xff\\xfe", NULL },
	{ "a\x80" "b", 0, "a\\x80b", NULL },
	{ "\xc3", 0, "\\xc3", NULL },			/* cut short at the end */
	{ "\xc3" "a", 0, "\\xc3a", NULL },		/* cut short by ASCII */
	{ "\xe4\xb8", 0, "\\xe4\\xb8", NULL },
	{ "\xe4\xb8" "a\xe4\xb8\xad", 0, "\\xe4\\xb8a\xe4\xb8\xad", NULL },
	{ "\xf0\x9f\x98", 0, "\\xf0\\x9f\\x98", NULL },
	/* overlongs: '/' as 2, 3 and 4 bytes; NUL as 2 (modified UTF-8) */
	{ "\xc0\xaf", 0, "\\xc0\\xaf", NULL },
	{ "\xe0\x80\xaf", 0, "\\xe0\\x80\\xaf", NULL },
	{ "\xf0\x80\x80\xaf", 0, "\\xf0\\x80\\x80\\xaf", NULL },
	{ "\xc0\x80", 0, "\\xc0\\x80", NULL },
	{ "\xc1\xbf", 0, "\\xc1\\xbf", NULL },
	{ "\xe0\x9f\xbf", 0, "\\xe0\\x9f\\xbf", NULL },	/* U+07FF overlong */
	{ "\xe0\xa0\x80", 0, "\xe0\xa0\x80", NULL },		/* U+0800: fine */
	{ "\xf0\x8f\xbf\xbf", 0, "\\xf0\\x8f\\xbf\\xbf", NULL },	/* U+FFFF overlong */
	/* an overlong ESC must not become an escape sequence */
	{ "\xc0\x9b[31m", 0, "\\xc0\\x9b[31m", NULL },
	/* surrogates */
	{ "\xed\xa0\x80", 0, "\\xed\\xa0\\x80", NULL },
	{ "\xed\xbf\xbf", 0, "\\xed\\xbf\\xbf", NULL },
	{ "\xed\x9f\xbf", 0, "\xed\x9f\xbf", NULL },		/* U+D7FF: fine */
	/* above U+10FFFF */
	{ "\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80", NULL },
	{ "\xf5\x80\x80\x80", 0, "\\xf5\\x80\\x80\\x80", NULL },
	{ "\xf8\x88\x80\x80\x80", 0, "\\xf8\\x88\\x80\\x80\\x80", NULL },
};

static void
test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct esc_case *c = &cases[i];
		size_t len = c->len ? c->len : strlen(c->in);
		const char *want_line = c->line ? c->line : c->out;
		char *got = escape_mem(c->in, len);
		char *line = escape_line(c->in, len);

		if (strcmp(got, c->out) != 0)
			fail_msg("case %zu: escape_mem gave \"%s\", want \"%s\"",
			    i, got, c->out);
		if (strcmp(line, want_line) != 0)
			fail_msg("case %zu: escape_line gave \"%s\", want \"%s\"",
			    i, line, want_line);
		if (c->len == 0) {
			char *s = escape_str(c->in);

			assert_string_equal(s, got);
			free(s);
		}
		free(got);
		free(line);
	}
}

/* Whatever goes in, nothing a terminal acts on comes out. */
static void
test_every_byte(void **state)
{
	unsigned char in[256 * 3];
	char *out;

	(void)state;
	for (unsigned i = 0; i < 256; i++) {
		in[i * 3] = (unsigned char)i;
		in[i * 3 + 1] = 0x80 | (i & 0x3f);
		in[i * 3 + 2] = (unsigned char)(255 - i);
	}
	out = escape_mem(in, sizeof in);
	for (const unsigned char *s = (const unsigned char *)out; *s != '\0'; s++) {
		assert_false(*s < 0x20 || *s == 0x7f);
		/* C1 as UTF-8 */
		if (s[0] == 0xc2)
			assert_false(s[1] >= 0x80 && s[1] <= 0x9f);
	}
	free(out);
}

/* The worst case, every byte invalid, fits the allocation. */
static void
test_worst_case(void **state)
{
	char in[4096];
	char *out;

	(void)state;
	memset(in, 0xff, sizeof in);
	out = escape_mem(in, sizeof in);
	assert_int_equal(strlen(out), 4 * sizeof in);
	free(out);

	for (size_t i = 0; i + 4 <= sizeof in; i += 4)
		memcpy(in + i, "\xf3\xa0\x80\x81", 4);
	out = escape_mem(in, sizeof in);
	assert_int_equal(strlen(out), 9 * sizeof in / 4);
	free(out);
}

/* escape_output(): what would move text around is shown as a marker. */
#define MK(x) "\xe2\x9f\xa8" x "\xe2\x9f\xa9"

struct out_case {
	const char	*in;
	const char	*utf8;
	const char	*ascii;
};

static const struct out_case out_cases[] = {
	{ "plain\ttab", "plain\ttab", "plain\ttab" },
	/* a lone CR: the text it would have hidden stays in sight */
	{ "secret\rINNOCENT", "secret" MK("CR") "INNOCENT",
	  "secret<CR>INNOCENT" },
	/* a backspace run, counted */
	{ "ab\bc", "ab" MK("BS") "c", "ab<BS>c" },
	{ "password\b\b\b\b\b\b\b\bxxxxxxxx",
	  "password" MK("BS\xc3\x97" "8") "xxxxxxxx", "password<BSx8>xxxxxxxx" },
	/* every escape sequence whole */
	{ "\x1b[2J\x1b[H", MK("ESC[2J") MK("ESC[H"), "<ESC[2J><ESC[H>" },
	{ "\x1b[1;31mred\x1b[0m", MK("ESC[1;31m") "red" MK("ESC[0m"),
	  "<ESC[1;31m>red<ESC[0m>" },
	{ "\x1b]0;title\x07x", MK("ESC]0;title\\a") "x",
	  "<ESC]0;title\\a>x" },
	{ "\x1b]52;c;Zm9v\x1b\\x", MK("ESC]52;c;Zm9v\\e\\\\") "x",
	  "<ESC]52;c;Zm9v\\e\\\\>x" },
	{ "\x1b(B\x1b" "7\x1b" "c", MK("ESC(B") MK("ESC7") MK("ESCc"),
	  "<ESC(B><ESC7><ESCc>" },
	/* cut short by the line's end, or by a control */
	{ "\x1b[31", MK("ESC[31"), "<ESC[31>" },
	{ "\x1b", MK("ESC"), "<ESC>" },
	{ "\x1b\x01", MK("ESC") "\\x01", "<ESC>\\x01" },
	{ "\x1b[3\r", MK("ESC[3") MK("CR"), "<ESC[3><CR>" },
	/* the marker's own brackets cannot be printed */
	{ "\xe2\x9f\xa8" "CR\xe2\x9f\xa9", "\\u{27e8}CR\\u{27e9}",
	  "\\u{27e8}CR\\u{27e9}" },
	{ "\x1b]0;\xe2\x9f\xa9\x07", MK("ESC]0;\\u{27e9}\\a"),
	  "<ESC]0;\\u{27e9}\\a>" },
	/* the rest as escape_line() */
	{ "bidi \xe2\x80\xae" "x\x01\x7f", "bidi \\u{202e}x\\x01\\x7f",
	  "bidi \\u{202e}x\\x01\\x7f" },
};

static void
test_output_markers(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(out_cases); i++) {
		const struct out_case *c = &out_cases[i];
		char *u = escape_output(c->in, strlen(c->in), false);
		char *a = escape_output(c->in, strlen(c->in), true);

		if (strcmp(u, c->utf8) != 0)
			fail_msg("case %zu: escape_output gave \"%s\", want "
			    "\"%s\"", i, u, c->utf8);
		if (strcmp(a, c->ascii) != 0)
			fail_msg("case %zu: escape_output (ascii) gave \"%s\", "
			    "want \"%s\"", i, a, c->ascii);
		free(u);
		free(a);
	}
}

/* Whatever goes in, no control character comes out of escape_output. */
static void
test_output_every_byte(void **state)
{
	unsigned char in[256 * 2];
	char *out;

	(void)state;
	for (unsigned i = 0; i < 256; i++) {
		in[i * 2] = (unsigned char)i;
		in[i * 2 + 1] = (unsigned char)(i & 1 ? 0x1b : '[');
	}
	out = escape_output(in, sizeof in, false);
	for (const unsigned char *s = (const unsigned char *)out; *s; s++)
		assert_false((*s < 0x20 && *s != '\t') || *s == 0x7f);
	free(out);
}

/* Encodes c (not a surrogate, at most U+10FFFF) as UTF-8: its length. */
static size_t
test_utf8(uint32_t c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

static void
test_expect_hidden(uint32_t c)
{
	char in[4], want[16];
	size_t n = test_utf8(c, in);
	char *got = escape_mem(in, n);

	snprintf(want, sizeof want, "\\u{%04x}", (unsigned)c);
	if (strcmp(got, want) != 0)
		fail_msg("U+%04X: escape_mem gave \"%s\", want \"%s\"",
		    (unsigned)c, got, want);
	free(got);
}

/* The 40 format characters a hand-kept list missed (ecosystem review):
 * Arabic number signs, Syriac abbreviation mark, Kaithi number signs,
 * deprecated format characters, Egyptian hieroglyph joiners, shorthand
 * format controls, musical symbol beams. */
static void
test_named_format(void **state)
{
	static const struct {
		uint32_t lo, hi;
	} missed[] = {
		{ 0x0600, 0x0605 }, { 0x06dd, 0x06dd }, { 0x070f, 0x070f },
		{ 0x0890, 0x0891 }, { 0x08e2, 0x08e2 }, { 0x206a, 0x206f },
		{ 0x110bd, 0x110bd }, { 0x110cd, 0x110cd },
		{ 0x13430, 0x13438 }, { 0x1bca0, 0x1bca3 },
		{ 0x1d173, 0x1d17a },
	};
	size_t count = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(missed); i++) {
		for (uint32_t c = missed[i].lo; c <= missed[i].hi; c++) {
			test_expect_hidden(c);
			count++;
		}
	}
	assert_int_equal(count, 40);
	/* in a path, between visible letters */
	{
		char *got = escape_str("/in/a\xe2\x81\xae" "b\xf0\x9d\x85\xb3" "c");

		assert_string_equal(got, "/in/a\\u{206e}b\\u{1d173}c");
		free(got);
	}
}

/* Every range of the hand-kept list libunistring's set replaced. */
static void
test_hand_list_kept(void **state)
{
	static const struct {
		uint32_t lo, hi;
	} ranges[] = {
		{ 0x00ad, 0x00ad }, { 0x034f, 0x034f }, { 0x061c, 0x061c },
		{ 0x115f, 0x1160 }, { 0x180e, 0x180e }, { 0x200b, 0x200f },
		{ 0x2028, 0x202e }, { 0x2060, 0x2064 }, { 0x2066, 0x2069 },
		{ 0x3164, 0x3164 }, { 0xfe00, 0xfe0f }, { 0xfeff, 0xfeff },
		{ 0xffa0, 0xffa0 }, { 0xfff9, 0xfffb }, { 0xe0000, 0xe007f },
		{ 0xe0100, 0xe01ef },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ranges); i++) {
		for (uint32_t c = ranges[i].lo; c <= ranges[i].hi; c++)
			test_expect_hidden(c);
	}
}

/*
 * Every code point of planes 0, 1, 2 and 14 against libunistring's own
 * predicates (the oracle): a format (Cf), default-ignorable or bidi
 * control character, or a line or paragraph separator, comes out as
 * \u{XXXX}; any other printable one as itself.
 */
static void
test_every_code_point(void **state)
{
	static const struct {
		uint32_t lo, hi;
	} planes[] = {
		{ 0xa0, 0x2ffff }, { 0xe0000, 0xeffff },
	};
	size_t hidden = 0;

	(void)state;
	for (size_t p = 0; p < ARRAY_SIZE(planes); p++) {
		for (uint32_t c = planes[p].lo; c <= planes[p].hi; c++) {
			char in[4];
			size_t n;
			char *got;

			if (c >= 0xd800 && c <= 0xdfff)
				continue;
			if (uc_is_general_category(c, UC_CATEGORY_Cf) ||
			    uc_is_property_default_ignorable_code_point(c) ||
			    uc_is_property_bidi_control(c) ||
			    uc_is_general_category(c, UC_CATEGORY_Zl) ||
			    uc_is_general_category(c, UC_CATEGORY_Zp)) {
				test_expect_hidden(c);
				hidden++;
				continue;
			}
			n = test_utf8(c, in);
			got = escape_mem(in, n);
			if (strlen(got) != n || memcmp(got, in, n) != 0)
				fail_msg("U+%04X: changed to \"%s\"",
				    (unsigned)c, got);
			free(got);
		}
	}
	/* the tag plane's 4096, and 105 others (Unicode 14) */
	assert_true(hidden >= 4096 + 100);
}

static void
test_null(void **state)
{
	char *s = escape_str(NULL);

	(void)state;
	assert_string_equal(s, "");
	free(s);
	s = escape_mem(NULL, 0);
	assert_string_equal(s, "");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_worst_case),
		cmocka_unit_test(test_output_markers),
		cmocka_unit_test(test_output_every_byte),
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_named_format),
		cmocka_unit_test(test_hand_list_kept),
		cmocka_unit_test(test_every_code_point),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
