/* SPDX-License-Identifier: MIT */
#include "tui/view-report.h"

#include <stdlib.h>
#include <string.h>

#include "config/util.h"

void
view_report_init(struct view_report *rep)
{
	memset(rep, 0, sizeof *rep);
}

void
view_report_done(struct view_report *rep)
{
	free(rep->seen);
	memset(rep, 0, sizeof *rep);
}

void
view_report_reset(struct view_report *rep)
{
	rep->n_seen = 0;
	rep->cursor = false;
	rep->page_rows = 0;
	rep->detail_rows = 0;
	rep->detail_lines = 0;
	rep->agent_rows = 0;
	rep->agent_cols = 0;
	rep->agent_y = 0;
	rep->agent_x = 0;
	rep->diff_confirm = 0;
}

void
view_report_seen(struct view_report *rep, uint64_t id, bool whole)
{
	if (rep == NULL)
		return;
	if (rep->n_seen == rep->cap) {
		rep->cap = rep->cap ? rep->cap * 2 : 8;
		rep->seen = xreallocarray(rep->seen, rep->cap,
		    sizeof *rep->seen);
	}
	rep->seen[rep->n_seen].id = id;
	rep->seen[rep->n_seen].whole = whole;
	rep->n_seen++;
}
