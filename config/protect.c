/* SPDX-License-Identifier: MIT */
/*
 * Protected paths: the built-in list, the glob they and the policy's
 * `[files] protect =` share, and the words a person reads.
 *
 * protect_match() runs on trapped calls (a write inside a project takes
 * it on the hot path), so it allocates nothing and gives up early: every
 * built-in relative pattern starts with a component that starts with a
 * dot, and a path holding no such component is tried against none of
 * them.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/pathglob.h"
#include "config/policy.h"
#include "config/protect.h"
#include "config/util.h"

enum protect_what {
	W_POLICY,
	W_GIT_HOOK,
	W_GIT_CONFIG,
	W_GIT_ATTR,
	W_ENVRC,
	W_EDITOR,
	W_DEVCONTAINER,
	W_CLAUDE,
	W_CODEX,
	W_GEMINI,
	W_AIDER,
};

/*
 * DEEP: matched below every folder of a project or writable folder, not
 * only at its root. git reads the nearest .git above the folder a person
 * types `git status` in, and direnv the nearest .envrc when they cd into
 * it: a nested repository's hooks run as surely as the top one's. An
 * editor's or an agent's project files are read where it is opened, the
 * root; a policy that wants them deeper says "**" itself.
 */
#define DEEP	1

static const struct protect_def {
	const char		*pattern;
	int			 flags;
	enum protect_what	 what;
} protect_defs[] = {
	/* git: what it runs (hooks, core.fsmonitor, core.sshCommand,
	 * filters and diff drivers named by attributes, aliases) */
	{ ".git/hooks/**", DEEP, W_GIT_HOOK },
	{ ".git/config", DEEP, W_GIT_CONFIG },
	{ ".git/config.worktree", DEEP, W_GIT_CONFIG },
	{ ".git/worktrees/*/config.worktree", DEEP, W_GIT_CONFIG },
	{ ".git/info/attributes", DEEP, W_GIT_ATTR },
	{ ".git/modules/**/hooks/**", DEEP, W_GIT_HOOK },
	{ ".git/modules/**/config", DEEP, W_GIT_CONFIG },
	{ ".git/modules/**/config.worktree", DEEP, W_GIT_CONFIG },
	{ ".git/modules/**/info/attributes", DEEP, W_GIT_ATTR },
	{ ".envrc", DEEP, W_ENVRC },

	/* editors and containers opened on the folder */
	{ ".vscode/settings.json", 0, W_EDITOR },
	{ ".vscode/tasks.json", 0, W_EDITOR },
	{ ".vscode/launch.json", 0, W_EDITOR },
	{ ".devcontainer/**", 0, W_DEVCONTAINER },
	{ ".devcontainer.json", 0, W_DEVCONTAINER },

	/* the agents' project files: settings with hooks and permissions,
	 * MCP servers (a command each), slash commands that run shell */
	{ ".claude/settings.json", 0, W_CLAUDE },
	{ ".claude/settings.local.json", 0, W_CLAUDE },
	{ ".claude/hooks/**", 0, W_CLAUDE },
	{ ".claude/commands/**", 0, W_CLAUDE },
	{ ".claude/agents/**", 0, W_CLAUDE },
	{ ".claude/skills/**", 0, W_CLAUDE },
	{ ".mcp.json", 0, W_CLAUDE },
	{ ".codex/config.toml", 0, W_CODEX },
	{ ".gemini/settings.json", 0, W_GEMINI },
	{ ".gemini/extensions/**", 0, W_GEMINI },
	{ ".gemini/commands/**", 0, W_GEMINI },
	{ ".aider.conf.yml", 0, W_AIDER },

	/* the agents' own files in the home of who runs ward */
	{ "~/.claude/settings.json", 0, W_CLAUDE },
	{ "~/.claude/settings.local.json", 0, W_CLAUDE },
	{ "~/.claude/settings*.json", 0, W_CLAUDE },
	{ "~/.claude/hooks/**", 0, W_CLAUDE },
	{ "~/.claude/plugins/**", 0, W_CLAUDE },
	{ "~/.claude/commands/**", 0, W_CLAUDE },
	{ "~/.claude/agents/**", 0, W_CLAUDE },
	{ "~/.claude/skills/**", 0, W_CLAUDE },
	{ "~/.claude.json", 0, W_CLAUDE },
	{ "~/.codex/config.toml", 0, W_CODEX },
	{ "~/.gemini/settings.json", 0, W_GEMINI },
	{ "~/.gemini/extensions/**", 0, W_GEMINI },
	{ "~/.gemini/commands/**", 0, W_GEMINI },
	{ "~/.aider.conf.yml", 0, W_AIDER },
};

static const char *const protect_what_words[] = {
	[W_POLICY] = "a file your policy protects ([files] protect)",
	[W_GIT_HOOK] = "a git hook: git runs it as you",
	[W_GIT_CONFIG] = "git's config: it names commands git runs as you "
	    "(core.fsmonitor, core.hooksPath, filters, aliases)",
	[W_GIT_ATTR] = "git's attributes: they choose the filters and diff "
	    "drivers git runs",
	[W_ENVRC] = "direnv's .envrc: your shell runs it when you enter the "
	    "folder",
	[W_EDITOR] = "an editor's settings or tasks: VS Code runs the "
	    "commands they name",
	[W_DEVCONTAINER] = "a dev container's definition: its commands run "
	    "when it is opened",
	[W_CLAUDE] = "Claude Code's settings, hooks, commands or MCP servers: "
	    "claude runs the commands they name",
	[W_CODEX] = "Codex's config: codex runs the commands it names "
	    "(notify, MCP servers)",
	[W_GEMINI] = "Gemini CLI's settings, extensions or commands: gemini "
	    "runs the commands they name",
	[W_AIDER] = "aider's config: aider runs the commands it names "
	    "(lint-cmd, test-cmd)",
};

const char *const *
protect_builtin(void)
{
	static const char *list[ARRAY_SIZE(protect_defs) + 1];

	if (list[0] == NULL) {
		for (size_t i = 0; i < ARRAY_SIZE(protect_defs); i++)
			list[i] = protect_defs[i].pattern;
	}
	return list;
}

int
protect_check(const char *pattern, const char **why)
{
	return pathglob_check(pattern, why);
}

static bool
protect_relative(const char *pattern)
{
	return pattern[0] != '/' && pattern[0] != '~';
}

/* `path` below `dir`: what follows "dir/", or NULL. */
static const char *
protect_under(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	while (n > 0 && dir[n - 1] == '/')
		n--;
	if (strncmp(path, dir, n) != 0 || path[n] != '/' || path[n + 1] == '\0')
		return NULL;
	return path + n + 1;
}

static const char *
protect_rel(const struct policy *p, const char *rel, bool tree)
{
	bool tried[ARRAY_SIZE(protect_defs)] = { false };

	/* The built-in patterns: at the root, and the DEEP ones after
	 * every '/' that starts a dot component. A dot component is where
	 * every one of them begins, so a path with none is done at once. */
	for (const char *at = rel; at != NULL;) {
		if (at[0] == '.') {
			for (size_t i = 0; i < ARRAY_SIZE(protect_defs); i++) {
				const struct protect_def *d = &protect_defs[i];
				const char *star = strstr(d->pattern, "**");

				if (!protect_relative(d->pattern) ||
				    (at != rel && !(d->flags & DEEP)) ||
				    d->pattern[1] != at[1])
					continue;
				/*
				 * A pattern with a "**": where its head (what
				 * comes before the "**") first starts, the
				 * "**" takes in every later start as well, so
				 * one try there is all (a path of .git/modules
				 * three hundred times over would otherwise
				 * cost a try at each: 5 ms a call, not 0.2).
				 */
				if (star != NULL && strncmp(at, d->pattern,
				    (size_t)(star - d->pattern)) == 0) {
					if (tried[i])
						continue;
					tried[i] = true;
				}
				if (pathglob_match(d->pattern, at, tree))
					return d->pattern;
			}
		}
		if ((at = strstr(at, "/.")) != NULL)
			at++;
	}
	for (size_t i = 0; p != NULL && i < p->n_protect; i++) {
		if (protect_relative(p->protect[i]) &&
		    pathglob_match(p->protect[i], rel, tree))
			return p->protect[i];
	}
	return NULL;
}

static const char *
protect_host(const struct policy *p, const char *root, const char *home,
    const char *path, bool tree)
{
	const char *rel;

	if (path == NULL || path[0] != '/')
		return NULL;
	if (home != NULL && (rel = protect_under(home, path)) != NULL) {
		for (size_t i = 0; i < ARRAY_SIZE(protect_defs); i++) {
			const char *d = protect_defs[i].pattern;

			if (d[0] == '~' && pathglob_match(d + 2, rel, tree))
				return d;
		}
		for (size_t i = 0; p != NULL && i < p->n_protect; i++) {
			const char *g = p->protect[i];

			if (g[0] == '~' && pathglob_match(g + 2, rel, tree))
				return g;
		}
	}
	for (size_t i = 0; p != NULL && i < p->n_protect; i++) {
		const char *g = p->protect[i];

		if (g[0] == '/' && pathglob_match(g + 1, path + 1, tree))
			return g;
	}
	if (root != NULL && (rel = protect_under(root, path)) != NULL)
		return protect_rel(p, rel, tree);
	return NULL;
}

const char *
protect_match(const struct policy *p, const char *root, const char *home,
    const char *path)
{
	return protect_host(p, root, home, path, false);
}

const char *
protect_match_tree(const struct policy *p, const char *root,
    const char *home, const char *path)
{
	return protect_host(p, root, home, path, true);
}

const char *
protect_match_rel(const struct policy *p, const char *rel)
{
	if (rel == NULL || *rel == '\0' || *rel == '/')
		return NULL;
	return protect_rel(p, rel, false);
}

/* The patterns protect_hooks_path() made, for protect_words(): a run has
 * one a project or writable folder at most. */
static char *protect_hooks[16];

const char *
protect_words(const char *pattern)
{
	if (pattern == NULL)
		return protect_what_words[W_POLICY];
	for (size_t i = 0; i < ARRAY_SIZE(protect_hooks) &&
	    protect_hooks[i] != NULL; i++)
		if (strcmp(protect_hooks[i], pattern) == 0)
			return protect_what_words[W_GIT_HOOK];
	for (size_t i = 0; i < ARRAY_SIZE(protect_defs); i++) {
		if (strcmp(protect_defs[i].pattern, pattern) == 0)
			return protect_what_words[protect_defs[i].what];
	}
	return protect_what_words[W_POLICY];
}

#define PROTECT_WHY	"protected: "

char *
protect_why(const char *pattern)
{
	return xasprintf(PROTECT_WHY "%s (%s)", pattern != NULL ? pattern :
	    "?", protect_words(pattern));
}

const char *
protect_why_words(const char *why, char *buf, size_t size)
{
	const char *open, *close;
	size_t n;

	if (why == NULL || strncmp(why, PROTECT_WHY, strlen(PROTECT_WHY)) != 0)
		return NULL;
	/* The words as the supervisor put them, between the pattern (no
	 * space: ini values split on them) and the last parenthesis; a
	 * console has no list of the run's own patterns to look them up. */
	why += strlen(PROTECT_WHY);
	if ((open = strstr(why, " (")) == NULL ||
	    (close = strrchr(open, ')')) == NULL)
		return protect_words(NULL);
	n = (size_t)(close - open - 2);
	if (n >= size)
		n = size - 1;
	memcpy(buf, open + 2, n);
	buf[n] = '\0';
	return buf;
}

/*
 * The value of core.hooksPath in one git config file, as git would take
 * it for this one key: [core] (any case), "hookspath" (any case), the
 * last one set wins, quotes and backslash escapes undone, a comment
 * (# or ;) outside quotes ends the line. NULL when unset. Includes
 * (include.path) are not followed: what they set is not this file's.
 */
static char *
protect_git_value(FILE *f)
{
	char line[4096], *val = NULL;
	bool core = false;

	while (fgets(line, sizeof line, f) != NULL) {
		char *p = line, *o;
		bool quoted = false;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == '[') {
			size_t n = strcspn(p + 1, "]\" \t");

			core = n == 4 && strncasecmp(p + 1, "core", 4) == 0 &&
			    p[5] == ']';
			continue;
		}
		if (!core || strncasecmp(p, "hookspath", 9) != 0)
			continue;
		p += 9;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '=')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		free(val);
		val = o = xstrdup(p);
		for (; *p != '\0' && *p != '\n'; p++) {
			if (*p == '"')
				quoted = !quoted;
			else if (!quoted && (*p == '#' || *p == ';'))
				break;
			else if (*p == '\\' && p[1] != '\0' && p[1] != '\n') {
				p++;
				*o++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p;
			} else
				*o++ = *p;
		}
		while (o > val && (o[-1] == ' ' || o[-1] == '\t'))
			o--;
		*o = '\0';
	}
	if (val != NULL && *val == '\0') {
		free(val);
		val = NULL;
	}
	return val;
}

/* "." and ".." taken out of an absolute path, lexically, in place. */
static void
protect_normalize(char *path)
{
	char *o = path, *c = path;

	while (*c != '\0') {
		size_t n;

		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if (n == 0)
			break;
		if (n == 1 && c[0] == '.') {
			c += n;
			continue;
		}
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (o > path && *--o != '/')
				;
			c += n;
			continue;
		}
		*o++ = '/';
		memmove(o, c, n);
		o += n;
		c += n;
	}
	if (o == path)
		*o++ = '/';
	*o = '\0';
}

/* A path as a glob that matches it alone, then a last "**" below it. */
static char *
protect_glob_of(const char *dir)
{
	char *out = xmalloc(strlen(dir) * 2 + 4), *o = out;

	for (const char *c = dir; *c != '\0'; c++) {
		if (strchr("*?{},\\[", *c) != NULL)
			*o++ = '\\';
		*o++ = *c;
	}
	if (o > out && o[-1] == '/')
		o--;
	memcpy(o, "/**", 4);
	return out;
}

char *
protect_hooks_path(const char *worktree, const char *home)
{
	cleanup_free char *gitfile = xasprintf("%s/.git", worktree);
	cleanup_free char *config = NULL, *val = NULL, *abs = NULL;
	char line[4096];
	char *pattern;
	FILE *f;

	/* .git is a folder, or for a linked work tree or a submodule a
	 * file "gitdir: PATH" (relative to the work tree). */
	if ((f = fopen(gitfile, "re")) != NULL &&
	    fgets(line, sizeof line, f) != NULL &&
	    str_has_prefix(line, "gitdir: ")) {
		line[strcspn(line, "\n")] = '\0';
		config = line[8] == '/' ? xasprintf("%s/config", line + 8) :
		    xasprintf("%s/%s/config", worktree, line + 8);
	} else
		config = xasprintf("%s/config", gitfile);
	if (f != NULL)
		fclose(f);
	if ((f = fopen(config, "re")) == NULL)
		return NULL;
	val = protect_git_value(f);
	fclose(f);
	if (val == NULL)
		return NULL;
	if (val[0] == '~' && val[1] == '/') {
		if (home == NULL)
			return NULL;
		abs = xasprintf("%s%s", home, val + 1);
	} else if (val[0] == '/')
		abs = xstrdup(val);
	else
		/* Relative: to where hooks run, the top of the work tree. */
		abs = xasprintf("%s/%s", worktree, val);
	protect_normalize(abs);
	if (strcmp(abs, "/") == 0)
		return NULL;
	pattern = protect_glob_of(abs);
	for (size_t i = 0; i < ARRAY_SIZE(protect_hooks); i++) {
		if (protect_hooks[i] == NULL) {
			protect_hooks[i] = xstrdup(pattern);
			break;
		}
		if (strcmp(protect_hooks[i], pattern) == 0)
			break;
	}
	return pattern;
}
