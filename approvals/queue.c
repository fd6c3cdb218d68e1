/* SPDX-License-Identifier: MIT */
#include "approvals/queue.h"

#include <errno.h>
#include <string.h>

#include "config/util.h"

/*
 * A plain array in insertion order: a run has tens of pending requests at
 * most, and oldest-first is then simply index order.
 */
struct queue_entry {
	struct request	*r;
	void		*data;
	int64_t		 due;	/* the queue's clock, >= 1; 0 = none */
};

struct queue {
	struct queue_entry *v;
	size_t		 n;
	size_t		 cap;
	void		(*free_data)(void *);
	queue_clock_fn	*clock;
};

struct queue *
queue_new(void (*free_data)(void *), queue_clock_fn *clock)
{
	struct queue *q = xcalloc(1, sizeof *q);

	q->free_data = free_data;
	q->clock = clock != NULL ? clock : now_mono_ms;
	return q;
}

void
queue_free(struct queue *q)
{
	if (q == NULL)
		return;
	for (size_t i = 0; i < q->n; i++) {
		if (q->free_data != NULL && q->v[i].data != NULL)
			q->free_data(q->v[i].data);
		request_free(q->v[i].r);
	}
	free(q->v);
	free(q);
}

static ssize_t
queue_index(const struct queue *q, uint64_t id)
{
	for (size_t i = 0; i < q->n; i++) {
		if (q->v[i].r->id == id)
			return (ssize_t)i;
	}
	return -1;
}

int
queue_add(struct queue *q, struct request *r, void *data)
{
	if (queue_index(q, r->id) >= 0)
		return -EEXIST;
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 16;
		q->v = xreallocarray(q->v, q->cap, sizeof *q->v);
	}
	q->v[q->n].r = r;
	q->v[q->n].data = data;
	q->v[q->n].due = 0;
	if (r->deadline_ms != 0) {
		int64_t now = q->clock(), wait = r->deadline_ms - r->created_ms;
		int64_t due;

		/* Saturating: a wait of years must not wrap into the past;
		 * and at least 1, as 0 means "no deadline". */
		wait = wait < 0 ? 0 : wait;
		due = wait > INT64_MAX - now ? INT64_MAX : now + wait;
		q->v[q->n].due = due < 1 ? 1 : due;
	}
	q->n++;
	return 0;
}

size_t
queue_len(const struct queue *q)
{
	return q->n;
}

const struct request *
queue_at(const struct queue *q, size_t i)
{
	return i < q->n ? q->v[i].r : NULL;
}

const struct request *
queue_find(const struct queue *q, uint64_t id)
{
	ssize_t i = queue_index(q, id);

	return i < 0 ? NULL : q->v[i].r;
}

void *
queue_data(const struct queue *q, uint64_t id)
{
	ssize_t i = queue_index(q, id);

	return i < 0 ? NULL : q->v[i].data;
}

static struct request *
queue_remove(struct queue *q, size_t i, void **data)
{
	struct request *r = q->v[i].r;

	if (data != NULL)
		*data = q->v[i].data;
	memmove(&q->v[i], &q->v[i + 1], (q->n - i - 1) * sizeof *q->v);
	q->n--;
	return r;
}

struct request *
queue_take(struct queue *q, uint64_t id, void **data)
{
	ssize_t i = queue_index(q, id);

	if (i < 0) {
		if (data != NULL)
			*data = NULL;
		return NULL;
	}
	return queue_remove(q, (size_t)i, data);
}

int64_t
queue_next_deadline(const struct queue *q)
{
	int64_t min = 0;

	for (size_t i = 0; i < q->n; i++) {
		int64_t d = q->v[i].due;

		if (d != 0 && (min == 0 || d < min))
			min = d;
	}
	return min;
}

static ssize_t
queue_due_index(const struct queue *q, int64_t now_ms)
{
	ssize_t best = -1;

	/* Strictly earlier only: of equal due times the oldest stays first. */
	for (size_t i = 0; i < q->n; i++) {
		if (q->v[i].due == 0 || q->v[i].due > now_ms)
			continue;
		if (best < 0 || q->v[i].due < q->v[best].due)
			best = (ssize_t)i;
	}
	return best;
}

uint64_t
queue_expired(const struct queue *q, int64_t now_ms)
{
	ssize_t i = queue_due_index(q, now_ms);

	return i < 0 ? 0 : q->v[i].r->id;
}

struct request *
queue_take_expired(struct queue *q, int64_t now_ms, void **data)
{
	ssize_t best = queue_due_index(q, now_ms);

	if (best < 0) {
		if (data != NULL)
			*data = NULL;
		return NULL;
	}
	return queue_remove(q, (size_t)best, data);
}
