/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The pieces every view draws with. A pen draws rows from y on, only
 * those in [top, bottom); rows outside are counted, not drawn, so that
 * the same code measures (g NULL) and draws. Nothing here knows the
 * model: the views (tui/view*.c) call down into it, never the reverse.
 */
#include <stdbool.h>
#include <stdint.h>

#include "tui/grid.h"

struct pen {
	struct grid	*g;		/* NULL: measure only */
	int		 y;
	int		 top, bottom;
};

/* Wraps s into columns [x, xend) (continuation rows at x too); advances
 * p->y by the rows used, at least 1. */
void	pen_wrap(struct pen *, int x, int xend, const char *s, unsigned attr);
/* Like pen_wrap(), but breaks prose at spaces where it can; an empty s
 * takes no row. */
void	pen_wrap_words(struct pen *, int x, int xend, const char *s,
	    unsigned attr);
/*
 * A GRID_TC_* colour folded to what a terminal of `colors` colours has
 * (curses' COLORS: 8, 16, 256; more counts as 256): its colour number,
 * or -1 for the terminal's default (tc 0, or fewer than 8 colours). An
 * index the terminal has stays; a bright one (8..15) on 8 colours is its
 * dark twin; the rest, and RGB, go to the nearest colour the terminal
 * has (the xterm palette: its 6x6x6 cube and grey ramp on 256, the 16
 * basic colours on 16; on 8, each channel at half or more is on).
 */
int	pen_fold_color(uint32_t tc, int colors);
/* "-- title ---...": the header of a pane, '=' when focused. */
void	pen_header(struct grid *, int y, const char *title, bool focused);
