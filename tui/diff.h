/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * One staged change as a patch in git's format (`git apply` and
 * `patch -p1` take it: paths relative to the project root under a/ and
 * b/), hunks and binary detection by libgit2 (git_patch_from_buffers,
 * binary changes as "GIT binary patch" literals, with full blob ids so
 * that git apply can check them). The header (modes, renames, new and
 * deleted files) is written here from the change itself.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "approvals/changes.h"

/* Files over this are not shown: a "# ward: ... over the cap" line in
 * their place, which git apply and patch skip as commentary. */
#define DIFF_CAP	(8u << 20)

struct diff_stat {
	size_t		 added;		/* lines */
	size_t		 deleted;
	bool		 binary;
	bool		 capped;
};

/* prefix and name quoted as git quotes a path (core.quotePath: C-style
 * escapes in double quotes when a byte is a control, '"', '\\', DEL or
 * 0x80 and above), malloc'd. */
char	*diff_quote_path(const char *prefix, const char *name);

/* Writes c's patch to out. 0 or -errno with *cause. */
int	diff_patch(const struct changes_project *, const struct change *,
	    size_t cap, FILE *out, struct diff_stat *stat, char **cause);
