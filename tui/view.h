#pragma once
/*
 * Views draw a const model into a grid and report what they drew. The
 * layout at 80x24 (the minimum; smaller shows "terminal too small"):
 *
 *   row 0        title: run id, name, state, pid, limits, N pending
 *   rows 1..     output pane (header + the last lines, wrapped)
 *                events (the last few decisions), when there is room
 *                pending pane (header + each request whole, oldest first)
 *   row h-2      status message / "kill run? y/n"
 *   row h-1      keys, or the run's end / "supervisor gone" banner
 *
 * Enter replaces the panes with the whole selected request, ? with help.
 * The focused pane's header is drawn with '=' instead of '-'.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/grid.h"
#include "tui/model.h"

#define VIEW_MIN_W 80
#define VIEW_MIN_H 24

struct view_seen {
	uint64_t	 id;
	bool		 whole;		/* every line of it was drawn */
};

struct view_report {
	struct view_seen *seen;
	size_t		 n_seen, cap;
	int		 page_rows;	/* output pane rows */
	int		 detail_rows;	/* detail body rows, 0 when not open */
	int		 detail_lines;	/* detail body lines in all */
};

void	view_report_init(struct view_report *);
void	view_report_done(struct view_report *);
void	view_report_reset(struct view_report *);
void	view_report_seen(struct view_report *, uint64_t id, bool whole);

/* Clears the grid and draws the whole screen for m. */
void	view_draw(const struct model *, struct grid *, struct view_report *);

/* Draws m at w x h and returns the text (tests); *rep may be NULL. */
char	*view_render_text(const struct model *, int w, int h,
	    struct view_report *rep);

/*
 * The pieces, for view*.c. A "pen" draws rows from y on, only those in
 * [top, bottom); rows outside are counted, not drawn, so that the same
 * code measures and draws.
 */
struct pen {
	struct grid	*g;		/* NULL: measure only */
	int		 y;
	int		 top, bottom;
};
/* Wraps s into columns [x, xend) (continuation rows at x too); advances
 * p->y by the rows used, at least 1. */
void	view_wrap(struct pen *, int x, int xend, const char *s, unsigned attr);
/* "-- title ---...": the header of a pane, '=' when focused. */
void	view_header(struct grid *, int y, const char *title, bool focused);

void	view_output_draw(const struct model *, struct grid *, int top,
	    int bottom);
/* Rows view_pending_draw() would like: header + every request whole. */
int	view_pending_rows(const struct model *, int w);
void	view_pending_draw(const struct model *, struct grid *, int top,
	    int bottom, struct view_report *);
void	view_pending_detail_draw(const struct model *, struct grid *, int top,
	    int bottom, struct view_report *);
void	view_help_draw(const struct model *, struct grid *, int top,
	    int bottom);
