/* SPDX-License-Identifier: MIT */
#include "supervisor/packages.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config/escape.h"
#include "config/util.h"
#include "supervisor/pkg-int.h"

/*
 * Registry hosts per manager when the policy has no [manager X] hosts.
 * Host syntax as in [network] allow.
 */
static const struct {
	const char	*manager;
	const char	*hosts[5];
} packages_builtin_hosts[] = {
	{ "pip", { "pypi.org:443", "files.pythonhosted.org:443" } },
	{ "uv", { "pypi.org:443", "files.pythonhosted.org:443" } },
	{ "npm", { "registry.npmjs.org:443" } },
	{ "npx", { "registry.npmjs.org:443" } },
	{ "pnpm", { "registry.npmjs.org:443" } },
	{ "yarn", { "registry.yarnpkg.com:443", "registry.npmjs.org:443" } },
	{ "apt", { "deb.debian.org:80", "deb.debian.org:443",
	    "security.debian.org:80", "security.debian.org:443" } },
	{ "dpkg", { NULL } },
	{ "gem", { "rubygems.org:443" } },
	{ "cargo", { "crates.io:443", "static.crates.io:443",
	    "index.crates.io:443" } },
	{ "go", { "proxy.golang.org:443", "sum.golang.org:443" } },
	{ "conda", { "conda.anaconda.org:443", "repo.anaconda.com:443" } },
};

/* ------------------------------------------------------------------ */
/* Recognition */

/*
 * The parser of each command line a manager's name may stand for
 * (struct policy_manager_alias's command, config/policy-pkg.c).
 */
static const struct {
	const char	*command;
	int		(*parse)(struct pkg_parse *, char *const argv[], size_t);
} pkg_commands[] = {
	{ "pip", pkg_pip }, { "uv", pkg_uv }, { "uvx", pkg_uvx },
	{ "npm", pkg_npm }, { "npx", pkg_npx }, { "pnpm", pkg_pnpm },
	{ "pnpx", pkg_pnpx }, { "yarn", pkg_yarn }, { "apt", pkg_apt },
	{ "dpkg", pkg_dpkg }, { "gem", pkg_gem }, { "cargo", pkg_cargo },
	{ "go", pkg_go }, { "conda", pkg_conda_cmd },
};

/*
 * The command line argv holds from *i on: a manager's by the program's
 * name, or one an interpreter runs (python3.11 -m pip, node .../npm-cli.js).
 */
static const char *
pkg_command_of(const char *prog, char *const argv[], size_t *i)
{
	const struct policy_manager_alias *m;
	const char *base;

	*i = 1;
	if (prog == NULL)
		return NULL;
	base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	if ((m = policy_manager_alias(base, MANAGER_AS_PROGRAM)) != NULL)
		return m->command;
	if (strcmp(base, "node") == 0 || strcmp(base, "nodejs") == 0)
		return pkg_node_runs(argv, i);
	if (pkg_name_versioned(base, "python"))
		return pkg_python_runs(argv, i);
	return NULL;
}

/* Does path name the program, or must argv[0] (execveat AT_EMPTY_PATH,
 * fexecve through /proc/self/fd/N or /dev/fd/N)? */
static bool
pkg_path_names(const char *path)
{
	const char *base;

	if (path == NULL || *path == '\0')
		return false;
	if (str_has_prefix(path, "/proc/") || str_has_prefix(path, "/dev/fd/"))
		return false;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	return *base != '\0' && strspn(base, "0123456789") != strlen(base);
}

static int
pkg_dispatch(struct pkg_parse *st, const char *command, char *const argv[],
    size_t i)
{
	for (size_t k = 0; command != NULL && k < ARRAY_SIZE(pkg_commands); k++)
		if (strcmp(pkg_commands[k].command, command) == 0)
			return pkg_commands[k].parse(st, argv, i);
	return 0;
}

int
packages_parse(const char *path, char *const argv[], struct pkg_install *out)
{
	static char empty[] = "";
	static char *const no_argv[] = { empty, NULL };
	struct pkg_parse st = { .out = out };
	const char *command;
	size_t start;
	int r;

	if (out == NULL)
		return -EINVAL;
	*out = (struct pkg_install){ 0 };
	/* Linux runs an empty argv as { "" }: so do we. */
	if (argv == NULL || argv[0] == NULL)
		argv = no_argv;
	command = pkg_command_of(pkg_path_names(path) ? path : argv[0], argv,
	    &start);
	r = pkg_dispatch(&st, command, argv, start);
	if (r > 0 && st.not_install)
		r = 0;
	if (r > 0) {
		for (size_t i = 0; i < out->n_items; i++) {
			struct pkg_item *it = &out->items[i];

			if (st.version != NULL && it->version == NULL && !it->local)
				it->version = xstrdup(st.version);
			if (st.local_source)
				it->local = true;
		}
	} else {
		pkg_install_done(out);
	}
	strv_free(st.pos);
	free(st.version);
	return r;
}

/* ------------------------------------------------------------------ */
/* Hosts */

static void
pkg_hosts_add(struct policy_host **v, size_t *n, struct policy_host h)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*v)[i].host, h.host) == 0 &&
		    (*v)[i].port_lo == h.port_lo && (*v)[i].port_hi == h.port_hi) {
			free(h.host);
			return;
		}
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = h;
}

/* host:port of an http(s), ssh or git URL anywhere in s ("pkg @ https://..",
 * "git+https://.."), parsed as a [network] allow entry; -EINVAL if none. */
static int
pkg_url_host(const char *s, struct policy_host *ret)
{
	static const struct {
		const char	*scheme;
		unsigned	 port;
	} schemes[] = {
		{ "https", 443 }, { "http", 80 }, { "ssh", 22 }, { "git", 9418 },
	};
	cleanup_free char *auth = NULL;
	cleanup_free char *entry = NULL;
	cleanup_free char *why = NULL;
	const char *sep = strstr(s, "://"), *start, *plus, *hostp, *port = NULL;
	char *at;
	unsigned defport = 0;
	size_t hostlen;

	if (sep == NULL)
		return -EINVAL;
	for (start = sep; start > s && (isalnum((unsigned char)start[-1]) ||
	    start[-1] == '+' || start[-1] == '.' || start[-1] == '-'); start--)
		;
	/* git+https -> https */
	for (plus = start; (plus = memchr(plus, '+', (size_t)(sep - plus))) != NULL;
	    start = ++plus)
		;
	for (size_t i = 0; i < ARRAY_SIZE(schemes); i++)
		if (strlen(schemes[i].scheme) == (size_t)(sep - start) &&
		    strncasecmp(start, schemes[i].scheme, (size_t)(sep - start)) == 0)
			defport = schemes[i].port;
	if (defport == 0)
		return -EINVAL;
	auth = xstrndup(sep + 3, strcspn(sep + 3, "/?#"));
	if ((at = strrchr(auth, '@')) != NULL)
		memmove(auth, at + 1, strlen(at + 1) + 1);
	hostp = auth;
	if (auth[0] == '[') {
		const char *close = strchr(auth, ']');

		if (close == NULL)
			return -EINVAL;
		hostlen = (size_t)(close - auth) + 1;
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0')
			return -EINVAL;
	} else {
		hostlen = strcspn(auth, ":");
		if (auth[hostlen] == ':')
			port = auth + hostlen + 1;
	}
	/* A URL names one host and one port: no "*.", no ranges. */
	if (hostlen == 0 || memchr(hostp, '*', hostlen) != NULL ||
	    (port != NULL && strspn(port, "0123456789") != strlen(port)))
		return -EINVAL;
	if (port != NULL && *port != '\0')
		entry = xasprintf("%.*s:%s", (int)hostlen, hostp, port);
	else
		entry = xasprintf("%.*s:%u", (int)hostlen, hostp, defport);
	return policy_host_parse(entry, ret, &why);
}

size_t
packages_hosts(const struct policy *p, const struct pkg_install *inst,
    struct policy_host **ret)
{
	const struct policy_manager *m = policy_manager_find(p, inst->manager);
	struct policy_host *v = NULL;
	size_t n = 0, url_indexes = 0;

	for (size_t i = 0; i < inst->n_index_urls; i++) {
		struct policy_host h;

		if (pkg_url_host(inst->index_urls[i], &h) == 0) {
			url_indexes++;
			free(h.host);
		}
	}

	if (m != NULL) {
		for (size_t i = 0; i < m->n_hosts; i++) {
			struct policy_host h = m->hosts[i];

			h.host = xstrdup(h.host);
			pkg_hosts_add(&v, &n, h);
		}
	} else if (url_indexes == 0) {
		/* A command line that names its index (-i, --registry ...)
		 * gets that index, not the default registries as well: an
		 * --extra-index-url install's other hosts are asked apart. */
		for (size_t i = 0; i < ARRAY_SIZE(packages_builtin_hosts); i++) {
			if (inst->manager == NULL ||
			    strcmp(packages_builtin_hosts[i].manager,
			    inst->manager) != 0)
				continue;
			for (const char *const *s = packages_builtin_hosts[i].hosts;
			    s < packages_builtin_hosts[i].hosts +
			    ARRAY_SIZE(packages_builtin_hosts[i].hosts) &&
			    *s != NULL; s++) {
				struct policy_host h;
				char *why = NULL;

				if (policy_host_parse(*s, &h, &why) < 0)
					fatal("built-in host %s: %s", *s, why);
				pkg_hosts_add(&v, &n, h);
			}
		}
	}
	for (size_t i = 0; i < inst->n_index_urls; i++) {
		struct policy_host h;

		if (pkg_url_host(inst->index_urls[i], &h) == 0)
			pkg_hosts_add(&v, &n, h);
	}
	for (size_t i = 0; i < inst->n_items; i++) {
		struct policy_host h;

		if (pkg_url_host(inst->items[i].name, &h) == 0)
			pkg_hosts_add(&v, &n, h);
		else if (inst->items[i].version != NULL &&
		    pkg_url_host(inst->items[i].version, &h) == 0)
			pkg_hosts_add(&v, &n, h);
	}
	*ret = v;
	return n;
}

void
packages_hosts_free(struct policy_host *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].host);
	free(v);
}

/* ------------------------------------------------------------------ */
/* Description */

#define DESCRIBE_MAX	12

static const char *
pkg_version_sep(const char *manager, const char *version)
{
	bool op = strchr("<>=!~", version[0]) != NULL;

	if (strcmp(manager, "pip") == 0 || strcmp(manager, "uv") == 0)
		return op ? "" : "==";
	if (strcmp(manager, "conda") == 0)
		return op ? "" : "=";
	if (strcmp(manager, "apt") == 0 || strcmp(manager, "dpkg") == 0)
		return version[0] == '/' ? "" : "=";
	if (strcmp(manager, "gem") == 0)
		return ":";
	return "@";
}

static void
pkg_buf_add(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
pkg_buf_add(char **s, const char *fmt, ...)
{
	cleanup_free char *more = NULL;
	char *old = *s;
	va_list ap;

	va_start(ap, fmt);
	more = xvasprintf(fmt, ap);
	va_end(ap);
	*s = xasprintf("%s%s", old, more);
	free(old);
}

static void
pkg_buf_list(char **s, const char *lead, char *const *v, size_t n)
{
	for (size_t i = 0; i < n && i < DESCRIBE_MAX; i++)
		pkg_buf_add(s, "%s%s", i == 0 ? lead : " ", v[i]);
	if (n > DESCRIBE_MAX)
		pkg_buf_add(s, " +%zu more", n - DESCRIBE_MAX);
}

char *
packages_describe(const struct pkg_install *inst,
    const struct policy_host *hosts, size_t n_hosts)
{
	const char *manager = inst->manager ? inst->manager : "?";
	cleanup_free char *s = xasprintf("%s %s", manager,
	    inst->action ? inst->action : "install");

	for (size_t i = 0; i < inst->n_items && i < DESCRIBE_MAX; i++) {
		const struct pkg_item *it = &inst->items[i];

		if (it->version != NULL && !it->local)
			pkg_buf_add(&s, " %s%s%s", it->name,
			    pkg_version_sep(manager, it->version), it->version);
		else if (it->version != NULL)
			pkg_buf_add(&s, " %s@%s", it->name, it->version);
		else
			pkg_buf_add(&s, " %s", it->name);
	}
	if (inst->n_items > DESCRIBE_MAX)
		pkg_buf_add(&s, " +%zu more", inst->n_items - DESCRIBE_MAX);
	if (inst->n_items > 0)
		pkg_buf_add(&s, " (%zu package%s)", inst->n_items,
		    inst->n_items == 1 ? "" : "s");
	pkg_buf_list(&s, " from ", inst->files, inst->n_files);
	if (inst->target != NULL)
		pkg_buf_add(&s, " -> %s", inst->target);
	pkg_buf_list(&s, "; index ", inst->index_urls, inst->n_index_urls);
	if (n_hosts == 0)
		pkg_buf_add(&s, "; no hosts");
	for (size_t i = 0; i < n_hosts; i++) {
		const struct policy_host *h = &hosts[i];
		bool v6 = strchr(h->host, ':') != NULL;

		pkg_buf_add(&s, "%s%s%s%s", i == 0 ? "; hosts " : " ", v6 ? "[" : "",
		    h->host, v6 ? "]" : "");
		if (h->port_lo == h->port_hi)
			pkg_buf_add(&s, ":%u", h->port_lo);
		else if (h->port_lo != 0 || h->port_hi != 65535)
			pkg_buf_add(&s, ":%u-%u", h->port_lo, h->port_hi);
	}
	return escape_str(s);
}
