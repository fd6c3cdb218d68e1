/* SPDX-License-Identifier: MIT */
#include "config/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <unictype.h>

#include "config/util.h"

/*
 * The worst case is four output bytes per input byte: a lone byte becomes
 * "\xNN"; two-byte C1 controls become "\u0085" (6 for 2), three-byte format
 * characters "\u{202e}" (8 for 3), four-byte tags "\u{e0001}" (9 for 4).
 */
#define ESCAPE_MAX_RATIO 4

/*
 * Invisible and bidi format characters: shown, never obeyed. The set is
 * libunistring's (its tables follow the Unicode Character Database):
 * general category Cf (format: bidi marks and overrides, zero widths,
 * the Arabic number signs, tags ...), the default-ignorable code points
 * (fillers, variation selectors, the unassigned rest of the tag plane)
 * and the bidi controls, plus the line and paragraph separators (Zl,
 * Zp), which a terminal may break a line on.
 */
static bool
escape_is_hidden(uint32_t c)
{
	if (c < 0xa0)
		return false;	/* ASCII and C1 are handled before */
	return uc_is_general_category(c, UC_CATEGORY_Cf) ||
	    uc_is_property_default_ignorable_code_point(c) ||
	    uc_is_property_bidi_control(c) ||
	    uc_is_general_category(c, UC_CATEGORY_Zl) ||
	    uc_is_general_category(c, UC_CATEGORY_Zp);
}

/*
 * Decodes one UTF-8 sequence at s (n > 0 bytes left): its length, or 0 when
 * the first byte does not start a valid sequence. Overlong forms, UTF-16
 * surrogates and values above U+10FFFF are invalid (RFC 3629): a terminal
 * or a later decoder could read them as something else than we showed.
 */
size_t
escape_utf8(const unsigned char *s, size_t n, uint32_t *ret)
{
	uint32_t c;
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80) {
		*ret = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* overlong below U+0800 */
		else if (s[0] == 0xed)
			hi = 0x9f;	/* surrogates U+D800..U+DFFF */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
		if (s[0] == 0xf0)
			lo = 0x90;	/* overlong below U+10000 */
		else if (s[0] == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		return 0;	/* continuation byte, 0xc0, 0xc1 or 0xf5..0xff */
	}
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	c = (c << 6) | (s[1] & 0x3f);
	for (size_t i = 2; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	*ret = c;
	return len;
}

static char *
escape_any(const void *buf, size_t n, bool keep_tab)
{
	const unsigned char *s = buf;
	char *out, *o;
	size_t i = 0;

	if (n > (SIZE_MAX - 1) / ESCAPE_MAX_RATIO)
		fatal("escape: %zu bytes is too long", n);
	out = o = xmalloc(n * ESCAPE_MAX_RATIO + 1);
	while (i < n) {
		uint32_t c;
		size_t len = escape_utf8(s + i, n - i, &c);

		if (len == 0) {
			o += sprintf(o, "\\x%02x", s[i]);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			static const char named[] = {
				['\a'] = 'a', ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
				['\v'] = 'v', ['\f'] = 'f', ['\r'] = 'r', [0x1b] = 'e',
			};

			if (c == '\t' && keep_tab)
				*o++ = '\t';
			else if (c < ARRAY_SIZE(named) && named[c] != '\0')
				o += sprintf(o, "\\%c", named[c]);
			else
				o += sprintf(o, "\\x%02x", (unsigned)c);
		} else if (c == '\\') {
			*o++ = '\\';
			*o++ = '\\';
		} else if (c >= 0x80 && c <= 0x9f) {
			o += sprintf(o, "\\u%04x", (unsigned)c);
		} else if (escape_is_hidden(c)) {
			o += sprintf(o, "\\u{%04x}", (unsigned)c);
		} else {
			memcpy(o, s + i, len);
			o += len;
		}
		i += len;
	}
	*o = '\0';
	return xrealloc(out, (size_t)(o - out) + 1);
}

char *
escape_mem(const void *buf, size_t n)
{
	return escape_any(buf, n, false);
}

char *
escape_line(const void *buf, size_t n)
{
	return escape_any(buf, n, true);
}

char *
escape_str(const char *s)
{
	if (s == NULL)
		return xstrdup("");
	return escape_any(s, strlen(s), false);
}

/* A growing string for escape_output(). */
struct escape_buf {
	char	*s;
	size_t	 len, cap;
};

static void
escape_buf_add(struct escape_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
escape_buf_str(struct escape_buf *b, const char *s)
{
	escape_buf_add(b, s, strlen(s));
}

/* Plain text: escape_line()'s rules, and the marker brackets escaped. */
static void
escape_buf_text(struct escape_buf *b, const unsigned char *s, size_t n,
    bool keep_tab)
{
	size_t from = 0;

	for (size_t i = 0; i + 2 < n; i++) {
		if (s[i] == 0xe2 && s[i + 1] == 0x9f &&
		    (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
			cleanup_free char *t = escape_any(s + from, i - from,
			    keep_tab);

			escape_buf_str(b, t);
			escape_buf_str(b, s[i + 2] == 0xa8 ? "\\u{27e8}" :
			    "\\u{27e9}");
			from = i + 3;
			i += 2;
		}
	}
	if (from < n) {
		cleanup_free char *t = escape_any(s + from, n - from,
		    keep_tab);

		escape_buf_str(b, t);
	}
}

/*
 * The length of the escape sequence at s[0] == ESC (n bytes left), as a
 * terminal would take it (ECMA-48): CSI to its final byte, OSC and the
 * other strings to BEL or ST, ESC with intermediates to a final byte, or
 * ESC and one byte. A sequence the line cuts short ends with the line;
 * a control character that may not be inside one ends it before itself.
 */
static size_t
escape_seq_len(const unsigned char *s, size_t n)
{
	size_t i = 1;

	if (n < 2 || s[1] < 0x20 || s[1] == 0x7f)
		return 1;
	if (s[1] == '[') {
		for (i = 2; i < n && s[i] >= 0x20 && s[i] <= 0x3f; i++)
			;
		return i < n && s[i] >= 0x40 && s[i] <= 0x7e ? i + 1 : i;
	}
	if (s[1] == ']' || s[1] == 'P' || s[1] == 'X' || s[1] == '^' ||
	    s[1] == '_') {
		for (i = 2; i < n; i++) {
			if (s[i] == 0x07)
				return i + 1;
			if (s[i] == 0x1b && i + 1 < n && s[i + 1] == '\\')
				return i + 2;
		}
		return n;
	}
	for (i = 1; i < n && s[i] >= 0x20 && s[i] <= 0x2f; i++)
		;
	return i < n && s[i] >= 0x30 && s[i] <= 0x7e ? i + 1 : i;
}

char *
escape_output(const void *buf, size_t n, bool ascii)
{
	const unsigned char *s = buf;
	const char *open = ascii ? "<" : "\xe2\x9f\xa8";
	const char *close = ascii ? ">" : "\xe2\x9f\xa9";
	struct escape_buf b = { 0 };
	size_t i = 0, from = 0;

	escape_buf_add(&b, "", 0);
	while (i < n) {
		size_t len = 1;
		char mark[32];

		if (s[i] != '\r' && s[i] != '\b' && s[i] != 0x1b) {
			i++;
			continue;
		}
		escape_buf_text(&b, s + from, i - from, true);
		escape_buf_str(&b, open);
		if (s[i] == '\r') {
			escape_buf_str(&b, "CR");
		} else if (s[i] == '\b') {
			while (i + len < n && s[i + len] == '\b')
				len++;
			if (len == 1)
				snprintf(mark, sizeof mark, "BS");
			else
				snprintf(mark, sizeof mark, "BS%s%zu",
				    ascii ? "x" : "\xc3\x97", len);
			escape_buf_str(&b, mark);
		} else {
			len = escape_seq_len(s + i, n - i);
			escape_buf_str(&b, "ESC");
			escape_buf_text(&b, s + i + 1, len - 1, false);
		}
		escape_buf_str(&b, close);
		i += len;
		from = i;
	}
	escape_buf_text(&b, s + from, n - from, true);
	return b.s;
}
