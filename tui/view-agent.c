/* SPDX-License-Identifier: MIT */
#include "tui/view-agent.h"

#include <string.h>

#include "config/escape.h"
#include "config/util.h"
#include "tui/pen.h"
#include "tui/view-pending.h"
#include "tui/vt.h"

/* The gutter: ward's mark on every row of the pane. */
#define VIEW_AGENT_GUTTER	"\xe2\x94\x82"	/* U+2502 */

void
view_agent_layout(const struct model *m, int w, int h,
    struct view_agent_layout *l)
{
	int top = 1, bottom = h - 2, avail = bottom - top, strip;

	memset(l, 0, sizeof *l);
	if (w >= VIEW_AGENT_SIDE && m->zoom == ZOOM_NONE) {
		l->side = true;
		l->strip_w = w * 2 / 5;
		l->strip_x = w - l->strip_w;
		l->strip_y = top;
		l->strip_h = avail;
		l->pane_y = top + 1;
		l->pane_x = 1;
		l->pane_h = avail - 1;
		l->pane_w = l->strip_x - 1 - l->pane_x;
		return;
	}
	/* The strip takes what its requests need, each whole; the pane
	 * keeps at least a few rows (and its header). */
	if (m->zoom == ZOOM_AGENT || m->n_pending == 0)
		strip = 1;
	else if (m->zoom == ZOOM_REQUESTS)
		strip = avail - 1 - VIEW_AGENT_MIN_ROWS;
	else if (h < VIEW_AGENT_BRIEF_H)
		strip = view_pending_rows_brief(m, w);
	else
		strip = view_pending_rows(m, w);
	if (strip > avail - 1 - VIEW_AGENT_MIN_ROWS)
		strip = avail - 1 - VIEW_AGENT_MIN_ROWS;
	l->pane_y = top + 1;
	l->pane_x = 1;
	l->pane_h = avail - 1 - strip;
	l->pane_w = w - 1;
	l->strip_y = bottom - strip;
	l->strip_x = 0;
	l->strip_h = strip;
	l->strip_w = w;
}

static void
view_agent_header(const struct model *m, struct grid *g, int y, int x,
    int xend)
{
	struct grid *sub = grid_new(xend - x, 1);
	cleanup_free char *title = NULL;
	const char *raw = vt_title(m->vt);

	/* The program's title is shown, escaped, on ward's header: never
	 * set on the person's terminal. */
	if (*raw != '\0') {
		cleanup_free char *esc = escape_str(raw);

		title = xasprintf("agent: %s", esc);
	} else {
		title = xstrdup("agent");
	}
	pen_header(sub, 0, title, m->focus == PANE_AGENT);
	for (int c = 0; c < sub->w; c++)
		g->cells[y * g->w + x + c] = *grid_cell(sub, 0, c);
	grid_free(sub);
}

/* The strip, drawn into a grid of its own width and copied in, so that
 * view-pending.c lays it out as for a screen that wide. */
static void
view_agent_strip(const struct model *m, struct grid *g,
    const struct view_agent_layout *l, struct view_report *rep)
{
	struct grid *sub;

	if (l->strip_h <= 0 || l->strip_w <= 0)
		return;
	sub = grid_new(l->strip_w, l->strip_h);
	if (!l->side && g->h < VIEW_AGENT_BRIEF_H)
		view_pending_draw_brief(m, sub, 0, l->strip_h, rep);
	else
		view_pending_draw(m, sub, 0, l->strip_h, rep);
	for (int y = 0; y < l->strip_h; y++)
		for (int x = 0; x < l->strip_w; x++)
			g->cells[(l->strip_y + y) * g->w + l->strip_x + x] =
			    *grid_cell(sub, y, x);
	grid_free(sub);
}

void
view_agent_draw(const struct model *m, struct grid *g,
    struct view_report *rep)
{
	struct view_agent_layout l;
	int row, col;

	view_agent_layout(m, g->w, g->h, &l);
	view_agent_header(m, g, l.pane_y - 1, 0, l.side ? l.strip_x - 1 :
	    g->w);
	for (int y = l.pane_y; y < l.pane_y + l.pane_h; y++) {
		grid_put(g, y, 0, 1, VIEW_AGENT_GUTTER, GRID_DIM);
		if (l.side)
			grid_put(g, y, l.strip_x - 1, l.strip_x,
			    VIEW_AGENT_GUTTER, GRID_DIM);
	}
	if (l.side)
		grid_put(g, l.pane_y - 1, l.strip_x - 1, l.strip_x,
		    VIEW_AGENT_GUTTER, GRID_DIM);
	vt_draw(m->vt, g, l.pane_y, l.pane_x, l.pane_h, l.pane_w);
	/* The program's cursor, where it is typing, while it has the keys:
	 * the terminal's own cursor (tui/console.c puts it there). */
	if (m->focus == PANE_AGENT && vt_cursor(m->vt, &row, &col) &&
	    row >= 0 && col >= 0 && row < l.pane_h && col < l.pane_w &&
	    l.pane_y + row < g->h && l.pane_x + col < g->w) {
		rep->cursor = true;
		rep->cursor_y = l.pane_y + row;
		rep->cursor_x = l.pane_x + col;
	}
	view_agent_strip(m, g, &l, rep);
	rep->agent_rows = l.pane_h;
	rep->agent_cols = l.pane_w;
	rep->agent_y = l.pane_y;
	rep->agent_x = l.pane_x;
}
