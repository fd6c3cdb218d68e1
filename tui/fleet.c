/* SPDX-License-Identifier: MIT */
#include "tui/fleet.h"

#include <stdlib.h>
#include <string.h>

#include "approvals/plain.h"
#include "config/util.h"
#include "tui/keys.h"

/* The longest the console "opens" (the first line selected until every
 * run has said its welcome): a run not reached by then comes later. */
#define FLEET_OPENING_MS	5000
/* ... and ends once every run has welcomed and no request came for this
 * long. */
#define FLEET_SETTLE_MS		500

static void	fleet_ask_clear(struct fleet *);
static void	fleet_lines_clear(struct fleet *);

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
	free(f->reps);
	free(f->queue);
	fleet_lines_clear(f);
	free(f->lines);
	free(f->line_of);
	fleet_ask_clear(f);
	fleet_sends_done(f);
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
	return f->n_runs++;
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
	if (f->sel > i || (f->sel == i && f->sel > 0 && f->sel >= f->n_runs))
		f->sel--;
	/* A question or answers held by run index: the indexes moved. */
	fleet_ask_clear(f);
	fleet_sends_done(f);
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
	return m->help || m->diff.open || m->agent ||
	    (m->detail && model_pending_find(m, m->sel) != NULL);
}

bool
fleet_run_ended(const struct fleet *f, size_t i)
{
	return model_run_ended(f->runs[i].m) || f->runs[i].gone ||
	    f->runs[i].host_gone;
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
	struct model *m = f->runs[row->run].m;
	struct pending *p;

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
	fleet_select_row(f, f->lines[l].g.idx[0]);
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

void
fleet_refresh(struct fleet *f)
{
	const struct model *m;
	ssize_t at;
	uint64_t sig;

	if (f->sel >= f->n_runs)
		f->sel = f->n_runs > 0 ? f->n_runs - 1 : 0;
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
	if (f->opening && !f->keyed && !f->picked && f->n_lines > 0) {
		/* The console is opening: each run's requests come with its
		 * welcome, one run after another. Until every run has said
		 * its own and before any key, the first line is selected. */
		if (fleet_line_sel(f) != 0)
			fleet_select_line(f, 0);
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

void
fleet_sends_done(struct fleet *f)
{
	for (size_t i = 0; i < f->n_sends; i++)
		free(f->sends[i].ids);
	free(f->sends);
	f->sends = NULL;
	f->n_sends = 0;
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
fleet_ask_key(struct fleet *f, struct model *m, int key)
{
	struct fleet_ask *a = &f->ask;
	size_t n = 0, runs = 0;

	if (keys_action(key) != ACTION_YES) {
		fleet_ask_clear(f);
		model_message(m, MSG_INFO, "cancelled: nothing sent");
		return;
	}
	f->sends = xcalloc(a->n_to + 1, sizeof *f->sends);
	for (size_t t = 0; t < a->n_to; t++) {
		struct fleet_send *to = &a->to[t];
		struct fleet_send *out = &f->sends[f->n_sends];
		struct model *rm;

		if (to->run >= f->n_runs || fleet_run_ended(f, to->run) ||
		    f->runs[to->run].m->disconnected)
			continue;
		rm = f->runs[to->run].m;
		*out = (struct fleet_send){ .run = to->run,
		    .verdict = a->verdict,
		    .ids = xcalloc(to->n + 1, sizeof *out->ids) };
		for (size_t k = 0; k < to->n; k++) {
			for (size_t i = 0; i < rm->n_pending; i++) {
				struct pending *p = rm->pending[i];

				if (p->id != to->ids[k] ||
				    p->sent != VERDICT_NONE)
					continue;
				p->sent = a->verdict;
				out->ids[out->n++] = p->id;
			}
		}
		n += out->n;
		if (out->n > 0) {
			runs++;
			f->n_sends++;
		} else
			free(out->ids);
	}
	model_message(m, MSG_INFO, "%s %zu request%s in %zu run%s once each: "
	    "sent", verdict_name(a->verdict), n, n == 1 ? "" : "s", runs,
	    runs == 1 ? "" : "s");
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

static bool
fleet_key(struct fleet *f, struct model *m, int key)
{
	enum action a = keys_action(key);
	long far = 1L << 30;

	if (a == ACTION_RUN_PREV) {
		fleet_select_run(f, f->sel > 0 ? f->sel - 1 : f->n_runs - 1);
	} else if (a == ACTION_RUN_NEXT) {
		fleet_select_run(f, f->sel + 1 < f->n_runs ? f->sel + 1 : 0);
	} else if (a == ACTION_RUN_PICK) {
		if (key >= '1' && key <= '9' &&
		    (size_t)(key - '1') < f->n_runs)
			fleet_select_run(f, (size_t)(key - '1'));
		else
			model_message(m, MSG_INFO, "no run %c", key);
	} else if (a == ACTION_RUN_DISMISS ||
	    (a == ACTION_DENY_ALL && fleet_run_ended(f, f->sel))) {
		/* X: on an ended run, drop it; on a live one, the model's
		 * "deny every pending request" (asks). */
		if (fleet_run_ended(f, f->sel))
			f->runs[f->sel].dismissed = true;
		else
			model_message(m, MSG_INFO, "X dismisses a run that "
			    "has ended; this one runs");
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
	    a == ACTION_RUN_PICK || a == ACTION_RUN_DISMISS;
}

/* The agent pane is shown, nothing over it, the keys on its requests. */
static bool
fleet_agent_strip(const struct model *m)
{
	return m->agent && m->focus != PANE_AGENT && !m->help &&
	    !m->diff.open && !m->detail && !m->confirm_kill && !m->pasting;
}

void
fleet_apply_key(struct fleet *f, int key, struct model_effect *eff,
    size_t *run, bool *focus_moved)
{
	struct model *m = fleet_model(f);

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
	/* A group answer's question owns the keyboard: y or a no. */
	if (f->ask.open) {
		fleet_ask_key(f, m, key);
		m->last_key_ms = m->now_mono;
		m->keyed = true;
		return;
	}
	/* What the run shows over the screen, a question it asked, a
	 * paste: the run's own keys, as in a console of one run. Only
	 * with the agent pane shown and the keys on its requests do the
	 * run keys still move between runs (else a full-screen agent
	 * would hold the console on its run). */
	if (fleet_agent_strip(m) && fleet_run_action(keys_action(key)))
		(void)fleet_key(f, m, key);
	else if (!fleet_overlay(f) && !m->confirm_kill && !m->pasting &&
	    fleet_group_key(f, m, key)) {
		/* the quiet period counts this key too (model_armed) */
		m->last_key_ms = m->now_mono;
		m->keyed = true;
	} else if (fleet_overlay(f) || m->confirm_kill || m->pasting ||
	    key == KEYS_PASTE_START || !fleet_key(f, m, key))
		model_apply_key(m, key, eff, focus_moved);
	if (m->quit) {
		m->quit = false;
		f->quit = true;
	}
}

void
fleet_note_view(struct fleet *f)
{
	for (size_t i = 0; i < f->n_runs; i++)
		model_note_view(f->runs[i].m, &f->reps[i]);
}
