/* SPDX-License-Identifier: MIT */
#include "supervisor/packages.h"
#include "supervisor/pkg-int.h"

#include <stdbool.h>
#include <string.h>

#include "config/util.h"

/* ------------------------------------------------------------------ */
/* apt, dpkg */

static const struct pkg_opt apt_opts[] = {
	{ "help", 'h', OPT_NOT, NULL },
	{ "version", 'v', OPT_NOT, NULL },
	/* Simulations touch nothing and fetch nothing. */
	{ "simulate", 's', OPT_NOT, NULL },
	{ "just-print", 0, OPT_NOT, NULL },
	{ "dry-run", 0, OPT_NOT, NULL },
	{ "recon", 0, OPT_NOT, NULL },
	{ "no-act", 0, OPT_NOT, NULL },
	{ "option", 'o', OPT_SKIP, NULL },
	{ "config-file", 'c', OPT_SKIP, NULL },
	{ "target-release", 't', OPT_SKIP, NULL },
	{ "default-release", 0, OPT_SKIP, NULL },
	{ "host-architecture", 'a', OPT_SKIP, NULL },
	{ "build-profiles", 'P', OPT_SKIP, NULL },
	{ "solver", 0, OPT_SKIP, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

static const struct pkg_syntax apt_syntax = { .opts = apt_opts };

int
pkg_apt(struct pkg_parse *st, char *const argv[], size_t i)
{
	static const struct {
		const char	*cmd;
		const char	*action;
	} cmds[] = {
		{ "install", "install" }, { "reinstall", "install" },
		{ "update", "update" }, { "upgrade", "upgrade" },
		{ "dist-upgrade", "upgrade" }, { "full-upgrade", "upgrade" },
		{ "safe-upgrade", "upgrade" }, { "download", "download" },
		{ "source", "download" }, { "build-dep", "build-dep" },
		{ "satisfy", "install" },
	};
	const char *action = NULL;

	st->out->manager = "apt";
	st->item = pkg_item_apt;
	pkg_walk(st, &apt_syntax, argv, i, false);
	if (st->n_pos == 0)
		return 0;
	for (size_t c = 0; c < ARRAY_SIZE(cmds); c++)
		if (strcmp(cmds[c].cmd, st->pos[0]) == 0)
			action = cmds[c].action;
	if (action == NULL)
		return 0;
	for (size_t k = 1; k < st->n_pos; k++)
		st->item(st, st->pos[k]);
	return pkg_set(st, "apt", action);
}

static const struct pkg_opt dpkg_opts[] = {
	{ "help", '?', OPT_NOT, NULL },
	{ "version", 0, OPT_NOT, NULL },
	{ "install", 'i', OPT_ACTION, "install" },
	{ "unpack", 0, OPT_ACTION, "unpack" },
	{ "root", 0, OPT_TARGET, NULL },
	{ "instdir", 0, OPT_TARGET, NULL },
	{ "admindir", 0, OPT_SKIP, NULL },
	{ "log", 0, OPT_SKIP, NULL },
	{ "status-fd", 0, OPT_SKIP, NULL },
	{ "status-logger", 0, OPT_SKIP, NULL },
	{ "path-include", 0, OPT_SKIP, NULL },
	{ "path-exclude", 0, OPT_SKIP, NULL },
	{ "pre-invoke", 0, OPT_SKIP, NULL },
	{ "post-invoke", 0, OPT_SKIP, NULL },
	{ "abort-after", 0, OPT_SKIP, NULL },
	{ "debug", 'D', OPT_SKIP, NULL },
	{ "no-act", 0, OPT_NOT, NULL },
	{ "dry-run", 0, OPT_NOT, NULL },
	{ "simulate", 0, OPT_NOT, NULL },
	/* Every other action reads or removes. */
	{ "list", 'l', OPT_NOT, NULL },
	{ "listfiles", 'L', OPT_NOT, NULL },
	{ "status", 's', OPT_NOT, NULL },
	{ "search", 'S', OPT_NOT, NULL },
	{ "remove", 'r', OPT_NOT, NULL },
	{ "purge", 'P', OPT_NOT, NULL },
	{ "contents", 'c', OPT_NOT, NULL },
	{ "extract", 'x', OPT_NOT, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

static const struct pkg_syntax dpkg_syntax = { .opts = dpkg_opts };

int
pkg_dpkg(struct pkg_parse *st, char *const argv[], size_t i)
{
	st->out->manager = "dpkg";
	st->item = pkg_item_apt;
	pkg_walk(st, &dpkg_syntax, argv, i, false);
	if (st->out->action == NULL)
		return 0;
	/* The packages are in the .deb files (or folders, with -R). */
	pkg_files_from_pos(st);
	st->out->manager = "dpkg";
	return 1;
}

/* ------------------------------------------------------------------ */
/* gem, cargo, go, conda */

static const struct pkg_opt gem_opts[] = {
	{ "help", 'h', OPT_NOT, NULL },
	{ "version", 'v', OPT_VERSION, NULL },
	{ "install-dir", 'i', OPT_TARGET, NULL },
	{ "user-install", 0, OPT_SETTARGET, "~/.gem" },
	{ "bindir", 'n', OPT_SKIP, NULL },
	{ "source", 's', OPT_INDEX, NULL },
	{ "file", 'g', OPT_FILE_OPT, "Gemfile" },
	{ "document", 0, OPT_SKIP, NULL },
	{ "http-proxy", 'p', OPT_SKIP, NULL },
	{ "platform", 0, OPT_SKIP, NULL },
	{ "build-root", 0, OPT_SKIP, NULL },
	{ "trust-policy", 'P', OPT_SKIP, NULL },
	{ "config-file", 0, OPT_SKIP, NULL },
	{ "target-rbconfig", 0, OPT_SKIP, NULL },
	{ "without", 0, OPT_SKIP, NULL },
	{ "no-document", 'N', OPT_FLAG, NULL },
	{ "no-user-install", 0, OPT_FLAG, NULL },
	{ "env-shebang", 'E', OPT_FLAG, NULL },
	{ "force", 'f', OPT_FLAG, NULL },
	{ "wrappers", 'w', OPT_FLAG, NULL },
	{ "development", 0, OPT_FLAG, NULL },
	{ "conservative", 0, OPT_FLAG, NULL },
	{ "minimal-deps", 0, OPT_FLAG, NULL },
	{ "prerelease", 0, OPT_FLAG, NULL },
	{ "pre", 0, OPT_FLAG, NULL },
	{ "local", 'l', OPT_FLAG, NULL },
	{ "remote", 'r', OPT_FLAG, NULL },
	{ "both", 'b', OPT_FLAG, NULL },
	{ "clear-sources", 0, OPT_FLAG, NULL },
	{ "ignore-dependencies", 0, OPT_FLAG, NULL },
	{ "quiet", 'q', OPT_FLAG, NULL },
	{ "verbose", 'V', OPT_FLAG, NULL },
	{ "update-sources", 'u', OPT_FLAG, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

/* Ruby's OptionParser takes unique prefixes. */
static const struct pkg_syntax gem_syntax = { .opts = gem_opts, .abbrev = true };

int
pkg_gem(struct pkg_parse *st, char *const argv[], size_t i)
{
	const char *cmd, *action;
	size_t j;

	st->out->manager = "gem";
	st->item = pkg_item_gem;
	j = pkg_walk(st, &gem_syntax, argv, i, true);
	if ((cmd = argv[j]) == NULL)
		return 0;
	/* gem takes unique prefixes of commands too: ins, inst ... */
	if (strcmp(cmd, "i") == 0 ||
	    (strlen(cmd) >= 3 && strncmp("install", cmd, strlen(cmd)) == 0))
		action = "install";
	else if (strlen(cmd) >= 2 && strncmp("update", cmd, strlen(cmd)) == 0)
		action = "update";
	else if (strcmp(cmd, "fetch") == 0)
		action = "download";
	else
		return 0;
	pkg_walk(st, &gem_syntax, argv, j + 1, false);
	pkg_items_from_pos(st);
	return pkg_set(st, "gem", action);
}

static const struct pkg_opt cargo_global_opts[] = {
	{ "help", 'h', OPT_NOT, NULL },
	{ "version", 'V', OPT_NOT, NULL },
	{ "list", 0, OPT_NOT, NULL },
	{ "explain", 0, OPT_NOT, NULL },
	{ "color", 0, OPT_SKIP, NULL },
	{ "config", 0, OPT_SKIP, NULL },
	{ NULL, 'C', OPT_SKIP, NULL },
	{ NULL, 'Z', OPT_SKIP, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

static const struct pkg_syntax cargo_global_syntax = { .opts = cargo_global_opts };

static const struct pkg_opt cargo_opts[] = {
	{ "help", 'h', OPT_NOT, NULL },
	{ "list", 0, OPT_NOT, NULL },
	{ "version", 0, OPT_VERSION, NULL },
	{ "vers", 0, OPT_VERSION, NULL },
	{ "git", 0, OPT_SOURCE, NULL },
	{ "path", 0, OPT_PATHSRC, NULL },
	{ "root", 0, OPT_TARGET, NULL },
	{ "index", 0, OPT_INDEX, NULL },
	{ "registry", 0, OPT_INDEX, NULL },
	{ "branch", 0, OPT_SKIP, NULL },
	{ "tag", 0, OPT_SKIP, NULL },
	{ "rev", 0, OPT_SKIP, NULL },
	{ "jobs", 'j', OPT_SKIP, NULL },
	{ "features", 'F', OPT_SKIP, NULL },
	{ "profile", 0, OPT_SKIP, NULL },
	{ "target", 0, OPT_SKIP, NULL },
	{ "target-dir", 0, OPT_SKIP, NULL },
	{ "bin", 0, OPT_SKIP, NULL },
	{ "example", 0, OPT_SKIP, NULL },
	{ "config", 0, OPT_SKIP, NULL },
	{ "color", 0, OPT_SKIP, NULL },
	{ "message-format", 0, OPT_SKIP, NULL },
	{ "rename", 0, OPT_SKIP, NULL },
	{ "manifest-path", 0, OPT_SKIP, NULL },
	{ "lockfile-path", 0, OPT_SKIP, NULL },
	{ "package", 'p', OPT_SKIP, NULL },
	{ NULL, 'Z', OPT_SKIP, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

static const struct pkg_syntax cargo_syntax = { .opts = cargo_opts };

int
pkg_cargo(struct pkg_parse *st, char *const argv[], size_t i)
{
	const char *cmd;
	size_t j;

	st->out->manager = "cargo";
	st->item = pkg_item_at;
	/* cargo +nightly install ... */
	if (argv[i] != NULL && argv[i][0] == '+')
		i++;
	j = pkg_walk(st, &cargo_global_syntax, argv, i, true);
	if ((cmd = argv[j]) == NULL)
		return 0;
	if (strcmp(cmd, "install") != 0 && strcmp(cmd, "add") != 0)
		return 0;
	pkg_walk(st, &cargo_syntax, argv, j + 1, false);
	pkg_items_from_pos(st);
	return pkg_set(st, "cargo", cmd);
}

static const struct pkg_opt go_opts[] = {
	{ "h", 0, OPT_NOT, NULL },
	{ "help", 0, OPT_NOT, NULL },
	{ "C", 0, OPT_SKIP, NULL },
	{ "p", 0, OPT_SKIP, NULL },
	{ "o", 0, OPT_SKIP, NULL },
	{ "tags", 0, OPT_SKIP, NULL },
	{ "ldflags", 0, OPT_SKIP, NULL },
	{ "gcflags", 0, OPT_SKIP, NULL },
	{ "asmflags", 0, OPT_SKIP, NULL },
	{ "gccgoflags", 0, OPT_SKIP, NULL },
	{ "mod", 0, OPT_SKIP, NULL },
	{ "modfile", 0, OPT_SKIP, NULL },
	{ "pkgdir", 0, OPT_SKIP, NULL },
	{ "installsuffix", 0, OPT_SKIP, NULL },
	{ "toolexec", 0, OPT_SKIP, NULL },
	{ "buildmode", 0, OPT_SKIP, NULL },
	{ "compiler", 0, OPT_SKIP, NULL },
	{ "overlay", 0, OPT_SKIP, NULL },
	{ "pgo", 0, OPT_SKIP, NULL },
	{ "covermode", 0, OPT_SKIP, NULL },
	{ "coverpkg", 0, OPT_SKIP, NULL },
	{ "exec", 0, OPT_SKIP, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

static const struct pkg_syntax go_syntax = { .opts = go_opts, .go = true };

int
pkg_go(struct pkg_parse *st, char *const argv[], size_t i)
{
	const char *cmd;
	size_t j;

	st->out->manager = "go";
	st->item = pkg_item_at;
	j = pkg_walk(st, &go_syntax, argv, i, true);
	if ((cmd = argv[j]) == NULL)
		return 0;
	if (strcmp(cmd, "install") != 0 && strcmp(cmd, "get") != 0)
		return 0;
	/* Go's flags end at the first package: the rest are packages. */
	j = pkg_walk(st, &go_syntax, argv, j + 1, true);
	for (; argv[j] != NULL; j++)
		st->item(st, argv[j]);
	return pkg_set(st, "go", cmd);
}

static const struct pkg_opt conda_opts[] = {
	{ "help", 'h', OPT_NOT, NULL },
	{ "version", 'V', OPT_NOT, NULL },
	{ "dry-run", 'd', OPT_NOT, NULL },
	{ "name", 'n', OPT_ENV, NULL },
	{ "prefix", 'p', OPT_TARGET, NULL },
	{ "channel", 'c', OPT_INDEX, NULL },
	{ "file", 'f', OPT_FILE, NULL },
	{ "root-prefix", 'r', OPT_SKIP, NULL },
	{ "solver", 0, OPT_SKIP, NULL },
	{ "repodata-fn", 0, OPT_SKIP, NULL },
	{ "experimental", 0, OPT_SKIP, NULL },
	{ "platform", 0, OPT_SKIP, NULL },
	{ "subdir", 0, OPT_SKIP, NULL },
	{ "clone", 0, OPT_SKIP, NULL },
	{ "console", 0, OPT_SKIP, NULL },
	{ "channel-priority", 0, OPT_SKIP, NULL },
	{ "yes", 'y', OPT_FLAG, NULL },
	{ "quiet", 'q', OPT_FLAG, NULL },
	{ "verbose", 'v', OPT_FLAG, NULL },
	{ "json", 0, OPT_FLAG, NULL },
	{ "offline", 0, OPT_FLAG, NULL },
	{ "override-channels", 0, OPT_FLAG, NULL },
	{ "strict-channel-priority", 0, OPT_FLAG, NULL },
	{ "no-deps", 0, OPT_FLAG, NULL },
	{ "only-deps", 0, OPT_FLAG, NULL },
	{ "update-deps", 0, OPT_FLAG, NULL },
	{ "force-reinstall", 0, OPT_FLAG, NULL },
	{ "freeze-installed", 0, OPT_FLAG, NULL },
	{ "download-only", 0, OPT_FLAG, NULL },
	{ "insecure", 'k', OPT_FLAG, NULL },
	{ "use-local", 0, OPT_FLAG, NULL },
	{ "copy", 0, OPT_FLAG, NULL },
	{ "mkdir", 'm', OPT_FLAG, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

/* argparse takes unique prefixes. */
static const struct pkg_syntax conda_syntax = { .opts = conda_opts, .abbrev = true };

int
pkg_conda_cmd(struct pkg_parse *st, char *const argv[], size_t i)
{
	const char *cmd, *action;
	bool env = false;
	size_t j;

	st->out->manager = "conda";
	st->item = pkg_item_conda;
	j = pkg_walk(st, &conda_syntax, argv, i, true);
	if ((cmd = argv[j]) != NULL && strcmp(cmd, "env") == 0) {
		env = true;
		j = pkg_walk(st, &conda_syntax, argv, j + 1, true);
		cmd = argv[j];
	}
	if (cmd == NULL)
		return 0;
	if (strcmp(cmd, "install") == 0 && !env)
		action = "install";
	else if (strcmp(cmd, "create") == 0)
		action = "create";
	else if (strcmp(cmd, "update") == 0 || strcmp(cmd, "upgrade") == 0)
		action = "update";
	else
		return 0;
	pkg_walk(st, &conda_syntax, argv, j + 1, false);
	pkg_items_from_pos(st);
	/* conda env create reads environment.yml unless told otherwise. */
	if (env && st->out->n_files == 0)
		strv_push(&st->out->files, &st->out->n_files,
		    xstrdup("environment.yml"));
	return pkg_set(st, "conda", action);
}
