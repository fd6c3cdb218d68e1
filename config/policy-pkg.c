/* SPDX-License-Identifier: MIT */
/*
 * [packages] and [manager NAME]: the names package managers go by,
 * manager:package patterns and each manager's hosts.
 */
#include "config/policy.h"
#include "config/policy-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/escape.h"
#include "config/util.h"

int
policy_set_install(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int a;

	if ((a = policy_action(v, true)) >= 0) {
		p->install = (enum policy_action)a;
		return 0;
	}
	*why = xasprintf("%s is not one of ask, deny, allow", q);
	return -EINVAL;
}

/*
 * Every name a package manager goes by, canonical names first in the
 * order messages list them. The lists differ on purpose or by history:
 * npm-cli.js is no name for a policy; pnpm.js, pnpx.cjs and yarn.cjs are
 * seen only as the script node runs, yarnpkg only as a program.
 */
#define POL	MANAGER_AS_POLICY
#define PROG	MANAGER_AS_PROGRAM
#define SCRIPT	MANAGER_AS_SCRIPT
#define VER	MANAGER_VERSIONED
static const struct policy_manager_alias policy_managers[] = {
	{ "pip", "pip", "pip", POL | PROG | VER },
	{ "uv", "uv", "uv", POL | PROG },
	{ "npm", "npm", "npm", POL | PROG | SCRIPT },
	{ "pnpm", "pnpm", "pnpm", POL | PROG | SCRIPT },
	{ "yarn", "yarn", "yarn", POL | PROG | SCRIPT },
	{ "npx", "npx", "npx", POL | PROG | SCRIPT },
	{ "apt", "apt", "apt", POL | PROG },
	{ "dpkg", "dpkg", "dpkg", POL | PROG },
	{ "gem", "gem", "gem", POL | PROG | VER },
	{ "cargo", "cargo", "cargo", POL | PROG },
	{ "go", "go", "go", POL | PROG | VER },
	{ "conda", "conda", "conda", POL | PROG },
	{ "pip3", "pip", "pip", POL | PROG },
	{ "uvx", "uv", "uvx", POL | PROG },
	{ "pnpx", "pnpm", "pnpx", POL | PROG | SCRIPT },
	{ "yarnpkg", "yarn", "yarn", POL | PROG },
	{ "apt-get", "apt", "apt", POL | PROG },
	{ "aptitude", "apt", "apt", POL | PROG },
	{ "mamba", "conda", "conda", POL | PROG },
	{ "micromamba", "conda", "conda", POL | PROG },
	{ "npm-cli.js", "npm", "npm", PROG | SCRIPT },
	{ "npx-cli.js", "npx", "npx", PROG | SCRIPT },
	{ "pnpm.cjs", "pnpm", "pnpm", PROG | SCRIPT },
	{ "pnpm.js", "pnpm", "pnpm", SCRIPT },
	{ "pnpx.cjs", "pnpm", "pnpx", SCRIPT },
	{ "yarn.js", "yarn", "yarn", PROG | SCRIPT },
	{ "yarn.cjs", "yarn", "yarn", SCRIPT },
};

#undef POL
#undef PROG
#undef SCRIPT
#undef VER

const struct policy_manager_alias *
policy_manager_alias(const char *name, unsigned as)
{
	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(policy_managers); i++) {
		const struct policy_manager_alias *a = &policy_managers[i];
		size_t n = strlen(a->name);

		if ((a->seen & as) == 0)
			continue;
		if (strcmp(a->name, name) == 0)
			return a;
		/* pip3.11, gem3.1, go1.22.0: a version after the name. */
		if (as == MANAGER_AS_PROGRAM && (a->seen & MANAGER_VERSIONED) &&
		    strncmp(a->name, name, n) == 0 &&
		    name[n + strspn(name + n, "0123456789.")] == '\0')
			return a;
	}
	return NULL;
}

const char *
policy_manager_name(const char *name)
{
	const struct policy_manager_alias *a =
	    policy_manager_alias(name, MANAGER_AS_POLICY);

	return a != NULL ? a->canonical : NULL;
}

const char *
policy_manager_names(void)
{
	static char names[128];

	if (names[0] == '\0') {
		size_t o = 0;

		for (size_t i = 0; i < ARRAY_SIZE(policy_managers); i++) {
			const struct policy_manager_alias *a =
			    &policy_managers[i];

			if (strcmp(a->name, a->canonical) != 0)
				continue;
			o += (size_t)snprintf(names + o, sizeof names - o, "%s%s",
			    o > 0 ? ", " : "", a->name);
		}
	}
	return names;
}

const struct policy_manager *
policy_manager_find(const struct policy *p, const char *name)
{
	const char *canon = policy_manager_name(name);

	if (p == NULL || canon == NULL)
		return NULL;
	for (size_t i = 0; i < p->n_managers; i++)
		if (strcmp(p->managers[i].name, canon) == 0)
			return &p->managers[i];
	return NULL;
}

/*
 * "manager:glob". The glob is matched against package names only (see
 * approvals/pkgrules.c), so it may hold any printable bytes but blanks;
 * a "*" manager is refused like a "*" host: name what you mean.
 */
static int
policy_pkg_pattern(const char *v, char ***list, size_t *n, char **why)
{
	cleanup_free char *q = policy_quote(v);
	cleanup_free char *mgr = NULL;
	const char *colon = strchr(v, ':'), *canon;

	if (colon == NULL) {
		*why = xasprintf("%s is not manager:package (pip:requests, "
		    "npm:@types/*, apt:*)", q);
		return -EINVAL;
	}
	mgr = xstrndup(v, (size_t)(colon - v));
	if (strcmp(mgr, "*") == 0 || *mgr == '\0') {
		*why = xasprintf("%s: name the manager (one of %s); * stands "
		    "for packages, not managers", q, policy_manager_names());
		return -EINVAL;
	}
	if ((canon = policy_manager_name(mgr)) == NULL) {
		cleanup_free char *qm = policy_quote(mgr);

		*why = xasprintf("%s: %s is not a package manager (managers: "
		    "%s)", q, qm, policy_manager_names());
		return -EINVAL;
	}
	if (colon[1] == '\0') {
		*why = xasprintf("%s: no package after the colon (write %s:* for "
		    "every package)", q, canon);
		return -EINVAL;
	}
	for (const char *c = colon + 1; *c != '\0'; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			*why = xasprintf("%s: a control character in the package", q);
			return -EINVAL;
		}
	}
	strv_push(list, n, xasprintf("%s:%s", canon, colon + 1));
	return 0;
}

int
policy_set_pkg_allow(struct policy *p, const char *v, char **why)
{
	return policy_pkg_pattern(v, &p->pkg_allow, &p->n_pkg_allow, why);
}

int
policy_set_pkg_deny(struct policy *p, const char *v, char **why)
{
	return policy_pkg_pattern(v, &p->pkg_deny, &p->n_pkg_deny, why);
}

static struct policy_manager *
policy_manager_get(struct policy *p, const char *canon)
{
	struct policy_manager *m;

	for (size_t i = 0; i < p->n_managers; i++)
		if (strcmp(p->managers[i].name, canon) == 0)
			return &p->managers[i];
	p->managers = xreallocarray(p->managers, p->n_managers + 1,
	    sizeof *p->managers);
	m = &p->managers[p->n_managers++];
	*m = (struct policy_manager){ .name = xstrdup(canon) };
	return m;
}

/* [manager NAME] hosts: the first line replaces the built-in hosts of that
 * manager; "none" leaves it none. */
int
policy_set_mgr_hosts(struct policy *p, const char *canon, const char *v,
    char **why)
{
	struct policy_manager *m = policy_manager_get(p, canon);
	struct policy_host h;
	int r;

	if (strcmp(v, "none") == 0)
		return 0;
	if ((r = policy_host_parse(v, &h, why)) < 0)
		return r;
	m->hosts = xreallocarray(m->hosts, m->n_hosts + 1, sizeof *m->hosts);
	m->hosts[m->n_hosts++] = h;
	return 0;
}

/*
 * Is s (len bytes, as inih hands it on: not trimmed inside) a [manager NAME]
 * section? 0 no, 1 yes and *canon is the manager, -EINVAL yes but it names
 * no known manager (*why says so).
 */
int
policy_manager_section(const char *s, size_t len, const char **canon,
    char **why)
{
	static const char word[] = "manager";
	cleanup_free char *name = NULL;
	size_t w = sizeof word - 1, b, rest;

	if (len < w || strncmp(s, word, w) != 0 ||
	    (len > w && s[w] != ' ' && s[w] != '\t'))
		return 0;
	b = w + strspn(s + w, " \t");
	if (b > len)
		b = len;
	name = xstrndup(s + b, len - b);
	name[strcspn(name, " \t")] = '\0';
	if (*name == '\0') {
		*why = xasprintf("[manager] names no manager (write [manager "
		    "pip]; managers: %s)", policy_manager_names());
		return -EINVAL;
	}
	rest = b + strlen(name);
	rest += strspn(s + rest, " \t");
	if (rest < len) {
		cleanup_free char *sec = xstrndup(s, len);
		cleanup_free char *qs = escape_str(sec);

		*why = xasprintf("[%s]: one manager per section", qs);
		return -EINVAL;
	}
	if ((*canon = policy_manager_name(name)) == NULL) {
		cleanup_free char *sec = xstrndup(s, len);
		cleanup_free char *qs = escape_str(sec);
		cleanup_free char *qn = policy_quote(name);

		*why = xasprintf("[%s]: %s is not a package manager (managers: "
		    "%s)", qs, qn, policy_manager_names());
		return -EINVAL;
	}
	return 1;
}
