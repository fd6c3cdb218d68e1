/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Every run in one console (tui/fleet.h): the runs pane (a row per run,
 * in fleet_order's order: its number, name, id, state, pending count,
 * oldest wait, consoles watching, limits; an ended run greyed until x (or
 * C) dismisses it; its header counts running, ended and host-gone runs
 * apart, or asks C's question) and the one queue across runs: its lines
 * (tui/fleet.h: sensitive first, alike requests one line, then oldest
 * first), each drawn whole by view-pending.c's view_pending_line_draw,
 * marked with its run or runs. tui/view.c lays them out with the
 * selected run's output.
 */
#include "tui/fleet.h"
#include "tui/grid.h"
#include "tui/view-report.h"

/* Rows the runs pane takes on a screen h rows high: a header and up to a
 * fifth of the screen of runs (at least 3; it scrolls to the selected). */
int	view_runs_rows(const struct fleet *, int h);
void	view_runs_draw(const struct fleet *, struct grid *, int top,
	    int bottom);

/* Rows the queue would like, header included, at most max. */
int	view_runs_queue_rows(const struct fleet *, int w, int max);
/* Draws the queue in rows [top, bottom) from the first line that lets
 * the selected line show whole; each request of a line drawn is reported
 * to its run's report, reps[run], whole or not. */
void	view_runs_queue_draw(const struct fleet *, struct grid *, int top,
	    int bottom, struct view_report *reps);
/* "run 2 of 5: web (a1b2c3d4)" etc. for the title; malloc'd. */
char	*view_runs_title(const struct fleet *);
