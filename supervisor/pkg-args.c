/* SPDX-License-Identifier: MIT */
#include "supervisor/packages.h"
#include "supervisor/pkg-int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/util.h"

/* ------------------------------------------------------------------ */
/* Items */

void
pkg_str_set(char **dst, char *s)
{
	free(*dst);
	*dst = s;
}

void
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
void
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
	else if (str_has_prefix(spec, "==") && spec[2] != '=' &&
	    strpbrk(spec + 2, ",<>=!~") == NULL)
		memmove(spec, spec + 2, strlen(spec + 2) + 1);
	pkg_item_add(out, xstrndup(s, n), *spec ? xstrdup(spec) : NULL, false);
}

void
pkg_item_pep508(struct pkg_parse *st, const char *s)
{
	pkg_pep508(st->out, s);
}

/* name@version, @scope/name@version; an alias, git or path spec is local. */
void
pkg_npm_spec(struct pkg_install *out, const char *name, const char *version)
{
	bool local = false;

	if (version != NULL)
		local = strchr(version, ':') != NULL || strchr(version, '/') != NULL;
	pkg_item_add(out, xstrdup(name), version ? xstrdup(version) : NULL,
	    local || pkg_looks_local(out->manager, name));
}

void
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
void
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
void
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
void
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
void
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

void
pkg_item_conda(struct pkg_parse *st, const char *s)
{
	pkg_conda(st->out, s);
}

/* ------------------------------------------------------------------ */
/* Options */


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
	if (sx->nopt && len > 9 && str_has_prefix(name + len - 9, ":registry"))
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
size_t
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
void
pkg_items_from_pos(struct pkg_parse *st)
{
	for (size_t i = 0; i < st->n_pos; i++)
		st->item(st, st->pos[i]);
}

void
pkg_files_from_pos(struct pkg_parse *st)
{
	for (size_t i = 0; i < st->n_pos; i++)
		strv_push(&st->out->files, &st->out->n_files, xstrdup(st->pos[i]));
}

int
pkg_set(struct pkg_parse *st, const char *manager, const char *action)
{
	st->out->manager = manager;
	pkg_str_set(&st->out->action, xstrdup(action));
	return 1;
}
