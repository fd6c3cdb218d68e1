/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The battery's shared pieces: what every run gets in its policy copy,
 * a growing text buffer, and small string helpers.
 */
#include <stdbool.h>
#include <stddef.h>

/* What the harness overrides in the policy copies. */
#define PROBE_ASK_TIMEOUT	5	/* s; should our deny ever not arrive */
#define PROBE_GUARD		20	/* s; wall clock of every other run */
#define PROBE_PIDS		64
#define PROBE_MEMORY		"256M"
#define PROBE_MEMORY_BYTES	(256ULL << 20)
#define PROBE_CLOCK		2	/* s */

/* A growing text: p is NUL-terminated once anything was added. */
struct probe_buf {
	char		*p;
	size_t		 len, cap;
};

void	probe_buf_add(struct probe_buf *b, const void *p, size_t n);
void	probe_buf_str(struct probe_buf *b, const char *s);
/* Add s to a sep-separated list unless it is there already. */
void	probe_list_add(struct probe_buf *b, const char *s, const char *sep);
/* Is path dir or beneath it? */
bool	probe_under(const char *path, const char *dir);
/* xstrdup, NULL for NULL. */
char	*probe_dup(const char *s);
/* Both set and equal. */
bool	probe_streq(const char *a, const char *b);
