/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Answers that ask first (issue 15): the prompt that shows the exact rule
 * an answer for the run stores, the glob a group answer amounts to, or
 * the reason being typed; and the run's rules (R).
 */
#include "tui/grid.h"
#include "tui/model.h"

/* The prompt, wrapped whole above the key line (it is never cut: the
 * person confirms what it says); nothing when no answer asks. */
void	view_ask_draw(const struct model *, struct grid *);
/* Any question so drawn (the leave question too): text wrapped whole in
 * the rows above the key line, filled with attr. */
void	view_prompt_draw(struct grid *, const char *text, unsigned attr);
/* The same for a question text (NULL: none), e.g. tui/fleet.h's
 * fleet_ask_text. */
void	view_ask_text_draw(const char *, struct grid *);
/* The run's rules in rows [top, bottom). */
void	view_rules_draw(const struct model *, struct grid *, int top,
	    int bottom);
