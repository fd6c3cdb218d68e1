/* SPDX-License-Identifier: MIT */
#include "config/httppath.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config/escape.h"

static int
hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The byte "%XX" at s encodes, or -1 when s is no such escape. */
static int
escaped(const char *s)
{
	int hi, lo;

	if (s[0] != '%' || (hi = hex((unsigned char)s[1])) < 0 ||
	    (lo = hex((unsigned char)s[2])) < 0)
		return -1;
	return hi << 4 | lo;
}

bool
httppath_unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || strchr("-._~", c) != NULL;
}

/* pchar (RFC 3986 3.3) but its escapes and ';': unreserved, the
 * sub-delims but ';', ':' and '@'. */
static bool
path_char(unsigned char c)
{
	return c != '\0' && (httppath_unreserved(c) ||
	    strchr("!$&'()*+,=:@", c) != NULL);
}

/* A query's character: pchar, '/' and '?' (RFC 3986 3.4), ';' among
 * them, and '[' ']', which clients put raw in queries (Python's
 * requests: "a[]=1") and no server reads as a path. */
static bool
query_char(unsigned char c)
{
	return c != '\0' && (path_char(c) || strchr(";/?[]", c) != NULL);
}

/*
 * A code point that a server folding Unicode to ASCII (NFKC, Windows'
 * "best fit" code pages) may read as '.', '/', '\' or another character
 * of the path's syntax: the fullwidth and small forms of ASCII, the dot
 * leaders, the slashes of mathematics.
 */
static bool
lookalike(uint32_t cp)
{
	static const uint32_t one[] = {
		0x2024, 0x2025, 0x2026,		/* ․ ‥ … */
		0x2044, 0x2215, 0x2216,		/* ⁄ ∕ ∖ */
		0x29F5, 0x29F8, 0x29F9,		/* ⧵ ⧸ ⧹ */
		0xFE30,				/* ︰ */
	};

	if ((cp >= 0xFF01 && cp <= 0xFF5E) || (cp >= 0xFE50 && cp <= 0xFE6B))
		return true;
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
		if (cp == one[i])
			return true;
	return false;
}

/*
 * The escapes at *sp that encode bytes above 0x7f: one UTF-8 sequence,
 * each of its bytes a "%XX" of its own. *sp moves past it; NULL, or why
 * it is refused.
 */
static const char *
encoded_utf8(const char **sp)
{
	unsigned char seq[4];
	size_t n = 0, len;
	uint32_t cp;
	int b;

	while (n < sizeof seq && (b = escaped(*sp)) >= 0x80) {
		seq[n++] = (unsigned char)b;
		*sp += 3;
		/* escape_utf8 takes a sequence cut short as invalid: stop
		 * at its end, as soon as it decodes. */
		if (escape_utf8(seq, n, &cp) == n)
			break;
	}
	len = escape_utf8(seq, n, &cp);
	if (len == 0 || len != n)
		return "an encoded byte that is not UTF-8 (an overlong "
		    "%c0%ae is a dot to some servers)";
	if (lookalike(cp))
		return "an encoded look-alike of an ASCII character "
		    "(fullwidth dot or slash, a dot leader ...)";
	return NULL;
}

/* One "%XX" at *sp in the path, *sp moved past it; NULL or why not. */
static const char *
path_escape(const char **sp)
{
	const char *s = *sp;
	int b = escaped(s);

	if (b < 0)
		return s[1] == 'u' || s[1] == 'U' ?
		    "a %u escape (IIS reads %u002e as a dot)" :
		    "a % that is not an escape %XX";
	if (b >= 0x80)
		return encoded_utf8(sp);
	*sp += 3;
	if (b == '.')
		return "an encoded dot (%2e)";
	if (b == '/')
		return "an encoded slash (%2f)";
	if (b == '\\')
		return "an encoded backslash (%5c)";
	if (b == ';')
		return "an encoded ; (%3b)";
	if (b == 0)
		return "an encoded NUL (%00)";
	if (b < 0x20 || b == 0x7f)
		return "an encoded control character";
	if (httppath_unreserved((unsigned char)b))
		return "an encoded letter, digit, - _ or ~ (decoded, "
		    "another path)";
	if (b == '%' && hex((unsigned char)s[3]) >= 0)
		return "double encoding (%25 before a hex digit)";
	return NULL;
}

/* A segment of the path, s[0..n), the path going on after it or not. */
static const char *
path_segment(const char *s, size_t n, bool last)
{
	/* "." and ".." (RFC 3986 5.2.4); "..." too, which no API names
	 * and old Windows servers read as "../..". */
	if (n > 0 && strspn(s, ".") >= n)
		return "a segment of dots (., ..)";
	/* "//" is one "/" to nginx (merge_slashes), Spring and more: a
	 * glob's "*" matches the empty segment the server never sees.
	 * The last one ("/repos/") is a path of its own. */
	if (n == 0 && !last)
		return "an empty segment (//)";
	return NULL;
}

static const char *
path_check(const char **sp)
{
	const char *s = *sp, *seg = s + 1, *why;

	for (s++;; ) {
		unsigned char c = (unsigned char)*s;

		if (c == '\0' || c == '?' || c == '#' || c == '/') {
			bool last = c != '/';

			if ((why = path_segment(seg, (size_t)(s - seg), last)))
				return why;
			if (last)
				break;
			seg = ++s;
		} else if (c == '%') {
			if ((why = path_escape(&s)) != NULL)
				return why;
		} else if (c == ';') {
			return "a ; path parameter (Tomcat reads /ok/..;/x "
			    "as /x)";
		} else if (c == '\\') {
			return "a backslash (a slash to some servers)";
		} else if (!path_char(c)) {
			return "a character outside RFC 3986 in the path";
		} else {
			s++;
		}
	}
	*sp = s;
	return NULL;
}

static const char *
query_check(const char *s)
{
	for (; *s != '\0' && *s != '#'; s++) {
		if (*s == '%' && escaped(s) < 0)
			return "a % that is not an escape %XX in the query";
		if (*s != '%' && !query_char((unsigned char)*s))
			return "a character outside RFC 3986 in the query";
	}
	return NULL;
}

const char *
httppath_check(const char *target)
{
	const char *s = target, *why;

	if (s[0] != '/')
		return "not a path from / (an absolute URL, or *)";
	if ((why = path_check(&s)) != NULL)
		return why;
	if (*s == '?' && (why = query_check(s + 1)) != NULL)
		return why;
	if (strchr(s, '#') != NULL)
		return "a fragment (#), which a client never sends";
	return NULL;
}
