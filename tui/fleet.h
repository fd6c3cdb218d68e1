/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Every run in one console (issue 15): `ward console` without RUN. A layer
 * above the per-run model: each run keeps its own struct model
 * (tui/model.h: its output, its pending requests, its arming, fed by its
 * own connection's messages), and the fleet adds the runs pane's
 * selection and one pending queue across runs (queue[], oldest first),
 * read as lines (issue 31) by the one-run console's grouping
 * (tui/group.h's group_rows_alike): the sensitive first, each critical
 * request a line of its own; one run's flood one line; the same request
 * asked in many runs one line ("[job01 +19 runs] #3 +19 ... (20
 * alike)"); then oldest first. a or d on a line of more than one
 * asks first, naming how many requests in how many runs and what they
 * amount to; y answers each of them in its own run (fleet_send).
 *
 * No I/O here (as in model.c): the console (tui/console.c) dials each
 * run, keeps its connection at the same index as runs[], feeds that
 * run's model, and sends an effect to the run fleet_apply_key() names.
 *
 * Order: runs[] stays in the connections' order (an index is a run's
 * place in both); the runs pane lists them by order[]: start time, then
 * name (the id for a run with none), then id, then host. 1-9 pick and
 * [ ] move in that displayed order. A run whose welcome has not come
 * yet (no start time) is listed last.
 *
 * Selection: the selected run is runs[sel]; the selected request is that
 * run's own m->sel, so arming, the detail view and `a`/`d` are the
 * per-run model's, unchanged; a line stands for its oldest request.
 * Moving in the queue (by lines) across a run boundary selects the other
 * run. When the selected request goes (answered, expired), the line that
 * takes its place is selected and armed afresh: the person did not
 * choose it. A new request never moves the selection, even one that
 * lands above it; only while the console opens (before any key, until
 * every run has said its welcome and the queue has been still for half
 * a second, 5 s at most) is the first line selected.
 *
 * Prompts (tui/model.h's model_prompt: r's reason, A D W X's y/n, K, the
 * leave question, `/`, a paste): while the selected run has one open,
 * fleet_apply_key hands it every key, none is the fleet's, and the
 * selection stays in that run; the prompt is drawn as in a console of
 * one run (tui/view.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tui/group.h"
#include "tui/model.h"
#include "tui/view-report.h"

struct fleet_run {
	struct model	*m;
	char		*key;		/* the id it is listed and dialled by */
	char		*host;		/* the host it runs on (ward console
					 * --host), NULL for this machine */
	bool		 gone;		/* its supervisor went away */
	bool		 host_gone;	/* the link to its host broke: shown
					 * "host gone" until it is back */
	bool		 dismissed;	/* x on it once it ended (or C on
					 * every ended run): the console
					 * drops it (fleet_remove) */
};

/* A row of the queue: a pending request and its run. */
struct fleet_row {
	size_t		 run;
	const struct pending *p;
};

/* A line of the queue: group_rows_alike's row over queue[] (g.idx are
 * queue indexes, oldest first), and how many runs its requests are of. */
struct fleet_line {
	struct group_row g;
	size_t		 n_runs;
	bool		 same;		/* every request the same subject */
};

/* Answers a group answer sends (the console sends each on its run's
 * connection: decide(id, verdict, once) for each id). */
struct fleet_send {
	size_t		 run;
	uint64_t	*ids;		/* owned */
	size_t		 n;
	enum verdict	 verdict;
};

/* a or d on a line of more than one: asked first (y sends). */
struct fleet_ask {
	bool		 open;
	enum verdict	 verdict;
	struct fleet_send *to;		/* per run, the ids asked about */
	size_t		 n_to;
	size_t		 n_requests;
	char		*what;		/* what they amount to, escaped */
};

/* Another host the console reaches (ward console --host). */
struct fleet_host {
	char		*name;
	bool		 up;		/* its relay answered on this link */
};

struct fleet {
	struct fleet_run *runs;
	size_t		 n_runs;
	size_t		*order;		/* runs[] indices as listed (fleet_order) */
	struct fleet_host *hosts;	/* in the order they were named */
	size_t		 n_hosts;
	/* What the last frame drew of each run (runs[i]'s at reps[i]): the
	 * views fill them (tui/view.h's view_fleet_draw), fleet_note_view
	 * hands each to its model. */
	struct view_report *reps;
	size_t		 sel;		/* the selected run */
	uint64_t	 sel_id;	/* its request selected at the last refresh */
	size_t		 sel_pos;	/* and that request's place in the queue */
	bool		 picked;	/* the person chose the run ([ ] 1-9) */
	bool		 keyed;		/* a key has come */
	bool		 opening;	/* not every run has said its welcome
					 * yet: the first line is selected */
	int64_t		 open_until;	/* mono ms: opening ends by then */
	bool		 quit;
	size_t		 confirm_clear;	/* "dismiss N ended runs? y/n" asked
					 * (C): N, 0 when not asked */

	/* Built by fleet_refresh(): every run's pending, oldest first. */
	struct fleet_row *queue;
	size_t		 n_queue, cap_queue;
	size_t		 n_pending;	/* not yet answered */
	/* and the lines the person reads, in their order */
	struct fleet_line *lines;
	size_t		 n_lines;
	size_t		*line_of;	/* queue row -> its line */
	uint64_t	 lines_sig;	/* the queue they were built from */
	int64_t		 changed_at;	/* mono ms: when the queue last changed */
	size_t		 sel_line;	/* the selected line at the last refresh */
	/* Who takes the selection's place if its request goes: another of
	 * its line, then the line after it (or before, if last). */
	size_t		 heir_run[2];
	uint64_t	 heir_id[2];

	struct fleet_ask ask;
	/* What the last key answered, run by run: the console sends each
	 * and calls fleet_sends_done(). */
	struct fleet_send *sends;
	size_t		 n_sends;
	/* A group's allow (its y) waits out MODEL_TRAIL_MS with no key, as
	 * a run's own allow does (tui/model.h: arming); fleet_tick() moves
	 * it to sends, any key drops it. */
	struct fleet_send *held;
	size_t		 n_held;
	int64_t		 held_due;	/* mono ms; 0 when nothing is held */
};

struct fleet	*fleet_new(void);
void		 fleet_free(struct fleet *);

/* Adds run key (its model fresh); its index. */
size_t		 fleet_add(struct fleet *, const char *key);
/* Adds run key of host (NULL: this machine); its index. */
size_t		 fleet_add_on(struct fleet *, const char *host,
		    const char *key);
/* Index of run key on this machine, or -1. */
ssize_t		 fleet_find(const struct fleet *, const char *key);
/* Index of run key of host (NULL: this machine), or -1: the same id on
 * two hosts is two runs. */
ssize_t		 fleet_find_on(const struct fleet *, const char *host,
		    const char *key);
/* Sorts order[] again (start times come with the welcomes): add, remove,
 * reset and refresh call it. */
void		 fleet_order(struct fleet *);
/* The place of run i in the runs pane (0 = first), and the run at place
 * pos (n_runs when none). */
size_t		 fleet_run_pos(const struct fleet *, size_t i);
size_t		 fleet_run_at(const struct fleet *, size_t pos);
/* The run's name as the console names it in a status line: its name,
 * else its id ("" escaped strings; never NULL). */
const char	*fleet_run_name(const struct fleet *, size_t i);
/* Whether any run is of another host (the rows then name theirs). */
bool		 fleet_any_host(const struct fleet *);
/* Names host (once, at its first answer or failure) and whether its
 * link is up now: the runs pane's
 * title lists the hosts that are not, so a host with no run yet is seen
 * to be unreachable too. */
void		 fleet_host_set(struct fleet *, const char *host, bool up);
/* The hosts not up, ", "-separated, or NULL when every host is. */
char		*fleet_hosts_down(const struct fleet *);
/* The link to host broke (gone) or is back: every run of host is marked
 * so (a run of a gone host counts as ended for x and q, and nothing is
 * sent to it, but C does not dismiss it); the number of runs marked. */
size_t		 fleet_host_gone(struct fleet *, const char *host, bool gone);
/* Removes run i (the console removes its connection at i too). */
void		 fleet_remove(struct fleet *, size_t i);
/* A fresh model for run i (its supervisor came back: the welcome will
 * say everything again). */
void		 fleet_reset(struct fleet *, size_t i);

void		 fleet_set_now(struct fleet *, int64_t mono_ms, int64_t wall_ms);

/* After messages: the queue again, the selection kept or moved on. */
void		 fleet_refresh(struct fleet *);

/* The selected run's model, or NULL when there is no run. */
struct model	*fleet_model(const struct fleet *);
/* Whether the selected run shows something of its own over the whole
 * screen (help, the whole request, the diff, the agent pane). */
bool		 fleet_overlay(const struct fleet *);
/* Place of the selected request in the queue, or -1. */
ssize_t		 fleet_queue_sel(const struct fleet *);
/* The line that holds the selected request, or -1. */
ssize_t		 fleet_line_sel(const struct fleet *);
/* The question of an open group answer (malloc'd), or NULL. */
char		*fleet_ask_text(const struct fleet *);
/* The console sent f->sends: forgets them. */
void		 fleet_sends_done(struct fleet *);
/* The oldest unanswered request's age in run i (ms), 0 when none. */
int64_t		 fleet_oldest_wait(const struct fleet *, size_t i);
/* Unanswered requests of run i. */
size_t		 fleet_run_pending(const struct fleet *, size_t i);
bool		 fleet_run_ended(const struct fleet *, size_t i);
/* Runs ended for good (not those whose host is gone: they may come
 * back), and those whose host is gone: the runs pane counts them apart,
 * and C dismisses only the first. */
size_t		 fleet_n_ended(const struct fleet *);
size_t		 fleet_n_host_gone(const struct fleet *);

/*
 * One key, with its arrival (at, burst: model_apply_key_at()). *run is
 * the run the effect is for (the console sends it on that run's
 * connection); *focus_moved as model_apply_key(). A group answer's
 * decides are in f->sends instead, one per run. Every run's model
 * hears that a key arrived (model_note_key): a held approve anywhere is
 * dropped.
 */
void		 fleet_apply_key(struct fleet *, int key, int64_t at,
		    bool burst, struct model_effect *eff, size_t *run,
		    bool *focus_moved);
/* A key arrived that no model was given (typeahead thrown away). */
void		 fleet_note_key(struct fleet *, int key, int64_t at);
/* model_tick() of each run: true when *eff is for run *run. A group's
 * allow whose silence is over moves from held to sends (the console
 * sends them, then fleet_sends_done). */
bool		 fleet_tick(struct fleet *, struct model_effect *eff,
		    size_t *run);
/* The earliest model_due() of the runs or the group allow held, or 0. */
int64_t		 fleet_due(const struct fleet *);

/* After each frame: each run's model hears what was drawn of it. */
void		 fleet_note_view(struct fleet *);
