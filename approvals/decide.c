/* SPDX-License-Identifier: MIT */
#include "approvals/decide.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "config/protect.h"
#include "config/util.h"

/* ------------------------------------------------------------------ */
/* The run's answers */

#define REFUSED_MAX	16

struct refusal {
	pid_t		 pid;
	char		*subject;
	int64_t		 until;		/* monotonic ms; 0 = free */
};

/* The most recent refusals of one kind, the oldest replaced first. */
struct refusals {
	struct refusal	 v[REFUSED_MAX];
	size_t		 n;		/* entries of v in use as the ring */
	int64_t		 ms;		/* how long a refusal holds */
};

struct answers {
	/* Answers as RULE_RUN rules whose patterns are the subjects made
	 * literal: rules_match() already keeps "most recent first". */
	struct rules	*rules;
	struct refusals	 dns, package;
};

struct answers *
answers_new(void)
{
	struct answers *g = xcalloc(1, sizeof *g);

	g->rules = rules_new();
	g->dns.n = 16;
	g->dns.ms = 15000;
	g->package.n = 8;
	g->package.ms = 5000;
	return g;
}

void
answers_free(struct answers *g)
{
	if (g == NULL)
		return;
	rules_free(g->rules);
	for (size_t i = 0; i < REFUSED_MAX; i++) {
		free(g->dns.v[i].subject);
		free(g->package.v[i].subject);
	}
	free(g);
}

/* What the rules are asked with: the subject itself, a name folded to
 * lower case (DNS does not care). */
static char *
answers_subject(enum request_kind kind, const char *s)
{
	char *o = xstrdup(s);

	if (kind == KIND_DNS)
		for (char *p = o; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
	return o;
}

/* The subject as a pattern that matches only itself: a file whose name
 * holds a star must not become a rule for a whole folder. */
static char *
answers_literal(enum request_kind kind, const char *subject)
{
	cleanup_free char *s = answers_subject(kind, subject);
	char *o = xmalloc(strlen(s) * 2 + 1), *p = o;

	for (const char *c = s; *c; c++) {
		if (strchr("*?[]\\", *c) != NULL)
			*p++ = '\\';
		*p++ = *c;
	}
	*p = '\0';
	return o;
}

char *
answers_pattern(enum request_kind kind, const char *subject)
{
	return answers_literal(kind, subject);
}

size_t
answers_count(const struct answers *g)
{
	return rules_count(g->rules);
}

const struct rule *
answers_at(const struct answers *g, size_t n)
{
	return n >= 1 ? rules_at(g->rules, n - 1) : NULL;
}

int
answers_revoke(struct answers *g, size_t n)
{
	if (n < 1 || n > rules_count(g->rules))
		return -ENOENT;
	rules_remove(g->rules, n - 1);
	return 0;
}

static enum verdict
answers_find(const struct answers *g, enum request_kind kind,
    const char *subject, const struct rule **matched)
{
	cleanup_free char *q = NULL;

	if (kind != KIND_DNS)
		return rules_match(g->rules, kind, subject, NULL, matched);
	q = answers_subject(kind, subject);
	return rules_match(g->rules, kind, q, NULL, matched);
}

enum verdict
answers_match(const struct answers *g, enum request_kind kind,
    const char *subject)
{
	return answers_find(g, kind, subject, NULL);
}

void
answers_add(struct answers *g, enum request_kind kind,
    const char *subject, enum verdict v)
{
	cleanup_free char *lit = NULL;

	if (answers_find(g, kind, subject, NULL) == v)
		return;		/* already the answer: nothing changes */
	lit = answers_literal(kind, subject);
	rules_add(g->rules, kind, lit, v, RULE_RUN);
}

void
answers_refuse(struct answers *g, enum request_kind kind, pid_t pid,
    const char *subject, int64_t now_ms)
{
	struct refusals *r = kind == KIND_DNS ? &g->dns :
	    kind == KIND_PACKAGE ? &g->package : NULL;
	size_t oldest = 0;

	if (r == NULL)
		return;
	for (size_t i = 1; i < r->n; i++)
		if (r->v[i].until < r->v[oldest].until)
			oldest = i;
	free(r->v[oldest].subject);
	r->v[oldest].pid = pid;
	r->v[oldest].subject = xstrdup(subject);
	r->v[oldest].until = now_ms + r->ms;
}

bool
answers_refused(const struct answers *g, enum request_kind kind,
    pid_t pid, const char *subject, int64_t now_ms)
{
	const struct refusals *r = kind == KIND_DNS ? &g->dns :
	    kind == KIND_PACKAGE ? &g->package : NULL;

	for (size_t i = 0; r != NULL && i < r->n; i++) {
		const struct refusal *x = &r->v[i];

		if (x->subject == NULL || x->until <= now_ms || x->pid != pid)
			continue;
		/* names are compared as DNS does, without case */
		if (kind == KIND_DNS ? strcasecmp(x->subject, subject) == 0 :
		    strcmp(x->subject, subject) == 0)
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Decisions */

void
decision_done(struct decision *d)
{
	free(d->rule);
	d->rule = NULL;
}

static const char *const step_names[] = {
	[DECIDE_NEVER] = "never",
	[DECIDE_FLOOR] = "floor",
	[DECIDE_INSTALL] = "install",
	[DECIDE_RUN] = "run",
	[DECIDE_REFUSED] = "refused",
	[DECIDE_POLICY] = "policy",
	[DECIDE_DEFAULT] = "default",
};

const char *
decide_step_name(enum decide_step s)
{
	if ((size_t)s >= ARRAY_SIZE(step_names))
		return "unknown";
	return step_names[s];
}

int
decide_step_parse(const char *text, enum decide_step *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(step_names); i++)
		if (strcmp(step_names[i], text) == 0) {
			*ret = (enum decide_step)i;
			return 0;
		}
	return -EINVAL;
}

static struct decision
decision(enum verdict v, enum how how, enum decide_step step, char *rule)
{
	struct decision d = {
		.verdict = v, .how = how, .step = step, .rule = rule,
	};

	return d;
}

static enum how
rule_how(const struct rule *r)
{
	return r->origin == RULE_RUN ? HOW_RUN_RULE : HOW_POLICY;
}

/* One path: the run's answers, then the policy's rules. */
static enum verdict
write_one(const struct decide_in *in, const char *path,
    const struct rule **matched)
{
	enum verdict v = answers_find(in->answers, KIND_WRITE, path, matched);

	if (v != VERDICT_NONE)
		return v;
	return rules_match(in->rules, KIND_WRITE, path, NULL, matched);
}

struct decision
decide_write(const struct decide_in *in, const char *path, const char *path2)
{
	/* How strongly a verdict holds a two-path call back: both paths must
	 * be allowed for an allow, either denied denies (as rules_match). */
	static const int weight[] = {
		[VERDICT_ALLOW] = 0, [VERDICT_NONE] = 1, [VERDICT_ASK] = 2,
		[VERDICT_DENY] = 3, [VERDICT_KILL] = 4, [VERDICT_STAGE] = 2,
	};
	const struct rule *r = NULL, *r2 = NULL;
	enum verdict v = write_one(in, path, &r);

	if (path2 != NULL) {
		enum verdict v2 = write_one(in, path2, &r2);

		if (weight[v2] > weight[v]) {
			v = v2;
			r = r2;
		}
	}
	if (v == VERDICT_DENY || v == VERDICT_ALLOW)
		return decision(v, rule_how(r), r->origin == RULE_RUN ?
		    DECIDE_RUN : DECIDE_POLICY, rule_describe(r));
	if (in->policy->write == POLICY_DENY)
		return decision(VERDICT_DENY, HOW_DEFAULT, DECIDE_DEFAULT,
		    xstrdup("[files] write = deny"));
	return decision(VERDICT_ASK, HOW_DEFAULT, DECIDE_DEFAULT,
	    xstrdup("no rule matches; [files] write = ask"));
}

struct decision
decide_protected(const struct decide_in *in, const char *pattern,
    const char *path, const char *path2)
{
	const struct rule *r = NULL;

	/* A deny holds whichever path it names; an allow never reaches a
	 * protected path: what runs as the person later is theirs to say. */
	if (write_one(in, path, &r) == VERDICT_DENY ||
	    (path2 != NULL && write_one(in, path2, &r) == VERDICT_DENY))
		return decision(VERDICT_DENY, rule_how(r), r->origin ==
		    RULE_RUN ? DECIDE_RUN : DECIDE_POLICY, rule_describe(r));
	return decision(VERDICT_ASK, HOW_POLICY, DECIDE_POLICY,
	    protect_why(pattern));
}

/* The run's own answer for a connect, lookup or install, if it has one. */
static bool
decide_granted(const struct decide_in *in, enum request_kind kind,
    const char *subject, struct decision *d)
{
	enum verdict v = answers_match(in->answers, kind, subject);

	if (v != VERDICT_ALLOW && v != VERDICT_DENY)
		return false;
	*d = decision(v, HOW_RUN_RULE, DECIDE_RUN, xstrdup(v == VERDICT_ALLOW ?
	    "allowed for this run" : "denied for this run"));
	return true;
}

struct decision
decide_connect(const struct decide_in *in, const struct net_dest *d,
    bool stream, const char *install)
{
	cleanup_free char *key = net_dest_key(d);
	char *rule = NULL;
	struct decision g;

	if (netrules_never(in->policy, d, &rule))
		return decision(VERDICT_DENY, HOW_POLICY, DECIDE_NEVER, rule);
	if (!stream)
		/* A host-side UDP socket could send anywhere: names go
		 * through the DNS stub instead. */
		return decision(VERDICT_DENY, HOW_FLOOR, DECIDE_FLOOR,
		    xstrdup("no host-side datagram sockets"));
	if (install != NULL)
		return decision(VERDICT_ALLOW, HOW_RUN_RULE, DECIDE_INSTALL,
		    xasprintf("registry of an approved %s install", install));
	if (decide_granted(in, KIND_CONNECT, key, &g))
		return g;
	if (netrules_allowed(in->policy, d, &rule))
		return decision(VERDICT_ALLOW, HOW_POLICY, DECIDE_POLICY, rule);
	if (netrules_denied(in->policy, d, &rule))
		return decision(VERDICT_DENY, HOW_POLICY, DECIDE_POLICY, rule);
	if (in->policy->connect == POLICY_DENY)
		return decision(VERDICT_DENY, HOW_DEFAULT, DECIDE_DEFAULT,
		    xstrdup("[network] connect = deny"));
	return decision(VERDICT_ASK, HOW_DEFAULT, DECIDE_DEFAULT,
	    xasprintf("no rule matches; [network] connect = ask; approving "
	    "for the run adds: allow %s", key));
}

/* Does entry e name d's host, on whatever port (a lookup has none)? */
static bool
names_host(const struct policy_host *e, const struct net_dest *d)
{
	struct policy_host h = *e;

	h.port_lo = 0;
	h.port_hi = 65535;
	return netrules_entry_match(&h, d);
}

/* A [network] allow entry that names the host, on any port, or a
 * [secret]'s host (the connection to it is allowed, so its name
 * resolves): the rule's text ("allow pypi.org", "secret K"), or NULL. */
static char *
dns_allowed(const struct policy *p, const char *name)
{
	struct net_dest d = { .family = AF_INET, .name = name };

	for (size_t i = 0; i < p->n_net_allow; i++)
		if (names_host(&p->net_allow[i], &d))
			return xasprintf("allow %s", p->net_allow[i].host);
	for (size_t i = 0; i < p->n_secrets; i++)
		for (size_t j = 0; j < p->secrets[i].n_hosts; j++)
			if (names_host(&p->secrets[i].hosts[j], &d))
				return xasprintf("secret %s",
				    p->secrets[i].name);
	return NULL;
}

/* A [network] deny entry that names the host, on any port: the name is
 * not looked up, so nobody is asked about it. */
static char *
dns_denied(const struct policy *p, const char *name)
{
	struct net_dest d = { .family = AF_INET, .name = name };

	for (size_t i = 0; i < p->n_net_deny; i++) {
		const struct policy_host *h = &p->net_deny[i];

		if (names_host(h, &d))
			return h->reason != NULL ? xasprintf("deny %s (%s)",
			    h->host, h->reason) : xasprintf("deny %s", h->host);
	}
	return NULL;
}

struct decision
decide_dns(const struct decide_in *in, const char *name, bool install)
{
	struct decision g;
	char *rule;

	if (decide_granted(in, KIND_DNS, name, &g))
		return g;
	if ((rule = dns_allowed(in->policy, name)) != NULL)
		return decision(VERDICT_ALLOW, HOW_POLICY, DECIDE_POLICY, rule);
	if (install)
		return decision(VERDICT_ALLOW, HOW_RUN_RULE, DECIDE_INSTALL,
		    xstrdup("registry of an approved install"));
	if ((rule = dns_denied(in->policy, name)) != NULL)
		return decision(VERDICT_DENY, HOW_POLICY, DECIDE_POLICY, rule);
	if (answers_refused(in->answers, KIND_DNS, 0, name, in->now_ms))
		return decision(VERDICT_DENY, HOW_RUN_RULE, DECIDE_REFUSED,
		    xstrdup("the same name, just refused"));
	if (in->policy->connect == POLICY_DENY)
		return decision(VERDICT_DENY, HOW_DEFAULT, DECIDE_DEFAULT,
		    xstrdup("[network] connect = deny"));
	return decision(VERDICT_ASK, HOW_DEFAULT, DECIDE_DEFAULT,
	    xasprintf("no [network] allow names %s", name));
}

struct decision
decide_package(const struct decide_in *in, pid_t pid, const char *subject,
    const char *manager, enum policy_action policy, const char *which)
{
	enum decide_step step = which != NULL ? DECIDE_POLICY : DECIDE_DEFAULT;
	struct decision g;

	if (decide_granted(in, KIND_PACKAGE, subject, &g))
		return g;
	/* The policy's "install = deny" and "allow" are recorded as policy,
	 * the pattern or the key itself named. */
	if (policy == POLICY_ALLOW)
		return decision(VERDICT_ALLOW, HOW_POLICY, step,
		    xstrdup(which ? which : "[packages] install = allow"));
	if (answers_refused(in->answers, KIND_PACKAGE, pid, subject,
	    in->now_ms))
		return decision(VERDICT_DENY, HOW_RUN_RULE, DECIDE_REFUSED,
		    xstrdup("the same install, just refused"));
	if (policy == POLICY_DENY)
		return decision(VERDICT_DENY, HOW_POLICY, step,
		    xstrdup(which ? which : "[packages] install = deny"));
	return decision(VERDICT_ASK, HOW_DEFAULT, DECIDE_DEFAULT,
	    xasprintf("%s install: no [packages] allow pattern covers it; "
	    "[packages] install = ask", manager));
}
