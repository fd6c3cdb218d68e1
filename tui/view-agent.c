/* SPDX-License-Identifier: MIT */
#include "tui/view-agent.h"

#include <string.h>

#include "config/escape.h"
#include "config/util.h"
#include "tui/view-pending.h"
#include "tui/vt.h"

/* The gutter: ward's mark on every row of the pane (ASCII's on a
 * terminal that is not UTF-8, where U+2502 would not fit its column). */
#define VIEW_AGENT_GUTTER(m)	((m)->ascii ? "|" : "\xe2\x94\x82")

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

/*
 * The program's title as data: escaped (config/escape.h), its quotes
 * escaped too so that it cannot close the quotes ward draws around it,
 * and cut to max columns (at least 4) with an ellipsis, never inside an
 * escape. malloc'd.
 */
static char *
view_agent_title_text(const char *raw, int max, bool ascii)
{
	cleanup_free char *esc = escape_str(raw);
	const char *more = ascii ? "..." : "\xe2\x80\xa6";	/* U+2026 */
	size_t n = 0, fit;
	char *s = xmalloc(strlen(esc) * 2 + 4);
	int used;

	for (const char *p = esc; *p != '\0'; p++) {
		if (*p == '"')
			s[n++] = '\\';
		s[n++] = *p;
	}
	s[n] = '\0';
	if (grid_width(s) <= max)
		return s;
	fit = grid_fit(s, max - grid_width(more), &used);
	/* Never half an escape: a cut one would read as another. */
	for (size_t i = 0; i < fit; i++) {
		size_t end = i + 2;

		if (s[i] != '\\')
			continue;
		if (s[i + 1] == 'x')
			end = i + 4;
		else if (s[i + 1] == 'u' && s[i + 2] == '{')
			end = strchr(s + i, '}') != NULL ?
			    (size_t)(strchr(s + i, '}') - s) + 1 : n;
		else if (s[i + 1] == 'u')
			end = i + 6;
		if (end > fit) {
			fit = i;
			break;
		}
		i = end - 1;
	}
	memcpy(s + fit, more, strlen(more) + 1);
	return s;
}

/*
 * The pane's header, ward's words only: "agent pane, run ID (NAME)" in
 * the header's colours, '=' while the pane has the keys. The title the
 * program set for its terminal (OSC 0/2) is data: after ward's words, in
 * quotes and dim plain text, escaped and cut, labelled as the program's,
 * and only when VIEW_AGENT_TITLE_MIN columns of it fit after ward's
 * words; never set on the person's terminal, never where ward's own
 * text stands.
 */
static void
view_agent_header(const struct model *m, struct grid *g, int y, int x,
    int xend)
{
	bool focused = m->focus == PANE_AGENT;
	unsigned attr = GRID_COLOR(GRID_CYAN) | (focused ? GRID_BOLD : 0);
	const char *label = " program's title: \"", *end = "\" ";
	const char *raw = vt_title(m->vt), *rule = focused ? "=" : "-";
	cleanup_free char *id = escape_str(*m->run.id != '\0' ? m->run.id :
	    "-");
	cleanup_free char *name = escape_str(m->run.name);
	cleanup_free char *words = *name != '\0' ?
	    xasprintf("agent pane, run %s (%s)", id, name) :
	    xasprintf("agent pane, run %s", id);
	int room, at;

	grid_fill(g, y, x, xend, attr);
	at = grid_put(g, y, x, xend, focused ? "== " : "-- ", attr);
	at = grid_put(g, y, at, xend, words, attr | GRID_BOLD);
	at = grid_put(g, y, at, xend, " ", attr);
	/* Room for the title between the label and its closing quote,
	 * with a rule character before the label and two after. */
	room = xend - at - 1 - grid_width(label) - grid_width(end) - 2;
	if (*raw != '\0' && room >= VIEW_AGENT_TITLE_MIN) {
		cleanup_free char *t = view_agent_title_text(raw,
		    room < VIEW_AGENT_TITLE_MAX ? room : VIEW_AGENT_TITLE_MAX,
		    m->ascii);

		at = grid_put(g, y, at, xend, rule, attr);
		at = grid_put(g, y, at, xend, label, attr);
		at = grid_put(g, y, at, xend, t, GRID_DIM);
		at = grid_put(g, y, at, xend, end, attr);
	}
	while (at < xend)
		at = grid_put(g, y, at, xend, rule, attr);
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
		grid_put(g, y, 0, 1, VIEW_AGENT_GUTTER(m), GRID_DIM);
		if (l.side)
			grid_put(g, y, l.strip_x - 1, l.strip_x,
			    VIEW_AGENT_GUTTER(m), GRID_DIM);
	}
	if (l.side)
		grid_put(g, l.pane_y - 1, l.strip_x - 1, l.strip_x,
		    VIEW_AGENT_GUTTER(m), GRID_DIM);
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
