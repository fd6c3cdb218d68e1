/* SPDX-License-Identifier: MIT */
/*
 * config/escape.c: what the console shows of the sandboxed program's
 * bytes. Properties, for escape_mem, escape_line and escape_str:
 *   - the output is valid UTF-8 with no C0 control, DEL, C1 control or
 *     invisible / bidi format character in it (escape_line: tab only);
 *   - it is at most four bytes per input byte (escape.c's sizing);
 *   - it decodes back to the input (escape.h's forms are one-to-one:
 *     "\\" is the only way a backslash is shown);
 *   - escape_utf8 agrees with a second decoder written from RFC 3629.
 */
#include "tests/fuzz/fuzz.h"

#include <stdbool.h>

#include "config/escape.h"

/* Characters that must be shown \u{XXXX}: at least these (escape.c may
 * take a larger set from the Unicode tables; any \u{XXXX} decodes). */
static bool
fuzz_hidden(uint32_t c)
{
	return c == 0x00ad || c == 0x034f || c == 0x061c ||
	    (c >= 0x115f && c <= 0x1160) || c == 0x180e ||
	    (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
	    (c >= 0x2060 && c <= 0x2064) || (c >= 0x2066 && c <= 0x2069) ||
	    c == 0x3164 || (c >= 0xfe00 && c <= 0xfe0f) || c == 0xfeff ||
	    c == 0xffa0 || (c >= 0xfff9 && c <= 0xfffb) ||
	    (c >= 0xe0000 && c <= 0xe007f) || (c >= 0xe0100 && c <= 0xe01ef);
}

/* RFC 3629 the long way: take the bits, then refuse overlong forms,
 * surrogates and anything past U+10FFFF. */
static size_t
fuzz_utf8(const unsigned char *s, size_t n, uint32_t *ret)
{
	size_t len;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*ret = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, c = s[0] & 0x1fu, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, c = s[0] & 0x0fu, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, c = s[0] & 0x07u, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*ret = c;
	return len;
}

static int
fuzz_hex(char h)
{
	if (h >= '0' && h <= '9')
		return h - '0';
	if (h >= 'a' && h <= 'f')
		return h - 'a' + 10;
	return -1;
}

static size_t
fuzz_put_utf8(uint32_t c, unsigned char *o)
{
	if (c < 0x80) {
		o[0] = (unsigned char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (unsigned char)(0xc0 | c >> 6);
		o[1] = (unsigned char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (unsigned char)(0xe0 | c >> 12);
		o[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
		o[2] = (unsigned char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | c >> 18);
	o[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
	o[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
	o[3] = (unsigned char)(0x80 | (c & 0x3f));
	return 4;
}

/* Read hex digits at s up to end (or n of them); -1 on a non-digit. */
static long
fuzz_hexnum(const char *s, const char *end, size_t n)
{
	long v = 0;

	if (n == 0 || (size_t)(end - s) < n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = fuzz_hex(s[i]);

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* The inverse of escape.h's forms; the decoded length, or -1 when out
 * holds a form escape.h does not list. */
static long
fuzz_unescape(const char *s, unsigned char *out)
{
	static const char named[] = "a\ab\bt\tn\nv\vf\fr\re\033\\\\";
	const char *end = s + strlen(s);
	unsigned char *o = out;

	while (s < end) {
		const char *close, *nm;
		long v;

		if (*s != '\\') {
			*o++ = (unsigned char)*s++;
			continue;
		}
		s++;
		if (s == end)
			return -1;
		if (*s == 'x') {
			if ((v = fuzz_hexnum(s + 1, end, 2)) < 0)
				return -1;
			*o++ = (unsigned char)v;
			s += 3;
		} else if (*s == 'u' && s + 1 < end && s[1] == '{') {
			if ((close = memchr(s, '}', (size_t)(end - s))) == NULL ||
			    close - s - 2 > 6 ||
			    (v = fuzz_hexnum(s + 2, close, (size_t)(close - s - 2))) < 0 ||
			    v < 0xa0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
				return -1;
			o += fuzz_put_utf8((uint32_t)v, o);
			s = close + 1;
		} else if (*s == 'u') {
			if ((v = fuzz_hexnum(s + 1, end, 4)) < 0 || v < 0x80 ||
			    v > 0x9f)
				return -1;
			o += fuzz_put_utf8((uint32_t)v, o);
			s += 5;
		} else if ((nm = memchr(named, *s, sizeof named - 1)) != NULL &&
		    (nm - named) % 2 == 0) {
			*o++ = (unsigned char)nm[1];
			s++;
		} else {
			return -1;
		}
	}
	return o - out;
}

static void
fuzz_check_out(const uint8_t *in, size_t n, const char *out, bool keep_tab)
{
	const unsigned char *s = (const unsigned char *)out;
	size_t len = strlen(out), i = 0;
	unsigned char *back;
	long got;

	fuzz_check(len <= 4 * n);
	while (i < len) {
		uint32_t c;
		size_t k = escape_utf8(s + i, len - i, &c);

		fuzz_check(k > 0);
		fuzz_check(c >= 0x20 || (c == '\t' && keep_tab));
		fuzz_check(c != 0x7f && !(c >= 0x80 && c <= 0x9f));
		fuzz_check(!fuzz_hidden(c));
		i += k;
	}
	back = malloc(len + 1);
	fuzz_check(back != NULL);
	got = fuzz_unescape(out, back);
	fuzz_check(got == (long)n && memcmp(back, in, n) == 0);
	free(back);
}

/*
 * escape_output(): the same safety (nothing a terminal acts on, valid
 * UTF-8, nothing hidden), and every bracket is one of ward's markers:
 * as many open as close, each open followed by CR, BS or ESC.
 */
static void
fuzz_check_output(const char *out)
{
	const unsigned char *s = (const unsigned char *)out;
	size_t len = strlen(out), i = 0, open = 0, close = 0;

	while (i < len) {
		uint32_t c;
		size_t k = escape_utf8(s + i, len - i, &c);

		fuzz_check(k > 0);
		fuzz_check(c >= 0x20 || c == '\t');
		fuzz_check(c != 0x7f && !(c >= 0x80 && c <= 0x9f));
		fuzz_check(!fuzz_hidden(c));
		if (c == 0x27e8) {
			open++;
			fuzz_check(strncmp(out + i + k, "CR", 2) == 0 ||
			    strncmp(out + i + k, "BS", 2) == 0 ||
			    strncmp(out + i + k, "ESC", 3) == 0);
		}
		close += c == 0x27e9;
		i += k;
	}
	fuzz_check(open == close);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out, *str;

	for (size_t i = 0; i < size; i++) {
		uint32_t a = 0, b = 0;
		size_t ka = escape_utf8(data + i, size - i, &a);
		size_t kb = fuzz_utf8(data + i, size - i, &b);

		fuzz_check(ka == kb && (ka == 0 || a == b));
	}
	out = escape_mem(data, size);
	fuzz_check_out(data, size, out, false);
	free(out);
	out = escape_line(data, size);
	fuzz_check_out(data, size, out, true);
	free(out);
	out = escape_output(data, size, false);
	fuzz_check_output(out);
	free(out);
	out = escape_output(data, size, true);
	fuzz_check_output(out);
	free(out);
	str = fuzz_str(data, size);
	out = escape_str(str);
	fuzz_check_out((const uint8_t *)str, strlen(str), out, false);
	free(out);
	free(str);
	return 0;
}
