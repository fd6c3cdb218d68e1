/* SPDX-License-Identifier: MIT */
/*
 * supervisor/loop.c: the poll timeout for any deadline (none, past, and
 * limits of 720 h and more, which once wrapped negative past 2^31 ms), the
 * earliest of several deadlines, the run's own deadlines with a queue on a
 * clock the test moves, the table's dispatch on real pipes and
 * socketpairs, and when a run gives memory back (loop_shed_due).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "approvals/queue.h"
#include "config/util.h"
#include "approvals/msg.h"
#include "approvals/proto.h"
#include "supervisor/control.h"
#include "supervisor/loop.h"
#include "supervisor/sup.h"

#define HOUR_MS	(3600 * (int64_t)1000)

/* ---- when a run gives memory back -------------------------------------- */

/* Start-up's shed comes at its time even in a busy run; later ones only
 * after a busy round followed by idle_ms of nothing, never while busy,
 * and none at all while the run stays idle. */
static void
test_shed_rule(void **state)
{
	struct loop_shed sh;

	(void)state;
	loop_shed_start(&sh, 1000, 250, 250);
	assert_int_equal(sh.at, 1250);
	assert_false(loop_shed_due(&sh, true, 1100));
	assert_true(loop_shed_due(&sh, true, 1250));	/* busy: due anyway */
	assert_int_equal(sh.at, 0);	/* what that round touched went too */
	assert_false(loop_shed_due(&sh, true, 1400));
	assert_int_equal(sh.at, 1650);
	/* Busy again before its time: not idle yet, moved on. */
	assert_false(loop_shed_due(&sh, true, 1600));
	assert_false(loop_shed_due(&sh, false, 1650));
	assert_int_equal(sh.at, 1850);
	assert_false(loop_shed_due(&sh, false, 1849));
	assert_true(loop_shed_due(&sh, false, 1850));
	assert_int_equal(sh.at, 0);
	/* Idle since: nothing more is due, whatever the time. */
	assert_false(loop_shed_due(&sh, false, 5000));
	assert_false(loop_shed_due(&sh, false, 90000));
	assert_int_equal(sh.at, 0);
	/* One busy round, then quiet: one shed, idle_ms after it. */
	assert_false(loop_shed_due(&sh, true, 100000));
	assert_int_equal(sh.at, 100250);
	assert_false(loop_shed_due(&sh, false, 100200));
	assert_true(loop_shed_due(&sh, false, 100300));
	assert_false(loop_shed_due(&sh, false, 100600));
}

/* ---- the timeout ------------------------------------------------------- */

static void
test_timeout_none_and_past(void **state)
{
	(void)state;
	assert_int_equal(loop_timeout(0, 1000), -1);
	assert_int_equal(loop_timeout(0, 0), -1);
	assert_int_equal(loop_timeout(0, INT64_MAX), -1);
	assert_int_equal(loop_timeout(999, 1000), 0);
	assert_int_equal(loop_timeout(1000, 1000), 0);
	assert_int_equal(loop_timeout(1, INT64_MAX), 0);
	assert_int_equal(loop_timeout(INT64_MIN, 5), 0);
	assert_int_equal(loop_timeout(1001, 1000), 1);
	assert_int_equal(loop_timeout(61000, 1000), 60000);
}

static void
test_timeout_long(void **state)
{
	static const int64_t now[] = { 0, 1, 123456789, (int64_t)1 << 40 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(now); i++) {
		int64_t t = now[i];

		/* Just below 2^31 ms (about 596 h): exact. */
		assert_int_equal(loop_timeout(t + INT_MAX, t), INT_MAX);
		assert_int_equal(loop_timeout(t + INT_MAX - 1, t), INT_MAX - 1);
		assert_int_equal(loop_timeout(t + 596 * HOUR_MS, t),
		    (int)(596 * HOUR_MS));
		/* Past it: clamped, positive, never -1 (forever). */
		assert_int_equal(loop_timeout(t + (int64_t)INT_MAX + 1, t),
		    INT_MAX);
		assert_int_equal(loop_timeout(t + 720 * HOUR_MS, t), INT_MAX);
		assert_int_equal(loop_timeout(t + 800 * HOUR_MS, t), INT_MAX);
		assert_int_equal(loop_timeout(t + (int64_t)UINT_MAX * 1000, t),
		    INT_MAX);
		assert_int_equal(loop_timeout(INT64_MAX, t), INT_MAX);
	}
	/* The widest difference there is does not overflow. */
	assert_int_equal(loop_timeout(INT64_MAX, INT64_MIN), INT_MAX);
	assert_int_equal(loop_timeout(INT64_MAX, INT64_MAX - 1), 1);
}

static void
test_deadline_min(void **state)
{
	struct loop *l = loop_new(4);

	(void)state;
	assert_int_equal(loop_deadline(l), 0);
	loop_due(l, 0);
	assert_int_equal(loop_deadline(l), 0);
	loop_due(l, 800 * HOUR_MS);
	loop_due(l, 0);
	loop_due(l, INT64_MAX);
	assert_int_equal(loop_deadline(l), 800 * HOUR_MS);
	loop_due(l, 720 * HOUR_MS);
	loop_due(l, 900 * HOUR_MS);
	assert_int_equal(loop_deadline(l), 720 * HOUR_MS);
	assert_int_equal(loop_timeout(loop_deadline(l), 1000), INT_MAX);
	loop_due(l, 5000);
	assert_int_equal(loop_deadline(l), 5000);
	assert_int_equal(loop_timeout(loop_deadline(l), 1000), 4000);
	/* A round empties the table, deadlines too. */
	assert_int_equal(loop_poll(l, 5000), 0);
	assert_int_equal(loop_deadline(l), 0);
	loop_free(l);
	loop_free(NULL);
}

/* ---- the run's deadlines ----------------------------------------------- */

static int64_t test_now;

static int64_t
test_clock(void)
{
	return test_now;
}

/* A struct sup with nothing of a run in it but what the test sets. */
static struct sup *
sup_blank(void)
{
	struct sup *s = xcalloc(1, sizeof *s);

	for (int i = 0; i < SUP_MAX_CONNS; i++)
		s->conns[i].hostfd = -1;
	s->queue = queue_new(NULL, test_clock);
	return s;
}

static void
sup_blank_free(struct sup *s)
{
	queue_free(s->queue);
	free(s);
}

static struct request *
asked(uint64_t id, int64_t wait_ms)
{
	struct request *r = request_new();

	r->id = id;
	r->created_ms = 1735689600000;	/* wall: nothing reads it here */
	r->deadline_ms = r->created_ms + wait_ms;
	return r;
}

static void
test_run_deadlines(void **state)
{
	struct loop *l = loop_new(4);
	struct sup *s = sup_blank();

	(void)state;
	test_now = 10 * HOUR_MS;
	/* Nothing at all: poll waits for an fd (so not polled here). */
	loop_run_deadlines(l, s);
	assert_int_equal(loop_deadline(l), 0);
	assert_int_equal(loop_timeout(loop_deadline(l), test_now), -1);

	/* --timeout 800h (or [run] timeout): no wrap, no forever. */
	s->state = RUN_RUNNING;
	s->deadline_mono = test_now + 800 * HOUR_MS;
	loop_run_deadlines(l, s);
	assert_int_equal(loop_deadline(l), test_now + 800 * HOUR_MS);
	assert_int_equal(loop_timeout(loop_deadline(l), test_now), INT_MAX);
	assert_int_equal(loop_poll(l, loop_deadline(l)), 0);
	/* Only a running run has a limit to meet. */
	s->state = RUN_EXITED;
	loop_run_deadlines(l, s);
	assert_int_equal(loop_deadline(l), 0);
	s->state = RUN_RUNNING;

	/* A request asked with an ask_timeout of 720 h comes first. */
	assert_int_equal(queue_add(s->queue, asked(1, 720 * HOUR_MS), NULL), 0);
	loop_run_deadlines(l, s);
	assert_int_equal(loop_deadline(l), test_now + 720 * HOUR_MS);
	assert_int_equal(loop_timeout(loop_deadline(l), test_now), INT_MAX);
	assert_int_equal(loop_poll(l, loop_deadline(l)), 0);

	/* One of 2 s, a little later: 2 s from when it was asked. */
	test_now += 500;
	assert_int_equal(queue_add(s->queue, asked(2, 2000), NULL), 0);
	loop_run_deadlines(l, s);
	assert_int_equal(loop_timeout(loop_deadline(l), test_now), 2000);
	assert_int_equal(loop_poll(l, loop_deadline(l)), 0);
	/* The clock moves; the same deadline is nearer, then past. */
	test_now += 1500;
	loop_run_deadlines(l, s);
	assert_int_equal(loop_timeout(loop_deadline(l), test_now), 500);
	assert_int_equal(queue_expired(s->queue, test_now), 0);
	assert_int_equal(loop_poll(l, loop_deadline(l)), 0);
	test_now += 600;
	loop_run_deadlines(l, s);
	assert_int_equal(loop_timeout(loop_deadline(l), test_now), 0);
	assert_int_equal(queue_expired(s->queue, test_now), 2);
	assert_int_equal(loop_poll(l, test_now), 0);

	sup_blank_free(s);
	loop_free(l);
}

/* ---- dispatch ------------------------------------------------------------ */

#define MAX_CALLS	16

struct calls {
	int	 n;
	int	 who[MAX_CALLS];	/* the arg's tag */
	int	 fd[MAX_CALLS];
	short	 revents[MAX_CALLS];
	size_t	 set_n[MAX_CALLS];	/* sets: slice length */
};

struct tag {
	struct calls	*calls;
	int		 who;
	int		 fds[4];	/* sets: what fill puts in */
	size_t		 n_fds;
	short		 events;
};

static void
on_fd(void *arg, int fd, short revents)
{
	struct tag *t = arg;
	struct calls *c = t->calls;

	assert_true(c->n < MAX_CALLS);
	c->who[c->n] = t->who;
	c->fd[c->n] = fd;
	c->revents[c->n] = revents;
	c->set_n[c->n] = 0;
	c->n++;
}

static size_t
set_fill(void *arg, struct pollfd *p, size_t max)
{
	struct tag *t = arg;
	size_t n = 0;

	for (; n < t->n_fds && n < max; n++)
		p[n] = (struct pollfd){ t->fds[n], t->events, 0 };
	return n;
}

static void
set_ready(void *arg, const struct pollfd *p, size_t n)
{
	struct tag *t = arg;
	struct calls *c = t->calls;

	assert_true(c->n < MAX_CALLS);
	c->who[c->n] = t->who;
	c->fd[c->n] = n > 0 ? p[0].fd : -1;
	c->revents[c->n] = 0;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p[i].fd, t->fds[i]);
		c->revents[c->n] |= p[i].revents;
	}
	c->set_n[c->n] = n;
	c->n++;
}

static void
test_dispatch_pipes(void **state)
{
	struct loop *l = loop_new(8);
	struct calls c = { 0 };
	struct tag a = { &c, 1, { 0 }, 0, 0 }, b = { &c, 2, { 0 }, 0, 0 };
	struct tag neg = { &c, 3, { 0 }, 0, 0 };
	int p1[2], p2[2];

	(void)state;
	assert_int_equal(pipe2(p1, O_CLOEXEC), 0);
	assert_int_equal(pipe2(p2, O_CLOEXEC), 0);

	/* Nothing ready, a deadline now: poll returns at once, no call. */
	loop_add(l, p1[0], POLLIN, on_fd, &a);
	loop_add(l, p2[0], POLLIN, on_fd, &b);
	loop_add(l, -1, POLLIN, on_fd, &neg);	/* ignored */
	loop_due(l, 1000);
	assert_int_equal(loop_poll(l, 1000), 0);
	assert_int_equal(c.n, 0);

	/* One ready: only its callback runs, with its fd and events. */
	assert_int_equal(write(p2[1], "x", 1), 1);
	loop_add(l, p1[0], POLLIN, on_fd, &a);
	loop_add(l, p2[0], POLLIN, on_fd, &b);
	assert_int_equal(loop_poll(l, 0), 0);	/* no deadline: waits */
	assert_int_equal(c.n, 1);
	assert_int_equal(c.who[0], 2);
	assert_int_equal(c.fd[0], p2[0]);
	assert_true(c.revents[0] & POLLIN);

	/* Both ready: in the order they were added, not by fd. */
	assert_int_equal(write(p1[1], "y", 1), 1);
	c.n = 0;
	loop_add(l, p2[0], POLLIN, on_fd, &b);
	loop_add(l, p1[0], POLLIN, on_fd, &a);
	assert_int_equal(loop_poll(l, 0), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.who[0], 2);
	assert_int_equal(c.who[1], 1);

	/* The table is emptied each round: a round with nothing added runs
	 * nothing, though both pipes are still readable. */
	c.n = 0;
	loop_due(l, 5);
	assert_int_equal(loop_poll(l, 5), 0);
	assert_int_equal(c.n, 0);

	/* The writer gone: POLLHUP reaches the callback. */
	{
		char buf[4];

		assert_int_equal(read(p1[0], buf, sizeof buf), 1);
	}
	close(p1[1]);
	loop_add(l, p1[0], POLLIN, on_fd, &a);
	assert_int_equal(loop_poll(l, 0), 0);
	assert_int_equal(c.n, 1);
	assert_true(c.revents[0] & POLLHUP);

	close(p1[0]);
	close(p2[0]);
	close(p2[1]);
	loop_free(l);
}

static void
test_dispatch_sets(void **state)
{
	struct loop *l = loop_new(6);
	struct calls c = { 0 };
	int sp[2], p[2];
	struct tag one = { &c, 1, { 0 }, 0, 0 };
	struct tag set = { &c, 2, { 0 }, 0, POLLOUT };
	struct tag empty = { &c, 3, { 0 }, 0, POLLIN };
	struct tag big = { &c, 4, { 0 }, 0, POLLIN };

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sp), 0);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	set.fds[0] = sp[0];
	set.fds[1] = sp[1];
	set.n_fds = 2;

	/* A set gets its slice back when one of its fds is ready; an empty
	 * set or a set with nothing ready is not called; fds and sets run
	 * in the order they were added. */
	loop_add(l, p[0], POLLIN, on_fd, &one);	/* not ready */
	loop_add_set(l, 8, set_fill, set_ready, &set);
	loop_add_set(l, 8, set_fill, set_ready, &empty);
	assert_int_equal(loop_poll(l, 0), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.who[0], 2);
	assert_int_equal(c.set_n[0], 2);
	assert_true(c.revents[0] & POLLOUT);	/* a socketpair can write */

	/* Asked for POLLIN only, nothing to read: the set does not run. */
	c.n = 0;
	set.events = POLLIN;
	loop_add_set(l, 8, set_fill, set_ready, &set);
	loop_due(l, 7);
	assert_int_equal(loop_poll(l, 7), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(write(sp[1], "z", 1), 1);
	c.n = 0;
	loop_add_set(l, 8, set_fill, set_ready, &set);
	assert_int_equal(loop_poll(l, 0), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.set_n[0], 2);
	assert_true(c.revents[0] & POLLIN);

	/* A set never gets more room than the table has left. */
	c.n = 0;
	big.fds[0] = big.fds[1] = big.fds[2] = big.fds[3] = sp[0];
	big.n_fds = 4;
	loop_add(l, sp[0], POLLIN, on_fd, &one);
	loop_add(l, sp[0], POLLIN, on_fd, &one);
	loop_add(l, sp[0], POLLIN, on_fd, &one);
	loop_add_set(l, 8, set_fill, set_ready, &big);
	loop_due(l, 1);
	assert_int_equal(loop_poll(l, 1), 0);
	assert_int_equal(c.n, 4);
	assert_int_equal(c.who[3], 4);
	assert_int_equal(c.set_n[3], 3);

	close(sp[0]);
	close(sp[1]);
	close(p[0]);
	close(p[1]);
	loop_free(l);
}

/* loop_wait: the table stays for another wait, with its deadlines; the
 * count is of entries ready (a set once); loop_clear empties it. */
static void
test_wait_keeps_table(void **state)
{
	struct loop *l = loop_new(6);
	struct calls c = { 0 };
	struct tag a = { &c, 1, { 0 }, 0, 0 }, b = { &c, 2, { 0 }, 0, 0 };
	struct tag set = { &c, 3, { 0 }, 0, POLLIN };
	int p1[2], p2[2], sp[2];
	char buf[4];

	(void)state;
	assert_int_equal(pipe2(p1, O_CLOEXEC), 0);
	assert_int_equal(pipe2(p2, O_CLOEXEC), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sp), 0);
	set.fds[0] = sp[0];
	set.fds[1] = sp[1];
	set.n_fds = 2;
	loop_add(l, p1[0], POLLIN, on_fd, &a);
	loop_add(l, p2[0], POLLIN, on_fd, &b);
	loop_add_set(l, 8, set_fill, set_ready, &set);
	loop_due(l, 1000);

	/* Nothing ready, the deadline passed: 0, no call, table kept. */
	assert_int_equal(loop_wait(l, 1000), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(loop_deadline(l), 1000);

	/* One ready, then the same table again: the same callback. */
	assert_int_equal(write(p2[1], "x", 1), 1);
	assert_int_equal(loop_wait(l, 999), 1);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.who[0], 2);
	assert_int_equal(loop_wait(l, 999), 1);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.who[1], 2);

	/* Two fds of one set ready: the set counts once, beside a fd. */
	assert_int_equal(write(sp[1], "y", 1), 1);
	assert_int_equal(write(sp[0], "z", 1), 1);
	c.n = 0;
	assert_int_equal(loop_wait(l, 999), 2);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.who[0], 2);
	assert_int_equal(c.who[1], 3);
	assert_int_equal(c.set_n[1], 2);

	/* Read empty again: nothing until the deadline. */
	assert_int_equal(read(p2[0], buf, sizeof buf), 1);
	assert_int_equal(read(sp[0], buf, sizeof buf), 1);
	assert_int_equal(read(sp[1], buf, sizeof buf), 1);
	c.n = 0;
	assert_int_equal(loop_wait(l, 1000), 0);
	assert_int_equal(c.n, 0);

	/* Cleared: no fds, no deadline; loop_poll clears too. */
	loop_clear(l);
	assert_int_equal(loop_deadline(l), 0);
	assert_int_equal(write(p1[1], "w", 1), 1);
	loop_due(l, 5);
	assert_int_equal(loop_wait(l, 5), 0);
	assert_int_equal(c.n, 0);
	loop_add(l, p1[0], POLLIN, on_fd, &a);
	assert_int_equal(loop_poll(l, 0), 0);
	assert_int_equal(c.n, 1);
	loop_due(l, 5);
	assert_int_equal(loop_wait(l, 5), 0);
	assert_int_equal(c.n, 1);

	close(p1[0]);
	close(p1[1]);
	close(p2[0]);
	close(p2[1]);
	close(sp[0]);
	close(sp[1]);
	loop_free(l);
}

static void
test_waits_for_deadline(void **state)
{
	struct loop *l = loop_new(2);
	struct calls c = { 0 };
	struct tag a = { &c, 1, { 0 }, 0, 0 };
	int p[2];
	int64_t t0, t1;

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	/* A real wait, on the monotonic clock: about 50 ms, never less. */
	t0 = now_mono_ms();
	loop_add(l, p[0], POLLIN, on_fd, &a);
	loop_due(l, t0 + 50);
	assert_int_equal(loop_poll(l, t0), 0);
	t1 = now_mono_ms();
	assert_int_equal(c.n, 0);
	assert_true(t1 - t0 >= 49);
	close(p[0]);
	close(p[1]);
	loop_free(l);
}

/* ---- a console behind the program's output ---------------------------- */

/* Queues the program's output for client 0 (unsent: nobody flushes)
 * until more than CONTROL_HOLD_BYTES wait. */
static void
flood(struct sup *s)
{
	static char chunk[60000];

	memset(chunk, 'x', sizeof chunk);
	while (proto_queued(s->clients[0].conn) <= CONTROL_HOLD_BYTES) {
		json_t *m = msg_output(AUDIT_PTY, chunk, sizeof chunk);

		assert_int_equal(proto_send(s->clients[0].conn, m), 0);
		json_decref(m);
	}
}

/* A watching console that falls CONTROL_HOLD_BYTES behind holds the
 * output back (the program waits, as on a slow terminal) instead of being
 * dropped at once; it goes on once it has taken what waited; one that
 * takes nothing for CONTROL_STALL_MS is dropped and the output goes on. */
static void
test_console_behind_holds_output(void **state)
{
	static struct sup s;
	char buf[65536];
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	s.clients[0].conn = proto_conn_new(sv[0]);
	s.clients[0].watch = true;
	assert_true(control_output_room(&s, 1000));
	assert_int_equal(control_next_deadline(&s), 0);

	flood(&s);
	assert_false(control_output_room(&s, 1000));
	assert_false(control_output_room(&s, 1500));
	assert_int_equal(control_next_deadline(&s), 1000 + CONTROL_STALL_MS);
	control_tick(&s, 1000 + CONTROL_STALL_MS - 1);
	assert_non_null(s.clients[0].conn);
	/* It takes what waited: the output goes on, no deadline. */
	while (proto_want_write(s.clients[0].conn)) {
		(void)proto_flush(s.clients[0].conn);
		while (read(sv[1], buf, sizeof buf) > 0)
			;
	}
	assert_true(control_output_room(&s, 2000));
	assert_int_equal(control_next_deadline(&s), 0);

	/* A client that does not watch holds nothing back. */
	s.clients[0].watch = false;
	flood(&s);
	assert_true(control_output_room(&s, 2500));
	s.clients[0].watch = true;

	/* Behind and taking nothing: dropped once stalled that long. */
	assert_false(control_output_room(&s, 3000));
	control_tick(&s, 3000 + CONTROL_STALL_MS);
	assert_null(s.clients[0].conn);
	assert_true(control_output_room(&s, 9000));
	close(sv[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shed_rule),
		cmocka_unit_test(test_console_behind_holds_output),
		cmocka_unit_test(test_timeout_none_and_past),
		cmocka_unit_test(test_timeout_long),
		cmocka_unit_test(test_deadline_min),
		cmocka_unit_test(test_run_deadlines),
		cmocka_unit_test(test_dispatch_pipes),
		cmocka_unit_test(test_dispatch_sets),
		cmocka_unit_test(test_wait_keeps_table),
		cmocka_unit_test(test_waits_for_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
