/* SPDX-License-Identifier: MIT */
#include "tui/view-events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/util.h"
#include "review/scorecard.h"
#include "review/summary.h"
#include "tui/events.h"
#include "tui/pen.h"

#define VIEW_EVENTS_COMPACT	3	/* lines when unfocused */

/* Focused, filtered or being filtered: the pane is being read. */
static bool
view_events_open(const struct model *m)
{
	return m->focus == PANE_EVENTS || m->ev.editing ||
	    m->ev.filter_text != NULL;
}

int
view_events_rows(const struct model *m, int avail)
{
	struct events_line *v = NULL;
	size_t n = events_lines(&m->ev, &v);
	int rows;

	free(v);
	if (m->ev.n == 0 && !view_events_open(m))
		return 0;
	if (view_events_open(m)) {
		/* Half of what there is, at least the compact size. */
		rows = avail / 2;
		if (rows < 1 + VIEW_EVENTS_COMPACT)
			rows = 1 + VIEW_EVENTS_COMPACT;
		return rows;
	}
	return 1 + (int)(n < VIEW_EVENTS_COMPACT ? n : VIEW_EVENTS_COMPACT);
}

static unsigned
view_events_attr(enum verdict v)
{
	switch (v) {
	case VERDICT_ALLOW:
	case VERDICT_STAGE:
		return GRID_COLOR(GRID_GREEN);
	case VERDICT_DENY:
	case VERDICT_KILL:
		return GRID_COLOR(GRID_RED);
	case VERDICT_NONE:
	case VERDICT_ASK:
		break;
	}
	return 0;
}

static void
view_events_header(const struct model *m, struct grid *g, int top,
    size_t shown, size_t n)
{
	cleanup_free char *title = NULL;

	if (m->ev.editing) {
		title = xasprintf("filter /%s_  %zu of %zu  (Enter keeps, "
		    "Esc clears)", m->ev.edit, shown, n);
		pen_header(g, top, title, true);
		return;
	}
	if (m->ev.filter_text != NULL)
		title = xasprintf("events /%s: %zu of %zu", m->ev.filter_text,
		    shown, n);
	else if (m->focus == PANE_EVENTS)
		title = xasprintf("events: %zu  (j k scroll, / filter)",
		    m->ev.n);
	else
		title = xstrdup("recent decisions");
	pen_header(g, top, title, m->focus == PANE_EVENTS);
}

void
view_events_draw(const struct model *m, struct grid *g, int top, int bottom)
{
	struct events_line *v = NULL;
	size_t n = events_lines(&m->ev, &v), shown = 0, end;
	int rows = bottom - top - 1, scroll = m->ev.scroll;

	for (size_t i = 0; i < n; i++)
		shown += v[i].count;
	view_events_header(m, g, top, shown, m->ev.n);
	if (rows <= 0) {
		free(v);
		return;
	}
	if (scroll > (int)n - rows)
		scroll = (int)n - rows;
	if (scroll < 0)
		scroll = 0;
	end = n - (size_t)scroll;
	if (n == 0 && m->ev.filter_text != NULL)
		grid_put(g, top + 1, 2, g->w, "(no event matches)", GRID_DIM);
	for (int r = 0; r < rows && (size_t)r < end; r++) {
		const struct events_line *l = &v[end - (size_t)(r + 1)];
		const struct events_item *it = events_at(&m->ev, l->first);
		cleanup_free char *text = events_line_text(&m->ev, l);
		unsigned attr = l->count > 1 ? GRID_DIM :
		    view_events_attr(it->verdict);
		int y = bottom - 1 - r;

		if (n < (size_t)rows)
			y = top + 1 + (int)(end - (size_t)(r + 1));
		grid_put(g, y, 2, g->w, text, attr);
	}
	free(v);
}

/* The card's lines: the summary's (or a demo's scorecard without its
 * title, which the header says, fitted to w - 2 columns: drawn from
 * column 1, one spare at the right), then what waits (issue 30, point
 * 1), in two lines that fit 80 columns: where, then the two commands. */
static char **
view_summary_lines(const struct model *m, int w)
{
	char **v = m->scorecard == NULL ? summary_lines(&m->summary) :
	    scorecard_fit(m->scorecard + (m->scorecard[0] != NULL &&
	    strcmp(m->scorecard[0], SCORECARD_TITLE) == 0), w - 2);
	size_t n = strv_len(v);
	char *staged = summary_staged_text(&m->summary, m->run.id);
	char *cut;

	if (staged == NULL)
		return v;
	if ((cut = strstr(staged, ": `")) != NULL) {
		*cut = '\0';
		strv_push(&v, &n, xasprintf("%s, not on the host yet:",
		    staged));
		strv_push(&v, &n, xstrdup(cut + 2));
		free(staged);
	} else
		strv_push(&v, &n, staged);
	return v;
}

int
view_summary_rows(const struct model *m, int w)
{
	cleanup_strv char **v = NULL;

	if (!m->have_summary)
		return 0;
	v = view_summary_lines(m, w);
	return 1 + (int)strv_len(v);
}

void
view_summary_draw(const struct model *m, struct grid *g, int top,
    int bottom)
{
	cleanup_strv char **v = NULL;
	int n, rows = bottom - top - 1;

	if (!m->have_summary || top >= bottom)
		return;
	pen_header(g, top, m->scorecard != NULL ? "scorecard: what the "
	    "program tried, and what came of it" : "run summary", false);
	v = view_summary_lines(m, g->w);
	n = (int)strv_len(v);
	if (n > rows && rows > 0) {
		/* The steps come first; the counts are what gives way. */
		cleanup_free char *more = xasprintf("... %d more line%s: %s",
		    n - rows + 1, n - rows + 1 == 1 ? "" : "s",
		    m->scorecard != NULL ? "printed whole when ward demo ends" :
		    "a taller terminal shows them");

		rows--;
		grid_put(g, top + 1 + rows, 2, g->w, more, GRID_DIM);
	}
	for (int i = 0; i < n && i < rows; i++) {
		if (m->scorecard != NULL)
			grid_put(g, top + 1 + i, 1, g->w, v[i], 0);
		else
			grid_put(g, top + 1 + i, 2, g->w, v[i],
			    i == 0 ? GRID_BOLD : 0);
	}
}
