/* SPDX-License-Identifier: MIT */
/*
 * The glob of protected paths (config/protect.h), apart from the list it
 * serves so that config/policy-files.c can check a pattern without a circle:
 * '*' and '?' within a component, "**" as a whole component for any
 * number of them, "{a,b}" alternatives (across '/' and nested), '\'
 * for a byte taken literally. Matching allocates nothing.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "config/pathglob.h"

/* Longer patterns and more brace groups than this are refused by
 * pathglob_check(), so that a brace's expansion fits a buffer on the
 * stack and its recursion is bounded. */
#define GLOB_MAX	256
#define GLOB_BRACES	8

/*
 * One component of a glob against one component of a path: '*' any run
 * of bytes, '?' one byte, '\' takes the next byte literally. The star is
 * backtracked by remembering its last position, no recursion.
 */
static bool
glob_comp(const char *p, size_t pn, const char *s, size_t sn)
{
	size_t pi = 0, si = 0, star_p = (size_t)-1, star_s = 0;

	while (si < sn) {
		if (pi < pn && p[pi] == '*') {
			star_p = ++pi;
			star_s = si;
			continue;
		}
		if (pi < pn && (p[pi] == '?' ||
		    (p[pi] == '\\' && pi + 1 < pn && p[pi + 1] == s[si]) ||
		    (p[pi] != '\\' && p[pi] == s[si]))) {
			pi += p[pi] == '\\' ? 2 : 1;
			si++;
			continue;
		}
		if (star_p == (size_t)-1)
			return false;
		pi = star_p;
		si = ++star_s;
	}
	while (pi < pn && p[pi] == '*')
		pi++;
	return pi == pn;
}

static const char *
glob_next(const char *c)
{
	const char *slash = strchr(c, '/');

	return slash != NULL ? slash + 1 : c + strlen(c);
}

/*
 * A brace-free glob against a relative path, component by component;
 * "**" alone in a component stands for any number of them. `tree`: also
 * true when the path ends where the glob still has components, that is
 * when the path is a folder a match could lie under.
 */
static bool
glob_path(const char *p, const char *s, bool tree)
{
	size_t pn, sn;

	for (;;) {
		if (*p == '\0')
			return *s == '\0';
		pn = strcspn(p, "/");
		if (pn == 2 && p[0] == '*' && p[1] == '*') {
			const char *rest = glob_next(p);

			if (*rest == '\0' || (tree && *s == '\0'))
				return true;
			for (;;) {
				if (glob_path(rest, s, tree))
					return true;
				if (*s == '\0')
					return false;
				s = glob_next(s);
			}
		}
		if (*s == '\0')
			return tree;
		sn = strcspn(s, "/");
		if (!glob_comp(p, pn, s, sn))
			return false;
		p = glob_next(p);
		s = glob_next(s);
	}
}

/* Where the brace that opens at `open` closes, or NULL. */
static const char *
glob_brace_end(const char *open)
{
	int depth = 0;

	for (const char *c = open; *c != '\0'; c++) {
		if (*c == '\\' && c[1] != '\0')
			c++;
		else if (*c == '{')
			depth++;
		else if (*c == '}' && --depth == 0)
			return c;
	}
	return NULL;
}

static const char *
glob_brace_open(const char *p)
{
	for (const char *c = p; *c != '\0'; c++) {
		if (*c == '\\' && c[1] != '\0')
			c++;
		else if (*c == '{')
			return c;
	}
	return NULL;
}

/*
 * The first brace group expanded, one alternative at a time, into a
 * buffer on the stack, the rest matched by recursion: one buffer a
 * group, GLOB_BRACES of them at most (pathglob_check).
 */
bool
pathglob_match(const char *p, const char *s, bool tree)
{
	const char *open, *close, *alt;
	char buf[GLOB_MAX];
	size_t pre;

	if ((open = glob_brace_open(p)) == NULL)
		return glob_path(p, s, tree);
	if ((close = glob_brace_end(open)) == NULL)
		return false;
	pre = (size_t)(open - p);
	alt = open + 1;
	while (alt <= close) {
		const char *end = alt;
		int depth = 0;
		size_t an, rn = strlen(close + 1);

		for (; end < close; end++) {
			if (*end == '\\' && end + 1 < close)
				end++;
			else if (*end == '{')
				depth++;
			else if (*end == '}')
				depth--;
			else if (*end == ',' && depth == 0)
				break;
		}
		an = (size_t)(end - alt);
		if (pre + an + rn >= sizeof(buf))
			return false;
		memcpy(buf, p, pre);
		memcpy(buf + pre, alt, an);
		memcpy(buf + pre + an, close + 1, rn + 1);
		if (pathglob_match(buf, s, tree))
			return true;
		alt = end + 1;
	}
	return false;
}

int
pathglob_check(const char *pattern, const char **why)
{
	const char *c;
	int depth = 0, groups = 0;

	if (pattern == NULL || *pattern == '\0') {
		*why = "an empty pattern";
		return -1;
	}
	if (strlen(pattern) >= GLOB_MAX) {
		*why = "longer than 255 bytes";
		return -1;
	}
	if (pattern[0] == '~' && pattern[1] != '/') {
		*why = "~ only as ~/ (the home of who runs ward)";
		return -1;
	}
	for (c = pattern; *c != '\0'; c++) {
		if (*c == '\\') {
			if (*++c == '\0') {
				*why = "a \\ at the end";
				return -1;
			}
		} else if (*c == '{') {
			if (++groups > GLOB_BRACES) {
				*why = "more than 8 brace groups";
				return -1;
			}
			depth++;
		} else if (*c == '}') {
			if (--depth < 0) {
				*why = "unbalanced braces";
				return -1;
			}
		} else if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			*why = "a control character";
			return -1;
		}
	}
	if (depth != 0) {
		*why = "unbalanced braces";
		return -1;
	}
	c = pattern[0] == '~' ? pattern + 2 : pattern[0] == '/' ? pattern + 1 :
	    pattern;
	for (int stars = 0;;) {
		size_t n = strcspn(c, "/");

		if (n == 0) {
			*why = "an empty component (// or a / at the end)";
			return -1;
		}
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' &&
		    c[1] == '.')) {
			*why = "a . or .. component (write the path it leads to)";
			return -1;
		}
		/* Each "**" multiplies what a path can cost to match. */
		if (n == 2 && c[0] == '*' && c[1] == '*' && ++stars > 4) {
			*why = "more than 4 ** components";
			return -1;
		}
		if (c[n] == '\0')
			break;
		c += n + 1;
	}
	return 0;
}
