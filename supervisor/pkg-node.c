/* SPDX-License-Identifier: MIT */
#include "supervisor/packages.h"
#include "supervisor/pkg-int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/util.h"

static const struct pkg_opt npm_opts[] = {
	{ "help", 'h', OPT_NOT, NULL },
	{ "usage", 0, OPT_NOT, NULL },
	{ "version", 'v', OPT_NOT, NULL },
	{ "global", 'g', OPT_SETTARGET, "global" },
	{ "prefix", 'C', OPT_TARGET, NULL },
	{ "registry", 0, OPT_INDEX, NULL },
	{ "workspace", 'w', OPT_SKIP, NULL },
	{ "cache", 0, OPT_SKIP, NULL },
	{ "userconfig", 0, OPT_SKIP, NULL },
	{ "globalconfig", 0, OPT_SKIP, NULL },
	{ "tag", 0, OPT_SKIP, NULL },
	{ "loglevel", 0, OPT_SKIP, NULL },
	{ "omit", 0, OPT_SKIP, NULL },
	{ "include", 0, OPT_SKIP, NULL },
	{ "install-strategy", 0, OPT_SKIP, NULL },
	{ "save-prefix", 0, OPT_SKIP, NULL },
	{ "script-shell", 0, OPT_SKIP, NULL },
	{ "otp", 0, OPT_SKIP, NULL },
	{ "before", 0, OPT_SKIP, NULL },
	{ "cafile", 0, OPT_SKIP, NULL },
	{ "ca", 0, OPT_SKIP, NULL },
	{ "cert", 0, OPT_SKIP, NULL },
	{ "key", 0, OPT_SKIP, NULL },
	{ "proxy", 0, OPT_SKIP, NULL },
	{ "https-proxy", 0, OPT_SKIP, NULL },
	{ "noproxy", 0, OPT_SKIP, NULL },
	{ "fetch-retries", 0, OPT_SKIP, NULL },
	{ "fetch-timeout", 0, OPT_SKIP, NULL },
	{ "node-options", 0, OPT_SKIP, NULL },
	{ "location", 0, OPT_SKIP, NULL },
	{ "lockfile-version", 0, OPT_SKIP, NULL },
	{ "auth-type", 0, OPT_SKIP, NULL },
	{ "access", 0, OPT_SKIP, NULL },
	{ "os", 0, OPT_SKIP, NULL },
	{ "cpu", 0, OPT_SKIP, NULL },
	{ "libc", 0, OPT_SKIP, NULL },
	{ "user-agent", 0, OPT_SKIP, NULL },
	{ "save-dev", 'D', OPT_FLAG, NULL },
	{ "save-prod", 'P', OPT_FLAG, NULL },
	{ "save-optional", 'O', OPT_FLAG, NULL },
	{ "save-exact", 'E', OPT_FLAG, NULL },
	{ "save-bundle", 'B', OPT_FLAG, NULL },
	{ "save", 'S', OPT_FLAG, NULL },
	{ "yes", 'y', OPT_FLAG, NULL },
	{ "force", 'f', OPT_FLAG, NULL },
	{ "silent", 's', OPT_FLAG, NULL },
	{ "quiet", 'q', OPT_FLAG, NULL },
	{ "no-save", 0, OPT_FLAG, NULL },
	{ "ignore-scripts", 0, OPT_FLAG, NULL },
	{ "dry-run", 0, OPT_FLAG, NULL },
	{ "legacy-peer-deps", 0, OPT_FLAG, NULL },
	{ "production", 0, OPT_FLAG, NULL },
	{ "prefer-offline", 0, OPT_FLAG, NULL },
	{ "prefer-online", 0, OPT_FLAG, NULL },
	{ "offline", 0, OPT_FLAG, NULL },
	{ "no-audit", 0, OPT_FLAG, NULL },
	{ "no-fund", 0, OPT_FLAG, NULL },
	{ "foreground-scripts", 0, OPT_FLAG, NULL },
	{ "package-lock-only", 0, OPT_FLAG, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

/* npm reads options with nopt, which takes unique prefixes too. */
static const struct pkg_syntax npm_syntax = {
	.opts = npm_opts, .abbrev = true, .nopt = true,
};

/* npm exec / npx: -p names the packages; without it the command does. */
static const struct pkg_opt npx_opts[] = {
	{ "help", 'h', OPT_NOT, NULL },
	{ "version", 'v', OPT_NOT, NULL },
	{ "package", 'p', OPT_FROM, NULL },
	{ "call", 'c', OPT_SKIP, NULL },
	{ "no-install", 0, OPT_NOT, NULL },
	{ "no", 0, OPT_NOT, NULL },
	{ "yes", 'y', OPT_FLAG, NULL },
	{ "registry", 0, OPT_INDEX, NULL },
	{ "prefix", 'C', OPT_SKIP, NULL },
	{ "cache", 0, OPT_SKIP, NULL },
	{ "userconfig", 0, OPT_SKIP, NULL },
	{ "workspace", 'w', OPT_SKIP, NULL },
	{ "loglevel", 0, OPT_SKIP, NULL },
	{ "shell", 0, OPT_SKIP, NULL },
	{ "node-options", 0, OPT_SKIP, NULL },
	{ "quiet", 'q', OPT_FLAG, NULL },
	{ "ignore-existing", 0, OPT_FLAG, NULL },
	{ "prefer-offline", 0, OPT_FLAG, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

static const struct pkg_syntax npx_syntax = {
	.opts = npx_opts, .abbrev = true, .nopt = true,
};

static int
pkg_fetch_run(struct pkg_parse *st, const char *manager, char *const argv[],
    size_t i)
{
	size_t j;

	st->out->manager = manager;
	st->item = pkg_item_npm;
	j = pkg_walk(st, &npx_syntax, argv, i, true);
	if (argv[j] == NULL && !st->from)
		return 0;
	if (!st->from)
		st->item(st, argv[j]);
	return pkg_set(st, manager, "fetch-and-run");
}

int
pkg_npx(struct pkg_parse *st, char *const argv[], size_t i)
{
	return pkg_fetch_run(st, "npx", argv, i);
}

int
pkg_pnpx(struct pkg_parse *st, char *const argv[], size_t i)
{
	return pkg_fetch_run(st, "pnpm", argv, i);
}

/*
 * npm init X, yarn create X, pnpm create X run the package create-X:
 * foo -> create-foo, @s -> @s/create, @s/foo -> @s/create-foo (each @ver
 * kept).
 */
static int
pkg_create(struct pkg_parse *st, const char *manager, const char *spec)
{
	cleanup_free char *name = NULL;
	const char *at = strchr(spec[0] == '@' ? spec + 1 : spec, '@');
	const char *ver = at ? at : "";
	size_t n = at ? (size_t)(at - spec) : strlen(spec);
	const char *slash;

	if (pkg_looks_local("npm", spec) && spec[0] != '@')
		return 0;
	name = xstrndup(spec, n);
	if (name[0] == '@' && (slash = strchr(name, '/')) != NULL) {
		char *full = xasprintf("%.*s/create-%s%s", (int)(slash - name),
		    name, slash + 1, ver);

		st->item(st, full);
		free(full);
	} else if (name[0] == '@') {
		char *full = xasprintf("%s/create%s", name, ver);

		st->item(st, full);
		free(full);
	} else {
		char *full = xasprintf("create-%s%s", name, ver);

		st->item(st, full);
		free(full);
	}
	return pkg_set(st, manager, "fetch-and-run");
}

int
pkg_npm(struct pkg_parse *st, char *const argv[], size_t i)
{
	static const struct {
		const char	*cmd;
		const char	*action;
	} cmds[] = {
		{ "install", "install" }, { "i", "install" }, { "in", "install" },
		{ "ins", "install" }, { "inst", "install" },
		{ "insta", "install" }, { "instal", "install" },
		{ "isnt", "install" }, { "isnta", "install" },
		{ "isntal", "install" }, { "isntall", "install" },
		{ "add", "add" }, { "install-test", "install" },
		{ "it", "install" },
		{ "ci", "ci" }, { "clean-install", "ci" }, { "ic", "ci" },
		{ "install-clean", "ci" }, { "isntall-clean", "ci" },
		{ "install-ci-test", "ci" }, { "cit", "ci" },
		{ "update", "update" }, { "up", "update" },
		{ "upgrade", "update" }, { "udpate", "update" },
	};
	const char *cmd, *action = NULL;
	size_t j, k;

	st->out->manager = "npm";
	st->item = pkg_item_npm;
	j = pkg_walk(st, &npm_syntax, argv, i, true);
	if ((cmd = argv[j]) == NULL)
		return 0;
	if (strcmp(cmd, "exec") == 0 || strcmp(cmd, "x") == 0)
		return pkg_npx(st, argv, j + 1);
	if (strcmp(cmd, "init") == 0 || strcmp(cmd, "create") == 0 ||
	    strcmp(cmd, "innit") == 0) {
		st->out->manager = "npx";
		k = pkg_walk(st, &npm_syntax, argv, j + 1, true);
		return argv[k] ? pkg_create(st, "npx", argv[k]) : 0;
	}
	for (size_t c = 0; c < ARRAY_SIZE(cmds); c++)
		if (strcmp(cmds[c].cmd, cmd) == 0)
			action = cmds[c].action;
	if (action == NULL)
		return 0;
	pkg_walk(st, &npm_syntax, argv, j + 1, false);
	pkg_items_from_pos(st);
	/* A bare install or ci installs what package.json names. */
	if (st->out->n_items == 0 && strcmp(action, "update") != 0)
		strv_push(&st->out->files, &st->out->n_files,
		    xstrdup("package.json"));
	return pkg_set(st, "npm", action);
}

static const struct pkg_opt pnpm_opts[] = {
	{ "help", 'h', OPT_NOT, NULL },
	{ "version", 'v', OPT_NOT, NULL },
	{ "global", 'g', OPT_SETTARGET, "global" },
	{ "registry", 0, OPT_INDEX, NULL },
	{ "package", 0, OPT_FROM, NULL },
	{ "dir", 'C', OPT_SKIP, NULL },
	{ "filter", 'F', OPT_SKIP, NULL },
	{ "store-dir", 0, OPT_SKIP, NULL },
	{ "virtual-store-dir", 0, OPT_SKIP, NULL },
	{ "modules-dir", 0, OPT_SKIP, NULL },
	{ "global-dir", 0, OPT_SKIP, NULL },
	{ "lockfile-dir", 0, OPT_SKIP, NULL },
	{ "reporter", 0, OPT_SKIP, NULL },
	{ "loglevel", 0, OPT_SKIP, NULL },
	{ "workspace-concurrency", 0, OPT_SKIP, NULL },
	{ "network-concurrency", 0, OPT_SKIP, NULL },
	{ "child-concurrency", 0, OPT_SKIP, NULL },
	{ "allow-build", 0, OPT_SKIP, NULL },
	{ "save-dev", 'D', OPT_FLAG, NULL },
	{ "save-prod", 'P', OPT_FLAG, NULL },
	{ "save-optional", 'O', OPT_FLAG, NULL },
	{ "save-exact", 'E', OPT_FLAG, NULL },
	{ "save-peer", 0, OPT_FLAG, NULL },
	{ "workspace-root", 'w', OPT_FLAG, NULL },
	{ "recursive", 'r', OPT_FLAG, NULL },
	{ "silent", 's', OPT_FLAG, NULL },
	{ "frozen-lockfile", 0, OPT_FLAG, NULL },
	{ "prefer-offline", 0, OPT_FLAG, NULL },
	{ "offline", 0, OPT_FLAG, NULL },
	{ "ignore-scripts", 0, OPT_FLAG, NULL },
	{ "prod", 0, OPT_FLAG, NULL },
	{ "dev", 0, OPT_FLAG, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

static const struct pkg_syntax pnpm_syntax = {
	.opts = pnpm_opts, .abbrev = true, .nopt = true,
};

int
pkg_pnpm(struct pkg_parse *st, char *const argv[], size_t i)
{
	const char *cmd, *action;
	size_t j, k;

	st->out->manager = "pnpm";
	st->item = pkg_item_npm;
	j = pkg_walk(st, &pnpm_syntax, argv, i, true);
	if ((cmd = argv[j]) == NULL)
		return 0;
	if (strcmp(cmd, "dlx") == 0) {
		k = pkg_walk(st, &pnpm_syntax, argv, j + 1, true);
		if (argv[k] == NULL && !st->from)
			return 0;
		if (!st->from)
			st->item(st, argv[k]);
		return pkg_set(st, "pnpm", "fetch-and-run");
	}
	if (strcmp(cmd, "create") == 0) {
		k = pkg_walk(st, &pnpm_syntax, argv, j + 1, true);
		return argv[k] ? pkg_create(st, "pnpm", argv[k]) : 0;
	}
	if (strcmp(cmd, "add") == 0)
		action = "add";
	else if (strcmp(cmd, "install") == 0 || strcmp(cmd, "i") == 0)
		action = "install";
	else if (strcmp(cmd, "update") == 0 || strcmp(cmd, "up") == 0 ||
	    strcmp(cmd, "upgrade") == 0)
		action = "update";
	else
		return 0;
	pkg_walk(st, &pnpm_syntax, argv, j + 1, false);
	pkg_items_from_pos(st);
	if (st->out->n_items == 0 && strcmp(action, "install") == 0)
		strv_push(&st->out->files, &st->out->n_files,
		    xstrdup("package.json"));
	return pkg_set(st, "pnpm", action);
}

static const struct pkg_opt yarn_opts[] = {
	{ "help", 'h', OPT_NOT, NULL },
	{ "version", 'v', OPT_NOT, NULL },
	{ "registry", 0, OPT_INDEX, NULL },
	{ "package", 'p', OPT_FROM, NULL },
	{ "cwd", 0, OPT_SKIP, NULL },
	{ "modules-folder", 0, OPT_TARGET, NULL },
	{ "prefix", 0, OPT_SKIP, NULL },
	{ "cache-folder", 0, OPT_SKIP, NULL },
	{ "global-folder", 0, OPT_SKIP, NULL },
	{ "link-folder", 0, OPT_SKIP, NULL },
	{ "preferred-cache-folder", 0, OPT_SKIP, NULL },
	{ "network-timeout", 0, OPT_SKIP, NULL },
	{ "network-concurrency", 0, OPT_SKIP, NULL },
	{ "mutex", 0, OPT_SKIP, NULL },
	{ "use-yarnrc", 0, OPT_SKIP, NULL },
	{ "proxy", 0, OPT_SKIP, NULL },
	{ "https-proxy", 0, OPT_SKIP, NULL },
	{ "otp", 0, OPT_SKIP, NULL },
	{ "cafile", 0, OPT_SKIP, NULL },
	{ "dev", 'D', OPT_FLAG, NULL },
	{ "peer", 'P', OPT_FLAG, NULL },
	{ "optional", 'O', OPT_FLAG, NULL },
	{ "exact", 'E', OPT_FLAG, NULL },
	{ "tilde", 'T', OPT_FLAG, NULL },
	{ "ignore-workspace-root-check", 'W', OPT_FLAG, NULL },
	{ "silent", 's', OPT_FLAG, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

static const struct pkg_syntax yarn_syntax = { .opts = yarn_opts };

int
pkg_yarn(struct pkg_parse *st, char *const argv[], size_t i)
{
	const char *cmd, *action;
	size_t j, k;

	st->out->manager = "yarn";
	st->item = pkg_item_npm;
	j = pkg_walk(st, &yarn_syntax, argv, i, true);
	cmd = argv[j];
	/* A bare yarn is yarn install. */
	if (cmd == NULL || strcmp(cmd, "install") == 0) {
		pkg_walk(st, &yarn_syntax, argv, cmd ? j + 1 : j, false);
		strv_push(&st->out->files, &st->out->n_files,
		    xstrdup("package.json"));
		return pkg_set(st, "yarn", "install");
	}
	if (strcmp(cmd, "workspace") == 0) {
		k = pkg_walk(st, &yarn_syntax, argv, j + 1, true);
		return argv[k] ? pkg_yarn(st, argv, k + 1) : 0;
	}
	if (strcmp(cmd, "dlx") == 0) {
		k = pkg_walk(st, &yarn_syntax, argv, j + 1, true);
		if (argv[k] == NULL && !st->from)
			return 0;
		if (!st->from)
			st->item(st, argv[k]);
		return pkg_set(st, "yarn", "fetch-and-run");
	}
	if (strcmp(cmd, "create") == 0) {
		k = pkg_walk(st, &yarn_syntax, argv, j + 1, true);
		return argv[k] ? pkg_create(st, "yarn", argv[k]) : 0;
	}
	if (strcmp(cmd, "global") == 0) {
		k = pkg_walk(st, &yarn_syntax, argv, j + 1, true);
		if (argv[k] == NULL || strcmp(argv[k], "add") != 0)
			return 0;
		pkg_str_set(&st->out->target, xstrdup("global"));
		j = k;
		cmd = "add";
	}
	if (strcmp(cmd, "add") == 0)
		action = "add";
	else if (strcmp(cmd, "upgrade") == 0 || strcmp(cmd, "up") == 0)
		action = "update";
	else
		return 0;	/* yarn run, yarn test, yarn SCRIPT ... */
	pkg_walk(st, &yarn_syntax, argv, j + 1, false);
	pkg_items_from_pos(st);
	return pkg_set(st, "yarn", action);
}

/* node [opts] SCRIPT ... where SCRIPT is a manager's entry point: the
 * command line it takes (as config/policy.h's table names it), its
 * arguments from *i on; NULL for anything else. */
const char *
pkg_node_runs(char *const argv[], size_t *ret)
{
	static const char *const with_value[] = {
		"-r", "--require", "--import", "--loader",
		"--experimental-loader", "--input-type", "--title", "-C",
		"--conditions", "--env-file", "--inspect-port",
	};
	size_t i = 1;

	while (argv[i] != NULL) {
		const char *a = argv[i++], *base;
		const struct policy_manager_alias *m;

		if (a[0] == '-') {
			if (strcmp(a, "-e") == 0 || strcmp(a, "--eval") == 0 ||
			    strcmp(a, "-p") == 0 || strcmp(a, "--print") == 0 ||
			    strcmp(a, "-") == 0)
				return NULL;
			for (size_t k = 0; k < ARRAY_SIZE(with_value); k++)
				if (strcmp(a, with_value[k]) == 0 && argv[i])
					i++;
			continue;
		}
		base = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
		m = policy_manager_alias(base, MANAGER_AS_SCRIPT);
		*ret = i;
		return m != NULL ? m->command : NULL;
	}
	return NULL;
}
