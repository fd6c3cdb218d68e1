/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What a frame drew, as the views report it: which requests were on
 * screen and whether whole, and the sizes a page scrolls by. The console
 * hands it to model_note_view() after each frame, which is how arming
 * (DESIGN §9) is measured from what the person could see.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	int		 agent_rows;	/* the agent pane's size (view-agent.c); */
	int		 agent_cols;	/* 0 when the screen is too small */
	int		 agent_y;	/* and its top left cell */
	int		 agent_x;
	int		 diff_confirm;	/* the diff pane's apply/discard list:
					 * 1 drawn whole, -1 in part, 0 not */
	/* The program's cursor on the screen (view-agent.c): shown only
	 * while the agent pane has the focus, the program has not hidden
	 * it and it is inside the pane; then at (cursor_y, cursor_x). */
	bool		 cursor;
	int		 cursor_y, cursor_x;
};

void	view_report_init(struct view_report *);
void	view_report_done(struct view_report *);
/* Forgets the last frame (view_draw does it before drawing). */
void	view_report_reset(struct view_report *);
/* Notes request id as drawn, whole or in part; rep may be NULL. */
void	view_report_seen(struct view_report *, uint64_t id, bool whole);
