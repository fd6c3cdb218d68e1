/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A second oracle for config/httppath.c, written plainly from RFC 3986
 * and sharing none of its code: remove_dot_segments as 5.2.4 writes it,
 * one round of percent-decoding (all escapes, or the unreserved ones of
 * 6.2.2.2). rfc3986_differs(target) says how a target that
 * httppath_check passed could still be read as another path, or NULL:
 * the path (before '?') must be left as it is by dot-segment removal
 * and by decoding its unreserved escapes, and decoded once, as a server
 * would, keep its segments, have none of dots, no '\', ';' or "//", and
 * decode no further. test-httppath and fuzz-httppath use it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/util.h"

/* RFC 3986 5.2.4, step by step as the RFC writes it (in: a path). */
static inline char *
rfc3986_remove_dot_segments(const char *path)
{
	char *in = xstrdup(path), *out = xcalloc(1, strlen(path) + 2);
	char *a = in;

	while (*a != '\0') {
		size_t ol = strlen(out);

		if (strncmp(a, "../", 3) == 0)		/* A */
			a += 3;
		else if (strncmp(a, "./", 2) == 0)
			a += 2;
		else if (strncmp(a, "/./", 3) == 0)	/* B */
			a += 2;
		else if (strcmp(a, "/.") == 0)
			memmove(a, "/", 2);
		else if (strncmp(a, "/../", 4) == 0 || strcmp(a, "/..") == 0) {
			if (a[3] == '\0')		/* C */
				memmove(a, "/", 2);
			else
				a += 3;
			while (ol > 0 && out[ol - 1] != '/')
				ol--;
			if (ol > 0)
				ol--;
			out[ol] = '\0';
		} else if (strcmp(a, ".") == 0 || strcmp(a, "..") == 0) {
			a += strlen(a);			/* D */
		} else {				/* E */
			size_t n = strcspn(a + 1, "/") + 1;

			memcpy(out + ol, a, n);
			out[ol + n] = '\0';
			a += n;
		}
	}
	free(in);
	return out;
}

static inline int
rfc3986_hex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One round of percent-decoding: every escape, or only those of
 * unreserved characters (6.2.2.2). A %00 ends the string. */
static inline char *
rfc3986_decode(const char *s, bool unreserved_only)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;

	while (*s != '\0') {
		int hi, lo, c;

		if (s[0] == '%' && (hi = rfc3986_hex(s[1])) >= 0 &&
		    (lo = rfc3986_hex(s[2])) >= 0) {
			c = hi << 4 | lo;
			if (!unreserved_only || (c >= 'a' && c <= 'z') ||
			    (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			    (c != 0 && strchr("-._~", c) != NULL)) {
				*o++ = (char)c;
				s += 3;
				continue;
			}
		}
		*o++ = *s++;
	}
	*o = '\0';
	return out;
}

static inline size_t
rfc3986_count(const char *s, char c)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += *s == c;
	return n;
}

static inline const char *
rfc3986_differs(const char *target)
{
	cleanup_free char *path = xstrndup(target, strcspn(target, "?"));
	cleanup_free char *dots = rfc3986_remove_dot_segments(path);
	cleanup_free char *unres = rfc3986_decode(path, true);
	cleanup_free char *once = rfc3986_decode(path, false);
	cleanup_free char *twice = rfc3986_decode(once, false);
	cleanup_free char *once_dots = rfc3986_remove_dot_segments(once);

	if (path[0] != '/')
		return "it is no path from /";
	if (strcmp(dots, path) != 0)
		return "dot-segment removal changes it";
	if (strcmp(unres, path) != 0)
		return "decoding its unreserved escapes changes it";
	if (rfc3986_count(once, '/') != rfc3986_count(path, '/'))
		return "decoded once, it has other segments";
	if (strcmp(once_dots, once) != 0)
		return "decoded once, it has a segment of dots";
	if (strpbrk(once, "\\;") != NULL)
		return "decoded once, it has a backslash or a ;";
	if (strstr(once, "//") != NULL)
		return "decoded once, it has an empty segment";
	if (strcmp(twice, once) != 0)
		return "decoded twice, it is another path";
	return NULL;
}
