/* SPDX-License-Identifier: MIT */
#include "tui/view-diff.h"

#include <stdio.h>
#include <string.h>

#include "config/util.h"
#include "tui/pen.h"

/* At most this many rows of the file list; the patch gets the rest. */
#define VIEW_DIFF_FILES	6

static unsigned
view_diff_attr(const char *line)
{
	if (str_has_prefix(line, "+++") || str_has_prefix(line, "---"))
		return GRID_BOLD;
	switch (line[0]) {
	case '+':
		return GRID_COLOR(GRID_GREEN);
	case '-':
		return GRID_COLOR(GRID_RED);
	case '@':
		return GRID_COLOR(GRID_CYAN);
	case ' ':
	case '\\':
	case '\0':
		return 0;
	default:
		return GRID_BOLD;
	}
}

/* The file list, the selected file kept in view. Returns the next row. */
static int
view_diff_files(const struct model *m, struct grid *g, int y, int rows)
{
	size_t first = 0;

	if (m->diff.sel >= (size_t)rows)
		first = m->diff.sel - (size_t)rows + 1;
	for (size_t i = first; i < m->diff.n_files && y < g->h &&
	    i < first + (size_t)rows; i++, y++) {
		bool sel = i == m->diff.sel;

		if (sel)
			grid_fill(g, y, 0, g->w, GRID_REVERSE);
		grid_put(g, y, 0, 2, sel ? ">" : " ", sel ? GRID_REVERSE : 0);
		grid_put(g, y, 2, g->w, m->diff.files[i],
		    sel ? GRID_REVERSE | GRID_BOLD : 0);
	}
	return y;
}

/* The files an apply or discard will touch, all of them or none. */
static void
view_diff_confirm(const struct model *m, struct grid *g, int y, int bottom,
    struct view_report *rep)
{
	bool apply = m->diff.confirm == DIFF_OP_APPLY;
	char title[96];

	snprintf(title, sizeof title, "%s %zu file%s", apply ?
	    "apply to the host:" : "discard, the host's copy stays:",
	    m->diff.n_confirm, m->diff.n_confirm == 1 ? "" : "s");
	pen_header(g, y++, title, true);
	if (bottom - y < 1 || m->diff.n_confirm > (size_t)(bottom - y)) {
		for (size_t i = 0; y < bottom - 1; i++, y++)
			grid_put(g, y, 2, g->w, m->diff.confirm_labels[i],
			    GRID_BOLD);
		if (y < bottom)
			grid_put(g, y, 2, g->w, "... more than fit: y is "
			    "refused until all are shown", GRID_BOLD);
		if (rep != NULL)
			rep->diff_confirm = -1;
		return;
	}
	for (size_t i = 0; i < m->diff.n_confirm; i++, y++)
		grid_put(g, y, 2, g->w, m->diff.confirm_labels[i], GRID_BOLD);
	if (m->diff.confirm_held > 0 && y < bottom) {
		char held[128];

		snprintf(held, sizeof held, "%zu held file%s left out "
		    "(protected, or over max_apply): each goes alone, by p",
		    m->diff.confirm_held, m->diff.confirm_held == 1 ? "" : "s");
		grid_put(g, y++, 2, g->w, held, 0);
	}
	if (y + 1 < bottom)
		grid_put(g, y + 1, 2, g->w, apply ?
		    "y applies them (a conflict is left alone); any other key "
		    "cancels" : "y drops them from the run; any other key "
		    "cancels", 0);
	if (rep != NULL)
		rep->diff_confirm = 1;
}

void
view_diff_draw(const struct model *m, struct grid *g, int top, int bottom,
    struct view_report *rep)
{
	int rows = (int)m->diff.n_files, y;
	char title[96];

	if (rows > VIEW_DIFF_FILES)
		rows = VIEW_DIFF_FILES;
	snprintf(title, sizeof title, "changes (%zu file%s, staged)",
	    m->diff.n_files, m->diff.n_files == 1 ? "" : "s");
	pen_header(g, top, title, true);
	y = top + 1;
	if (m->diff.confirm != DIFF_OP_NONE) {
		view_diff_confirm(m, g, y, bottom, rep);
		return;
	}
	if (m->diff.n_files == 0) {
		grid_put(g, y, 2, g->w, m->diff.note != NULL ? m->diff.note :
		    "reading ...", GRID_DIM);
		return;
	}
	y = view_diff_files(m, g, y, rows);
	if (y >= bottom)
		return;
	snprintf(title, sizeof title, "diff %zu/%zu (line %d of %zu)",
	    m->diff.sel + 1, m->diff.n_files,
	    m->diff.n_lines > 0 ? m->diff.scroll + 1 : 0, m->diff.n_lines);
	pen_header(g, y++, title, false);
	for (size_t i = (size_t)m->diff.scroll; i < m->diff.n_lines &&
	    y < bottom; i++, y++)
		grid_put(g, y, 0, g->w, m->diff.lines[i],
		    view_diff_attr(m->diff.lines[i]));
}
