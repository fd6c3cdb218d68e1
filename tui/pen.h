#pragma once
/*
 * The pieces every view draws with. A pen draws rows from y on, only
 * those in [top, bottom); rows outside are counted, not drawn, so that
 * the same code measures (g NULL) and draws. Nothing here knows the
 * model: the views (tui/view*.c) call down into it, never the reverse.
 */
#include <stdbool.h>

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
/* "-- title ---...": the header of a pane, '=' when focused. */
void	pen_header(struct grid *, int y, const char *title, bool focused);
