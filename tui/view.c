/* SPDX-License-Identifier: MIT */
#include "tui/view.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config/util.h"
#include "tui/keys.h"
#include "tui/pen.h"
#include "tui/view-diff.h"
#include "tui/view-agent.h"
#include "tui/view-events.h"
#include "tui/view-answer.h"
#include "tui/view-help.h"
#include "tui/view-output.h"
#include "tui/view-pending.h"
#include "tui/view-runs.h"

#define VIEW_OUT_MIN	4	/* output header + 3 lines, always */

static void
view_title(const struct model *m, struct grid *g)
{
	unsigned attr = GRID_REVERSE;
	char state[64], right[64];
	cleanup_free char *left = NULL, *mid = NULL;
	int x, rx;

	model_state_text(m, state, sizeof state);
	if (m->disconnected && !model_run_ended(m))
		snprintf(state, sizeof state, "supervisor gone");
	if (*m->run.name != '\0')
		left = xasprintf(" ward  %s (%s)  %s", m->run.id, m->run.name,
		    state);
	else
		left = xasprintf(" ward  %s  %s", *m->run.id ? m->run.id : "-",
		    state);
	if (model_open_count(m) > 0)
		snprintf(right, sizeof right, "  %s%zu pending ",
		    m->view_only ? "view only  " : "", model_open_count(m));
	else
		snprintf(right, sizeof right, "  %snone pending ",
		    m->view_only ? "view only  " : "");

	grid_fill(g, 0, 0, g->w, attr);
	rx = g->w - grid_width(right);
	x = grid_put(g, 0, 0, rx, left, attr | GRID_BOLD);
	/* Then pid and limits, each only if it fits whole. */
	if (m->run.pid > 0) {
		cleanup_free char *pid = xasprintf("  pid %d", (int)m->run.pid);

		if (x + grid_width(pid) <= rx)
			x = grid_put(g, 0, x, rx, pid, attr);
	}
	mid = xstrdup(m->run.limits);
	for (char *save = NULL, *tok = strtok_r(mid, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save)) {
		const char *sep = tok == mid ? "  " : " ";

		if (x + grid_width(sep) + grid_width(tok) > rx)
			break;
		x = grid_put(g, 0, x, rx, sep, attr);
		x = grid_put(g, 0, x, rx, tok, attr);
	}
	grid_put(g, 0, rx, g->w, right,
	    attr | (m->n_pending > 0 ? GRID_BOLD : 0));
}

static void
view_status(const struct model *m, struct grid *g)
{
	int y = g->h - 2;
	unsigned attr = 0;

	if (m->confirm_kill) {
		char q[256];

		model_kill_question(m, q, sizeof q);
		attr = GRID_REVERSE | GRID_BOLD | GRID_COLOR(GRID_RED);
		grid_put(g, y, 0, g->w, " ", attr);
		grid_put(g, y, 1, g->w, q, attr);
		grid_put(g, y, 1 + grid_width(q), g->w, " ", attr);
		return;
	}
	if (m->confirm_quit) {
		char q[256];

		/* Wrapped whole: its y/n is never cut off. */
		model_quit_question(m, q, sizeof q);
		view_prompt_draw(g, q, GRID_REVERSE | GRID_BOLD |
		    GRID_COLOR(GRID_YELLOW));
		return;
	}
	if (m->diff.open && m->diff.confirm != DIFF_OP_NONE &&
	    m->message == NULL) {
		attr = GRID_REVERSE | GRID_BOLD | GRID_COLOR(GRID_YELLOW);
		grid_put(g, y, 0, g->w, m->diff.confirm == DIFF_OP_APPLY ?
		    " apply these files to the host? y/n " :
		    " discard these staged changes? y/n ", attr);
		return;
	}
	if (m->message == NULL)
		return;
	switch (m->message_level) {
	case MSG_INFO:
		break;
	case MSG_WARN:
		attr = GRID_BOLD | GRID_COLOR(GRID_YELLOW);
		break;
	case MSG_ERROR:
		attr = GRID_BOLD | GRID_COLOR(GRID_RED);
		break;
	}
	grid_put(g, y, 1, g->w, m->message, attr);
}

static void
view_keys(const struct model *m, struct grid *g)
{
	int y = g->h - 1;
	char state[64];
	cleanup_free char *text = NULL;
	unsigned attr;

	if (m->readonly) {
		model_state_text(m, state, sizeof state);
		if (m->run.end_reason != NULL &&
		    strcmp(m->run.end_reason, "lost") == 0)
			snprintf(state, sizeof state, "lost");
		text = xasprintf(" ended %s, read-only - Tab pane  / filter  "
		    "c diff  q leave", state);
		attr = GRID_REVERSE | GRID_BOLD;
	} else if (model_run_ended(m)) {
		/* What waits for the person, in the last status too: an
		 * agent pane fills the screen and hides the card. */
		char staged[96] = "";

		if (m->have_summary && m->summary.staged > 0)
			snprintf(staged, sizeof staged, " - %lld file%s staged: "
			    "ward apply %s", (long long)m->summary.staged,
			    m->summary.staged == 1 ? "" : "s", m->run.id);
		model_state_text(m, state, sizeof state);
		if (strcmp(state, "killed") == 0)
			text = xasprintf(" run was killed%s - q to leave",
			    staged);
		else if (strcmp(state, "timeout") == 0)
			text = xasprintf(" run hit its time limit%s - q to "
			    "leave", staged);
		else if (m->run.exit_signal > 0)
			text = xasprintf(" run ended by signal %d%s - q to "
			    "leave", m->run.exit_signal, staged);
		else if (m->run.exit_code < 0)
			/* A container's: its status is its runtime's. */
			text = xasprintf(" run exited%s - q to leave", staged);
		else
			text = xasprintf(" run exited with status %d%s - "
			    "q to leave", m->run.exit_code, staged);
		attr = GRID_REVERSE | GRID_BOLD;
	} else if (m->disconnected) {
		text = xstrdup(" supervisor gone - q to leave");
		attr = GRID_REVERSE | GRID_BOLD | GRID_COLOR(GRID_RED);
	} else if (m->help) {
		text = xstrdup(" any key closes help");
		attr = GRID_DIM;
	} else if (m->view_only) {
		/* No answer key is offered: this console cannot answer. */
		text = xstrdup(" view only: no answers  Enter whole request  "
		    "Tab pane  ? help  q leave");
		attr = GRID_BOLD;
	} else if (m->diff.open) {
		text = xstrdup(" j k scroll  { } file  p P apply  u U drop  "
		    "c or Esc close  ? help");
		attr = GRID_DIM;
	} else if (m->detail) {
		text = xstrdup(" a allow once  d deny  j k PgUp PgDn scroll  "
		    "Enter/Esc close  ? help");
		attr = GRID_DIM;
	} else if (m->agent) {
		char kb[KEYS_NAME_MAX];
		const char *pk = keys_name(m->prefix, kb, sizeof kb);

		if (m->focus == PANE_AGENT) {
			text = xasprintf(" keys go to the agent  %s requests%s",
			    pk, m->n_pending > 0 ? "  - a request waits" : "");
			attr = m->n_pending > 0 ? GRID_BOLD |
			    GRID_COLOR(GRID_YELLOW) : GRID_DIM;
		} else {
			text = xasprintf(" a allow once  d deny  Enter all  "
			    "%s/Esc agent  v lines  z zoom  K kill  ? help", pk);
			attr = GRID_DIM;
		}
	} else {
		text = xstrdup(" a allow once  d deny  Enter whole request  "
		    "Tab pane  K kill  ? help  q leave");
		attr = GRID_DIM;
	}
	if (attr & GRID_REVERSE)
		grid_fill(g, y, 0, g->w, attr);
	grid_put(g, y, 0, g->w, text, attr);
}

static void
view_too_small(const struct model *m, struct grid *g)
{
	cleanup_free char *text = xasprintf("terminal %dx%d is too small: "
	    "ward needs at least %dx%d", g->w, g->h, VIEW_COMPACT_W,
	    VIEW_COMPACT_H);
	struct pen p = { .g = g, .y = 0, .top = 0, .bottom = g->h };

	(void)m;
	pen_wrap_words(&p, 0, g->w, text, GRID_BOLD);
}

/* The compact layouts have no events pane: the filter being typed is
 * drawn on the status row, where the text is seen as it is typed. */
static void
view_compact_filter(const struct model *m, struct grid *g)
{
	cleanup_free char *edit = NULL;
	unsigned attr = GRID_REVERSE | GRID_BOLD;

	if (!m->ev.editing)
		return;
	edit = xasprintf(" filter /%s_  (Enter keeps, Esc clears)",
	    m->ev.edit);
	grid_fill(g, g->h - 2, 0, g->w, attr);
	grid_put(g, g->h - 2, 0, g->w, edit, attr);
}

/*
 * Below 80x24: the title (run, state, pending count), the selected request
 * alone with its countdown, the status line and the keys. `a` is not
 * armed from here (view_pending_compact_draw reports nothing): Enter
 * shows the request whole, and there it arms as on a large screen.
 */
static void
view_compact(const struct model *m, struct grid *g, struct view_report *rep)
{
	unsigned attr = GRID_REVERSE | GRID_BOLD;
	char state[64], right[64];
	cleanup_free char *left = NULL;
	const char *keys;

	model_state_text(m, state, sizeof state);
	if (m->disconnected && !model_run_ended(m))
		snprintf(state, sizeof state, "supervisor gone");
	left = xasprintf(" ward  %s  %s", *m->run.id ? m->run.id : "-", state);
	snprintf(right, sizeof right, " %s%zu pending ",
	    m->view_only ? "view only  " : "", model_open_count(m));
	grid_fill(g, 0, 0, g->w, attr);
	grid_put(g, 0, 0, g->w - grid_width(right), left, attr);
	grid_put(g, 0, g->w - grid_width(right), g->w, right, attr);
	if (m->help)
		view_help_draw(m, g, 1, g->h - 2);
	else if (m->diff.open)
		view_diff_draw(m, g, 1, g->h - 2, rep);
	else if (m->detail && model_pending_find(m, m->sel) != NULL)
		view_pending_detail_draw(m, g, 1, g->h - 2, rep);
	else if (model_run_ended(m) && m->have_summary &&
	    m->scorecard != NULL)
		view_summary_draw(m, g, 1, g->h - 2);	/* a demo's, for a room */
	else
		view_pending_compact_draw(m, g, 1, g->h - 2, NULL);
	view_status(m, g);
	view_compact_filter(m, g);
	view_ask_draw(m, g);
	if (model_run_ended(m) || m->disconnected || m->help)
		keys = NULL;
	else if (m->view_only)
		keys = " view only  Enter whole  q leave";
	else if (m->detail)
		keys = " a allow  d deny  Enter/Esc close";
	else
		keys = " d deny  Enter whole (a there)  j k  q";
	if (keys != NULL)
		grid_put(g, g->h - 1, 0, g->w, keys, GRID_DIM);
	else
		view_keys(m, g);
}

static void
view_main(const struct model *m, struct grid *g, struct view_report *rep)
{
	int top = 1, bottom = g->h - 2, avail = bottom - top;
	int pend, rest, ev = 0, out;
	bool card = model_run_ended(m) && m->have_summary;

	/* Once the run has ended nothing is pending: its summary card
	 * takes the requests' place. */
	pend = card ? view_summary_rows(m, g->w) : view_pending_rows(m, g->w);
	if (pend > avail - VIEW_OUT_MIN)
		pend = avail - VIEW_OUT_MIN;
	rest = avail - pend;
	/* A demo's scorecard tells what the recent decisions would: the
	 * room it needs goes to it. */
	if (card && m->scorecard != NULL)
		ev = 0;
	else
		ev = view_events_rows(m, rest - VIEW_OUT_MIN);
	if (ev > rest - VIEW_OUT_MIN)
		ev = rest - VIEW_OUT_MIN;
	if (ev < 2)
		ev = 0;
	out = rest - ev;

	view_output_draw(m, g, top, top + out);
	rep->page_rows = out - 1;
	if (ev > 0)
		view_events_draw(m, g, top + out, top + out + ev);
	if (card)
		view_summary_draw(m, g, top + out + ev, bottom);
	else
		view_pending_draw(m, g, top + out + ev, bottom, rep);
}

void
view_draw(const struct model *m, struct grid *g, struct view_report *rep)
{
	view_report_reset(rep);
	grid_clear(g);
	if (g->w < VIEW_COMPACT_W || g->h < VIEW_COMPACT_H) {
		view_too_small(m, g);
		return;
	}
	if (g->w < VIEW_MIN_W || g->h < VIEW_MIN_H) {
		view_compact(m, g, rep);
		return;
	}
	view_title(m, g);
	if (m->help)
		view_help_draw(m, g, 1, g->h - 2);
	else if (m->rules.open)
		view_rules_draw(m, g, 1, g->h - 2);
	else if (m->diff.open)
		view_diff_draw(m, g, 1, g->h - 2, rep);
	else if (m->detail && model_pending_find(m, m->sel) != NULL)
		view_pending_detail_draw(m, g, 1, g->h - 2, rep);
	else if (m->agent)
		view_agent_draw(m, g, rep);
	else
		view_main(m, g, rep);
	/* The program's terminal has the agent pane's size in every view,
	 * so that a program starts at the size it will be shown at. */
	if (rep->agent_rows == 0) {
		struct view_agent_layout l;

		view_agent_layout(m, g->w, g->h, &l);
		rep->agent_rows = l.pane_h;
		rep->agent_cols = l.pane_w;
		rep->agent_y = l.pane_y;
		rep->agent_x = l.pane_x;
	}
	view_status(m, g);
	view_ask_draw(m, g);
	view_keys(m, g);
}

/* ---- every run (tui/fleet.h) ---- */

static void
view_fleet_title(const struct fleet *f, struct grid *g)
{
	unsigned attr = GRID_REVERSE;
	cleanup_free char *left = view_runs_title(f);
	char right[64];
	int rx;

	if (f->n_pending > 0)
		snprintf(right, sizeof right, "  %zu pending in all ",
		    f->n_pending);
	else
		snprintf(right, sizeof right, "  none pending ");
	grid_fill(g, 0, 0, g->w, attr);
	rx = g->w - grid_width(right);
	grid_put(g, 0, 0, rx, left, attr | GRID_BOLD);
	grid_put(g, 0, rx, g->w, right,
	    attr | (f->n_pending > 0 ? GRID_BOLD : 0));
}

/*
 * Rows of the selected run's events pane out of avail (the rows below the
 * runs pane): open (Tab, `/`, a filter kept) it takes its share and leaves
 * the output its minimum and the queue its header and a row; shut, its
 * few recent decisions only on a screen tall enough that the output keeps
 * VIEW_FLEET_ROOM rows.
 */
#define VIEW_FLEET_ROOM	20

static int
view_fleet_events_rows(const struct model *m, int avail)
{
	int ev;

	if (m == NULL)
		return 0;
	if (m->focus == PANE_EVENTS || m->ev.editing ||
	    m->ev.filter_text != NULL) {
		ev = view_events_rows(m, avail - VIEW_OUT_MIN);
		if (ev > avail - VIEW_OUT_MIN - 2)
			ev = avail - VIEW_OUT_MIN - 2;
		return ev < 2 ? 0 : ev;
	}
	ev = view_events_rows(m, avail);
	return avail - ev >= VIEW_FLEET_ROOM ? ev : 0;
}

static void
view_fleet_keys(const struct fleet *f, struct grid *g)
{
	const struct model *m = fleet_model(f);
	const char *text = " a allow  d deny  Enter whole  [ ] 1-9 run  "
	    "/ filter  Tab  K kill  ? help  q";

	if (m != NULL && f->runs[f->sel].host_gone)
		text = " its host is gone - trying again; x dismisses it  "
		    "[ ] 1-9 run  ? help  q leave";
	else if (m != NULL && fleet_run_ended(f, f->sel))
		text = " this run has ended - x dismisses it, C every ended "
		    "run  [ ] 1-9 run  ? help  q";
	grid_put(g, g->h - 1, 0, g->w, text, GRID_DIM);
}

/*
 * Below 80x24 (issue 31): the fleet's title, the selected run's selected
 * request alone under a header that counts every run's, its status line
 * and prompt, the keys. As view_compact: nothing is reported, so `a` is
 * armed from the whole request (Enter) only.
 */
static void
view_fleet_compact(const struct fleet *f, struct grid *g)
{
	const struct model *m = fleet_model(f);
	ssize_t at = fleet_queue_sel(f);
	char head[192], state[64], right[48];
	cleanup_free char *left = NULL;
	unsigned attr = GRID_REVERSE | GRID_BOLD;

	/* The title, short: the run by its name, the count of them all. */
	if (m != NULL) {
		model_state_text(m, state, sizeof state);
		left = xasprintf(" ward  run %zu/%zu: %s  %s",
		    fleet_run_pos(f, f->sel) + 1, f->n_runs,
		    model_run_label(m), state);
	} else {
		left = xstrdup(" ward  every run: none live");
	}
	snprintf(right, sizeof right, " %zu pending in all ", f->n_pending);
	grid_fill(g, 0, 0, g->w, attr);
	grid_put(g, 0, 0, g->w - grid_width(right), left, attr);
	grid_put(g, 0, g->w - grid_width(right), g->w, right, attr);
	if (m == NULL) {
		pen_header(g, 1, "runs: none live; new ones show here", false);
		grid_put(g, g->h - 1, 0, g->w, " q leave", GRID_DIM);
		return;
	}
	if (at >= 0 && f->line_of != NULL && f->n_lines > 0) {
		/* The line the keys act on: a group answers all it holds. */
		size_t l = f->line_of[at], n = f->lines[l].g.n;
		char more[48] = "";

		if (n > 1)
			snprintf(more, sizeof more, " and %zu alike%s", n - 1,
			    f->lines[l].n_runs > 1 ? " in other runs" : "");
		snprintf(head, sizeof head, "pending: %zu in all, line %zu of "
		    "%zu: [%s] #%" PRIu64 "%s", f->n_pending, l + 1,
		    f->n_lines, model_run_label(m), m->sel, more);
	} else
		snprintf(head, sizeof head, "pending: none in %s, %zu in all",
		    model_run_label(m), f->n_pending);
	view_pending_compact_draw(m, g, 1, g->h - 2, head);
	view_status(m, g);
	view_compact_filter(m, g);
	view_ask_draw(m, g);
	if (fleet_run_ended(f, f->sel) || m->view_only)
		view_fleet_keys(f, g);
	else
		grid_put(g, g->h - 1, 0, g->w, " d deny  Enter (a there)  j k  "
		    "[ ]  q", GRID_DIM);
}

void
view_fleet_draw(const struct fleet *f, struct grid *g,
    struct view_report *reps)
{
	const struct model *m = fleet_model(f);
	int top = 1, bottom = g->h - 2, runs, out, queue, ev = 0;

	for (size_t i = 0; i < f->n_runs; i++)
		view_report_reset(&reps[i]);
	/* What the selected run shows over the screen is its own. */
	if (m != NULL && fleet_overlay(f)) {
		view_draw(m, g, &reps[f->sel]);
		return;
	}
	grid_clear(g);
	if (g->w < VIEW_COMPACT_W || g->h < VIEW_COMPACT_H) {
		view_too_small(m, g);
		return;
	}
	if (g->w < VIEW_MIN_W || g->h < VIEW_MIN_H) {
		cleanup_free char *ask = fleet_ask_text(f);

		view_fleet_compact(f, g);
		/* a group answer across runs asks over everything */
		view_ask_text_draw(ask, g);
		return;
	}
	view_fleet_title(f, g);
	runs = view_runs_rows(f, g->h);
	view_runs_draw(f, g, top, top + runs);
	top += runs;
	ev = view_fleet_events_rows(m, bottom - top);
	queue = view_runs_queue_rows(f, g->w,
	    bottom - top - ev - VIEW_OUT_MIN);
	out = bottom - top - queue - ev;
	if (m != NULL) {
		view_output_draw(m, g, top, top + out);
		reps[f->sel].page_rows = out - 1;
		if (ev > 0)
			view_events_draw(m, g, top + out, top + out + ev);
	}
	view_runs_queue_draw(f, g, top + out + ev, bottom, reps);
	/* The status line and a prompt as in a console of one run, over
	 * the rows above the keys, whole. */
	if (m != NULL) {
		view_status(m, g);
		view_ask_draw(m, g);
	}
	view_fleet_keys(f, g);
	{
		/* a group answer across runs asks over everything */
		cleanup_free char *ask = fleet_ask_text(f);

		view_ask_text_draw(ask, g);
	}
}

char *
view_fleet_render_text(const struct fleet *f, int w, int h,
    struct view_report *reps)
{
	struct grid *g = grid_new(w, h);
	char *text;

	view_fleet_draw(f, g, reps);
	text = grid_text(g);
	grid_free(g);
	return text;
}

char *
view_render_text(const struct model *m, int w, int h, struct view_report *rep)
{
	struct grid *g = grid_new(w, h);
	struct view_report local;
	char *text;

	view_report_init(&local);
	view_draw(m, g, rep != NULL ? rep : &local);
	text = grid_text(g);
	view_report_done(&local);
	grid_free(g);
	return text;
}
