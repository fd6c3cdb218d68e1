/* SPDX-License-Identifier: MIT */
/*
 * approvals/kind.c: the table of request kinds, row for row against
 * tests/data/kind.tsv, and every kind with a row (a new value in enum
 * request_kind without one fails here, besides kind_info()'s switch).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/kind.h"
#include "approvals/request.h"
#include "tests/tsv.h"

#define KIND_TSV	"tests/data/kind.tsv"

struct kind_check {
	unsigned	 rows;
	unsigned	 bad;
};

static void
kind_field(const char *what, const char *got, const char *want, int line,
    unsigned *bad)
{
	if (strcmp(got, want) == 0)
		return;
	fprintf(stderr, "%s:%d: %s is \"%s\" in approvals/kind.c, \"%s\" "
	    "here\n", KIND_TSV, line, what, got, want);
	(*bad)++;
}

/* name label surface rank why place sentence plain */
static void
kind_row(char **f, size_t n, int line, void *arg)
{
	struct kind_check *c = arg;
	enum request_kind k = (enum request_kind)c->rows++;
	const struct kind_info *ki = kind_info(k);
	enum request_kind parsed;
	const char *rank;

	(void)n;
	if (ki->kind != k || strcmp(ki->name, "unknown") == 0) {
		fprintf(stderr, "%s:%d: kind %d (\"%s\" here) has no row in "
		    "approvals/kind.c\n", KIND_TSV, line, (int)k, f[0]);
		c->bad++;
		return;
	}
	kind_field("name", ki->name, f[0], line, &c->bad);
	kind_field("request_kind_name", request_kind_name(k), f[0], line,
	    &c->bad);
	if (request_kind_parse(f[0], &parsed) < 0 || parsed != k) {
		fprintf(stderr, "%s:%d: request_kind_parse(\"%s\") is not "
		    "kind %d\n", KIND_TSV, line, f[0], (int)k);
		c->bad++;
	}
	kind_field("label", ki->label, f[1], line, &c->bad);
	kind_field("surface", ki->surface == SURFACE_NONE ? "" :
	    kind_surface_name(ki->surface), f[2], line, &c->bad);
	rank = ki->by_path ? "by-path" : kind_rank_name(ki->rank);
	kind_field("rank", rank, f[3], line, &c->bad);
	kind_field("why", ki->why, f[4], line, &c->bad);
	if (ki->by_path && (ki->rank != GROUP_BULK || *ki->why != '\0')) {
		fprintf(stderr, "%s:%d: a rank by path has no rank or why of "
		    "its own\n", KIND_TSV, line);
		c->bad++;
	}
	kind_field("place", kind_place_name(ki->place), f[5], line, &c->bad);
	kind_field("sentence", kind_sentence_name(ki->sentence), f[6], line,
	    &c->bad);
	kind_field("plain", ki->plain != NULL ? ki->plain : "", f[7], line,
	    &c->bad);
	/* review/plain.c fills the one "%s" and copies the rest */
	if ((ki->sentence == SENTENCE_FORMAT) != (ki->plain != NULL) ||
	    (ki->plain != NULL && (strstr(ki->plain, "%s") == NULL ||
	    strchr(strstr(ki->plain, "%s") + 1, '%') != NULL ||
	    strchr(ki->plain, '%') != strstr(ki->plain, "%s")))) {
		fprintf(stderr, "%s:%d: plain: a format's sentence with one "
		    "%%s, and only a format's\n", KIND_TSV, line);
		c->bad++;
	}
}

static void
test_table(void **state)
{
	struct kind_check c = { 0 };

	(void)state;
	tsv_each(KIND_TSV, 8, kind_row, &c);
	assert_int_equal(c.bad, 0);
	/* every kind the table knows has its line, and nothing past them */
	assert_int_equal(c.rows, kind_count());
	assert_string_equal(kind_info((enum request_kind)c.rows)->name,
	    "unknown");
}

/* A kind off the wire that this build does not know says no more than
 * its subject. */
static void
test_unknown(void **state)
{
	const struct kind_info *u = kind_info((enum request_kind)-1);
	enum request_kind k;

	(void)state;
	assert_ptr_equal(u, kind_info((enum request_kind)1000));
	assert_string_equal(u->name, "unknown");
	assert_string_equal(u->label, "subject");
	assert_int_equal(u->surface, SURFACE_NONE);
	assert_int_equal(u->rank, GROUP_BULK);
	assert_int_equal(u->place, PLACE_WHOLE);
	assert_string_equal(request_kind_name((enum request_kind)1000),
	    "unknown");
	assert_int_equal(request_kind_parse("unknown", &k), -EINVAL);
	assert_int_equal(request_kind_parse(NULL, &k), -EINVAL);
	assert_string_equal(kind_surface_name(SURFACE_NONE), "unknown");
	assert_string_equal(kind_surface_word(SURFACE_NONE), "run");
	assert_string_equal(kind_surface_word(SURFACE_EXEC), "programs");
	assert_string_equal(kind_surface_word(SURFACE_SYSCALLS), "system");
	assert_string_equal(kind_rank_name((enum group_rank)99), "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
