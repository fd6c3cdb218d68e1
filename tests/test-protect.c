/* SPDX-License-Identifier: MIT */
/*
 * config/protect.c: the glob, the built-in list where a project, a
 * writable folder and the home meet, a policy's own patterns, the checks
 * of a pattern, and what a match costs (printed, not asserted).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "config/policy.h"
#include "config/protect.h"
#include "config/util.h"

#define ROOT	"/work/proj"
#define HOME	"/home/ann"

/* A policy with only its protect list set: protect.c reads no other
 * field. */
static struct policy *
policy_with(const char *const *globs)
{
	struct policy *p = xcalloc(1, sizeof(*p));

	for (; globs != NULL && *globs != NULL; globs++) {
		p->protect = xreallocarray(p->protect, p->n_protect + 1,
		    sizeof(*p->protect));
		p->protect[p->n_protect++] = xstrdup(*globs);
	}
	return p;
}

static void
policy_with_free(struct policy *p)
{
	for (size_t i = 0; i < p->n_protect; i++)
		free(p->protect[i]);
	free(p->protect);
	free(p);
}

struct match_case {
	const char	*path;		/* host path */
	const char	*want;		/* the pattern, or NULL */
};

/* The built-in list alone, root = ROOT, home = HOME. */
static const struct match_case builtin_cases[] = {
	/* git, at the root */
	{ ROOT "/.git/hooks/post-checkout", ".git/hooks/**" },
	{ ROOT "/.git/hooks/sub/deeper", ".git/hooks/**" },
	{ ROOT "/.git/hooks", ".git/hooks/**" },
	{ ROOT "/.git/config", ".git/config" },
	{ ROOT "/.git/config.worktree", ".git/config.worktree" },
	{ ROOT "/.git/worktrees/x/config.worktree",
	  ".git/worktrees/*/config.worktree" },
	{ ROOT "/.git/info/attributes", ".git/info/attributes" },
	{ ROOT "/.git/modules/lib/hooks/pre-commit", ".git/modules/**/hooks/**" },
	{ ROOT "/.git/modules/a/b/c/hooks/x", ".git/modules/**/hooks/**" },
	{ ROOT "/.git/modules/lib/config", ".git/modules/**/config" },
	{ ROOT "/.git/modules/a/b/config", ".git/modules/**/config" },
	/* git, nested: a submodule's work tree, a vendored repository */
	{ ROOT "/vendor/lib/.git/config", ".git/config" },
	{ ROOT "/a/b/c/.git/hooks/pre-push", ".git/hooks/**" },
	{ ROOT "/sub/.envrc", ".envrc" },
	/* what git keeps that runs nothing */
	{ ROOT "/.git/objects/ab/cdef0123", NULL },
	{ ROOT "/.git/HEAD", NULL },
	{ ROOT "/.git/index", NULL },
	{ ROOT "/.git/refs/heads/main", NULL },
	{ ROOT "/.git/info/exclude", NULL },
	{ ROOT "/.git/configx", NULL },
	{ ROOT "/.git/hooksx/a", NULL },
	{ ROOT "/.git/modules/lib/objects/x", NULL },
	{ ROOT "/git/hooks/x", NULL },
	{ ROOT "/x.git/hooks/x", NULL },
	{ ROOT "/.gitconfig", NULL },
	/* editors, containers, direnv */
	{ ROOT "/.envrc", ".envrc" },
	{ ROOT "/.envrc.bak", NULL },
	{ ROOT "/.vscode/settings.json", ".vscode/settings.json" },
	{ ROOT "/.vscode/tasks.json", ".vscode/tasks.json" },
	{ ROOT "/.vscode/launch.json", ".vscode/launch.json" },
	{ ROOT "/.vscode/extensions.json", NULL },
	{ ROOT "/.devcontainer/devcontainer.json", ".devcontainer/**" },
	{ ROOT "/.devcontainer/x/Dockerfile", ".devcontainer/**" },
	{ ROOT "/.devcontainer.json", ".devcontainer.json" },
	/* only at the root: a package's own .vscode is not opened */
	{ ROOT "/node_modules/x/.vscode/settings.json", NULL },
	/* the agents' project files */
	{ ROOT "/.claude/settings.json", ".claude/settings.json" },
	{ ROOT "/.claude/settings.local.json", ".claude/settings.local.json" },
	{ ROOT "/.claude/hooks/check.sh", ".claude/hooks/**" },
	{ ROOT "/.mcp.json", ".mcp.json" },
	{ ROOT "/.codex/config.toml", ".codex/config.toml" },
	{ ROOT "/.gemini/settings.json", ".gemini/settings.json" },
	{ ROOT "/.aider.conf.yml", ".aider.conf.yml" },
	{ ROOT "/CLAUDE.md", NULL },
	{ ROOT "/src/main.c", NULL },
	{ ROOT, NULL },
	/* the home's agents' files */
	{ HOME "/.claude/settings.json", "~/.claude/settings.json" },
	{ HOME "/.claude/settings.local.json", "~/.claude/settings.local.json" },
	{ HOME "/.claude/settings.backup.json", "~/.claude/settings*.json" },
	{ HOME "/.claude/hooks/a/b.sh", "~/.claude/hooks/**" },
	{ HOME "/.claude/plugins/p/plugin.json", "~/.claude/plugins/**" },
	{ HOME "/.claude.json", "~/.claude.json" },
	{ HOME "/.codex/config.toml", "~/.codex/config.toml" },
	{ HOME "/.gemini/settings.json", "~/.gemini/settings.json" },
	{ HOME "/.gemini/extensions/e/gemini-extension.json",
	  "~/.gemini/extensions/**" },
	{ HOME "/.aider.conf.yml", "~/.aider.conf.yml" },
	{ HOME "/.claude/projects/x/session.jsonl", NULL },
	{ HOME "/.claude/todos/x.json", NULL },
	{ HOME "/.codex/sessions/x.jsonl", NULL },
	{ HOME "/.claude/settings/x.json", NULL },
	{ "/home/annx/.claude/settings.json", NULL },
	{ "/elsewhere/.git/config", NULL },
};

static void
test_builtin(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(builtin_cases); i++) {
		const struct match_case *c = &builtin_cases[i];
		const char *got = protect_match(NULL, ROOT, HOME, c->path);

		if ((got == NULL) != (c->want == NULL) ||
		    (got != NULL && strcmp(got, c->want) != 0))
			fail_msg("%s: got %s, want %s", c->path,
			    got != NULL ? got : "(none)",
			    c->want != NULL ? c->want : "(none)");
	}
}

/* Every built-in pattern is well formed, and the words for each are
 * words, not the glob. */
static void
test_builtin_list(void **state)
{
	const char *const *b = protect_builtin();
	const char *why = NULL;
	size_t n = 0;

	(void)state;
	for (; *b != NULL; b++, n++) {
		if (protect_check(*b, &why) != 0)
			fail_msg("%s: %s", *b, why);
		assert_null(strstr(protect_words(*b), "**"));
	}
	assert_true(n >= 30);
	assert_string_equal(protect_words(".git/hooks/**"),
	    "a git hook: git runs it as you");
	assert_non_null(strstr(protect_words("~/.claude/settings.json"),
	    "Claude Code"));
	assert_non_null(strstr(protect_words("/opt/x/**"), "[files] protect"));
	assert_non_null(strstr(protect_words(NULL), "[files] protect"));
}

/* No root: only the home's and absolute patterns; no home: none of
 * the home's. */
static void
test_no_root_no_home(void **state)
{
	(void)state;
	assert_null(protect_match(NULL, NULL, HOME, ROOT "/.git/config"));
	assert_string_equal(protect_match(NULL, NULL, HOME,
	    HOME "/.codex/config.toml"), "~/.codex/config.toml");
	assert_null(protect_match(NULL, ROOT, NULL, HOME "/.codex/config.toml"));
	assert_null(protect_match(NULL, ROOT, HOME, "relative/.git/config"));
	assert_null(protect_match(NULL, ROOT, HOME, NULL));
	/* a writable folder that is the agent's own: the home's patterns
	 * and the relative ones both apply, the home's first */
	assert_string_equal(protect_match(NULL, HOME "/.claude", HOME,
	    HOME "/.claude/settings.json"), "~/.claude/settings.json");
	/* a root given with a trailing slash */
	assert_string_equal(protect_match(NULL, ROOT "/", HOME,
	    ROOT "/.envrc"), ".envrc");
}

static void
test_rel(void **state)
{
	(void)state;
	assert_string_equal(protect_match_rel(NULL, ".git/config"),
	    ".git/config");
	assert_string_equal(protect_match_rel(NULL, "src/.git/hooks/x"),
	    ".git/hooks/**");
	assert_null(protect_match_rel(NULL, "src/main.c"));
	assert_null(protect_match_rel(NULL, ""));
	assert_null(protect_match_rel(NULL, "/.git/config"));
	assert_null(protect_match_rel(NULL, NULL));
}

/* A rename, link or symlink onto a folder above a protected path. */
static void
test_tree(void **state)
{
	struct policy *p;
	static const char *const globs[] = { "tools/**/deploy.sh", NULL };

	(void)state;
	assert_string_equal(protect_match_tree(NULL, ROOT, HOME,
	    ROOT "/.git"), ".git/hooks/**");
	assert_string_equal(protect_match_tree(NULL, ROOT, HOME,
	    ROOT "/sub/.git"), ".git/hooks/**");
	assert_string_equal(protect_match_tree(NULL, ROOT, HOME,
	    ROOT "/.git/modules/lib"), ".git/modules/**/hooks/**");
	assert_string_equal(protect_match_tree(NULL, ROOT, HOME,
	    ROOT "/.vscode"), ".vscode/settings.json");
	assert_string_equal(protect_match_tree(NULL, ROOT, HOME,
	    HOME "/.claude"), "~/.claude/settings.json");
	assert_non_null(protect_match_tree(NULL, ROOT, HOME,
	    ROOT "/.git/hooks/post-checkout"));
	assert_null(protect_match_tree(NULL, ROOT, HOME, ROOT "/src"));
	assert_null(protect_match_tree(NULL, ROOT, HOME, ROOT "/.git/objects"));
	assert_null(protect_match_tree(NULL, ROOT, HOME, ROOT "/sub/.vscode"));
	/* a "**" pattern tried once, where its head first starts: later
	 * starts are taken in by its "**" */
	assert_string_equal(protect_match(NULL, ROOT, HOME,
	    ROOT "/.git/modules/a/.git/modules/b/hooks/x"),
	    ".git/modules/**/hooks/**");
	assert_string_equal(protect_match(NULL, ROOT, HOME,
	    ROOT "/v/.git/modules/a/.git/modules/b/config"),
	    ".git/modules/**/config");
	assert_string_equal(protect_match_tree(NULL, ROOT, HOME,
	    ROOT "/.git/modules/a/.git/modules"), ".git/modules/**/hooks/**");
	assert_null(protect_match(NULL, ROOT, HOME,
	    ROOT "/.git/modules/a/.git/modules/b/objects/x"));
	assert_null(protect_match(NULL, ROOT, HOME, ROOT "/.git"));
	p = policy_with(globs);
	assert_string_equal(protect_match_tree(p, ROOT, HOME, ROOT "/tools"),
	    "tools/**/deploy.sh");
	assert_string_equal(protect_match_tree(p, ROOT, HOME,
	    ROOT "/tools/a/b"), "tools/**/deploy.sh");
	assert_null(protect_match_tree(p, ROOT, HOME, ROOT "/src"));
	policy_with_free(p);
}

struct glob_case {
	const char	*glob;
	const char	*path;
	bool		 match;
};

/* A policy's own globs, root = ROOT, home = HOME. */
static const struct glob_case glob_cases[] = {
	/* '*' and '?' within one component */
	{ "*.sh", ROOT "/run.sh", true },
	{ "*.sh", ROOT "/bin/run.sh", false },
	{ "bin/*", ROOT "/bin/run.sh", true },
	{ "bin/*", ROOT "/bin/a/run.sh", false },
	{ "bin/r?n.sh", ROOT "/bin/run.sh", true },
	{ "bin/r?n.sh", ROOT "/bin/rn.sh", false },
	{ "bin/r?n.sh", ROOT "/bin/r/n.sh", false },
	{ "a*b*c", ROOT "/aXXbYYc", true },
	{ "a*b*c", ROOT "/aXXbYY", false },
	{ "*", ROOT "/x", true },
	{ "*", ROOT "/x/y", false },
	/* '**' as a component: zero or more components */
	{ "**/deploy.sh", ROOT "/deploy.sh", true },
	{ "**/deploy.sh", ROOT "/a/b/c/deploy.sh", true },
	{ "**/deploy.sh", ROOT "/a/b/c/deploy.shx", false },
	{ "a/**/z", ROOT "/a/z", true },
	{ "a/**/z", ROOT "/a/b/c/z", true },
	{ "a/**/z", ROOT "/a/b/c/y", false },
	{ "a/**", ROOT "/a", true },
	{ "a/**", ROOT "/a/b/c", true },
	{ "a/**", ROOT "/ab", false },
	{ "a/**/b/**/c", ROOT "/a/x/b/y/z/c", true },
	{ "a/**/b/**/c", ROOT "/a/x/y/z/c", false },
	/* '**' inside a component is two stars, not crossing '/' */
	{ "a**z", ROOT "/abcz", true },
	{ "a**z", ROOT "/ab/cz", false },
	/* braces, across '/' and nested */
	{ "{Makefile,*.mk}", ROOT "/Makefile", true },
	{ "{Makefile,*.mk}", ROOT "/rules.mk", true },
	{ "{Makefile,*.mk}", ROOT "/rules.c", false },
	{ "m/**/{hooks/**,config}", ROOT "/m/a/hooks/x", true },
	{ "m/**/{hooks/**,config}", ROOT "/m/a/b/config", true },
	{ "m/**/{hooks/**,config}", ROOT "/m/a/b/objects", false },
	{ "{a,b{c,d}}/x", ROOT "/bd/x", true },
	{ "{a,b{c,d}}/x", ROOT "/b/x", false },
	{ "x{,.bak}", ROOT "/x", true },
	{ "x{,.bak}", ROOT "/x.bak", true },
	/* the backslash takes a byte literally */
	{ "a\\*b", ROOT "/a*b", true },
	{ "a\\*b", ROOT "/axb", false },
	{ "\\{a\\}", ROOT "/{a}", true },
	/* a policy's relative glob is at the root only */
	{ "deploy.sh", ROOT "/deploy.sh", true },
	{ "deploy.sh", ROOT "/sub/deploy.sh", false },
	/* the home's and absolute */
	{ "~/.config/git/config", HOME "/.config/git/config", true },
	{ "~/.config/git/config", ROOT "/.config/git/config", false },
	{ "~/.local/bin/*", HOME "/.local/bin/tool", true },
	{ "/etc/profile.d/*.sh", "/etc/profile.d/x.sh", true },
	{ "/etc/profile.d/*.sh", "/etc/profile.d/x.csh", false },
	{ "/opt/**", "/opt", true },
	{ "/opt/**", "/optx", false },
};

static void
test_policy_globs(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(glob_cases); i++) {
		const struct glob_case *c = &glob_cases[i];
		const char *const globs[] = { c->glob, NULL };
		struct policy *p = policy_with(globs);
		const char *got = protect_match(p, ROOT, HOME, c->path);
		const char *why = NULL;

		if (protect_check(c->glob, &why) != 0)
			fail_msg("%s: refused: %s", c->glob, why);
		if (c->match && (got == NULL || strcmp(got, c->glob) != 0))
			fail_msg("%s on %s: got %s, want a match", c->glob,
			    c->path, got != NULL ? got : "(none)");
		if (!c->match && got != NULL)
			fail_msg("%s on %s: matched %s", c->glob, c->path, got);
		policy_with_free(p);
	}
}

static const struct {
	const char	*glob;
	const char	*why;		/* part of the reason */
} bad_globs[] = {
	{ "", "empty pattern" },
	{ "a//b", "empty component" },
	{ "a/", "empty component" },
	{ "/", "empty component" },
	{ "~/", "empty component" },
	{ "./x", ". or .." },
	{ "a/../b", ". or .." },
	{ "~/..", ". or .." },
	{ "~root/x", "~ only as ~/" },
	{ "~", "~ only as ~/" },
	{ "{a,b", "unbalanced" },
	{ "a}", "unbalanced" },
	{ "a\\", "at the end" },
	{ "a\tb", "control" },
	{ "{a}{b}{c}{d}{e}{f}{g}{h}{i}", "brace groups" },
	{ "**/a/**/b/**/c/**/d/**", "more than 4" },
};

static void
test_check(void **state)
{
	char longer[300];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_globs); i++) {
		const char *why = NULL;

		if (protect_check(bad_globs[i].glob, &why) == 0)
			fail_msg("%s: taken", bad_globs[i].glob);
		assert_non_null(why);
		if (strstr(why, bad_globs[i].why) == NULL)
			fail_msg("%s: %s, want %s", bad_globs[i].glob, why,
			    bad_globs[i].why);
	}
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	{
		const char *why = NULL;

		assert_int_equal(protect_check(longer, &why), -1);
		assert_non_null(strstr(why, "255"));
	}
}

/* A work tree in a fresh temporary folder, its .git/config holding
 * `config` (or .git a "gitdir:" file when gitdir is set). */
static char *
worktree_with(const char *config, const char *gitdir)
{
	char tmpl[] = "/tmp/test-protect.XXXXXX";
	char *wt = xstrdup(mkdtemp(tmpl));
	char *p;
	FILE *f;

	assert_non_null(wt);
	if (gitdir != NULL) {
		p = xasprintf("%s/.git", wt);
		f = fopen(p, "w");
		fprintf(f, "gitdir: %s\n", gitdir);
		fclose(f);
		free(p);
		p = xasprintf("%s/%s", wt, gitdir);
		assert_int_equal(mkdir(p, 0700), 0);
		free(p);
		p = xasprintf("%s/%s/config", wt, gitdir);
	} else {
		p = xasprintf("%s/.git", wt);
		assert_int_equal(mkdir(p, 0700), 0);
		free(p);
		p = xasprintf("%s/.git/config", wt);
	}
	f = fopen(p, "w");
	fputs(config, f);
	fclose(f);
	free(p);
	return wt;
}

static void
worktree_free(char *wt)
{
	char *cmd = xasprintf("rm -rf '%s'", wt);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(wt);
}

/* core.hooksPath read as git reads it, and the pattern protecting it. */
static void
test_hooks_path(void **state)
{
	static const struct {
		const char	*config;
		const char	*want;	/* after the work tree; NULL: none */
	} cases[] = {
		{ "[core]\n\thooksPath = .githooks\n", "/.githooks/**" },
		{ "[Core]\n\tHOOKSPATH=hooks/x/\n", "/hooks/x/**" },
		{ "[core]\n\thooksPath = \"my hooks\" ; a comment\n",
		  "/my hooks/**" },
		{ "[core]\n\thooksPath = a\n\thooksPath = b # last wins\n",
		  "/b/**" },
		{ "[core]\n\thooksPath = sub/../h*\n", "/h\\*/**" },
		{ "[core \"x\"]\n\thooksPath = no\n", NULL },
		{ "[alias]\n\thooksPath = no\n[core]\n\tbare = false\n", NULL },
		{ "[core]\n\tfsmonitor = x\n", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *wt = worktree_with(cases[i].config, NULL);
		char *got = protect_hooks_path(wt, HOME);

		if (cases[i].want == NULL) {
			if (got != NULL)
				fail_msg("case %zu: got %s", i, got);
		} else {
			char *want = xasprintf("%s%s", wt, cases[i].want);

			if (got == NULL || strcmp(got, want) != 0)
				fail_msg("case %zu: got %s, want %s", i,
				    got ? got : "(none)", want);
			free(want);
		}
		free(got);
		worktree_free(wt);
	}
	{
		/* absolute and ~/, a linked work tree's "gitdir:" file */
		char *wt = worktree_with("[core]\nhooksPath = ~/hooks\n",
		    "gd");
		char *got = protect_hooks_path(wt, HOME);
		struct policy *p;
		const char *globs[] = { got, NULL };

		assert_string_equal(got, HOME "/hooks/**");
		assert_null(protect_hooks_path(wt, NULL));
		assert_string_equal(protect_words(got),
		    "a git hook: git runs it as you");
		p = policy_with(globs);
		assert_string_equal(protect_match(p, ROOT, HOME,
		    HOME "/hooks/post-checkout"), got);
		policy_with_free(p);
		free(got);
		worktree_free(wt);
		wt = worktree_with("[core]\nhooksPath = /\n", NULL);
		assert_null(protect_hooks_path(wt, HOME));
		worktree_free(wt);
		assert_null(protect_hooks_path("/nonexistent/x", HOME));
	}
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* What one call costs on the paths a build writes (no dot component:
 * the common case), on git's objects and on a hook, with a policy of
 * three globs of its own. Printed, never asserted: a loaded CI machine
 * is no measure. */
static void
test_cost(void **state)
{
	static const char *const globs[] = { "**/deploy.sh", "~/.local/bin/*",
	    "/etc/profile.d/*.sh", NULL };
	static const char *const paths[] = {
		ROOT "/build/obj/src/module/file.o",
		ROOT "/.git/objects/ab/cdef0123456789",
		ROOT "/.git/hooks/post-checkout",
	};
	struct policy *p = policy_with(globs);
	volatile size_t hits = 0;
	const int n = 200000;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(paths); k++) {
		double t0 = now_ns(), t1;

		for (int i = 0; i < n; i++)
			hits += protect_match(p, ROOT, HOME, paths[k]) != NULL;
		t1 = now_ns();
		printf("# protect_match %-45s %6.0f ns a call\n",
		    paths[k] + strlen(ROOT), (t1 - t0) / n);
	}
	assert_int_equal(hits, (size_t)n);
	{
		/* The worst a sandbox can hand it: a path of PATH_MAX made
		 * of .git/modules, matching nothing. */
		char worst[4096] = ROOT;
		double t0, t1;

		while (strlen(worst) + 14 < sizeof(worst) - 2)
			strcat(worst, "/.git/modules");
		strcat(worst, "/x");
		t0 = now_ns();
		for (int i = 0; i < 100; i++)
			hits += protect_match(p, ROOT, HOME, worst) != NULL;
		t1 = now_ns();
		printf("# protect_match %-45s %6.0f ns a call\n",
		    "/.git/modules x 290 /x (the worst)", (t1 - t0) / 100);
	}
	policy_with_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_builtin_list),
		cmocka_unit_test(test_no_root_no_home),
		cmocka_unit_test(test_rel),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_policy_globs),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_hooks_path),
		cmocka_unit_test(test_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
