/* SPDX-License-Identifier: MIT */
#include "supervisor/packages.h"
#include "supervisor/pkg-int.h"

#include <stdbool.h>
#include <string.h>

#include "config/util.h"

#define OPT_HELP { "help", 'h', OPT_NOT, NULL }

static const struct pkg_opt pip_opts[] = {
	OPT_HELP,
	{ "version", 'V', OPT_NOT, NULL },
	{ "requirement", 'r', OPT_FILE, NULL },
	{ "constraint", 'c', OPT_FILE, NULL },
	{ "editable", 'e', OPT_LOCAL, NULL },
	{ "index-url", 'i', OPT_INDEX, NULL },
	{ "extra-index-url", 0, OPT_INDEX, NULL },
	{ "find-links", 'f', OPT_INDEX, NULL },
	{ "target", 't', OPT_TARGET, NULL },
	{ "prefix", 0, OPT_TARGET, NULL },
	{ "root", 0, OPT_TARGET, NULL },
	{ "user", 0, OPT_SETTARGET, "~/.local" },
	{ "dest", 'd', OPT_TARGET, NULL },
	{ "wheel-dir", 'w', OPT_TARGET, NULL },
	{ "src", 0, OPT_SKIP, NULL },
	{ "log", 0, OPT_SKIP, NULL },
	{ "log-file", 0, OPT_SKIP, NULL },
	{ "local-log", 0, OPT_SKIP, NULL },
	{ "proxy", 0, OPT_SKIP, NULL },
	{ "retries", 0, OPT_SKIP, NULL },
	{ "resume-retries", 0, OPT_SKIP, NULL },
	{ "timeout", 0, OPT_SKIP, NULL },
	{ "exists-action", 0, OPT_SKIP, NULL },
	{ "trusted-host", 0, OPT_SKIP, NULL },
	{ "cert", 0, OPT_SKIP, NULL },
	{ "client-cert", 0, OPT_SKIP, NULL },
	{ "cache-dir", 0, OPT_SKIP, NULL },
	{ "python", 0, OPT_SKIP, NULL },
	{ "use-feature", 0, OPT_SKIP, NULL },
	{ "use-deprecated", 0, OPT_SKIP, NULL },
	{ "keyring-provider", 0, OPT_SKIP, NULL },
	{ "platform", 0, OPT_SKIP, NULL },
	{ "python-version", 0, OPT_SKIP, NULL },
	{ "implementation", 0, OPT_SKIP, NULL },
	{ "abi", 0, OPT_SKIP, NULL },
	{ "upgrade-strategy", 0, OPT_SKIP, NULL },
	{ "no-binary", 0, OPT_SKIP, NULL },
	{ "only-binary", 0, OPT_SKIP, NULL },
	{ "progress-bar", 0, OPT_SKIP, NULL },
	{ "root-user-action", 0, OPT_SKIP, NULL },
	{ "report", 0, OPT_SKIP, NULL },
	{ "config-settings", 'C', OPT_SKIP, NULL },
	{ "global-option", 0, OPT_SKIP, NULL },
	{ "install-option", 0, OPT_SKIP, NULL },
	{ "build-option", 0, OPT_SKIP, NULL },
	{ "group", 0, OPT_SKIP, NULL },
	/* Flags, listed so that their prefixes stay ambiguous as in pip. */
	{ "upgrade", 'U', OPT_FLAG, NULL },
	{ "ignore-installed", 'I', OPT_FLAG, NULL },
	{ "ignore-requires-python", 0, OPT_FLAG, NULL },
	{ "quiet", 'q', OPT_FLAG, NULL },
	{ "verbose", 'v', OPT_FLAG, NULL },
	{ "isolated", 0, OPT_FLAG, NULL },
	{ "require-virtualenv", 0, OPT_FLAG, NULL },
	{ "no-input", 0, OPT_FLAG, NULL },
	{ "no-index", 0, OPT_FLAG, NULL },
	{ "no-deps", 0, OPT_FLAG, NULL },
	{ "no-cache-dir", 0, OPT_FLAG, NULL },
	{ "no-color", 0, OPT_FLAG, NULL },
	{ "no-clean", 0, OPT_FLAG, NULL },
	{ "no-compile", 0, OPT_FLAG, NULL },
	{ "no-build-isolation", 0, OPT_FLAG, NULL },
	{ "no-warn-script-location", 0, OPT_FLAG, NULL },
	{ "no-warn-conflicts", 0, OPT_FLAG, NULL },
	{ "disable-pip-version-check", 0, OPT_FLAG, NULL },
	{ "pre", 0, OPT_FLAG, NULL },
	{ "prefer-binary", 0, OPT_FLAG, NULL },
	{ "force-reinstall", 0, OPT_FLAG, NULL },
	{ "require-hashes", 0, OPT_FLAG, NULL },
	{ "break-system-packages", 0, OPT_FLAG, NULL },
	{ "compile", 0, OPT_FLAG, NULL },
	{ "dry-run", 0, OPT_FLAG, NULL },
	{ "debug", 0, OPT_FLAG, NULL },
	{ "check-build-dependencies", 0, OPT_FLAG, NULL },
	{ "use-pep517", 0, OPT_FLAG, NULL },
	{ "no-use-pep517", 0, OPT_FLAG, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

/* pip reads options with optparse, which takes unique prefixes. */
static const struct pkg_syntax pip_syntax = { .opts = pip_opts, .abbrev = true };

int
pkg_pip(struct pkg_parse *st, char *const argv[], size_t i)
{
	size_t j;
	const char *cmd;

	st->out->manager = "pip";
	st->item = pkg_item_pep508;
	j = pkg_walk(st, &pip_syntax, argv, i, true);
	if ((cmd = argv[j]) == NULL)
		return 0;
	if (strcmp(cmd, "install") != 0 && strcmp(cmd, "download") != 0 &&
	    strcmp(cmd, "wheel") != 0)
		return 0;
	pkg_walk(st, &pip_syntax, argv, j + 1, false);
	pkg_items_from_pos(st);
	return pkg_set(st, "pip", cmd);
}

static const struct pkg_opt uv_opts[] = {
	OPT_HELP,
	{ "version", 'V', OPT_NOT, NULL },
	{ "requirements", 'r', OPT_FILE, NULL },
	{ "requirement", 0, OPT_FILE, NULL },
	{ "constraint", 'c', OPT_FILE, NULL },
	{ "constraints", 0, OPT_FILE, NULL },
	{ "with-requirements", 0, OPT_FILE, NULL },
	{ "editable", 'e', OPT_LOCAL, NULL },
	{ "index-url", 'i', OPT_INDEX, NULL },
	{ "extra-index-url", 0, OPT_INDEX, NULL },
	{ "index", 0, OPT_INDEX, NULL },
	{ "default-index", 0, OPT_INDEX, NULL },
	{ "find-links", 'f', OPT_INDEX, NULL },
	{ "target", 't', OPT_TARGET, NULL },
	{ "prefix", 0, OPT_TARGET, NULL },
	{ "with", 'w', OPT_ITEM, NULL },
	{ "from", 0, OPT_FROM, NULL },
	{ "python", 'p', OPT_SKIP, NULL },
	{ "cache-dir", 0, OPT_SKIP, NULL },
	{ "directory", 0, OPT_SKIP, NULL },
	{ "project", 0, OPT_SKIP, NULL },
	{ "config-file", 0, OPT_SKIP, NULL },
	{ "color", 0, OPT_SKIP, NULL },
	{ "python-preference", 0, OPT_SKIP, NULL },
	{ "allow-insecure-host", 0, OPT_SKIP, NULL },
	{ "override", 0, OPT_SKIP, NULL },
	{ "overrides", 0, OPT_SKIP, NULL },
	{ "build-constraint", 'b', OPT_SKIP, NULL },
	{ "build-constraints", 0, OPT_SKIP, NULL },
	{ "index-strategy", 0, OPT_SKIP, NULL },
	{ "keyring-provider", 0, OPT_SKIP, NULL },
	{ "resolution", 0, OPT_SKIP, NULL },
	{ "prerelease", 0, OPT_SKIP, NULL },
	{ "exclude-newer", 0, OPT_SKIP, NULL },
	{ "config-setting", 'C', OPT_SKIP, NULL },
	{ "config-settings", 0, OPT_SKIP, NULL },
	{ "no-binary", 0, OPT_SKIP, NULL },
	{ "only-binary", 0, OPT_SKIP, NULL },
	{ "no-binary-package", 0, OPT_SKIP, NULL },
	{ "no-build-package", 0, OPT_SKIP, NULL },
	{ "python-platform", 0, OPT_SKIP, NULL },
	{ "python-version", 0, OPT_SKIP, NULL },
	{ "upgrade-package", 'P', OPT_SKIP, NULL },
	{ "reinstall-package", 0, OPT_SKIP, NULL },
	{ "refresh-package", 0, OPT_SKIP, NULL },
	{ "link-mode", 0, OPT_SKIP, NULL },
	{ "extra", 0, OPT_SKIP, NULL },
	{ "group", 0, OPT_SKIP, NULL },
	{ "optional", 0, OPT_SKIP, NULL },
	{ "package", 0, OPT_SKIP, NULL },
	{ "script", 0, OPT_SKIP, NULL },
	{ "branch", 0, OPT_SKIP, NULL },
	{ "tag", 0, OPT_SKIP, NULL },
	{ "rev", 0, OPT_SKIP, NULL },
	{ "marker", 'm', OPT_SKIP, NULL },
	{ "bounds", 0, OPT_SKIP, NULL },
	{ "torch-backend", 0, OPT_SKIP, NULL },
	{ "env-file", 0, OPT_SKIP, NULL },
	{ "output-file", 'o', OPT_SKIP, NULL },
	{ NULL, 0, OPT_FLAG, NULL },
};

static const struct pkg_syntax uv_syntax = { .opts = uv_opts };

/* uvx / uv tool run: the first positional is the command (and, without
 * --from, the package); what follows belongs to it. */
int
pkg_uvx(struct pkg_parse *st, char *const argv[], size_t i)
{
	size_t j;

	st->out->manager = "uv";
	st->item = pkg_item_pep508;
	j = pkg_walk(st, &uv_syntax, argv, i, true);
	if (argv[j] == NULL && !st->from)
		return 0;
	if (!st->from)
		st->item(st, argv[j]);
	return pkg_set(st, "uv", "fetch-and-run");
}

int
pkg_uv(struct pkg_parse *st, char *const argv[], size_t i)
{
	size_t j, k;
	const char *cmd, *sub;

	st->out->manager = "uv";
	st->item = pkg_item_pep508;
	j = pkg_walk(st, &uv_syntax, argv, i, true);
	if ((cmd = argv[j]) == NULL)
		return 0;
	if (strcmp(cmd, "pip") == 0) {
		k = pkg_walk(st, &uv_syntax, argv, j + 1, true);
		if ((sub = argv[k]) == NULL)
			return 0;
		if (strcmp(sub, "install") != 0 && strcmp(sub, "sync") != 0 &&
		    strcmp(sub, "compile") != 0)
			return 0;
		pkg_walk(st, &uv_syntax, argv, k + 1, false);
		/* pip sync and compile take requirement files, not packages. */
		if (strcmp(sub, "install") == 0)
			pkg_items_from_pos(st);
		else
			pkg_files_from_pos(st);
		return pkg_set(st, "uv", sub);
	}
	if (strcmp(cmd, "add") == 0) {
		pkg_walk(st, &uv_syntax, argv, j + 1, false);
		pkg_items_from_pos(st);
		return pkg_set(st, "uv", "add");
	}
	if (strcmp(cmd, "sync") == 0) {
		pkg_walk(st, &uv_syntax, argv, j + 1, false);
		strv_push(&st->out->files, &st->out->n_files,
		    xstrdup("pyproject.toml"));
		return pkg_set(st, "uv", "sync");
	}
	if (strcmp(cmd, "tool") == 0) {
		k = pkg_walk(st, &uv_syntax, argv, j + 1, true);
		if ((sub = argv[k]) == NULL)
			return 0;
		if (strcmp(sub, "run") == 0)
			return pkg_uvx(st, argv, k + 1);
		if (strcmp(sub, "install") != 0)
			return 0;
		pkg_walk(st, &uv_syntax, argv, k + 1, false);
		pkg_items_from_pos(st);
		return pkg_set(st, "uv", "tool-install");
	}
	/* uv run installs what --with names; the project's own dependencies
	 * are the project's (uv sync). */
	if (strcmp(cmd, "run") == 0) {
		pkg_walk(st, &uv_syntax, argv, j + 1, true);
		if (st->out->n_items == 0)
			return 0;
		return pkg_set(st, "uv", "run");
	}
	return 0;
}

bool
pkg_name_versioned(const char *base, const char *stem)
{
	size_t n = strlen(stem);

	return strncmp(base, stem, n) == 0 &&
	    strspn(base + n, "0123456789.") == strlen(base + n);
}

/* python [opts] -m pip ..., python [opts] .../pip3 ...: "pip" or "uv",
 * their arguments from *i on; NULL for anything else. */
const char *
pkg_python_runs(char *const argv[], size_t *ret)
{
	const char *module = NULL;
	size_t i = 1;

	while (argv[i] != NULL && module == NULL) {
		const char *a = argv[i++];

		if (a[0] != '-' || strcmp(a, "-") == 0) {
			const char *base = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;

			*ret = i;
			return pkg_name_versioned(base, "pip") ? "pip" : NULL;
		}
		if (strcmp(a, "--") == 0) {
			if (argv[i] == NULL)
				return NULL;
			continue;
		}
		if (a[1] == '-') {
			if (strcmp(a, "--check-hash-based-pycs") == 0 &&
			    argv[i] != NULL)
				i++;
			else if (strcmp(a, "--help") == 0 ||
			    strcmp(a, "--version") == 0)
				return NULL;
			continue;
		}
		for (const char *c = a + 1; *c != '\0'; c++) {
			if (*c == 'c' || *c == 'h' || *c == 'V' || *c == '?')
				return NULL;
			if (*c == 'm') {
				if (c[1] == '\0' && argv[i] == NULL)
					return NULL;
				module = c[1] ? c + 1 : argv[i++];
				break;
			}
			if (*c == 'W' || *c == 'X') {
				if (c[1] == '\0' && argv[i] != NULL)
					i++;
				break;
			}
		}
	}
	*ret = i;
	if (module == NULL)
		return NULL;
	if (strcmp(module, "pip") == 0 || strcmp(module, "pip.__main__") == 0)
		return "pip";
	if (strcmp(module, "uv") == 0)
		return "uv";
	return NULL;
}
