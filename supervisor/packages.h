#pragma once
/*
 * Package installs recognised from an exec (DESIGN §6): which manager, what
 * it installs, where it lands, which registry hosts it needs, and what the
 * policy's [packages] and [manager NAME] sections say about it. Pure
 * functions over strings the caller already copied out of the target: they
 * never touch the target, and everything they return is shown, not obeyed
 * (escape before printing; packages_describe does).
 *
 * packages.c recognises the program and dispatches, finds the hosts and
 * describes; the command lines are read in pkg-python.c (pip, uv),
 * pkg-node.c (npm, npx, pnpm, yarn), pkg-system.c (apt, dpkg, gem,
 * cargo, go, conda) over pkg-args.c's option walker and item syntaxes;
 * pkg-files.c reads requirement files and package.json. What they share
 * is in pkg-int.h, for them alone.
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

/*
 * Is this exec an install? The program is the basename of path, or of
 * argv[0] when path names none (NULL, "", /proc/self/fd/N, /dev/fd/N:
 * execveat with AT_EMPTY_PATH, fexecve). Interpreters running a manager
 * count too: python[3[.N]] -m pip|uv, python .../pip3 ..., node .../npm-cli.js
 * (or .../npm, npx, pnpm, yarn). That is also how a "#!/usr/bin/env node"
 * script reaches its interpreter, so one install may come twice from one
 * pid (npm, then node npm): the caller answers the second from the first.
 * 1: an install, *out filled (release it with pkg_install_done); 0: not an
 * install, *out zeroed; -EINVAL: out is NULL.
 */
int	packages_parse(const char *path, char *const argv[],
	    struct pkg_install *out);
void	pkg_install_done(struct pkg_install *);

/*
 * The hosts an approved install may reach: the policy's [manager X] hosts,
 * else the built-in ones; then host:port of every http(s) URL among the
 * index URLs and the items (a URL install needs its host). Duplicates are
 * dropped. Returns the count and a malloc'd array in *ret (NULL when 0);
 * the caller frees each host string and the array (packages_hosts_free).
 * The policy may be NULL: the built-in hosts.
 */
size_t	packages_hosts(const struct policy *, const struct pkg_install *,
	    struct policy_host **ret);
void	packages_hosts_free(struct policy_host *, size_t);

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

/*
 * Add the packages named in a file to inout->items: a requirements file
 * (pip, uv; conda --file in conda's spec syntax) or package.json
 * (dependencies, devDependencies, optionalDependencies) when name ends in
 * ".json". fd is the caller's, read from its current offset; name is the
 * file as written in inout->files. In a requirements file, -r/-c FILE are
 * added to inout->files (relative to name's folder, as pip does) for the
 * caller to read in turn, one level; -i/--index-url/--extra-index-url/
 * -f/--find-links to inout->index_urls; -e PATH as an item.
 * 0; -EFBIG over 64 KiB, -E2BIG over 500 items in all, -EINVAL not text or
 * not JSON, -EOPNOTSUPP a format not read (toml, yaml, .deb ...), -errno
 * from read. On error *inout is unchanged.
 */
#define PACKAGES_FILE_MAX	(64u << 10)
#define PACKAGES_ITEMS_MAX	500u
int	packages_read_file(int fd, const char *name, struct pkg_install *inout);

/*
 * One line for the console and the record, escaped:
 * "pip install requests==2.32.3 flask (2 packages) -> /work/.local; hosts
 * pypi.org:443 files.pythonhosted.org:443". Lists past 12 items end in
 * "+N more".
 */
char	*packages_describe(const struct pkg_install *,
	    const struct policy_host *hosts, size_t n_hosts);
