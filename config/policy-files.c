/* SPDX-License-Identifier: MIT */
/*
 * [files]: writable and hidden folders, projects, exposed credential
 * stores, allow/deny globs, protected paths and what a write does.
 */
#include "config/policy.h"
#include "config/policy-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/pathglob.h"
#include "config/util.h"

int
policy_set_write(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	int a;

	if ((a = policy_action(v, false)) >= 0) {
		p->write = (enum policy_action)a;
		return 0;
	}
	if (strcmp(v, "allow") == 0)
		*why = xasprintf("%s is not one of ask, deny (name folders in "
		    "writable, or globs in allow)", q);
	else
		*why = xasprintf("%s is not one of ask, deny", q);
	return -EINVAL;
}

int
policy_set_writable(struct policy *p, const char *v, char **why)
{
	cleanup_free char *abs = NULL;
	int r;

	if ((r = policy_expand_home(v, &abs, why)) < 0)
		return r;
	return policy_folder(abs, &p->writable, &p->n_writable,
	    "would make the whole host writable", why);
}

/* A project (DESIGN §4): a host folder staged in an overlay, "~/" for
 * the home of who runs ward. */
int
policy_set_project(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	char *path = NULL;
	int r;

	if ((r = policy_home_or_abs(v, &path, why)) < 0)
		return r;
	if (strcmp(path, "~/") == 0) {
		free(path);
		*why = xasprintf("%s: name a folder in the home, not the home "
		    "itself", q);
		return -EINVAL;
	}
	if (strcmp(path, "/") == 0) {
		free(path);
		*why = xasprintf("\"/\": cannot stage the whole host");
		return -EINVAL;
	}
	strv_push(&p->project, &p->n_project, path);
	return 0;
}

int
policy_set_hidden(struct policy *p, const char *v, char **why)
{
	return policy_folder(v, &p->hidden, &p->n_hidden,
	    "cannot hide the whole host", why);
}

static const char *const cred_stores[] = {
	".ssh", ".aws", ".gnupg", ".netrc", ".docker", ".kube", ".azure",
	".git-credentials", ".npmrc", ".pypirc", ".password-store",
	".vault-token", ".cargo/credentials", ".cargo/credentials.toml",
	".config/gcloud", ".config/gh", ".config/op", ".local/share/keyrings",
	".mozilla", ".config/google-chrome", ".config/chromium",
	".config/BraveSoftware", NULL,
};

const char *const *
policy_cred_stores(void)
{
	return cred_stores;
}

/* Does path hold /<store> at a component boundary (a store or inside)? */
const char *
policy_cred_store_of(const char *path)
{
	for (const char *c = path; (c = strchr(c, '/')) != NULL; c++)
		for (size_t i = 0; cred_stores[i] != NULL; i++) {
			size_t n = strlen(cred_stores[i]);

			if (strncmp(c + 1, cred_stores[i], n) == 0 &&
			    (c[1 + n] == '\0' || c[1 + n] == '/'))
				return cred_stores[i];
		}
	return NULL;
}

/* "~/" and a path below the home, or an absolute path; either way a
 * credential store or something in one, never a parent of a store. */
int
policy_set_expose(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	char *path = NULL;
	int r;

	if ((r = policy_home_or_abs(v, &path, why)) < 0)
		return r;
	if (policy_cred_store_of(path + (path[0] == '~')) == NULL) {
		free(path);
		*why = xasprintf("%s is not a credential store or inside one "
		    "(name the store or an entry in it, as ~/.ssh/known_hosts; "
		    "a parent folder never exposes the stores in it)", q);
		return -EINVAL;
	}
	strv_push(&p->expose, &p->n_expose, path);
	return 0;
}

int
policy_set_allow(struct policy *p, const char *v, char **why)
{
	char *glob = NULL;
	int r;

	if ((r = policy_path(v, "glob", &glob, why)) < 0)
		return r;
	strv_push(&p->allow, &p->n_allow, glob);
	return 0;
}

int
policy_set_deny(struct policy *p, const char *v, char **why)
{
	char *glob = NULL;
	int r;

	if ((r = policy_path(v, "glob", &glob, why)) < 0)
		return r;
	strv_push(&p->deny, &p->n_deny, glob);
	return 0;
}

/*
 * A protected path's glob (config/protect.h, config/pathglob.h): relative (in every project
 * and writable folder), "~/..." or absolute, kept as written; the run
 * matches it, there is nothing to expand here.
 */
int
policy_set_protect(struct policy *p, const char *v, char **why)
{
	cleanup_free char *q = policy_quote(v);
	const char *reason = NULL;

	if (pathglob_check(v, &reason) < 0) {
		*why = xasprintf("%s: %s (a glob: relative, ~/ or absolute; "
		    "'*', '?', '**', {a,b})", q, reason);
		return -EINVAL;
	}
	strv_push(&p->protect, &p->n_protect, xstrdup(v));
	return 0;
}
