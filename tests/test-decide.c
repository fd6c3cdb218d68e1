/* SPDX-License-Identifier: MIT */
/*
 * approvals/decide.c: the order of DESIGN §7 per kind, driven by the table
 * in tests/data/decide.tsv (one cmocka test per case there), plus the run
 * answers' own bookkeeping, which a table does not show.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/decide.h"
#include "config/util.h"

#define DECIDE_TSV	"tests/data/decide.tsv"

struct row {
	int		 lineno;
	char	       **f;	/* fields; "-" is NULL */
	size_t		 n;
};

struct table_case {
	char		*name;
	struct row	*rows;
	size_t		 n;
};

static struct table_case *cases;
static size_t n_cases;

static void
row_split(char *s, struct row *r)
{
	char *save = NULL;

	r->f = NULL;
	r->n = 0;
	for (char *t = strtok_r(s, "\t", &save); t != NULL;
	    t = strtok_r(NULL, "\t", &save))
		strv_push(&r->f, &r->n, strcmp(t, "-") == 0 ? NULL :
		    xstrdup(t));
}

static void
row_free(struct row *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->f[i]);
	free(r->f);
}

static void
table_load(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0;

	if (f == NULL)
		fatal("%s: %m (run the tests from the repository root)", path);
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct row r;
		struct table_case *c;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		row_split(line, &r);
		r.lineno = lineno;
		if (r.n == 2 && r.f[0] && strcmp(r.f[0], "case") == 0 && r.f[1]) {
			cases = xreallocarray(cases, n_cases + 1, sizeof *cases);
			c = &cases[n_cases++];
			c->name = xstrdup(r.f[1]);
			c->rows = NULL;
			c->n = 0;
			row_free(&r);
			continue;
		}
		if (n_cases == 0)
			fatal("%s:%d: a \"case\" line must come first", path,
			    lineno);
		c = &cases[n_cases - 1];
		c->rows = xreallocarray(c->rows, c->n + 1, sizeof *c->rows);
		c->rows[c->n++] = r;
	}
	free(line);
	fclose(f);
}

static void
table_free(void)
{
	for (size_t i = 0; i < n_cases; i++) {
		for (size_t j = 0; j < cases[i].n; j++)
			row_free(&cases[i].rows[j]);
		free(cases[i].rows);
		free(cases[i].name);
	}
	free(cases);
}

#define row_check(cond, r, ...) do {					\
	if (!(cond)) {							\
		print_error("%s:%d: ", DECIDE_TSV, (r)->lineno);	\
		print_error(__VA_ARGS__);				\
		print_error("\n");					\
		fail();							\
	}								\
} while (0)

/* What one case builds up as its lines are read. */
struct state {
	struct policy	 policy;
	struct rules	*rules;
	struct answers *answers;
	int64_t		 now;
};

static void
state_policy(struct state *st, const struct row *r)
{
	cleanup_free char *text = NULL, *cause = NULL;
	char *o;

	row_check(r->n == 2 && r->f[1], r, "policy wants INI (\\n for newlines)");
	text = xstrdup(r->f[1]);
	o = text;
	for (const char *p = r->f[1]; *p; p++) {
		if (p[0] == '\\' && p[1] == 'n') {
			*o++ = '\n';
			p++;
		} else
			*o++ = *p;
	}
	*o = '\0';
	policy_done(&st->policy);
	row_check(policy_load_string(&st->policy, text, "policy.ini",
	    &cause) == 0, r, "policy: %s", cause);
	rules_free(st->rules);
	st->rules = rules_new();
	rules_add_policy(st->rules, &st->policy);
}

static enum request_kind
row_kind(const struct row *r, const char *text)
{
	enum request_kind k = KIND_RUN;

	row_check(text && request_kind_parse(text, &k) == 0, r, "bad kind %s",
	    text ? text : "-");
	return k;
}

static enum verdict
row_verdict(const struct row *r, const char *text)
{
	enum verdict v = VERDICT_NONE;

	row_check(text && verdict_parse(text, &v) == 0, r, "bad verdict %s",
	    text ? text : "-");
	return v;
}

/* The last four fields of a query: VERDICT HOW STEP RULE. */
static void
row_expect(const struct row *r, const struct decision *d)
{
	const char *const *e = (const char *const *)r->f + r->n - 4;
	enum verdict v = row_verdict(r, e[0]);
	enum how how = HOW_SUPERVISOR;
	enum decide_step step = DECIDE_FLOOR;

	row_check(e[1] && how_parse(e[1], &how) == 0, r, "bad how %s",
	    e[1] ? e[1] : "-");
	row_check(e[2] && decide_step_parse(e[2], &step) == 0, r,
	    "bad step %s", e[2] ? e[2] : "-");
	row_check(d->verdict == v, r, "verdict %s, want %s",
	    verdict_name(d->verdict), e[0]);
	row_check(d->how == how, r, "how %s, want %s", how_name(d->how), e[1]);
	row_check(d->step == step, r, "step %s, want %s",
	    decide_step_name(d->step), e[2]);
	row_check(d->rule != NULL && e[3] != NULL &&
	    strcmp(d->rule, e[3]) == 0, r, "rule \"%s\", want \"%s\"",
	    d->rule ? d->rule : "(null)", e[3] ? e[3] : "-");
}

/* ADDR PORT NAME into a destination (no v4-mapped forms here). */
static void
row_dest(const struct row *r, const char *addr, const char *port,
    const char *name, struct net_dest *d)
{
	memset(d, 0, sizeof *d);
	row_check(addr && port, r, "connect wants ADDR PORT");
	d->family = strchr(addr, ':') != NULL ? AF_INET6 : AF_INET;
	row_check(inet_pton(d->family, addr, d->addr) == 1, r,
	    "bad address %s", addr);
	d->port = (unsigned)atoi(port);
	d->name = name;
}

static void
row_query(struct state *st, const struct row *r)
{
	struct decide_in in = {
		.policy = &st->policy, .rules = st->rules,
		.answers = st->answers, .now_ms = st->now,
	};
	struct decision d = { .rule = NULL };
	const char *k = r->f[0];

	if (strcmp(k, "write") == 0) {
		row_check(r->n == 7 && r->f[1], r,
		    "write wants PATH PATH2 VERDICT HOW STEP RULE");
		d = decide_write(&in, r->f[1], r->f[2]);
	} else if (strcmp(k, "protected") == 0) {
		row_check(r->n == 8 && r->f[1] && r->f[2], r,
		    "protected wants PATTERN PATH PATH2 VERDICT HOW STEP RULE");
		d = decide_protected(&in, r->f[1], r->f[2], r->f[3]);
	} else if (strcmp(k, "connect") == 0) {
		struct net_dest nd;

		row_check(r->n == 10 && r->f[4], r, "connect wants ADDR PORT "
		    "NAME TYPE INSTALL VERDICT HOW STEP RULE");
		row_dest(r, r->f[1], r->f[2], r->f[3], &nd);
		d = decide_connect(&in, &nd, strcmp(r->f[4], "stream") == 0,
		    r->f[5]);
	} else if (strcmp(k, "dns") == 0) {
		row_check(r->n == 7 && r->f[1], r,
		    "dns wants NAME INSTALL VERDICT HOW STEP RULE");
		d = decide_dns(&in, r->f[1], r->f[2] != NULL);
	} else if (strcmp(k, "package") == 0) {
		enum policy_action pa = POLICY_ASK;

		row_check(r->n == 10 && r->f[1] && r->f[2] && r->f[3] &&
		    r->f[4], r, "package wants PID SUBJECT MANAGER POLICY "
		    "WHICH VERDICT HOW STEP RULE");
		if (strcmp(r->f[4], "allow") == 0)
			pa = POLICY_ALLOW;
		else if (strcmp(r->f[4], "deny") == 0)
			pa = POLICY_DENY;
		else
			row_check(strcmp(r->f[4], "ask") == 0, r,
			    "bad policy verdict %s", r->f[4]);
		d = decide_package(&in, (pid_t)atoi(r->f[1]), r->f[2], r->f[3],
		    pa, r->f[5]);
	} else
		row_check(false, r, "unknown line type %s", k);
	row_expect(r, &d);
	decision_done(&d);
}

static void
test_table_case(void **state)
{
	const struct table_case *c = *state;
	struct state st = { .now = 1000 };

	policy_init(&st.policy);
	st.rules = rules_new();
	st.answers = answers_new();
	for (size_t i = 0; i < c->n; i++) {
		const struct row *r = &c->rows[i];
		const char *k = r->f[0] ? r->f[0] : "-";

		if (strcmp(k, "policy") == 0)
			state_policy(&st, r);
		else if (strcmp(k, "grant") == 0) {
			row_check(r->n == 4 && r->f[2], r,
			    "grant wants KIND SUBJECT VERDICT");
			answers_add(st.answers, row_kind(r, r->f[1]), r->f[2],
			    row_verdict(r, r->f[3]));
		} else if (strcmp(k, "refuse") == 0) {
			row_check(r->n == 4 && r->f[2] && r->f[3], r,
			    "refuse wants KIND PID SUBJECT");
			answers_refuse(st.answers, row_kind(r, r->f[1]),
			    (pid_t)atoi(r->f[2]), r->f[3], st.now);
		} else if (strcmp(k, "now") == 0) {
			row_check(r->n == 2 && r->f[1], r, "now wants MS");
			st.now = strtoll(r->f[1], NULL, 10);
		} else
			row_query(&st, r);
	}
	answers_free(st.answers);
	rules_free(st.rules);
	policy_done(&st.policy);
}

/* A refusal is kept only for the most recent few; the oldest goes. */
static void
test_refusals_ring(void **state)
{
	struct answers *g = answers_new();
	char name[32];

	(void)state;
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof name, "n%d.test", i);
		answers_refuse(g, KIND_DNS, 0, name, 1000 + i);
	}
	assert_true(answers_refused(g, KIND_DNS, 0, "n0.test", 2000));
	assert_true(answers_refused(g, KIND_DNS, 0, "N15.TEST", 2000));
	answers_refuse(g, KIND_DNS, 0, "n16.test", 2000);
	assert_false(answers_refused(g, KIND_DNS, 0, "n0.test", 2000));
	assert_true(answers_refused(g, KIND_DNS, 0, "n1.test", 2000));
	assert_true(answers_refused(g, KIND_DNS, 0, "n16.test", 2000));
	for (int i = 0; i < 9; i++) {
		snprintf(name, sizeof name, "pip install p%d", i);
		answers_refuse(g, KIND_PACKAGE, 7, name, 1000 + i);
	}
	assert_false(answers_refused(g, KIND_PACKAGE, 7, "pip install p0",
	    2000));
	assert_true(answers_refused(g, KIND_PACKAGE, 7, "pip install p8",
	    2000));
	/* an install's refusal is its process's only */
	assert_false(answers_refused(g, KIND_PACKAGE, 8, "pip install p8",
	    2000));
	/* writes and connects are not remembered this way */
	answers_refuse(g, KIND_WRITE, 7, "/etc/x", 2000);
	assert_false(answers_refused(g, KIND_WRITE, 7, "/etc/x", 2000));
	answers_free(g);
	answers_free(NULL);
}

/* An answer given twice is one grant; a changed answer overrides. */
static void
test_answers_override(void **state)
{
	struct answers *g = answers_new();

	(void)state;
	assert_int_equal(answers_match(g, KIND_CONNECT, "pypi.org:443"),
	    VERDICT_NONE);
	answers_add(g, KIND_CONNECT, "pypi.org:443", VERDICT_ALLOW);
	answers_add(g, KIND_CONNECT, "pypi.org:443", VERDICT_ALLOW);
	assert_int_equal(answers_match(g, KIND_CONNECT, "pypi.org:443"),
	    VERDICT_ALLOW);
	/* the kind is part of the answer */
	assert_int_equal(answers_match(g, KIND_DNS, "pypi.org:443"),
	    VERDICT_NONE);
	answers_add(g, KIND_CONNECT, "pypi.org:443", VERDICT_DENY);
	assert_int_equal(answers_match(g, KIND_CONNECT, "pypi.org:443"),
	    VERDICT_DENY);
	answers_add(g, KIND_DNS, "PyPI.org", VERDICT_ALLOW);
	assert_int_equal(answers_match(g, KIND_DNS, "pypi.ORG"),
	    VERDICT_ALLOW);
	answers_free(g);
}

/* Issue 15: the rule an answer for the run stores is the one shown
 * (answers_pattern), listed in order and revoked by number. */
static void
test_answers_list_revoke(void **state)
{
	struct answers *g = answers_new();
	cleanup_free char *p1 = answers_pattern(KIND_WRITE, "/tmp/a*b");
	cleanup_free char *p2 = answers_pattern(KIND_DNS, "PyPI.org");
	const struct rule *r;

	(void)state;
	assert_string_equal(p1, "/tmp/a\\*b");
	assert_string_equal(p2, "pypi.org");
	assert_int_equal(answers_count(g), 0);
	assert_null(answers_at(g, 1));
	answers_add(g, KIND_WRITE, "/tmp/a*b", VERDICT_ALLOW);
	answers_add(g, KIND_CONNECT, "pypi.org:443", VERDICT_DENY);
	assert_int_equal(answers_count(g), 2);
	r = answers_at(g, 1);
	assert_non_null(r);
	assert_string_equal(r->pattern, p1);	/* exactly what was shown */
	assert_int_equal(r->verdict, VERDICT_ALLOW);
	r = answers_at(g, 2);
	assert_string_equal(r->pattern, "pypi.org:443");
	assert_int_equal(r->kind, KIND_CONNECT);
	assert_null(answers_at(g, 0));
	assert_null(answers_at(g, 3));
	/* the literal rule covers only its own file */
	assert_int_equal(answers_match(g, KIND_WRITE, "/tmp/aXb"),
	    VERDICT_NONE);
	assert_int_equal(answers_revoke(g, 3), -ENOENT);
	assert_int_equal(answers_revoke(g, 0), -ENOENT);
	assert_int_equal(answers_revoke(g, 1), 0);
	assert_int_equal(answers_count(g), 1);
	assert_int_equal(answers_match(g, KIND_WRITE, "/tmp/a*b"),
	    VERDICT_NONE);
	assert_int_equal(answers_match(g, KIND_CONNECT, "pypi.org:443"),
	    VERDICT_DENY);
	assert_string_equal(answers_at(g, 1)->pattern, "pypi.org:443");
	answers_free(g);
}

static void
test_step_names(void **state)
{
	enum decide_step s;

	(void)state;
	for (int i = DECIDE_NEVER; i <= DECIDE_DEFAULT; i++) {
		assert_int_equal(decide_step_parse(decide_step_name(
		    (enum decide_step)i), &s), 0);
		assert_int_equal(s, i);
	}
	assert_string_equal(decide_step_name((enum decide_step)99), "unknown");
	assert_int_equal(decide_step_parse("sometimes", &s), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest unit[] = {
		cmocka_unit_test(test_refusals_ring),
		cmocka_unit_test(test_answers_override),
		cmocka_unit_test(test_answers_list_revoke),
		cmocka_unit_test(test_step_names),
	};
	struct CMUnitTest *table;
	int fails;

	table_load(DECIDE_TSV);
	table = xcalloc(n_cases, sizeof *table);
	for (size_t i = 0; i < n_cases; i++) {
		table[i].name = cases[i].name;
		table[i].test_func = test_table_case;
		table[i].initial_state = &cases[i];
	}
	fails = _cmocka_run_group_tests(DECIDE_TSV, table, n_cases, NULL, NULL);
	fails += cmocka_run_group_tests_name("decide", unit, NULL, NULL);
	free(table);
	table_free();
	return fails;
}
