/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The events pane (tui/events.h): what the run did and how each was
 * decided, newest at the bottom, filtered by `/` and with exec noise
 * folded. Unfocused and unfiltered it is the few "recent decisions" above
 * the requests; focused (Tab) or filtered it takes more rows and scrolls.
 * And the end-of-run summary card (approvals/summary.h).
 */
#include "tui/grid.h"
#include "tui/model.h"

/* Rows the pane wants out of avail (0: none to show). */
int	view_events_rows(const struct model *, int avail);
/* Draws it in rows [top, bottom): a header (or the filter being typed),
 * then the lines that end m->ev.scroll lines above the newest. */
void	view_events_draw(const struct model *, struct grid *, int top,
	    int bottom);

/* Rows the summary card takes (0 when there is none to show). */
int	view_summary_rows(const struct model *);
/* Draws it in rows [top, bottom): its header, then a line a count. */
void	view_summary_draw(const struct model *, struct grid *, int top,
	    int bottom);
