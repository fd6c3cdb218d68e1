/* SPDX-License-Identifier: MIT */
/*
 * tui/group.c: the pending list as the person reads it, from the table
 * tests/data/group.tsv (ranks, rows, globs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/util.h"
#include "tui/group.h"

#define GROUP_TSV	"tests/data/group.tsv"

struct list {
	struct group_in	 v[64];
	char		*subjects[64];
	char		*procs[64];
	size_t		 n;
	char		 name[64];
};

static enum request_kind
kind_of(const char *s, int lineno)
{
	enum request_kind k;

	if (request_kind_parse(s, &k) < 0)
		fail_msg("%s:%d: unknown kind %s", GROUP_TSV, lineno, s);
	return k;
}

static void
list_clear(struct list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->subjects[i]);
		free(l->procs[i]);
	}
	memset(l, 0, sizeof *l);
}

/* "2 0,1,3" (or the globs, "a|b") or "-" for the rows of l. */
static void
check_rows(struct list *l, const char *want, bool globs, int lineno)
{
	struct group_row *rows;
	size_t n = group_rows(l->v, l->n, &rows);
	char got[4096] = "";
	size_t at = 0;

	for (size_t r = 0; r < n; r++) {
		if (r > 0)
			at += (size_t)snprintf(got + at, sizeof got - at, "%s",
			    globs ? "|" : " ");
		if (globs) {
			at += (size_t)snprintf(got + at, sizeof got - at, "%s",
			    rows[r].glob);
			continue;
		}
		for (size_t k = 0; k < rows[r].n; k++)
			at += (size_t)snprintf(got + at, sizeof got - at,
			    "%s%zu", k > 0 ? "," : "", rows[r].idx[k]);
	}
	if (n == 0)
		snprintf(got, sizeof got, "-");
	if (strcmp(got, want) != 0)
		fail_msg("%s:%d: list %s: %s are \"%s\", want \"%s\"",
		    GROUP_TSV, lineno, l->name, globs ? "globs" : "rows", got,
		    want);
	for (size_t r = 0; r < n; r++)
		assert_int_equal(group_row_of(rows, n, rows[r].idx[0]),
		    (long)r);
	group_rows_free(rows, n);
}

static void
test_table(void **state)
{
	FILE *f = fopen(GROUP_TSV, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, checked = 0;
	struct list l = { .n = 0 };

	(void)state;
	if (f == NULL)
		fail_msg("%s: cannot open (run from the repository root)",
		    GROUP_TSV);
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *fld[5] = { 0 }, *save = NULL;
		size_t nf = 0;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		for (char *t = strtok_r(line, "\t", &save); t != NULL &&
		    nf < 5; t = strtok_r(NULL, "\t", &save))
			fld[nf++] = t;
		if (strcmp(fld[0], "rank") == 0 && nf == 4) {
			const char *why = NULL;
			enum group_rank r = group_sensitivity(kind_of(fld[1],
			    lineno), fld[2], &why);

			if (strcmp(group_rank_name(r), fld[3]) != 0)
				fail_msg("%s:%d: %s is %s, want %s", GROUP_TSV,
				    lineno, fld[2], group_rank_name(r), fld[3]);
			assert_non_null(why);
			assert_true((r == GROUP_BULK) == (*why == '\0'));
		} else if (strcmp(fld[0], "list") == 0 && nf == 2) {
			list_clear(&l);
			snprintf(l.name, sizeof l.name, "%s", fld[1]);
		} else if (strcmp(fld[0], "req") == 0 && nf == 4 &&
		    l.n < ARRAY_SIZE(l.v)) {
			l.subjects[l.n] = xstrdup(fld[3]);
			l.procs[l.n] = xstrdup(fld[2]);
			l.v[l.n] = (struct group_in){
				.kind = kind_of(fld[1], lineno),
				.process = l.procs[l.n], .subject = l.subjects[l.n],
			};
			l.n++;
		} else if ((strcmp(fld[0], "rows") == 0 ||
		    strcmp(fld[0], "globs") == 0) && nf == 2) {
			check_rows(&l, fld[1], fld[0][0] == 'g', lineno);
		} else {
			fail_msg("%s:%d: bad line", GROUP_TSV, lineno);
		}
		checked++;
	}
	list_clear(&l);
	free(line);
	fclose(f);
	assert_true(checked > 20);
}

/* 10,000 pending in 100 folders, and in 10,000: grouped in O(n log n). */
static void
test_many(void **state)
{
	size_t n = 10000;
	struct group_in *v = xcalloc(n, sizeof *v);
	char **s = xcalloc(n, sizeof *s);
	struct group_row *rows;
	size_t k;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		s[i] = xasprintf("/tmp/d%zu/f%zu", i % 100, i);
		v[i] = (struct group_in){ .kind = KIND_WRITE, .process = "make",
		    .subject = s[i] };
	}
	k = group_rows(v, n, &rows);
	assert_int_equal(k, 100);
	assert_int_equal(rows[0].n, 100);
	assert_string_equal(rows[0].glob, "/tmp/d0/*");
	group_rows_free(rows, k);
	/* and 10,000 folders of one file each: a row each */
	for (size_t i = 0; i < n; i++) {
		free(s[i]);
		s[i] = xasprintf("/tmp/d%zu/f", i);
		v[i].subject = s[i];
	}
	k = group_rows(v, n, &rows);
	assert_int_equal(k, n);
	assert_int_equal(rows[0].idx[0], 0);
	assert_int_equal(rows[n - 1].idx[0], n - 1);
	group_rows_free(rows, k);
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
	free(v);
}

/* group_rows_alike (every run's requests): the very same request is one
 * row whatever its rank but critical, and even below GROUP_MIN; the one
 * run console's group_rows keeps each such request apart. */
static void
test_alike(void **state)
{
	const struct group_in v[] = {
		{ KIND_PACKAGE, "pip install x", "pip install x; hosts p:80" },
		{ KIND_DNS, "job", "names.test" },
		{ KIND_WRITE, "job", "/home/u/.ssh/authorized_keys" },
		{ KIND_PACKAGE, "pip install x", "pip install x; hosts p:80" },
		{ KIND_DNS, "job", "names.test" },
		{ KIND_WRITE, "job", "/home/u/.ssh/authorized_keys" },
		{ KIND_DNS, "other", "names.test" },
		{ KIND_WRITE, "job", "/srv/o/a" },
		{ KIND_WRITE, "job", "/srv/o/a" },
		{ KIND_WRITE, "job", "/srv/o/b" },
	};
	size_t n = ARRAY_SIZE(v), k;
	struct group_row *rows;

	(void)state;
	k = group_rows_alike(v, n, &rows);
	/* critical x2, the install, names.test by job, by other, the two
	 * /srv/o/a, /srv/o/b */
	assert_int_equal(k, 7);
	assert_int_equal(rows[0].rank, GROUP_CRITICAL);
	assert_int_equal(rows[0].n, 1);
	assert_int_equal(rows[1].rank, GROUP_CRITICAL);
	assert_int_equal(rows[2].rank, GROUP_INSTALL);
	assert_int_equal(rows[2].n, 2);
	assert_string_equal(rows[2].glob, "pip install x; hosts p:80");
	assert_int_equal(rows[3].n, 2);
	assert_int_equal(rows[3].idx[0], 1);
	assert_int_equal(rows[3].idx[1], 4);
	assert_string_equal(rows[3].glob, "names.test");
	assert_int_equal(rows[4].n, 1);
	assert_int_equal(rows[4].idx[0], 6);
	assert_int_equal(rows[5].n, 2);
	assert_string_equal(rows[5].glob, "/srv/o/a");
	assert_int_equal(rows[6].n, 1);
	group_rows_free(rows, k);

	k = group_rows(v, n, &rows);
	assert_int_equal(k, n);
	group_rows_free(rows, k);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_alike),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
