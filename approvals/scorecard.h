/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A run's scorecard, for people who do not know what seccomp is (`ward
 * demo` closes with it): each thing the program tried that mattered, in
 * plain words (approvals/plain.h), with what came of it and who decided
 * (the person and how long they took, a rule of the policy, the never
 * list, the floor), then the counts of approvals/summary.h. Read from the
 * record alone. Programs started are counted, not listed.
 */
#include "approvals/summary.h"

struct audit;

/* The origin `ward demo --auto` gives its answers ("... via ward demo
 * --auto" in the record): the scorecard says the demo's script answered,
 * not "you". */
#define SCORECARD_SCRIPT_ORIGIN	"ward demo --auto"

/* The lines (malloc'd strv, NULL-terminated), escaped as the record's
 * strings are; 0 or -errno with *cause. */
int	scorecard_lines(struct audit *, const char *run,
	    const struct summary *, char ***ret, char **cause);
