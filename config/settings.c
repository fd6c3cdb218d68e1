/* SPDX-License-Identifier: MIT */
#include "config/settings.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"

struct settings_parse {
	struct settings	*s;
	char		*cause;		/* the first error, without the line */
};

int
settings_prefix_parse(const char *v, int *c)
{
	static const char *const heads[] = { "^", "C-", "Ctrl-", "Ctrl+" };

	for (size_t i = 0; i < ARRAY_SIZE(heads); i++) {
		size_t n = strlen(heads[i]);
		int k;

		if (strncasecmp(v, heads[i], n) != 0 || strlen(v) != n + 1)
			continue;
		k = v[n] >= 'a' && v[n] <= 'z' ? v[n] - 'a' + 'A' : v[n];
		if (k < '@' || k > '_')
			return -EINVAL;
		*c = k;
		return 0;
	}
	return -EINVAL;
}

int
settings_value(struct settings *s, const char *name, const char *value,
    char **why)
{
	cleanup_free char *qname = escape_str(name);

	if (strcmp(name, "notify_cmd") == 0) {
		if (s != NULL) {
			free(s->notify_cmd);
			s->notify_cmd = *value != '\0' ? xstrdup(value) : NULL;
		}
	} else if (strcmp(name, "notify_after") == 0) {
		char *end = NULL;
		unsigned long v;

		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno != 0 || end == value || *end != '\0' || v < 1 ||
		    v > 86400 || *value == '-') {
			cleanup_free char *q = escape_str(value);

			*why = xasprintf("\"%s\" is not a number of seconds "
			    "from 1 to 86400", q);
			return -EINVAL;
		}
		if (s != NULL)
			s->notify_after = (unsigned)v;
	} else if (strcmp(name, "prefix") == 0) {
		if (s != NULL) {
			free(s->prefix);
			s->prefix = xstrdup(value);
		}
	} else {
		*why = xasprintf("unknown key \"%s\" (keys: notify_cmd, "
		    "notify_after, prefix)", qname);
		return -ENOENT;
	}
	return 0;
}

static int
settings_on_key(void *user, const char *section, const char *name,
    const char *value)
{
	struct settings_parse *st = user;
	cleanup_free char *why = NULL;
	int r;

	if (strcmp(section, "console") != 0 || st->cause != NULL)
		return 1;	/* the policy's sections: not ours */
	if ((r = settings_value(st->s, name, value, &why)) < 0) {
		cleanup_free char *qname = escape_str(name);

		st->cause = r == -ENOENT ? xasprintf("[console] %s", why) :
		    xasprintf("[console] %s: %s", qname, why);
		return 0;
	}
	return 1;
}

int
settings_load(const char *path, struct settings *s, char **cause)
{
	struct settings_parse st = { .s = s };
	cleanup_free char *dir = NULL;
	cleanup_free char *file = NULL;
	FILE *f;
	int line;

	memset(s, 0, sizeof *s);
	s->notify_after = SETTINGS_NOTIFY_AFTER;
	if (path == NULL) {
		dir = paths_config_dir();
		file = xasprintf("%s/ward.ini", dir);
		path = file;
	}
	if ((f = fopen(path, "re")) == NULL) {
		int e = errno;

		if (e == ENOENT)
			return 0;
		if (cause != NULL) {
			cleanup_free char *q = escape_str(path);

			*cause = xasprintf("%s: %s", q, strerror(e));
		}
		return -e;
	}
	s->path = xstrdup(path);
	line = ini_parse_file(f, settings_on_key, &st);
	fclose(f);
	if (st.cause != NULL || line != 0) {
		if (cause != NULL) {
			cleanup_free char *q = escape_str(path);

			/* A syntax error elsewhere is the policy's to report
			 * (with its line); ours name theirs. */
			*cause = st.cause != NULL ?
			    xasprintf("%s:%d: %s", q, line, st.cause) : NULL;
		}
		if (st.cause != NULL) {
			free(st.cause);
			return -EINVAL;
		}
	}
	return 0;
}

void
settings_done(struct settings *s)
{
	free(s->path);
	free(s->notify_cmd);
	free(s->prefix);
	memset(s, 0, sizeof *s);
}
