#pragma once
/*
 * The diff pane: the run's changed files (the selected one marked) over
 * the selected file's patch, coloured like git's (+ green, - red, @@
 * cyan, headers bold), scrolled by m->diff.scroll. Draws rows
 * [top, bottom) of a const model.
 */
#include "tui/grid.h"
#include "tui/model.h"

void	view_diff_draw(const struct model *, struct grid *, int top,
	    int bottom);
