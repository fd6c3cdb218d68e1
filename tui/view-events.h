/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The events pane (tui/events.h): what the run did and how each was
 * decided, newest at the bottom, filtered by `/` and with exec noise
 * folded. Unfocused and unfiltered it is the few "recent decisions" above
 * the requests; focused (Tab) or filtered it takes more rows and scrolls.
 * And the end-of-run summary card (review/summary.h); for a demo's
 * run the scorecard (review/scorecard.h) in its place, wrapped to the
 * grid's width (scorecard_fit).
 */
#include "tui/grid.h"
#include "tui/model.h"

/* Rows the pane wants out of avail (0: none to show). */
int	view_events_rows(const struct model *, int avail);
/* Draws it in rows [top, bottom): a header (or the filter being typed),
 * then the lines that end m->ev.scroll lines above the newest. */
void	view_events_draw(const struct model *, struct grid *, int top,
	    int bottom);

/* Rows the summary card takes at width w (0 when there is none). */
int	view_summary_rows(const struct model *, int w);
/* Draws it in rows [top, bottom): its header, then a line a count (the
 * scorecard's rows); what does not fit ends in a line that says how
 * many rows are left out and where they are printed whole. */
void	view_summary_draw(const struct model *, struct grid *, int top,
	    int bottom);
