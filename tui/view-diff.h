/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The diff pane: the run's changed files (the selected one marked) over
 * the selected file's patch, coloured like git's (+ green, - red, @@
 * cyan, headers bold), scrolled by m->diff.scroll. Draws rows
 * [top, bottom) of a const model. While an apply or a discard is asked
 * about (p, P, u, U), the exact files it will touch in the patch's place,
 * reported (rep->diff_confirm) so that y arms only once all were seen.
 */
#include "tui/grid.h"
#include "tui/model.h"
#include "tui/view-report.h"

void	view_diff_draw(const struct model *, struct grid *, int top,
	    int bottom, struct view_report *rep);
