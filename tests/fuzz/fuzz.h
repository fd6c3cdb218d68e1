/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What every harness under tests/fuzz/ shares: libFuzzer's entry point
 * (declared here for -Wmissing-prototypes) and fuzz_check(), a property
 * that must hold. A failed property aborts, which libFuzzer reports as a
 * crash and saves the input, like any ASan or UBSan finding.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int	LLVMFuzzerInitialize(int *argc, char ***argv);

#define fuzz_check(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: property failed: %s (errno %d)\n",\
		    __FILE__, __LINE__, #cond, errno);			\
		abort();						\
	}								\
} while (0)

/* The input as a C string: a copy up to its first NUL. */
static inline char *
fuzz_str(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t n = nul != NULL ? (size_t)(nul - data) : size;
	char *s = malloc(n + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, n);
	s[n] = '\0';
	return s;
}
