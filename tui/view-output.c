/* SPDX-License-Identifier: MIT */
#include "tui/view-output.h"

#include <stdio.h>

#include "config/util.h"
#include "tui/pen.h"
#include "tui/vt.h"

/*
 * The i-th line of what the output pane scrolls over: the finished lines,
 * then each stream's unfinished one. *owned is set when the caller must
 * free the result.
 */
static const char *
view_output_line(const struct model *m, size_t i, char **owned)
{
	*owned = NULL;
	if (i < output_count(&m->out))
		return output_at(&m->out, i)->text;
	i -= output_count(&m->out);
	for (int s = 0; s < STREAM_COUNT; s++) {
		char *t = output_partial_text(&m->out, (enum output_stream)s);

		if (t == NULL)
			continue;
		if (i-- == 0)
			return *owned = t;
		free(t);
	}
	return "";
}

/*
 * The gutter: every row of program output starts with a bar ward alone
 * draws (the program's text starts two columns in, so it cannot draw one
 * at column 0), in a colour ward's requests never use. A copy of a
 * request block printed by the program is shown behind the bar, never in
 * ward's own columns.
 */
#define VIEW_OUTPUT_X	2

static void
view_output_gutter(const struct model *m, struct grid *g, int from, int to)
{
	for (int y = from; y < to; y++)
		grid_put(g, y, 0, 1, m->ascii ? "|" : "\xe2\x94\x82",
		    GRID_DIM | GRID_COLOR(GRID_MAGENTA));
}

/* Draws the output pane in rows [top, bottom): header, then the lines
 * that end out.scroll lines above the newest, wrapped, bottom up. */
/*
 * A full-screen program (it switched to the alternate screen) watched
 * without the agent pane (--lines, a --pass-through run's companion
 * console): its output as lines is a wall of cursor moves, so the pane
 * shows its screen instead, as the same emulator draws the agent pane
 * (tui/vt.h), at the program's size, read-only: keys never reach it
 * from here (issue 30, point 6). Scrolling up shows the lines.
 */
static void
view_output_screen(const struct model *m, struct grid *g, int top,
    int bottom)
{
	int rows, cols;
	char title[128];

	vt_size(m->vt, &rows, &cols);
	snprintf(title, sizeof title, "output: the program's screen, %dx%d%s"
	    ", read-only", cols, rows, rows > bottom - top - 1 ||
	    cols > g->w - VIEW_OUTPUT_X ? " (cut to the pane)" : "");
	pen_header(g, top, title, m->focus == PANE_OUTPUT && !m->detail);
	vt_draw(m->vt, g, top + 1, VIEW_OUTPUT_X, bottom - top - 1,
	    g->w - VIEW_OUTPUT_X);
	/* the gutter beside the program's rows only: where its screen ends
	 * shows */
	for (int y = top + 1; y < bottom && y <= top + rows; y++)
		grid_put(g, y, 0, VIEW_OUTPUT_X, m->ascii ? "|" :
		    "\xe2\x94\x82", GRID_DIM);
}

void
view_output_draw(const struct model *m, struct grid *g, int top, int bottom)
{
	size_t total = output_total(&m->out), scroll = m->out.scroll;
	int body = top + 1, y = bottom;
	char title[96];

	if (!m->agent && m->vt != NULL && vt_was_fullscreen(m->vt) &&
	    scroll == 0) {
		view_output_screen(m, g, top, bottom);
		return;
	}

	if (scroll >= total)
		scroll = total > 0 ? total - 1 : 0;
	if (scroll > 0)
		snprintf(title, sizeof title,
		    "output (%zu lines below; End follows)", scroll);
	else
		snprintf(title, sizeof title, "output");
	pen_header(g, top, title, m->focus == PANE_OUTPUT && !m->detail);
	if (total == 0)
		return;
	for (size_t i = total - scroll; i-- > 0 && y > body;) {
		cleanup_free char *owned = NULL;
		const char *text = view_output_line(m, i, &owned);
		struct pen p = { .g = NULL, .y = 0, .top = body, .bottom = y };

		pen_wrap(&p, VIEW_OUTPUT_X, g->w, text, 0);
		p.g = g;
		p.y = y - p.y;
		y = p.y;
		pen_wrap(&p, VIEW_OUTPUT_X, g->w, text, 0);
		view_output_gutter(m, g, y < body ? body : y, p.y);
	}
}
