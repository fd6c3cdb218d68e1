/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Paths as the kernel would resolve them inside the sandbox's root: made
 * absolute and collapsed without touching the file system, compared, and
 * canonicalised through the root's own symlinks (never out of it).
 * Checked row by row against openat2(RESOLVE_IN_ROOT) in
 * tests/test-sup-path.c.
 */
#include <stdbool.h>
#include <stddef.h>

/* Make path absolute against base and collapse "//", "." and "..",
 * without touching the file system. 0 or -ENAMETOOLONG. */
int	path_normalize(const char *base, const char *path, char *out,
	    size_t size);
/* Is path dir itself or beneath it? Both normalised. */
bool	path_under(const char *path, const char *dir);
/*
 * Canonicalise abs (normalised) inside the root rootfd: symlinks are
 * followed as the kernel would inside that root (never out of it), the
 * last one only if follow_last. Components that do not exist are kept
 * as written. 0 or -ELOOP / -ENAMETOOLONG / -errno.
 */
int	path_resolve(int rootfd, const char *abs, bool follow_last, char *out,
	    size_t size);
