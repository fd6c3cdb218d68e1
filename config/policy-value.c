/* SPDX-License-Identifier: MIT */
/*
 * The values a policy's keys take, each parsed and refused alike
 * wherever it appears: durations, sizes, numbers, ports, yes/no,
 * ask/deny/allow, paths and folders ("~/" for the home), HTTP tokens.
 */
#include "config/policy.h"
#include "config/policy-int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/escape.h"
#include "config/util.h"

#define DURATION_HINT		"use 90, 90s, 5m, 2h"

char *
policy_quote(const char *s)
{
	cleanup_free char *e = escape_str(s);

	return xasprintf("\"%s\"", e);
}

/* Digits only (no sign, no blanks: strtoul accepts both). */
int
policy_parse_uint(const char *s, uint64_t max, uint64_t *ret, const char **end)
{
	uint64_t n = 0;
	const char *c = s;

	if (*c < '0' || *c > '9')
		return -EINVAL;
	for (; *c >= '0' && *c <= '9'; c++) {
		unsigned d = (unsigned)(*c - '0');

		if (n > (max - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	*ret = n;
	*end = c;
	return 0;
}

static int
policy_duration(const char *s, unsigned *ret)
{
	uint64_t n, mul;
	const char *end;
	int r;

	if (strcmp(s, "none") == 0) {
		*ret = 0;
		return 0;
	}
	if ((r = policy_parse_uint(s, UINT_MAX, &n, &end)) < 0)
		return r;
	switch (*end) {
	case '\0':
	case 's':
		mul = 1;
		break;
	case 'm':
		mul = 60;
		break;
	case 'h':
		mul = 3600;
		break;
	default:
		return -EINVAL;
	}
	if (*end != '\0' && end[1] != '\0')
		return -EINVAL;
	if (n > UINT_MAX / mul)
		return -ERANGE;
	*ret = (unsigned)(n * mul);
	return 0;
}

int
policy_parse_duration(const char *s, unsigned *ret)
{
	return policy_duration(s, ret) < 0 ? -EINVAL : 0;
}

int
policy_size(const char *s, uint64_t *ret)
{
	uint64_t n;
	const char *end;
	unsigned shift;
	int r;

	if (strcmp(s, "none") == 0) {
		*ret = 0;
		return 0;
	}
	if ((r = policy_parse_uint(s, UINT64_MAX, &n, &end)) < 0)
		return r;
	switch (*end) {
	case '\0':
		shift = 0;
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case 't':
	case 'T':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	if (*end != '\0' && end[1] != '\0')
		return -EINVAL;
	if (n > (UINT64_MAX >> shift))
		return -ERANGE;
	*ret = n << shift;
	return 0;
}

int
policy_parse_size(const char *s, uint64_t *ret)
{
	return policy_size(s, ret) < 0 ? -EINVAL : 0;
}

const char *
policy_action_name(enum policy_action a)
{
	switch (a) {
	case POLICY_ASK:
		return "ask";
	case POLICY_DENY:
		return "deny";
	case POLICY_ALLOW:
		return "allow";
	}
	return "?";
}

/*
 * A duration that does not parse, with the likely intent when the form
 * says one: "5M" (minutes, in a size's capital), "500ms" (ward counts
 * whole seconds), "2d" (days).
 */
static char *
policy_duration_why(const char *v, int r)
{
	cleanup_free char *q = policy_quote(v);
	uint64_t n;
	const char *end;

	if (r == -ERANGE)
		return xasprintf("%s is too long", q);
	if (policy_parse_uint(v, UINT_MAX, &n, &end) == 0) {
		if ((strcmp(end, "M") == 0 || strcmp(end, "H") == 0 ||
		    strcmp(end, "S") == 0))
			return xasprintf("%s is not a duration; did you mean "
			    "%" PRIu64 "%c?", q, n, end[0] + ('a' - 'A'));
		if (strcmp(end, "ms") == 0)
			return xasprintf("%s is not a duration: ward counts "
			    "whole seconds; did you mean %" PRIu64 "s?", q,
			    n == 0 ? 0 : (n + 999) / 1000);
		if (strcmp(end, "d") == 0 && n <= UINT_MAX / 86400)
			return xasprintf("%s is not a duration; did you mean "
			    "%" PRIu64 "h?", q, n * 24);
	}
	return xasprintf("%s is not a duration (" DURATION_HINT ")", q);
}

int
policy_check_duration(const char *v, unsigned *ret, char **why)
{
	int r;

	if ((r = policy_duration(v, ret)) < 0) {
		*why = policy_duration_why(v, r);
		return -EINVAL;
	}
	return 0;
}

/* "1 KiB", "900 bytes", "15.9 MiB": a size as a person reads it. */
static void
policy_size_name(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB" };
	double d = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(buf, len, "%" PRIu64 " byte%s", n, n == 1 ? "" : "s");
		return;
	}
	while (d >= 1024 && u < 2) {
		d /= 1024;
		u++;
	}
	if (d == (double)(uint64_t)d)
		snprintf(buf, len, "%.0f %s", d, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", d, unit[u]);
}

/*
 * A size limit below what any program runs in (a limit nobody can
 * mean: `memory = 1024` would have every program die of SIGSEGV at
 * start). The likely intent is the same number a unit up: a bare number
 * or K meant as M.
 */
static int
policy_size_floor(const char *v, uint64_t n, uint64_t floor,
    const char *floor_name, char **why)
{
	cleanup_free char *q = policy_quote(v);
	char have[32];
	uint64_t digits;
	const char *end;

	if (n == 0 || n >= floor)
		return 0;
	policy_size_name(n, have, sizeof have);
	if (policy_parse_uint(v, UINT64_MAX, &digits, &end) == 0 &&
	    (end[0] == '\0' || end[0] == 'k' || end[0] == 'K') &&
	    digits <= 65536 && (digits << 20) >= floor)
		*why = xasprintf("%s is %s, below the %s minimum; did you "
		    "mean %" PRIu64 "M?", q, have, floor_name, digits);
	else
		*why = xasprintf("%s is %s, below the %s minimum (or none)",
		    q, have, floor_name);
	return -EINVAL;
}

int
policy_set_size(const char *v, uint64_t *ret, uint64_t floor,
    const char *floor_name, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int r;

	if ((r = policy_size(v, ret)) == -ERANGE)
		*why = xasprintf("%s is too large", q);
	else if (r < 0)
		*why = xasprintf("%s is not a size (" SIZE_HINT ")", q);
	else
		r = policy_size_floor(v, *ret, floor, floor_name, why);
	return r;
}

/* yes / no (and true/false, on/off, 1/0). */
int
policy_yes_no(const char *v, bool *ret, char **why)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcmp(v, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcmp(v, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	{
		cleanup_free char *q = policy_quote(v);

		*why = xasprintf("%s is not yes or no", q);
	}
	return -EINVAL;
}

bool
policy_is_var_name(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_");

	return n > 0 && s[n] == '\0' && !(s[0] >= '0' && s[0] <= '9');
}

int
policy_action(const char *v, bool allow_ok)
{
	if (strcmp(v, "ask") == 0)
		return POLICY_ASK;
	if (strcmp(v, "deny") == 0)
		return POLICY_DENY;
	if (allow_ok && strcmp(v, "allow") == 0)
		return POLICY_ALLOW;
	return -EINVAL;
}

/*
 * An absolute path or glob with single slashes and no trailing one. "." and
 * ".." are refused rather than resolved: rules match the paths the kernel
 * resolved, so "/work/../etc" would never match what it seems to say.
 */
int
policy_path(const char *v, const char *what, char **ret, char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *out = NULL;
	char *o;

	if (v[0] != '/') {
		*why = xasprintf("%s is not an absolute %s (start it with /)", q, what);
		return -EINVAL;
	}
	o = out = xmalloc(strlen(v) + 1);
	for (const char *c = v; *c != '\0';) {
		size_t len;

		while (*c == '/')
			c++;
		len = strcspn(c, "/");
		if (len == 0)
			break;
		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) {
			*why = xasprintf("%s: no . or .. in a %s (write the path "
			    "it leads to)", q, what);
			return -EINVAL;
		}
		*o++ = '/';
		memcpy(o, c, len);
		o += len;
		c += len;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	*ret = steal_ptr(&out);
	return 0;
}

int
policy_folder(const char *v, char ***list, size_t *n, const char *refuse_root,
    char **why)
{
	char *path = NULL;
	int r;

	if ((r = policy_path(v, "path", &path, why)) < 0)
		return r;
	if (strcmp(path, "/") == 0) {
		free(path);
		*why = xasprintf("\"/\": %s", refuse_root);
		return -EINVAL;
	}
	strv_push(list, n, path);
	return 0;
}

/* The home "~/" stands for: $HOME when it is absolute, else the password
 * file's, so that one recipe names a folder of whoever runs it. */
const char *
policy_home(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h != NULL && h[0] == '/')
		return h;
	if ((pw = getpwuid(getuid())) != NULL && pw->pw_dir[0] == '/')
		return pw->pw_dir;
	return NULL;
}

/* "~/" and a path below the home of the user who runs ward (expanded
 * here, once: the folder is bound at its host path), or an absolute path. */
/* "~/path" in the home of who runs ward (*abs malloc'd), anything else
 * as it is; -EINVAL and *why when there is no home to expand it in. */
int
policy_expand_home(const char *v, char **abs, char **why)
{
	const char *home;

	if (!str_has_prefix(v, "~/")) {
		*abs = xstrdup(v);
		return 0;
	}
	if ((home = policy_home()) == NULL) {
		cleanup_free char *q = policy_quote(v);

		*why = xasprintf("%s: no home folder to expand ~ in (HOME is "
		    "not an absolute path)", q);
		return -EINVAL;
	}
	*abs = xasprintf("%s%s", home, v + 1);
	return 0;
}

/*
 * A path the policy names as "~/path" (kept so: "~" then the absolute
 * path in the home, for the home of who runs ward) or absolute: no . or
 * .. in it. 0 and *ret, or -EINVAL with *why.
 */
int
policy_home_or_abs(const char *v, char **ret, char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *abs = NULL;
	int r;

	if (!str_has_prefix(v, "~/"))
		return policy_path(v, "path (or ~/path)", ret, why);
	/* v + 1 starts with '/': only a . or .. is refused. */
	if ((r = policy_path(v + 1, "path", &abs, why)) < 0) {
		free(*why);
		*why = xasprintf("%s: no . or .. in a path (write the path it "
		    "leads to)", q);
		return r;
	}
	*ret = xasprintf("~%s", abs);
	return 0;
}

/* "443" or "8000-8100", ports 1..65535. */
int
policy_ports(const char *s, unsigned *lo, unsigned *hi)
{
	uint64_t a, b;
	const char *end;

	if (policy_parse_uint(s, 65535, &a, &end) < 0 || a == 0)
		return -EINVAL;
	b = a;
	if (*end == '-' &&
	    (policy_parse_uint(end + 1, 65535, &b, &end) < 0 || b < a))
		return -EINVAL;
	if (*end != '\0')
		return -EINVAL;
	*lo = (unsigned)a;
	*hi = (unsigned)b;
	return 0;
}

/* An HTTP token (RFC 9110 tchar): a method, a header's name. */
bool
policy_is_http_token(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') ||
		    (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL)))
			return false;
	}
	return true;
}
