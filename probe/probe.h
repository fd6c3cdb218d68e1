/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * ward probe [--policy FILE] [--json] [--keep]
 * Runs a battery of hostile actions, each in a headless sandbox of its
 * own made from the policy, denies every request at once, judges every
 * result from outside (canary files, a planted secret, host listeners, the
 * supervisor and its sockets, the sandbox's processes and sockets, with
 * root a packet watch, the record) and prints a report
 * card ending in "N blocked and logged, M escaped". Exit status 0 when
 * nothing escaped and nothing went unrecorded, 1 otherwise, 125 when the
 * harness itself failed.
 *
 * probe/ is two halves that share only what is below: inside*.c, the
 * hostile program, and the rest, the battery that runs it and judges it
 * from outside (setup, run, watch, judge, report).
 */
#include <getopt.h>

int	probe_main(int argc, char **argv, const char *argv0);
/* ward probe-inside NAME [ARG...]: one hostile action, the program that
 * probe_main runs inside each sandbox. It reports what it tried on stdout;
 * nothing it says decides a verdict. Not for people: not in the help. */
int	probe_inside_main(int argc, char **argv);

/* What the two halves agree on. */
#define PROBE_OWN_EXIT		42	/* kill-supervisor's own status */
#define PROBE_SECRET_PREFIX	"WARD_PROBE_SECRET_"
#define PROBE_RACE_PACKAGE	"wardprobe-x"
#define PROBE_RACE_SCRIPT	"pip"	/* in the tools folder: #!ward probe-inside */

/* The getopt_long tables, for `ward completion` (tui/completion.h). */
extern const struct option probe_opts[];
