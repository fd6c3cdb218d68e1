/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The command-line verbs that talk to live supervisors or read the record.
 * Each returns the process exit status: 0 ok, 1 a failure the user must
 * see (no such run, already decided), 2 usage.
 */
#include <getopt.h>

int	cli_pending(int argc, char **argv);	/* ward pending [--json] */
int	cli_approve(int argc, char **argv);	/* ward approve RUN ID */
int	cli_deny(int argc, char **argv);	/* ward deny RUN ID [--reason TEXT] */
int	cli_stage(int argc, char **argv);	/* ward stage RUN ID */
int	cli_kill(int argc, char **argv);	/* ward kill RUN */
int	cli_rules(int argc, char **argv);	/* ward rules [RUN]; revoke RUN N */
int	cli_log(int argc, char **argv);		/* ward log [RUN] [--json] */
int	cli_output(int argc, char **argv);	/* ward output [--raw] [RUN] */
int	cli_ps(int argc, char **argv);		/* ward ps [--json] */

/* The getopt_long tables, for `ward completion` (tui/completion.h). */
extern const struct option cli_pending_opts[];
extern const struct option cli_deny_opts[];
extern const struct option cli_approve_opts[];
extern const struct option cli_kill_opts[];
extern const struct option cli_log_opts[];
extern const struct option cli_output_opts[];
extern const struct option cli_ps_opts[];
extern const struct option cli_rules_opts[];
