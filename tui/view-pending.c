/* SPDX-License-Identifier: MIT */
#include "tui/view-pending.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "approvals/kind.h"
#include "config/util.h"
#include "review/plain.h"
#include "tui/group.h"
#include "tui/pen.h"

#define PEND_LABEL_X	4
#define PEND_VALUE_X	13
#define DETAIL_LABEL_X	2
#define DETAIL_VALUE_X	13

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
    int w, bool whole)
{
	cleanup_free char *call = *p->detail != '\0' ?
	    xasprintf("%s %s", p->syscall, p->detail) : xstrdup(p->syscall);
	/* Claude Code's Bash tool wraps every command in 4-5 lines of its
	 * own; the command first, the wrapper only where all is shown. */
	const char *inner = p->command;
	char pid[32];

	view_pending_field(pen, lx, vx, w, kind_info(p->kind)->label,
	    p->subject, GRID_BOLD);
	if (p->subject2 != NULL)
		view_pending_field(pen, lx, vx, w, "to", p->subject2,
		    GRID_BOLD);
	view_pending_field(pen, lx, vx, w, "process", inner != NULL ? inner :
	    p->cmdline, 0);
	if (inner != NULL && whole)
		view_pending_field(pen, lx, vx, w, "in", p->cmdline, GRID_DIM);
	snprintf(pid, sizeof pid, "%d", (int)p->pid);
	view_pending_field(pen, lx, vx, w, "pid", pid, 0);
	view_pending_field(pen, lx, vx, w, "cwd", p->cwd, 0);
	if (*call != '\0')
		view_pending_field(pen, lx, vx, w, "call", call, 0);
	if (*p->why != '\0')
		view_pending_field(pen, lx, vx, w, "why", p->why, 0);
}

/* A request's head as text: left, and the countdown or what was sent
 * (right, len bytes). */
static char *
view_pending_head_text(const struct model *m, const struct pending *p,
    const char *label, bool selected, char *right, size_t len)
{
	struct request r = { .kind = p->kind, .syscall = p->syscall,
	    .subject = p->subject, .subject2 = p->subject2 };
	/* In plain words (review/plain.h), for anyone watching; the
	 * engineering in the fields below. The fields are escaped already. */
	cleanup_free char *what = plain_request_brief(&r);

	(void)model_row_status(m, p, selected, right, len - 1);
	strcat(right, " ");
	return xasprintf("%s%s#%" PRIu64 "  %s", selected ? "> " : "  ",
	    label != NULL ? label : "", p->id, what);
}

/* The head's right end: yellow (the countdown) unless selected; green
 * while `a` would work on it now or its allow waits (armed, allowing). */
static unsigned
view_pending_right_attr(const struct model *m, const struct pending *p,
    bool selected)
{
	if (model_holding(m, p->id) ||
	    (selected && p->sent == VERDICT_NONE && model_armed(m, p->id)))
		return GRID_COLOR(GRID_GREEN);
	return selected ? 0 : GRID_COLOR(GRID_YELLOW);
}

void
view_pending_head(const struct model *m, const struct pending *p,
    const char *label, struct grid *g, int y, bool selected)
{
	char right[64];
	/* A closed row (an answer confirmed, not delivered, its asker
	 * gone) is greyed out. */
	bool closed = model_row_status(m, p, selected, right, sizeof right);
	unsigned attr = (closed ? GRID_DIM : GRID_BOLD) |
	    (selected ? GRID_REVERSE : 0);
	cleanup_free char *left = view_pending_head_text(m, p, label,
	    selected, right, sizeof right);
	int rx;

	if (selected)
		grid_fill(g, y, 0, g->w, attr);
	rx = g->w - grid_width(right);
	grid_put(g, y, 0, rx - 1, left, attr);
	grid_put(g, y, rx, g->w, right, attr | (closed ? 0 :
	    view_pending_right_attr(m, p, selected)));
}

/* The brief head (issue 30, point 8): the title wraps beside the
 * countdown, never cut. */
static void
view_pending_brief_head(const struct model *m, const struct pending *p,
    struct pen *pen, int w, bool selected)
{
	char right[64];
	bool closed = model_row_status(m, p, selected, right, sizeof right);
	unsigned attr = (closed ? GRID_DIM : GRID_BOLD) |
	    (selected ? GRID_REVERSE : 0);
	cleanup_free char *left = view_pending_head_text(m, p, NULL, selected,
	    right, sizeof right);
	int rx = w - grid_width(right), y0 = pen->y;

	if (pen->g != NULL && selected) {
		struct pen measure = { .y = 0 };

		pen_wrap(&measure, 0, rx - 1, left, attr);
		for (int y = y0; y < y0 + measure.y; y++)
			if (y >= pen->top && y < pen->bottom)
				grid_fill(pen->g, y, 0, w, attr);
	}
	pen_wrap(pen, 0, rx - 1, left, attr);
	if (pen->g != NULL && y0 >= pen->top && y0 < pen->bottom)
		grid_put(pen->g, y0, rx, w, right, attr | (closed ? 0 :
		    view_pending_right_attr(m, p, selected)));
}

/* One row of a brief block: the value shortened in its middle when it
 * is wider than the row. true when it was. */
static bool
view_pending_line(const struct model *m, struct pen *pen, int w,
    const char *label, const char *value, unsigned attr)
{
	const char *dots = m->ascii ? "..." : "\xe2\x80\xa6";
	int avail = w - PEND_VALUE_X, total = grid_width(value), used;
	bool cut = total > avail;

	if (pen->g != NULL && pen->y >= pen->top && pen->y < pen->bottom) {
		grid_put(pen->g, pen->y, PEND_LABEL_X, PEND_VALUE_X - 1, label,
		    GRID_DIM);
		if (!cut) {
			grid_put(pen->g, pen->y, PEND_VALUE_X, w, value, attr);
		} else {
			int dw = grid_width(dots), head = (avail - dw) / 2;
			int tail = avail - dw - head, rem, x;
			size_t hb = grid_fit(value, head, &used);
			const char *t = value + hb;

			x = grid_putn(pen->g, pen->y, PEND_VALUE_X, w, value,
			    hb, attr);
			x = grid_put(pen->g, pen->y, x, w, dots, GRID_DIM);
			/* the end of a path names its file: kept */
			for (rem = total - used; *t != '\0' && rem > tail;
			    rem -= used)
				t += grid_fit(t, 1, &used);
			grid_put(pen->g, pen->y, x, w, t, attr);
		}
	}
	pen->y++;
	return cut;
}

/*
 * A request in at most 4 rows, for the agent pane on a small screen
 * (issue 30, point 8): its title whole, then what makes it sensitive,
 * what it touches and who asks, each on one row, shortened or left out
 * when there is no room. *whole false when anything was: Enter shows it
 * all, and only then can it be answered (the view reports it not seen
 * whole).
 */
static void
view_pending_brief(const struct model *m, const struct group_row *row,
    struct pen *pen, int w, bool selected, bool *whole)
{
	const struct pending *p = m->pending[row->idx[0]];
	const char *why = "";
	int end, y0 = pen->y;
	cleanup_free char *subject = p->subject2 != NULL ?
	    xasprintf("%s -> %s", p->subject, p->subject2) :
	    xstrdup(p->subject);

	view_pending_brief_head(m, p, pen, w, selected);
	end = y0 + VIEW_PENDING_BRIEF_ROWS;
	*whole = true;
	(void)group_sensitivity(p->kind, p->subject, &why);
	if (row->rank > GROUP_NETWORK || (row->rank == GROUP_HOME &&
	    *why != '\0')) {
		if (pen->y < end)
			(void)view_pending_line(m, pen, w, "risk", why,
			    GRID_BOLD | GRID_COLOR(GRID_RED));
		else
			*whole = false;
	}
	if (pen->y < end) {
		if (view_pending_line(m, pen, w, kind_info(p->kind)->label,
		    subject, GRID_BOLD))
			*whole = false;
	} else
		*whole = false;
	if (pen->y < end) {
		if (view_pending_line(m, pen, w, "process", p->command != NULL ?
		    p->command : p->cmdline, 0))
			*whole = false;
	} else
		*whole = false;
}

/* A group's head: its oldest request, how many (in how many runs), and
 * its countdown. */
static void
view_group_head(const struct view_line *l, struct grid *g, int y,
    bool selected)
{
	const struct pending *p = l->p;
	unsigned attr = GRID_BOLD | (selected ? GRID_REVERSE : 0);
	struct request r = { .kind = p->kind, .syscall = p->syscall,
	    .subject = p->subject, .subject2 = p->subject2 };
	cleanup_free char *what = l->n_runs > 1 && l->same ?
	    plain_request_brief(&r) : xasprintf("%s  %s",
	    request_kind_name(p->kind), p->syscall);
	cleanup_free char *left = l->n_runs > 1 ?
	    xasprintf("%s[%s +%zu run%s] #%" PRIu64 " +%zu  %s  (%zu alike)",
	    selected ? "> " : "  ", l->run_name, l->n_runs - 1,
	    l->n_runs == 2 ? "" : "s", p->id, l->n - 1, what, l->n) :
	    xasprintf("%s%s#%" PRIu64 " +%zu  %s  (%zu alike)",
	    selected ? "> " : "  ", l->label != NULL ? l->label : "", p->id,
	    l->n - 1, what, l->n);
	char right[64];
	int rx;

	if (l->sent != VERDICT_NONE)
		snprintf(right, sizeof right, "%s sent ",
		    verdict_name(l->sent));
	else {
		model_countdown(l->m, p, right, sizeof right - 1);
		strcat(right, " ");
	}
	if (selected)
		grid_fill(g, y, 0, g->w, attr);
	rx = g->w - grid_width(right);
	grid_put(g, y, 0, rx - 1, left, attr);
	grid_put(g, y, rx, g->w, right, attr | (selected ? 0 :
	    GRID_COLOR(GRID_YELLOW)));
}

/* The risk line of a row of rank rank whose first request is p. */
static void
view_pending_risk(const struct pending *p, enum group_rank rank,
    struct pen *pen, int w)
{
	const char *why = "";

	(void)group_sensitivity(p->kind, p->subject, &why);
	if (rank > GROUP_NETWORK || (rank == GROUP_HOME && *why != '\0'))
		view_pending_field(pen, PEND_LABEL_X, PEND_VALUE_X, w,
		    "risk", why, GRID_BOLD | GRID_COLOR(GRID_RED));
}

void
view_pending_line_draw(const struct view_line *l, struct pen *pen, int w,
    bool selected, bool *whole)
{
	const struct pending *p = l->p;
	bool drawn = pen->g != NULL && pen->y >= pen->top &&
	    pen->y < pen->bottom;

	*whole = true;
	if (l->n > 1) {
		cleanup_free char *answer = l->n_runs > 1 ?
		    xasprintf("a / d answer all %zu in %zu runs once (asks "
		    "first); Enter opens the first", l->n, l->n_runs) :
		    xstrdup("a / d answer all once (shows the glob first); "
		    "Enter opens the first");

		if (drawn)
			view_group_head(l, pen->g, pen->y, selected);
		pen->y++;
		view_pending_risk(p, l->rank, pen, w);
		/* the very same request n times: what it is, else the glob
		 * they are all in */
		view_pending_field(pen, PEND_LABEL_X, PEND_VALUE_X, w, l->same ?
		    kind_info(p->kind)->label : "all in", l->glob, GRID_BOLD);
		view_pending_field(pen, PEND_LABEL_X, PEND_VALUE_X, w,
		    "process", p->cmdline, 0);
		if (l->n_runs > 1 && l->runs != NULL)
			view_pending_field(pen, PEND_LABEL_X, PEND_VALUE_X, w,
			    "runs", l->runs, 0);
		view_pending_field(pen, PEND_LABEL_X, PEND_VALUE_X, w, "answer",
		    answer, GRID_DIM);
		return;
	}
	if (drawn)
		view_pending_head(l->m, p, l->label, pen->g, pen->y, selected);
	pen->y++;
	view_pending_risk(p, l->rank, pen, w);
	view_pending_fields(p, pen, PEND_LABEL_X, PEND_VALUE_X, w, false);
}

/*
 * Draws (or, with p->g NULL, measures) one row: a request's block, with
 * what makes it sensitive; or a group's, with the glob a group answer
 * amounts to and its oldest request's process.
 */
static void
view_pending_block(const struct model *m, const struct group_row *row,
    struct pen *pen, int w, bool selected, bool brief, bool *whole)
{
	struct view_line l = { .m = m, .p = m->pending[row->idx[0]],
	    .n = row->n, .rank = row->rank, .glob = row->glob,
	    .sent = m->pending[row->idx[0]]->sent };

	for (size_t k = 1; k < row->n; k++)
		if (m->pending[row->idx[k]]->sent != l.sent)
			l.sent = VERDICT_NONE;

	if (brief && row->n == 1) {
		view_pending_brief(m, row, pen, w, selected, whole);
		return;
	}
	view_pending_line_draw(&l, pen, w, selected, whole);
}

static int
view_pending_block_rows(const struct model *m, const struct group_row *row,
    int w, bool brief)
{
	struct pen pen = { 0 };
	bool whole;

	view_pending_block(m, row, &pen, w, false, brief, &whole);
	return pen.y;
}

static int
view_pending_rows_mode(const struct model *m, int w, bool brief)
{
	struct group_row *rows;
	size_t n = model_pending_rows(m, &rows);
	int sum = 1;

	for (size_t i = 0; i < n; i++)
		sum += view_pending_block_rows(m, &rows[i], w, brief);
	group_rows_free(rows, n);
	return sum;
}

int
view_pending_rows(const struct model *m, int w)
{
	return view_pending_rows_mode(m, w, false);
}

int
view_pending_rows_brief(const struct model *m, int w)
{
	return view_pending_rows_mode(m, w, true);
}

static void
view_pending_title(const struct model *m, size_t n_rows, bool ranked,
    size_t first, size_t below, char *title, size_t len)
{
	int k;

	/* Closed rows (struct pending's fate) are drawn, not counted. */
	size_t open = model_open_count(m);

	if (n_rows < m->n_pending)
		k = snprintf(title, len, "pending: %zu in %zu line%s, "
		    "sensitive first", open, n_rows,
		    n_rows == 1 ? "" : "s");
	else if (ranked)
		k = snprintf(title, len, "pending: %zu, sensitive first",
		    open);
	else
		k = snprintf(title, len, "pending: %zu, oldest first",
		    open);
	if (k < 0 || (size_t)k >= len)
		return;
	if (first > 0 && below > 0)
		snprintf(title + k, len - (size_t)k, " (%zu above, %zu below)",
		    first, below);
	else if (first > 0)
		snprintf(title + k, len - (size_t)k, " (%zu above)", first);
	else if (below > 0)
		snprintf(title + k, len - (size_t)k, " (%zu below)", below);
}

/*
 * Draws the pending pane in rows [top, bottom): a header, then the rows
 * (tui/group.h: sensitive first, similar requests as one) from the first
 * one that lets the selected row show whole. A row taller than the pane
 * is drawn from its top with a last row that says Enter shows all; it
 * does not count as shown whole. A group counts as its oldest request.
 */
static void
view_pending_draw_mode(const struct model *m, struct grid *g, int top,
    int bottom, struct view_report *rep, bool brief)
{
	int body = top + 1, rows = bottom - body, sum = 0;
	ssize_t sel_i = model_pending_index(m, m->sel);
	struct group_row *v;
	size_t n = model_pending_rows(m, &v), first = 0, below = 0, sel;
	struct pen pen = { .g = g, .y = body, .top = body, .bottom = bottom };
	char title[160];
	bool focused = m->focus == PANE_PENDING;
	bool cut_selected = false;
	long r;

	if (m->n_pending == 0) {
		pen_header(g, top, "pending: none", focused);
		group_rows_free(v, n);
		return;
	}
	r = sel_i >= 0 ? group_row_of(v, n, (size_t)sel_i) : -1;
	sel = r >= 0 ? (size_t)r : 0;
	for (size_t i = 0; i <= sel; i++)
		sum += view_pending_block_rows(m, &v[i], g->w, brief);
	while (first < sel && sum > rows)
		sum -= view_pending_block_rows(m, &v[first++], g->w, brief);

	for (size_t i = first; i < n; i++) {
		const struct pending *p = m->pending[v[i].idx[0]];
		bool whole;

		if (pen.y >= bottom) {
			below++;
			continue;
		}
		view_pending_block(m, &v[i], &pen, g->w, i == sel, brief,
		    &whole);
		if (pen.y <= bottom) {
			view_report_seen(rep, p->id, whole);
		} else {
			view_report_seen(rep, p->id, false);
			below++;
			if (i == sel)
				cut_selected = true;
		}
	}
	if (cut_selected) {
		grid_fill(g, bottom - 1, 0, g->w, 0);
		grid_put(g, bottom - 1, PEND_LABEL_X, g->w,
		    "... more: Enter shows the whole request",
		    GRID_BOLD | GRID_COLOR(GRID_YELLOW));
	}
	view_pending_title(m, n, n > 0 && v[0].rank != v[n - 1].rank, first,
	    below, title, sizeof title);
	pen_header(g, top, title, focused);
	group_rows_free(v, n);
}

void
view_pending_draw(const struct model *m, struct grid *g, int top, int bottom,
    struct view_report *rep)
{
	view_pending_draw_mode(m, g, top, bottom, rep, false);
}

void
view_pending_draw_brief(const struct model *m, struct grid *g, int top,
    int bottom, struct view_report *rep)
{
	view_pending_draw_mode(m, g, top, bottom, rep, true);
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
	char status[64];

	/* Measure first: the title says where we are. */
	pen.y = 0;
	view_pending_fields(p, &pen, DETAIL_LABEL_X, DETAIL_VALUE_X, g->w,
	    true);
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
	view_pending_fields(p, &pen, DETAIL_LABEL_X, DETAIL_VALUE_X, g->w,
	    true);
	model_countdown(m, p, value, sizeof value);
	view_pending_field(&pen, DETAIL_LABEL_X, DETAIL_VALUE_X, g->w,
	    "deadline", value, GRID_COLOR(GRID_YELLOW));

	if (p->sent != VERDICT_NONE || p->fate != FATE_OPEN) {
		(void)model_row_status(m, p, true, status, sizeof status);
		armed = status;
	} else if (model_armed(m, p->id) && model_stageable(p))
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
    int bottom, const char *head)
{
	ssize_t sel = model_pending_index(m, m->sel);
	struct pen pen = { .g = g, .y = top + 1, .top = top + 1,
	    .bottom = bottom };
	char title[128];

	if (m->n_pending == 0) {
		pen_header(g, top, head != NULL ? head : "pending: none", true);
		return;
	}
	if (sel < 0)
		sel = 0;
	snprintf(title, sizeof title, "pending: %zu (#%" PRIu64 ", %zd of "
	    "%zu)", m->n_pending, m->pending[sel]->id, sel + 1, m->n_pending);
	pen_header(g, top, head != NULL ? head : title, true);
	{
		size_t one = (size_t)sel;
		const char *why = "";
		struct group_row row = { .idx = &one, .n = 1,
		    .rank = group_sensitivity(m->pending[sel]->kind,
		    m->pending[sel]->subject, &why) };

		bool whole;

		view_pending_block(m, &row, &pen, g->w, true, false, &whole);
	}
	if (pen.y > bottom) {
		grid_fill(g, bottom - 1, 0, g->w, 0);
		grid_put(g, bottom - 1, 2, g->w, "... more: Enter shows it whole",
		    GRID_BOLD | GRID_COLOR(GRID_YELLOW));
	}
}
