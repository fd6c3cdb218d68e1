/* SPDX-License-Identifier: MIT */
#include "tui/hook.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/util.h"

extern char **environ;

struct hook {
	char		*cmd;
	pid_t		 pid;		/* 0 when none runs */
	int64_t		 started_ms;
	bool		 killed;
};

struct hook *
hook_new(const char *cmd)
{
	struct hook *h = xcalloc(1, sizeof *h);

	h->cmd = xstrdup(cmd);
	return h;
}

void
hook_free(struct hook *h)
{
	if (h == NULL)
		return;
	if (h->pid > 0) {
		(void)kill(-h->pid, SIGKILL);
		while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(h->cmd);
	free(h);
}

pid_t
hook_pid(const struct hook *h)
{
	return h->pid;
}

/* The environment of the hook: ours without WARD_*, then the request's. */
static char **
hook_env(const struct hook_request *r)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n] != NULL)
		n++;
	env = xcalloc(n + 8, sizeof *env);
	for (size_t i = 0; i < n; i++) {
		if (!str_has_prefix(environ[i], "WARD_"))
			env[k++] = xstrdup(environ[i]);
	}
	env[k++] = xasprintf("WARD_RUN=%s", r->run);
	env[k++] = xasprintf("WARD_RUN_NAME=%s", r->run_name);
	env[k++] = xasprintf("WARD_REQUEST=%" PRIu64, r->id);
	env[k++] = xasprintf("WARD_KIND=%s", r->kind);
	env[k++] = xasprintf("WARD_SUBJECT=%s", r->subject);
	env[k++] = xasprintf("WARD_PROCESS=%s", r->process);
	env[k++] = xasprintf("WARD_WAITED=%" PRId64, r->waited_s);
	env[k] = NULL;
	return env;
}

int
hook_fire(struct hook *h, const struct hook_request *r, int64_t now_mono)
{
	char *argv[] = { "/bin/sh", "-c", h->cmd, NULL };
	cleanup_strv char **env = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	pid_t pid;
	int e;

	if (h->pid > 0)
		return -EBUSY;
	env = hook_env(r);
	posix_spawn_file_actions_init(&fa);
	for (int fd = 0; fd <= 2; fd++)
		posix_spawn_file_actions_addopen(&fa, fd, "/dev/null",
		    fd == 0 ? O_RDONLY : O_WRONLY, 0);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&dfl);
	/* The console ignores SIGPIPE and catches the rest: the hook
	 * starts with the defaults, in a group of its own (killed whole). */
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
	e = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (e != 0)
		return -e;
	h->pid = pid;
	h->started_ms = now_mono;
	h->killed = false;
	return 0;
}

void
hook_tick(struct hook *h, int64_t now_mono)
{
	pid_t r;

	if (h->pid <= 0)
		return;
	r = waitpid(h->pid, NULL, WNOHANG);
	if (r == h->pid || (r < 0 && errno == ECHILD)) {
		h->pid = 0;
		return;
	}
	if (!h->killed && now_mono - h->started_ms >= HOOK_TIMEOUT_MS) {
		/* Bounded: a hook that hangs is killed with its children. */
		(void)kill(-h->pid, SIGKILL);
		h->killed = true;
	}
}
