/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The console's notify_cmd hook (config/settings.h): a person's command
 * run when a request has waited too long, off the console's loop and
 * bounded. One at a time: while one runs, hook_fire() says -EBUSY and the
 * caller tries again later. The command line is the person's own, run by
 * /bin/sh -c; what the sandboxed program controls reaches it only as
 * environment variables, escaped (config/escape.h), never as part of the
 * command's text (escaped by the model, which stores them so):
 *   WARD_RUN, WARD_RUN_NAME, WARD_REQUEST (the id), WARD_KIND,
 *   WARD_SUBJECT, WARD_PROCESS, WARD_WAITED (seconds)
 * Its stdin, stdout and stderr are /dev/null (the screen is curses'), it
 * runs in a process group of its own, and HOOK_TIMEOUT_MS after it
 * started the group is killed.
 */
#include <stdint.h>
#include <sys/types.h>

#define HOOK_TIMEOUT_MS		5000

struct hook;

struct hook	*hook_new(const char *cmd);
/* Kills a hook still running and reaps it. */
void		 hook_free(struct hook *);

/* What a request hands the hook: strings already escaped
 * (config/escape.h; the model keeps them so), passed on as they are. */
struct hook_request {
	const char	*run;
	const char	*run_name;
	uint64_t	 id;
	const char	*kind;
	const char	*subject;
	const char	*process;
	int64_t		 waited_s;
};

/* Starts the command for r: 0, -EBUSY while one runs, -errno. */
int		 hook_fire(struct hook *, const struct hook_request *r,
		    int64_t now_mono);
/* Reaps a finished hook, kills one past its time; call each round. */
void		 hook_tick(struct hook *, int64_t now_mono);
/* The pid of the hook running now, or 0. */
pid_t		 hook_pid(const struct hook *);
