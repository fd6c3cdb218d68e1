/* SPDX-License-Identifier: MIT */
#include "config/policy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>
#include <nettle/sha2.h>

#include "config/escape.h"
#include "config/httppath.h"
#include "config/pathglob.h"
#include "config/settings.h"
#include "config/util.h"

/* A policy is a page of text; anything much larger is a mistake. */
#define POLICY_MAX_SIZE		(1u << 20)

#define DURATION_HINT		"use 90, 90s, 5m, 2h"
#define SIZE_HINT		"use 512M, 2G, 100K, a number of bytes, or none"

/* Sets one value (a scalar, or one item of a list); *why explains a refusal. */
typedef int (*policy_setter)(struct policy *, const char *, char **why);
/* The same for a key of a section with an argument: [manager pip]. */
typedef int (*policy_arg_setter)(struct policy *, const char *arg,
    const char *, char **why);

struct policy_key {
	const char	*section;
	const char	*name;
	bool		 list;
	policy_setter	 set;
	policy_arg_setter set_arg;	/* instead of set */
};

struct policy_parse {
	struct policy	*p;
	const char	*name;		/* the file, for messages */
	const char	*text;
	const char	*next;		/* where the reader goes on */
	unsigned	 lineno;	/* the line the reader handed out last */
	bool		 indented;	/* ... and whether it starts with a blank */
	const struct policy_key *prev;	/* the key above, for continuation lines */
	const struct policy_key *empty;	/* a list key left empty, waiting for */
	unsigned	 empty_line;	/*   indented lines to fill it */
	char		*empty_sect;	/*   in this section (as written, escaped) */
	unsigned	*set_on;	/* per key: line a scalar was set on, 0 = not yet */
	unsigned	*secret_line;	/* per [secret NAME]: its header's line */
	bool		 secret_open;	/* the last of them is being read */
	unsigned	 err_line;
	char		*cause;
};

static char *
policy_quote(const char *s)
{
	cleanup_free char *e = escape_str(s);

	return xasprintf("\"%s\"", e);
}

/* ------------------------------------------------------------------ */
/* Values */

/* Digits only (no sign, no blanks: strtoul accepts both). */
static int
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

static int
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
 * SHA-256 of the bytes parsed, as 64 hex digits (nettle): the record names
 * the policy a run had, and `sha256sum FILE` finds which file that was.
 */
char *
policy_hash(const char *text, size_t len)
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	char *hex = xmalloc(2 * sizeof d + 1);

	sha256_init(&ctx);
	sha256_update(&ctx, len, (const uint8_t *)text);
	sha256_digest(&ctx, sizeof d, d);
	hex_encode(d, sizeof d, hex);
	return hex;
}

/* ------------------------------------------------------------------ */
/* Setters, one per key */

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

static int
policy_set_timeout(struct policy *p, const char *v, char **why)
{
	return policy_check_duration(v, &p->timeout, why);
}

static int
policy_set_ask_timeout(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int r;

	if ((r = policy_check_duration(v, &p->ask_timeout, why)) < 0)
		return r;
	if (p->ask_timeout == 0) {
		/* Fail closed: a request nobody answers is denied at its
		 * deadline, so there must be one. */
		*why = xasprintf("%s: a request must have a deadline (at least 1s)", q);
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

static int
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

static int
policy_set_memory(struct policy *p, const char *v, char **why)
{
	/* Below 16 MiB of address space the loader and libc alone fail. */
	return policy_set_size(v, &p->memory, POLICY_MIN_MEMORY, "16M", why);
}

static int
policy_set_pids(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	uint64_t n = 0;
	const char *end = v;

	if (strcmp(v, "none") != 0 &&
	    (policy_parse_uint(v, UINT_MAX, &n, &end) < 0 || *end != '\0')) {
		*why = xasprintf("%s is not a number of tasks (use 512, or none)", q);
		return -EINVAL;
	}
	/* Tasks count threads: a shell, a pipeline, a runtime's workers. */
	if (n > 0 && n < POLICY_MIN_PIDS) {
		*why = xasprintf("%s is below the %u minimum: a shell and a "
		    "pipeline or a runtime's threads need more (use 512, or "
		    "none)", q, POLICY_MIN_PIDS);
		return -EINVAL;
	}
	p->pids = (unsigned)n;
	return 0;
}

static int
policy_set_cpu(struct policy *p, const char *v, char **why)
{
	/* Whole seconds: any value but 0 ("none") is at least 1 s. */
	return policy_check_duration(v, &p->cpu, why);
}

static int
policy_set_file_size(struct policy *p, const char *v, char **why)
{
	/* Below 1 MiB a compiler's object or a log cannot be written. */
	return policy_set_size(v, &p->file_size, POLICY_MIN_FILE_SIZE, "1M",
	    why);
}

static int
policy_set_max_apply(struct policy *p, const char *v, char **why)
{
	/* Below 1 MiB every source file would wait to be named: a value
	 * there is a unit slip ("1024" meant 1024M), refused. */
	return policy_set_size(v, &p->max_apply, POLICY_MIN_MAX_APPLY, "1M",
	    why);
}

/* yes / no (and true/false, on/off, 1/0). */
static int
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

static int
policy_set_journal(struct policy *p, const char *v, char **why)
{
	bool on;
	int r;

	if (strcmp(v, "auto") == 0) {
		p->journal = POLICY_JOURNAL_AUTO;
		return 0;
	}
	if ((r = policy_yes_no(v, &on, why)) < 0)
		return r;
	p->journal = on ? POLICY_JOURNAL_ON : POLICY_JOURNAL_OFF;
	return 0;
}

static int
policy_set_syslog(struct policy *p, const char *v, char **why)
{
	return policy_yes_no(v, &p->syslog, why);
}

static int
policy_set_output_max(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int r;

	if ((r = policy_size(v, &p->output_max)) == -ERANGE)
		*why = xasprintf("%s is too large", q);
	else if (r < 0)
		*why = xasprintf("%s is not a size (" SIZE_HINT ")", q);
	return r;
}

static int
policy_set_open_files(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	uint64_t n = 0;
	const char *end = v;

	/* stdio, the loader's libraries, a few pipes and sockets: a
	 * runtime opens dozens before it runs a line. */
	if (strcmp(v, "none") != 0 &&
	    (policy_parse_uint(v, 1u << 20, &n, &end) < 0 || *end != '\0' ||
	    (n > 0 && n < POLICY_MIN_OPEN_FILES))) {
		*why = xasprintf("%s is not a number of open files (%u to "
		    "1048576, or none)", q, POLICY_MIN_OPEN_FILES);
		return -EINVAL;
	}
	p->open_files = (unsigned)n;
	return 0;
}

static bool
policy_is_var_name(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_");

	return n > 0 && s[n] == '\0' && !(s[0] >= '0' && s[0] <= '9');
}

static int
policy_set_env(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *name = xstrndup(v, strcspn(v, "="));
	const char *eq = strchr(v, '=');

	if (!policy_is_var_name(name)) {
		*why = xasprintf("%s is not an environment variable name "
		    "(NAME, or NAME=VALUE)", q);
		return -EINVAL;
	}
	/* NAME=VALUE: set in the sandbox as written (an agent's telemetry
	 * off); the value printable, no quoting. */
	for (const char *c = eq != NULL ? eq + 1 : ""; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			*why = xasprintf("%s: a control character in the "
			    "value", q);
			return -EINVAL;
		}
	strv_push(&p->env, &p->n_env, xstrdup(v));
	return 0;
}

size_t
policy_env_name_len(const char *entry)
{
	return strcspn(entry, "=");
}

static int
policy_action(const char *v, bool allow_ok, enum policy_action *ret)
{
	if (strcmp(v, "ask") == 0)
		*ret = POLICY_ASK;
	else if (strcmp(v, "deny") == 0)
		*ret = POLICY_DENY;
	else if (allow_ok && strcmp(v, "allow") == 0)
		*ret = POLICY_ALLOW;
	else
		return -EINVAL;
	return 0;
}

static int
policy_set_write(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);

	if (policy_action(v, false, &p->write) == 0)
		return 0;
	if (strcmp(v, "allow") == 0)
		*why = xasprintf("%s is not one of ask, deny (name folders in "
		    "writable, or globs in allow)", q);
	else
		*why = xasprintf("%s is not one of ask, deny", q);
	return -EINVAL;
}

static int
policy_set_connect(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);

	if (policy_action(v, false, &p->connect) == 0)
		return 0;
	if (strcmp(v, "allow") == 0)
		*why = xasprintf("%s is not one of ask, deny (name hosts in "
		    "allow)", q);
	else
		*why = xasprintf("%s is not one of ask, deny", q);
	return -EINVAL;
}

static int
policy_set_install(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);

	if (policy_action(v, true, &p->install) == 0)
		return 0;
	*why = xasprintf("%s is not one of ask, deny, allow", q);
	return -EINVAL;
}

/*
 * An absolute path or glob with single slashes and no trailing one. "." and
 * ".." are refused rather than resolved: rules match the paths the kernel
 * resolved, so "/work/../etc" would never match what it seems to say.
 */
static int
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

static int
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
static int
policy_expand_home(const char *v, char **abs, char **why)
{
	const char *home;

	if (strncmp(v, "~/", 2) != 0) {
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

static int
policy_set_writable(struct policy *p, const char *v, char **why)
{
	cleanup_free char *abs = NULL;
	int r;

	if ((r = policy_expand_home(v, &abs, why)) < 0)
		return r;
	return policy_folder(abs, &p->writable, &p->n_writable,
	    "would make the whole host writable", why);
}

/*
 * A path the policy names as "~/path" (kept so: "~" then the absolute
 * path in the home, for the home of who runs ward) or absolute: no . or
 * .. in it. 0 and *ret, or -EINVAL with *why.
 */
static int
policy_home_or_abs(const char *v, char **ret, char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *abs = NULL;
	int r;

	if (strncmp(v, "~/", 2) != 0)
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

/* A project (DESIGN §4): a host folder staged in an overlay, "~/" for
 * the home of who runs ward. */
static int
policy_set_project(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	char *path = NULL;
	int r;

	if ((r = policy_home_or_abs(v, &path, why)) < 0)
		return r;
	if (strcmp(path, "~/") == 0) {
		free(path);
		*why = xasprintf("%s: name a folder in the home, not the home "
		    "itself", q);
		return -EINVAL;
	}
	if (strcmp(path, "/") == 0) {
		free(path);
		*why = xasprintf("\"/\": cannot stage the whole host");
		return -EINVAL;
	}
	strv_push(&p->project, &p->n_project, path);
	return 0;
}

static int
policy_set_hidden(struct policy *p, const char *v, char **why)
{
	return policy_folder(v, &p->hidden, &p->n_hidden,
	    "cannot hide the whole host", why);
}

static const char *const cred_stores[] = {
	".ssh", ".aws", ".gnupg", ".netrc", ".docker", ".kube", ".azure",
	".git-credentials", ".npmrc", ".pypirc", ".password-store",
	".vault-token", ".cargo/credentials", ".cargo/credentials.toml",
	".config/gcloud", ".config/gh", ".config/op", ".local/share/keyrings",
	".mozilla", ".config/google-chrome", ".config/chromium",
	".config/BraveSoftware", NULL,
};

/* "*" stays inside one segment, "**" crosses them; the rest is literal. */
bool
policy_http_path_match(const char *g, const char *s)
{
	if (*g == '\0')
		return *s == '\0';
	if (g[0] == '*' && g[1] == '*') {
		for (;; s++) {
			if (policy_http_path_match(g + 2, s))
				return true;
			if (*s == '\0')
				return false;
		}
	}
	if (*g == '*') {
		for (;; s++) {
			if (policy_http_path_match(g + 1, s))
				return true;
			if (*s == '\0' || *s == '/')
				return false;
		}
	}
	return *s == *g && policy_http_path_match(g + 1, s + 1);
}

const char *const *
policy_cred_stores(void)
{
	return cred_stores;
}

/* Does path hold /<store> at a component boundary (a store or inside)? */
const char *
policy_cred_store_of(const char *path)
{
	for (const char *c = path; (c = strchr(c, '/')) != NULL; c++)
		for (size_t i = 0; cred_stores[i] != NULL; i++) {
			size_t n = strlen(cred_stores[i]);

			if (strncmp(c + 1, cred_stores[i], n) == 0 &&
			    (c[1 + n] == '\0' || c[1 + n] == '/'))
				return cred_stores[i];
		}
	return NULL;
}

/* "~/" and a path below the home, or an absolute path; either way a
 * credential store or something in one, never a parent of a store. */
static int
policy_set_expose(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	char *path = NULL;
	int r;

	if ((r = policy_home_or_abs(v, &path, why)) < 0)
		return r;
	if (policy_cred_store_of(path + (path[0] == '~')) == NULL) {
		free(path);
		*why = xasprintf("%s is not a credential store or inside one "
		    "(name the store or an entry in it, as ~/.ssh/known_hosts; "
		    "a parent folder never exposes the stores in it)", q);
		return -EINVAL;
	}
	strv_push(&p->expose, &p->n_expose, path);
	return 0;
}

static int
policy_set_allow(struct policy *p, const char *v, char **why)
{
	char *glob = NULL;
	int r;

	if ((r = policy_path(v, "glob", &glob, why)) < 0)
		return r;
	strv_push(&p->allow, &p->n_allow, glob);
	return 0;
}

static int
policy_set_deny(struct policy *p, const char *v, char **why)
{
	char *glob = NULL;
	int r;

	if ((r = policy_path(v, "glob", &glob, why)) < 0)
		return r;
	strv_push(&p->deny, &p->n_deny, glob);
	return 0;
}

/*
 * A protected path's glob (config/protect.h, config/pathglob.h): relative (in every project
 * and writable folder), "~/..." or absolute, kept as written; the run
 * matches it, there is nothing to expand here.
 */
static int
policy_set_protect(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	const char *reason = NULL;

	if (pathglob_check(v, &reason) < 0) {
		*why = xasprintf("%s: %s (a glob: relative, ~/ or absolute; "
		    "'*', '?', '**', {a,b})", q, reason);
		return -EINVAL;
	}
	strv_push(&p->protect, &p->n_protect, xstrdup(v));
	return 0;
}

/* "443" or "8000-8100", ports 1..65535. */
static int
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

/* "10.0.0.0/8" or "fd00::/8" into canonical text; host bits must be 0. */
static int
policy_cidr(const char *s, char **ret, const char **why)
{
	cleanup_free char *addr = xstrdup(s);
	char *slash = strchr(addr, '/');
	unsigned char bytes[16];
	char text[INET6_ADDRSTRLEN];
	uint64_t prefix;
	const char *end;
	int af = AF_INET;
	unsigned bits = 32;

	*slash = '\0';
	if (inet_pton(AF_INET, addr, bytes) != 1) {
		af = AF_INET6;
		bits = 128;
		if (inet_pton(AF_INET6, addr, bytes) != 1) {
			*why = "is not an address/prefix";
			return -EINVAL;
		}
	}
	if (policy_parse_uint(slash + 1, bits, &prefix, &end) < 0 || *end != '\0') {
		*why = af == AF_INET ? "needs a prefix length 0..32" :
		    "needs a prefix length 0..128";
		return -EINVAL;
	}
	for (unsigned i = (unsigned)prefix; i < bits; i++) {
		if (bytes[i / 8] & (0x80u >> (i % 8))) {
			*why = "has bits set past its prefix length";
			return -EINVAL;
		}
	}
	inet_ntop(af, bytes, text, sizeof text);
	*ret = xasprintf("%s/%u", text, (unsigned)prefix);
	return 0;
}

/* A DNS name or "*.suffix", lowercased, without a trailing dot. */
static int
policy_hostname(const char *s, char **ret, const char **why)
{
	cleanup_free char *name = NULL;
	const char *labels = s;
	size_t len = strlen(s), label = 0;
	bool digits_only = true;

	if (strncmp(s, "*.", 2) == 0)
		labels = s + 2;
	if (len > 0 && s[len - 1] == '.')
		len--;
	if (labels >= s + len) {
		*why = "is not a host name";
		return -EINVAL;
	}
	if (len > 253) {
		*why = "is longer than 253 characters";
		return -EINVAL;
	}
	name = xstrndup(s, len);
	for (char *c = name + (labels - s); *c != '\0'; c++) {
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
		if (*c == '.') {
			if (label == 0 || c[-1] == '-') {
				*why = "is not a host name";
				return -EINVAL;
			}
			label = 0;
			continue;
		}
		if (*c == '*') {
			*why = "has a * that is not a leading *. (use *.example.com)";
			return -EINVAL;
		}
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
		    *c == '-' || *c == '_') || (*c == '-' && label == 0) ||
		    ++label > 63) {
			*why = "is not a host name";
			return -EINVAL;
		}
		if (*c < '0' || *c > '9')
			digits_only = false;
	}
	if (label == 0 || name[strlen(name) - 1] == '-') {
		*why = "is not a host name";
		return -EINVAL;
	}
	/* "1.2.3.256" or "10.1" is a mistyped address, not a name. */
	if (digits_only) {
		*why = "is not an IPv4 address";
		return -EINVAL;
	}
	*ret = steal_ptr(&name);
	return 0;
}

/*
 * host, host:port, host:lo-hi, *.suffix[:port], 1.2.3.4[:port],
 * 10.0.0.0/8[:port], [::1], [::1]:443, [fd00::/8]:443.
 */
static int
policy_parse_host(const char *v, struct policy_host *ret, bool is_never,
    char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *host = NULL;
	cleanup_free char *canon = NULL;
	const char *port = NULL, *problem = NULL;
	struct policy_host h = { .port_lo = 0, .port_hi = 65535 };
	unsigned char bytes[16];
	char text[INET6_ADDRSTRLEN];
	bool v6 = false;

	if (v[0] == '[') {
		const char *close = strchr(v, ']');

		if (close == NULL || (close[1] != '\0' && close[1] != ':')) {
			*why = xasprintf("%s: write [address]:port", q);
			return -EINVAL;
		}
		host = xstrndup(v + 1, (size_t)(close - v - 1));
		if (close[1] == ':')
			port = close + 2;
		v6 = true;
	} else {
		const char *colon = strchr(v, ':');

		if (colon != NULL && strchr(colon + 1, ':') != NULL) {
			/* Is "::1:443" the address ::1:443 or ::1 port 443? */
			*why = xasprintf("%s: write an IPv6 address in brackets: "
			    "[::1] or [::1]:443", q);
			return -EINVAL;
		}
		if (colon != NULL) {
			host = xstrndup(v, (size_t)(colon - v));
			port = colon + 1;
		} else {
			host = xstrdup(v);
		}
	}
	if (port != NULL && policy_ports(port, &h.port_lo, &h.port_hi) < 0) {
		*why = xasprintf("%s: the port must be 1..65535 or a range lo-hi", q);
		return -EINVAL;
	}

	if (strchr(host, '/') != NULL) {
		/* Without brackets there is no colon, so no IPv6 network. */
		if (policy_cidr(host, &canon, &problem) == 0 &&
		    v6 == (strchr(canon, ':') != NULL))
			goto done;
		if (problem == NULL)
			problem = "is not an IPv6 network";
	} else if (v6) {
		if (inet_pton(AF_INET6, host, bytes) == 1) {
			canon = xstrdup(inet_ntop(AF_INET6, bytes, text, sizeof text));
			goto done;
		}
		problem = "is not an IPv6 address";
	} else if (inet_pton(AF_INET, host, bytes) == 1) {
		canon = xstrdup(host);
		goto done;
	} else if (strcmp(host, "*") == 0) {
		problem = "would allow every host (name the hosts, or use *.example.com)";
	} else if (is_never) {
		problem = "is not an address or network (never takes 10.0.0.0/8, "
		    "169.254.169.254, [fe80::/10] ...)";
	} else if (policy_hostname(host, &canon, &problem) == 0) {
		goto done;
	}
	*why = xasprintf("%s %s", q, problem);
	return -EINVAL;

done:
	h.host = steal_ptr(&canon);
	*ret = h;
	return 0;
}

static int
policy_set_net_allow(struct policy *p, const char *v, char **why)
{
	struct policy_host h;
	int r;

	if ((r = policy_parse_host(v, &h, false, why)) < 0)
		return r;
	p->net_allow = xreallocarray(p->net_allow, p->n_net_allow + 1,
	    sizeof *p->net_allow);
	p->net_allow[p->n_net_allow++] = h;
	return 0;
}

static int
policy_set_net_deny(struct policy *p, const char *v, char **why)
{
	struct policy_host h;
	int r;

	if ((r = policy_parse_host(v, &h, false, why)) < 0)
		return r;
	p->net_deny = xreallocarray(p->net_deny, p->n_net_deny + 1,
	    sizeof *p->net_deny);
	p->net_deny[p->n_net_deny++] = h;
	return 0;
}

/* The first never line replaces the built-in list; "none" empties it. */
static int
policy_set_net_never(struct policy *p, const char *v, char **why)
{
	struct policy_host h;
	int r;

	p->never_set = true;
	if (strcmp(v, "none") == 0)
		return 0;
	if ((r = policy_parse_host(v, &h, true, why)) < 0)
		return r;
	p->net_never = xreallocarray(p->net_never, p->n_net_never + 1,
	    sizeof *p->net_never);
	p->net_never[p->n_net_never++] = h;
	return 0;
}

static int
policy_set_http(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);

	if (policy_action(v, false, &p->http) == 0)
		return 0;
	if (strcmp(v, "allow") == 0)
		*why = xasprintf("%s is not one of ask, deny (name the requests "
		    "in allow: api.example.com:443 GET /path)", q);
	else
		*why = xasprintf("%s is not one of ask, deny", q);
	return -EINVAL;
}

/* The CAs the gate checks upstream servers with: absolute or "~/"
 * (expanded here, as writable), a file readable now. */
static int
policy_set_upstream_ca(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *path = NULL, *abs = NULL;
	struct stat sb;
	int r;

	if ((r = policy_home_or_abs(v, &path, why)) < 0 ||
	    (r = policy_expand_home(path, &abs, why)) < 0)
		return r;
	if (stat(abs, &sb) < 0 || access(abs, R_OK) < 0) {
		*why = xasprintf("%s: cannot read it: %s", q, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISREG(sb.st_mode)) {
		*why = xasprintf("%s is not a file (name a PEM file of CA "
		    "certificates)", q);
		return -EINVAL;
	}
	free(p->upstream_ca);
	p->upstream_ca = steal_ptr(&abs);
	return 0;
}

/* ------------------------------------------------------------------ */
/* [secret NAME] sections and HTTP rules (issue 19) */

#define SECRET_NAME_MAX		63	/* gate_msg's name[64] */
#define HTTP_METHOD_MAX		15	/* gate_msg's method[16] */

/* An HTTP token (RFC 9110 tchar): a method, a header's name. */
static bool
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

/* The [secret NAME] being read: the last one (each NAME once). */
static struct policy_secret *
policy_secret_of(struct policy *p, const char *name)
{
	for (size_t i = p->n_secrets; i-- > 0;)
		if (strcmp(p->secrets[i].name, name) == 0)
			return &p->secrets[i];
	return NULL;
}

/* from = env:NAME | file:PATH | command:CMDLINE: the form only; nothing
 * is read or run here (the gate does, when the run starts). */
static int
policy_set_secret_from(struct policy *p, const char *arg, const char *v,
    char **why)
{
	struct policy_secret *sc = policy_secret_of(p, arg);
	cleanup_free char *q = policy_quote(v);
	char *path = NULL;

	if (strncmp(v, "env:", 4) == 0) {
		if (!policy_is_var_name(v + 4)) {
			*why = xasprintf("%s: env: takes a variable name "
			    "(env:ANTHROPIC_API_KEY)", q);
			return -EINVAL;
		}
		sc->from = xstrdup(v);
		return 0;
	}
	if (strncmp(v, "file:", 5) == 0) {
		if (policy_home_or_abs(v + 5, &path, why) < 0) {
			free(*why);
			*why = xasprintf("%s: file: takes an absolute path or "
			    "~/path, with no . or ..", q);
			return -EINVAL;
		}
		sc->from = xasprintf("file:%s", path);
		free(path);
		return 0;
	}
	if (strncmp(v, "command:", 8) == 0) {
		const char *c = v + 8 + strspn(v + 8, " \t");

		if (*c == '\0') {
			*why = xasprintf("%s: command: takes a command line "
			    "(command:pass show anthropic)", q);
			return -EINVAL;
		}
		for (const char *d = c; *d != '\0'; d++)
			if ((unsigned char)*d < 0x20 && *d != '\t') {
				*why = xasprintf("%s: a control character in "
				    "the command", q);
				return -EINVAL;
			}
		sc->from = xasprintf("command:%s", c);
		return 0;
	}
	*why = xasprintf("%s is not env:NAME, file:PATH or command:CMDLINE", q);
	return -EINVAL;
}

/*
 * A host an HTTP rule or a secret names: a name, *.suffix or an address
 * (not a network), with one port. what: "a method or path", "a [secret]"
 * for the message.
 */
static int
policy_one_port_host(const char *v, const char *what, struct policy_host *ret,
    char **why)
{
	cleanup_free char *q = policy_quote(v);
	struct policy_host h;
	int r;

	if ((r = policy_parse_host(v, &h, false, why)) < 0)
		return r;
	if (strchr(h.host, '/') != NULL) {
		free(h.host);
		*why = xasprintf("%s: %s names one host (a name, *.suffix or an "
		    "address), not a network", q, what);
		return -EINVAL;
	}
	if (h.port_lo != h.port_hi) {
		bool range = h.port_lo != 0 || h.port_hi != 65535;

		bool v6 = strchr(h.host, ':') != NULL;

		*why = xasprintf("%s: %s needs one port on its host%s (say the "
		    "port: %s%s%s:443)", q, what, range ? ", not a range" : "",
		    v6 ? "[" : "", h.host, v6 ? "]" : "");
		free(h.host);
		return -EINVAL;
	}
	*ret = h;
	return 0;
}

static int
policy_set_secret_hosts(struct policy *p, const char *arg, const char *v,
    char **why)
{
	struct policy_secret *sc = policy_secret_of(p, arg);
	struct policy_host h;
	int r;

	if ((r = policy_one_port_host(v, "a [secret]", &h, why)) < 0)
		return r;
	sc->hosts = xreallocarray(sc->hosts, sc->n_hosts + 1, sizeof *sc->hosts);
	sc->hosts[sc->n_hosts++] = h;
	return 0;
}

/* Headers that frame the message or route it: a secret never goes in
 * one (the gate relays them as the client wrote them). */
static const char *const policy_frame_headers[] = {
	"host", "content-length", "transfer-encoding", "connection",
	"upgrade", "te", "trailer", "keep-alive", "proxy-connection",
};

/* header = Name: value, the value holding {} once (where the secret goes). */
static int
policy_set_secret_header(struct policy *p, const char *arg, const char *v,
    char **why)
{
	struct policy_secret *sc = policy_secret_of(p, arg);
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *name = NULL;
	const char *colon = strchr(v, ':'), *val, *brace;

	if (colon == NULL) {
		*why = xasprintf("%s is not Name: value (x-api-key: {}, or "
		    "authorization: Bearer {})", q);
		return -EINVAL;
	}
	name = xstrndup(v, (size_t)(colon - v));
	name[strcspn(name, " \t")] = '\0';
	if (!policy_is_http_token(v, (size_t)(colon - v))) {
		*why = xasprintf("%s: the header's name is not an HTTP token "
		    "(letters, digits, - and no blanks before the colon)", q);
		return -EINVAL;
	}
	for (char *c = name; *c != '\0'; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	for (size_t i = 0; i < ARRAY_SIZE(policy_frame_headers); i++)
		if (strcmp(name, policy_frame_headers[i]) == 0) {
			*why = xasprintf("%s: %s frames the request; a secret "
			    "goes in another header", q, name);
			return -EINVAL;
		}
	val = colon + 1 + strspn(colon + 1, " \t");
	for (const char *c = val; *c != '\0'; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f) {
			*why = xasprintf("%s: a control character in the value", q);
			return -EINVAL;
		}
	if ((brace = strstr(val, "{}")) == NULL) {
		*why = xasprintf("%s: the value has no {} (where the secret "
		    "goes: %s: Bearer {})", q, name);
		return -EINVAL;
	}
	if (strstr(brace + 2, "{}") != NULL) {
		*why = xasprintf("%s: {} more than once (the secret goes in "
		    "one place)", q);
		return -EINVAL;
	}
	sc->header = steal_ptr(&name);
	sc->header_value = xstrdup(val);
	return 0;
}

/* A method of an HTTP rule: a token ("get" is GET) or "*". */
static int
policy_http_method(const char *v, char **ret, char **why)
{
	cleanup_free char *q = policy_quote(v);
	char *m;

	if (strcmp(v, "*") != 0 && !policy_is_http_token(v, strlen(v))) {
		*why = xasprintf("%s is not an HTTP method (GET, POST, *)", q);
		return -EINVAL;
	}
	if (strlen(v) > HTTP_METHOD_MAX) {
		*why = xasprintf("%s: a method of at most %d characters", q,
		    HTTP_METHOD_MAX);
		return -EINVAL;
	}
	m = xstrdup(v);
	for (char *c = m; *c != '\0'; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	*ret = m;
	return 0;
}

/* A path glob of an HTTP rule: from '/', no query, nothing unprintable,
 * canonical as the gate wants a request's path (config/httppath.h): a
 * glob with a ".." or a ";" would match no request the gate lets by. */
static int
policy_http_path(const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	const char *odd;

	for (const char *c = v; *c != '\0'; c++) {
		if ((unsigned char)*c <= 0x20 || *c == 0x7f) {
			*why = xasprintf("%s: a control character in the path", q);
			return -EINVAL;
		}
		if (*c == '?' || *c == '#') {
			*why = xasprintf("%s: a rule's path has no query or "
			    "fragment (it matches the path alone: /search, "
			    "not /search?q=x)", q);
			return -EINVAL;
		}
	}
	if ((odd = httppath_check(v)) != NULL) {
		*why = xasprintf("%s: %s: the gate refuses a request whose path "
		    "is not canonical, so this rule would match none", q, odd);
		return -EINVAL;
	}
	return 0;
}

/* Does a token read as a method: before a path, "*" or a token that is
 * no host:port; last on the line, one of HTTP's own methods in capitals
 * ("GET"; "get" there is a host, as it always was). */
static bool
policy_looks_like_method(const char *s, bool before_path)
{
	static const char *const methods[] = {
		"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS",
		"TRACE", "PATCH",
	};

	if (before_path)
		return strcmp(s, "*") == 0 ||
		    (policy_is_http_token(s, strlen(s)) &&
		    strpbrk(s, ".:[]/") == NULL);
	for (size_t i = 0; i < ARRAY_SIZE(methods); i++)
		if (strcmp(s, methods[i]) == 0)
			return true;
	return false;
}

/*
 * One [network] allow line's items: hosts ("a:443 b:443"), or one host
 * with an HTTP rule: host METHOD PATH, host PATH (any method), host
 * METHOD (any path; GET, POST ... in capitals, or it reads as a host). A
 * rule has both fields: a left-out method is "*", a left-out path "/" "**".
 * 0 or -EINVAL with *why.
 */
static int
policy_net_allow_items(struct policy *p, char **tok, size_t n, char **why)
{
	cleanup_free char *method = NULL, *path = NULL;
	struct policy_host h;
	size_t hosts = n, pi = n;
	int r;

	for (size_t i = 0; i < n; i++)
		if (tok[i][0] == '/') {
			pi = i;
			break;
		}
	if (pi == 0) {
		cleanup_free char *q = policy_quote(tok[0]);

		*why = xasprintf("%s: a path goes after its host (api.example."
		    "com:443 GET /path)", q);
		return -EINVAL;
	}
	if (pi < n) {
		if (pi != n - 1) {
			cleanup_free char *q = policy_quote(tok[pi + 1]);

			*why = xasprintf("%s after the path: a rule is host "
			    "METHOD PATH, then its (reason)", q);
			return -EINVAL;
		}
		if ((r = policy_http_path(tok[pi], why)) < 0)
			return r;
		path = xstrdup(tok[pi]);
		hosts = pi;
		if (pi >= 2 && policy_looks_like_method(tok[pi - 1], true))
			hosts = pi - 1;
	} else if (n >= 2 && policy_looks_like_method(tok[n - 1], false)) {
		hosts = n - 1;
	}
	if (hosts == n) {
		for (size_t i = 0; i < n; i++) {
			if ((r = policy_parse_host(tok[i], &h, false, why)) < 0)
				return r;
			p->net_allow = xreallocarray(p->net_allow,
			    p->n_net_allow + 1, sizeof *p->net_allow);
			p->net_allow[p->n_net_allow++] = h;
		}
		return 0;
	}
	if (hosts > 1) {
		*why = xstrdup("one rule per line: a method or path goes with "
		    "one host (write each host's rule on a line of its own)");
		return -EINVAL;
	}
	if (hosts < (path != NULL ? pi : n) &&
	    (r = policy_http_method(tok[hosts], &method, why)) < 0)
		return r;
	if ((r = policy_one_port_host(tok[0], "a method or path", &h, why)) < 0)
		return r;
	h.method = method != NULL ? steal_ptr(&method) : xstrdup("*");
	h.path = path != NULL ? steal_ptr(&path) : xstrdup("/**");
	p->net_allow = xreallocarray(p->net_allow, p->n_net_allow + 1,
	    sizeof *p->net_allow);
	p->net_allow[p->n_net_allow++] = h;
	return 0;
}

/* "api.test:443", "[::1]:443" */
static char *
policy_host_port(const struct policy_host *h)
{
	return xasprintf(strchr(h->host, ':') != NULL ? "[%s]:%u" : "%s:%u",
	    h->host, h->port_lo);
}

char **
policy_describe_http(const struct policy *p)
{
	char **lines = NULL;
	size_t n = 0;
	bool rules = false;

	for (size_t i = 0; i < p->n_secrets; i++) {
		const struct policy_secret *sc = &p->secrets[i];
		cleanup_free char *hosts = xstrdup("");

		for (size_t j = 0; j < sc->n_hosts; j++) {
			cleanup_free char *hp = policy_host_port(&sc->hosts[j]);
			char *old = hosts;

			hosts = xasprintf("%s%s%s", old, j > 0 ? " " : "", hp);
			free(old);
		}
		strv_push(&lines, &n, xasprintf("secret %s: from %s; to %s; "
		    "header %s: %s", sc->name, sc->from, hosts, sc->header,
		    sc->header_value));
	}
	for (size_t i = 0; i < p->n_net_allow; i++) {
		const struct policy_host *h = &p->net_allow[i];
		cleanup_free char *hp = NULL;

		if (!policy_host_is_http(h))
			continue;
		hp = policy_host_port(h);
		strv_push(&lines, &n, xasprintf("http %s %s %s%s%s%s", hp,
		    h->method != NULL ? h->method : "*",
		    h->path != NULL ? h->path : "/**",
		    h->reason != NULL ? " (" : "",
		    h->reason != NULL ? h->reason : "",
		    h->reason != NULL ? ")" : ""));
		rules = true;
	}
	if (rules)
		strv_push(&lines, &n, xasprintf("http other requests to these "
		    "hosts: %s", p->http == POLICY_DENY ? "deny (a 403)" :
		    "ask"));
	if (p->upstream_ca != NULL)
		strv_push(&lines, &n, xasprintf("upstream servers checked "
		    "against %s", p->upstream_ca));
	if (lines == NULL)
		lines = xcalloc(1, sizeof *lines);
	return lines;
}

/* ------------------------------------------------------------------ */
/* Package managers */

/*
 * Every name a package manager goes by, canonical names first in the
 * order messages list them. The lists differ on purpose or by history:
 * npm-cli.js is no name for a policy; pnpm.js, pnpx.cjs and yarn.cjs are
 * seen only as the script node runs, yarnpkg only as a program.
 */
#define POL	MANAGER_AS_POLICY
#define PROG	MANAGER_AS_PROGRAM
#define SCRIPT	MANAGER_AS_SCRIPT
#define VER	MANAGER_VERSIONED
static const struct policy_manager_alias policy_managers[] = {
	{ "pip", "pip", "pip", POL | PROG | VER },
	{ "uv", "uv", "uv", POL | PROG },
	{ "npm", "npm", "npm", POL | PROG | SCRIPT },
	{ "pnpm", "pnpm", "pnpm", POL | PROG | SCRIPT },
	{ "yarn", "yarn", "yarn", POL | PROG | SCRIPT },
	{ "npx", "npx", "npx", POL | PROG | SCRIPT },
	{ "apt", "apt", "apt", POL | PROG },
	{ "dpkg", "dpkg", "dpkg", POL | PROG },
	{ "gem", "gem", "gem", POL | PROG | VER },
	{ "cargo", "cargo", "cargo", POL | PROG },
	{ "go", "go", "go", POL | PROG | VER },
	{ "conda", "conda", "conda", POL | PROG },
	{ "pip3", "pip", "pip", POL | PROG },
	{ "uvx", "uv", "uvx", POL | PROG },
	{ "pnpx", "pnpm", "pnpx", POL | PROG | SCRIPT },
	{ "yarnpkg", "yarn", "yarn", POL | PROG },
	{ "apt-get", "apt", "apt", POL | PROG },
	{ "aptitude", "apt", "apt", POL | PROG },
	{ "mamba", "conda", "conda", POL | PROG },
	{ "micromamba", "conda", "conda", POL | PROG },
	{ "npm-cli.js", "npm", "npm", PROG | SCRIPT },
	{ "npx-cli.js", "npx", "npx", PROG | SCRIPT },
	{ "pnpm.cjs", "pnpm", "pnpm", PROG | SCRIPT },
	{ "pnpm.js", "pnpm", "pnpm", SCRIPT },
	{ "pnpx.cjs", "pnpm", "pnpx", SCRIPT },
	{ "yarn.js", "yarn", "yarn", PROG | SCRIPT },
	{ "yarn.cjs", "yarn", "yarn", SCRIPT },
};
#undef POL
#undef PROG
#undef SCRIPT
#undef VER

const struct policy_manager_alias *
policy_manager_alias(const char *name, unsigned as)
{
	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(policy_managers); i++) {
		const struct policy_manager_alias *a = &policy_managers[i];
		size_t n = strlen(a->name);

		if ((a->seen & as) == 0)
			continue;
		if (strcmp(a->name, name) == 0)
			return a;
		/* pip3.11, gem3.1, go1.22.0: a version after the name. */
		if (as == MANAGER_AS_PROGRAM && (a->seen & MANAGER_VERSIONED) &&
		    strncmp(a->name, name, n) == 0 &&
		    name[n + strspn(name + n, "0123456789.")] == '\0')
			return a;
	}
	return NULL;
}

const char *
policy_manager_name(const char *name)
{
	const struct policy_manager_alias *a =
	    policy_manager_alias(name, MANAGER_AS_POLICY);

	return a != NULL ? a->canonical : NULL;
}

const char *
policy_manager_names(void)
{
	static char names[128];

	if (names[0] == '\0') {
		size_t o = 0;

		for (size_t i = 0; i < ARRAY_SIZE(policy_managers); i++) {
			const struct policy_manager_alias *a =
			    &policy_managers[i];

			if (strcmp(a->name, a->canonical) != 0)
				continue;
			o += (size_t)snprintf(names + o, sizeof names - o, "%s%s",
			    o > 0 ? ", " : "", a->name);
		}
	}
	return names;
}

const struct policy_manager *
policy_manager_find(const struct policy *p, const char *name)
{
	const char *canon = policy_manager_name(name);

	if (p == NULL || canon == NULL)
		return NULL;
	for (size_t i = 0; i < p->n_managers; i++)
		if (strcmp(p->managers[i].name, canon) == 0)
			return &p->managers[i];
	return NULL;
}

/*
 * "manager:glob". The glob is matched against package names only (see
 * approvals/pkgrules.c), so it may hold any printable bytes but blanks;
 * a "*" manager is refused like a "*" host: name what you mean.
 */
static int
policy_pkg_pattern(const char *v, char ***list, size_t *n, char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *mgr = NULL;
	const char *colon = strchr(v, ':'), *canon;

	if (colon == NULL) {
		*why = xasprintf("%s is not manager:package (pip:requests, "
		    "npm:@types/*, apt:*)", q);
		return -EINVAL;
	}
	mgr = xstrndup(v, (size_t)(colon - v));
	if (strcmp(mgr, "*") == 0 || *mgr == '\0') {
		*why = xasprintf("%s: name the manager (one of %s); * stands "
		    "for packages, not managers", q, policy_manager_names());
		return -EINVAL;
	}
	if ((canon = policy_manager_name(mgr)) == NULL) {
		cleanup_free char *qm = policy_quote(mgr);

		*why = xasprintf("%s: %s is not a package manager (managers: "
		    "%s)", q, qm, policy_manager_names());
		return -EINVAL;
	}
	if (colon[1] == '\0') {
		*why = xasprintf("%s: no package after the colon (write %s:* for "
		    "every package)", q, canon);
		return -EINVAL;
	}
	for (const char *c = colon + 1; *c != '\0'; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			*why = xasprintf("%s: a control character in the package", q);
			return -EINVAL;
		}
	}
	strv_push(list, n, xasprintf("%s:%s", canon, colon + 1));
	return 0;
}

static int
policy_set_pkg_allow(struct policy *p, const char *v, char **why)
{
	return policy_pkg_pattern(v, &p->pkg_allow, &p->n_pkg_allow, why);
}

static int
policy_set_pkg_deny(struct policy *p, const char *v, char **why)
{
	return policy_pkg_pattern(v, &p->pkg_deny, &p->n_pkg_deny, why);
}

static int
policy_set_console_prefix(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int c;

	if (settings_prefix_parse(v, &c) < 0) {
		*why = xasprintf("%s names no control key (say ^] or C-a)", q);
		return -EINVAL;
	}
	free(p->console_prefix);
	p->console_prefix = xasprintf("^%c", c);
	return 0;
}

/* [console] notify_cmd and notify_after: the console's settings
 * (config/settings.h), checked here as settings_load() checks them. */
static int
policy_set_console_setting(const char *name, const char *v, char **why)
{
	return settings_value(NULL, name, v, why) < 0 ? -EINVAL : 0;
}

static int
policy_set_console_notify_cmd(struct policy *p, const char *v, char **why)
{
	(void)p;
	return policy_set_console_setting("notify_cmd", v, why);
}

static int
policy_set_console_notify_after(struct policy *p, const char *v, char **why)
{
	(void)p;
	return policy_set_console_setting("notify_after", v, why);
}

static struct policy_manager *
policy_manager_get(struct policy *p, const char *canon)
{
	struct policy_manager *m;

	for (size_t i = 0; i < p->n_managers; i++)
		if (strcmp(p->managers[i].name, canon) == 0)
			return &p->managers[i];
	p->managers = xreallocarray(p->managers, p->n_managers + 1,
	    sizeof *p->managers);
	m = &p->managers[p->n_managers++];
	*m = (struct policy_manager){ .name = xstrdup(canon) };
	return m;
}

/* [manager NAME] hosts: the first line replaces the built-in hosts of that
 * manager; "none" leaves it none. */
static int
policy_set_mgr_hosts(struct policy *p, const char *canon, const char *v,
    char **why)
{
	struct policy_manager *m = policy_manager_get(p, canon);
	struct policy_host h;
	int r;

	if (strcmp(v, "none") == 0)
		return 0;
	if ((r = policy_parse_host(v, &h, false, why)) < 0)
		return r;
	m->hosts = xreallocarray(m->hosts, m->n_hosts + 1, sizeof *m->hosts);
	m->hosts[m->n_hosts++] = h;
	return 0;
}

int
policy_host_parse(const char *v, struct policy_host *ret, char **why)
{
	return policy_parse_host(v, ret, false, why);
}

static const struct policy_key policy_keys[] = {
	{ "run", "timeout", false, policy_set_timeout, NULL },
	{ "run", "ask_timeout", false, policy_set_ask_timeout, NULL },
	{ "run", "memory", false, policy_set_memory, NULL },
	{ "run", "pids", false, policy_set_pids, NULL },
	{ "run", "cpu", false, policy_set_cpu, NULL },
	{ "run", "file_size", false, policy_set_file_size, NULL },
	{ "run", "open_files", false, policy_set_open_files, NULL },
	{ "run", "output_max", false, policy_set_output_max, NULL },
	{ "run", "env", true, policy_set_env, NULL },
	{ "record", "journal", false, policy_set_journal, NULL },
	{ "record", "syslog", false, policy_set_syslog, NULL },
	{ "files", "writable", true, policy_set_writable, NULL },
	{ "files", "hidden", true, policy_set_hidden, NULL },
	{ "files", "expose", true, policy_set_expose, NULL },
	{ "files", "allow", true, policy_set_allow, NULL },
	{ "files", "deny", true, policy_set_deny, NULL },
	{ "files", "write", false, policy_set_write, NULL },
	{ "files", "protect", true, policy_set_protect, NULL },
	{ "files", "project", true, policy_set_project, NULL },
	{ "network", "allow", true, policy_set_net_allow, NULL },
	{ "network", "never", true, policy_set_net_never, NULL },
	{ "network", "deny", true, policy_set_net_deny, NULL },
	{ "network", "connect", false, policy_set_connect, NULL },
	{ "network", "http", false, policy_set_http, NULL },
	{ "network", "upstream_ca", false, policy_set_upstream_ca, NULL },
	{ "review", "max_apply", false, policy_set_max_apply, NULL },
	{ "packages", "install", false, policy_set_install, NULL },
	{ "packages", "allow", true, policy_set_pkg_allow, NULL },
	{ "packages", "deny", true, policy_set_pkg_deny, NULL },
	{ "manager", "hosts", true, NULL, policy_set_mgr_hosts },
	{ "secret", "from", false, NULL, policy_set_secret_from },
	{ "secret", "hosts", true, NULL, policy_set_secret_hosts },
	{ "secret", "header", false, NULL, policy_set_secret_header },
	{ "console", "prefix", false, policy_set_console_prefix, NULL },
	{ "console", "notify_cmd", false, policy_set_console_notify_cmd, NULL },
	{ "console", "notify_after", false, policy_set_console_notify_after,
	    NULL },
};

/* ------------------------------------------------------------------ */
/* Structs */

void
policy_init(struct policy *p)
{
	*p = (struct policy){
		.timeout = 3600,
		.ask_timeout = 120,
		.memory = 0,
		.pids = 512,
		.output_max = 64ULL << 20,
		.journal = POLICY_JOURNAL_AUTO,
		.write = POLICY_ASK,
		.connect = POLICY_ASK,
		.http = POLICY_ASK,
		.install = POLICY_ASK,
		.max_apply = POLICY_MAX_APPLY,
	};
}

void
policy_done(struct policy *p)
{
	free(p->path);
	free(p->text);
	free(p->hash);
	strv_free(p->writable);
	strv_free(p->hidden);
	strv_free(p->expose);
	strv_free(p->project);
	strv_free(p->env);
	strv_free(p->allow);
	strv_free(p->deny);
	strv_free(p->protect);
	for (size_t i = 0; i < p->n_net_allow; i++) {
		free(p->net_allow[i].host);
		free(p->net_allow[i].reason);
		free(p->net_allow[i].method);
		free(p->net_allow[i].path);
	}
	free(p->net_allow);
	for (size_t i = 0; i < p->n_net_deny; i++) {
		free(p->net_deny[i].host);
		free(p->net_deny[i].reason);
	}
	free(p->net_deny);
	free(p->upstream_ca);
	for (size_t i = 0; i < p->n_secrets; i++) {
		struct policy_secret *sc = &p->secrets[i];

		free(sc->name);
		free(sc->from);
		for (size_t j = 0; j < sc->n_hosts; j++)
			free(sc->hosts[j].host);
		free(sc->hosts);
		free(sc->header);
		free(sc->header_value);
	}
	free(p->secrets);
	for (size_t i = 0; i < p->n_net_never; i++)
		free(p->net_never[i].host);
	free(p->net_never);
	strv_free(p->pkg_allow);
	strv_free(p->pkg_deny);
	for (size_t i = 0; i < p->n_managers; i++) {
		for (size_t j = 0; j < p->managers[i].n_hosts; j++)
			free(p->managers[i].hosts[j].host);
		free(p->managers[i].hosts);
		free(p->managers[i].name);
	}
	free(p->managers);
	free(p->console_prefix);
	policy_init(p);
}

/* ------------------------------------------------------------------ */
/* The parser */

/*
 * Is s (len bytes, as inih hands it on: not trimmed inside) a [manager NAME]
 * section? 0 no, 1 yes and *canon is the manager, -EINVAL yes but it names
 * no known manager (*why says so).
 */
static int
policy_manager_section(const char *s, size_t len, const char **canon,
    char **why)
{
	static const char word[] = "manager";
	cleanup_free char *name = NULL;
	size_t w = sizeof word - 1, b, rest;

	if (len < w || strncmp(s, word, w) != 0 ||
	    (len > w && s[w] != ' ' && s[w] != '\t'))
		return 0;
	b = w + strspn(s + w, " \t");
	if (b > len)
		b = len;
	name = xstrndup(s + b, len - b);
	name[strcspn(name, " \t")] = '\0';
	if (*name == '\0') {
		*why = xasprintf("[manager] names no manager (write [manager "
		    "pip]; managers: %s)", policy_manager_names());
		return -EINVAL;
	}
	rest = b + strlen(name);
	rest += strspn(s + rest, " \t");
	if (rest < len) {
		cleanup_free char *sec = xstrndup(s, len);
		cleanup_free char *qs = escape_str(sec);

		*why = xasprintf("[%s]: one manager per section", qs);
		return -EINVAL;
	}
	if ((*canon = policy_manager_name(name)) == NULL) {
		cleanup_free char *sec = xstrndup(s, len);
		cleanup_free char *qs = escape_str(sec);
		cleanup_free char *qn = policy_quote(name);

		*why = xasprintf("[%s]: %s is not a package manager (managers: "
		    "%s)", qs, qn, policy_manager_names());
		return -EINVAL;
	}
	return 1;
}

static const char *const ca_vars[] = {
	"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
	"CURL_CA_BUNDLE", "GIT_SSL_CAINFO", NULL,
};

const char *const *
policy_ca_vars(void)
{
	return ca_vars;
}

/*
 * Is s (len bytes, as inih hands it on) a [secret NAME] section? 0 no,
 * 1 yes and *name (malloc'd) is NAME, -EINVAL yes but NAME is not a
 * variable name (*why says so).
 */
static int
policy_secret_section(const char *s, size_t len, char **name, char **why)
{
	static const char word[] = "secret";
	cleanup_free char *sec = NULL, *qs = NULL, *n = NULL, *qn = NULL;
	size_t w = sizeof word - 1, b, rest;

	if (len < w || strncmp(s, word, w) != 0 ||
	    (len > w && s[w] != ' ' && s[w] != '\t'))
		return 0;
	sec = xstrndup(s, len);
	qs = escape_str(sec);
	b = w + strspn(sec + w, " \t");
	n = xstrdup(sec + b);
	n[strcspn(n, " \t")] = '\0';
	if (*n == '\0') {
		*why = xstrdup("[secret] names no variable (write [secret "
		    "ANTHROPIC_API_KEY]: the variable the sandbox sees)");
		return -EINVAL;
	}
	rest = b + strlen(n);
	if (sec[rest + strspn(sec + rest, " \t")] != '\0') {
		*why = xasprintf("[%s]: one variable per section", qs);
		return -EINVAL;
	}
	qn = policy_quote(n);
	if (!policy_is_var_name(n)) {
		*why = xasprintf("[%s]: %s is not a variable name (letters, "
		    "digits and _, not first a digit)", qs, qn);
		return -EINVAL;
	}
	if (strlen(n) > SECRET_NAME_MAX) {
		*why = xasprintf("[%s]: %s is longer than %d bytes", qs, qn,
		    SECRET_NAME_MAX);
		return -EINVAL;
	}
	for (const char *const *v = ca_vars; *v != NULL; v++)
		if (strcmp(n, *v) == 0) {
			*why = xasprintf("[%s]: ward sets %s in the sandbox "
			    "while a host is intercepted (to the run's CA "
			    "bundle)", qs, n);
			return -EINVAL;
		}
	*name = steal_ptr(&n);
	return 1;
}

static bool
policy_section_known(const char *s, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(policy_keys); i++) {
		if (strlen(policy_keys[i].section) == len &&
		    strncmp(policy_keys[i].section, s, len) == 0)
			return true;
	}
	return false;
}

static char *
policy_keys_of(const char *section)
{
	char *list = xstrdup("");

	for (size_t i = 0; i < ARRAY_SIZE(policy_keys); i++) {
		char *old = list;

		if (strcmp(policy_keys[i].section, section) != 0)
			continue;
		list = xasprintf("%s%s%s", old, *old ? ", " : "", policy_keys[i].name);
		free(old);
	}
	return list;
}

__attribute__((format(printf, 3, 4)))
static void
policy_fail(struct policy_parse *st, unsigned line, const char *fmt, ...)
{
	cleanup_free char *msg = NULL;
	va_list ap;

	if (st->cause != NULL)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	st->cause = xasprintf("%s:%u: %s", st->name, line, msg);
	st->err_line = line;
}

/*
 * The [secret NAME] read last is complete: from, hosts and header (at
 * its end: the next section header, or the end of the file). False
 * when not (the cause names the section's line and the key).
 */
static bool
policy_secret_end(struct policy_parse *st)
{
	const struct policy_secret *sc;
	unsigned line;
	const char *missing = NULL;

	if (!st->secret_open || st->cause != NULL)
		return st->cause == NULL;
	st->secret_open = false;
	sc = &st->p->secrets[st->p->n_secrets - 1];
	line = st->secret_line[st->p->n_secrets - 1];
	if (st->empty != NULL) {
		policy_fail(st, st->empty_line, "[%s] %s: empty value",
		    st->empty_sect, st->empty->name);
		return false;
	}
	if (sc->from == NULL)
		missing = "from: missing (where the value comes from: "
		    "env:NAME, file:PATH or command:CMDLINE)";
	else if (sc->n_hosts == 0)
		missing = "hosts: missing (where it may go: "
		    "api.example.com:443)";
	else if (sc->header == NULL)
		missing = "header: missing (where it goes in a request: "
		    "x-api-key: {}, or authorization: Bearer {})";
	if (missing != NULL) {
		policy_fail(st, line, "[secret %s] %s", sc->name, missing);
		return false;
	}
	return true;
}

/*
 * A section header at s (len bytes): 1 when it is a [secret NAME], then
 * the secret begins (its scalars not set yet), 0 when it is another
 * section, -EINVAL when NAME is no variable name or a second time.
 */
static int
policy_secret_begin(struct policy_parse *st, const char *s, size_t len)
{
	cleanup_free char *name = NULL, *why = NULL;
	struct policy *p = st->p;
	int m;

	if ((m = policy_secret_section(s, len, &name, &why)) <= 0) {
		if (m < 0)
			policy_fail(st, st->lineno, "%s", why);
		return m;
	}
	for (size_t i = 0; i < p->n_secrets; i++)
		if (strcmp(p->secrets[i].name, name) == 0) {
			policy_fail(st, st->lineno, "[secret %s]: a second "
			    "section for %s (the first is on line %u)", name,
			    name, st->secret_line[i]);
			return -EINVAL;
		}
	p->secrets = xreallocarray(p->secrets, p->n_secrets + 1,
	    sizeof *p->secrets);
	st->secret_line = xreallocarray(st->secret_line, p->n_secrets + 1,
	    sizeof *st->secret_line);
	st->secret_line[p->n_secrets] = st->lineno;
	p->secrets[p->n_secrets++] = (struct policy_secret){
		.name = steal_ptr(&name),
	};
	for (size_t i = 0; i < ARRAY_SIZE(policy_keys); i++)
		if (strcmp(policy_keys[i].section, "secret") == 0)
			st->set_on[i] = 0;
	st->secret_open = true;
	return 1;
}

/* A [secret]'s NAME is not also passed in from the host by [run] env:
 * the sandbox's NAME is the phantom. */
static void
policy_secret_not_env(struct policy_parse *st)
{
	const struct policy *p = st->p;

	for (size_t i = 0; i < p->n_secrets; i++)
		for (size_t j = 0; j < p->n_env; j++)
			if (strlen(p->secrets[i].name) ==
			    policy_env_name_len(p->env[j]) &&
			    strncmp(p->secrets[i].name, p->env[j],
			    policy_env_name_len(p->env[j])) == 0) {
				policy_fail(st, st->secret_line[i], "[secret "
				    "%s]: %s is a [secret]: the sandbox gets a "
				    "phantom; drop it from [run] env",
				    p->secrets[i].name, p->secrets[i].name);
				return;
			}
}

/*
 * The reader inih calls for each line, like fgets. Debian's libinih is
 * built without INI_HANDLER_LINENO, so counting lines here is how a message
 * can name the line of each handler call (inih handles one line per read).
 * It also refuses lines that do not fit inih's fixed buffer: inih would
 * silently cut them and parse the rest as a line of its own.
 */
static char *
policy_on_read(char *buf, int size, void *stream)
{
	struct policy_parse *st = stream;
	const char *s = st->next, *nl;
	size_t len;

	if (st->cause != NULL || *s == '\0')
		return NULL;
	nl = strchr(s, '\n');
	len = nl != NULL ? (size_t)(nl - s) + 1 : strlen(s);
	st->lineno++;
	if (len > (size_t)size - 1) {
		policy_fail(st, st->lineno, "line too long (over %d bytes): split "
		    "a list over indented lines", size - 2);
		return NULL;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	st->next = s + len;
	st->indented = *s == ' ' || *s == '\t';
	s += strspn(s, " \t");
	/* A section header, unless inih takes it as a continuation line.
	 * Headers of empty sections never reach the handler: check here. */
	if (*s == '[' && (!st->indented || st->prev == NULL)) {
		size_t n = strcspn(s + 1, "]\n");
		cleanup_free char *why = NULL;
		const char *canon;
		int m;

		st->prev = NULL;
		if (s[1 + n] != ']')
			return buf;
		if (!policy_secret_end(st))
			return NULL;
		if ((m = policy_manager_section(s + 1, n, &canon, &why)) < 0) {
			policy_fail(st, st->lineno, "%s", why);
			return NULL;
		}
		if (m == 0 && (m = policy_secret_begin(st, s + 1, n)) < 0)
			return NULL;
		if (m == 0 && !policy_section_known(s + 1, n)) {
			cleanup_free char *sec = xstrndup(s + 1, n);
			cleanup_free char *q = escape_str(sec);

			policy_fail(st, st->lineno, "unknown section [%s] (sections: "
			    "run, files, network, packages, manager NAME, secret NAME)", q);
			return NULL;
		}
	}
	return buf;
}

static int policy_list_items(struct policy_parse *, const struct policy_key *,
    const char *, const char *, unsigned, bool, const char *);

static int
policy_on_key(void *user, const char *section, const char *name,
    const char *value)
{
	struct policy_parse *st = user;
	const struct policy_key *k = NULL;
	cleanup_free char *why = NULL;
	cleanup_free char *comment_cut = NULL, *secret = NULL;
	cleanup_free char *qsec = escape_str(section);
	cleanup_free char *qname = escape_str(name);
	const char *tsec = section, *arg = NULL;
	unsigned line = st->lineno;
	size_t idx;
	bool cont;

	if (st->cause != NULL)
		return 0;
	/* [manager pip] holds the keys of "manager"; the reader refused
	 * a header naming no known manager before any key got here. */
	if (policy_manager_section(section, strlen(section), &arg, &why) > 0)
		tsec = "manager";
	else if (st->secret_open) {
		/* The [secret NAME] the reader began: inih hands on its
		 * section cut to 49 bytes, a long NAME's head. */
		tsec = "secret";
		arg = st->p->secrets[st->p->n_secrets - 1].name;
		secret = xasprintf("secret %s", arg);
		free(qsec);
		qsec = escape_str(secret);
	}
	free(steal_ptr(&why));
	/* inih hands an indented line on as one more value of the key above. */
	cont = st->indented && st->prev != NULL &&
	    strcmp(st->prev->section, tsec) == 0 &&
	    strcmp(st->prev->name, name) == 0;
	if (st->empty != NULL) {
		if (!cont) {
			policy_fail(st, st->empty_line, "[%s] %s: empty value",
			    st->empty_sect, st->empty->name);
			return 0;
		}
		st->empty = NULL;
	}
	if (*section == '\0') {
		policy_fail(st, line, "%s: outside a section (start with [run], "
		    "[files], [network] or [packages])", qname);
		return 0;
	}
	for (idx = 0; idx < ARRAY_SIZE(policy_keys); idx++) {
		if (strcmp(policy_keys[idx].section, tsec) == 0 &&
		    strcmp(policy_keys[idx].name, name) == 0) {
			k = &policy_keys[idx];
			break;
		}
	}
	if (k == NULL) {
		cleanup_free char *known = policy_keys_of(tsec);

		if (*known == '\0')
			policy_fail(st, line, "unknown section [%s] (sections: run, "
			    "files, network, packages, manager NAME, secret NAME)", qsec);
		else
			policy_fail(st, line, "[%s] unknown key \"%s\" (keys: %s)",
			    qsec, qname, known);
		return 0;
	}
	st->prev = k;

	if (!k->list) {
		if (cont) {
			policy_fail(st, line, "[%s] %s: takes one value (an indented "
			    "line continues the key above)", qsec, k->name);
			return 0;
		}
		if (*value == '\0') {
			policy_fail(st, line, "[%s] %s: empty value", qsec, k->name);
			return 0;
		}
		if (st->set_on[idx] != 0) {
			policy_fail(st, line, "[%s] %s: set twice (first on line %u)",
			    qsec, k->name, st->set_on[idx]);
			return 0;
		}
		st->set_on[idx] = line;
		if ((k->set_arg != NULL ? k->set_arg(st->p, arg, value, &why) :
		    k->set(st->p, value, &why)) < 0) {
			policy_fail(st, line, "[%s] %s: %s", qsec, k->name, why);
			return 0;
		}
		return 1;
	}

	if (*value == '\0') {
		/* "hidden =" then the items on indented lines below. */
		st->empty = k;
		st->empty_line = line;
		free(st->empty_sect);
		st->empty_sect = steal_ptr(&qsec);
		return 1;
	}
	/* inih 55 strips " ; comment" from key lines but not from indented
	 * ones; strip it here so that both read alike. */
	for (const char *c = value + 1; *c != '\0'; c++) {
		if (*c == ';' && (c[-1] == ' ' || c[-1] == '\t')) {
			value = comment_cut = xstrndup(value, (size_t)(c - value));
			break;
		}
	}
	/* [network] allow and deny: "(a reason)" at the end of a line goes
	 * with every host on it, shown wherever the entry is named. */
	if (k->set == policy_set_net_allow || k->set == policy_set_net_deny) {
		const char *open = strchr(value, '('), *close = strrchr(value, ')');
		bool deny = k->set == policy_set_net_deny;
		size_t *count = deny ? &st->p->n_net_deny : &st->p->n_net_allow;
		size_t before = *count;
		cleanup_free char *items = NULL, *reason = NULL;
		int r;

		if (open != NULL) {
			const char *rest = close != NULL ? close + 1 : NULL;

			if (close == NULL || close < open ||
			    rest[strspn(rest, " \t")] != '\0' || close == open + 1) {
				policy_fail(st, line, "[%s] %s: a reason is written "
				    "last on the line, in parentheses: (why)", qsec,
				    k->name);
				return 0;
			}
			items = xstrndup(value, (size_t)(open - value));
			reason = xstrndup(open + 1, (size_t)(close - open - 1));
			if ((r = policy_list_items(st, k, arg, items, line, cont,
			    qsec)) == 0)
				return 0;
			if (*count == before) {
				policy_fail(st, line, "[%s] %s: a reason with no "
				    "host before it", qsec, k->name);
				return 0;
			}
			for (size_t i = before; i < *count; i++)
				(deny ? st->p->net_deny : st->p->net_allow)[i].
				    reason = xstrdup(reason);
			return 1;
		}
	}
	return policy_list_items(st, k, arg, value, line, cont, qsec);
}

/* A [network] allow line: its items, which are hosts or one host and
 * its HTTP rule (policy_net_allow_items). */
static int
policy_net_allow_line(struct policy_parse *st, const struct policy_key *k,
    const char *value, unsigned line, bool cont, const char *qsec)
{
	cleanup_free char *why = NULL;
	char **tok = NULL;
	size_t n = 0;
	int r;

	for (const char *c = value; *c != '\0';) {
		size_t len;

		c += strspn(c, " \t");
		if ((len = strcspn(c, " \t")) == 0)
			break;
		strv_push(&tok, &n, xstrndup(c, len));
		c += len;
	}
	r = n > 0 ? policy_net_allow_items(st->p, tok, n, &why) : 0;
	strv_free(tok);
	if (r < 0) {
		policy_fail(st, line, "[%s] %s: %s%s", qsec, k->name, why,
		    cont ? "; an indented line continues the key above" : "");
		return 0;
	}
	return 1;
}

static int
policy_list_items(struct policy_parse *st, const struct policy_key *k,
    const char *arg, const char *value, unsigned line, bool cont,
    const char *qsec)
{
	cleanup_free char *why = NULL;

	if (k->set == policy_set_net_allow)
		return policy_net_allow_line(st, k, value, line, cont, qsec);
	for (const char *c = value; *c != '\0';) {
		cleanup_free char *item = NULL;
		size_t len;
		int r;

		c += strspn(c, " \t");
		if ((len = strcspn(c, " \t")) == 0)
			break;
		item = xstrndup(c, len);
		c += len;
		r = k->set_arg != NULL ? k->set_arg(st->p, arg, item, &why) :
		    k->set(st->p, item, &why);
		if (r < 0) {
			policy_fail(st, line, "[%s] %s: %s%s", qsec, k->name,
			    why, cont ? "; an indented line continues the key "
			    "above" : "");
			return 0;
		}
	}
	return 1;
}

static void
policy_syntax_error(struct policy_parse *st, unsigned line)
{
	const char *s = st->text;
	cleanup_free char *text = NULL;
	cleanup_free char *q = NULL;

	for (unsigned i = 1; i < line && s != NULL; i++) {
		if ((s = strchr(s, '\n')) != NULL)
			s++;
	}
	if (s == NULL)
		s = "";
	text = xstrndup(s, strcspn(s, "\r\n"));
	q = policy_quote(text);
	free(st->cause);
	st->cause = NULL;
	policy_fail(st, line, "cannot read %s (expected [section], key = value, "
	    "or a # comment)", q);
}

static int
policy_parse_text(struct policy *p, const char *text, const char *name,
    char **cause)
{
	unsigned set_on[ARRAY_SIZE(policy_keys)] = { 0 };
	struct policy_parse st = {
		.p = p,
		.name = name,
		.text = text,
		.next = text,
		.set_on = set_on,
	};
	int r;

	r = ini_parse_stream(policy_on_read, &st, policy_on_key, &st);
	if (r < 0) {
		free(st.cause);
		free(st.empty_sect);
		free(st.secret_line);
		return -ENOMEM;
	}
	/* inih reports the first line it could not parse, or the first our
	 * handler refused; a syntax error above ours comes first. */
	if (r > 0 && (st.cause == NULL || (unsigned)r < st.err_line))
		policy_syntax_error(&st, (unsigned)r);
	if (st.cause == NULL)
		(void)policy_secret_end(&st);
	if (st.cause == NULL && st.empty != NULL)
		policy_fail(&st, st.empty_line, "[%s] %s: empty value",
		    st.empty_sect, st.empty->name);
	if (st.cause == NULL)
		policy_secret_not_env(&st);
	free(st.empty_sect);
	free(st.secret_line);
	if (st.cause != NULL) {
		if (cause != NULL)
			*cause = st.cause;
		else
			free(st.cause);
		return -EINVAL;
	}
	return 0;
}

int
policy_load_string(struct policy *p, const char *text, const char *name,
    char **cause)
{
	int r;

	policy_init(p);
	if (name == NULL)
		name = "<string>";
	p->path = xstrdup(name);
	if ((r = policy_parse_text(p, text, name, cause)) < 0) {
		/* Leave the defaults, not half a policy. */
		policy_done(p);
		return r;
	}
	/* What was parsed is what the record hashes and the run keeps: the
	 * file is read once, and a change to it meanwhile cannot split them. */
	p->text_len = strlen(text);
	p->text = xstrdup(text);
	p->hash = policy_hash(p->text, p->text_len);
	return 0;
}

static int
policy_read_file(const char *path, char **ret, size_t *len)
{
	cleanup_fd int fd = -1;
	cleanup_free char *buf = NULL;
	size_t n = 0, cap = 4096;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return -errno;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t got;

		if (n > POLICY_MAX_SIZE)
			return -EFBIG;
		if (n + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	*len = n;
	*ret = steal_ptr(&buf);
	return 0;
}

int
policy_load(struct policy *p, const char *path, char **cause)
{
	cleanup_free char *text = NULL;
	const char *nul;
	size_t len = 0;
	int r;

	policy_init(p);
	if ((r = policy_read_file(path, &text, &len)) < 0) {
		if (cause != NULL)
			*cause = xasprintf("%s: cannot read: %s", path,
			    r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
		return r;
	}
	if ((nul = memchr(text, '\0', len)) != NULL) {
		unsigned line = 1;

		for (const char *c = text; c < nul; c++)
			line += *c == '\n';
		if (cause != NULL)
			*cause = xasprintf("%s:%u: a NUL byte: not a text file",
			    path, line);
		return -EINVAL;
	}
	return policy_load_string(p, text, path, cause);
}
