/* SPDX-License-Identifier: MIT */
/* supervisor/gate/scrub.c and the response side of flow.c: a secret's
 * value an upstream sends back (in a header, a body of a
 * Content-Length, chunks, a body to the close) reaches the client as
 * its phantom, cut anywhere; the framing stays right; a value in a
 * request to a host its secret is not bound to is refused; a coded
 * body is refused with a 502; Accept-Encoding never goes up. No I/O. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config/policy.h"
#include "config/util.h"
#include "supervisor/gate/flow.h"
#include "supervisor/gate/scrub.h"
#include "supervisor/gate/secrets.h"
#include "tests/gate-flow-fx.h"

/* API_KEY's value is bound to api.test, GH_TOKEN's to gh.test. Both
 * start alike, as tokens of one service do. */
#define V0	"sekret-api-0123456789"
#define V1	"sekret-gh"

static int
setup(void **state)
{
	static const char *const values[] = { V0, V1 };
	struct fx *x = xcalloc(1, sizeof *x);
	char *cause = NULL;

	policy_init(&x->p);
	add_secret(&x->p, "API_KEY", "api.test", "x-api-key");
	add_secret(&x->p, "GH_TOKEN", "gh.test", "authorization");
	assert_int_equal(secrets_set(&x->s, &x->p, values, &cause), 0);
	*state = x;
	return 0;
}

/* s with every "{0}" made a, every "{1}" b. */
static char *
fill(const char *s, const char *a, const char *b)
{
	struct buf o = { 0 };
	char *r;

	while (*s != '\0') {
		if (strncmp(s, "{0}", 3) == 0 || strncmp(s, "{1}", 3) == 0) {
			const char *v = s[1] == '0' ? a : b;

			buf_add(&o, v, strlen(v));
			s += 3;
		} else
			buf_add(&o, s++, 1);
	}
	buf_add(&o, "", 1);
	r = xstrdup(buf_data(&o));
	buf_free(&o);
	return r;
}

/* ---- scrub.c alone ---- */

/* Bytes fed in two pieces, cut at every point, come out as fed whole. */
static void
test_scrub_every_cut(void **state)
{
	struct fx *x = *state;
	cleanup_free char *in = fill("a {0}{0} b {1}-sekret-{1}{0}sekret-ap "
	    "sekret-g{0}", V0, V1);
	cleanup_free char *want = fill("a {0}{0} b {1}-sekret-{1}{0}sekret-ap "
	    "sekret-g{0}", ph(x, 0), ph(x, 1));
	size_t n = strlen(in);

	for (size_t cut = 0; cut <= n; cut++) {
		struct scrub z = { 0 };
		struct buf out = { 0 };
		size_t found;

		found = scrub_feed(&z, &x->s, in, cut, &out, false);
		found += scrub_feed(&z, &x->s, in + cut, n - cut, &out, true);
		assert_int_equal(found, 6);
		assert_int_equal(out.len, strlen(want));
		assert_memory_equal(buf_data(&out), want, out.len);
		scrub_free(&z);
		buf_free(&out);
	}
	/* One byte at a time. */
	{
		struct scrub z = { 0 };
		struct buf out = { 0 };

		for (size_t i = 0; i < n; i++)
			scrub_feed(&z, &x->s, in + i, 1, &out, false);
		scrub_feed(&z, &x->s, NULL, 0, &out, true);
		assert_int_equal(out.len, strlen(want));
		assert_memory_equal(buf_data(&out), want, out.len);
		scrub_free(&z);
		buf_free(&out);
	}
}

/* Only an end that may begin a value is held back: a stream's event
 * goes on whole at once. */
static void
test_scrub_holds_only_a_prefix(void **state)
{
	struct fx *x = *state;
	struct scrub z = { 0 };
	struct buf out = { 0 };

	scrub_feed(&z, &x->s, "data: one\n\n", 11, &out, false);
	assert_int_equal(out.len, 11);
	scrub_feed(&z, &x->s, "data: sekr", 10, &out, false);
	assert_int_equal(out.len, 17);		/* "sekr" waits */
	scrub_feed(&z, &x->s, "ets\n", 4, &out, false);
	assert_int_equal(out.len, 25);
	assert_memory_equal(buf_data(&out), "data: one\n\ndata: sekrets\n", 25);
	scrub_free(&z);
	buf_free(&out);
}

/* ---- responses ---- */

static const char *const REQ = "GET /echo HTTP/1.1\r\nHost: api.test\r\n"
    "Accept-Encoding: gzip, br\r\nTE: gzip\r\nx-api-key: {0}\r\n\r\n";

/* The client's request (phantom in), then resp (values filled) from
 * the upstream cut at cut (and whole when cut is 0). */
static char *
exchange(struct fx *x, const char *req, const char *resp, size_t cut)
{
	cleanup_free char *r = fill(req, ph(x, 0), ph(x, 1));
	cleanup_free char *u = fill(resp, V0, V1);
	size_t n = strlen(u);

	open_flow(x, "api.test");
	assert_int_equal(feed(x, r), strlen(r));
	if (cut == 0 || cut >= n)
		cut = n;
	assert_int_equal(flow_from_upstream(x->f, u, cut), 0);
	if (cut < n)
		assert_int_equal(flow_from_upstream(x->f, u + cut, n - cut), 0);
	return text(flow_down(x->f));
}

static void
test_no_accept_encoding_up(void **state)
{
	struct fx *x = *state;
	cleanup_free char *down = NULL, *up = NULL;

	down = exchange(x, REQ, "HTTP/1.1 204 No Content\r\n\r\n", 0);
	up = text(flow_up(x->f));
	assert_null(strcasestr(up, "accept-encoding"));
	assert_null(strcasestr(up, "\r\nte:"));
	assert_non_null(strstr(up, "x-api-key: " V0 "\r\n"));
	assert_string_equal(down, "HTTP/1.1 204 No Content\r\n\r\n");
}

/* A value echoed in a header and a body of a Content-Length: the
 * phantom, the length made again, cut anywhere. */
static void
test_echo_content_length_every_cut(void **state)
{
	struct fx *x = *state;
	cleanup_free char *body = fill("you sent x-api-key: {0}; and {1}\n",
	    V0, V1);
	cleanup_free char *resp = xasprintf("HTTP/1.1 200 OK\r\nX-Echo: {0}\r\n"
	    "Content-Length: %zu\r\n\r\n%s", strlen(body), body);
	cleanup_free char *want_body = fill("you sent x-api-key: {0}; and {1}\n",
	    ph(x, 0), ph(x, 1));
	cleanup_free char *want = xasprintf("HTTP/1.1 200 OK\r\nX-Echo: %s\r\n"
	    "Content-Length: %zu\r\n\r\n%s", ph(x, 0), strlen(want_body),
	    want_body);
	cleanup_free char *u = fill(resp, V0, V1);

	for (size_t cut = 1; cut <= strlen(u); cut++) {
		cleanup_free char *down = exchange(x, REQ, resp, cut);

		assert_string_equal(down, want);
		assert_int_equal(x->nm, 1);
		assert_int_equal(x->m[0].status, 200);
		assert_int_equal(x->m[0].bytes_down, strlen(u));
	}
}

/* Chunks of 3 bytes: every value is cut across chunks; the body goes on
 * chunked, the value nowhere in it. */
static void
test_echo_chunked_every_cut(void **state)
{
	struct fx *x = *state;
	cleanup_free char *body = fill("{0}|{1}|{0}", V0, V1);
	cleanup_free char *want = fill("{0}|{1}|{0}", ph(x, 0), ph(x, 1));
	struct buf r = { 0 };
	cleanup_free char *resp = NULL;

	buf_addf(&r, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
	for (size_t i = 0; i < strlen(body); i += 3) {
		size_t k = strlen(body) - i < 3 ? strlen(body) - i : 3;

		buf_addf(&r, "%zx\r\n%.*s\r\n", k, (int)k, body + i);
	}
	buf_addf(&r, "0\r\nX-Trailer: {0}\r\n\r\n");
	buf_add(&r, "", 1);
	resp = xstrdup(buf_data(&r));
	buf_free(&r);
	for (size_t cut = 1; cut <= strlen(resp); cut++) {
		cleanup_free char *down = exchange(x, REQ, resp, cut);
		char got[512] = "", *p;
		size_t n = 0;

		assert_null(strstr(down, V0));
		assert_null(strstr(down, V1));
		assert_true(strncmp(down, "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
		    "chunked\r\n\r\n", 46) == 0);
		/* Un-chunked, the body is the phantoms'. */
		p = down + 46;
		while (strtoul(p, NULL, 16) > 0) {
			size_t k = strtoul(p, &p, 16);

			p = strstr(p, "\r\n") + 2;
			assert_true(n + k < sizeof got);
			memcpy(got + n, p, k);
			n += k;
			p += k + 2;
		}
		got[n] = '\0';
		assert_string_equal(got, want);
		assert_string_equal(p, "0\r\n\r\n");	/* the trailer dropped */
		assert_int_equal(x->nm, 1);
	}
}

/* A body to the upstream's close: scrubbed, framing unchanged. */
static void
test_echo_to_close(void **state)
{
	struct fx *x = *state;
	cleanup_free char *down = exchange(x, REQ,
	    "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nkey={0}", 0);
	cleanup_free char *want = xasprintf("HTTP/1.1 200 OK\r\nConnection: "
	    "close\r\n\r\nkey=%s", ph(x, 0));

	/* The body ends with the upstream's close. */
	assert_int_equal(flow_from_upstream(x->f, NULL, 0), 0);
	free(down);
	down = text(flow_down(x->f));
	assert_string_equal(down, want);
	assert_int_equal(x->nm, 1);
	assert_true(flow_closing(x->f));
}

/* Larger than is held whole, to an HTTP/1.0 client: no chunks for it,
 * the body ends with our close. */
static void
test_large_body_http10(void **state)
{
	struct fx *x = *state;
	size_t big = 300 * 1024;
	char *body = xmalloc(big + 1);
	cleanup_free char *head = xasprintf("HTTP/1.0 200 OK\r\nContent-Length: "
	    "%zu\r\nConnection: keep-alive\r\n\r\n", big);
	cleanup_free char *down = NULL;
	cleanup_free char *req = fill("GET /big HTTP/1.0\r\nHost: api.test\r\n"
	    "x-api-key: {0}\r\n\r\n", ph(x, 0), ph(x, 1));
	const char *want = "HTTP/1.0 200 OK\r\nConnection: close\r\n\r\n";

	memset(body, 'x', big);
	memcpy(body + big - strlen(V0), V0, strlen(V0));
	body[big] = '\0';
	open_flow(x, "api.test");
	feed(x, req);
	flow_from_upstream(x->f, head, strlen(head));
	flow_from_upstream(x->f, body, big / 2);
	assert_false(flow_closing(x->f));
	flow_from_upstream(x->f, body + big / 2, big - big / 2);
	down = text(flow_down(x->f));
	assert_true(strncmp(down, want, strlen(want)) == 0);
	assert_int_equal(strlen(down), strlen(want) + big - strlen(V0) +
	    SECRETS_PHANTOM_LEN);
	assert_string_equal(down + strlen(down) - SECRETS_PHANTOM_LEN, ph(x, 0));
	assert_true(flow_closing(x->f));
	assert_true(flow_cut_upstream(x->f));
	assert_int_equal(x->nm, 1);
	free(body);
}

/* A body the gate cannot read: a 502, recorded, the upstream cut. */
static void
test_coded_body_refused(void **state)
{
	struct fx *x = *state;
	cleanup_free char *down = exchange(x, REQ, "HTTP/1.1 200 OK\r\n"
	    "Content-Encoding: gzip\r\nContent-Length: 4\r\n\r\n\x1f\x8b\x08\x00", 0);

	assert_true(strncmp(down, "HTTP/1.1 502 Bad Gateway\r\n", 26) == 0);
	assert_non_null(strstr(down, "Content-Encoding: gzip"));
	assert_null(strstr(down, "\x1f\x8b"));
	assert_true(flow_closing(x->f));
	assert_true(flow_cut_upstream(x->f));
	assert_int_equal(x->nm, 1);
	assert_int_equal(x->m[0].type, GATE_HTTP);
	assert_int_equal(x->m[0].verdict, GATE_DENY);
	assert_int_equal(x->m[0].status, 502);
	/* More from the upstream is dropped, not an error. */
	assert_int_equal(flow_from_upstream(x->f, "junk", 4), 0);

	/* identity is no coding; a 304 has no body to read. */
	free(down);
	down = exchange(x, REQ, "HTTP/1.1 200 OK\r\nContent-Encoding: "
	    "identity\r\nContent-Length: 2\r\n\r\nok", 0);
	assert_true(strncmp(down, "HTTP/1.1 200 OK\r\n", 17) == 0);
	free(down);
	down = exchange(x, REQ, "HTTP/1.1 304 Not Modified\r\n"
	    "Content-Encoding: gzip\r\n\r\n", 0);
	assert_true(strncmp(down, "HTTP/1.1 304 Not Modified\r\n", 27) == 0);
}

/* ---- requests ---- */

static void
expect_value_refused(struct fx *x, const char *name, const char *where)
{
	cleanup_free char *down = text(flow_down(x->f));
	cleanup_free char *up = text(flow_up(x->f));

	assert_true(strncmp(down, "HTTP/1.1 403 Forbidden\r\n", 24) == 0);
	assert_null(strstr(down, V0));
	assert_null(strstr(up, V0));
	expect_secret_msgs(x, name, where);
	for (size_t i = 0; i < x->nm; i++) {
		assert_null(strstr(x->m[i].text, V0));
		assert_null(strstr(x->m[i].path, V0));
	}
}

static void
test_value_to_another_host_refused(void **state)
{
	struct fx *x = *state;
	cleanup_free char *body = NULL;

	open_flow(x, "gh.test");
	feed(x, "GET /x HTTP/1.1\r\nHost: gh.test\r\nX-Leak: k=" V0 "\r\n\r\n");
	expect_value_refused(x, "API_KEY", "header x-leak (its real value)");

	open_flow(x, "gh.test");
	feed(x, "GET /x?k=sekret%2dapi-0123456789 HTTP/1.1\r\nHost: gh.test\r\n\r\n");
	expect_value_refused(x, "API_KEY", "url (its real value)");

	/* In a body, cut at every point. */
	body = xasprintf("POST /x HTTP/1.1\r\nHost: gh.test\r\n"
	    "Content-Length: %zu\r\n\r\nk=%s&z=1", strlen(V0) + 6, V0);
	for (size_t cut = 1; cut < strlen(body); cut++) {
		open_flow(x, "gh.test");
		assert_int_equal(flow_from_client(x->f, body, cut), cut);
		flow_from_client(x->f, body + cut, strlen(body) - cut);
		expect_value_refused(x, "API_KEY", "body (its real value)");
	}

	/* To its own host the value is the client's to send. */
	open_flow(x, "api.test");
	feed(x, "POST /x HTTP/1.1\r\nHost: api.test\r\nContent-Length: 21\r\n\r\n"
	    V0);
	assert_int_equal(x->nm, 0);
	assert_false(flow_closing(x->f));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scrub_every_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scrub_holds_only_a_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_accept_encoding_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_echo_content_length_every_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_echo_chunked_every_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_echo_to_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_body_http10, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coded_body_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_to_another_host_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
