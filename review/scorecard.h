/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A run's scorecard, for people who do not know what seccomp is (`ward
 * demo` closes with it): each thing the program tried that mattered, in
 * plain words (review/plain.h), with what came of it and who decided
 * (the person and how long they took, a rule of the policy, the never
 * list, the floor), then the counts of review/summary.h. Read from the
 * record alone. Programs started are counted, not listed.
 */
#include "review/summary.h"

struct audit;

/* The origin `ward demo --auto` gives its answers ("... via ward demo
 * --auto" in the record): the scorecard says the demo's script answered,
 * not "you". */
#define SCORECARD_SCRIPT_ORIGIN	"ward demo --auto"

#define SCORECARD_TITLE	"What the program tried, and what came of it:"

/* The lines (malloc'd strv, NULL-terminated), escaped as the record's
 * strings are, the first the title (SCORECARD_TITLE, which a card may
 * show as its header instead); 0 or -errno with *cause. */
int	scorecard_lines(struct audit *, const char *run,
	    const struct summary *, char ***ret, char **cause);

/*
 * lines fitted to `width` columns (a terminal's, the console's card):
 * each line wrapped at spaces into rows of at most width columns (as a
 * terminal counts them: a wide character takes two), its words whole
 * and in order; a word longer than a row is cut over rows, never
 * dropped. A row that goes on a line hangs under its text: a step's
 * under the sentence after its surface ("files     "), any other line
 * two columns in from its own indent; too narrow for that (fewer than
 * 16 columns left), two in from the line's indent. width <= 0: copied as
 * they are. A malloc'd strv, NULL-terminated.
 */
char	**scorecard_fit(char *const *lines, int width);

/* The columns s takes on a terminal (scorecard_fit's measure). */
int	scorecard_width(const char *s);
