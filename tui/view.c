#include "tui/view.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config/util.h"
#include "tui/keys.h"
#include "tui/pen.h"
#include "tui/view-diff.h"
#include "tui/view-agent.h"
#include "tui/view-answer.h"
#include "tui/view-help.h"
#include "tui/view-output.h"
#include "tui/view-pending.h"

#define VIEW_OUT_MIN	4	/* output header + 3 lines, always */
#define VIEW_EVENTS	3

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
	if (m->n_pending > 0)
		snprintf(right, sizeof right, "  %zu pending ", m->n_pending);
	else
		snprintf(right, sizeof right, "  none pending ");

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
view_events_draw(const struct model *m, struct grid *g, int top, int bottom)
{
	size_t n = (size_t)(bottom - top - 1), first;

	pen_header(g, top, "recent decisions", false);
	if (n > m->event_count)
		n = m->event_count;
	first = m->event_count - n;
	for (size_t i = 0; i < n; i++) {
		const struct model_event *e = model_event_at(m, first + i);
		unsigned attr = 0;

		switch (e->verdict) {
		case VERDICT_ALLOW:
			attr = GRID_COLOR(GRID_GREEN);
			break;
		case VERDICT_DENY:
		case VERDICT_KILL:
			attr = GRID_COLOR(GRID_RED);
			break;
		case VERDICT_NONE:
		case VERDICT_ASK:
			break;
		}
		grid_put(g, top + 1 + (int)i, 2, g->w, e->text, attr);
	}
}

static void
view_status(const struct model *m, struct grid *g)
{
	int y = g->h - 2;
	unsigned attr = 0;

	if (m->confirm_kill) {
		attr = GRID_REVERSE | GRID_BOLD | GRID_COLOR(GRID_RED);
		grid_put(g, y, 0, g->w, " kill run? y/n ", attr);
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

	if (model_run_ended(m)) {
		model_state_text(m, state, sizeof state);
		if (strcmp(state, "killed") == 0)
			text = xstrdup(" run was killed - q to leave");
		else if (strcmp(state, "timeout") == 0)
			text = xstrdup(" run hit its time limit - q to leave");
		else if (m->run.exit_signal > 0)
			text = xasprintf(" run ended by signal %d - q to leave",
			    m->run.exit_signal);
		else
			text = xasprintf(" run exited with status %d - "
			    "q to leave", m->run.exit_code);
		attr = GRID_REVERSE | GRID_BOLD;
	} else if (m->disconnected) {
		text = xstrdup(" supervisor gone - q to leave");
		attr = GRID_REVERSE | GRID_BOLD | GRID_COLOR(GRID_RED);
	} else if (m->help) {
		text = xstrdup(" any key closes help");
		attr = GRID_DIM;
	} else if (m->diff.open) {
		text = xstrdup(" j k PgUp PgDn scroll  [ ] next file  c or Esc close  "
		    "? help");
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
	cleanup_free char *text = xasprintf("terminal too small: %dx%d, "
	    "ward needs %dx%d", g->w, g->h, VIEW_MIN_W, VIEW_MIN_H);
	struct pen p = { .g = g, .y = 0, .top = 0, .bottom = g->h };

	(void)m;
	pen_wrap(&p, 0, g->w, text, GRID_BOLD);
}

static void
view_main(const struct model *m, struct grid *g, struct view_report *rep)
{
	int top = 1, bottom = g->h - 2, avail = bottom - top;
	int pend, rest, ev = 0, out;

	pend = view_pending_rows(m, g->w);
	if (pend > avail - VIEW_OUT_MIN)
		pend = avail - VIEW_OUT_MIN;
	rest = avail - pend;
	if (m->event_count > 0) {
		ev = 1 + (int)(m->event_count < VIEW_EVENTS ? m->event_count :
		    VIEW_EVENTS);
		if (ev > rest - VIEW_OUT_MIN)
			ev = rest - VIEW_OUT_MIN;
		if (ev < 2)
			ev = 0;
	}
	out = rest - ev;

	view_output_draw(m, g, top, top + out);
	rep->page_rows = out - 1;
	if (ev > 0)
		view_events_draw(m, g, top + out, top + out + ev);
	view_pending_draw(m, g, top + out + ev, bottom, rep);
}

void
view_draw(const struct model *m, struct grid *g, struct view_report *rep)
{
	view_report_reset(rep);
	grid_clear(g);
	if (g->w < VIEW_MIN_W || g->h < VIEW_MIN_H) {
		view_too_small(m, g);
		return;
	}
	view_title(m, g);
	if (m->help)
		view_help_draw(m, g, 1, g->h - 2);
	else if (m->rules.open)
		view_rules_draw(m, g, 1, g->h - 2);
	else if (m->diff.open)
		view_diff_draw(m, g, 1, g->h - 2);
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
