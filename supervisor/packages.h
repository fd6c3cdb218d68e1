/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Package installs recognised from an exec (DESIGN §6): which manager, what
 * it installs, where it lands and which registry hosts it needs (the
 * policy's [manager NAME]); what [packages] says of it is judged from the
 * plain struct pkg_install in approvals/pkgrules.h. Pure functions over strings the caller already copied out of the target: they
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

#include "approvals/pkgrules.h"
#include "config/policy.h"

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
