/* SPDX-License-Identifier: MIT */
#pragma once
/* ward demo [--auto] [--headless]: a pretend agent meets every surface
 * ward guards, in a fake world of its own; a scorecard at the end. */
#include <getopt.h>

int	demo_main(int argc, char **argv, const char *argv0);

/* The getopt_long tables, for `ward completion` (tui/completion.h). */
extern const struct option demo_opts[];
