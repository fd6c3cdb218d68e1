/* SPDX-License-Identifier: MIT */
#include "approvals/rules.h"

#include <fnmatch.h>
#include <string.h>

#include "config/util.h"

/*
 * Rules are kept one allocation each so that the pointer rules_match()
 * hands out stays valid while later rules are added (a run rule is added
 * while the console may still show what matched before).
 */
struct rules_entry {
	struct rule	rule;		/* first: rules_match hands out &rule */
	char	       *dir;		/* the folder of a pattern ending in a
					 * "**" component, else NULL */
};

struct rules {
	struct rules_entry **v;
	size_t		n;
};

struct rules *
rules_new(void)
{
	return xcalloc(1, sizeof(struct rules));
}

void
rules_free(struct rules *rs)
{
	if (rs == NULL)
		return;
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i]->rule.pattern);
		free(rs->v[i]->dir);
		free(rs->v[i]);
	}
	free(rs->v);
	free(rs);
}

static bool
rules_is_tree(const char *pattern, size_t n)
{
	return n >= 3 && strcmp(pattern + n - 3, "/**") == 0;
}

void
rules_add(struct rules *rs, enum request_kind kind, const char *pattern,
    enum verdict verdict, enum rule_origin origin)
{
	struct rules_entry *e = xcalloc(1, sizeof *e);
	size_t n = strlen(pattern);

	e->rule.kind = kind;
	e->rule.pattern = xstrdup(pattern);
	e->rule.verdict = verdict;
	e->rule.origin = origin;
	if (rules_is_tree(pattern, n))
		e->dir = xstrndup(pattern, n - 3);
	rs->v = xreallocarray(rs->v, rs->n + 1, sizeof *rs->v);
	rs->v[rs->n++] = e;
}

void
rules_add_policy(struct rules *rs, const struct policy *p)
{
	for (size_t i = 0; i < p->n_deny; i++)
		rules_add(rs, KIND_WRITE, p->deny[i], VERDICT_DENY,
		    RULE_POLICY);
	for (size_t i = 0; i < p->n_allow; i++)
		rules_add(rs, KIND_WRITE, p->allow[i], VERDICT_ALLOW,
		    RULE_POLICY);
}

size_t
rules_count(const struct rules *rs)
{
	return rs->n;
}

const struct rule *
rules_at(const struct rules *rs, size_t i)
{
	return i < rs->n ? &rs->v[i]->rule : NULL;
}

void
rules_remove(struct rules *rs, size_t i)
{
	if (i >= rs->n)
		return;
	free(rs->v[i]->rule.pattern);
	free(rs->v[i]->dir);
	free(rs->v[i]);
	memmove(rs->v + i, rs->v + i + 1, (rs->n - i - 1) * sizeof *rs->v);
	rs->n--;
}

/*
 * fnmatch without FNM_PATHNAME, so '*' crosses '/': "/etc/ward-*" covers
 * "/etc/ward-a/b" too. A last component "**" also names the folder
 * itself, which the plain glob would miss (it needs at least the slash).
 */
bool
rules_glob(const char *pattern, const char *subject)
{
	size_t n = strlen(pattern);

	if (fnmatch(pattern, subject, 0) == 0)
		return true;
	if (rules_is_tree(pattern, n)) {
		cleanup_free char *dir = xstrndup(pattern, n - 3);

		return fnmatch(dir, subject, 0) == 0;
	}
	return false;
}

/* As rules_glob, without allocating: this runs for trapped calls. */
static bool
rules_hit(const struct rules_entry *e, enum request_kind kind,
    const char *subject)
{
	if (e->rule.kind != kind)
		return false;
	if (fnmatch(e->rule.pattern, subject, 0) == 0)
		return true;
	return e->dir != NULL && fnmatch(e->dir, subject, 0) == 0;
}

/*
 * One path through the order of DESIGN §7: run rules, the most recent
 * first (a later answer overrides an earlier one), then the policy's
 * deny, then everything else of the policy in file order.
 */
static const struct rule *
rules_match_one(const struct rules *rs, enum request_kind kind,
    const char *subject)
{
	for (size_t i = rs->n; i-- > 0;) {
		const struct rules_entry *e = rs->v[i];

		if (e->rule.origin == RULE_RUN && rules_hit(e, kind, subject))
			return &e->rule;
	}
	for (size_t i = 0; i < rs->n; i++) {
		const struct rules_entry *e = rs->v[i];

		if (e->rule.origin == RULE_POLICY &&
		    e->rule.verdict == VERDICT_DENY &&
		    rules_hit(e, kind, subject))
			return &e->rule;
	}
	for (size_t i = 0; i < rs->n; i++) {
		const struct rules_entry *e = rs->v[i];

		if (e->rule.origin == RULE_POLICY &&
		    e->rule.verdict != VERDICT_DENY &&
		    rules_hit(e, kind, subject))
			return &e->rule;
	}
	return NULL;
}

/* How strongly a verdict holds a two-path call back: the call gets the
 * stronger of its two paths, so both must be allowed for an allow, and no
 * match on either leaves it to be asked. */
static int
rules_weight(enum verdict v)
{
	switch (v) {
	case VERDICT_ALLOW:
		return 0;
	case VERDICT_NONE:
		return 1;
	case VERDICT_ASK:
	case VERDICT_STAGE:
		return 2;
	case VERDICT_DENY:
		return 3;
	case VERDICT_KILL:
		return 4;
	}
	return 4;
}

enum verdict
rules_match(const struct rules *rs, enum request_kind kind,
    const char *subject, const char *subject2, const struct rule **matched)
{
	const struct rule *r = NULL, *r2;
	enum verdict v = VERDICT_NONE, v2;

	if (subject != NULL && (r = rules_match_one(rs, kind, subject)) != NULL)
		v = r->verdict;
	if (subject2 != NULL) {
		r2 = rules_match_one(rs, kind, subject2);
		v2 = r2 != NULL ? r2->verdict : VERDICT_NONE;
		if (rules_weight(v2) > rules_weight(v)) {
			r = r2;
			v = v2;
		}
	}
	if (matched != NULL)
		*matched = r;
	return v;
}

const char *
rule_origin_name(enum rule_origin o)
{
	switch (o) {
	case RULE_POLICY:
		return "policy";
	case RULE_RUN:
		return "run";
	}
	return "unknown";
}

char *
rule_describe(const struct rule *r)
{
	return xasprintf("%s %s %s (%s)", verdict_name(r->verdict),
	    request_kind_name(r->kind), r->pattern,
	    rule_origin_name(r->origin));
}
