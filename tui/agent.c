/* SPDX-License-Identifier: MIT */
#include "tui/agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"
#include "tui/run.h"
#include "tui/usage.h"

const struct option agent_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The names a person types, the recipe and the program each stands for.
 * A name not here is tried as share/agents/NAME.ini running NAME. */
static const struct {
	const char *name, *recipe, *cmd;
} agents[] = {
	{ "claude", "claude-code.ini", "claude" },
	{ "claude-code", "claude-code.ini", "claude" },
	{ "codex", "codex.ini", "codex" },
	{ "gemini", "gemini-cli.ini", "gemini" },
	{ "gemini-cli", "gemini-cli.ini", "gemini" },
	{ "aider", "aider.ini", "aider" },
};

static void
agent_usage(FILE *f)
{
	fputs("usage: ward agent NAME [ARG...]\n"
	    "\n"
	    "Run an agent under its recipe (share/agents/), with the current\n"
	    "folder as the project (writes staged: 'ward diff', 'ward apply')\n"
	    "and the agent pane. NAME: claude, codex, gemini or aider (or the\n"
	    "name of another recipe there); ARGs go to the agent. The same as\n"
	    "  ward run --policy SHARE/agents/RECIPE --project . --chdir .\n"
	    "      --agent -- NAME [ARG...]\n", f);
}

/* A name that can only be a file's: letters, digits, - and _. */
static bool
agent_name_ok(const char *s)
{
	if (*s == '\0' || *s == '-')
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		    *s == '-' || *s == '_'))
			return false;
	return true;
}

/* The agent's program as the host's PATH finds it, its links followed
 * (an npm bin link leads to the package's folder), or NULL. */
static char *
agent_find(const char *cmd)
{
	const char *path = getenv("PATH");
	cleanup_free char *copy = xstrdup(path != NULL ? path : "");
	char *save = NULL;

	for (char *d = strtok_r(copy, ":", &save); d != NULL;
	    d = strtok_r(NULL, ":", &save)) {
		cleanup_free char *f = NULL;

		if (d[0] != '/')
			continue;	/* never ".": not the project's */
		f = xasprintf("%s/%s", d, cmd);
		if (access(f, X_OK) == 0)
			return realpath(f, NULL);
	}
	return NULL;
}

/* Folders every sandbox shows: the system's programs and libraries. */
static bool
agent_shown(const char *dir)
{
	static const char *const sys[] = { "/usr/", "/bin/", "/sbin/",
	    "/lib/", "/lib64/" };
	cleanup_free char *d = xasprintf("%s/", dir);

	for (size_t i = 0; i < ARRAY_SIZE(sys); i++)
		if (strncmp(d, sys[i], strlen(sys[i])) == 0 &&
		    !str_has_prefix(d, "/usr/local/"))
			return true;
	return false;
}

int
agent_main(int argc, char **argv, const char *argv0)
{
	cleanup_free char *share = NULL, *policy = NULL, *cwd = NULL;
	const char *name, *recipe = NULL, *cmd = NULL;
	cleanup_free char *file = NULL, *exe = NULL, *dir = NULL;
	char **rargv;
	int n = 0, status;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		agent_usage(stdout);
		return 0;
	}
	if (argc < 2)
		return usage_error(125, "agent", "no agent named (claude, "
		    "codex, gemini, aider)");
	name = argv[1];
	if (!agent_name_ok(name)) {
		cleanup_free char *e = escape_str(name);

		return usage_error(125, "agent", "'%s' is not an agent's name "
		    "(claude, codex, gemini, aider)", e);
	}
	for (size_t i = 0; i < ARRAY_SIZE(agents); i++)
		if (strcmp(agents[i].name, name) == 0) {
			recipe = agents[i].recipe;
			cmd = agents[i].cmd;
		}
	if (recipe == NULL) {
		recipe = file = xasprintf("%s.ini", name);
		cmd = name;
	}
	share = paths_share_dir(argv0);
	policy = xasprintf("%s/agents/%s", share, recipe);
	if (access(policy, R_OK) < 0) {
		int e = errno;
		cleanup_free char *q = escape_str(policy);

		fprintf(stderr, "ward agent: %s: %s (the agents with a recipe: "
		    "claude, codex, gemini, aider)\n", q, strerror(e));
		return 125;
	}
	if ((cwd = getcwd(NULL, 0)) == NULL) {
		fprintf(stderr, "ward agent: the current folder: %s\n",
		    strerror(errno));
		return 125;
	}
	/* Found on the host's PATH (an npm prefix, ~/.local/bin): run by
	 * its real path, its folder shown read-only when the sandbox would
	 * not show it anyway. Not found: the bare name, and the run says
	 * what is missing. */
	if ((exe = agent_find(cmd)) != NULL) {
		dir = xstrdup(exe);
		*strrchr(dir, '/') = '\0';
		cmd = exe;
	}
	rargv = xcalloc((size_t)argc + 14, sizeof *rargv);
	rargv[n++] = (char *)"run";
	rargv[n++] = (char *)"--policy";
	rargv[n++] = policy;
	rargv[n++] = (char *)"--project";
	rargv[n++] = cwd;
	rargv[n++] = (char *)"--chdir";
	rargv[n++] = cwd;
	rargv[n++] = (char *)"--agent";
	if (dir != NULL && dir[0] != '\0' && !agent_shown(dir)) {
		rargv[n++] = (char *)"--in";
		rargv[n++] = dir;
	}
	rargv[n++] = (char *)"--";
	rargv[n++] = (char *)cmd;
	for (int i = 2; i < argc; i++)
		rargv[n++] = argv[i];
	rargv[n] = NULL;
	optind = 0;
	status = run_main(n, rargv, argv0);
	free(rargv);
	return status;
}
