/* SPDX-License-Identifier: MIT */
#include "tui/fleet.h"
#include "tui/fleet-int.h"

#include <stdlib.h>
#include <string.h>

#include "config/util.h"

/* The longest the console "opens" (the first line selected until every
 * run has said its welcome): a run not reached by then comes later. */
#define FLEET_OPENING_MS	5000
/* ... and ends once every run has welcomed and no request came for this
 * long. */
#define FLEET_SETTLE_MS		500

static void	fleet_lines_clear(struct fleet *);
static ssize_t	fleet_line_open(const struct fleet *, size_t);

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

void
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
void
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

/* ---- a group answer's state (fleet-keys.c asks and sends) ---- */

void
fleet_ask_clear(struct fleet *f)
{
	for (size_t i = 0; i < f->ask.n_to; i++)
		free(f->ask.to[i].ids);
	free(f->ask.to);
	free(f->ask.what);
	memset(&f->ask, 0, sizeof f->ask);
}

void
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
void
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
