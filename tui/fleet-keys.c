/* SPDX-License-Identifier: MIT */
#include "tui/fleet.h"
#include "tui/fleet-int.h"

#include <stdlib.h>
#include <string.h>

#include "config/util.h"
#include "review/plain.h"
#include "tui/keys.h"

/*
 * The keys of the console of every run (fleet_apply_key): those it
 * keeps (moving between runs and through the queue across them, C),
 * a group answer across runs and its allow held for the trailing
 * silence (fleet_tick), and the rest handed to the selected run.
 */

/* ---- a group answer across runs ---- */

/*
 * The decides of from[0..n_from) still answerable (their run there, the
 * request open and not sent) appended to *out (*n_out of them), one per
 * run; mark sets each request's sent. The number of requests; *runs
 * counts the runs.
 */
static size_t
fleet_sends_build(struct fleet *f, const struct fleet_send *from,
    size_t n_from, bool mark, struct fleet_send **out, size_t *n_out,
    size_t *runs)
{
	size_t n = 0;

	*runs = 0;
	*out = xreallocarray(*out, *n_out + n_from + 1, sizeof **out);
	for (size_t t = 0; t < n_from; t++) {
		const struct fleet_send *to = &from[t];
		struct fleet_send *o = &(*out)[*n_out];
		struct model *rm;

		if (to->run >= f->n_runs || fleet_run_ended(f, to->run) ||
		    f->runs[to->run].m->disconnected)
			continue;
		rm = f->runs[to->run].m;
		*o = (struct fleet_send){ .run = to->run,
		    .verdict = to->verdict,
		    .ids = xcalloc(to->n + 1, sizeof *o->ids) };
		for (size_t k = 0; k < to->n; k++) {
			for (size_t i = 0; i < rm->n_pending; i++) {
				struct pending *p = rm->pending[i];

				if (p->id != to->ids[k] ||
				    p->sent != VERDICT_NONE ||
				    p->fate != FATE_OPEN)
					continue;
				if (mark)
					p->sent = to->verdict;
				o->ids[o->n++] = p->id;
			}
		}
		n += o->n;
		if (o->n > 0) {
			(*runs)++;
			(*n_out)++;
		} else
			free(o->ids);
	}
	return n;
}

/* The held group allow's silence is over: what can still be answered
 * goes to sends (its rows marked sent). */
static void
fleet_held_release(struct fleet *f)
{
	size_t runs, n;

	n = fleet_sends_build(f, f->held, f->n_held, true, &f->sends,
	    &f->n_sends, &runs);
	fleet_sends_free(f->held, f->n_held);
	f->held = NULL;
	f->n_held = 0;
	f->held_due = 0;
	if (fleet_model(f) != NULL)
		model_message(fleet_model(f), MSG_INFO, "allow %zu request%s in "
		    "%zu run%s once each: sent", n, n == 1 ? "" : "s", runs,
		    runs == 1 ? "" : "s");
}

/* What line l amounts to, in words (its fields are escaped already). */
static char *
fleet_line_what(const struct fleet *f, const struct fleet_line *l)
{
	const struct pending *p = f->queue[l->g.idx[0]].p;
	struct request r = { .kind = p->kind, .syscall = p->syscall,
	    .subject = p->subject, .subject2 = p->subject2 };

	if (l->same)
		return plain_request_brief(&r);
	return xasprintf("%s in %s", request_kind_name(p->kind), l->g.glob);
}

/* a or d on line l of more than one: asks first. Allowing needs the
 * line armed as a request is (DESIGN §9): its oldest request, which
 * stands for it, shown whole long enough, and no key arriving. */
static void
fleet_group_ask(struct fleet *f, struct model *m, size_t l, enum verdict v)
{
	const struct fleet_line *fl = &f->lines[l];
	struct fleet_ask *a = &f->ask;

	if (v == VERDICT_ALLOW && !model_armed(m, m->sel)) {
		model_message(m, MSG_WARN, "wait: the group is not shown long "
		    "enough yet");
		return;
	}
	fleet_ask_clear(f);
	a->verdict = v;
	a->to = xcalloc(fl->n_runs + 1, sizeof *a->to);
	for (size_t k = 0; k < fl->g.n; k++) {
		const struct fleet_row *r = &f->queue[fl->g.idx[k]];
		struct fleet_send *to = NULL;

		/* what can still be answered: not sent, its run there */
		if (r->p->sent != VERDICT_NONE || fleet_run_ended(f, r->run) ||
		    f->runs[r->run].m->disconnected)
			continue;
		for (size_t t = 0; t < a->n_to; t++)
			if (a->to[t].run == r->run)
				to = &a->to[t];
		if (to == NULL) {
			to = &a->to[a->n_to++];
			to->run = r->run;
			to->verdict = v;
			to->ids = xcalloc(fl->g.n, sizeof *to->ids);
		}
		to->ids[to->n++] = r->p->id;
		a->n_requests++;
	}
	if (a->n_requests == 0) {
		fleet_ask_clear(f);
		model_message(m, MSG_INFO, "answers already sent");
		return;
	}
	a->what = fleet_line_what(f, fl);
	a->open = true;
}

/* y sends to each run what is still pending there, any other key is a
 * no. A run that ended or is not connected gets nothing. */
static void
fleet_ask_key(struct fleet *f, struct model *m, int key, int64_t at,
    bool burst)
{
	struct fleet_ask *a = &f->ask;
	size_t n = 0, runs = 0;

	if (keys_action(key) != ACTION_YES) {
		fleet_ask_clear(f);
		model_message(m, MSG_INFO, "cancelled: nothing sent");
		return;
	}
	/* An allow is held: it goes after MODEL_TRAIL_MS with no key
	 * (fleet_tick), never out of a burst (tui/model.h: arming). */
	if (a->verdict == VERDICT_ALLOW && burst) {
		fleet_ask_clear(f);
		model_message(m, MSG_WARN, "ignored: keys were still arriving: "
		    "nothing allowed");
		return;
	}
	/* An allow is held, its rows not yet marked: fleet_tick sends it. */
	if (a->verdict == VERDICT_ALLOW)
		n = fleet_sends_build(f, a->to, a->n_to, false, &f->held,
		    &f->n_held, &runs);
	else
		n = fleet_sends_build(f, a->to, a->n_to, true, &f->sends,
		    &f->n_sends, &runs);
	if (a->verdict == VERDICT_ALLOW && f->n_held > 0) {
		f->held_due = at + MODEL_TRAIL_MS;
		model_message(m, MSG_INFO, "allowing %zu request%s in %zu "
		    "run%s... (any key now cancels)", n, n == 1 ? "" : "s",
		    runs, runs == 1 ? "" : "s");
	} else
		model_message(m, MSG_INFO, "%s %zu request%s in %zu run%s "
		    "once each: sent", verdict_name(a->verdict), n,
		    n == 1 ? "" : "s", runs, runs == 1 ? "" : "s");
	fleet_ask_clear(f);
}

char *
fleet_ask_text(const struct fleet *f)
{
	const struct fleet_ask *a = &f->ask;

	if (!a->open)
		return NULL;
	return xasprintf("%s %zu request%s in %zu run%s, once each (no rule "
	    "stored): %s - y sends, any other key cancels",
	    verdict_name(a->verdict), a->n_requests,
	    a->n_requests == 1 ? "" : "s", a->n_to, a->n_to == 1 ? "" : "s",
	    a->what);
}

/*
 * The answer keys on a line of more than one: a and d ask first (the
 * group answer); the answers of one request (s, A, D, r, W) say how to
 * reach one. false hands the key on.
 */
static bool
fleet_group_key(struct fleet *f, struct model *m, int key)
{
	enum action a = keys_action(key);
	ssize_t l;

	if (m->answer.ask != ASK_NONE || m->rules.open || m->ev.editing ||
	    m->confirm_quit || m->diff.open || m->focus == PANE_AGENT ||
	    (l = fleet_line_sel(f)) < 0 || f->lines[l].g.n < 2)
		return false;
	if (a == ACTION_ALLOW_ONCE || a == ACTION_DENY_ONCE)
		fleet_group_ask(f, m, (size_t)l, a == ACTION_ALLOW_ONCE ?
		    VERDICT_ALLOW : VERDICT_DENY);
	else if (a == ACTION_STAGE_ONCE || a == ACTION_ALLOW_RUN ||
	    a == ACTION_DENY_RUN || a == ACTION_DENY_REASON ||
	    a == ACTION_ALWAYS)
		model_message(m, MSG_INFO, "this line is %zu requests: a / d "
		    "answer them all (asks first); Enter opens the first, to "
		    "answer it alone", f->lines[l].g.n);
	else
		return false;
	return true;
}

/* fleet_group_key, the key judged on its arrival as the model judges
 * its own (model_apply_key_at): arming's quiet period and bursts. */
static bool
fleet_group_key_at(struct fleet *f, struct model *m, int key, int64_t at,
    bool burst)
{
	bool taken;

	m->key_applying = true;
	m->key_at = at;
	m->key_burst = burst;
	taken = fleet_group_key(f, m, key);
	m->key_applying = false;
	return taken;
}

/* Keys the fleet takes itself; false hands the key to the run's model. */
/* Requests still unanswered in every run. */
static size_t
fleet_unanswered(const struct fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_runs; i++) {
		const struct model *rm = f->runs[i].m;

		if (!model_run_ended(rm) && !rm->disconnected)
			n += model_unanswered(rm);
	}
	return n;
}

/* C: every run ended for good (a host gone may come back) goes, once
 * the person says y to a question that counts them. */
static void
fleet_clear_ask(struct fleet *f, struct model *m)
{
	size_t n = fleet_n_ended(f), gone = fleet_n_host_gone(f);

	if (n == 0) {
		model_message_plain(m, MSG_INFO, gone > 0 ? "no ended run to "
		    "dismiss (a run whose host is gone may come back: x "
		    "dismisses one)" : "no ended run to dismiss");
		return;
	}
	f->confirm_clear = n;
	model_message_plain(m, MSG_WARN, "dismiss %zu ended run%s? y/n", n,
	    n == 1 ? "" : "s");
}

/* The answer to C's question: y dismisses, any other key does not; a
 * count changed since is asked again. */
static void
fleet_clear_key(struct fleet *f, struct model *m, int key)
{
	size_t asked = f->confirm_clear;
	size_t n = 0, now = fleet_n_ended(f);

	f->confirm_clear = 0;
	if (keys_action(key) != ACTION_YES) {
		model_message_plain(m, MSG_INFO, "no run dismissed");
		return;
	}
	/* More (or fewer) have ended since the question: asked again, so
	 * that y drops only as many as it was told. */
	if (now != asked) {
		fleet_clear_ask(f, m);
		return;
	}
	for (size_t i = 0; i < f->n_runs; i++) {
		if (fleet_run_ended(f, i) && !f->runs[i].host_gone) {
			f->runs[i].dismissed = true;
			n++;
		}
	}
	model_message_plain(m, MSG_INFO, "%zu ended run%s dismissed", n,
	    n == 1 ? "" : "s");
}

static bool
fleet_key(struct fleet *f, struct model *m, int key)
{
	enum action a = keys_action(key);
	long far = 1L << 30;
	size_t pos = fleet_run_pos(f, f->sel);

	if (a == ACTION_RUN_PREV) {
		fleet_select_run(f, fleet_run_at(f, pos > 0 ? pos - 1 :
		    f->n_runs - 1));
	} else if (a == ACTION_RUN_NEXT) {
		fleet_select_run(f, fleet_run_at(f, pos + 1 < f->n_runs ?
		    pos + 1 : 0));
	} else if (a == ACTION_RUN_PICK) {
		if (key >= '1' && key <= '9' &&
		    (size_t)(key - '1') < f->n_runs)
			fleet_select_run(f, fleet_run_at(f,
			    (size_t)(key - '1')));
		else
			model_message_plain(m, MSG_INFO, "no run %c", key);
	} else if (a == ACTION_RUN_DISMISS) {
		/* x: drop an ended run; X is the run's "deny all". */
		if (fleet_run_ended(f, f->sel))
			f->runs[f->sel].dismissed = true;
		else
			model_message(m, MSG_INFO, "x dismisses a run that "
			    "has ended; this one runs");
	} else if (a == ACTION_RUN_CLEAR) {
		fleet_clear_ask(f, m);
	} else if (a == ACTION_UP || a == ACTION_DOWN || a == ACTION_TOP ||
	    a == ACTION_BOTTOM) {
		if (m->focus != PANE_PENDING || m->detail || f->n_queue == 0)
			return false;
		fleet_step(f, a == ACTION_UP ? -1 : a == ACTION_DOWN ? 1 :
		    a == ACTION_TOP ? -far : far);
	} else if (a == ACTION_QUIT) {
		size_t n = fleet_unanswered(f);

		/* Leaving with requests waiting asks, in the selected run's
		 * model, counting every run's. */
		if (n == 0 || m->detail) {
			if (m->detail)
				return false;
			f->quit = true;
			return true;
		}
		m->others_unanswered = n - model_unanswered(m);
		return false;
	} else {
		return false;
	}
	return true;
}

static bool
fleet_run_action(enum action a)
{
	return a == ACTION_RUN_PREV || a == ACTION_RUN_NEXT ||
	    a == ACTION_RUN_PICK || a == ACTION_RUN_DISMISS ||
	    a == ACTION_RUN_CLEAR;
}

/* The agent pane is shown, nothing over it, the keys on its requests. */
static bool
fleet_agent_strip(const struct model *m)
{
	return m->agent && m->focus != PANE_AGENT && !m->help &&
	    !m->diff.open && !m->detail && !model_prompt_open(m);
}

void
fleet_apply_key(struct fleet *f, int key, int64_t at, bool burst,
    struct model_effect *eff, size_t *run, bool *focus_moved)
{
	struct model *m = fleet_model(f);
	bool given;

	memset(eff, 0, sizeof *eff);
	eff->kind = EFFECT_NONE;
	*focus_moved = false;
	*run = f->sel;
	f->keyed = true;
	if (m == NULL) {
		if (keys_action(key) == ACTION_QUIT)
			f->quit = true;
		return;
	}
	/* Any key drops a group allow still waiting out its silence. */
	if (f->held_due != 0 && key != KEYS_RESIZE)
		fleet_held_drop(f, m);
	/* C asked: the answer is the fleet's, whatever the key; but a
	 * resize is none, and a paste cancels it and stays a paste (its
	 * text must never reach the queue as keys). */
	if (f->confirm_clear > 0 && key == KEYS_PASTE_START)
		f->confirm_clear = 0;
	else if (f->confirm_clear > 0 && key != KEYS_RESIZE) {
		fleet_clear_key(f, m, key);
		fleet_note_key(f, key, at);
		return;
	}
	/* A group answer's question owns the keyboard: y or a no. */
	if (f->ask.open) {
		fleet_ask_key(f, m, key, at, burst);
		fleet_note_key(f, key, at);
		return;
	}
	/* A prompt open in the selected run (tui/model.h's model_prompt:
	 * a reason being typed, a rule to confirm, kill, leave, the
	 * filter, a paste) owns the keyboard: every key is its own, none
	 * reaches the queue or another run (issue 31). What the run shows
	 * over the screen: the run's own keys too, as in a console of one
	 * run. Only with the agent pane shown and the keys on its
	 * requests do the run keys still move between runs (else a
	 * full-screen agent would hold the console on its run). A line of
	 * many (a group) takes a and d itself (fleet_group_key), judged
	 * as the model judges a key: on its arrival. */
	if (model_prompt_open(m) || key == KEYS_PASTE_START)
		model_apply_key_at(m, key, at, burst, eff, focus_moved);
	else if (fleet_agent_strip(m) && fleet_run_action(keys_action(key)))
		(void)fleet_key(f, m, key);
	else if (!fleet_overlay(f) && fleet_group_key_at(f, m, key, at, burst))
		;	/* every model hears of it below */
	else if (fleet_overlay(f) || !fleet_key(f, m, key))
		model_apply_key_at(m, key, at, burst, eff, focus_moved);
	/* The selected model was given it (and judged it on its arrival)
	 * unless the fleet kept it; every other run hears of it too. */
	given = m->keyed && m->last_key_ms == at;
	for (size_t i = 0; i < f->n_runs; i++)
		if (f->runs[i].m != m || !given)
			model_note_key(f->runs[i].m, key, at);
	if (m->quit) {
		m->quit = false;
		f->quit = true;
	}
}

void
fleet_note_key(struct fleet *f, int key, int64_t at)
{
	for (size_t i = 0; i < f->n_runs; i++)
		model_note_key(f->runs[i].m, key, at);
}

bool
fleet_tick(struct fleet *f, struct model_effect *eff, size_t *run)
{
	if (f->held_due != 0 && f->n_runs > 0 &&
	    f->runs[0].m->now_mono >= f->held_due)
		fleet_held_release(f);
	for (size_t i = 0; i < f->n_runs; i++) {
		if (model_tick(f->runs[i].m, eff)) {
			*run = i;
			return true;
		}
	}
	return false;
}

int64_t
fleet_due(const struct fleet *f)
{
	int64_t due = f->held_due;

	for (size_t i = 0; i < f->n_runs; i++) {
		int64_t d = model_due(f->runs[i].m);

		if (d != 0 && (due == 0 || d < due))
			due = d;
	}
	return due;
}

void
fleet_note_view(struct fleet *f)
{
	for (size_t i = 0; i < f->n_runs; i++)
		model_note_view(f->runs[i].m, &f->reps[i]);
}
