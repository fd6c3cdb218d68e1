/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A package install as plain data (what a manager's command line or a
 * requirements file asks for), and what the policy's [packages] section
 * says of it (DESIGN §6): the judging half of packages, apart from the
 * reading of command lines in supervisor/packages.h, as struct net_dest
 * and approvals/netrules.h are for connects.
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/policy.h"

/*
 * One package named on the command line or in a file. "requests==2.32.3"
 * -> requests, 2.32.3; "lodash@4" -> lodash, 4; "@types/node@20" ->
 * @types/node, 20; "flask>=2,<3" -> flask, ">=2,<3" (an operator other than
 * = / == / @ is kept); "pkg[extra]>=1; python_version<'3.8'" -> pkg, ">=1".
 * A local path or a URL ("./dir", "x.whl", "git+https://...", "user/repo"
 * on npm) is an item named by the path or URL as written, version NULL.
 */
struct pkg_item {
	char		*name;
	char		*version;	/* or NULL */
	/* Not a registry package: a path, a URL, an npm alias or git spec,
	 * or a name taken from a local or git source (cargo --path/--git).
	 * Allow patterns never match it. */
	bool		 local;
};

struct pkg_install {
	/* "pip", "uv", "npm", "pnpm", "yarn", "npx", "apt", "dpkg", "gem",
	 * "cargo", "go", "conda": static, as policy_manager_name() spells it */
	const char	*manager;
	/* "install", "add", "ci", "update", "upgrade", "download", "wheel",
	 * "sync", "compile", "get", "create", "unpack", "build-dep",
	 * "fetch-and-run", "tool-install", "run" */
	char		*action;
	struct pkg_item	*items;
	size_t		 n_items;
	/* Requirement or manifest files, as written (relative to the exec's
	 * cwd): -r/-c FILE, conda --file, package.json for a bare npm/pnpm/
	 * yarn install or ci, pyproject.toml for uv sync, a .deb for dpkg -i. */
	char	       **files;
	size_t		 n_files;
	/* Where it lands, as written: --target/--prefix/--root DIR, "~/.local"
	 * for pip --user, "~/.gem" for gem --user-install, "global" for npm/
	 * pnpm/yarn -g, "env:NAME" for conda -n NAME; NULL = the manager's
	 * default (a venv, ./node_modules, ~/.cargo ...). */
	char		*target;
	/* Sources named on the command line: -i/--index-url/--extra-index-url/
	 * -f/--find-links, --registry, gem --source, cargo --index/--registry,
	 * conda -c CHANNEL. URLs or, for some managers, names. */
	char	       **index_urls;
	size_t		 n_index_urls;
};

/* Free what *p holds and zero it; NULL is a no-op. */
void	pkg_install_done(struct pkg_install *);

/* Does a name, as manager reads it, stand for something other than a
 * registry package: a path, a URL, an archive, an npm alias or git spec,
 * "user/repo" on npm? */
bool	pkg_looks_local(const char *manager, const char *name);

/*
 * The policy for one package: [packages] deny patterns first, then allow,
 * else install. *which (may be NULL) is the pattern that matched ("pip:
 * requests", in the policy), or NULL for the install default. manager may
 * be an alias (pip3). Names compare as the registry does: case-insensitive
 * for pip, uv, cargo, conda and apt, with - _ . alike for pip and uv and
 * - _ alike for cargo. An allow pattern never matches a local path or a
 * URL: it names registry packages, not code from elsewhere.
 */
enum policy_action packages_verdict(const struct policy *,
	    const char *manager, const char *package, const char **which);
/*
 * The policy for a whole install: DENY when any item is denied; ALLOW
 * when install = allow, or when every item is allowed by a pattern and the
 * install names no files (read after the check, they could change) and no
 * index URLs (the same names from another index are other code); else the
 * install default. *which as for packages_verdict.
 */
enum policy_action packages_verdict_install(const struct policy *,
	    const struct pkg_install *, const char **which);
