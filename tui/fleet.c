/* SPDX-License-Identifier: MIT */
#include "tui/fleet.h"

#include <stdlib.h>
#include <string.h>

#include "config/util.h"
#include "review/plain.h"
#include "tui/keys.h"

/* The longest the console "opens" (the first line selected until every
 * run has said its welcome): a run not reached by then comes later. */
#define FLEET_OPENING_MS	5000
/* ... and ends once every run has welcomed and no request came for this
 * long. */
#define FLEET_SETTLE_MS		500

static void	fleet_ask_clear(struct fleet *);
static void	fleet_lines_clear(struct fleet *);
static ssize_t	fleet_line_open(const struct fleet *, size_t);
static void	fleet_held_drop(struct fleet *, struct model *);

struct fleet *
fleet_new(void)
{
	struct fleet *f = xcalloc(1, sizeof(struct fleet));

	f->opening = true;
	return f;
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
	fleet_lines_clear(f);
	free(f->lines);
	free(f->line_of);
	fleet_ask_clear(f);
	fleet_sends_done(f);
	fleet_held_drop(f, NULL);
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
	/* A question or answers held by run index: the indexes moved. */
	fleet_ask_clear(f);
	fleet_sends_done(f);
	fleet_held_drop(f, fleet_model(f));
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
	if (f->open_until == 0)
		f->open_until = mono_ms + FLEET_OPENING_MS;
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
	return model_unanswered(f->runs[i].m);
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
		if (p->id == row->p->id) {
			p->shown = false;
			p->shown_at_ms = m->now_mono;
		}
	}
	f->sel_id = m->sel;
	f->sel_pos = at;
	f->sel_line = f->line_of != NULL && at < f->n_queue ?
	    f->line_of[at] : 0;
}

/* Selects line l: its oldest request stands for it. */
static void
fleet_select_line(struct fleet *f, size_t l)
{
	ssize_t open = fleet_line_open(f, l);

	fleet_select_row(f, open >= 0 ? (size_t)open : f->lines[l].g.idx[0]);
}

ssize_t
fleet_line_sel(const struct fleet *f)
{
	ssize_t at = fleet_queue_sel(f);

	return at < 0 || f->line_of == NULL ? -1 : (ssize_t)f->line_of[at];
}

static void
fleet_lines_clear(struct fleet *f)
{
	for (size_t i = 0; i < f->n_lines; i++) {
		free(f->lines[i].g.idx);
		free(f->lines[i].g.glob);
	}
	f->n_lines = 0;
}

/* The lines of the queue (tui/group.h), and each queue row's line. */
static void
fleet_lines_build(struct fleet *f)
{
	struct group_in *v = xcalloc(f->n_queue + 1, sizeof *v);
	struct group_row *rows = NULL;
	bool *seen = xcalloc(f->n_runs + 1, sizeof *seen);
	size_t n;

	fleet_lines_clear(f);
	for (size_t i = 0; i < f->n_queue; i++)
		v[i] = (struct group_in){ .kind = f->queue[i].p->kind,
		    .process = f->queue[i].p->cmdline,
		    .subject = f->queue[i].p->subject };
	n = group_rows_alike(v, f->n_queue, &rows);
	f->lines = xreallocarray(f->lines, n + 1, sizeof *f->lines);
	f->line_of = xreallocarray(f->line_of, f->n_queue + 1,
	    sizeof *f->line_of);
	for (size_t l = 0; l < n; l++) {
		struct fleet_line *fl = &f->lines[l];

		*fl = (struct fleet_line){ .g = rows[l], .same = true };
		memset(seen, 0, (f->n_runs + 1) * sizeof *seen);
		for (size_t k = 0; k < fl->g.n; k++) {
			const struct fleet_row *r = &f->queue[fl->g.idx[k]];

			f->line_of[fl->g.idx[k]] = l;
			if (!seen[r->run]) {
				seen[r->run] = true;
				fl->n_runs++;
			}
			if (strcmp(r->p->subject,
			    f->queue[fl->g.idx[0]].p->subject) != 0)
				fl->same = false;
		}
	}
	f->n_lines = n;
	free(rows);	/* the rows' idx and glob are the lines' now */
	free(seen);
	free(v);
}

/* The first request of line l as (run, id). */
static void
fleet_line_first(const struct fleet *f, size_t l, size_t *run, uint64_t *id)
{
	const struct fleet_row *r = &f->queue[f->lines[l].g.idx[0]];

	*run = r->run;
	*id = r->p->id;
}

/* The queue row of request id of run, or -1. */
static ssize_t
fleet_queue_find(const struct fleet *f, size_t run, uint64_t id)
{
	for (size_t i = 0; i < f->n_queue; i++)
		if (f->queue[i].run == run && f->queue[i].p->id == id)
			return (ssize_t)i;
	return -1;
}

/* Where the selection goes if its request goes: another request of its
 * line (the line stays), else the line after it, else the one before. */
static void
fleet_note_heirs(struct fleet *f)
{
	ssize_t l = fleet_line_sel(f);

	f->heir_id[0] = f->heir_id[1] = 0;
	if (l < 0)
		return;
	if (f->lines[l].g.n > 1) {
		const size_t *idx = f->lines[l].g.idx;
		const struct fleet_row *r = &f->queue[idx[0]];

		/* the line's oldest other than the selected request */
		if (r->run == f->sel && r->p->id == f->sel_id)
			r = &f->queue[idx[1]];
		f->heir_run[0] = r->run;
		f->heir_id[0] = r->p->id;
	}
	if ((size_t)l + 1 < f->n_lines)
		fleet_line_first(f, (size_t)l + 1, &f->heir_run[1],
		    &f->heir_id[1]);
	else if (l > 0)
		fleet_line_first(f, (size_t)l - 1, &f->heir_run[1],
		    &f->heir_id[1]);
}

/* The selected request went: who takes its place (armed afresh). */
static void
fleet_select_heir(struct fleet *f)
{
	for (int k = 0; k < 2; k++) {
		ssize_t at;

		if (f->heir_id[k] == 0 || f->heir_run[k] >= f->n_runs ||
		    (at = fleet_queue_find(f, f->heir_run[k],
		    f->heir_id[k])) < 0)
			continue;
		fleet_select_line(f, f->line_of[at]);
		return;
	}
	fleet_select_line(f, f->sel_line < f->n_lines ? f->sel_line :
	    f->n_lines - 1);
}

/* Whether every run has said what it holds (its welcome), or is gone. */
static bool
fleet_all_heard(const struct fleet *f)
{
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct fleet_run *r = &f->runs[i];

		/* one not reached yet (busy: its control socket's backlog
		 * full) is dialled again by the next scan */
		if (r->m->run.state == RUN_UNKNOWN && !r->host_gone)
			return false;
	}
	return true;
}

/* What the queue holds, in its order (FNV-1a over run, id, pointer). */
static uint64_t
fleet_queue_sig(const struct fleet *f)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < f->n_queue; i++) {
		uint64_t v[3] = { f->queue[i].run, f->queue[i].p->id,
		    (uint64_t)(uintptr_t)f->queue[i].p };

		for (size_t k = 0; k < 3; k++) {
			h ^= v[k];
			h *= 0x100000001b3ULL;
		}
	}
	return h ^ f->n_queue;
}

/* A row still to answer: open (struct pending's fate), nothing sent. */
static bool
fleet_row_open(const struct fleet_row *r)
{
	return r->p->fate == FATE_OPEN && r->p->sent == VERDICT_NONE;
}

/* Line l's oldest row still to answer (its place in the queue), or -1. */
static ssize_t
fleet_line_open(const struct fleet *f, size_t l)
{
	for (size_t k = 0; k < f->lines[l].g.n; k++)
		if (fleet_row_open(&f->queue[f->lines[l].g.idx[k]]))
			return (ssize_t)f->lines[l].g.idx[k];
	return -1;
}

/* Every row of line l is confirmed or closed: it is drawn a moment,
 * then leaves; the selection steps over it. */
static bool
fleet_line_leaving(const struct fleet *f, size_t l)
{
	for (size_t k = 0; k < f->lines[l].g.n; k++) {
		const struct pending *p = f->queue[f->lines[l].g.idx[k]].p;

		if (p->fate != FATE_DONE && p->fate != FATE_GONE)
			return false;
	}
	return true;
}

/* The row still to answer nearest line l in the order lines are shown:
 * from l down, else up; its place in the queue, or -1 when none is. */
static ssize_t
fleet_open_near(const struct fleet *f, size_t l)
{
	ssize_t at;

	if (f->n_lines == 0)
		return -1;
	if (l >= f->n_lines)
		l = f->n_lines - 1;
	for (size_t i = l; i < f->n_lines; i++)
		if ((at = fleet_line_open(f, i)) >= 0)
			return at;
	for (size_t i = l; i > 0; i--)
		if ((at = fleet_line_open(f, i - 1)) >= 0)
			return at;
	return -1;
}

void
fleet_refresh(struct fleet *f)
{
	const struct pending *sp;
	ssize_t open;
	const struct model *m;
	ssize_t at;
	uint64_t sig;

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
	/* The lines again only when the queue is not the same: grouping
	 * 10000 requests is most of a frame (tests/bench/console.c). */
	sig = fleet_queue_sig(f);
	if (sig != f->lines_sig || f->n_lines == 0) {
		fleet_lines_build(f);
		if (sig != f->lines_sig && f->n_runs > 0)
			f->changed_at = f->runs[0].m->now_mono;
		f->lines_sig = sig;
	}

	if ((m = fleet_model(f)) == NULL)
		return;
	at = fleet_queue_sel(f);
	if (f->opening && !f->keyed && !f->picked && f->n_lines > 0 &&
	    fleet_line_sel(f) != 0) {
		/* The console is opening: each run's requests come with its
		 * welcome, one run after another. Until every run has said
		 * its own and before any key, the first line is selected
		 * (when it is already, the branches below keep it so). */
		fleet_select_line(f, 0);
	} else if (f->sel_id != 0 &&
	    (sp = model_pending_find(m, f->sel_id)) != NULL &&
	    (sp->fate == FATE_DONE || sp->fate == FATE_GONE) &&
	    (open = fleet_open_near(f, f->sel_line)) >= 0) {
		/* The selected request was answered and confirmed, or its
		 * asker went: its row stays a moment, the selection goes on
		 * to the open one nearest its line (armed afresh), as when
		 * a row goes. A row not delivered stays selectable: its run
		 * is out of reach, and says so. */
		fleet_select_row(f, (size_t)open);
	} else if (f->sel_id != 0 && model_pending_find(m, f->sel_id) == NULL &&
	    f->n_lines > 0) {
		/* The selected request went: the one now in its place. */
		fleet_select_heir(f);
	} else if (f->sel_id == 0 && !f->picked && f->n_lines > 0) {
		/* Nothing was selected (the console just opened, or the run
		 * has nothing left) and the person chose no run: the
		 * first line of them all. */
		fleet_select_line(f, 0);
	} else {
		f->sel_id = at >= 0 ? m->sel : 0;
		f->sel_pos = at >= 0 ? (size_t)at : 0;
		f->sel_line = at >= 0 ? f->line_of[at] : 0;
	}
	fleet_note_heirs(f);
	/* A welcome holds what fits 256 KiB; the rest of a flood follows
	 * as requests (PROTOCOL.md): the queue settles first. */
	if (f->opening && ((fleet_all_heard(f) &&
	    m->now_mono - f->changed_at >= FLEET_SETTLE_MS) ||
	    (f->open_until != 0 && m->now_mono >= f->open_until)))
		f->opening = false;
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

/* j k g G move by the lines the person reads. */
static void
fleet_step(struct fleet *f, long by)
{
	ssize_t at = fleet_line_sel(f);
	long to;

	if (f->n_lines == 0)
		return;
	to = at < 0 ? 0 : (long)at + by;
	if (to < 0)
		to = 0;
	if (to >= (long)f->n_lines)
		to = (long)f->n_lines - 1;
	/* A line whose rows are all confirmed or closed (struct pending's
	 * fate) is leaving: skipped, that way first, then the other. */
	while (to >= 0 && to < (long)f->n_lines && fleet_line_leaving(f, to))
		to += by < 0 ? -1 : 1;
	if (to < 0 || to >= (long)f->n_lines) {
		ssize_t near = fleet_open_near(f, at < 0 ? 0 : (size_t)at);

		if (near < 0)
			return;
		f->picked = false;
		fleet_select_row(f, (size_t)near);
		return;
	}
	if (to == at)
		return;
	f->picked = false;
	fleet_select_line(f, (size_t)to);
}

/* ---- a group answer across runs ---- */

static void
fleet_ask_clear(struct fleet *f)
{
	for (size_t i = 0; i < f->ask.n_to; i++)
		free(f->ask.to[i].ids);
	free(f->ask.to);
	free(f->ask.what);
	memset(&f->ask, 0, sizeof f->ask);
}

static void
fleet_sends_free(struct fleet_send *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].ids);
	free(v);
}

void
fleet_sends_done(struct fleet *f)
{
	fleet_sends_free(f->sends, f->n_sends);
	f->sends = NULL;
	f->n_sends = 0;
}

/* A held group allow is dropped (a key came before its silence); m's
 * status line says so, when m is given. */
static void
fleet_held_drop(struct fleet *f, struct model *m)
{
	bool was = f->held_due != 0;

	fleet_sends_free(f->held, f->n_held);
	f->held = NULL;
	f->n_held = 0;
	f->held_due = 0;
	if (was && m != NULL)
		model_message(m, MSG_WARN, "ignored: keys were still arriving: "
		    "nothing allowed");
}

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
