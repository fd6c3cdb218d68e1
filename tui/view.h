/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Views draw a const model into a grid and report what they drew. The
 * layout at 80x24 (smaller is the compact layout, view.c's view_compact:
 * the selected request alone, its countdown and the pending count; below
 * VIEW_COMPACT_W x VIEW_COMPACT_H "terminal too small"):
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
 *
 * view.c lays the screen out and draws the title and the bottom rows; the
 * panes are files of their own (view-output.c, view-pending.c,
 * view-help.c), and all of them draw with tui/pen.h. Calls run down that
 * way only: no pane calls back into view.c.
 */
#include "tui/fleet.h"
#include "tui/grid.h"
#include "tui/model.h"
#include "tui/view-report.h"

#define VIEW_MIN_W 80
#define VIEW_MIN_H 24
#define VIEW_COMPACT_W 40
#define VIEW_COMPACT_H 10

/* Clears the grid and draws the whole screen for m. */
void	view_draw(const struct model *, struct grid *, struct view_report *);

/* Draws m at w x h and returns the text (tests); *rep may be NULL. */
char	*view_render_text(const struct model *, int w, int h,
	    struct view_report *rep);

/*
 * Every run (tui/fleet.h): the title, the runs pane, the selected run's
 * output (and its events pane while it is focused, filtered or being
 * filtered), the one queue across runs, the selected run's status line,
 * its prompt (view_ask_draw, as view_draw) and the keys; below 80x24 the
 * compact layout (the selected request alone, the count across runs),
 * below VIEW_COMPACT_W x VIEW_COMPACT_H "terminal too small". What the
 * selected run shows over the whole screen (help, the whole request, the
 * diff, the agent pane, its rules) is drawn as view_draw() draws it. reps has a report per run (f->reps): each is reset, then filled
 * with what was drawn of that run.
 */
void	view_fleet_draw(const struct fleet *, struct grid *,
	    struct view_report *reps);
/* The same at w x h as text (tests, the bench). */
char	*view_fleet_render_text(const struct fleet *, int w, int h,
	    struct view_report *reps);
