/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The pending queue: requests waiting on a person, oldest first, each with
 * a deadline. Opaque: the invariant (ids unique, order by creation) lives
 * here. Each entry carries an owner pointer for the supervisor's own state
 * (the parked notification), freed with the entry by free_data.
 *
 * Deadlines run on the queue's own clock, monotonic: a request's
 * created_ms and deadline_ms are wall time, for the people who read them;
 * the queue counts the wait between them (deadline_ms - created_ms) from
 * the moment of queue_add(), so that a step of the host's clock moves no
 * timeout.
 */
#include <stddef.h>
#include <stdint.h>

#include "approvals/request.h"

struct queue;

/* The queue's clock, in ms: now_mono_ms() (clock NULL), or a test's. */
typedef int64_t queue_clock_fn(void);

struct queue	*queue_new(void (*free_data)(void *), queue_clock_fn *clock);
void		 queue_free(struct queue *);

/* Takes r (and data). r->id must be unique; -EEXIST otherwise, and then
 * the caller keeps both. An r with a deadline_ms (!= 0) falls due its wait
 * (deadline_ms - created_ms, at least 0) after now on the queue's clock. */
int		 queue_add(struct queue *, struct request *r, void *data);
size_t		 queue_len(const struct queue *);
/* The i-th oldest (0-based), or NULL. */
const struct request *queue_at(const struct queue *, size_t i);
const struct request *queue_find(const struct queue *, uint64_t id);
void		*queue_data(const struct queue *, uint64_t id);
/* Removes and returns the request (caller frees), *data gets the data
 * (data may be NULL). NULL, and *data NULL, if there is no such id. */
struct request	*queue_take(struct queue *, uint64_t id, void **data);
/* The earliest due time (the queue's clock, ms) among entries that have
 * a deadline, or 0. */
int64_t		 queue_next_deadline(const struct queue *);
/* The id of the entry due first by now_ms (the oldest of those due at the
 * same time), or 0: it stays queued, for whoever answers it to take. An
 * entry without a deadline never falls due. */
uint64_t	 queue_expired(const struct queue *, int64_t now_ms);
/* queue_expired(), taken: removes and returns that entry, *data gets its
 * data; NULL (and *data NULL) when nothing is due. */
struct request	*queue_take_expired(struct queue *, int64_t now_ms, void **data);
