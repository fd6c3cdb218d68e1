/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Rules: pattern -> verdict, by kind. Built from the policy file and from
 * answers "for this run". Order of evaluation (DESIGN §7): run rules, then
 * the policy's deny, then its allow, then the default. The first match
 * names itself so that a request can say why it was decided or asked.
 */
#include <stdbool.h>
#include <stddef.h>

#include "approvals/request.h"
#include "config/policy.h"

enum rule_origin {
	RULE_POLICY,
	RULE_RUN,
};

struct rule {
	enum request_kind kind;
	char		*pattern;	/* glob for paths (fnmatch, FNM_PATHNAME off: '*' crosses '/') */
	enum verdict	 verdict;	/* ALLOW or DENY */
	enum rule_origin origin;
};

struct rules;

struct rules	*rules_new(void);
void		 rules_free(struct rules *);
/* Adds [files] allow/deny of the policy as KIND_WRITE rules. */
void		 rules_add_policy(struct rules *, const struct policy *);
void		 rules_add(struct rules *, enum request_kind, const char *pattern,
		    enum verdict, enum rule_origin);
size_t		 rules_count(const struct rules *);
/* The i-th rule in the order added (i < rules_count), and its removal:
 * a pointer rules_match handed out for it is then gone. */
const struct rule *rules_at(const struct rules *, size_t i);
void		 rules_remove(struct rules *, size_t i);

/*
 * The verdict for kind+subject, or VERDICT_NONE when no rule matches.
 * *matched (may be NULL) points at the matching rule, owned by rules.
 * subject2 (may be NULL): for two-path calls both must match an allow;
 * either matching a deny denies. Each path is judged in the order above;
 * the call gets the stronger result (kill > deny > ask > none > allow),
 * and *matched is that path's rule (NULL when it is none).
 * Policy rules other than deny (allow, ask) are tried in the order added.
 */
enum verdict	 rules_match(const struct rules *, enum request_kind,
		    const char *subject, const char *subject2,
		    const struct rule **matched);

/* "allow write /etc/ward-test (run)" style text for the record and console. */
char		*rule_describe(const struct rule *);
/* "policy", "run" */
const char	*rule_origin_name(enum rule_origin);

/*
 * The pattern test rules_match uses: fnmatch(3) without FNM_PATHNAME, so
 * '*' crosses '/' ("/etc/ward-*" covers "/etc/ward-a/b"), and a pattern
 * whose last component is "**" also names the folder it is in: "/srv/"
 * followed by "**" covers "/srv" as well as everything beneath it.
 */
bool		 rules_glob(const char *pattern, const char *subject);
