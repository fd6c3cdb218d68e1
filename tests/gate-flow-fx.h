/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The fixture of the tests of supervisor/gate/flow.c with no I/O: a
 * policy and its secrets (the test's own setup fills them), one flow at
 * a time (open_flow) whose wire messages are kept in m[], bytes fed in
 * as a client's (feed). Include after <cmocka.h>.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"
#include "config/util.h"
#include "supervisor/gate/flow.h"
#include "supervisor/gate/secrets.h"
#include "tests/gate-secret.h"

struct fx {
	struct policy	 p;
	struct secrets	 s;
	struct gate_msg	 m[32];
	size_t		 nm;
	uint64_t	 next_req;
	struct flow	*f;
};

static inline void
on_emit(void *arg, struct gate_msg *m)
{
	struct fx *x = arg;

	assert_true(x->nm < ARRAY_SIZE(x->m));
	x->m[x->nm++] = *m;
}

static inline int
teardown(void **state)
{
	struct fx *x = *state;

	flow_free(x->f);
	secrets_done(&x->s);
	policy_done(&x->p);
	free(x);
	return 0;
}

static inline struct flow *
open_flow(struct fx *x, const char *host)
{
	flow_free(x->f);
	x->f = flow_new(&x->p, &x->s, host, 443, 7,
	    &(struct flow_hooks){ on_emit, x }, &x->next_req);
	x->nm = 0;
	return x->f;
}

static inline size_t
feed(struct fx *x, const char *s)
{
	return flow_from_client(x->f, s, strlen(s));
}

/* The queue's bytes as a string (they hold no NUL here). */
static inline char *
text(struct buf *b)
{
	return xstrndup(buf_data(b), b->len);
}

static inline const char *
ph(struct fx *x, size_t i)
{
	return x->s.v[i].phantom;
}

/* The two wire messages of a request refused for a secret's sake: the
 * secret (its name, where it was), then the request denied for it. */
static inline void
expect_secret_msgs(struct fx *x, const char *name, const char *where)
{
	assert_true(x->nm >= 2);
	assert_int_equal(x->m[0].type, GATE_SECRET);
	assert_string_equal(x->m[0].name, name);
	assert_string_equal(x->m[0].text, where);
	assert_int_equal(x->m[1].type, GATE_HTTP);
	assert_int_equal(x->m[1].verdict, GATE_DENY_SECRET);
}
