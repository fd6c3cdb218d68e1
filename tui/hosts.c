/* SPDX-License-Identifier: MIT */
#include "tui/hosts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/paths.h"
#include "config/util.h"

/* A hosts file is a short list; one bigger than this is not one. */
#define HOSTS_FILE_MAX	(256 * 1024)

bool
hosts_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 255 || name[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c <= ' ' || c == 0x7f)
			return false;
	}
	return true;
}

int
hosts_add(const char *host, char ***hosts, size_t *n, char **cause)
{
	if (!hosts_valid(host)) {
		set_cause(cause, "\"%s\" is not a host ssh takes (empty, a "
		    "space in it, or '-' first)", host);
		return -EINVAL;
	}
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*hosts)[i], host) == 0)
			return 0;
	}
	strv_push(hosts, n, xstrdup(host));
	return 0;
}

int
hosts_parse(const char *text, char ***hosts, size_t *n, char **cause)
{
	unsigned line = 0;

	for (const char *p = text; *p != '\0';) {
		size_t len = strcspn(p, "\n"), a, b;
		cleanup_free char *word = NULL;
		const char *hash;

		line++;
		b = len;
		if ((hash = memchr(p, '#', len)) != NULL)
			b = (size_t)(hash - p);
		a = 0;
		while (a < b && (p[a] == ' ' || p[a] == '\t' || p[a] == '\r'))
			a++;
		while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t' ||
		    p[b - 1] == '\r'))
			b--;
		if (b > a) {
			cleanup_free char *why = NULL;

			word = xstrndup(p + a, b - a);
			if (hosts_add(word, hosts, n, &why) < 0) {
				set_cause(cause, "line %u: %s", line, why);
				return -EINVAL;
			}
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	return 0;
}

int
hosts_load(const char *path, char ***hosts, size_t *n, char **cause)
{
	cleanup_free char *dir = NULL, *own = NULL, *buf = NULL;
	cleanup_free char *why = NULL;
	size_t got = 0;
	int r;

	if (path == NULL) {
		dir = paths_config_dir();
		path = own = xasprintf("%s/hosts", dir);
	}
	if ((r = read_file_max(path, HOSTS_FILE_MAX, &buf, &got, NULL)) < 0) {
		if (r == -ENOENT)
			return 0;
		set_cause(cause, "%s: %s", path, strerror(-r));
		return r;
	}
	if (memchr(buf, '\0', got) != NULL) {
		set_cause(cause, "%s: not a text file", path);
		return -EINVAL;
	}
	if ((r = hosts_parse(buf, hosts, n, &why)) < 0)
		set_cause(cause, "%s: %s", path, why);
	return r;
}

int64_t
hosts_backoff(int64_t delay_ms)
{
	if (delay_ms <= 0)
		return HOSTS_BACKOFF_FIRST_MS;
	return delay_ms >= HOSTS_BACKOFF_MAX_MS / 2 ? HOSTS_BACKOFF_MAX_MS :
	    delay_ms * 2;
}
