/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What a run left staged, counted from its run folder's projects
 * (approvals/changes.h) and said in one sentence (issue 30, point 1).
 * Shared by the supervisor's last line of a headless run and the
 * summary a person reviews (review/summary.h), so that both count and
 * say it alike. libgit2 is loaded only when some project's upper folder
 * holds a file.
 */
#include <stddef.h>
#include <stdint.h>

/*
 * Counts the files staged in the projects of the run folder run_dir into
 * *staged (a run without projects has 0) and, when there are some,
 * writes where they wait into in (len bytes), for a person: "~/proj"
 * (one folder), "2 projects", "~/proj and outside it". 0 or -errno with
 * *cause (*staged and in unchanged).
 */
int	staged_count(const char *run_dir, int64_t *staged, char *in,
	    size_t len, char **cause);

/*
 * The sentence, malloc'd: "2 files staged in ~/proj: `ward diff ID` to
 * read, `ward apply ID` to keep" (in "": "the run"); NULL when staged is
 * 0 or less (none, or not counted). The folder is the person's own
 * argument, but it is escaped (config/escape.h) all the same: the line
 * reaches a terminal.
 */
char	*staged_text(int64_t staged, const char *in, const char *run);
