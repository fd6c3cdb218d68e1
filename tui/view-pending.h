/* SPDX-License-Identifier: MIT */
#pragma once
/* The pending pane, and the whole selected request (the detail view). */
#include "tui/grid.h"
#include "tui/group.h"
#include "tui/model.h"
#include "tui/pen.h"
#include "tui/view-report.h"

/* Rows view_pending_draw() would like: header + every request whole. */
int	view_pending_rows(const struct model *, int w);
/*
 * The same with each request brief: at most VIEW_PENDING_BRIEF_ROWS rows,
 * its title whole and the rest shortened (issue 30, point 8: the agent
 * pane on a small screen). A request shortened is reported not seen
 * whole: Enter shows it, and arms it.
 */
#define VIEW_PENDING_BRIEF_ROWS	4
int	view_pending_rows_brief(const struct model *, int w);
void	view_pending_draw_brief(const struct model *, struct grid *, int top,
	    int bottom, struct view_report *);
/* Draws the pending pane in rows [top, bottom) and reports each request
 * drawn, and whether whole. */
void	view_pending_draw(const struct model *, struct grid *, int top,
	    int bottom, struct view_report *);
/* Draws the whole request m->sel, scrolled by m->detail_scroll. */
void	view_pending_detail_draw(const struct model *, struct grid *, int top,
	    int bottom, struct view_report *);
/* A request's fields (what, by whom, where, why), labels at column lx,
 * values from vx to w, wrapped, never clipped; the queue of every run
 * (tui/view-runs.c) draws its requests with it too. */
/* A request's head line at row y: "> #3  wants to ...", label (e.g. the
 * run's "[web] ", or NULL) before the id, what was sent or the countdown
 * at the right; the queue of every run (tui/view-runs.c) draws it too. */
void	view_pending_head(const struct model *, const struct pending *,
	    const char *label, struct grid *, int y, bool selected);
/*
 * One line of a pending list, as the pending pane draws its rows
 * (tui/group.h) and the queue of every run (tui/view-runs.c) its lines:
 * a request alone (its head, its risk, its fields) or a group (its head
 * with how many, in how many runs, its risk, the glob it amounts to, its
 * process, the runs, how to answer it). Draws at pen->y, or with pen->g
 * NULL measures; *whole is true (a line is drawn whole or reported cut by
 * its caller).
 */
struct view_line {
	const struct model *m;		/* the oldest request's run */
	const struct pending *p;	/* the oldest request */
	size_t		 n;		/* requests in the line */
	size_t		 n_runs;	/* runs they are of (0 or 1: one) */
	enum group_rank	 rank;
	const char	*glob;		/* what a group answer amounts to */
	const char	*label;		/* "[web] " before the id, or NULL */
	const char	*run_name;	/* the oldest's run, for n_runs > 1 */
	const char	*runs;		/* "web, db, ..." for n_runs > 1 */
	bool		 same;		/* every request the same subject */
	enum verdict	 sent;		/* what every request of it was sent,
					 * VERDICT_NONE while one is not */
};
void	view_pending_line_draw(const struct view_line *, struct pen *, int w,
	    bool selected, bool *whole);
/* whole: the detail view's (Enter), where an agent's shell wrapper
 * (tui/shellwrap.h) is shown in full under the command it runs; elsewhere
 * the process line is that command alone. */
void	view_pending_fields(const struct pending *, struct pen *, int lx,
	    int vx, int w, bool whole);
/*
 * The compact layout's request (a terminal below 80x24): a header with
 * the pending count (title, when not NULL: the every-run console's, its
 * count across runs and the run it shows), then the selected request
 * alone, wrapped, its head with the countdown. It reports nothing: a request is armed only from a screen that has room
 * for it, here the detail view (Enter).
 */
void	view_pending_compact_draw(const struct model *, struct grid *,
	    int top, int bottom, const char *title);
