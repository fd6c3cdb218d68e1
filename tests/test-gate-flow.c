/* SPDX-License-Identifier: MIT */
/* supervisor/gate/flow.c: requests judged and re-serialized, phantoms
 * swapped or refused, HTTP rules, responses matched to requests; and
 * the path glob of the rules (config/policy-net.c). No I/O: bytes in, bytes
 * and wire messages out. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/policy.h"
#include "config/util.h"
#include "supervisor/gate/flow.h"
#include "supervisor/gate/secrets.h"
#include "tests/gate-flow-fx.h"
#include "tests/hostile-paths.h"

static void
add_rule(struct policy *p, const char *host, const char *method,
    const char *path)
{
	struct policy_host *h;

	p->net_allow = xreallocarray(p->net_allow, p->n_net_allow + 1,
	    sizeof *p->net_allow);
	h = &p->net_allow[p->n_net_allow++];
	*h = (struct policy_host){ 0 };
	h->host = xstrdup(host);
	h->port_lo = h->port_hi = 443;
	h->method = xstrdup(method);
	h->path = xstrdup(path);
}

static int
setup(void **state)
{
	static const char *const values[] = { "sekret-api", "sekret-gh" };
	struct fx *x = xcalloc(1, sizeof *x);
	char *cause = NULL;

	policy_init(&x->p);
	x->p.http = POLICY_DENY;
	add_secret(&x->p, "API_KEY", "api.test", "x-api-key");
	add_secret(&x->p, "GH_TOKEN", "gh.test", "authorization");
	add_rule(&x->p, "gh.test", "GET", "/repos/acme/**");
	add_rule(&x->p, "gh.test", "POST", "/repos/acme/app/issues/*/comments");
	assert_int_equal(secrets_set(&x->s, &x->p, values, &cause), 0);
	*state = x;
	return 0;
}

static void
test_phantom_replaced_in_its_header(void **state)
{
	struct fx *x = *state;
	cleanup_free char *req = NULL, *up = NULL;

	open_flow(x, "api.test");
	assert_int_equal(strlen(ph(x, 0)), SECRETS_PHANTOM_LEN);
	assert_true(strncmp(ph(x, 0), "ward-phantom-", 13) == 0);
	assert_string_not_equal(ph(x, 0), ph(x, 1));
	req = xasprintf("GET /v1/messages?x=1 HTTP/1.1\r\nHost: api.test\r\n"
	    "X-Api-Key: %s\r\nAccept: */*\r\n\r\n", ph(x, 0));
	assert_int_equal(feed(x, req), strlen(req));
	up = text(flow_up(x->f));
	assert_string_equal(up, "GET /v1/messages?x=1 HTTP/1.1\r\nHost: "
	    "api.test\r\nX-Api-Key: sekret-api\r\nAccept: */*\r\n\r\n");
	assert_int_equal(flow_down(x->f)->len, 0);
	assert_int_equal(x->nm, 0);
	/* The response ends the request: one GATE_HTTP naming the secret. */
	assert_int_equal(flow_from_upstream(x->f, "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 2\r\n\r\nok", 40), 0);
	assert_int_equal(x->nm, 1);
	assert_int_equal(x->m[0].type, GATE_HTTP);
	assert_int_equal(x->m[0].status, 200);
	assert_int_equal(x->m[0].verdict, GATE_ALLOW);
	assert_string_equal(x->m[0].name, "API_KEY");
	assert_string_equal(x->m[0].method, "GET");
	assert_string_equal(x->m[0].host, "api.test");
	assert_int_equal(x->m[0].conn, 7);
	assert_int_equal(x->m[0].bytes_down, 40);
	assert_null(strstr(x->m[0].path, "sekret"));
}

static void
expect_refused(struct fx *x, const char *name, const char *where)
{
	cleanup_free char *down = text(flow_down(x->f));

	assert_true(strncmp(down, "HTTP/1.1 403 Forbidden\r\n", 24) == 0);
	assert_non_null(strstr(down, "Connection: close\r\n"));
	assert_true(flow_closing(x->f));
	assert_false(flow_wants_client(x->f));
	expect_secret_msgs(x, name, where);
	assert_int_equal(x->m[1].status, 403);
}

static void
test_phantom_elsewhere_refused(void **state)
{
	struct fx *x = *state;
	cleanup_free char *r1 = NULL, *r2 = NULL, *r3 = NULL;

	open_flow(x, "api.test");
	r1 = xasprintf("GET /v1?k=%s HTTP/1.1\r\nHost: api.test\r\n\r\n",
	    ph(x, 0));
	feed(x, r1);
	assert_int_equal(flow_up(x->f)->len, 0);
	expect_refused(x, "API_KEY", "url");

	/* In the URL percent-encoded: the server decodes it. */
	{
		cleanup_free char *enc = xasprintf("GET /v1?k=%%77ard%%2Dphantom%s "
		    "HTTP/1.1\r\nHost: api.test\r\n\r\n", ph(x, 0) + 12);

		open_flow(x, "api.test");
		feed(x, enc);
		assert_int_equal(flow_up(x->f)->len, 0);
		expect_refused(x, "API_KEY", "url");
	}

	/* Its own host, but another header. */
	open_flow(x, "api.test");
	r2 = xasprintf("GET /v1 HTTP/1.1\r\nHost: api.test\r\n"
	    "Authorization: Bearer %s\r\n\r\n", ph(x, 0));
	feed(x, r2);
	assert_int_equal(flow_up(x->f)->len, 0);
	expect_refused(x, "API_KEY", "header authorization");

	/* Its header, but a host it is not bound to. */
	open_flow(x, "gh.test");
	r3 = xasprintf("GET /repos/acme/x HTTP/1.1\r\nHost: gh.test\r\n"
	    "x-api-key: %s\r\n\r\n", ph(x, 0));
	feed(x, r3);
	assert_int_equal(flow_up(x->f)->len, 0);
	expect_refused(x, "API_KEY", "header x-api-key");
}

static void
test_body_scan_across_reads(void **state)
{
	struct fx *x = *state;
	cleanup_free char *head = NULL, *up = NULL;
	char a[64], b[64];

	/* GH_TOKEN's phantom in a body to api.test, cut in two reads. */
	open_flow(x, "api.test");
	head = xasprintf("POST /v1 HTTP/1.1\r\nHost: api.test\r\n"
	    "Content-Length: %zu\r\n\r\n", 10 + SECRETS_PHANTOM_LEN + 5);
	snprintf(a, sizeof a, "0123456789%.20s", ph(x, 1));
	snprintf(b, sizeof b, "%s-tail", ph(x, 1) + 20);
	feed(x, head);
	feed(x, a);
	assert_int_equal(x->nm, 0);
	up = text(flow_up(x->f));
	/* The head went up; of the body only what cannot be a phantom's
	 * start (nothing here: 30 bytes < the hold-back). */
	assert_null(strstr(up, "ward-phantom"));
	feed(x, b);
	expect_refused(x, "GH_TOKEN", "body");
	assert_true(flow_cut_upstream(x->f));
	free(up);
	up = text(flow_up(x->f));
	assert_null(strstr(up, ph(x, 1)));

	/* Its own secret's phantom in a body to its host passes as is. */
	open_flow(x, "api.test");
	free(head);
	head = xasprintf("POST /v1 HTTP/1.1\r\nHost: api.test\r\n"
	    "Content-Length: %zu\r\n\r\n%s", SECRETS_PHANTOM_LEN, ph(x, 0));
	feed(x, head);
	assert_int_equal(x->nm, 0);
	free(up);
	up = text(flow_up(x->f));
	assert_non_null(strstr(up, ph(x, 0)));
}

/* Two phantoms of the body's own secret, then another's: the scan moves
 * on past each allowed one (it once went back and looped forever), and
 * still finds the one that may not go. */
static void
test_body_scan_many_phantoms(void **state)
{
	struct fx *x = *state;
	cleanup_free char *body = NULL, *req = NULL, *up = NULL;

	alarm(5);	/* a loop forever fails, not hangs */
	open_flow(x, "api.test");
	body = xasprintf("%s0123456789%s", ph(x, 0), ph(x, 0));
	req = xasprintf("POST /v1 HTTP/1.1\r\nHost: api.test\r\n"
	    "Content-Length: %zu\r\n\r\n%s", strlen(body), body);
	assert_int_equal(feed(x, req), strlen(req));
	assert_int_equal(x->nm, 0);
	assert_false(flow_closing(x->f));
	up = text(flow_up(x->f));
	assert_non_null(strstr(up, "0123456789"));

	open_flow(x, "api.test");
	free(body);
	free(req);
	body = xasprintf("%s0123456789%s--%s", ph(x, 0), ph(x, 0), ph(x, 1));
	req = xasprintf("POST /v1 HTTP/1.1\r\nHost: api.test\r\n"
	    "Content-Length: %zu\r\n\r\n%s", strlen(body), body);
	feed(x, req);
	expect_refused(x, "GH_TOKEN", "body");
	alarm(0);
}

/* A request on a connection to api.test naming another host (domain
 * fronting: the front end would route it, and its secret, there) is
 * refused before any of it goes up; the host's own names pass. */
static void
test_host_is_the_connections(void **state)
{
	struct fx *x = *state;
	static const char *const bad[] = {
		"GET /v1 HTTP/1.1\r\nHost: api2.test\r\n",
		"GET /v1 HTTP/1.1\r\nHost: api.test.evil\r\n",
		"GET /v1 HTTP/1.1\r\nHost: api.test:8443\r\n",
		"GET /v1 HTTP/1.1\r\nHost: api.test\r\nHost: api2.test\r\n",
		"GET /v1 HTTP/1.1\r\n",
		"GET /v1 HTTP/1.0\r\n",
		"GET https://api2.test/v1 HTTP/1.1\r\nHost: api.test\r\n",
		"GET https://api.test:444/v1 HTTP/1.1\r\nHost: api.test\r\n",
	};
	static const char *const good[] = {
		"GET /v1 HTTP/1.1\r\nHost: API.Test\r\n",
		"GET /v1 HTTP/1.1\r\nHost: api.test:443\r\n",
		"GET /v1 HTTP/1.1\r\nHost: api.test.\r\n",
		"GET https://api.test/v1 HTTP/1.1\r\nHost: api.test\r\n",
		"GET /v1 HTTP/1.0\r\nHost: api.test\r\n",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cleanup_free char *req = xasprintf("%sx-api-key: %s\r\n\r\n",
		    bad[i], ph(x, 0));
		cleanup_free char *down = NULL;

		open_flow(x, "api.test");
		feed(x, req);
		assert_int_equal(flow_up(x->f)->len, 0);
		down = text(flow_down(x->f));
		assert_true(strncmp(down, "HTTP/1.1 403 Forbidden\r\n", 24) == 0);
		assert_null(strstr(down, "sekret"));
		assert_true(flow_closing(x->f));
		assert_int_equal(x->nm, 1);
		assert_int_equal(x->m[0].type, GATE_HTTP);
		assert_int_equal(x->m[0].verdict, GATE_DENY);
	}
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		cleanup_free char *req = xasprintf("%sx-api-key: %s\r\n\r\n",
		    good[i], ph(x, 0));
		cleanup_free char *up = NULL;

		open_flow(x, "api.test");
		assert_int_equal(feed(x, req), strlen(req));
		up = text(flow_up(x->f));
		assert_non_null(strstr(up, "x-api-key: sekret-api\r\n"));
		assert_int_equal(x->nm, 0);
	}
}

/* What the lenient parser takes but a server may read otherwise: a
 * space in a header name (a second Host to a server as lenient), a NUL
 * in a value (cut there in C), a tab in the URL. A 400, nothing up. */
static void
test_malformed_heads_refused(void **state)
{
	struct fx *x = *state;
	static const struct { const char *req; size_t len; } bad[] = {
#define R(s)	{ s, sizeof s - 1 }
		R("GET /v1 HTTP/1.1\r\nHost: api.test\r\nHost : api2.test\r\n\r\n"),
		R("GET /v1 HTTP/1.1\r\nHost: api.test\r\nX-A\t: b\r\n\r\n"),
		R("GET /v1 HTTP/1.1\r\nHost: api.test\r\nX-A: b\0c\r\n\r\n"),
		R("GET /v1\tx HTTP/1.1\r\nHost: api.test\r\n\r\n"),
		R("GET /v1\fx HTTP/1.1\r\nHost: api.test\r\n\r\n"),
#undef R
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cleanup_free char *down = NULL;

		open_flow(x, "api.test");
		flow_from_client(x->f, bad[i].req, bad[i].len);
		assert_int_equal(flow_up(x->f)->len, 0);
		down = text(flow_down(x->f));
		assert_true(strncmp(down, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
		assert_true(flow_closing(x->f));
		assert_int_equal(x->nm, 1);
		assert_int_equal(x->m[0].type, GATE_HTTP);
		assert_int_equal(x->m[0].status, 400);
	}
}

/* Requests held for a person are counted across connections: one past
 * the most is refused, not asked; an answer or a connection's end
 * frees its place. */
static void
test_held_requests_bounded(void **state)
{
	struct fx *x = *state;
	const char *bad = "POST /repos/other/x HTTP/1.1\r\nHost: gh.test\r\n"
	    "Content-Length: 0\r\n\r\n";
	unsigned held = 0;
	struct flow_hooks h = { on_emit, x, &held, 2 };
	struct flow *f[4];
	cleanup_free char *down = NULL;

	x->p.http = POLICY_ASK;
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		f[i] = flow_new(&x->p, &x->s, "gh.test", 443, i, &h,
		    &x->next_req);
		x->nm = 0;
		flow_from_client(f[i], bad, strlen(bad));
		assert_int_equal(x->nm, 1);
		assert_int_equal(x->m[0].type, i == 2 ? GATE_HTTP : GATE_ASK);
		if (i == 2) {
			down = text(flow_down(f[i]));
			assert_true(strncmp(down, "HTTP/1.1 403 Forbidden\r\n",
			    24) == 0);
			assert_true(flow_closing(f[i]));
			/* An answer frees a place, for the next. */
			assert_int_equal(flow_answer(f[0], 1, false), 0);
		}
	}
	assert_int_equal(held, 2);
	assert_true(flow_holds(f[3], x->m[0].req));
	flow_end(f[1]);
	assert_int_equal(held, 1);
	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		flow_free(f[i]);
	assert_int_equal(held, 0);
	x->p.http = POLICY_DENY;
}

/* A phantom cut by chunked framing (chunk-size lines inside it, one
 * byte a chunk) is seen in the body as the server reads it. */
static void
test_phantom_split_by_chunks(void **state)
{
	struct fx *x = *state;
	struct buf req = { 0 };
	const char *p = ph(x, 1);
	cleanup_free char *up = NULL;

	open_flow(x, "api.test");
	buf_addf(&req, "POST /v1 HTTP/1.1\r\nHost: api.test\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n3\r\nk=w\r\n");
	for (size_t i = 1; i < SECRETS_PHANTOM_LEN; i++)
		buf_addf(&req, "1;x=%zu\r\n%c\r\n", i, p[i]);
	buf_addf(&req, "0\r\n\r\n");
	/* In reads of 7 bytes, across the framing too. */
	for (size_t at = 0; at < req.len && !flow_closing(x->f); at += 7)
		flow_from_client(x->f, buf_data(&req) + at,
		    req.len - at < 7 ? req.len - at : 7);
	expect_refused(x, "GH_TOKEN", "body");
	up = text(flow_up(x->f));
	assert_null(strstr(up, "ward-phantom"));
	buf_free(&req);
}

static void
test_pipelined_and_keepalive(void **state)
{
	struct fx *x = *state;
	cleanup_free char *up = NULL;
	const char *two = "GET /a HTTP/1.1\r\nHost: api.test\r\n\r\n"
	    "HEAD /b HTTP/1.1\r\nHost: api.test\r\n\r\n"
	    "GET /c HTTP/1.1\r\nHost: api.test\r\n\r\n";
	const char *resp = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
	    "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n"
	    "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "2\r\nno\r\n0\r\n\r\n";

	open_flow(x, "api.test");
	assert_int_equal(feed(x, two), strlen(two));
	up = text(flow_up(x->f));
	assert_string_equal(up, two);
	assert_int_equal(flow_from_upstream(x->f, resp, strlen(resp)), 0);
	assert_int_equal(x->nm, 3);
	assert_int_equal(x->m[0].status, 200);
	assert_string_equal(x->m[0].path, "/a");
	assert_string_equal(x->m[1].method, "HEAD");
	assert_int_equal(x->m[1].status, 200);
	assert_int_equal(x->m[2].status, 404);
	assert_string_equal(x->m[2].path, "/c");
	assert_int_equal(flow_down(x->f)->len, strlen(resp));
	assert_false(flow_closing(x->f));
	/* A response with no request behind it is not HTTP we relay. */
	assert_int_equal(flow_from_upstream(x->f, "HTTP/1.1 200 OK\r\n", 17),
	    -EPROTO);
}

static void
test_chunked_upload_passes(void **state)
{
	struct fx *x = *state;
	cleanup_free char *up = NULL;
	const char *req = "POST /v1 HTTP/1.1\r\nHost: api.test\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n"
	    "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n";
	char *body;

	open_flow(x, "api.test");
	/* In two reads, cut inside a chunk. */
	assert_int_equal(flow_from_client(x->f, req, 70), 70);
	assert_int_equal(feed(x, req + 70), strlen(req + 70));
	up = text(flow_up(x->f));
	assert_true(strncmp(up, "POST /v1 HTTP/1.1\r\nHost: api.test\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", 65) == 0);
	body = up + 65;
	/* Re-framed, the bytes and the end the same: "hello world". */
	assert_non_null(strstr(body, "0\r\n\r\n"));
	{
		char out[64] = "";
		size_t n = 0;
		char *p = body;

		while (strtoul(p, NULL, 16) > 0) {
			size_t k = strtoul(p, &p, 16);

			p = strstr(p, "\r\n") + 2;
			memcpy(out + n, p, k);
			n += k;
			p += k + 2;
		}
		out[n] = '\0';
		assert_string_equal(out, "hello world");
	}
	assert_int_equal(x->nm, 0);
}

static void
test_rules_deny_and_ask(void **state)
{
	struct fx *x = *state;
	cleanup_free char *down = NULL, *up = NULL;
	const char *ok = "GET /repos/acme/app/issues HTTP/1.1\r\nHost: gh.test\r\n\r\n";
	const char *bad = "POST /repos/other/x HTTP/1.1\r\nHost: gh.test\r\n"
	    "Content-Length: 0\r\n\r\n";
	const char *dots = "GET /repos/acme/../other HTTP/1.1\r\nHost: gh.test\r\n\r\n";

	open_flow(x, "gh.test");
	feed(x, ok);
	assert_int_equal(x->nm, 0);
	up = text(flow_up(x->f));
	assert_string_equal(up, ok);
	flow_from_upstream(x->f, "HTTP/1.1 204 No Content\r\n\r\n", 27);
	assert_int_equal(x->nm, 1);
	assert_string_equal(x->m[0].rule, "gh.test:443 GET /repos/acme/**");
	feed(x, bad);
	assert_int_equal(x->nm, 2);
	assert_int_equal(x->m[1].verdict, GATE_DENY);
	down = text(flow_down(x->f));
	assert_non_null(strstr(down, "HTTP/1.1 403 Forbidden\r\n"));
	assert_non_null(strstr(down, "\r\n\r\nward: POST /repos/other/x is not "
	    "allowed on gh.test:443 (policy: allow = gh.test:443 GET "
	    "/repos/acme/**; allow = gh.test:443 POST "
	    "/repos/acme/app/issues/*/comments)\n"));

	/* A dot segment could leave the glob's folder at the server: a
	 * path not canonical is a 400 before any rule is tried. */
	open_flow(x, "gh.test");
	feed(x, dots);
	assert_int_equal(x->m[0].verdict, GATE_DENY);
	assert_int_equal(x->m[0].status, 400);
	assert_string_equal(x->m[0].text, "path not canonical: a segment of "
	    "dots (., ..)");
	assert_int_equal(flow_up(x->f)->len, 0);

	/* http = ask: held until the answer, the next request unread. */
	x->p.http = POLICY_ASK;
	open_flow(x, "gh.test");
	{
		cleanup_free char *both = xasprintf("%s%s", bad, ok);
		size_t used = feed(x, both);

		assert_true(used < strlen(both));
		assert_int_equal(x->nm, 1);
		assert_int_equal(x->m[0].type, GATE_ASK);
		assert_string_equal(x->m[0].method, "POST");
		assert_string_equal(x->m[0].path, "/repos/other/x");
		assert_true(flow_holds(x->f, x->m[0].req));
		assert_false(flow_wants_client(x->f));
		assert_int_equal(flow_up(x->f)->len, 0);
		assert_int_equal(flow_from_client(x->f, both + used,
		    strlen(both) - used), 0);
		assert_int_equal(flow_answer(x->f, x->m[0].req, true), 0);
		assert_true(flow_wants_client(x->f));
		assert_int_equal(flow_from_client(x->f, both + used,
		    strlen(both) - used), strlen(both) - used);
		free(up);
		up = text(flow_up(x->f));
		assert_string_equal(up, both);
	}
	/* ... or refused by the person. */
	open_flow(x, "gh.test");
	feed(x, bad);
	assert_int_equal(flow_answer(x->f, x->m[0].req, false), 0);
	assert_int_equal(x->m[1].type, GATE_HTTP);
	assert_int_equal(x->m[1].verdict, GATE_DENY_PERSON);
	assert_true(flow_closing(x->f));
	x->p.http = POLICY_DENY;
}

static void
test_refusal_waits_for_earlier_responses(void **state)
{
	struct fx *x = *state;
	cleanup_free char *req = NULL, *down = NULL;
	const char *resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

	open_flow(x, "api.test");
	req = xasprintf("GET /a HTTP/1.1\r\nHost: api.test\r\n\r\n"
	    "GET /%s HTTP/1.1\r\nHost: api.test\r\n\r\n", ph(x, 0));
	feed(x, req);
	assert_int_equal(flow_down(x->f)->len, 0);
	assert_false(flow_closing(x->f));
	assert_false(flow_cut_upstream(x->f));
	flow_from_upstream(x->f, resp, strlen(resp));
	down = text(flow_down(x->f));
	assert_true(strncmp(down, resp, strlen(resp)) == 0);
	assert_true(strncmp(down + strlen(resp), "HTTP/1.1 403", 12) == 0);
	assert_true(flow_closing(x->f));
}

static void
test_interim_and_close_delimited(void **state)
{
	struct fx *x = *state;
	const char *req = "GET /s HTTP/1.1\r\nHost: api.test\r\n\r\n";
	const char *resp = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"
	    "Content-Type: text/event-stream\r\n\r\ndata: 1\n\n";

	open_flow(x, "api.test");
	feed(x, req);
	flow_from_upstream(x->f, resp, strlen(resp));
	assert_int_equal(x->nm, 0);
	assert_int_equal(flow_down(x->f)->len, strlen(resp));
	flow_from_upstream(x->f, "data: 2\n\n", 9);
	assert_int_equal(flow_from_upstream(x->f, NULL, 0), 0);
	assert_int_equal(x->nm, 1);
	assert_int_equal(x->m[0].status, 200);
	assert_true(flow_closing(x->f));
}

static void
test_answered_before_body_ends(void **state)
{
	struct fx *x = *state;
	cleanup_free char *up = NULL;
	const char *head = "POST /up HTTP/1.1\r\nHost: api.test\r\n"
	    "Content-Length: 10\r\n\r\n";
	const char *resp = "HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\n\r\n";

	open_flow(x, "api.test");
	feed(x, head);
	feed(x, "012");
	flow_from_upstream(x->f, resp, strlen(resp));
	assert_int_equal(x->nm, 1);
	assert_int_equal(x->m[0].status, 413);
	/* The rest of the body still goes up: the framing holds. */
	assert_int_equal(feed(x, "3456789"), 7);
	feed(x, "GET /next HTTP/1.1\r\nHost: api.test\r\n\r\n");
	up = text(flow_up(x->f));
	assert_non_null(strstr(up, "\r\n\r\n0123456789GET /next HTTP/1.1\r\n"));
	assert_int_equal(x->nm, 1);
}

static void
test_upgrade_and_bad_request(void **state)
{
	struct fx *x = *state;
	cleanup_free char *down = NULL;

	open_flow(x, "api.test");
	feed(x, "GET /ws HTTP/1.1\r\nHost: api.test\r\nConnection: Upgrade\r\n"
	    "Upgrade: websocket\r\n\r\n");
	assert_int_equal(flow_up(x->f)->len, 0);
	assert_true(flow_closing(x->f));

	open_flow(x, "api.test");
	/* Both framings at once: a smuggling attempt, refused. */
	feed(x, "POST / HTTP/1.1\r\nHost: api.test\r\nContent-Length: 3\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
	assert_int_equal(flow_up(x->f)->len, 0);
	down = text(flow_down(x->f));
	assert_true(strncmp(down, "HTTP/1.1 400", 12) == 0);
}

/* The same bytes cut anywhere give the same bytes up, and bytes mangled
 * at random never crash the flow nor let a phantom of another host's
 * secret out. */
static void
test_any_cut_same_output(void **state)
{
	struct fx *x = *state;
	cleanup_free char *reqs = NULL, *whole = NULL;
	unsigned seed = 1;

	reqs = xasprintf("GET /a?x=1 HTTP/1.1\r\nHost: api.test\r\nx-api-key: %s\r\n\r\n"
	    "POST /b HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n"
	    "PUT /c HTTP/1.1\r\nHost: api.test\r\nContent-Length: 60\r\n\r\n"
	    "%.60s"
	    "DELETE /d HTTP/1.0\r\nHost: api.test\r\n\r\n", ph(x, 0),
	    "................................................................");
	open_flow(x, "api.test");
	assert_int_equal(feed(x, reqs), strlen(reqs));
	whole = text(flow_up(x->f));
	assert_non_null(strstr(whole, "x-api-key: sekret-api\r\n"));
	for (int round = 0; round < 300; round++) {
		cleanup_free char *up = NULL;
		size_t at = 0, n = strlen(reqs);

		open_flow(x, "api.test");
		while (at < n) {
			size_t k = 1 + (size_t)rand_r(&seed) % 40;

			if (k > n - at)
				k = n - at;
			assert_int_equal(flow_from_client(x->f, reqs + at, k), k);
			at += k;
		}
		up = text(flow_up(x->f));
		assert_string_equal(up, whole);
	}
	for (int round = 0; round < 2000; round++) {
		cleanup_free char *m = xstrdup(reqs);
		size_t n = strlen(m), at = 0;

		for (int j = 0; j < 4; j++)
			m[(size_t)rand_r(&seed) % n] = (char)(rand_r(&seed) % 256);
		/* GH_TOKEN's phantom is not api.test's: it must never go up. */
		if (round % 3 == 0) {
			size_t pos = (size_t)rand_r(&seed) % (n - SECRETS_PHANTOM_LEN);

			memcpy(m + pos, ph(x, 1), SECRETS_PHANTOM_LEN);
		}
		open_flow(x, "api.test");
		while (at < n && flow_wants_client(x->f)) {
			size_t k = 1 + (size_t)rand_r(&seed) % 64, used;

			if (k > n - at)
				k = n - at;
			used = flow_from_client(x->f, m + at, k);
			if (used < k)
				break;
			at += used;
		}
		assert_null(memmem(buf_data(flow_up(x->f)), flow_up(x->f)->len,
		    ph(x, 1), SECRETS_PHANTOM_LEN));
		flow_end(x->f);
	}
}

/* Each target of tests/data/hostile-paths.tsv sent through a flow on a
 * host whose rule is GET /ok/ and "**": a refused one is the gate's 400,
 * recorded as a denied http request, and nothing goes up; a passing one
 * goes up byte for byte, allowed by the rule. */
struct hostile {
	struct fx	*x;
	size_t		 by_parser;	/* refused by http-parser itself */
};

static void
hostile_row(char **fld, size_t n, int line, void *arg)
{
	struct hostile *h = arg;
	struct fx *x = h->x;
	cleanup_free char *target = hostile_target(fld[1]);
	cleanup_free char *req = xasprintf("GET %s HTTP/1.1\r\n"
	    "Host: api2.test\r\n\r\n", target);
	cleanup_free char *up = NULL, *down = NULL;

	(void)n;
	open_flow(x, "api2.test");
	feed(x, req);
	up = text(flow_up(x->f));
	down = text(flow_down(x->f));
	if (strcmp(fld[0], "pass") == 0) {
		if (strcmp(up, req) != 0 || x->nm != 0)
			fail_msg("%s:%d: %s did not go up as it came (%zu "
			    "messages, %s)", HOSTILE_PATHS, line, fld[1], x->nm,
			    down);
		flow_from_upstream(x->f, "HTTP/1.1 204 No Content\r\n\r\n", 27);
		if (x->nm != 1 || strcmp(x->m[0].rule, "api2.test:443 GET /ok/**"))
			fail_msg("%s:%d: %s not allowed by the rule",
			    HOSTILE_PATHS, line, fld[1]);
		return;
	}
	if (flow_up(x->f)->len != 0 || x->nm != 1 ||
	    x->m[0].type != GATE_HTTP || x->m[0].verdict != GATE_DENY ||
	    x->m[0].status != 400 ||
	    strncmp(down, "HTTP/1.1 400 Bad Request\r\n", 26) != 0)
		fail_msg("%s:%d: %s not refused with a 400 (%zu up, %zu "
		    "messages)", HOSTILE_PATHS, line, fld[1], flow_up(x->f)->len,
		    x->nm);
	if (strncmp(x->m[0].text, "path not canonical: ", 20) != 0) {
		/* http-parser's own refusal comes first for a few. */
		if (strncmp(x->m[0].text, "bad request: ", 13) != 0)
			fail_msg("%s:%d: %s refused for %s", HOSTILE_PATHS,
			    line, fld[1], x->m[0].text);
		h->by_parser++;
	}
}

static void
test_hostile_paths(void **state)
{
	struct hostile h = { .x = *state };

	add_rule(&h.x->p, "api2.test", "GET", "/ok/**");
	h.x->p.http = POLICY_ASK;	/* refused all the same: never asked */
	tsv_each(HOSTILE_PATHS, 3, hostile_row, &h);
	/* The gate's own check refuses them, not the parser's chance. */
	assert_true(h.by_parser <= 10);
	h.x->p.http = POLICY_DENY;
}

/* A header that has the server take another path or method than the
 * request line's: refused on a host with rules, allowed elsewhere. */
static void
test_override_headers(void **state)
{
	struct fx *x = *state;
	static const char *const hdr[] = {
		"X-Original-URL: /admin", "x-rewrite-url: /admin",
		"X-HTTP-Method-Override: DELETE", "X-HTTP-Method: DELETE",
		"X-Method-Override: DELETE",
	};

	for (size_t i = 0; i < ARRAY_SIZE(hdr); i++) {
		cleanup_free char *req = xasprintf("GET /repos/acme/x HTTP/1.1"
		    "\r\nHost: gh.test\r\n%s\r\n\r\n", hdr[i]);
		cleanup_free char *down = NULL;

		open_flow(x, "gh.test");
		feed(x, req);
		assert_int_equal(flow_up(x->f)->len, 0);
		assert_int_equal(x->nm, 1);
		assert_int_equal(x->m[0].status, 400);
		assert_int_equal(x->m[0].verdict, GATE_DENY);
		assert_non_null(strstr(x->m[0].text, "overrides the request line"));
		down = text(flow_down(x->f));
		assert_true(strncmp(down, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
	}
	/* api.test has no rules: nothing there to walk around. */
	open_flow(x, "api.test");
	feed(x, "GET /v1 HTTP/1.1\r\nHost: api.test\r\n"
	    "X-HTTP-Method-Override: DELETE\r\n\r\n");
	assert_int_equal(x->nm, 0);
	assert_true(flow_up(x->f)->len > 0);
}

static void
test_path_glob(void **state)
{
	static const struct { const char *g, *s; bool m; } t[] = {
		{ "/repos/acme/**", "/repos/acme/app/issues", true },
		{ "/repos/acme/**", "/repos/acme/", true },
		{ "/repos/acme/**", "/repos/acmeX", false },
		{ "/repos/*/issues", "/repos/acme/issues", true },
		{ "/repos/*/issues", "/repos/a/b/issues", false },
		{ "/a/*/c/*/d", "/a/1/c/2/d", true },
		{ "/x", "/x/", false },
		{ "/**", "/", true },
		{ "*", "", true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (policy_http_path_match(t[i].g, t[i].s) != t[i].m)
			fail_msg("%s ~ %s should be %d", t[i].g, t[i].s, t[i].m);
}

static void
test_secret_sources(void **state)
{
	struct policy p;
	struct secrets s;
	char *cause = NULL;
	char tmpl[] = "/tmp/ward-test-secrets-XXXXXX";
	cleanup_free char *key = NULL, *wdir = NULL;

	(void)state;
	/* The phantom key made here, not in the home of who runs the test. */
	assert_non_null(mkdtemp(tmpl));
	setenv("XDG_STATE_HOME", tmpl, 1);
	key = xasprintf("%s/ward/%s", tmpl, SECRETS_KEY_FILE);
	wdir = xasprintf("%s/ward", tmpl);
	policy_init(&p);
	add_secret(&p, "WARD_TEST_GATE_SECRET", "api.test", "x-api-key");
	setenv("WARD_TEST_GATE_SECRET", "from-env", 1);
	assert_int_equal(secrets_load(&s, &p, &cause), 0);
	assert_string_equal(s.v[0].value, "from-env");
	secrets_done(&s);
	free(p.secrets[0].from);
	p.secrets[0].from = xstrdup("command:printf 'from-cmd\\n'");
	assert_int_equal(secrets_load(&s, &p, &cause), 0);
	assert_int_equal(s.v[0].len, 8);
	assert_true(memcmp(s.v[0].value, "from-cmd", 8) == 0);
	secrets_done(&s);
	free(p.secrets[0].from);
	/* The command gets no fd of the gate's but stdio (the gate's
	 * wire is fd 3, not close-on-exec). */
	{
		int fd = open("/dev/null", O_RDONLY);
		cleanup_free char *cmd = NULL;

		assert_true(fd > 2);
		cmd = xasprintf("command:test -e /proc/self/fd/%d && echo open "
		    "|| echo closed", fd);
		p.secrets[0].from = xstrdup(cmd);
		assert_int_equal(secrets_load(&s, &p, &cause), 0);
		assert_int_equal(s.v[0].len, 6);
		assert_true(memcmp(s.v[0].value, "closed", 6) == 0);
		secrets_done(&s);
		close(fd);
	}
	free(p.secrets[0].from);
	p.secrets[0].from = xstrdup("command:exit 3");
	assert_true(secrets_load(&s, &p, &cause) < 0);
	assert_string_equal(cause, "[secret WARD_TEST_GATE_SECRET] from = "
	    "command:exit 3: exited with 3");
	free(p.secrets[0].from);
	/* Unset or missing: skipped (a subscription login inside), not
	 * fatal; no phantom, so the sandbox has no such variable. */
	p.secrets[0].from = xstrdup("env:WARD_TEST_GATE_UNSET");
	assert_int_equal(secrets_load(&s, &p, &cause), 0);
	assert_int_equal(s.n, 0);
	secrets_done(&s);
	free(p.secrets[0].from);
	p.secrets[0].from = xstrdup("file:/nonexistent/ward");
	assert_int_equal(secrets_load(&s, &p, &cause), 0);
	assert_int_equal(s.n, 0);
	secrets_done(&s);
	free(p.secrets[0].from);
	p.secrets[0].from = xstrdup("file:/");
	assert_true(secrets_load(&s, &p, &cause) < 0);
	assert_non_null(strstr(cause, "[secret WARD_TEST_GATE_SECRET] from = "
	    "file:/: "));
	free(cause);
	policy_done(&p);
	(void)unlink(key);
	(void)rmdir(wdir);
	(void)rmdir(tmpl);
	unsetenv("XDG_STATE_HOME");
}

/* A phantom is the same each run for a user and a name, another for
 * another name or another user's key, and never holds the value. */
static void
test_phantom_stable(void **state)
{
	char tmpl[] = "/tmp/ward-test-phantom-XXXXXX", other[64];
	char a[SECRETS_PHANTOM_LEN + 1], b[SECRETS_PHANTOM_LEN + 1];
	unsigned char k1[SECRETS_KEY_LEN], k2[SECRETS_KEY_LEN];
	cleanup_free char *path = NULL, *cause = NULL;
	struct policy p;
	struct secrets s1, s2;
	struct stat st;
	const char *dir;

	(void)state;
	assert_non_null(dir = mkdtemp(tmpl));
	setenv("XDG_STATE_HOME", dir, 1);
	assert_int_equal(secrets_key(k1, &cause), 0);
	path = xasprintf("%s/ward/%s", dir, SECRETS_KEY_FILE);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(secrets_key(k2, &cause), 0);
	assert_memory_equal(k1, k2, sizeof k1);

	policy_init(&p);
	add_secret(&p, "WARD_TEST_GATE_SECRET", "api.test", "x-api-key");
	setenv("WARD_TEST_GATE_SECRET", "value-one", 1);
	assert_int_equal(secrets_load(&s1, &p, &cause), 0);
	setenv("WARD_TEST_GATE_SECRET", "value-two", 1);
	assert_int_equal(secrets_load(&s2, &p, &cause), 0);
	assert_string_equal(s1.v[0].phantom, s2.v[0].phantom);
	assert_int_equal(strlen(s1.v[0].phantom), SECRETS_PHANTOM_LEN);
	assert_true(strncmp(s1.v[0].phantom, SECRETS_PREFIX,
	    strlen(SECRETS_PREFIX)) == 0);
	secrets_phantom(k1, "WARD_TEST_GATE_SECRET", a);
	assert_string_equal(a, s1.v[0].phantom);
	secrets_phantom(k1, "ANOTHER", b);
	assert_string_not_equal(a, b);
	k2[0] ^= 1;		/* another user's key */
	secrets_phantom(k2, "WARD_TEST_GATE_SECRET", b);
	assert_string_not_equal(a, b);
	secrets_done(&s1);
	secrets_done(&s2);

	/* Readable by others, or not ours: refused, naming the file. */
	assert_int_equal(chmod(path, 0640), 0);
	assert_true(secrets_key(k1, &cause) < 0);
	assert_non_null(strstr(cause, "phantom.key: others may read it"));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_true(secrets_key(k1, &cause) < 0);
	assert_non_null(strstr(cause, "phantom.key: "));
	assert_int_equal(unlink(path), 0);
	snprintf(other, sizeof other, "%s/ward", dir);
	assert_int_equal(rmdir(other), 0);
	assert_int_equal(rmdir(dir), 0);
	unsetenv("XDG_STATE_HOME");
	policy_done(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phantom_stable),
		cmocka_unit_test_setup_teardown(test_phantom_replaced_in_its_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phantom_elsewhere_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_body_scan_across_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_body_scan_many_phantoms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_is_the_connections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_heads_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_requests_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phantom_split_by_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipelined_and_keepalive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chunked_upload_passes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rules_deny_and_ask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusal_waits_for_earlier_responses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interim_and_close_delimited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answered_before_body_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upgrade_and_bad_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_any_cut_same_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_override_headers, setup, teardown),
		cmocka_unit_test(test_path_glob),
		cmocka_unit_test(test_secret_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
