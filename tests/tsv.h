/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The tests' table files (tests/data/NAME.tsv): one case a line, fields
 * between TABs, "-" for an empty field, '#' lines and blank lines skipped.
 * tsv_each() calls cb with each line's fields and its line number, and
 * fails the test on a line with fewer than min fields (a broken table
 * must not pass for a short one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TSV_MAX_FIELDS	16

static inline int
tsv_each(const char *path, size_t min,
    void (*cb)(char **f, size_t n, int line, void *), void *ctx)
{
	FILE *fp = fopen(path, "re");
	char *buf = NULL, *save, *t;
	size_t cap = 0, n, cases = 0;
	ssize_t len;
	int line = 0;

	if (fp == NULL) {
		fprintf(stderr, "%s: cannot open\n", path);
		abort();
	}
	while ((len = getline(&buf, &cap, fp)) >= 0) {
		char *f[TSV_MAX_FIELDS];

		line++;
		if (len > 0 && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (len == 0 || buf[0] == '#')
			continue;
		n = 0;
		for (t = strtok_r(buf, "\t", &save); t != NULL &&
		    n < TSV_MAX_FIELDS; t = strtok_r(NULL, "\t", &save))
			f[n++] = strcmp(t, "-") == 0 ? (char *)"" : t;
		if (n < min) {
			fprintf(stderr, "%s:%d: %zu fields, want %zu\n", path,
			    line, n, min);
			abort();
		}
		cb(f, n, line, ctx);
		cases++;
	}
	free(buf);
	fclose(fp);
	return (int)cases;
}
