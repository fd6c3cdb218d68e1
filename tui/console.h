/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The console: attach to one live run's supervisor and show its output,
 * pending requests and state; a person approves, denies or kills.
 * Returns the exit status for `ward`: 0 after q, the run's own exit
 * status when `exit_with_run` and the run ended while attached.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "tui/model.h"

struct console_opts {
	const char	*run;		/* run id or name */
	bool		 exit_with_run;	/* `ward run`: q after the end returns its status */
	enum agent_mode	 agent;		/* --agent, --lines, or AUTO */
	bool		 view;		/* --view: read-only (hello role view) */
	char *const	*hosts;		/* --host H, --hosts: other hosts whose
					 * runs join (every run only) */
	size_t		 n_hosts;
};

/* The prefix key from WARD_PREFIX ("^]", "C-a"), else MODEL_PREFIX; a
 * value that names no key is said on stderr and the default kept. */
int	console_prefix(void);

int	console_attach(const struct console_opts *);
int	console_main(int argc, char **argv);	/* ward console [RUN] */

/* The getopt_long tables, for `ward completion` (tui/completion.h). */
extern const struct option console_opts_table[];
