#pragma once
/*
 * The console: attach to one live run's supervisor and show its output,
 * pending requests and state; a person approves, denies or kills.
 * Returns the exit status for `ward`: 0 after q, the run's own exit
 * status when `exit_with_run` and the run ended while attached.
 */
#include <stdbool.h>

struct console_opts {
	const char	*run;		/* run id or name */
	bool		 exit_with_run;	/* `ward run`: q after the end returns its status */
};

int	console_attach(const struct console_opts *);
int	console_main(int argc, char **argv);	/* ward console [RUN] */
