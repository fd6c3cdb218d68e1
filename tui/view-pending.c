#include "tui/view-pending.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config/util.h"
#include "tui/pen.h"

#define PEND_LABEL_X	4
#define PEND_VALUE_X	13
#define DETAIL_LABEL_X	2
#define DETAIL_VALUE_X	13

/* What the subject is called for each kind of request. */
static const char *
view_pending_label(enum request_kind k)
{
	switch (k) {
	case KIND_WRITE:
		return "path";
	case KIND_CONNECT:
		return "host";
	case KIND_DNS:
		return "name";
	case KIND_PACKAGE:
		return "package";
	case KIND_EXEC:
		return "program";
	case KIND_BLOCKED:
	case KIND_RUN:
		break;
	}
	return "subject";
}

static void
view_pending_field(struct pen *p, int lx, int vx, int w, const char *label,
    const char *value, unsigned attr)
{
	if (p->g != NULL && p->y >= p->top && p->y < p->bottom)
		grid_put(p->g, p->y, lx, vx - 1, label, GRID_DIM);
	pen_wrap(p, vx, w, value, attr);
}

/* The fields of a request, in the order a person reads them: what, by
 * whom, where from, how, why. Never clipped: long values wrap. */
void
view_pending_fields(const struct pending *p, struct pen *pen, int lx, int vx,
    int w)
{
	char pid[32];

	view_pending_field(pen, lx, vx, w, view_pending_label(p->kind),
	    p->subject, GRID_BOLD);
	if (p->subject2 != NULL)
		view_pending_field(pen, lx, vx, w, "to", p->subject2,
		    GRID_BOLD);
	view_pending_field(pen, lx, vx, w, "process", p->cmdline, 0);
	snprintf(pid, sizeof pid, "%d", (int)p->pid);
	view_pending_field(pen, lx, vx, w, "pid", pid, 0);
	view_pending_field(pen, lx, vx, w, "cwd", p->cwd, 0);
	if (*p->detail != '\0')
		view_pending_field(pen, lx, vx, w, "detail", p->detail, 0);
	if (*p->why != '\0')
		view_pending_field(pen, lx, vx, w, "why", p->why, 0);
}

static void
view_pending_head(const struct model *m, const struct pending *p,
    struct grid *g, int y, bool selected)
{
	unsigned attr = GRID_BOLD | (selected ? GRID_REVERSE : 0);
	cleanup_free char *left = xasprintf("%s#%" PRIu64 "  %s  %s",
	    selected ? "> " : "  ", p->id, request_kind_name(p->kind),
	    p->syscall);
	char right[64];
	int rx;

	if (p->sent == VERDICT_ALLOW)
		snprintf(right, sizeof right, "allow sent ");
	else if (p->sent == VERDICT_STAGE)
		snprintf(right, sizeof right, "stage sent ");
	else if (p->sent == VERDICT_DENY)
		snprintf(right, sizeof right, "deny sent ");
	else {
		model_countdown(m, p, right, sizeof right - 1);
		strcat(right, " ");
	}
	if (selected)
		grid_fill(g, y, 0, g->w, attr);
	rx = g->w - grid_width(right);
	grid_put(g, y, 0, rx - 1, left, attr);
	grid_put(g, y, rx, g->w, right, attr | (selected ? 0 :
	    GRID_COLOR(GRID_YELLOW)));
}

/* Draws (or, with p->g NULL, measures) one request's block. */
static void
view_pending_block(const struct model *m, const struct pending *p,
    struct pen *pen, int w, bool selected)
{
	if (pen->g != NULL && pen->y >= pen->top && pen->y < pen->bottom)
		view_pending_head(m, p, pen->g, pen->y, selected);
	pen->y++;
	view_pending_fields(p, pen, PEND_LABEL_X, PEND_VALUE_X, w);
}

static int
view_pending_block_rows(const struct model *m, const struct pending *p, int w)
{
	struct pen pen = { 0 };

	view_pending_block(m, p, &pen, w, false);
	return pen.y;
}

int
view_pending_rows(const struct model *m, int w)
{
	int rows = 1;

	for (size_t i = 0; i < m->n_pending; i++)
		rows += view_pending_block_rows(m, m->pending[i], w);
	return rows;
}

/*
 * Draws the pending pane in rows [top, bottom): a header, then requests
 * oldest first from the first one that lets the selected request show
 * whole. A request taller than the pane is drawn from its top with a last
 * row that says Enter shows all; it does not count as shown whole.
 */
void
view_pending_draw(const struct model *m, struct grid *g, int top, int bottom,
    struct view_report *rep)
{
	int body = top + 1, rows = bottom - body, sum = 0;
	ssize_t sel = model_pending_index(m, m->sel);
	size_t first = 0, below = 0;
	struct pen pen = { .g = g, .y = body, .top = body, .bottom = bottom };
	char title[128];
	bool focused = m->focus == PANE_PENDING;
	bool cut_selected = false;

	if (m->n_pending == 0) {
		pen_header(g, top, "pending: none", focused);
		return;
	}
	if (sel < 0)
		sel = 0;
	for (size_t i = 0; i <= (size_t)sel; i++)
		sum += view_pending_block_rows(m, m->pending[i], g->w);
	while (first < (size_t)sel && sum > rows)
		sum -= view_pending_block_rows(m, m->pending[first++], g->w);

	for (size_t i = first; i < m->n_pending; i++) {
		const struct pending *p = m->pending[i];
		int y0 = pen.y;

		if (y0 >= bottom) {
			below++;
			continue;
		}
		view_pending_block(m, p, &pen, g->w, (ssize_t)i == sel);
		if (pen.y <= bottom) {
			view_report_seen(rep, p->id, true);
		} else {
			view_report_seen(rep, p->id, false);
			below++;
			if ((ssize_t)i == sel)
				cut_selected = true;
		}
	}
	if (cut_selected) {
		grid_fill(g, bottom - 1, 0, g->w, 0);
		grid_put(g, bottom - 1, PEND_LABEL_X, g->w,
		    "... more: Enter shows the whole request",
		    GRID_BOLD | GRID_COLOR(GRID_YELLOW));
	}

	if (first > 0 && below > 0)
		snprintf(title, sizeof title, "pending: %zu, oldest first "
		    "(%zu above, %zu below)", m->n_pending, first, below);
	else if (first > 0)
		snprintf(title, sizeof title, "pending: %zu, oldest first "
		    "(%zu above)", m->n_pending, first);
	else if (below > 0)
		snprintf(title, sizeof title, "pending: %zu, oldest first "
		    "(%zu below)", m->n_pending, below);
	else
		snprintf(title, sizeof title, "pending: %zu, oldest first",
		    m->n_pending);
	pen_header(g, top, title, focused);
}

/*
 * The whole selected request, scrolled by detail_scroll. It counts as
 * shown whole once its last line is on screen: the view always opens at
 * the top, so the person has scrolled through all of it by then.
 */
void
view_pending_detail_draw(const struct model *m, struct grid *g, int top,
    int bottom, struct view_report *rep)
{
	const struct pending *p = model_pending_find(m, m->sel);
	ssize_t idx = model_pending_index(m, m->sel);
	int body = top + 1, rows = bottom - body, lines;
	struct pen pen = { .g = NULL, .y = 0 };
	char title[160], value[64];
	const char *armed;

	/* Measure first: the title says where we are. */
	pen.y = 0;
	view_pending_fields(p, &pen, DETAIL_LABEL_X, DETAIL_VALUE_X, g->w);
	lines = pen.y + 3;	/* kind, syscall, deadline */

	if (lines > rows) {
		int last = m->detail_scroll + rows < lines ?
		    m->detail_scroll + rows : lines;

		snprintf(title, sizeof title, "request #%" PRIu64
		    " (%zd of %zu): lines %d-%d of %d; Enter or Esc closes",
		    p->id, idx + 1, m->n_pending, m->detail_scroll + 1, last,
		    lines);
	} else {
		snprintf(title, sizeof title, "request #%" PRIu64
		    " (%zd of %zu); Enter or Esc closes", p->id, idx + 1,
		    m->n_pending);
	}
	pen_header(g, top, title, true);

	pen = (struct pen){ .g = g, .y = body - m->detail_scroll, .top = body,
	    .bottom = bottom };
	view_pending_field(&pen, DETAIL_LABEL_X, DETAIL_VALUE_X, g->w,
	    "kind", request_kind_name(p->kind), 0);
	view_pending_field(&pen, DETAIL_LABEL_X, DETAIL_VALUE_X, g->w,
	    "syscall", p->syscall, 0);
	view_pending_fields(p, &pen, DETAIL_LABEL_X, DETAIL_VALUE_X, g->w);
	model_countdown(m, p, value, sizeof value);
	view_pending_field(&pen, DETAIL_LABEL_X, DETAIL_VALUE_X, g->w,
	    "deadline", value, GRID_COLOR(GRID_YELLOW));

	if (p->sent == VERDICT_ALLOW)
		armed = "allow sent";
	else if (p->sent == VERDICT_STAGE)
		armed = "stage sent";
	else if (p->sent == VERDICT_DENY)
		armed = "deny sent";
	else if (model_armed(m, p->id) && model_stageable(p))
		armed = "a allows it once, s stages it (host file unchanged "
		    "until ward apply), d denies it";
	else if (model_armed(m, p->id))
		armed = "a allows it once, d denies it";
	else
		armed = NULL;
	if (armed != NULL && pen.y < bottom && pen.y >= body)
		grid_put(g, pen.y, DETAIL_VALUE_X, g->w, armed, GRID_DIM);

	rep->detail_rows = rows;
	rep->detail_lines = lines;
	view_report_seen(rep, p->id, pen.y <= bottom);
}

void
view_pending_compact_draw(const struct model *m, struct grid *g, int top,
    int bottom)
{
	ssize_t sel = model_pending_index(m, m->sel);
	struct pen pen = { .g = g, .y = top + 1, .top = top + 1,
	    .bottom = bottom };
	char title[128];

	if (m->n_pending == 0) {
		pen_header(g, top, "pending: none", true);
		return;
	}
	if (sel < 0)
		sel = 0;
	snprintf(title, sizeof title, "pending: %zu (#%" PRIu64 ", %zd of "
	    "%zu)", m->n_pending, m->pending[sel]->id, sel + 1, m->n_pending);
	pen_header(g, top, title, true);
	view_pending_block(m, m->pending[sel], &pen, g->w, true);
	if (pen.y > bottom) {
		grid_fill(g, bottom - 1, 0, g->w, 0);
		grid_put(g, bottom - 1, 2, g->w, "... more: Enter shows it whole",
		    GRID_BOLD | GRID_COLOR(GRID_YELLOW));
	}
}
