/* SPDX-License-Identifier: MIT */
#include "approvals/staged.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approvals/changes.h"
#include "approvals/gitapi.h"
#include "config/escape.h"
#include "config/util.h"

/* A host folder as the person knows it: ~/ for their home. */
static void
staged_home(const char *path, char *buf, size_t len)
{
	const char *home = getenv("HOME");
	size_t h = home != NULL ? strlen(home) : 0;

	if (h > 1 && strncmp(path, home, h) == 0 &&
	    (path[h] == '/' || path[h] == '\0'))
		snprintf(buf, len, "~%s", path + h);
	else
		snprintf(buf, len, "%s", path);
}

/* Where the staged files wait: the one project that has some, else how
 * many; "outside" for writes outside answered "stage". */
static void
staged_where(const struct changes_run *cr, char *buf, size_t len)
{
	const struct changes_project *one = NULL;
	size_t projects = 0;
	bool outside = false;
	char home[128];

	buf[0] = '\0';
	for (size_t i = 0; i < cr->n; i++) {
		if (cr->p[i].n == 0)
			continue;
		if (cr->p[i].outside) {
			outside = true;
			continue;
		}
		projects++;
		one = &cr->p[i];
	}
	if (projects == 1)
		staged_home(one->host, home, sizeof home);
	else
		snprintf(home, sizeof home, "%zu projects", projects);
	if (projects > 0 && outside)
		snprintf(buf, len, "%s and outside %s", home,
		    projects == 1 ? "it" : "them");
	else if (projects > 0)
		snprintf(buf, len, "%s", home);
	else if (outside)
		snprintf(buf, len, "the run (writes outside the projects)");
}

/* Whether no project's upper folder holds anything (a folder that
 * cannot be read counts as not empty: the scan then says why). */
static bool
staged_uppers_empty(const struct changes_run *cr)
{
	for (size_t i = 0; i < cr->n; i++) {
		DIR *d = opendir(cr->p[i].upper);
		struct dirent *e;
		bool empty = true;

		if (d == NULL)
			return errno == ENOENT;
		while (empty && (e = readdir(d)) != NULL)
			empty = strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0;
		closedir(d);
		if (!empty)
			return false;
	}
	return true;
}

int
staged_count(const char *run_dir, int64_t *staged, char *in, size_t len,
    char **cause)
{
	struct changes_run cr;
	int64_t n = 0;
	int r;

	if ((r = changes_open(run_dir, &cr, cause)) == -ENOENT) {
		if (cause != NULL) {
			free(*cause);
			*cause = NULL;
		}
		*staged = 0;
		return 0;
	}
	if (r < 0)
		return r;
	/* Nothing written: no libgit2 to load (its dlopen cost a headless
	 * run's end 10 ms, measured, for every run with a project). */
	if (staged_uppers_empty(&cr)) {
		changes_done(&cr);
		*staged = 0;
		return 0;
	}
	/* Telling a binary file needs libgit2; a scan without it fails. */
	if ((r = gitapi_load(cause)) < 0 || (r = changes_scan(&cr, cause)) < 0) {
		changes_done(&cr);
		return r;
	}
	for (size_t i = 0; i < cr.n; i++)
		n += (int64_t)cr.p[i].n;
	staged_where(&cr, in, len);
	changes_done(&cr);
	*staged = n;
	return 0;
}

char *
staged_text(int64_t staged, const char *in, const char *run)
{
	cleanup_free char *where = NULL;

	if (staged <= 0)
		return NULL;
	where = escape_str(in[0] != '\0' ? in : "the run");
	return xasprintf("%lld file%s staged in %s: `ward diff %s` to read, "
	    "`ward apply %s` to keep", (long long)staged,
	    staged == 1 ? "" : "s", where, run, run);
}
