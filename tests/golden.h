/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Golden files for the tests: golden(NAME, TEXT) compares TEXT with
 * tests/golden/NAME.txt and fails at the first line that differs, showing
 * both; UPDATE_GOLDEN=1 rewrites the file instead (then read its diff).
 * Run from the repository root. Include after cmocka.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/util.h"

static inline char *
golden_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = xmalloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static inline void
golden(const char *name, const char *text)
{
	cleanup_free char *path = xasprintf("tests/golden/%s.txt", name);
	cleanup_free char *want = NULL;
	const char *update = getenv("UPDATE_GOLDEN");

	if (update != NULL && strcmp(update, "1") == 0) {
		FILE *f = fopen(path, "wb");

		assert_non_null(f);
		fputs(text, f);
		assert_int_equal(fclose(f), 0);
		return;
	}
	want = golden_slurp(path);
	if (want == NULL)
		fail_msg("%s: missing; run with UPDATE_GOLDEN=1 from the "
		    "repository root", path);
	if (strcmp(want, text) != 0) {
		const char *a = want, *b = text;
		int line = 1;

		while (*a != '\0' && *b != '\0') {
			const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
			size_t la = ea ? (size_t)(ea - a) : strlen(a);
			size_t lb = eb ? (size_t)(eb - b) : strlen(b);

			if (la != lb || memcmp(a, b, la) != 0) {
				print_error("%s:%d:\n  want |%.*s|\n  got  |%.*s|\n",
				    path, line, (int)la, a, (int)lb, b);
				break;
			}
			a += la + (ea != NULL);
			b += lb + (eb != NULL);
			line++;
		}
		print_error("--- got:\n%s", text);
		fail_msg("%s differs (UPDATE_GOLDEN=1 rewrites it)", path);
	}
}
