/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Starting ward-supervisor for one run, the one way `ward run` and
 * `ward probe` both do it: its argv (the supervisor beside our own
 * executable, else on PATH), its exec, and the run id it writes on
 * --ready-fd once its control socket listens, before the program
 * starts. The fork, and what the child's stdio is, stay the caller's.
 */
#include <stdbool.h>
#include <stddef.h>

/*
 * The options `ward run` hands to the supervisor as they are, in
 * getopt_long's form (<getopt.h>), for both programs' tables: a new one
 * is added here once.
 */
#define LAUNCH_SUP_OPTIONS \
	{ "policy", required_argument, NULL, 'p' }, \
	{ "name", required_argument, NULL, 'n' }, \
	{ "in", required_argument, NULL, 'i' }, \
	{ "project", required_argument, NULL, 'P' }, \
	{ "timeout", required_argument, NULL, 't' }, \
	{ "chdir", required_argument, NULL, 'C' }, \
	{ "status-fd", required_argument, NULL, 'S' }, \
	{ "no-landlock", no_argument, NULL, 'L' }

struct launch {
	char		*path;	/* ward-supervisor beside us, else its name */
	char	       **argv;	/* NULL-terminated */
	size_t		 argc;
};

void	launch_init(struct launch *l);
void	launch_done(struct launch *l);
/* An option, with its value (value NULL: a flag). Before the command. */
void	launch_opt(struct launch *l, const char *opt, const char *value);
/* --ready-fd FD: a pipe's write end, left open across the exec by the
 * caller (not close-on-exec in the child). */
void	launch_ready_fd(struct launch *l, int fd);
/* "--" and the command: last. */
void	launch_command(struct launch *l, char *const *argv, size_t n);
/* execv the supervisor, else execvp it by name. Returns only when both
 * failed: -errno. */
int	launch_exec(const struct launch *l);
/* launch_exec, and when it returns: "ward: cannot start PATH: why" on
 * stderr and 125, `ward run`'s status for "ward failed". */
int	launch_exec_or_say(const struct launch *l);
/* Is this line (without its newline) a run id: 8 lowercase hex digits? */
bool	launch_is_run_id(const char *line, size_t len);
/*
 * Reads the ready fd until a line that is a run id: 0 and id filled.
 * Every other whole line is the supervisor telling why it could not
 * start, handed to on_line (NULL: dropped). -EPIPE: it closed the fd
 * without one; -ETIMEDOUT: none within timeout_ms (-1: no limit).
 */
int	launch_wait_ready(int fd, int timeout_ms, char id[9],
	    void (*on_line)(const char *line, void *arg), void *arg);
