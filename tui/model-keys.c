/* SPDX-License-Identifier: MIT */
#include "tui/model.h"
#include "tui/model-int.h"

#include <inttypes.h>
#include <string.h>

#include "config/util.h"
#include "tui/group.h"
#include "tui/vt.h"

/*
 * Keys and actions: a key dispatched (to the program, the filter's
 * editor, a reason being typed, or as an action), and each action
 * applied to the panes, the selection and the prompts.
 */

/* ---- actions ---- */

static size_t
model_out_max_scroll(const struct model *m)
{
	size_t n = output_total(&m->out);

	return n > 0 ? n - 1 : 0;
}

static void
model_out_scroll(struct model *m, long by)
{
	long max = (long)model_out_max_scroll(m), s = (long)m->out.scroll + by;

	if (s > max)
		s = max;
	if (s < 0)
		s = 0;
	m->out.scroll = (size_t)s;
}

/* The first open request of a row (its index), or -1. */
static ssize_t
model_row_open(const struct model *m, const struct group_row *row)
{
	for (size_t k = 0; k < row->n; k++)
		if (m->pending[row->idx[k]]->fate == FATE_OPEN)
			return (ssize_t)row->idx[k];
	return -1;
}

/* The selection moves by the rows the person sees (tui/group.h):
 * sensitive first, a group as one row (its oldest request stands for it). */

static void
model_select_step(struct model *m, int by)
{
	ssize_t i = model_pending_index(m, m->sel);
	struct group_row *rows;
	size_t n = model_pending_rows(m, &rows);
	long r = i < 0 ? 0 : group_row_of(rows, n, (size_t)i) + by;

	if (n == 0)
		return;
	if (i < 0)
		r = 0;
	if (r < 0)
		r = 0;
	if ((size_t)r >= n)
		r = (long)n - 1;
	/* A closed row (struct pending's fate) takes no answer: skipped,
	 * that way first, then the other. */
	if ((i = model_row_open(m, &rows[r])) < 0) {
		long step = by < 0 ? -1 : 1, t;

		for (t = r + step; t >= 0 && (size_t)t < n &&
		    (i = model_row_open(m, &rows[t])) < 0; t += step)
			;
		for (t = r - step; i < 0 && t >= 0 && (size_t)t < n &&
		    (i = model_row_open(m, &rows[t])) < 0; t -= step)
			;
	}
	group_rows_free(rows, n);
	if (i < 0 || m->pending[i]->id == m->sel)
		return;
	/* Every selection change re-arms: the clock starts again now for
	 * one already on screen (the next frame's for one that is not). */
	m->sel = m->pending[i]->id;
	m->pending[i]->shown_at_ms = m->now_mono;
}

/* ---- the events pane ---- */

#define MODEL_EVENTS_PAGE	10

static size_t
model_event_lines(const struct model *m)
{
	struct events_line *v = NULL;
	size_t n = events_lines(&m->ev, &v);

	free(v);
	return n;
}

/* Tab: pending, output, events (once there are some), pending. */
static void
model_next_pane(struct model *m)
{
	if (m->focus == PANE_PENDING)
		m->focus = PANE_OUTPUT;
	else if (m->focus == PANE_OUTPUT && m->ev.n > 0)
		m->focus = PANE_EVENTS;
	else
		m->focus = PANE_PENDING;
}

/* A move while the events pane has the focus; false: not a move. */
static bool
model_events_action(struct model *m, enum action a)
{
	bool up = a == ACTION_UP || a == ACTION_PAGE_UP || a == ACTION_TOP;
	long by;

	/* Not a switch: the other actions (and those added later) are
	 * not this pane's. */
	if (a == ACTION_UP || a == ACTION_DOWN)
		by = 1;
	else if (a == ACTION_PAGE_UP || a == ACTION_PAGE_DOWN)
		by = MODEL_EVENTS_PAGE;
	else if (a == ACTION_TOP || a == ACTION_BOTTOM)
		by = 1L << 30;
	else
		return false;
	/* Up is older: further from the newest line. */
	events_scroll(&m->ev, up ? by : -by, model_event_lines(m), 1);
	return true;
}

/* What a finished run opened from the record still does: look, move,
 * leave. A list, not a switch: an action added later is refused until
 * it is named here. */
static bool
model_readonly_allows(enum action a)
{
	static const enum action ok[] = {
		ACTION_NONE, ACTION_UP, ACTION_DOWN, ACTION_PAGE_UP,
		ACTION_PAGE_DOWN, ACTION_TOP, ACTION_BOTTOM, ACTION_NEXT_PANE,
		ACTION_DETAIL, ACTION_CLOSE, ACTION_HELP, ACTION_QUIT,
		ACTION_REDRAW, ACTION_RESIZE, ACTION_DIFF, ACTION_DIFF_NEXT,
		ACTION_DIFF_PREV, ACTION_VIEW, ACTION_ZOOM, ACTION_FILTER,
		ACTION_NO,
	};

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		if (ok[i] == a)
			return true;
	}
	return false;
}

/* The answer to "kill run? y/n" or "leave? ... y/n": true when one was
 * asked (this key answered it, and does nothing else). */
static bool
model_confirm_answer(struct model *m, enum action a, struct model_effect *eff)
{
	if (m->confirm_kill) {
		/* Only y kills; any other key is a no, and only that. */
		m->confirm_kill = false;
		if (a == ACTION_YES && !model_run_ended(m) &&
		    !m->disconnected) {
			eff->kind = EFFECT_KILL;
			model_message(m, MSG_WARN, "kill: sent");
		} else {
			model_message(m, MSG_INFO, "kill cancelled");
		}
		return true;
	}
	if (m->confirm_quit) {
		/* Only y leaves; any other key stays, and only that. */
		m->confirm_quit = false;
		if (a == ACTION_YES) {
			m->quit = true;
			eff->kind = EFFECT_QUIT;
		} else {
			model_message(m, MSG_INFO, "staying");
		}
		return true;
	}
	return false;
}

/* The actions that answer, change or kill: a --view console has none. */
static bool
model_answers(enum action a)
{
	static const enum action answer[] = {
		ACTION_ALLOW_ONCE, ACTION_DENY_ONCE, ACTION_STAGE_ONCE,
		ACTION_ALLOW_RUN, ACTION_DENY_RUN, ACTION_DENY_REASON,
		ACTION_DENY_ALL, ACTION_KILL, ACTION_NOT_YET, ACTION_ALWAYS,
		ACTION_DIFF_APPLY, ACTION_DIFF_APPLY_ALL, ACTION_DIFF_DISCARD,
		ACTION_DIFF_DISCARD_ALL,
	};

	for (size_t i = 0; i < ARRAY_SIZE(answer); i++) {
		if (answer[i] == a)
			return true;
	}
	return false;
}

void
model_apply_action(struct model *m, enum action a, struct model_effect *eff)
{
	int page = m->page_rows > 2 ? m->page_rows - 1 : 1;
	int dpage = m->detail_rows > 2 ? m->detail_rows - 1 : 1;
	int far = 1 << 20;
	bool up = a == ACTION_UP || a == ACTION_PAGE_UP || a == ACTION_TOP;

	memset(eff, 0, sizeof *eff);
	eff->kind = EFFECT_NONE;
	if (a == ACTION_RESIZE || a == ACTION_REDRAW)
		return;
	if (model_answer_takes(m, a, eff))
		return;
	if (model_confirm_answer(m, a, eff))
		return;
	if (m->help) {
		m->help = false;	/* any key closes help, and only that */
		return;
	}
	if (a == ACTION_NONE)
		return;
	if (m->diff.confirm != DIFF_OP_NONE) {
		model_diff_confirm_key(m, a, eff);
		return;
	}
	if (!m->disconnected || model_run_ended(m))
		model_message_clear(m);
	if (m->readonly && !model_readonly_allows(a)) {
		model_message(m, MSG_WARN, "read-only: the run has ended, "
		    "nothing can be answered");
		return;
	}
	if (m->diff.open && model_diff_action(m, a, eff))
		return;
	if (m->view_only && model_answers(a)) {
		model_message(m, MSG_WARN, "view only: this console cannot "
		    "answer or kill (attach without --view to answer)");
		return;
	}
	if (m->focus == PANE_EVENTS && !m->detail && !m->help &&
	    model_events_action(m, a))
		return;

	switch (a) {
	case ACTION_UP:
	case ACTION_DOWN:
		if (m->detail)
			model_detail_scroll(m, up ? -1 : 1);
		else if (m->focus == PANE_PENDING && m->n_pending > 0)
			model_select_step(m, up ? -1 : 1);
		else
			model_out_scroll(m, up ? 1 : -1);
		break;
	case ACTION_PAGE_UP:
	case ACTION_PAGE_DOWN:
		if (m->detail)
			model_detail_scroll(m, up ? -dpage : dpage);
		else
			model_out_scroll(m, up ? page : -page);
		break;
	case ACTION_TOP:
	case ACTION_BOTTOM:
		if (m->detail)
			model_detail_scroll(m, up ? -far : far);
		else if (m->focus == PANE_PENDING && m->n_pending > 0)
			model_select_step(m, up ? -far : far);
		else
			m->out.scroll = up ? model_out_max_scroll(m) : 0;
		break;
	case ACTION_NEXT_PANE:
		if (!m->detail && !m->agent) {
			model_next_pane(m);
			/* Keys typed ahead were meant for the other pane. */
			m->alerts.flush = true;
		}
		break;
	case ACTION_DETAIL:
		if (m->detail)
			model_detail_close(m);
		else if (model_pending_find(m, m->sel) != NULL) {
			m->detail = true;
			m->detail_scroll = 0;
		} else
			model_message(m, MSG_INFO, "no request selected");
		break;
	case ACTION_CLOSE:
		if (!m->detail && m->focus == PANE_EVENTS &&
		    m->ev.filter_text != NULL)
			events_set_filter(&m->ev, NULL);
		model_detail_close(m);
		break;
	case ACTION_FILTER:
		if (m->detail)
			break;
		/* The agent pane's layout has no events pane: an editor
		 * nobody sees must not take the keys. */
		if (m->agent) {
			model_message(m, MSG_INFO, "the events pane is in the "
			    "lines view: v, then /");
			break;
		}
		events_edit_open(&m->ev);
		m->focus = PANE_EVENTS;
		break;
	case ACTION_ALLOW_ONCE:
		if (!model_group_ask(m, VERDICT_ALLOW))
			model_allow(m, eff, VERDICT_ALLOW);
		break;
	case ACTION_STAGE_ONCE:
		model_allow(m, eff, VERDICT_STAGE);
		break;
	case ACTION_DENY_ONCE:
		if (!model_group_ask(m, VERDICT_DENY))
			model_deny(m, eff);
		break;
	case ACTION_ALLOW_RUN:
	case ACTION_DENY_RUN:
	case ACTION_DENY_REASON:
	case ACTION_DENY_ALL:
	case ACTION_RULES:
		model_answer_action(m, a, eff);
		break;
	case ACTION_ALWAYS:
		model_always_ask(m, eff);
		break;
	case ACTION_KILL:
		if (model_run_ended(m))
			model_message(m, MSG_INFO, "the run has ended");
		else if (m->disconnected)
			model_message(m, MSG_INFO, "not connected");
		else {
			char q[256];

			m->confirm_kill = true;
			model_kill_question(m, q, sizeof q);
			model_message_plain(m, MSG_WARN, "%s", q);
		}
		break;
	case ACTION_HELP:
		m->help = true;
		break;
	case ACTION_QUIT:
		if (m->detail) {
			model_detail_close(m);
			break;
		}
		/* Leaving is deliberate while requests wait on a person. */
		if ((model_unanswered(m) > 0 && !model_run_ended(m) &&
		    !m->disconnected && !m->view_only) ||
		    m->others_unanswered > 0) {
			m->confirm_quit = true;
			break;
		}
		m->quit = true;
		eff->kind = EFFECT_QUIT;
		break;
	case ACTION_NOT_YET:
		model_message(m, MSG_INFO,
		    "not available yet: a allows once, d denies once");
		break;
	case ACTION_DIFF:
		m->diff.open = true;
		m->detail = false;
		m->diff.scroll = 0;
		eff->kind = EFFECT_DIFF_LOAD;
		break;
	case ACTION_DIFF_NEXT:
	case ACTION_DIFF_PREV:
	case ACTION_DIFF_APPLY:
	case ACTION_DIFF_APPLY_ALL:
	case ACTION_DIFF_DISCARD:
	case ACTION_DIFF_DISCARD_ALL:
		model_message(m, MSG_INFO, "c opens the diff");
		break;
	case ACTION_VIEW:
		model_detail_close(m);
		m->agent = !m->agent;
		m->focus = m->agent ? PANE_AGENT : PANE_PENDING;
		m->alerts.flush = true;
		m->agent_mode = m->agent ? AGENT_ON : AGENT_OFF;
		break;
	case ACTION_ZOOM:
		m->zoom = m->zoom == ZOOM_NONE ? ZOOM_AGENT :
		    m->zoom == ZOOM_AGENT ? ZOOM_REQUESTS : ZOOM_NONE;
		break;
	case ACTION_RUN_PREV:
	case ACTION_RUN_NEXT:
	case ACTION_RUN_PICK:
	case ACTION_RUN_DISMISS:
	case ACTION_RUN_CLEAR:
		/* tui/fleet.c takes these when the console shows every run. */
		model_message(m, MSG_INFO, "one run here; 'ward console' "
		    "shows every run");
		break;
	case ACTION_YES:
	case ACTION_NO:
	case ACTION_NONE:
	case ACTION_REDRAW:
	case ACTION_RESIZE:
		break;
	}
}

void
model_set_agent(struct model *m, enum agent_mode mode, int prefix)
{
	m->agent_mode = mode;
	m->agent = mode == AGENT_ON;
	if (m->agent)
		m->focus = PANE_AGENT;
	if (prefix > 0)
		m->prefix = prefix;
}

/* A key while the program has the focus: the prefix, or the program's. */
static void
model_agent_key(struct model *m, int key, bool *focus_moved)
{
	if (key == m->prefix) {
		m->focus = PANE_PENDING;
		m->prefix_fresh = true;
		m->pasting = false;
		*focus_moved = true;
		return;
	}
	if (key == KEYS_PASTE_START || key == KEYS_PASTE_END) {
		m->pasting = key == KEYS_PASTE_START;
		vt_paste(m->vt, m->pasting);
		return;
	}
	(void)vt_key(m->vt, key);
}

bool
model_wants_mouse(const struct model *m)
{
	return m->agent && m->focus == PANE_AGENT && !m->help &&
	    !m->detail && vt_mouse_mode(m->vt) != 0;
}

bool
model_wants_raw(const struct model *m)
{
	return m->agent && m->focus == PANE_AGENT && !m->view_only &&
	    !m->help && !m->detail;
}

void
model_apply_mouse(struct model *m, int y, int x, int button, bool pressed)
{
	if (!model_wants_mouse(m) || y < m->agent_y || x < m->agent_x ||
	    y >= m->agent_y + m->agent_rows || x >= m->agent_x + m->agent_cols)
		return;
	vt_mouse(m->vt, y - m->agent_y, x - m->agent_x, button, pressed);
}

static void model_apply_key_1(struct model *, int, struct model_effect *,
    bool *);

void
model_note_key(struct model *m, int key, int64_t at)
{
	if (key == KEYS_RESIZE)
		return;
	model_hold_drop(m);
	if (key == KEYS_PASTE_START || key == KEYS_PASTE_END || m->pasting)
		return;
	m->last_key_ms = at;
	m->keyed = true;
}

void
model_apply_key(struct model *m, int key, struct model_effect *eff,
    bool *focus_moved)
{
	model_apply_key_at(m, key, m->now_mono, false, eff, focus_moved);
}

/* Every key press counts for the quiet period, the program's too: a
 * person typing fast into the agent is not reading a request. A paste
 * is text, not presses (none of it answers anything), but it drops a
 * held approve as every key does. */
void
model_apply_key_at(struct model *m, int key, int64_t at, bool burst,
    struct model_effect *eff, bool *focus_moved)
{
	bool paste = m->pasting || key == KEYS_PASTE_START ||
	    key == KEYS_PASTE_END;
	bool dropped = m->hold.active && key != KEYS_RESIZE;
	uint64_t dropped_id = m->hold.n_ids == 1 ? m->hold.ids[0] : 0;

	m->hold.active = m->hold.active && !dropped;
	m->key_applying = true;
	m->key_at = at;
	m->key_burst = burst;
	model_apply_key_1(m, key, eff, focus_moved);
	m->key_applying = false;
	if (key != KEYS_RESIZE && !paste) {
		m->last_key_ms = at;
		m->keyed = true;
	}
	if (model_effect_allows(eff)) {
		model_hold_start(m, eff, at);
		/* Keys that came together were not typed one by one. */
		if (burst)
			model_hold_drop(m);
	}
	if (dropped && !m->hold.active) {
		if (dropped_id != 0)
			model_message(m, MSG_WARN, "ignored: keys were still "
			    "arriving: #%" PRIu64 " not allowed", dropped_id);
		else
			model_message(m, MSG_WARN, "ignored: keys were still "
			    "arriving: nothing allowed");
	}
}

static void
model_apply_key_1(struct model *m, int key, struct model_effect *eff,
    bool *focus_moved)
{
	bool fresh = m->prefix_fresh;

	memset(eff, 0, sizeof *eff);
	eff->kind = EFFECT_NONE;
	*focus_moved = false;
	m->prefix_fresh = false;
	if (key == KEYS_RESIZE) {
		model_apply_action(m, ACTION_RESIZE, eff);
		return;
	}
	/* Ctrl-C asked "leave?" while the program had the keys: the
	 * answer is the console's, never the program's. */
	if (m->confirm_quit) {
		model_apply_action(m, keys_action(key), eff);
		return;
	}
	/* Once the program is gone, the keys are the console's again. */
	if (m->agent && m->focus == PANE_AGENT &&
	    (model_run_ended(m) || m->disconnected))
		m->focus = PANE_PENDING;
	if (m->agent && m->focus == PANE_AGENT && !m->view_only) {
		model_agent_key(m, key, focus_moved);
		return;
	}
	/* The filter's editor takes every key while it is open: what is
	 * typed there is text, never an answer. */
	if (m->ev.editing) {
		if (key != KEYS_PASTE_START && key != KEYS_PASTE_END)
			(void)events_edit_key(&m->ev, key);
		return;
	}
	/* A paste is text for the program: none of it is a console key
	 * (a pasted "a" must never approve). */
	if (key == KEYS_PASTE_START || key == KEYS_PASTE_END) {
		m->pasting = key == KEYS_PASTE_START;
		return;
	}
	if (m->pasting)
		return;
	if (m->answer.ask == ASK_REASON || m->answer.ask == ASK_GONE) {
		model_reason_key(m, key, eff);
		return;
	}
	if (m->agent && !m->help && !m->confirm_kill && !m->confirm_quit &&
	    !m->detail &&
	    (key == m->prefix || key == KEYS_ESC)) {
		/* The prefix twice: the program gets the prefix's byte. */
		if (key == m->prefix && fresh)
			(void)vt_key(m->vt, key);
		m->focus = PANE_AGENT;
		return;
	}
	model_apply_action(m, keys_action(key), eff);
}
