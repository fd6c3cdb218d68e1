/* SPDX-License-Identifier: MIT */
/*
 * approvals/rules.c: the evaluation order and glob semantics, driven by the
 * table in tests/data/rules.tsv (one cmocka test per case there), plus the
 * parts a table does not show.
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

#include "approvals/rules.h"
#include "config/util.h"

#define RULES_TSV	"tests/data/rules.tsv"

struct tsv_line {
	int		 lineno;
	char	       **f;	/* fields, "-" already turned into NULL */
	size_t		 n;
};

struct tsv_case {
	char		*name;
	struct tsv_line	*lines;
	size_t		 n;
};

static struct tsv_case *cases;
static size_t n_cases;

static void
tsv_split(char *s, struct tsv_line *l)
{
	char *tok, *save = NULL;

	l->f = NULL;
	l->n = 0;
	for (tok = strtok_r(s, "\t", &save); tok != NULL;
	    tok = strtok_r(NULL, "\t", &save))
		strv_push(&l->f, &l->n, strcmp(tok, "-") == 0 ? NULL :
		    xstrdup(tok));
}

static void
tsv_load(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0;

	if (f == NULL)
		fatal("%s: %m (run the tests from the repository root)", path);
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct tsv_line l;
		struct tsv_case *c;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		tsv_split(line, &l);
		l.lineno = lineno;
		if (l.n == 2 && l.f[0] != NULL && strcmp(l.f[0], "case") == 0 &&
		    l.f[1] != NULL) {
			cases = xreallocarray(cases, n_cases + 1, sizeof *cases);
			c = &cases[n_cases++];
			c->name = xstrdup(l.f[1]);
			c->lines = NULL;
			c->n = 0;
			for (size_t i = 0; i < l.n; i++)
				free(l.f[i]);
			free(l.f);
			continue;
		}
		if (n_cases == 0)
			fatal("%s:%d: a \"case\" line must come first", path,
			    lineno);
		c = &cases[n_cases - 1];
		c->lines = xreallocarray(c->lines, c->n + 1, sizeof *c->lines);
		c->lines[c->n++] = l;
	}
	free(line);
	fclose(f);
}

static void
tsv_free(void)
{
	for (size_t i = 0; i < n_cases; i++) {
		for (size_t j = 0; j < cases[i].n; j++) {
			for (size_t k = 0; k < cases[i].lines[j].n; k++)
				free(cases[i].lines[j].f[k]);
			free(cases[i].lines[j].f);
		}
		free(cases[i].lines);
		free(cases[i].name);
	}
	free(cases);
}

/* A table line that does not parse fails its case, naming the line. */
#define tsv_check(cond, l, ...) do {					\
	if (!(cond)) {							\
		print_error("%s:%d: ", RULES_TSV, (l)->lineno);		\
		print_error(__VA_ARGS__);				\
		print_error("\n");					\
		fail();							\
	}								\
} while (0)

static void
tsv_rule(struct rules *rs, const struct tsv_line *l)
{
	enum request_kind kind;
	enum verdict v;
	enum rule_origin origin = RULE_POLICY;

	tsv_check(l->n == 5 && l->f[1] && l->f[2] && l->f[3] && l->f[4], l,
	    "rule wants KIND PATTERN VERDICT ORIGIN");
	tsv_check(request_kind_parse(l->f[1], &kind) == 0, l, "bad kind %s",
	    l->f[1]);
	tsv_check(verdict_parse(l->f[3], &v) == 0, l, "bad verdict %s",
	    l->f[3]);
	if (strcmp(l->f[4], "run") == 0)
		origin = RULE_RUN;
	else
		tsv_check(strcmp(l->f[4], "policy") == 0, l, "bad origin %s",
		    l->f[4]);
	rules_add(rs, kind, l->f[2], v, origin);
}

static void
tsv_query(const struct rules *rs, const struct tsv_line *l)
{
	enum request_kind kind;
	enum verdict want, got;
	const struct rule *matched = (const void *)1;
	cleanup_free char *desc = NULL;

	tsv_check(l->n == 6 && l->f[1] && l->f[2] && l->f[4], l,
	    "query wants KIND SUBJECT SUBJECT2 EXPECT RULE");
	tsv_check(request_kind_parse(l->f[1], &kind) == 0, l, "bad kind %s",
	    l->f[1]);
	tsv_check(verdict_parse(l->f[4], &want) == 0, l, "bad verdict %s",
	    l->f[4]);
	got = rules_match(rs, kind, l->f[2], l->f[3], &matched);
	if (matched != NULL)
		desc = rule_describe(matched);
	tsv_check(got == want, l, "%s %s%s%s: got %s, want %s", l->f[1],
	    l->f[2], l->f[3] ? " " : "", l->f[3] ? l->f[3] : "",
	    verdict_name(got), verdict_name(want));
	if (l->f[5] == NULL)
		tsv_check(matched == NULL, l, "%s: matched \"%s\", want none",
		    l->f[2], desc);
	else
		tsv_check(desc != NULL && strcmp(desc, l->f[5]) == 0, l,
		    "%s: matched \"%s\", want \"%s\"", l->f[2],
		    desc ? desc : "(none)", l->f[5]);
	/* the verdict does not depend on asking for the rule */
	assert_int_equal(rules_match(rs, kind, l->f[2], l->f[3], NULL), got);
}

static void
test_table_case(void **state)
{
	const struct tsv_case *c = *state;
	struct rules *rs = rules_new();

	for (size_t i = 0; i < c->n; i++) {
		const struct tsv_line *l = &c->lines[i];

		if (l->f[0] != NULL && strcmp(l->f[0], "rule") == 0)
			tsv_rule(rs, l);
		else if (l->f[0] != NULL && strcmp(l->f[0], "query") == 0)
			tsv_query(rs, l);
		else
			tsv_check(false, l, "unknown line type %s",
			    l->f[0] ? l->f[0] : "-");
	}
	rules_free(rs);
}

static void
test_describe(void **state)
{
	struct rule r = {
		.kind = KIND_WRITE,
		.pattern = (char *)"/etc/ward-*",
		.verdict = VERDICT_ALLOW,
		.origin = RULE_POLICY,
	};
	char *s;

	(void)state;
	s = rule_describe(&r);
	assert_string_equal(s, "allow write /etc/ward-* (policy)");
	free(s);
	r.kind = KIND_CONNECT;
	r.pattern = (char *)"pypi.org:443";
	r.verdict = VERDICT_DENY;
	r.origin = RULE_RUN;
	s = rule_describe(&r);
	assert_string_equal(s, "deny connect pypi.org:443 (run)");
	free(s);
	assert_string_equal(rule_origin_name(RULE_POLICY), "policy");
	assert_string_equal(rule_origin_name(RULE_RUN), "run");
}

static void
test_add_policy(void **state)
{
	char *allow[] = { (char *)"/etc/ward-*", (char *)"/srv/**" };
	char *deny[] = { (char *)"/srv/secret/**" };
	struct policy p;
	struct rules *rs = rules_new();
	const struct rule *m = NULL;

	(void)state;
	memset(&p, 0, sizeof p);
	p.allow = allow;
	p.n_allow = ARRAY_SIZE(allow);
	p.deny = deny;
	p.n_deny = ARRAY_SIZE(deny);
	rules_add_policy(rs, &p);
	assert_int_equal(rules_count(rs), 3);
	assert_int_equal(rules_match(rs, KIND_WRITE, "/srv/secret/k", NULL,
	    &m), VERDICT_DENY);
	assert_string_equal(m->pattern, "/srv/secret/**");
	assert_int_equal(m->origin, RULE_POLICY);
	assert_int_equal(m->kind, KIND_WRITE);
	assert_int_equal(rules_match(rs, KIND_WRITE, "/etc/ward-1", NULL, &m),
	    VERDICT_ALLOW);
	assert_string_equal(m->pattern, "/etc/ward-*");
	/* the patterns are copied */
	allow[0] = (char *)"/nothing";
	assert_int_equal(rules_match(rs, KIND_WRITE, "/etc/ward-1", NULL, &m),
	    VERDICT_ALLOW);
	/* [files] rules are write rules only */
	assert_int_equal(rules_match(rs, KIND_CONNECT, "/etc/ward-1", NULL,
	    &m), VERDICT_NONE);
	assert_null(m);
	rules_free(rs);
	rules_free(NULL);
}

/* What rules_match hands out stays valid while rules are added. */
static void
test_matched_stays_valid(void **state)
{
	struct rules *rs = rules_new();
	const struct rule *m = NULL;

	(void)state;
	rules_add(rs, KIND_WRITE, "/keep/**", VERDICT_ALLOW, RULE_RUN);
	assert_int_equal(rules_match(rs, KIND_WRITE, "/keep/x", NULL, &m),
	    VERDICT_ALLOW);
	for (int i = 0; i < 1000; i++) {
		char *pat = xasprintf("/other/%d", i);

		rules_add(rs, KIND_WRITE, pat, VERDICT_DENY, RULE_RUN);
		free(pat);
	}
	assert_int_equal(rules_count(rs), 1001);
	assert_string_equal(m->pattern, "/keep/**");
	assert_int_equal(rules_match(rs, KIND_WRITE, "/other/999", NULL, &m),
	    VERDICT_DENY);
	assert_string_equal(m->pattern, "/other/999");
	rules_free(rs);
}

static void
test_glob(void **state)
{
	(void)state;
	assert_true(rules_glob("/a/*", "/a/b/c"));
	assert_true(rules_glob("/a/**", "/a"));
	assert_true(rules_glob("/a/**", "/a/b"));
	assert_false(rules_glob("/a/**", "/ab"));
	assert_false(rules_glob("/a/*", "/a"));
	assert_true(rules_glob("**", "/x"));
	assert_false(rules_glob("/a/b", "/a/b/"));
}

int
main(void)
{
	const struct CMUnitTest unit[] = {
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_add_policy),
		cmocka_unit_test(test_matched_stays_valid),
		cmocka_unit_test(test_glob),
	};
	struct CMUnitTest *table;
	int fails;

	tsv_load(RULES_TSV);
	table = xcalloc(n_cases, sizeof *table);
	for (size_t i = 0; i < n_cases; i++) {
		table[i].name = cases[i].name;
		table[i].test_func = test_table_case;
		table[i].initial_state = &cases[i];
	}
	/* cmocka_run_group_tests() wants a static array; the table is not. */
	fails = _cmocka_run_group_tests(RULES_TSV, table, n_cases, NULL, NULL);
	fails += cmocka_run_group_tests_name("rules", unit, NULL, NULL);
	free(table);
	tsv_free();
	return fails;
}
