/* SPDX-License-Identifier: MIT */
/* approvals/queue.c: order, take, deadlines and ownership. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approvals/queue.h"
#include "config/util.h"

/* The queue's clock, moved by the tests; 0 unless a test moves it. */
static int64_t test_now;

static int64_t
test_clock(void)
{
	return test_now;
}

/* The supervisor's per-entry state, counted so that frees can be checked. */
struct parked {
	uint64_t	 id;
	int		*freed;
};

static void
parked_free(void *p)
{
	struct parked *pk = p;

	(*pk->freed)++;
	free(pk);
}

static struct request *
req(uint64_t id, int64_t deadline_ms)
{
	struct request *r = request_new();

	r->id = id;
	r->run = xstrdup("run-1");
	r->kind = KIND_WRITE;
	r->subject = xasprintf("/etc/file-%llu", (unsigned long long)id);
	r->deadline_ms = deadline_ms;
	return r;
}

static struct parked *
parked(uint64_t id, int *freed)
{
	struct parked *pk = xmalloc(sizeof *pk);

	pk->id = id;
	pk->freed = freed;
	return pk;
}

static int
setup(void **state)
{
	static int freed;

	freed = 0;
	*state = &freed;
	return 0;
}

static void
test_empty(void **state)
{
	struct queue *q = queue_new(NULL, test_clock);
	void *data = (void *)1;

	(void)state;
	assert_int_equal(queue_len(q), 0);
	assert_null(queue_at(q, 0));
	assert_null(queue_find(q, 1));
	assert_null(queue_data(q, 1));
	assert_null(queue_take(q, 1, &data));
	assert_null(data);
	assert_int_equal(queue_next_deadline(q), 0);
	data = (void *)1;
	assert_null(queue_take_expired(q, INT64_MAX, &data));
	assert_null(data);
	queue_free(q);
	queue_free(NULL);
}

static void
test_order_and_find(void **state)
{
	int *freed = *state;
	struct queue *q = queue_new(parked_free, test_clock);
	struct parked *pk;

	/* ids need not come in order: insertion order is what counts */
	assert_int_equal(queue_add(q, req(5, 0), parked(5, freed)), 0);
	assert_int_equal(queue_add(q, req(2, 0), parked(2, freed)), 0);
	assert_int_equal(queue_add(q, req(9, 0), parked(9, freed)), 0);
	assert_int_equal(queue_len(q), 3);
	assert_int_equal(queue_at(q, 0)->id, 5);
	assert_int_equal(queue_at(q, 1)->id, 2);
	assert_int_equal(queue_at(q, 2)->id, 9);
	assert_null(queue_at(q, 3));
	assert_string_equal(queue_find(q, 9)->subject, "/etc/file-9");
	assert_null(queue_find(q, 7));
	pk = queue_data(q, 2);
	assert_non_null(pk);
	assert_int_equal(pk->id, 2);
	assert_null(queue_data(q, 7));
	queue_free(q);
	assert_int_equal(*freed, 3);
}

static void
test_duplicate(void **state)
{
	int *freed = *state;
	struct queue *q = queue_new(parked_free, test_clock);
	struct request *dup = req(1, 0);
	struct parked *dup_data = parked(1, freed);
	void *data = NULL;

	assert_int_equal(queue_add(q, req(1, 0), parked(1, freed)), 0);
	assert_int_equal(queue_add(q, dup, dup_data), -EEXIST);
	assert_int_equal(queue_len(q), 1);
	/* refused: the caller still owns both */
	assert_int_equal(*freed, 0);
	request_free(dup);
	parked_free(dup_data);
	assert_int_equal(*freed, 1);
	/* once taken, the id may come back */
	request_free(queue_take(q, 1, &data));
	assert_int_equal(*freed, 1);	/* take hands the data out, not frees */
	parked_free(data);
	assert_int_equal(queue_add(q, req(1, 0), NULL), 0);
	queue_free(q);
	/* a NULL data is not passed to free_data */
	assert_int_equal(*freed, 2);
}

static void
test_take(void **state)
{
	int *freed = *state;
	struct queue *q = queue_new(parked_free, test_clock);
	struct request *r;
	void *data = NULL;

	for (uint64_t id = 1; id <= 5; id++)
		assert_int_equal(queue_add(q, req(id, 0), parked(id, freed)), 0);
	r = queue_take(q, 3, &data);
	assert_non_null(r);
	assert_int_equal(r->id, 3);
	assert_int_equal(((struct parked *)data)->id, 3);
	request_free(r);
	parked_free(data);
	assert_int_equal(queue_len(q), 4);
	assert_int_equal(queue_at(q, 0)->id, 1);
	assert_int_equal(queue_at(q, 1)->id, 2);
	assert_int_equal(queue_at(q, 2)->id, 4);
	assert_int_equal(queue_at(q, 3)->id, 5);
	assert_null(queue_take(q, 3, &data));
	assert_null(data);

	/* first and last */
	r = queue_take(q, 1, &data);
	request_free(r);
	parked_free(data);
	r = queue_take(q, 5, &data);
	request_free(r);
	parked_free(data);
	assert_int_equal(queue_len(q), 2);
	assert_int_equal(queue_at(q, 0)->id, 2);
	assert_int_equal(queue_at(q, 1)->id, 4);
	assert_int_equal(*freed, 3);

	/* taking without wanting the data leaves it to the caller's other
	 * reference; here we free it by hand */
	data = queue_data(q, 4);
	request_free(queue_take(q, 4, NULL));
	parked_free(data);
	assert_int_equal(*freed, 4);

	queue_free(q);
	assert_int_equal(*freed, 5);
}

static void
test_next_deadline(void **state)
{
	struct queue *q = queue_new(NULL, test_clock);
	void *data;

	(void)state;
	assert_int_equal(queue_add(q, req(1, 0), NULL), 0);
	assert_int_equal(queue_next_deadline(q), 0);
	assert_int_equal(queue_add(q, req(2, 3000), NULL), 0);
	assert_int_equal(queue_add(q, req(3, 1000), NULL), 0);
	assert_int_equal(queue_add(q, req(4, 2000), NULL), 0);
	assert_int_equal(queue_next_deadline(q), 1000);
	request_free(queue_take(q, 3, &data));
	assert_int_equal(queue_next_deadline(q), 2000);
	request_free(queue_take(q, 4, &data));
	request_free(queue_take(q, 2, &data));
	assert_int_equal(queue_next_deadline(q), 0);
	queue_free(q);
}

static void
test_take_expired(void **state)
{
	int *freed = *state;
	struct queue *q = queue_new(parked_free, test_clock);
	struct request *r;
	void *data;
	/* id, deadline; added in this order */
	static const int64_t add[][2] = {
		{ 1, 0 },	/* never expires */
		{ 2, 5000 },
		{ 3, 3000 },
		{ 4, 5000 },	/* same deadline as 2, newer */
		{ 5, 1000 },
		{ 6, 9000 },
		{ 7, 3000 },	/* same deadline as 3, newer */
	};
	/* expected order of expiry at now = 5000 */
	static const uint64_t want[] = { 5, 3, 7, 2, 4 };

	for (size_t i = 0; i < ARRAY_SIZE(add); i++)
		assert_int_equal(queue_add(q, req((uint64_t)add[i][0], add[i][1]),
		    parked((uint64_t)add[i][0], freed)), 0);

	assert_null(queue_take_expired(q, 999, &data));
	assert_null(data);
	assert_int_equal(queue_len(q), 7);

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		r = queue_take_expired(q, 5000, &data);
		assert_non_null(r);
		assert_int_equal(r->id, want[i]);
		assert_int_equal(((struct parked *)data)->id, want[i]);
		request_free(r);
		parked_free(data);
	}
	assert_null(queue_take_expired(q, 5000, &data));
	assert_int_equal(queue_len(q), 2);
	assert_int_equal(queue_next_deadline(q), 9000);
	/* deadline 0 never expires */
	r = queue_take_expired(q, INT64_MAX, &data);
	assert_int_equal(r->id, 6);
	request_free(r);
	parked_free(data);
	assert_null(queue_take_expired(q, INT64_MAX, &data));
	assert_int_equal(queue_len(q), 1);
	assert_int_equal(queue_at(q, 0)->id, 1);
	assert_int_equal(*freed, 6);
	queue_free(q);
	assert_int_equal(*freed, 7);
}

static void
test_many(void **state)
{
	int *freed = *state;
	struct queue *q = queue_new(parked_free, test_clock);

	for (uint64_t id = 1; id <= 200; id++)
		assert_int_equal(queue_add(q, req(id, (int64_t)(1000 - id)),
		    parked(id, freed)), 0);
	assert_int_equal(queue_len(q), 200);
	assert_int_equal(queue_next_deadline(q), 800);
	for (uint64_t id = 2; id <= 200; id += 2) {
		void *data = NULL;

		request_free(queue_take(q, id, &data));
		parked_free(data);
	}
	assert_int_equal(queue_len(q), 100);
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(queue_at(q, i)->id, 2 * i + 1);
	queue_free(q);
	assert_int_equal(*freed, 200);
}

/* A request made at wall time `wall` that may wait `wait` ms. */
static struct request *
req_at(uint64_t id, int64_t wall, int64_t wait)
{
	struct request *r = req(id, 0);

	r->created_ms = wall;
	r->deadline_ms = wall + wait;
	return r;
}

#define HOUR_MS	(3600 * (int64_t)1000)

static void
test_due_on_the_queue_clock(void **state)
{
	struct queue *q = queue_new(NULL, test_clock);
	void *data = NULL;

	(void)state;
	test_now = 10000;
	/* Wall times of 2025; the queue counts only the wait between them. */
	assert_int_equal(queue_add(q, req_at(1, 1735689600123, 5000), NULL), 0);
	assert_int_equal(queue_next_deadline(q), 15000);
	assert_int_equal(queue_expired(q, 14999), 0);
	assert_int_equal(queue_expired(q, 15000), 1);
	/* expired is a look, not a take: whoever answers takes it */
	assert_int_equal(queue_len(q), 1);
	assert_int_equal(queue_expired(q, 15000), 1);
	request_free(queue_take(q, 1, &data));
	assert_int_equal(queue_expired(q, INT64_MAX), 0);
	assert_int_equal(queue_next_deadline(q), 0);
	queue_free(q);
	test_now = 0;
}

static void
test_wall_step_moves_nothing(void **state)
{
	struct queue *q = queue_new(NULL, test_clock);

	(void)state;
	test_now = 1000;
	assert_int_equal(queue_add(q, req_at(1, 1735689600000, 3000), NULL), 0);
	/* The host's clock steps back a day before the next request: its
	 * wall times are earlier, its due time is still later. */
	test_now = 2000;
	assert_int_equal(queue_add(q, req_at(2, 1735689600000 - 24 * HOUR_MS,
	    3000), NULL), 0);
	/* and forward a year: the due time is the same wait from now */
	test_now = 2500;
	assert_int_equal(queue_add(q, req_at(3, 1735689600000 + 8760 * HOUR_MS,
	    3000), NULL), 0);
	assert_int_equal(queue_next_deadline(q), 4000);
	assert_int_equal(queue_expired(q, 3999), 0);
	assert_int_equal(queue_expired(q, 4000), 1);
	request_free(queue_take(q, 1, NULL));
	assert_int_equal(queue_next_deadline(q), 5000);
	assert_int_equal(queue_expired(q, 5499), 2);
	request_free(queue_take(q, 2, NULL));
	assert_int_equal(queue_expired(q, 5499), 0);
	assert_int_equal(queue_expired(q, 5500), 3);
	queue_free(q);
	test_now = 0;
}

static void
test_long_waits(void **state)
{
	struct queue *q = queue_new(NULL, test_clock);

	(void)state;
	test_now = 50000;
	/* 720 h and 800 h: past 2^31 ms (about 596 h), no wrap. */
	assert_int_equal(queue_add(q, req_at(1, 1735689600000, 800 * HOUR_MS),
	    NULL), 0);
	assert_int_equal(queue_next_deadline(q), 50000 + 800 * HOUR_MS);
	assert_int_equal(queue_add(q, req_at(2, 1735689600000, 720 * HOUR_MS),
	    NULL), 0);
	assert_int_equal(queue_next_deadline(q), 50000 + 720 * HOUR_MS);
	assert_int_equal(queue_expired(q, 50000 + 720 * HOUR_MS - 1), 0);
	assert_int_equal(queue_expired(q, 50000 + 720 * HOUR_MS), 2);
	request_free(queue_take(q, 2, NULL));
	/* A wait to the end of time saturates; it never falls due early. */
	assert_int_equal(queue_add(q, req_at(3, 0, INT64_MAX), NULL), 0);
	assert_int_equal(queue_next_deadline(q), 50000 + 800 * HOUR_MS);
	request_free(queue_take(q, 1, NULL));
	assert_int_equal(queue_next_deadline(q), INT64_MAX);
	assert_int_equal(queue_expired(q, INT64_MAX - 1), 0);
	assert_int_equal(queue_expired(q, INT64_MAX), 3);
	/* A deadline before its creation falls due at once, not never. */
	assert_int_equal(queue_add(q, req_at(4, 1735689600000, -5000), NULL), 0);
	assert_int_equal(queue_expired(q, 50000), 4);
	queue_free(q);
	test_now = 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test_setup(test_order_and_find, setup),
		cmocka_unit_test_setup(test_duplicate, setup),
		cmocka_unit_test_setup(test_take, setup),
		cmocka_unit_test(test_next_deadline),
		cmocka_unit_test_setup(test_take_expired, setup),
		cmocka_unit_test_setup(test_many, setup),
		cmocka_unit_test(test_due_on_the_queue_clock),
		cmocka_unit_test(test_wall_step_moves_nothing),
		cmocka_unit_test(test_long_waits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
