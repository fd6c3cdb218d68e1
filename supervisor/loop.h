/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The supervisor's loop, as a table. Each round every source puts in the
 * fds it wants polled (one loop_add() each, or one loop_add_set() for a
 * module with a poll contract of its own, as dns.h's) and the deadline it
 * must meet (one loop_due() each); one poll() waits for the first of them;
 * the callbacks then run in the order they were added. The table is
 * built afresh every round, so a source that is gone is simply not added.
 *
 * Deadlines are monotonic ms (now_mono_ms()): a step of the host's clock
 * moves none of them. Wall time is only for what a person reads.
 */
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct loop;
struct sup;

/* An fd was ready: revents as poll() gave them (never 0). */
typedef void loop_fd_fn(void *arg, int fd, short revents);
/* A module's own slice: fill puts in at most max pollfds and says how
 * many; ready gets the same slice back after a poll that found one of
 * them ready (the same slice again while the table is kept: loop_wait). */
typedef size_t loop_fill_fn(void *arg, struct pollfd *, size_t max);
typedef void loop_ready_fn(void *arg, const struct pollfd *, size_t n);

/* A table of at most max pollfds a round. */
struct loop	*loop_new(size_t max);
void		 loop_free(struct loop *);

/* Watch fd this round (fd < 0: ignored). Past the table's size it is
 * dropped, which cannot happen with the sizes the run computes. */
void	loop_add(struct loop *, int fd, short events, loop_fd_fn *, void *arg);
void	loop_add_set(struct loop *, size_t max, loop_fill_fn *,
	    loop_ready_fn *, void *arg);
/* A deadline to meet this round, monotonic ms; 0 = none. */
void	loop_due(struct loop *, int64_t due);
/* The earliest of this round's deadlines, or 0. */
int64_t	loop_deadline(const struct loop *);
/* The poll() timeout to meet deadline due from now: -1 only when there
 * is none (due 0), 0 when it has passed, else the wait, clamped to
 * INT_MAX ms (about 24 days; the next round waits the rest). */
int	loop_timeout(int64_t due, int64_t now);

/* One round: poll the table with the timeout of its earliest deadline
 * (now is the clock's reading), run the callbacks, empty the table for
 * the next round. 0, or -errno of poll() (EINTR is 0: nothing ran). */
int	loop_poll(struct loop *, int64_t now);
/* The same, but the table stays as it was, for another loop_wait()
 * (until loop_clear): how many of its entries were ready (a set counts
 * once), or -errno of poll() (EINTR: 0). For a caller that knows none of
 * its sources changed in the callbacks that ran. */
int	loop_wait(struct loop *, int64_t now);
void	loop_clear(struct loop *);

/*
 * The run's loop: from the program's start until it has ended and its
 * output is drained. Every fd and every deadline of the run is put in
 * the table by one line of loop.c's run_gather(); what is not an fd's
 * (ticks, expiry, the run's limit, the end, the record's flush) runs
 * after each round. A round in which only a trapped call came and the
 * hot path answered it quietly (sup_continue_quiet) changed none of
 * that: the same table is polled again (loop_wait), as a rule until the
 * next call. 0, or -errno if poll() fails.
 */
int	loop_run(struct sup *);
/*
 * When a run gives back what it no longer needs (the record's cache,
 * malloc's free pages, the pages of the calls it judged): start-up's
 * leftovers at first_ms after its start whatever the run does, then each
 * time it was busy (a round with more than the hot path's quiet calls)
 * and then idle for idle_ms. at is the deadline (0: none due), for the
 * loop's table; loop_shed_due says whether to shed now, after a round
 * that was busy or not, at now (monotonic ms).
 */
struct loop_shed {
	int64_t	 at;
	int64_t	 busy_at;	/* the last busy round */
	int64_t	 idle_ms;
	bool	 once;		/* start-up's is done */
};
void	loop_shed_start(struct loop_shed *, int64_t now, int64_t first_ms,
	    int64_t idle_ms);
bool	loop_shed_due(struct loop_shed *, bool busy, int64_t now);
/* The run's own deadlines (pending connects, the DNS stub, the queue's
 * earliest request, the run's wall-clock limit) put in l; part of
 * loop_run's rounds, apart for tests. */
void	loop_run_deadlines(struct loop *, const struct sup *);
