/* SPDX-License-Identifier: MIT */
#include "tui/view-answer.h"

#include <stdio.h>
#include <stdlib.h>

#include "config/util.h"
#include "tui/pen.h"

void
view_ask_draw(const struct model *m, struct grid *g)
{
	cleanup_free char *text = model_ask_text(m);

	view_ask_text_draw(text, g);
}

void
view_ask_text_draw(const char *text, struct grid *g)
{
	if (text == NULL)
		return;
	view_prompt_draw(g, text, GRID_REVERSE | GRID_BOLD |
	    GRID_COLOR(GRID_YELLOW));
}

void
view_prompt_draw(struct grid *g, const char *text, unsigned attr)
{
	struct pen p = { .g = NULL, .y = 0 };
	int rows, y;

	pen_wrap_words(&p, 1, g->w - 1, text, attr);
	rows = p.y;
	y = g->h - 1 - rows;
	if (y < 1)
		y = 1;
	for (int r = y; r < g->h - 1; r++)
		grid_fill(g, r, 0, g->w, attr);
	p = (struct pen){ .g = g, .y = y, .top = 1, .bottom = g->h - 1 };
	pen_wrap_words(&p, 1, g->w - 1, text, attr);
}

void
view_rules_draw(const struct model *m, struct grid *g, int top, int bottom)
{
	struct pen p = { .g = g, .y = top + 1, .top = top + 1,
	    .bottom = bottom };
	char title[96];

	snprintf(title, sizeof title, "rules of this run: %zu (ward rules "
	    "revoke RUN N removes one); any key closes", m->rules.n);
	pen_header(g, top, title, true);
	if (!m->rules.loaded) {
		pen_wrap(&p, 2, g->w, "asking the supervisor...", GRID_DIM);
		return;
	}
	if (m->rules.n == 0)
		pen_wrap(&p, 2, g->w, "none: every answer so far was for "
		    "once", GRID_DIM);
	for (size_t i = 0; i < m->rules.n && p.y < bottom; i++)
		pen_wrap(&p, 2, g->w, m->rules.lines[i], 0);
}
