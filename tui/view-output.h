/* SPDX-License-Identifier: MIT */
#pragma once
/* The output pane: the program's lines, newest at the bottom. */
#include "tui/grid.h"
#include "tui/model.h"

/* Draws the output pane in rows [top, bottom): a header, then the lines
 * that end m->out.scroll lines above the newest, wrapped, bottom up. */
void	view_output_draw(const struct model *, struct grid *, int top,
	    int bottom);
