/* SPDX-License-Identifier: MIT */
#include "approvals/pkgrules.h"

#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/util.h"

static bool
pkg_is_url(const char *s)
{
	return strstr(s, "://") != NULL || str_has_prefix(s, "git+") ||
	    str_has_prefix(s, "file:");
}

static bool
pkg_is_archive(const char *s)
{
	static const char *const suffixes[] = {
		".whl", ".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz",
		".tar", ".deb", ".gem", ".crate", ".conda",
	};

	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (str_has_suffix(s, suffixes[i]))
			return true;
	return false;
}

/* Written as a path: ./x, ../x, /x, ~/x, ., .. */
static bool
pkg_is_path(const char *s)
{
	return s[0] == '/' || s[0] == '~' || strcmp(s, ".") == 0 ||
	    strcmp(s, "..") == 0 || str_has_prefix(s, "./") ||
	    str_has_prefix(s, "../");
}

static bool
pkg_npm_family(const char *m)
{
	return strcmp(m, "npm") == 0 || strcmp(m, "npx") == 0 ||
	    strcmp(m, "pnpm") == 0 || strcmp(m, "yarn") == 0;
}

/* Does a name, as a manager reads it, stand for something other than a
 * registry package? */
bool
pkg_looks_local(const char *manager, const char *name)
{
	static const char *const npm_schemes[] = {
		"git:", "github:", "gitlab:", "bitbucket:", "gist:", "link:",
		"workspace:", "npm:",
	};

	if (pkg_is_url(name) || pkg_is_path(name) || pkg_is_archive(name))
		return true;
	if (pkg_npm_family(manager)) {
		for (size_t i = 0; i < ARRAY_SIZE(npm_schemes); i++)
			if (str_has_prefix(name, npm_schemes[i]))
				return true;
		/* "user/repo" is GitHub; "@scope/name" is the registry. */
		return name[0] != '@' && strchr(name, '/') != NULL;
	}
	if (strcmp(manager, "pip") == 0 || strcmp(manager, "uv") == 0)
		return strchr(name, '/') != NULL || strchr(name, '\\') != NULL;
	return false;
}

void
pkg_install_done(struct pkg_install *p)
{
	if (p == NULL)
		return;
	free(p->action);
	for (size_t i = 0; i < p->n_items; i++) {
		free(p->items[i].name);
		free(p->items[i].version);
	}
	free(p->items);
	strv_free(p->files);
	free(p->target);
	strv_free(p->index_urls);
	*p = (struct pkg_install){ 0 };
}


/*
 * A name or glob as the registry compares names: PyPI (PEP 503) folds case
 * and runs of - _ . into -; crates.io folds case and _ into -; conda and
 * Debian names are lower case.
 */
static char *
pkg_fold(const char *manager, const char *s)
{
	bool pypi = strcmp(manager, "pip") == 0 || strcmp(manager, "uv") == 0;
	bool crates = strcmp(manager, "cargo") == 0;
	bool lower = pypi || crates || strcmp(manager, "conda") == 0 ||
	    strcmp(manager, "apt") == 0;
	char *out = xstrdup(s), *o = out;

	for (const char *c = s; *c != '\0'; c++) {
		char ch = *c;

		if (lower && ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (pypi && (ch == '-' || ch == '_' || ch == '.')) {
			if (o > out && o[-1] == '-')
				continue;
			ch = '-';
		}
		if (crates && ch == '_')
			ch = '-';
		*o++ = ch;
	}
	*o = '\0';
	return out;
}

static bool
pkg_pattern_match(const char *pattern, const char *manager, const char *name)
{
	size_t m = strlen(manager);
	cleanup_free char *g = NULL;
	cleanup_free char *n = NULL;

	if (strncmp(pattern, manager, m) != 0 || pattern[m] != ':')
		return false;
	g = pkg_fold(manager, pattern + m + 1);
	n = pkg_fold(manager, name);
	return fnmatch(g, n, 0) == 0;
}

/* POLICY_DENY, POLICY_ALLOW, or -1 when no pattern matches. */
static int
pkg_match(const struct policy *p, const char *manager, const char *name,
    bool local, const char **which)
{
	for (size_t i = 0; i < p->n_pkg_deny; i++) {
		if (pkg_pattern_match(p->pkg_deny[i], manager, name)) {
			*which = p->pkg_deny[i];
			return POLICY_DENY;
		}
	}
	if (local || pkg_looks_local(manager, name))
		return -1;
	for (size_t i = 0; i < p->n_pkg_allow; i++) {
		if (pkg_pattern_match(p->pkg_allow[i], manager, name)) {
			*which = p->pkg_allow[i];
			return POLICY_ALLOW;
		}
	}
	return -1;
}

enum policy_action
packages_verdict(const struct policy *p, const char *manager,
    const char *package, const char **which)
{
	const char *canon = policy_manager_name(manager), *w = NULL;
	int r = -1;

	if (which != NULL)
		*which = NULL;
	if (p == NULL)
		return POLICY_ASK;
	if (canon != NULL && package != NULL)
		r = pkg_match(p, canon, package, false, &w);
	if (r < 0)
		return p->install;
	if (which != NULL)
		*which = w;
	return (enum policy_action)r;
}

enum policy_action
packages_verdict_install(const struct policy *p, const struct pkg_install *inst,
    const char **which)
{
	const char *canon = policy_manager_name(inst->manager), *allow = NULL;
	bool all = inst->n_items > 0;

	if (which != NULL)
		*which = NULL;
	if (p == NULL)
		return POLICY_ASK;
	for (size_t i = 0; i < inst->n_items && canon != NULL; i++) {
		const char *w = NULL;
		int r = pkg_match(p, canon, inst->items[i].name,
		    inst->items[i].local, &w);

		if (r == POLICY_DENY) {
			if (which != NULL)
				*which = w;
			return POLICY_DENY;
		}
		if (r == POLICY_ALLOW && allow == NULL)
			allow = w;
		if (r != POLICY_ALLOW)
			all = false;
	}
	if (p->install == POLICY_ALLOW)
		return POLICY_ALLOW;
	if (all && canon != NULL && inst->n_files == 0 &&
	    inst->n_index_urls == 0) {
		if (which != NULL)
			*which = allow;
		return POLICY_ALLOW;
	}
	return p->install;
}
