/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Inside supervisor/packages.c and its pkg-*.c parts, not for other
 * callers: the parse state, the option tables and the helpers the
 * managers share (pkg-args.c), and each family's entry points.
 */
#include <stdbool.h>
#include <stddef.h>

#include "approvals/pkgrules.h"

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

/* pkg-args.c: items and the option walker */
void	pkg_str_set(char **dst, char *s);
void	pkg_item_add(struct pkg_install *out, char *name, char *version,
	    bool local);
void	pkg_pep508(struct pkg_install *out, const char *s);
void	pkg_item_pep508(struct pkg_parse *st, const char *s);
void	pkg_npm_spec(struct pkg_install *out, const char *name,
	    const char *version);
void	pkg_item_npm(struct pkg_parse *st, const char *s);
void	pkg_item_at(struct pkg_parse *st, const char *s);
void	pkg_item_apt(struct pkg_parse *st, const char *s);
void	pkg_item_gem(struct pkg_parse *st, const char *s);
void	pkg_conda(struct pkg_install *out, const char *s);
void	pkg_item_conda(struct pkg_parse *st, const char *s);
size_t	pkg_walk(struct pkg_parse *st, const struct pkg_syntax *sx,
	    char *const argv[], size_t i, bool stop);
void	pkg_items_from_pos(struct pkg_parse *st);
void	pkg_files_from_pos(struct pkg_parse *st);
int	pkg_set(struct pkg_parse *st, const char *manager, const char *action);

/* pkg-python.c: pip, uv, python */
int	pkg_pip(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_uvx(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_uv(struct pkg_parse *st, char *const argv[], size_t i);
bool	pkg_name_versioned(const char *base, const char *stem);
const char *pkg_python_runs(char *const argv[], size_t *i);

/* pkg-node.c: npm, npx, pnpm, yarn, node */
int	pkg_npx(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_pnpx(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_npm(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_pnpm(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_yarn(struct pkg_parse *st, char *const argv[], size_t i);
const char *pkg_node_runs(char *const argv[], size_t *i);

/* pkg-system.c: apt, dpkg, gem, cargo, go, conda */
int	pkg_apt(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_dpkg(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_gem(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_cargo(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_go(struct pkg_parse *st, char *const argv[], size_t i);
int	pkg_conda_cmd(struct pkg_parse *st, char *const argv[], size_t i);
