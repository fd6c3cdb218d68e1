#pragma once
/*
 * The pending queue: requests waiting on a person, oldest first, each with
 * a deadline. Opaque: the invariant (ids unique, order by creation) lives
 * here. Each entry carries an owner pointer for the supervisor's own state
 * (the parked notification), freed with the entry by free_data.
 */
#include <stddef.h>
#include <stdint.h>

#include "approvals/request.h"

struct queue;

struct queue	*queue_new(void (*free_data)(void *));
void		 queue_free(struct queue *);

/* Takes r (and data). r->id must be unique; -EEXIST otherwise, and then
 * the caller keeps both. */
int		 queue_add(struct queue *, struct request *r, void *data);
size_t		 queue_len(const struct queue *);
/* The i-th oldest (0-based), or NULL. */
const struct request *queue_at(const struct queue *, size_t i);
const struct request *queue_find(const struct queue *, uint64_t id);
void		*queue_data(const struct queue *, uint64_t id);
/* Removes and returns the request (caller frees), *data gets the data
 * (data may be NULL). NULL, and *data NULL, if there is no such id. */
struct request	*queue_take(struct queue *, uint64_t id, void **data);
/* The earliest deadline (wall ms) among entries that have one (!= 0), or 0. */
int64_t		 queue_next_deadline(const struct queue *);
/* Removes and returns the entry with the earliest deadline <= now_ms (the
 * oldest of those with equal deadlines), or NULL. Deadline 0 never expires.
 * Call until NULL to expire everything due. */
struct request	*queue_take_expired(struct queue *, int64_t now_ms, void **data);
