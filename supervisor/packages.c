#include "supervisor/packages.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "config/escape.h"
#include "config/util.h"

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
/* Items */

struct pkg_parse;
typedef void (*pkg_item_fn)(struct pkg_parse *, const char *);

struct pkg_parse {
	struct pkg_install *out;
	pkg_item_fn	 item;		/* the manager's package syntax */
	char	       **pos;		/* positionals after the subcommand */
	size_t		 n_pos;
	char		*version;	/* gem -v, cargo --version: for all items */
	bool		 not_install;	/* --help, apt -s, npx --no-install ... */
	bool		 local_source;	/* cargo --path/--git: names come from there */
	bool		 from;		/* npx -p, uvx --from: the command is no package */
	bool		 dashdash;	/* "--" seen: no more options */
};

static bool
pkg_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool
pkg_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void
pkg_str_set(char **dst, char *s)
{
	free(*dst);
	*dst = s;
}

static void
pkg_item_add(struct pkg_install *out, char *name, char *version, bool local)
{
	out->items = xreallocarray(out->items, out->n_items + 1,
	    sizeof *out->items);
	out->items[out->n_items++] = (struct pkg_item){
		.name = name,
		.version = version,
		.local = local,
	};
}

static bool
pkg_is_url(const char *s)
{
	return strstr(s, "://") != NULL || pkg_has_prefix(s, "git+") ||
	    pkg_has_prefix(s, "file:");
}

static bool
pkg_is_archive(const char *s)
{
	static const char *const suffixes[] = {
		".whl", ".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz",
		".tar", ".deb", ".gem", ".crate", ".conda",
	};

	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (pkg_has_suffix(s, suffixes[i]))
			return true;
	return false;
}

/* Written as a path: ./x, ../x, /x, ~/x, ., .. */
static bool
pkg_is_path(const char *s)
{
	return s[0] == '/' || s[0] == '~' || strcmp(s, ".") == 0 ||
	    strcmp(s, "..") == 0 || pkg_has_prefix(s, "./") ||
	    pkg_has_prefix(s, "../");
}

static bool
pkg_npm_family(const char *m)
{
	return strcmp(m, "npm") == 0 || strcmp(m, "npx") == 0 ||
	    strcmp(m, "pnpm") == 0 || strcmp(m, "yarn") == 0;
}

/* Does a name, as a manager reads it, stand for something other than a
 * registry package? */
static bool
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
			if (pkg_has_prefix(name, npm_schemes[i]))
				return true;
		/* "user/repo" is GitHub; "@scope/name" is the registry. */
		return name[0] != '@' && strchr(name, '/') != NULL;
	}
	if (strcmp(manager, "pip") == 0 || strcmp(manager, "uv") == 0)
		return strchr(name, '/') != NULL || strchr(name, '\\') != NULL;
	return false;
}

static char *
pkg_trim(const char *s, size_t len)
{
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return xstrndup(s, len);
}

/*
 * PEP 508 as pip takes it on a command line or a requirements line:
 * "name[extra,..] (spec) ; marker". A pinned "==V" keeps V alone; other
 * specifiers are kept whole, blanks dropped.
 */
static void
pkg_pep508(struct pkg_install *out, const char *s)
{
	cleanup_free char *spec = NULL;
	size_t n, len, k;
	char *o;

	if (pkg_looks_local(out->manager, s)) {
		pkg_item_add(out, xstrdup(s), NULL, true);
		return;
	}
	len = strcspn(s, ";");
	n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._-");
	/* After the name: [extras], then a specifier, @ or nothing; else it
	 * is no PEP 508 name and the word stays whole. */
	k = n + strspn(s + n, " \t");
	if (s[k] == '[' && strchr(s + k, ']') != NULL)
		k = (size_t)(strchr(s + k, ']') - s) + 1;
	k += strspn(s + k, " \t");
	if (n == 0 || n > len || (k < len && strchr("<>=!~(@", s[k]) == NULL)) {
		pkg_item_add(out, pkg_trim(s, len), NULL, false);
		return;
	}
	spec = xstrndup(s + n, len - n);
	/* Drop [extras] and blanks and parentheses around the specifier. */
	o = spec;
	for (const char *c = spec; *c != '\0'; c++) {
		if (*c == '[' && o == spec) {
			const char *close = strchr(c, ']');

			if (close != NULL) {
				c = close;
				continue;
			}
		}
		if (*c == ' ' || *c == '\t' || *c == '(' || *c == ')')
			continue;
		*o++ = *c;
	}
	*o = '\0';
	/* uv's "ruff@0.5" (a URL after @ was local above). */
	if (spec[0] == '@')
		memmove(spec, spec + 1, strlen(spec));
	else if (strncmp(spec, "==", 2) == 0 && spec[2] != '=' &&
	    strpbrk(spec + 2, ",<>=!~") == NULL)
		memmove(spec, spec + 2, strlen(spec + 2) + 1);
	pkg_item_add(out, xstrndup(s, n), *spec ? xstrdup(spec) : NULL, false);
}

static void
pkg_item_pep508(struct pkg_parse *st, const char *s)
{
	pkg_pep508(st->out, s);
}

/* name@version, @scope/name@version; an alias, git or path spec is local. */
static void
pkg_npm_spec(struct pkg_install *out, const char *name, const char *version)
{
	bool local = false;

	if (version != NULL)
		local = strchr(version, ':') != NULL || strchr(version, '/') != NULL;
	pkg_item_add(out, xstrdup(name), version ? xstrdup(version) : NULL,
	    local || pkg_looks_local(out->manager, name));
}

static void
pkg_item_npm(struct pkg_parse *st, const char *s)
{
	cleanup_free char *name = NULL;
	const char *at = strchr(s[0] == '@' ? s + 1 : s, '@');

	name = at ? xstrndup(s, (size_t)(at - s)) : xstrdup(s);
	/* "./x", "user/repo", "git+ssh://git@host/x": all of it is the name. */
	if (at == NULL || pkg_looks_local(st->out->manager, name)) {
		pkg_npm_spec(st->out, s, NULL);
		return;
	}
	pkg_npm_spec(st->out, name, at[1] ? at + 1 : NULL);
}

/* name@version (cargo, go). */
static void
pkg_item_at(struct pkg_parse *st, const char *s)
{
	const char *at = strchr(s, '@');

	if (pkg_looks_local(st->out->manager, s)) {
		pkg_item_add(st->out, xstrdup(s), NULL, true);
		return;
	}
	if (at == NULL || at == s || at[1] == '\0') {
		pkg_item_add(st->out, xstrdup(s), NULL, false);
		return;
	}
	pkg_item_add(st->out, xstrndup(s, (size_t)(at - s)), xstrdup(at + 1),
	    false);
}

/* name=version, name/release (kept as "/release"), ./x.deb */
static void
pkg_item_apt(struct pkg_parse *st, const char *s)
{
	size_t n = strcspn(s, "=/");

	if (pkg_looks_local("apt", s)) {
		pkg_item_add(st->out, xstrdup(s), NULL, true);
		return;
	}
	if (s[n] == '\0' || n == 0) {
		pkg_item_add(st->out, xstrdup(s), NULL, false);
		return;
	}
	pkg_item_add(st->out, xstrndup(s, n),
	    xstrdup(s[n] == '=' ? s + n + 1 : s + n), false);
}

/* name:version, or -v for all; ./x.gem */
static void
pkg_item_gem(struct pkg_parse *st, const char *s)
{
	const char *colon = strchr(s, ':');

	if (pkg_looks_local("gem", s) || strchr(s, '/') != NULL) {
		pkg_item_add(st->out, xstrdup(s), NULL, true);
		return;
	}
	if (colon == NULL || colon == s || colon[1] == '\0') {
		pkg_item_add(st->out, xstrdup(s), NULL, false);
		return;
	}
	pkg_item_add(st->out, xstrndup(s, (size_t)(colon - s)),
	    xstrdup(colon + 1), false);
}

/*
 * A conda MatchSpec: "numpy", "numpy=1.24", "numpy==1.24", "numpy>=1.2",
 * "numpy 1.24", "numpy=1.24=py_0", "conda-forge::numpy" (the channel stays
 * in the name: another channel is other code).
 */
static void
pkg_conda(struct pkg_install *out, const char *s)
{
	const char *name = s, *v;
	size_t n;

	if (pkg_looks_local("conda", s)) {
		pkg_item_add(out, xstrdup(s), NULL, true);
		return;
	}
	if (strstr(s, "::") != NULL)
		name = strstr(s, "::") + 2;
	n = (size_t)(name - s) + strcspn(name, "=<>!~ [");
	v = s + n;
	v += strspn(v, " ");
	if (*v == '\0' || n == 0) {
		pkg_item_add(out, pkg_trim(s, strlen(s)), NULL, false);
		return;
	}
	if (v[0] == '=' && v[1] == '=')
		v += 2;
	else if (v[0] == '=')
		v += 1;
	pkg_item_add(out, xstrndup(s, n), *v ? pkg_trim(v, strlen(v)) : NULL,
	    false);
}

static void
pkg_item_conda(struct pkg_parse *st, const char *s)
{
	pkg_conda(st->out, s);
}

/* ------------------------------------------------------------------ */
/* Options */

enum pkg_opt_kind {
	OPT_FLAG,	/* no value */
	OPT_SKIP,	/* a value, ignored */
	OPT_FILE,	/* a value: a requirement or manifest file */
	OPT_FILE_OPT,	/* an optional value (not starting with -), else fixed */
	OPT_TARGET,	/* a value: where it lands */
	OPT_ENV,	/* a value: conda env name, lands in "env:NAME" */
	OPT_INDEX,	/* a value: an index, registry or channel */
	OPT_SOURCE,	/* a value: a git source the names come from */
	OPT_ITEM,	/* a value: one more package */
	OPT_FROM,	/* a value: the package the command comes from */
	OPT_LOCAL,	/* a value: a local path installed (-e PATH) */
	OPT_PATHSRC,	/* a value: a local path the names come from */
	OPT_VERSION,	/* a value: the version of every item */
	OPT_SETTARGET,	/* no value: target = fixed */
	OPT_NOT,	/* no value: this run installs nothing */
	OPT_ACTION,	/* no value: action = fixed (dpkg -i) */
};

struct pkg_opt {
	const char	*name;		/* long, without dashes; or NULL */
	char		 letter;	/* short; or 0 */
	enum pkg_opt_kind kind;
	const char	*fixed;
};

struct pkg_syntax {
	const struct pkg_opt *opts;	/* ends with { NULL, 0, ... } */
	bool		 go;		/* Go's flag package: -name is long, no clusters */
	bool		 abbrev;	/* unique prefixes of long options count */
	bool		 nopt;		/* npm: a flag eats a following true/false */
};

static bool
pkg_opt_has_value(enum pkg_opt_kind k)
{
	switch (k) {
	case OPT_FLAG:
	case OPT_SETTARGET:
	case OPT_NOT:
	case OPT_ACTION:
	case OPT_FILE_OPT:
		return false;
	case OPT_SKIP:
	case OPT_FILE:
	case OPT_TARGET:
	case OPT_ENV:
	case OPT_INDEX:
	case OPT_SOURCE:
	case OPT_ITEM:
	case OPT_FROM:
	case OPT_LOCAL:
	case OPT_PATHSRC:
	case OPT_VERSION:
		return true;
	}
	return false;
}

static void
pkg_opt_apply(struct pkg_parse *st, const struct pkg_opt *o, const char *v)
{
	struct pkg_install *out = st->out;

	switch (o->kind) {
	case OPT_FLAG:
	case OPT_SKIP:
		break;
	case OPT_FILE:
	case OPT_FILE_OPT:
		strv_push(&out->files, &out->n_files, xstrdup(v));
		break;
	case OPT_TARGET:
		pkg_str_set(&out->target, xstrdup(v));
		break;
	case OPT_ENV:
		pkg_str_set(&out->target, xasprintf("env:%s", v));
		break;
	case OPT_SOURCE:
		st->local_source = true;
		/* FALLTHROUGH */
	case OPT_INDEX:
		strv_push(&out->index_urls, &out->n_index_urls, xstrdup(v));
		break;
	case OPT_FROM:
		st->from = true;
		/* FALLTHROUGH */
	case OPT_ITEM:
		st->item(st, v);
		break;
	case OPT_PATHSRC:
		st->local_source = true;
		/* FALLTHROUGH */
	case OPT_LOCAL:
		pkg_item_add(out, xstrdup(v), NULL, true);
		break;
	case OPT_VERSION:
		pkg_str_set(&st->version, xstrdup(v));
		break;
	case OPT_SETTARGET:
		pkg_str_set(&out->target, xstrdup(o->fixed));
		break;
	case OPT_NOT:
		st->not_install = true;
		break;
	case OPT_ACTION:
		pkg_str_set(&out->action, xstrdup(o->fixed));
		break;
	}
}

static const struct pkg_opt *
pkg_opt_long(const struct pkg_syntax *sx, const char *name, size_t len)
{
	static const struct pkg_opt scoped_registry = { NULL, 0, OPT_INDEX, NULL };
	const struct pkg_opt *hit = NULL;
	size_t hits = 0;

	for (const struct pkg_opt *o = sx->opts; o->name || o->letter; o++)
		if (o->name != NULL && strlen(o->name) == len &&
		    strncmp(o->name, name, len) == 0)
			return o;
	/* npm --@scope:registry=URL */
	if (sx->nopt && len > 9 && strncmp(name + len - 9, ":registry", 9) == 0)
		return &scoped_registry;
	if (!sx->abbrev || len == 0)
		return NULL;
	for (const struct pkg_opt *o = sx->opts; o->name || o->letter; o++) {
		/* Prefixes of options that all do the same (skip a value,
		 * say) count as one: whichever it is, the effect is the same. */
		if (o->name != NULL && strncmp(o->name, name, len) == 0) {
			if (hit == NULL || hit->kind != o->kind ||
			    hit->fixed != o->fixed)
				hits++;
			hit = o;
		}
	}
	return hits == 1 ? hit : NULL;
}

static const struct pkg_opt *
pkg_opt_short(const struct pkg_syntax *sx, char c)
{
	for (const struct pkg_opt *o = sx->opts; o->name || o->letter; o++)
		if (o->letter == c)
			return o;
	return NULL;
}

/*
 * Read options from argv[i] on into st. With stop, end at the first
 * positional and return its index; else push positionals to st->pos and
 * return the end. An unknown option is a flag (one that takes a value
 * then leaves the value to be read as a package, shown to the person,
 * which is the safe way to be wrong).
 */
static size_t
pkg_walk(struct pkg_parse *st, const struct pkg_syntax *sx,
    char *const argv[], size_t i, bool stop)
{
	while (argv[i] != NULL) {
		const char *a = argv[i];
		const struct pkg_opt *o;

		if (st->dashdash || a[0] != '-' || a[1] == '\0') {
			if (stop)
				return i;
			strv_push(&st->pos, &st->n_pos, xstrdup(a));
			i++;
			continue;
		}
		i++;
		if (strcmp(a, "--") == 0) {
			st->dashdash = true;
			continue;
		}
		if (a[1] == '-' || sx->go) {
			const char *name = a + (a[1] == '-' ? 2 : 1);
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			if ((o = pkg_opt_long(sx, name, len)) == NULL)
				continue;
			if (o->kind == OPT_FILE_OPT) {
				if (eq != NULL)
					pkg_opt_apply(st, o, eq + 1);
				else if (argv[i] != NULL && argv[i][0] != '-')
					pkg_opt_apply(st, o, argv[i++]);
				else
					pkg_opt_apply(st, o, o->fixed);
			} else if (!pkg_opt_has_value(o->kind)) {
				pkg_opt_apply(st, o, NULL);
				if (sx->nopt && argv[i] != NULL &&
				    (strcmp(argv[i], "true") == 0 ||
				    strcmp(argv[i], "false") == 0))
					i++;
			} else if (eq != NULL) {
				pkg_opt_apply(st, o, eq + 1);
			} else if (argv[i] != NULL) {
				pkg_opt_apply(st, o, argv[i++]);
			}
			continue;
		}
		for (const char *c = a + 1; *c != '\0'; c++) {
			if ((o = pkg_opt_short(sx, *c)) == NULL)
				continue;
			if (o->kind == OPT_FILE_OPT) {
				if (argv[i] != NULL && argv[i][0] != '-')
					pkg_opt_apply(st, o, argv[i++]);
				else
					pkg_opt_apply(st, o, o->fixed);
				continue;
			}
			if (!pkg_opt_has_value(o->kind)) {
				pkg_opt_apply(st, o, NULL);
				continue;
			}
			/* -rreq.txt, -o=Opt=1, -r req.txt */
			if (c[1] != '\0')
				pkg_opt_apply(st, o, c[1] == '=' ? c + 2 : c + 1);
			else if (argv[i] != NULL)
				pkg_opt_apply(st, o, argv[i++]);
			break;
		}
	}
	return i;
}

/* Positionals as packages. */
static void
pkg_items_from_pos(struct pkg_parse *st)
{
	for (size_t i = 0; i < st->n_pos; i++)
		st->item(st, st->pos[i]);
}

static void
pkg_files_from_pos(struct pkg_parse *st)
{
	for (size_t i = 0; i < st->n_pos; i++)
		strv_push(&st->out->files, &st->out->n_files, xstrdup(st->pos[i]));
}

static int
pkg_set(struct pkg_parse *st, const char *manager, const char *action)
{
	st->out->manager = manager;
	pkg_str_set(&st->out->action, xstrdup(action));
	return 1;
}

/* ------------------------------------------------------------------ */
/* pip, uv, python */

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

static int
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
static int
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

static int
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

static bool
pkg_name_versioned(const char *base, const char *stem)
{
	size_t n = strlen(stem);

	return strncmp(base, stem, n) == 0 &&
	    strspn(base + n, "0123456789.") == strlen(base + n);
}

/* python [opts] -m pip ..., python [opts] .../pip3 ... */
static int
pkg_python(struct pkg_parse *st, char *const argv[])
{
	const char *module = NULL;
	size_t i = 1;

	while (argv[i] != NULL && module == NULL) {
		const char *a = argv[i++];

		if (a[0] != '-' || strcmp(a, "-") == 0) {
			const char *base = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;

			if (pkg_name_versioned(base, "pip"))
				return pkg_pip(st, argv, i);
			return 0;
		}
		if (strcmp(a, "--") == 0) {
			if (argv[i] == NULL)
				return 0;
			continue;
		}
		if (a[1] == '-') {
			if (strcmp(a, "--check-hash-based-pycs") == 0 &&
			    argv[i] != NULL)
				i++;
			else if (strcmp(a, "--help") == 0 ||
			    strcmp(a, "--version") == 0)
				return 0;
			continue;
		}
		for (const char *c = a + 1; *c != '\0'; c++) {
			if (*c == 'c' || *c == 'h' || *c == 'V' || *c == '?')
				return 0;
			if (*c == 'm') {
				if (c[1] == '\0' && argv[i] == NULL)
					return 0;
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
	if (module == NULL)
		return 0;
	if (strcmp(module, "pip") == 0 || strcmp(module, "pip.__main__") == 0)
		return pkg_pip(st, argv, i);
	if (strcmp(module, "uv") == 0)
		return pkg_uv(st, argv, i);
	return 0;
}

/* ------------------------------------------------------------------ */
/* npm, npx, pnpm, yarn, node */

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
pkg_npx(struct pkg_parse *st, const char *manager, char *const argv[],
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

static int
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
		return pkg_npx(st, "npx", argv, j + 1);
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

static int
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

static int
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

/* node [opts] SCRIPT ... where SCRIPT is a manager's entry point. */
static int
pkg_node(struct pkg_parse *st, char *const argv[])
{
	static const char *const with_value[] = {
		"-r", "--require", "--import", "--loader",
		"--experimental-loader", "--input-type", "--title", "-C",
		"--conditions", "--env-file", "--inspect-port",
	};
	size_t i = 1;

	while (argv[i] != NULL) {
		const char *a = argv[i++], *base;

		if (a[0] == '-') {
			if (strcmp(a, "-e") == 0 || strcmp(a, "--eval") == 0 ||
			    strcmp(a, "-p") == 0 || strcmp(a, "--print") == 0 ||
			    strcmp(a, "-") == 0)
				return 0;
			for (size_t k = 0; k < ARRAY_SIZE(with_value); k++)
				if (strcmp(a, with_value[k]) == 0 && argv[i])
					i++;
			continue;
		}
		base = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
		if (strcmp(base, "npm-cli.js") == 0 || strcmp(base, "npm") == 0)
			return pkg_npm(st, argv, i);
		if (strcmp(base, "npx-cli.js") == 0 || strcmp(base, "npx") == 0)
			return pkg_npx(st, "npx", argv, i);
		if (strcmp(base, "pnpm.cjs") == 0 || strcmp(base, "pnpm.js") == 0 ||
		    strcmp(base, "pnpm") == 0)
			return pkg_pnpm(st, argv, i);
		if (strcmp(base, "pnpx.cjs") == 0 || strcmp(base, "pnpx") == 0)
			return pkg_npx(st, "pnpm", argv, i);
		if (strcmp(base, "yarn.js") == 0 || strcmp(base, "yarn.cjs") == 0 ||
		    strcmp(base, "yarn") == 0)
			return pkg_yarn(st, argv, i);
		return 0;
	}
	return 0;
}

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

static int
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

static int
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

static int
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

static int
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

static int
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

static int
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

/* ------------------------------------------------------------------ */
/* Recognition */

enum pkg_prog {
	PROG_NONE,
	PROG_PIP,
	PROG_UV,
	PROG_UVX,
	PROG_NPM,
	PROG_NPX,
	PROG_PNPM,
	PROG_PNPX,
	PROG_YARN,
	PROG_APT,
	PROG_DPKG,
	PROG_GEM,
	PROG_CARGO,
	PROG_GO,
	PROG_CONDA,
	PROG_PYTHON,
	PROG_NODE,
};

static enum pkg_prog
pkg_prog_of(const char *s)
{
	static const struct {
		const char	*name;
		enum pkg_prog	 prog;
	} names[] = {
		{ "uv", PROG_UV }, { "uvx", PROG_UVX }, { "npm", PROG_NPM },
		{ "npm-cli.js", PROG_NPM }, { "npx", PROG_NPX },
		{ "npx-cli.js", PROG_NPX }, { "pnpm", PROG_PNPM },
		{ "pnpm.cjs", PROG_PNPM }, { "pnpx", PROG_PNPX },
		{ "yarn", PROG_YARN }, { "yarnpkg", PROG_YARN },
		{ "yarn.js", PROG_YARN }, { "apt", PROG_APT },
		{ "apt-get", PROG_APT }, { "aptitude", PROG_APT },
		{ "dpkg", PROG_DPKG }, { "cargo", PROG_CARGO },
		{ "conda", PROG_CONDA }, { "mamba", PROG_CONDA },
		{ "micromamba", PROG_CONDA }, { "node", PROG_NODE },
		{ "nodejs", PROG_NODE },
	};
	const char *base;

	if (s == NULL)
		return PROG_NONE;
	base = strrchr(s, '/') ? strrchr(s, '/') + 1 : s;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(base, names[i].name) == 0)
			return names[i].prog;
	/* pip3, pip3.11, python3.11, gem3.1, go1.22.0 */
	if (pkg_name_versioned(base, "pip"))
		return PROG_PIP;
	if (pkg_name_versioned(base, "python"))
		return PROG_PYTHON;
	if (pkg_name_versioned(base, "gem"))
		return PROG_GEM;
	if (pkg_name_versioned(base, "go"))
		return PROG_GO;
	return PROG_NONE;
}

/* Does path name the program, or must argv[0] (execveat AT_EMPTY_PATH,
 * fexecve through /proc/self/fd/N or /dev/fd/N)? */
static bool
pkg_path_names(const char *path)
{
	const char *base;

	if (path == NULL || *path == '\0')
		return false;
	if (pkg_has_prefix(path, "/proc/") || pkg_has_prefix(path, "/dev/fd/"))
		return false;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	return *base != '\0' && strspn(base, "0123456789") != strlen(base);
}

static int
pkg_dispatch(struct pkg_parse *st, enum pkg_prog prog, char *const argv[])
{
	switch (prog) {
	case PROG_NONE:
		return 0;
	case PROG_PIP:
		return pkg_pip(st, argv, 1);
	case PROG_UV:
		return pkg_uv(st, argv, 1);
	case PROG_UVX:
		return pkg_uvx(st, argv, 1);
	case PROG_NPM:
		return pkg_npm(st, argv, 1);
	case PROG_NPX:
		return pkg_npx(st, "npx", argv, 1);
	case PROG_PNPM:
		return pkg_pnpm(st, argv, 1);
	case PROG_PNPX:
		return pkg_npx(st, "pnpm", argv, 1);
	case PROG_YARN:
		return pkg_yarn(st, argv, 1);
	case PROG_APT:
		return pkg_apt(st, argv, 1);
	case PROG_DPKG:
		return pkg_dpkg(st, argv, 1);
	case PROG_GEM:
		return pkg_gem(st, argv, 1);
	case PROG_CARGO:
		return pkg_cargo(st, argv, 1);
	case PROG_GO:
		return pkg_go(st, argv, 1);
	case PROG_CONDA:
		return pkg_conda_cmd(st, argv, 1);
	case PROG_PYTHON:
		return pkg_python(st, argv);
	case PROG_NODE:
		return pkg_node(st, argv);
	}
	return 0;
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

int
packages_parse(const char *path, char *const argv[], struct pkg_install *out)
{
	static char empty[] = "";
	static char *const no_argv[] = { empty, NULL };
	struct pkg_parse st = { .out = out };
	enum pkg_prog prog;
	int r;

	if (out == NULL)
		return -EINVAL;
	*out = (struct pkg_install){ 0 };
	/* Linux runs an empty argv as { "" }: so do we. */
	if (argv == NULL || argv[0] == NULL)
		argv = no_argv;
	prog = pkg_path_names(path) ? pkg_prog_of(path) : pkg_prog_of(argv[0]);
	r = pkg_dispatch(&st, prog, argv);
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
/* Verdicts */

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

/* ------------------------------------------------------------------ */
/* Files */

static int
pkg_read_bounded(int fd, char **ret, size_t *len)
{
	cleanup_free char *buf = xmalloc(PACKAGES_FILE_MAX + 2);
	size_t n = 0;

	for (;;) {
		ssize_t got = read(fd, buf + n, PACKAGES_FILE_MAX + 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > PACKAGES_FILE_MAX)
			return -EFBIG;
	}
	buf[n] = '\0';
	*ret = steal_ptr(&buf);
	*len = n;
	return 0;
}

static int
pkg_read_json(const char *buf, size_t len, struct pkg_install *add, size_t room)
{
	static const char *const keys[] = {
		"dependencies", "devDependencies", "optionalDependencies",
	};
	json_error_t err;
	json_t *root = json_loadb(buf, len, 0, &err);
	int r = 0;

	if (root == NULL || !json_is_object(root)) {
		json_decref(root);
		return -EINVAL;
	}
	for (size_t k = 0; k < ARRAY_SIZE(keys) && r == 0; k++) {
		json_t *deps = json_object_get(root, keys[k]), *v;
		const char *name;

		if (!json_is_object(deps))
			continue;
		json_object_foreach(deps, name, v) {
			pkg_npm_spec(add, name,
			    json_is_string(v) ? json_string_value(v) : NULL);
			if (add->n_items > room) {
				r = -E2BIG;
				break;
			}
		}
	}
	json_decref(root);
	return r;
}

/* A file named in file "name": relative to its folder, as pip reads it. */
static char *
pkg_req_relative(const char *name, const char *file)
{
	const char *slash = strrchr(name, '/');

	if (file[0] == '/' || slash == NULL || strstr(file, "://") != NULL)
		return xstrdup(file);
	return xasprintf("%.*s/%s", (int)(slash - name), name, file);
}

/* One "-x value" / "--xx=value" line of a requirements file. */
static void
pkg_req_option(const char *name, char *line, struct pkg_install *add)
{
	static const struct {
		const char	*opt;
		enum pkg_opt_kind kind;
	} opts[] = {
		{ "-r", OPT_FILE }, { "--requirement", OPT_FILE },
		{ "-c", OPT_FILE }, { "--constraint", OPT_FILE },
		{ "-e", OPT_LOCAL }, { "--editable", OPT_LOCAL },
		{ "-i", OPT_INDEX }, { "--index-url", OPT_INDEX },
		{ "--extra-index-url", OPT_INDEX },
		{ "-f", OPT_INDEX }, { "--find-links", OPT_INDEX },
	};
	size_t n = strcspn(line, " \t=");
	const char *value = NULL;
	char *v;

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		size_t m = strlen(opts[i].opt);

		if (n == m && strncmp(line, opts[i].opt, m) == 0)
			value = line + n;
		else if (m == 2 && n > 2 && strncmp(line, opts[i].opt, 2) == 0)
			value = line + 2;	/* -rbase.txt */
		else
			continue;
		value += strspn(value, " \t=");
		v = xstrndup(value, strcspn(value, " \t"));
		if (*v == '\0') {
			free(v);
			return;
		}
		if (opts[i].kind == OPT_FILE) {
			strv_push(&add->files, &add->n_files,
			    pkg_req_relative(name, v));
			free(v);
		} else if (opts[i].kind == OPT_LOCAL) {
			pkg_item_add(add, v, NULL, true);
		} else {
			strv_push(&add->index_urls, &add->n_index_urls, v);
		}
		return;
	}
}

static int
pkg_read_requirements(const char *name, char *buf, struct pkg_install *add,
    size_t room)
{
	bool conda = strcmp(add->manager, "conda") == 0;
	char *line = buf;

	while (line != NULL && *line != '\0') {
		char *end = line, *next, *o;
		size_t len;

		/* A line, joined with the next ones while it ends in "\". */
		for (;;) {
			char *e;

			end += strcspn(end, "\n");
			e = end;
			if (e > line && e[-1] == '\r')
				*--e = ' ';
			if (e > line && e[-1] == '\\' && *end == '\n') {
				e[-1] = ' ';
				*end = ' ';
				continue;
			}
			break;
		}
		next = *end ? end + 1 : NULL;
		*end = '\0';
		/* "#" at the start or after a blank starts a comment. */
		for (o = line; *o != '\0'; o++)
			if (*o == '#' && (o == line || o[-1] == ' ' || o[-1] == '\t')) {
				*o = '\0';
				break;
			}
		line += strspn(line, " \t");
		len = strlen(line);
		while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = '\0';
		if (len == 0 || (conda && line[0] == '@')) {
			line = next;
			continue;
		}
		if (line[0] == '-') {
			pkg_req_option(name, line, add);
		} else if (conda) {
			pkg_conda(add, line);
		} else {
			/* Per-requirement options: "pkg==1 --hash=sha256:..." */
			for (o = line; *o != '\0'; o++)
				if ((*o == ' ' || *o == '\t') && o[1] == '-' &&
				    o[2] == '-') {
					*o = '\0';
					break;
				}
			pkg_pep508(add, line);
		}
		if (add->n_items > room)
			return -E2BIG;
		line = next;
	}
	return 0;
}

static void
pkg_strv_add_new(char ***v, size_t *n, char *s)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*v)[i], s) == 0) {
			free(s);
			return;
		}
	}
	strv_push(v, n, s);
}

int
packages_read_file(int fd, const char *name, struct pkg_install *inout)
{
	static const char *const unread[] = {
		".toml", ".yml", ".yaml", ".lock", ".deb", ".gem", ".crate",
	};
	cleanup_free char *buf = NULL;
	struct pkg_install add = { .manager = inout->manager };
	size_t len = 0, room;
	bool json = pkg_has_suffix(name, ".json");
	int r;

	if (inout->manager == NULL)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(unread); i++)
		if (pkg_has_suffix(name, unread[i]))
			return -EOPNOTSUPP;
	if (!json && strcmp(inout->manager, "pip") != 0 &&
	    strcmp(inout->manager, "uv") != 0 &&
	    strcmp(inout->manager, "conda") != 0)
		return -EOPNOTSUPP;
	if (inout->n_items >= PACKAGES_ITEMS_MAX)
		return -E2BIG;
	room = PACKAGES_ITEMS_MAX - inout->n_items;
	if ((r = pkg_read_bounded(fd, &buf, &len)) < 0)
		return r;
	if (memchr(buf, '\0', len) != NULL)
		return -EINVAL;
	if (json)
		r = pkg_read_json(buf, len, &add, room);
	else
		r = pkg_read_requirements(name, buf, &add, room);
	if (r == 0 && add.n_items > room)
		r = -E2BIG;
	if (r < 0) {
		pkg_install_done(&add);
		return r;
	}
	for (size_t i = 0; i < add.n_items; i++)
		pkg_item_add(inout, add.items[i].name, add.items[i].version,
		    add.items[i].local);
	free(add.items);
	add.items = NULL;
	add.n_items = 0;
	for (size_t i = 0; i < add.n_files; i++)
		pkg_strv_add_new(&inout->files, &inout->n_files, steal_ptr(&add.files[i]));
	for (size_t i = 0; i < add.n_index_urls; i++)
		pkg_strv_add_new(&inout->index_urls, &inout->n_index_urls,
		    steal_ptr(&add.index_urls[i]));
	pkg_install_done(&add);
	return 0;
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
