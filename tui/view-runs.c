/* SPDX-License-Identifier: MIT */
#include "tui/view-runs.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config/util.h"
#include "tui/pen.h"
#include "tui/view-pending.h"

#define RUNS_MIN	3	/* runs shown at least, when there are */
#define Q_LABEL_X	4

static const char *
view_runs_label(const struct model *m)
{
	if (*m->run.name != '\0')
		return m->run.name;
	return *m->run.id != '\0' ? m->run.id : "?";
}

int
view_runs_rows(const struct fleet *f, int h)
{
	int most = h / 5 > RUNS_MIN ? h / 5 : RUNS_MIN;
	int n = f->n_runs > (size_t)most ? most : (int)f->n_runs;

	return 1 + (n > 0 ? n : 1);
}

static void
view_runs_age(int64_t ms, char *buf, size_t len)
{
	int64_t s = ms / 1000;

	if (s >= 3600)
		snprintf(buf, len, "%" PRId64 ":%02" PRId64 ":%02" PRId64,
		    s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%" PRId64 ":%02" PRId64, s / 60, s % 60);
}

/* Run i's row, listed at place pos (1-9 name the first nine places). */
static void
view_runs_row(const struct fleet *f, size_t i, size_t pos, struct grid *g,
    int y)
{
	const struct fleet_run *r = &f->runs[i];
	const struct model *m = r->m;
	bool sel = i == f->sel, ended = fleet_run_ended(f, i);
	size_t n = fleet_run_pending(f, i);
	unsigned attr = ended ? GRID_DIM : 0;
	char state[64], pend[32], wait[32], num[8], watch[32];
	cleanup_free char *left = NULL, *lim = NULL;
	int x;

	model_state_text(m, state, sizeof state);
	if (r->host_gone)
		snprintf(state, sizeof state, "host gone");
	else if (r->gone && !model_run_ended(m))
		snprintf(state, sizeof state, "gone");
	else if (m->disconnected && !model_run_ended(m))
		snprintf(state, sizeof state, "reconnecting");
	if (n > 0)
		snprintf(pend, sizeof pend, "%zu pending", n);
	else
		snprintf(pend, sizeof pend, ended ? "-" : "none");
	wait[0] = '\0';
	if (n > 0) {
		char age[24];

		view_runs_age(fleet_oldest_wait(f, i), age, sizeof age);
		snprintf(wait, sizeof wait, "waits %s", age);
	}
	/* This console watches every run it shows; the others are the
	 * supervisor's count when we attached. */
	if (ended)
		snprintf(watch, sizeof watch, "x dismiss");
	else
		snprintf(watch, sizeof watch, "watched %u",
		    m->run.watchers + 1);
	if (pos < 9)
		snprintf(num, sizeof num, "%zu", pos + 1);
	else
		snprintf(num, sizeof num, " ");
	if (fleet_any_host(f)) {
		/* Every run of another host names it; this machine's
		 * "local". */
		cleanup_free char *name = xasprintf("%s:%s", r->host != NULL ?
		    r->host : "local", fleet_run_name(f, i));

		left = xasprintf("%s%-2s %-22.22s %-8.8s  %-11.11s %-10s "
		    "%-11s %-10s ", sel ? "> " : "  ", num, name,
		    *m->run.id != '\0' ? m->run.id : r->key, state, pend,
		    wait, watch);
	} else {
		left = xasprintf("%s%-2s %-12.12s %-8.8s  %-11.11s %-10s "
		    "%-11s %-10s ", sel ? "> " : "  ", num,
		    fleet_run_name(f, i), *m->run.id != '\0' ? m->run.id :
		    r->key, state, pend, wait, watch);
	}
	if (sel)
		grid_fill(g, y, 0, g->w, attr | GRID_REVERSE);
	x = grid_put(g, y, 0, g->w, left, attr | (sel ? GRID_REVERSE : 0) |
	    (n > 0 && !ended ? GRID_BOLD : 0));
	if (ended)
		return;
	/* The limits, each only if it fits whole. */
	lim = xstrdup(m->run.limits);
	for (char *save = NULL, *tok = strtok_r(lim, " ", &save);
	    tok != NULL; tok = strtok_r(NULL, " ", &save)) {
		if (x + grid_width(tok) + 1 > g->w)
			break;
		x = grid_put(g, y, x, g->w, tok, attr |
		    (sel ? GRID_REVERSE : 0));
		x = grid_put(g, y, x, g->w, " ", attr |
		    (sel ? GRID_REVERSE : 0));
	}
}

void
view_runs_draw(const struct fleet *f, struct grid *g, int top, int bottom)
{
	int rows = bottom - top - 1;
	size_t first = 0, ended = fleet_n_ended(f), gone = fleet_n_host_gone(f);
	size_t pos = f->n_runs > 0 ? fleet_run_pos(f, f->sel) : 0;
	size_t running = f->n_runs - ended - gone;
	cleanup_free char *down = NULL;
	char title[256], count[96];

	if (rows > 0 && pos >= (size_t)rows)
		first = pos - (size_t)rows + 1;
	/* Runs whose host is gone are neither running nor ended: they may
	 * come back. */
	snprintf(count, sizeof count, "%zu running, %zu ended", running,
	    ended);
	if (gone > 0) {
		size_t n = strlen(count);

		snprintf(count + n, sizeof count - n, ", %zu host gone", gone);
	}
	if (f->n_runs == 0)
		snprintf(title, sizeof title, "runs: none live; new ones "
		    "show here");
	else if (f->confirm_clear > 0)
		snprintf(title, sizeof title, "runs: dismiss %zu ended run%s? "
		    "y/n", f->confirm_clear, f->confirm_clear == 1 ? "" : "s");
	else if (f->n_runs > (size_t)rows)
		snprintf(title, sizeof title, "runs: %s; %zu-%zu of %zu "
		    "shown; [ ] switch", count, first + 1,
		    first + (size_t)rows, f->n_runs);
	else
		snprintf(title, sizeof title, "runs: %s; [ ] or 1-9 switch",
		    count);
	if ((down = fleet_hosts_down(f)) != NULL) {
		size_t n = strlen(title);

		snprintf(title + n, sizeof title - n, "; host gone: %s "
		    "(trying again)", down);
	}
	pen_header(g, top, title, f->confirm_clear > 0);
	for (int k = 0; k < rows && first + (size_t)k < f->n_runs; k++)
		view_runs_row(f, fleet_run_at(f, first + (size_t)k),
		    first + (size_t)k, g, top + 1 + k);
}

/* ---- the queue ---- */

#define RUNS_NAMED	6	/* runs a line names before "and N more" */

/* The runs of line l, "web, db, ... and 3 more (8 runs)"; malloc'd. */
static char *
view_runs_names(const struct fleet *f, const struct fleet_line *l)
{
	bool *seen = xcalloc(f->n_runs + 1, sizeof *seen);
	char *s = NULL;
	size_t named = 0;

	for (size_t k = 0; k < l->g.n; k++) {
		size_t run = f->queue[l->g.idx[k]].run;
		char *t;

		if (seen[run])
			continue;
		seen[run] = true;
		if (named++ >= RUNS_NAMED)
			continue;
		t = xasprintf("%s%s%s", s != NULL ? s : "", s != NULL ? ", " :
		    "", view_runs_label(f->runs[run].m));
		free(s);
		s = t;
	}
	if (named > RUNS_NAMED) {
		char *t = xasprintf("%s and %zu more (%zu runs)", s,
		    named - RUNS_NAMED, named);

		free(s);
		s = t;
	}
	free(seen);
	return s;
}

/* Draws (or, with pen->g NULL, measures) line at of the queue, with
 * view-pending.c's drawing: the run's name before it. */
static void
view_runs_block(const struct fleet *f, size_t at, struct pen *pen, int w,
    bool selected, bool *whole)
{
	const struct fleet_line *l = &f->lines[at];
	const struct fleet_row *row = &f->queue[l->g.idx[0]];
	const struct fleet_run *fr = &f->runs[row->run];
	cleanup_free char *label = xasprintf("[%s%s%s] ",
	    fr->host != NULL ? fr->host : "", fr->host != NULL ? ":" : "",
	    view_runs_label(fr->m));
	cleanup_free char *name = xasprintf("%s%s%s",
	    fr->host != NULL ? fr->host : "", fr->host != NULL ? ":" : "",
	    view_runs_label(fr->m));
	cleanup_free char *runs = l->n_runs > 1 ? view_runs_names(f, l) : NULL;
	struct view_line vl = { .m = fr->m, .p = row->p, .n = l->g.n,
	    .n_runs = l->n_runs, .rank = l->g.rank, .glob = l->g.glob,
	    .label = label, .run_name = name, .runs = runs, .same = l->same,
	    .sent = row->p->sent };

	for (size_t k = 1; k < l->g.n; k++)
		if (f->queue[l->g.idx[k]].p->sent != vl.sent)
			vl.sent = VERDICT_NONE;

	view_pending_line_draw(&vl, pen, w, selected, whole);
}

static int
view_runs_block_rows(const struct fleet *f, size_t at, int w)
{
	struct pen pen = { 0 };
	bool whole;

	view_runs_block(f, at, &pen, w, false, &whole);
	return pen.y;
}

int
view_runs_queue_rows(const struct fleet *f, int w, int max)
{
	int rows = 1;

	for (size_t i = 0; i < f->n_lines && rows < max; i++)
		rows += view_runs_block_rows(f, i, w);
	return rows < max ? rows : max;
}

/* Every request of line l is reported drawn, whole or not: the line
 * stands for all of them, and its oldest for the line (the arming of a
 * group answer, as in one run's console). */
static void
view_runs_seen(const struct fleet *f, const struct fleet_line *l,
    struct view_report *reps, bool whole)
{
	for (size_t k = 0; k < l->g.n; k++) {
		const struct fleet_row *row = &f->queue[l->g.idx[k]];

		view_report_seen(&reps[row->run], row->p->id, whole);
	}
}

void
view_runs_queue_draw(const struct fleet *f, struct grid *g, int top,
    int bottom, struct view_report *reps)
{
	int body = top + 1, rows = bottom - body, sum;
	ssize_t sel = fleet_line_sel(f);
	const struct model *m = fleet_model(f);
	size_t first, below = 0, i;
	struct pen pen = { .g = g, .y = body, .top = body, .bottom = bottom };
	bool focused = m != NULL && m->focus == PANE_PENDING;
	bool cut_selected = false, ranked;
	char title[160];

	if (f->n_lines == 0) {
		pen_header(g, top, "pending: none in any run", focused);
		return;
	}
	/* Back from the selected line while the blocks fit: measuring
	 * stays within a screen, however long the queue. */
	first = sel < 0 ? 0 : (size_t)sel;
	sum = view_runs_block_rows(f, first, g->w);
	while (first > 0) {
		int r = view_runs_block_rows(f, first - 1, g->w);

		if (sum + r > rows)
			break;
		sum += r;
		first--;
	}
	for (i = first; i < f->n_lines && pen.y < bottom; i++) {
		bool whole;

		view_runs_block(f, i, &pen, g->w, (ssize_t)i == sel, &whole);
		view_runs_seen(f, &f->lines[i], reps, whole &&
		    pen.y <= bottom);
		if (pen.y > bottom) {
			below++;
			cut_selected = (ssize_t)i == sel;
		}
	}
	below += f->n_lines - i;
	if (cut_selected) {
		grid_fill(g, bottom - 1, 0, g->w, 0);
		grid_put(g, bottom - 1, Q_LABEL_X, g->w,
		    "... more: Enter shows the whole request",
		    GRID_BOLD | GRID_COLOR(GRID_YELLOW));
	}
	/* Rows answered or closed (struct pending's fate) are drawn a
	 * moment, not counted. */
	ranked = f->lines[0].g.rank != f->lines[f->n_lines - 1].g.rank;
	if (f->n_lines < f->n_queue)
		snprintf(title, sizeof title, "pending: %zu in all runs, in "
		    "%zu line%s, sensitive first", f->n_pending, f->n_lines,
		    f->n_lines == 1 ? "" : "s");
	else
		snprintf(title, sizeof title, "pending: %zu in all runs, %s "
		    "first", f->n_pending, ranked ? "sensitive" : "oldest");
	if (first > 0 || below > 0) {
		size_t n = strlen(title);

		if (first > 0 && below > 0)
			snprintf(title + n, sizeof title - n, " (%zu above, "
			    "%zu below)", first, below);
		else if (first > 0)
			snprintf(title + n, sizeof title - n, " (%zu above)",
			    first);
		else
			snprintf(title + n, sizeof title - n, " (%zu below)",
			    below);
	}
	pen_header(g, top, title, focused);
}

char *
view_runs_title(const struct fleet *f)
{
	const struct model *m = fleet_model(f);
	char state[64];
	size_t pos;

	if (m == NULL)
		return xasprintf(" ward  every run: none live");
	model_state_text(m, state, sizeof state);
	pos = fleet_run_pos(f, f->sel);
	if (f->runs[f->sel].host != NULL)
		return xasprintf(" ward  %zu runs  run %zu on %s: %s  %s",
		    f->n_runs, pos + 1, f->runs[f->sel].host,
		    *m->run.id ? m->run.id : f->runs[f->sel].key,
		    f->runs[f->sel].host_gone ? "host gone" : state);
	if (*m->run.name != '\0')
		return xasprintf(" ward  %zu runs  run %zu: %s (%s)  %s",
		    f->n_runs, pos + 1, m->run.id, m->run.name, state);
	return xasprintf(" ward  %zu runs  run %zu: %s  %s", f->n_runs,
	    pos + 1, *m->run.id ? m->run.id : f->runs[f->sel].key, state);
}
