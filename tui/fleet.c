/* SPDX-License-Identifier: MIT */
#include "tui/fleet.h"

#include <stdlib.h>
#include <string.h>

#include "config/util.h"
#include "tui/keys.h"

struct fleet *
fleet_new(void)
{
	return xcalloc(1, sizeof(struct fleet));
}

static void
fleet_run_done(struct fleet_run *r)
{
	model_free(r->m);
	free(r->key);
	free(r->host);
}

void
fleet_free(struct fleet *f)
{
	if (f == NULL)
		return;
	for (size_t i = 0; i < f->n_runs; i++) {
		fleet_run_done(&f->runs[i]);
		view_report_done(&f->reps[i]);
	}
	for (size_t i = 0; i < f->n_hosts; i++)
		free(f->hosts[i].name);
	free(f->hosts);
	free(f->runs);
	free(f->order);
	free(f->reps);
	free(f->queue);
	free(f);
}

size_t
fleet_add(struct fleet *f, const char *key)
{
	return fleet_add_on(f, NULL, key);
}

size_t
fleet_add_on(struct fleet *f, const char *host, const char *key)
{
	struct fleet_run *r;

	f->runs = xreallocarray(f->runs, f->n_runs + 1, sizeof *f->runs);
	f->reps = xreallocarray(f->reps, f->n_runs + 1, sizeof *f->reps);
	r = &f->runs[f->n_runs];
	memset(r, 0, sizeof *r);
	r->m = model_new();
	r->m->many_runs = true;
	r->key = xstrdup(key);
	r->host = host != NULL ? xstrdup(host) : NULL;
	/* A run on another host has its policy file there: W (always)
	 * would write a file of that name here. */
	if (r->host != NULL)
		r->m->always_off = "the run's policy file is on another host; "
		    "edit it there";
	view_report_init(&f->reps[f->n_runs]);
	f->n_runs++;
	fleet_order(f);
	return f->n_runs - 1;
}

const char *
fleet_run_name(const struct fleet *f, size_t i)
{
	const struct model *m = f->runs[i].m;

	if (*m->run.name != '\0')
		return m->run.name;
	return *m->run.id != '\0' ? m->run.id : f->runs[i].key;
}

/* Start time (none known: last), name, id, host (this machine first). */
static int
fleet_order_cmp(const struct fleet *f, size_t a, size_t b)
{
	const struct fleet_run *x = &f->runs[a], *y = &f->runs[b];
	int64_t sx = x->m->run.started_ms, sy = y->m->run.started_ms;
	int c;

	if (sx != sy) {
		if (sx <= 0 || sy <= 0)
			return sx <= 0 ? 1 : -1;
		return sx < sy ? -1 : 1;
	}
	if ((c = strcmp(fleet_run_name(f, a), fleet_run_name(f, b))) != 0)
		return c;
	if ((c = strcmp(x->key, y->key)) != 0)
		return c;
	if (x->host == NULL || y->host == NULL)
		return x->host == NULL ? (y->host == NULL ? 0 : -1) : 1;
	return strcmp(x->host, y->host);
}

void
fleet_order(struct fleet *f)
{
	f->order = xreallocarray(f->order, f->n_runs + 1, sizeof *f->order);
	/* Insertion sort: a few hundred runs at most, nearly sorted. */
	for (size_t i = 0; i < f->n_runs; i++) {
		size_t j = i;

		while (j > 0 && fleet_order_cmp(f, f->order[j - 1], i) > 0) {
			f->order[j] = f->order[j - 1];
			j--;
		}
		f->order[j] = i;
	}
}

size_t
fleet_run_pos(const struct fleet *f, size_t i)
{
	for (size_t k = 0; k < f->n_runs; k++) {
		if (f->order[k] == i)
			return k;
	}
	return f->n_runs;
}

size_t
fleet_run_at(const struct fleet *f, size_t pos)
{
	return pos < f->n_runs ? f->order[pos] : f->n_runs;
}

ssize_t
fleet_find(const struct fleet *f, const char *key)
{
	return fleet_find_on(f, NULL, key);
}

static bool
fleet_same_host(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

ssize_t
fleet_find_on(const struct fleet *f, const char *host, const char *key)
{
	for (size_t i = 0; i < f->n_runs; i++) {
		if (strcmp(f->runs[i].key, key) == 0 &&
		    fleet_same_host(f->runs[i].host, host))
			return (ssize_t)i;
	}
	return -1;
}

bool
fleet_any_host(const struct fleet *f)
{
	for (size_t i = 0; i < f->n_runs; i++) {
		if (f->runs[i].host != NULL)
			return true;
	}
	return false;
}

void
fleet_host_set(struct fleet *f, const char *host, bool up)
{
	for (size_t i = 0; i < f->n_hosts; i++) {
		if (strcmp(f->hosts[i].name, host) == 0) {
			f->hosts[i].up = up;
			return;
		}
	}
	f->hosts = xreallocarray(f->hosts, f->n_hosts + 1, sizeof *f->hosts);
	f->hosts[f->n_hosts].name = xstrdup(host);
	f->hosts[f->n_hosts++].up = up;
}

char *
fleet_hosts_down(const struct fleet *f)
{
	char *s = NULL;

	for (size_t i = 0; i < f->n_hosts; i++) {
		char *t;

		if (f->hosts[i].up)
			continue;
		t = s == NULL ? xstrdup(f->hosts[i].name) :
		    xasprintf("%s, %s", s, f->hosts[i].name);
		free(s);
		s = t;
	}
	return s;
}

size_t
fleet_host_gone(struct fleet *f, const char *host, bool gone)
{
	size_t n = 0;

	if (host == NULL)
		return 0;
	for (size_t i = 0; i < f->n_runs; i++) {
		if (fleet_same_host(f->runs[i].host, host)) {
			f->runs[i].host_gone = gone;
			n++;
		}
	}
	return n;
}

void
fleet_remove(struct fleet *f, size_t i)
{
	if (i >= f->n_runs)
		return;
	fleet_run_done(&f->runs[i]);
	view_report_done(&f->reps[i]);
	memmove(f->runs + i, f->runs + i + 1,
	    (f->n_runs - i - 1) * sizeof *f->runs);
	memmove(f->reps + i, f->reps + i + 1,
	    (f->n_runs - i - 1) * sizeof *f->reps);
	f->n_runs--;
	fleet_order(f);
	f->confirm_clear = 0;	/* its count is stale: C asks again */
	if (f->sel > i || (f->sel == i && f->sel > 0 && f->sel >= f->n_runs))
		f->sel--;
	/* The queue points into the models: build it again now. */
	f->sel_id = 0;
	fleet_refresh(f);
}

void
fleet_reset(struct fleet *f, size_t i)
{
	struct model *old = f->runs[i].m, *m = model_new();

	m->many_runs = true;
	model_set_agent(m, old->agent_mode, old->prefix);
	model_set_now(m, old->now_mono, old->now_wall);
	model_carry_lost(m, old);	/* "not delivered": said again */
	model_free(old);
	f->runs[i].m = m;
	f->runs[i].gone = false;
	f->runs[i].host_gone = false;
	if (f->sel == i)
		f->sel_id = 0;
	fleet_refresh(f);
}

void
fleet_set_now(struct fleet *f, int64_t mono_ms, int64_t wall_ms)
{
	for (size_t i = 0; i < f->n_runs; i++)
		model_set_now(f->runs[i].m, mono_ms, wall_ms);
}

struct model *
fleet_model(const struct fleet *f)
{
	return f->sel < f->n_runs ? f->runs[f->sel].m : NULL;
}

bool
fleet_overlay(const struct fleet *f)
{
	const struct model *m = fleet_model(f);

	if (m == NULL)
		return false;
	return m->help || m->diff.open || m->agent || m->rules.open ||
	    (m->detail && model_pending_find(m, m->sel) != NULL);
}

bool
fleet_run_ended(const struct fleet *f, size_t i)
{
	return model_run_ended(f->runs[i].m) || f->runs[i].gone ||
	    f->runs[i].host_gone;
}

size_t
fleet_n_ended(const struct fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_runs; i++)
		n += fleet_run_ended(f, i) && !f->runs[i].host_gone;
	return n;
}

size_t
fleet_n_host_gone(const struct fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_runs; i++)
		n += f->runs[i].host_gone;
	return n;
}

size_t
fleet_run_pending(const struct fleet *f, size_t i)
{
	const struct model *m = f->runs[i].m;
	size_t n = 0;

	for (size_t k = 0; k < m->n_pending; k++)
		n += m->pending[k]->sent == VERDICT_NONE;
	return n;
}

int64_t
fleet_oldest_wait(const struct fleet *f, size_t i)
{
	const struct model *m = f->runs[i].m;
	int64_t oldest = 0;

	for (size_t k = 0; k < m->n_pending; k++) {
		const struct pending *p = m->pending[k];

		if (p->sent == VERDICT_NONE && (oldest == 0 ||
		    p->created_ms < oldest))
			oldest = p->created_ms;
	}
	return oldest == 0 || oldest > m->now_wall ? 0 : m->now_wall - oldest;
}

/* Oldest first; a tie goes by run, then by the run's own order. */
static int
fleet_row_cmp(const void *a, const void *b)
{
	const struct fleet_row *x = a, *y = b;

	if (x->p->created_ms != y->p->created_ms)
		return x->p->created_ms < y->p->created_ms ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->p->id < y->p->id ? -1 : x->p->id > y->p->id;
}

ssize_t
fleet_queue_sel(const struct fleet *f)
{
	const struct model *m = fleet_model(f);

	if (m == NULL || m->sel == 0)
		return -1;
	for (size_t i = 0; i < f->n_queue; i++) {
		if (f->queue[i].run == f->sel && f->queue[i].p->id == m->sel)
			return (ssize_t)i;
	}
	return -1;
}

/*
 * Selects queue row at; by_person false arms it afresh (DESIGN §9: a
 * request the person did not choose must not take a key meant for
 * another). A move of the person's own re-arms too: every selection
 * change does (issue 15), and across runs the request shown changes
 * place on the screen.
 */
static void
fleet_select_row(struct fleet *f, size_t at)
{
	const struct fleet_row *row = &f->queue[at];
	struct model *m = f->runs[row->run].m, *old = fleet_model(f);
	struct pending *p;

	/* A prompt open in the selected run keeps the selection in that
	 * run until it is answered or cancelled: the keys typed into it
	 * must never land in another run (issue 31). */
	if (row->run != f->sel && f->sel < f->n_runs &&
	    model_prompt_open(f->runs[f->sel].m))
		return;
	/* The status line the run left says what came of its answer (and
	 * names that run): it stays on screen on the run selected now. */
	if (old != NULL && old != m && old->message != NULL &&
	    m->message == NULL)
		model_message_plain(m, old->message_level, "%s",
		    old->message);
	f->sel = row->run;
	m->sel = row->p->id;
	/* The queue holds const rows; the model owns them. */
	for (size_t k = 0; k < m->n_pending; k++) {
		p = m->pending[k];
		if (p->id == row->p->id)
			p->shown = false;
	}
	f->sel_id = m->sel;
	f->sel_pos = at;
}

/* The open row (struct pending's fate) nearest after at, else before;
 * -1 when none is. */
static ssize_t
fleet_open_near(const struct fleet *f, size_t at)
{
	for (size_t i = at; i < f->n_queue; i++)
		if (f->queue[i].p->fate == FATE_OPEN &&
		    f->queue[i].p->sent == VERDICT_NONE)
			return (ssize_t)i;
	for (size_t i = at < f->n_queue ? at : f->n_queue; i > 0; i--)
		if (f->queue[i - 1].p->fate == FATE_OPEN &&
		    f->queue[i - 1].p->sent == VERDICT_NONE)
			return (ssize_t)(i - 1);
	return -1;
}

void
fleet_refresh(struct fleet *f)
{
	const struct pending *sp;
	ssize_t open;
	const struct model *m;
	ssize_t at;

	if (f->sel >= f->n_runs)
		f->sel = f->n_runs > 0 ? f->n_runs - 1 : 0;
	fleet_order(f);
	f->n_queue = 0;
	f->n_pending = 0;
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct model *rm = f->runs[i].m;

		for (size_t k = 0; k < rm->n_pending; k++) {
			if (f->n_queue == f->cap_queue) {
				f->cap_queue = f->cap_queue ? f->cap_queue * 2 :
				    64;
				f->queue = xreallocarray(f->queue, f->cap_queue,
				    sizeof *f->queue);
			}
			f->queue[f->n_queue].run = i;
			f->queue[f->n_queue].p = rm->pending[k];
			f->n_queue++;
			f->n_pending += rm->pending[k]->sent == VERDICT_NONE;
		}
	}
	if (f->n_queue > 1)	/* never qsort(NULL, 0): UB all the same */
		qsort(f->queue, f->n_queue, sizeof *f->queue, fleet_row_cmp);

	if ((m = fleet_model(f)) == NULL)
		return;
	at = fleet_queue_sel(f);
	if (f->sel_id != 0 && (sp = model_pending_find(m, f->sel_id)) != NULL &&
	    (sp->fate == FATE_DONE || sp->fate == FATE_GONE) &&
	    (open = fleet_open_near(f, f->sel_pos)) >= 0) {
		/* The selected request was answered and confirmed, or its
		 * asker went: its row stays a moment, the selection goes on
		 * to the open one nearest its place (armed afresh), as when
		 * a row goes. A row not delivered stays selectable: its run
		 * is out of reach, and says so. */
		fleet_select_row(f, (size_t)open);
		return;
	}
	if (f->sel_id != 0 && model_pending_find(m, f->sel_id) == NULL &&
	    f->n_queue > 0) {
		/* The selected request went: the one now in its place. */
		fleet_select_row(f, f->sel_pos < f->n_queue ? f->sel_pos :
		    f->n_queue - 1);
		return;
	}
	if (f->sel_id == 0 && !f->picked && f->n_queue > 0) {
		/* Nothing was selected (the console just opened, or the run
		 * has nothing left) and the person chose no run: the
		 * oldest request of them all. */
		fleet_select_row(f, 0);
		return;
	}
	f->sel_id = at >= 0 ? m->sel : 0;
	f->sel_pos = at >= 0 ? (size_t)at : 0;
}

static void
fleet_select_run(struct fleet *f, size_t i)
{
	ssize_t at;

	if (i >= f->n_runs)
		return;
	f->sel = i;
	f->picked = true;
	if ((at = fleet_queue_sel(f)) >= 0)
		fleet_select_row(f, (size_t)at);
	else
		f->sel_id = 0;
}

static void
fleet_step(struct fleet *f, long by)
{
	ssize_t at = fleet_queue_sel(f);
	long to;

	if (f->n_queue == 0)
		return;
	to = at < 0 ? 0 : (long)at + by;
	if (to < 0)
		to = 0;
	if (to >= (long)f->n_queue)
		to = (long)f->n_queue - 1;
	/* A row confirmed or closed (struct pending's fate) is leaving:
	 * skipped, that way first, then the other. */
	while (to >= 0 && to < (long)f->n_queue &&
	    (f->queue[to].p->fate == FATE_DONE ||
	    f->queue[to].p->fate == FATE_GONE))
		to += by < 0 ? -1 : 1;
	if (to < 0 || to >= (long)f->n_queue) {
		ssize_t near = fleet_open_near(f, at < 0 ? 0 : (size_t)at);

		if (near < 0)
			return;
		to = near;
	}
	if (to == at)
		return;
	f->picked = false;
	fleet_select_row(f, (size_t)to);
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
	if (m == NULL) {
		if (keys_action(key) == ACTION_QUIT)
			f->quit = true;
		return;
	}
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
	/* A prompt open in the selected run (tui/model.h's model_prompt:
	 * a reason being typed, a rule to confirm, kill, leave, the
	 * filter, a paste) owns the keyboard: every key is its own, none
	 * reaches the queue or another run (issue 31). What the run shows
	 * over the screen: the run's own keys too, as in a console of one
	 * run. Only with the agent pane shown and the keys on its
	 * requests do the run keys still move between runs (else a
	 * full-screen agent would hold the console on its run). */
	if (model_prompt_open(m) || key == KEYS_PASTE_START)
		model_apply_key_at(m, key, at, burst, eff, focus_moved);
	else if (fleet_agent_strip(m) && fleet_run_action(keys_action(key)))
		(void)fleet_key(f, m, key);
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
	int64_t due = 0;

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
