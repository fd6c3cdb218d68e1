/* SPDX-License-Identifier: MIT */
#include "tui/group.h"

#include <stdlib.h>
#include <string.h>

#include "approvals/kind.h"
#include "config/util.h"

/* A shell's or a login's start-up files, by their last component. */
static const char *const group_rc_files[] = {
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout",
	".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
	".kshrc", ".cshrc", ".tcshrc", ".login", ".xprofile",
	".xinitrc", "config.fish",
};

/* Folders people's own files live under. */
static const char *const group_homes[] = {
	"/home/", "/root/", "/Users/", "/var/home/",
};

static const char *
group_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* Whether a component of path (after the first slash) starts with a dot
 * and is not "." or "..". */
static bool
group_has_dot_part(const char *path)
{
	for (const char *p = path; (p = strchr(p, '/')) != NULL; p++)
		if (p[1] == '.' && p[2] != '\0' && p[2] != '/' &&
		    !(p[2] == '.' && (p[3] == '\0' || p[3] == '/')))
			return true;
	return false;
}

static enum group_rank
group_write_rank(const char *path, const char **why)
{
	const char *base = group_base(path);

	if (strcmp(base, "authorized_keys") == 0 ||
	    strcmp(base, "authorized_keys2") == 0) {
		*why = "ssh authorized_keys";
		return GROUP_CRITICAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(group_rc_files); i++)
		if (strcmp(base, group_rc_files[i]) == 0) {
			*why = "shell start-up file";
			return GROUP_CRITICAL;
		}
	if (str_has_prefix(path, "/etc/") || strcmp(path, "/etc") == 0) {
		*why = "system configuration (/etc)";
		return GROUP_CRITICAL;
	}
	if (group_has_dot_part(path)) {
		*why = "dot-file";
		return GROUP_HOME;
	}
	for (size_t i = 0; i < ARRAY_SIZE(group_homes); i++)
		if (strncmp(path, group_homes[i], strlen(group_homes[i])) == 0) {
			*why = "a home folder";
			return GROUP_HOME;
		}
	return GROUP_BULK;
}

enum group_rank
group_sensitivity(enum request_kind kind, const char *subject,
    const char **why)
{
	const struct kind_info *k = kind_info(kind);
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	*why = "";
	if (k->by_path)
		return group_write_rank(subject, why);
	*why = k->why;
	return k->rank;
}

const char *
group_rank_name(enum group_rank r)
{
	return kind_rank_name(r);
}

/*
 * Where a request is, for grouping (malloc'd): a write's folder, a
 * connect's or lookup's host ("name (addr):port" -> name), an install's
 * manager (its first word).
 */
static char *
group_place(const struct group_in *p)
{
	const char *s = p->subject, *e;

	switch (kind_info(p->kind)->place) {
	case PLACE_FOLDER:
		e = strrchr(s, '/');
		return e != NULL && e != s ? xstrndup(s, (size_t)(e - s)) :
		    xstrdup("/");
	case PLACE_HOST:
		if ((e = strchr(s, ' ')) == NULL)
			e = strrchr(s, ':');
		return e != NULL ? xstrndup(s, (size_t)(e - s)) : xstrdup(s);
	case PLACE_WORD:
		e = strchr(s, ' ');
		return e != NULL ? xstrndup(s, (size_t)(e - s)) : xstrdup(s);
	case PLACE_WHOLE:
		break;
	}
	return xstrdup(s);
}

static char *
group_glob(const struct group_in *p, const char *place)
{
	switch (kind_info(p->kind)->place) {
	case PLACE_FOLDER:
		return xasprintf("%s/*", strcmp(place, "/") == 0 ? "" : place);
	case PLACE_HOST:
		return xasprintf("%s:*", place);
	case PLACE_WORD:
		return xasprintf("%s *", place);
	case PLACE_WHOLE:
		break;
	}
	return xstrdup(place);
}

static bool
group_same(const struct group_in *a, const char *pa, const struct group_in *b,
    const char *pb)
{
	return a->kind == b->kind && strcmp(a->process, b->process) == 0 &&
	    strcmp(pa, pb) == 0;
}

static int
group_row_cmp(const void *x, const void *y)
{
	const struct group_row *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	return a->idx[0] < b->idx[0] ? -1 : a->idx[0] > b->idx[0];
}

/* Whether every request of row r asks the very same thing. */
static bool
group_row_same(const struct group_in *pending, const struct group_row *r)
{
	for (size_t k = 1; k < r->n; k++)
		if (strcmp(pending[r->idx[k]].subject,
		    pending[r->idx[0]].subject) != 0)
			return false;
	return true;
}

/* Groups smaller than GROUP_MIN become a row per request; a row of one
 * amounts to its own subject. alike keeps the very same requests of a
 * smaller group together (group_rows_alike). Returns the new count (at
 * most n). */
static size_t
group_split_small(const struct group_in *pending, struct group_row **rowsp,
    size_t n_rows, size_t n, bool alike)
{
	struct group_row *rows = *rowsp, *out = xcalloc(n + 1, sizeof *out);
	size_t n_out = 0;

	for (size_t r = 0; r < n_rows; r++) {
		if (rows[r].n >= GROUP_MIN || (alike && rows[r].n > 1 &&
		    group_row_same(pending, &rows[r]))) {
			if (rows[r].n < GROUP_MIN) {
				/* it amounts to that one subject */
				free(rows[r].glob);
				rows[r].glob = xstrdup(
				    pending[rows[r].idx[0]].subject);
			}
			out[n_out++] = rows[r];
			continue;
		}
		/* a row per subject: one request, or (alike) the very same
		 * ones, oldest first as they came */
		for (size_t k = 0; k < rows[r].n; k++) {
			const char *subj = pending[rows[r].idx[k]].subject;
			struct group_row *o = &out[n_out];
			bool done = false;

			for (size_t j = 0; j < k && alike && !done; j++)
				done = strcmp(pending[rows[r].idx[j]].subject,
				    subj) == 0;
			if (done)
				continue;
			*o = (struct group_row){ .rank = rows[r].rank,
			    .idx = xcalloc(rows[r].n, sizeof *o->idx),
			    .glob = xstrdup(subj) };
			o->idx[o->n++] = rows[r].idx[k];
			for (size_t j = k + 1; j < rows[r].n && alike; j++)
				if (strcmp(pending[rows[r].idx[j]].subject,
				    subj) == 0)
					o->idx[o->n++] = rows[r].idx[j];
			n_out++;
		}
		free(rows[r].idx);
		free(rows[r].glob);
	}
	free(rows);
	*rowsp = out;
	return n_out;
}

/* What a request is grouped by, sorted so that alike ones are adjacent. */
struct group_key {
	const struct group_in *p;
	char		*place;
	size_t		 i;
	enum group_rank	 rank;
	bool		 exact;		/* alike by its very subject */
};

/* Whether k may share a row with others at all. */
static bool
group_key_joins(const struct group_key *k)
{
	return k->rank == GROUP_BULK || k->exact;
}

static int
group_key_cmp(const void *x, const void *y)
{
	const struct group_key *a = x, *b = y;
	int c;

	/* the sensitive apart, each on its own */
	if (group_key_joins(a) != group_key_joins(b))
		return group_key_joins(a) ? -1 : 1;
	if (group_key_joins(a)) {
		if (a->exact != b->exact)
			return a->exact ? -1 : 1;
		if (a->p->kind != b->p->kind)
			return a->p->kind < b->p->kind ? -1 : 1;
		if ((c = strcmp(a->p->process, b->p->process)) != 0 ||
		    (c = strcmp(a->place, b->place)) != 0)
			return c;
	}
	return a->i < b->i ? -1 : a->i > b->i;
}

/*
 * Sorting by what requests are grouped by keeps this O(n log n): the
 * console redraws it every frame, with up to MSG_PENDING_MAX pending.
 */
static size_t
group_rows_mode(const struct group_in *pending, size_t n,
    struct group_row **ret, bool alike)
{
	struct group_key *k = xcalloc(n + 1, sizeof *k);
	struct group_row *rows = xcalloc(n + 1, sizeof *rows);
	size_t n_rows = 0;

	for (size_t i = 0; i < n; i++) {
		enum group_rank rank = group_sensitivity(pending[i].kind,
		    pending[i].subject, NULL);
		bool exact = alike && rank != GROUP_BULK &&
		    rank != GROUP_CRITICAL;

		k[i] = (struct group_key){ .p = &pending[i], .i = i,
		    .place = exact ? xstrdup(pending[i].subject) :
		    group_place(&pending[i]), .rank = rank, .exact = exact };
	}
	qsort(k, n, sizeof *k, group_key_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && group_key_joins(&k[i]) &&
		    group_key_joins(&k[j]) && k[i].exact == k[j].exact &&
		    group_same(k[i].p, k[i].place, k[j].p, k[j].place); j++)
			;
		rows[n_rows] = (struct group_row){
			.idx = xcalloc(j - i, sizeof *rows[n_rows].idx),
			.n = j - i, .rank = k[i].rank,
			.glob = k[i].exact ? xstrdup(k[i].place) :
			    group_glob(k[i].p, k[i].place),
		};
		for (size_t m = i; m < j; m++)
			rows[n_rows].idx[m - i] = k[m].i;
		n_rows++;
	}
	for (size_t i = 0; i < n; i++)
		free(k[i].place);
	free(k);
	n_rows = group_split_small(pending, &rows, n_rows, n, alike);
	if (n_rows > 1)
		qsort(rows, n_rows, sizeof *rows, group_row_cmp);
	if (n_rows == 0) {
		free(rows);
		rows = NULL;
	}
	*ret = rows;
	return n_rows;
}

size_t
group_rows(const struct group_in *pending, size_t n, struct group_row **ret)
{
	return group_rows_mode(pending, n, ret, false);
}

size_t
group_rows_alike(const struct group_in *pending, size_t n,
    struct group_row **ret)
{
	return group_rows_mode(pending, n, ret, true);
}

void
group_rows_free(struct group_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].idx);
		free(rows[i].glob);
	}
	free(rows);
}

long
group_row_of(const struct group_row *rows, size_t n_rows, size_t i)
{
	for (size_t r = 0; r < n_rows; r++)
		for (size_t k = 0; k < rows[r].n; k++)
			if (rows[r].idx[k] == i)
				return (long)r;
	return -1;
}
