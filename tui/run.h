/* SPDX-License-Identifier: MIT */
#pragma once
/* ward run [--headless] [--policy FILE] [--name NAME] [--in PATH]...
 *          [--timeout DURATION] -- CMD [ARG...]
 * Starts ward-supervisor for one run. Headless (or without a terminal) it
 * execs the supervisor in the foreground; on a terminal it starts it in
 * the background and attaches the console. */

int	run_main(int argc, char **argv, const char *argv0);

/* Its getopt_long table, runopts_options, for `ward completion`:
 * approvals/runopts.h. */
