/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * tests/data/hostile-paths.tsv, the request targets of issue 29 and what
 * the gate does with each (VERDICT, TARGET, WHY): read by test-httppath
 * (config/httppath.c alone) and test-gate-flow (a flow with the rule
 * GET "/ok/" "**"). hostile_target() decodes a TARGET: "\\" is a
 * backslash, "\xHH" a byte (malloc'd, NUL-terminated; no NUL among the
 * bytes).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/tsv.h"

#define HOSTILE_PATHS	"tests/data/hostile-paths.tsv"

static inline char *
hostile_target(const char *s)
{
	char *o = malloc(strlen(s) + 1), *p = o;

	if (o == NULL)
		abort();
	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] == '\\') {
			*p++ = '\\';
			s++;
		} else if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char hex[3] = { s[2], s[3], '\0' };

			*p++ = (char)strtoul(hex, NULL, 16);
			s += 3;
		} else
			*p++ = *s;
	}
	*p = '\0';
	return o;
}
