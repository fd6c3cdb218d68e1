/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * ward completion bash|zsh|fish: shell completion scripts printed from the
 * verb table tui/main.c dispatches with and each verb's own getopt_long
 * table, so that a new verb or option is completed without a second list.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

struct completion_verb {
	const char		*name;
	const char		*summary;	/* NULL: hidden, not completed */
	const struct option	*opts;		/* NULL: none but --help */
};

/* Prints the script for shell ("bash", "zsh", "fish"); 0, or -EINVAL
 * for another shell. */
int	completion_print(FILE *, const char *shell,
	    const struct completion_verb *, size_t n);
/* The verb itself: argv is {"completion", SHELL}. */
int	completion_main(int argc, char **argv,
	    const struct completion_verb *, size_t n);
