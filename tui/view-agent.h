/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The agent pane: the program's own screen (tui/vt.h) in a rectangle it
 * cannot leave, and ward's request strip beside it. Rows 1..h-3 (view.c
 * draws the title above and the status and keys below):
 *
 *   narrow (< VIEW_AGENT_SIDE columns), or zoomed:
 *     "-- agent pane, run ID (NAME) --- program's title: "..." --"
 *     header, then the pane, each of its rows behind a gutter column;
 *     then the strip ("-- pending ---" and the requests)
 *   wide: the pane on the left, a rule, the strip on the right
 *
 * The gutter and the headers are ward's: the program draws only inside
 * the pane, so nothing it draws can stand where ward's strip stands or
 * carry the gutter's absence. The focused side's header is drawn '='.
 * The header names the run as ward knows it; the title the program set
 * (OSC 0/2) follows ward's words as quoted, escaped, dim data, never in
 * their place (issue 31).
 */
#include "tui/grid.h"
#include "tui/model.h"
#include "tui/view-report.h"

#define VIEW_AGENT_SIDE		160	/* columns for side by side */
#define VIEW_AGENT_MIN_ROWS	3	/* the pane never shrinks below */
/* Below this many rows, stacked, each request is brief (at most
 * VIEW_PENDING_BRIEF_ROWS): at 80x24 a whole one took 12 of 24 rows and
 * left the agent 9, its own input box and status 5 of them. */
#define VIEW_AGENT_BRIEF_H	40
/* The program's own title on the pane's header: at most this many
 * columns of it, and none when fewer than ..._MIN fit. */
#define VIEW_AGENT_TITLE_MAX	40
#define VIEW_AGENT_TITLE_MIN	6

struct view_agent_layout {
	int		 pane_y, pane_x, pane_h, pane_w;
	int		 strip_y, strip_x, strip_h, strip_w;
	bool		 side;		/* strip to the right of the pane */
};

/* Where the pane and the strip go on a w x h screen (w, h at least
 * VIEW_MIN_W x VIEW_MIN_H). */
void	view_agent_layout(const struct model *, int w, int h,
	    struct view_agent_layout *);
/* Draws the pane and the strip; reports the pane's size and the requests
 * drawn. */
void	view_agent_draw(const struct model *, struct grid *,
	    struct view_report *);
