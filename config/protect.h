/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Protected paths (issue 29): files that something on the host later
 * executes or trusts (git's hooks and config, .envrc, an editor's tasks,
 * an agent's settings and hooks). A write to one is asked at the moment
 * it happens, never silently staged or written; a staged one is held out
 * of `ward apply` unless named.
 *
 * Two sources, one list: the built-in patterns (protect_builtin()) and
 * the policy's `[files] protect =` globs (struct policy's protect).
 *
 * A pattern is one of
 *   - relative (".git/config", ".envrc"): matched against the path
 *     relative to the root of every project and writable folder it lies
 *     in; the built-in ".git/..." ones and ".envrc" at any depth of
 *     nesting too (a submodule's or a nested repository's .git is as
 *     dangerous as the top one), a policy's own only at the root unless
 *     it says "**" itself;
 *   - "~/..." ("~/.claude/settings*.json"): relative to the home of who
 *     runs ward;
 *   - absolute: matched against the host path as it is.
 * Globs: '*' and '?' do not cross '/', "**" as a whole component matches
 * any number of components (zero included), "{a,b}" alternatives.
 */
#include <stdbool.h>
#include <stddef.h>

struct policy;

/* The built-in patterns, NULL-terminated. */
const char *const *protect_builtin(void);

/*
 * Is a pattern well formed? 0, or -1 with *why set to a static string
 * (unbalanced braces, an empty component, "." or "..", a NUL...).
 */
int	protect_check(const char *pattern, const char **why);

/*
 * The pattern that protects host path `path` (absolute, normalized, no
 * symlinks), or NULL. `root` is the project or writable folder holding
 * it (NULL: none, then only "~/" and absolute patterns apply); `home`
 * is who runs ward's home (NULL: "~/" patterns never match). Both the
 * built-in list and p's own globs are tried. Allocates nothing: it runs
 * on trapped calls.
 */
const char *protect_match(const struct policy *p, const char *root,
	    const char *home, const char *path);

/*
 * The same, and also when `path` is a folder a protected path could lie
 * under (".git", "sub/.git/hooks", "~/.claude"): a rename, a link or a
 * symlink put there brings a whole tree in at once, with no write of
 * its own for protect_match() to see.
 */
const char *protect_match_tree(const struct policy *p, const char *root,
	    const char *home, const char *path);

/* The same for a path relative to a root ("src/.git/config"). */
const char *protect_match_rel(const struct policy *p, const char *rel);

/* The words a person reads: "a file that runs code on your machine
 * later" and the like, never the glob alone. */
const char *protect_words(const char *pattern);

/*
 * A protected write's "why", as a request and the record carry it:
 * "protected: PATTERN (WORDS)" (malloc'd). protect_why_words() gives
 * back the words of one, copied into buf (cut to size), or NULL when
 * why is no such thing.
 */
char	*protect_why(const char *pattern);
const char *protect_why_words(const char *why, char *buf, size_t size);

/*
 * core.hooksPath of the git work tree `worktree` (a host folder, a real
 * path), read from its .git/config at the start of a run: git runs the
 * hooks there, wherever that is. The pattern DIR, then "/", then "**" (absolute,
 * malloc'd; a relative DIR is the work tree's, "~/" is home) to add to
 * the run's protected list, or NULL when the repository sets none.
 * protect_words() then calls it a git hook.
 */
char	*protect_hooks_path(const char *worktree, const char *home);
