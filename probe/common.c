/* SPDX-License-Identifier: MIT */
/* The battery's buffer and string helpers. */
#include "probe/common.h"

#include <string.h>

#include "config/util.h"

void
probe_buf_add(struct probe_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
probe_buf_str(struct probe_buf *b, const char *s)
{
	probe_buf_add(b, s, strlen(s));
}

bool
probe_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Add s to a ", "-separated list unless it is there already. */
void
probe_list_add(struct probe_buf *b, const char *s, const char *sep)
{
	if (b->p != NULL) {
		size_t n = strlen(s);

		for (const char *q = b->p; (q = strstr(q, s)) != NULL; q++)
			if ((q == b->p || q[-1] == ' ') &&
			    (q[n] == '\0' || q[n] == ',' || q[n] == ' '))
				return;
	}
	if (b->len > 0)
		probe_buf_str(b, sep);
	probe_buf_str(b, s);
}

char *
probe_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

bool
probe_streq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}
