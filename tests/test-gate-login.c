/* SPDX-License-Identifier: MIT */
/* supervisor/gate/login.c and its part of flow.c (issue 33): a login
 * file's tokens made phantoms (a JWT keeps its header and payload), the
 * file's copy for the sandbox, the refresh's request (phantoms made
 * tokens, a login inside refused) and its reply (new tokens made new
 * phantoms, the host's file rewritten in place by the keeper). Real
 * objects: a policy parsed from text, secrets loaded, flows fed bytes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/policy.h"
#include "config/util.h"
#include "supervisor/gate/flow.h"
#include "supervisor/gate/login.h"
#include "supervisor/gate/secrets.h"
#include "supervisor/gate/wire.h"
#include "tests/gate-flow-fx.h"

#define AT	"at-real-0123456789abcdef"
#define RT	"rt-real/0123+4567="
#define RT_FORM	"rt-real%2F0123%2B4567%3D"
#define JWT_HP	"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0."
#define JWT_SIG	"c2lnbmF0dXJlLXNlY3JldA"
#define JWT	JWT_HP JWT_SIG
#define NEWAT	"at-new-fedcba9876543210"
#define NEWRT	"rt-new-aaaabbbbcccc"

/* The login file, spaced oddly (kept byte for byte): accessToken,
 * refreshToken, idToken. */
#define CREDS_FMT "{\n  \"o\" : {\n    \"accessToken\":\"%s\",\n" \
	"    \"refreshToken\":  \"%s\",\n    \"idToken\": \"%s\",\n" \
	"    \"expiresAt\": 1700000000000,\n" \
	"    \"scopes\": [\"user:inference\", \"user:profile\"]\n  },\n" \
	"  \"note\": \"kept as is\"\n}\n"

#define TOKEN_PATH	"/v1/oauth/token"

static void
load_policy(struct policy *p, const char *file)
{
	cleanup_free char *ini = xasprintf("[secret LOGIN]\n"
	    "from = file-json:%s\n"
	    "fields = o.accessToken=access_token "
	    "o.refreshToken=refresh_token o.idToken\n"
	    "hosts = api.test:443\n"
	    "header = authorization: Bearer {}\n"
	    "refresh = auth.test:443" TOKEN_PATH "\n", file);
	char *cause = NULL;

	if (policy_load_string(p, ini, "policy.ini", &cause) < 0)
		fail_msg("%s", cause);
}

static int
setup(void **state)
{
	struct fx *x = xcalloc(1, sizeof *x);
	cleanup_free char *creds = xasprintf(CREDS_FMT, AT, RT, JWT);
	const char *values[] = { creds };
	char *cause = NULL;

	load_policy(&x->p, "/nonexistent/ward-test/creds.json");
	if (secrets_set(&x->s, &x->p, values, &cause) < 0)
		fail_msg("%s", cause);
	assert_int_equal(x->s.n, 3);
	*state = x;
	return 0;
}

static bool
is_phantom(const char *s)
{
	if (strlen(s) != SECRETS_PHANTOM_LEN ||
	    strncmp(s, SECRETS_PREFIX, sizeof SECRETS_PREFIX - 1) != 0)
		return false;
	for (s += sizeof SECRETS_PREFIX - 1; *s != '\0'; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* No message of x's holds any of toks in any of its text fields. */
static void
no_token_in_msgs(const struct fx *x, const char *const *toks)
{
	for (size_t i = 0; i < x->nm; i++) {
		const struct gate_msg *m = &x->m[i];
		const char *fields[] = { m->method, m->host, m->name, m->path,
			m->rule, m->text };

		for (size_t j = 0; j < ARRAY_SIZE(fields); j++)
			for (const char *const *t = toks; *t != NULL; t++)
				if (strstr(fields[j], *t) != NULL)
					fail_msg("message %zu field %zu holds a "
					    "token: %s", i, j, fields[j]);
	}
}

/* An HTTP message: head (its first line and the headers before
 * Content-Length), then the Content-Length of body and body. */
static char *
http_msg(const char *head, const char *body)
{
	return xasprintf("%sContent-Length: %zu\r\n\r\n%s", head,
	    strlen(body), body);
}

/* ---- login_jwt_sig, login_phantom ---- */

static void
test_jwt_sig(void **state)
{
	static const char *const zero[] = {
		"eyJhbGci.eyJzdWIi",		/* two segments */
		"eyJhbGci..c2lnbmF0",		/* an empty payload */
		"eyJhbGci.eyJzdWIi.",		/* an empty signature */
		"eyJhbGci.eyJzdWIi.c2ln.bW9y",	/* four */
		"eyJhbGci.eyJ+dWIi.c2lnbmF0",	/* + is not base64url */
		"eyJhbGci.eyJzdWIi.c2lu=",	/* nor padding */
		"eyJhbGci.eyJzdWIi.c2 ln",
		"abcdefgh.eyJzdWIi.c2lnbmF0",	/* not a JOSE header */
		"EYJhbGci.eyJzdWIi.c2lnbmF0",
		"eyJ.a.b",			/* too short */
		"sk-ant-oat01-abcdefghijklmnop",
		"",
	};

	(void)state;
	assert_int_equal(login_jwt_sig(JWT, strlen(JWT)), strlen(JWT_HP));
	assert_int_equal(login_jwt_sig("eyJhbGci.eyJzdWIi.c2ln", 22), 18);
	assert_int_equal(login_jwt_sig("eyJh-_9.eyJ_-.s", 15), 14);
	/* Only n bytes count: a NUL-free prefix of a longer string. */
	assert_int_equal(login_jwt_sig("eyJhbGci.eyJzdWIi.c2ln\"tail", 22), 18);
	for (size_t i = 0; i < ARRAY_SIZE(zero); i++)
		if (login_jwt_sig(zero[i], strlen(zero[i])) != 0)
			fail_msg("%s: a signature at %zu", zero[i],
			    login_jwt_sig(zero[i], strlen(zero[i])));
}

static void
test_phantom_form(void **state)
{
	unsigned char k1[SECRETS_KEY_LEN], k2[SECRETS_KEY_LEN];
	char a[SECRETS_PHANTOM_LEN + 1], b[SECRETS_PHANTOM_LEN + 1];
	char v[SECRETS_PHANTOM_LEN + 1];

	(void)state;
	memset(k1, 0x11, sizeof k1);
	memset(k2, 0x11, sizeof k2);
	k2[31] = 0x12;
	login_phantom(k1, "LOGIN", "o.accessToken", AT, strlen(AT), a);
	assert_true(is_phantom(a));
	login_phantom(k1, "LOGIN", "o.accessToken", AT, strlen(AT), b);
	assert_string_equal(a, b);
	/* Another value, field, name, key: another phantom. */
	login_phantom(k1, "LOGIN", "o.accessToken", NEWAT, strlen(NEWAT), b);
	assert_true(is_phantom(b));
	assert_string_not_equal(a, b);
	login_phantom(k1, "LOGIN", "o.accessToken", AT, strlen(AT) - 1, b);
	assert_string_not_equal(a, b);
	login_phantom(k1, "LOGIN", "o.refreshToken", AT, strlen(AT), b);
	assert_string_not_equal(a, b);
	login_phantom(k1, "LOGIN2", "o.accessToken", AT, strlen(AT), b);
	assert_string_not_equal(a, b);
	login_phantom(k2, "LOGIN", "o.accessToken", AT, strlen(AT), b);
	assert_string_not_equal(a, b);
	/* name and field do not run together. */
	login_phantom(k1, "ab", "c", AT, strlen(AT), a);
	login_phantom(k1, "a", "bc", AT, strlen(AT), b);
	assert_string_not_equal(a, b);
	/* Never a variable's phantom of the same name. */
	secrets_phantom(k1, "LOGIN", v);
	login_phantom(k1, "LOGIN", "", "", 0, a);
	assert_string_not_equal(a, v);
}

/* ---- login_load (through secrets_set) ---- */

static void
test_load_inside_copy(void **state)
{
	struct fx *x = *state;
	const struct secrets *s = &x->s;
	cleanup_free char *want = NULL, *jwt_in = NULL;

	assert_int_equal(s->n_files, 1);
	assert_ptr_equal(s->files[0].ps, &x->p.secrets[0]);
	/* The values: the tokens, a JWT's signature alone. */
	assert_int_equal(s->v[0].len, strlen(AT));
	assert_memory_equal(s->v[0].value, AT, strlen(AT));
	assert_int_equal(s->v[1].len, strlen(RT));
	assert_memory_equal(s->v[1].value, RT, strlen(RT));
	assert_int_equal(s->v[2].len, strlen(JWT_SIG));
	assert_memory_equal(s->v[2].value, JWT_SIG, strlen(JWT_SIG));
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(s->v[i].field, (int)i);
		assert_true(is_phantom(s->v[i].phantom));
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(s->v[i].phantom,
			    s->v[j].phantom);
	}
	/* The phantom is of the whole token, JWT or not. */
	{
		char p[SECRETS_PHANTOM_LEN + 1];

		login_phantom(s->key, "LOGIN", "o.idToken", JWT, strlen(JWT), p);
		assert_string_equal(p, s->v[2].phantom);
		login_phantom(s->key, "LOGIN", "o.accessToken", AT, strlen(AT),
		    p);
		assert_string_equal(p, s->v[0].phantom);
	}
	/* Inside: every byte the same but the tokens. */
	jwt_in = xasprintf(JWT_HP "%s", s->v[2].phantom);
	want = xasprintf(CREDS_FMT, s->v[0].phantom, s->v[1].phantom, jwt_in);
	assert_int_equal(s->files[0].len, strlen(want));
	assert_string_equal(s->files[0].inside, want);
	assert_null(strstr(s->files[0].inside, AT));
	assert_null(strstr(s->files[0].inside, RT));
	assert_null(strstr(s->files[0].inside, JWT_SIG));
}

/* text as the login file refused: the cause names [secret LOGIN] (and
 * field, when not NULL), never the value SEKRETVAL. */
static void
load_refused(struct secrets *s, struct policy *p, const char *text,
    const char *field)
{
	const char *values[] = { text };
	cleanup_free char *cause = NULL;

	assert_true(secrets_set(s, p, values, &cause) < 0);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "[secret LOGIN]"));
	if (field != NULL)
		assert_non_null(strstr(cause, field));
	if (strstr(cause, "SEKRETVAL") != NULL)
		fail_msg("the cause holds the value: %s", cause);
}

static void
test_load_absent_and_refused(void **state)
{
	struct policy p;
	struct secrets s;
	char *cause = NULL;

	(void)state;
	load_policy(&p, "/nonexistent/ward-test/creds.json");

	/* accessToken null, idToken absent: left, their slots empty. */
	{
		const char *text = "{\"o\":{\"accessToken\":null,"
		    "\"refreshToken\":\"" RT "\",\"n\":1}}";
		const char *values[] = { text };
		cleanup_free char *want = NULL;

		assert_int_equal(secrets_set(&s, &p, values, &cause), 0);
		assert_int_equal(s.n, 3);
		assert_int_equal(s.v[0].len, 0);
		assert_int_equal(s.v[2].len, 0);
		assert_int_equal(s.v[1].len, strlen(RT));
		want = xasprintf("{\"o\":{\"accessToken\":null,"
		    "\"refreshToken\":\"%s\",\"n\":1}}", s.v[1].phantom);
		assert_int_equal(s.n_files, 1);
		assert_string_equal(s.files[0].inside, want);
		/* An empty slot is no phantom's. */
		assert_null(secrets_at(&s, s.v[0].phantom,
		    SECRETS_PHANTOM_LEN));
		assert_ptr_equal(secrets_at(&s, s.v[1].phantom,
		    SECRETS_PHANTOM_LEN), &s.v[1]);
		secrets_done(&s);
	}
	/* A token the file also holds inside another string ("Bearer
	 * TOKEN"): its phantom there too, the rest as it was. */
	{
		const char *text = "{\"o\":{\"accessToken\":\"" AT "\"},"
		    "\"h\":\"Bearer " AT "; r=" RT "\"}";
		const char *values[] = { text };
		cleanup_free char *want = NULL;

		assert_int_equal(secrets_set(&s, &p, values, &cause), 0);
		want = xasprintf("{\"o\":{\"accessToken\":\"%s\"},"
		    "\"h\":\"Bearer %s; r=" RT "\"}", s.v[0].phantom,
		    s.v[0].phantom);
		/* RT is no token of this file (no field holds it): kept. */
		assert_string_equal(s.files[0].inside, want);
		assert_null(strstr(s.files[0].inside, AT));
		secrets_done(&s);
	}
	/* A token ward cannot carry: refused, the secret and the field
	 * named, never the value. */
	{
		static const char *const bad[] = {
			"{\"o\":{\"accessToken\":\"SEKRETVAL\\\"x\"}}",
			"{\"o\":{\"accessToken\":\"SEKRETVAL\\u0001x\"}}",
			"{\"o\":{\"accessToken\":\"SEKRETVAL\\nx\"}}",
			"{\"o\":{\"accessToken\":\"SEKRETVAL\\\\x\"}}",
		};

		for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
			load_refused(&s, &p, bad[i], "o.accessToken");
	}
	/* Not a JSON object. */
	{
		static const char *const bad[] = {
			"not json", "[\"SEKRETVAL\"]", "",
			"{\"o\":{\"accessToken\":\"SEKRETVAL",
		};

		for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
			load_refused(&s, &p, bad[i], NULL);
	}
	free(cause);
	policy_done(&p);
}

/* ---- the flow: a request to the API, the refresh ---- */

static void
test_api_header(void **state)
{
	struct fx *x = *state;
	cleanup_free char *req = NULL, *up = NULL;

	open_flow(x, "api.test");
	req = xasprintf("GET /v1/messages HTTP/1.1\r\nHost: api.test\r\n"
	    "Authorization: Bearer %s\r\n\r\n", ph(x, 0));
	assert_int_equal(feed(x, req), strlen(req));
	up = text(flow_up(x->f));
	assert_string_equal(up, "GET /v1/messages HTTP/1.1\r\nHost: api.test\r\n"
	    "Authorization: Bearer " AT "\r\n\r\n");
	assert_int_equal(flow_down(x->f)->len, 0);

	/* A JWT: the phantom after its header and payload is its
	 * signature. */
	open_flow(x, "api.test");
	free(req);
	req = xasprintf("GET /v1/me HTTP/1.1\r\nHost: api.test\r\n"
	    "Authorization: Bearer " JWT_HP "%s\r\n\r\n", ph(x, 2));
	assert_int_equal(feed(x, req), strlen(req));
	free(up);
	up = text(flow_up(x->f));
	assert_string_equal(up, "GET /v1/me HTTP/1.1\r\nHost: api.test\r\n"
	    "Authorization: Bearer " JWT "\r\n\r\n");
}

/* POST the refresh's body on a new flow to auth.test; what went up. */
static char *
post_refresh(struct fx *x, const char *type, const char *body)
{
	cleanup_free char *req = NULL;

	open_flow(x, "auth.test");
	req = xasprintf("POST " TOKEN_PATH " HTTP/1.1\r\nHost: auth.test\r\n"
	    "Content-Type: %s\r\nContent-Length: %zu\r\n\r\n%s", type,
	    strlen(body), body);
	assert_int_equal(feed(x, req), strlen(req));
	return text(flow_up(x->f));
}

static void
test_refresh_request(void **state)
{
	struct fx *x = *state;
	cleanup_free char *body = NULL, *up = NULL, *want = NULL;
	cleanup_free char *head = NULL;
	const char *real = "{\"grant_type\":\"refresh_token\",\"refresh_token\":"
	    "\"" RT "\",\"client_id\":\"c\"}";

	/* JSON: the token as it is, the length made again. */
	body = xasprintf("{\"grant_type\":\"refresh_token\",\"refresh_token\":"
	    "\"%s\",\"client_id\":\"c\"}", ph(x, 1));
	up = post_refresh(x, "application/json", body);
	want = http_msg("POST " TOKEN_PATH " HTTP/1.1\r\nHost: auth.test\r\n"
	    "Content-Type: application/json\r\n", real);
	assert_string_equal(up, want);
	assert_int_equal(flow_down(x->f)->len, 0);
	assert_int_equal(x->nm, 0);

	/* Held whole: nothing goes up before its end. */
	open_flow(x, "auth.test");
	head = xasprintf("POST " TOKEN_PATH " HTTP/1.1\r\nHost: auth.test\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
	    strlen(body));
	feed(x, head);
	assert_int_equal(flow_from_client(x->f, body, 40), 40);
	assert_int_equal(flow_up(x->f)->len, 0);
	feed(x, body + 40);
	free(up);
	up = text(flow_up(x->f));
	assert_string_equal(up, want);

	/* Chunked in, the phantom cut across chunks: a Content-Length out. */
	open_flow(x, "auth.test");
	free(head);
	head = xasprintf("POST " TOKEN_PATH " HTTP/1.1\r\nHost: auth.test\r\n"
	    "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
	    "\r\n%zx\r\n%.50s\r\n%zx\r\n%s\r\n0\r\n\r\n", (size_t)50, body,
	    strlen(body) - 50, body + 50);
	assert_int_equal(feed(x, head), strlen(head));
	free(up);
	up = text(flow_up(x->f));
	assert_string_equal(up, want);
	assert_null(strstr(up, "chunked"));

	/* A form: the token percent-encoded. */
	free(body);
	body = xasprintf("grant_type=refresh_token&refresh_token=%s&"
	    "client_id=c", ph(x, 1));
	free(up);
	up = post_refresh(x, "application/x-www-form-urlencoded", body);
	free(want);
	want = http_msg("POST " TOKEN_PATH " HTTP/1.1\r\nHost: auth.test\r\n"
	    "Content-Type: application/x-www-form-urlencoded\r\n",
	    "grant_type=refresh_token&refresh_token=" RT_FORM "&client_id=c");
	assert_string_equal(up, want);
	no_token_in_msgs(x, (const char *const[]){ AT, RT, JWT_SIG, NULL });
}

static void
expect_login_refused(struct fx *x, const char *up)
{
	cleanup_free char *down = text(flow_down(x->f));

	assert_string_equal(up, "");
	assert_true(strncmp(down, "HTTP/1.1 403 Forbidden\r\n", 24) == 0);
	assert_non_null(strstr(down, "log in on the host"));
	assert_non_null(strstr(down, "[secret LOGIN]"));
	assert_true(flow_closing(x->f));
	assert_int_equal(x->nm, 1);
	assert_int_equal(x->m[0].type, GATE_HTTP);
	assert_int_equal(x->m[0].verdict, GATE_DENY);
	assert_int_equal(x->m[0].status, 403);
}

static void
test_login_inside_refused(void **state)
{
	struct fx *x = *state;

	/* A login's code exchange, form and JSON. */
	{
		cleanup_free char *up = post_refresh(x,
		    "application/x-www-form-urlencoded",
		    "grant_type=authorization_code&code=abc&code_verifier=v");

		expect_login_refused(x, up);
	}
	{
		cleanup_free char *up = post_refresh(x, "application/json",
		    "{\"grant_type\":\"authorization_code\",\"code\":\"abc\"}");

		expect_login_refused(x, up);
	}
	/* A refresh with a token of its own, or the real one. */
	{
		cleanup_free char *up = post_refresh(x, "application/json",
		    "{\"grant_type\":\"refresh_token\",\"refresh_token\":"
		    "\"rt-own\"}");

		expect_login_refused(x, up);
	}
	{
		cleanup_free char *up = post_refresh(x, "application/json",
		    "{\"grant_type\":\"refresh_token\",\"refresh_token\":"
		    "\"" RT "\"}");
		cleanup_free char *down = text(flow_down(x->f));

		assert_string_equal(up, "");
		assert_true(strncmp(down, "HTTP/1.1 403", 12) == 0);
		assert_null(strstr(down, RT));
	}
	/* With a query after the path: the endpoint all the same. */
	{
		cleanup_free char *req = NULL, *up = NULL;
		const char *b = "grant_type=authorization_code&code=abc";

		open_flow(x, "auth.test");
		req = http_msg("POST " TOKEN_PATH "?x=1 HTTP/1.1\r\nHost: "
		    "auth.test\r\n", b);
		feed(x, req);
		up = text(flow_up(x->f));
		expect_login_refused(x, up);
	}
	/* Chunked, no phantom. */
	{
		cleanup_free char *up = NULL;
		const char *req = "POST " TOKEN_PATH " HTTP/1.1\r\nHost: "
		    "auth.test\r\nTransfer-Encoding: chunked\r\n\r\n"
		    "5\r\ncode=\r\n3\r\nabc\r\n0\r\n\r\n";

		open_flow(x, "auth.test");
		feed(x, req);
		up = text(flow_up(x->f));
		expect_login_refused(x, up);
	}
}

/* A refresh's reply fed in one read (or cut at cut, when not 0); the
 * flow had the JSON refresh sent. */
static void
refresh_then_reply(struct fx *x, const char *reply, size_t cut)
{
	cleanup_free char *body = NULL, *up = NULL;

	body = xasprintf("{\"grant_type\":\"refresh_token\",\"refresh_token\":"
	    "\"%s\"}", ph(x, 1));
	up = post_refresh(x, "application/json", body);
	assert_non_null(strstr(up, RT));
	assert_int_equal(x->nm, 0);
	if (cut > 0) {
		assert_int_equal(flow_from_upstream(x->f, reply, cut), 0);
		/* The reply is held whole. */
		assert_int_equal(flow_down(x->f)->len, 0);
		assert_int_equal(flow_from_upstream(x->f, reply + cut,
		    strlen(reply) - cut), 0);
	} else
		assert_int_equal(flow_from_upstream(x->f, reply,
		    strlen(reply)), 0);
}

/* refresh_then_reply with a 200 of body, in one read; what the client
 * got. */
static char *
refresh_200(struct fx *x, const char *body)
{
	cleanup_free char *reply = http_msg("HTTP/1.1 200 OK\r\n", body);

	refresh_then_reply(x, reply, 0);
	return text(flow_down(x->f));
}

static void
test_refresh_reply(void **state)
{
	struct fx *x = *state;
	cleanup_free char *reply = NULL, *down = NULL, *want = NULL;
	cleanup_free char *wbody = NULL, *req = NULL, *up = NULL;
	char old0[SECRETS_PHANTOM_LEN + 1], old1[SECRETS_PHANTOM_LEN + 1];
	const char *rbody = "{\"access_token\":\"" NEWAT "\",\"refresh_token\":"
	    "\"" NEWRT "\",\"expires_in\":3600,\"token_type\":\"Bearer\"}";

	strcpy(old0, ph(x, 0));
	strcpy(old1, ph(x, 1));
	reply = http_msg("HTTP/1.1 200 OK\r\n"
	    "Content-Type: application/json\r\n", rbody);
	refresh_then_reply(x, reply, 30);
	/* The gate's tokens renewed, their phantoms new. */
	assert_int_equal(x->s.v[0].len, strlen(NEWAT));
	assert_memory_equal(x->s.v[0].value, NEWAT, strlen(NEWAT));
	assert_int_equal(x->s.v[1].len, strlen(NEWRT));
	assert_memory_equal(x->s.v[1].value, NEWRT, strlen(NEWRT));
	assert_string_not_equal(ph(x, 0), old0);
	assert_string_not_equal(ph(x, 1), old1);
	assert_true(is_phantom(ph(x, 0)));
	{
		char p[SECRETS_PHANTOM_LEN + 1];

		login_phantom(x->s.key, "LOGIN", "o.accessToken", NEWAT,
		    strlen(NEWAT), p);
		assert_string_equal(p, ph(x, 0));
	}
	/* idToken has no =REPLY: as it was. */
	assert_int_equal(x->s.v[2].len, strlen(JWT_SIG));
	/* The client reads the new phantoms, the length right. */
	wbody = xasprintf("{\"access_token\":\"%s\",\"refresh_token\":\"%s\","
	    "\"expires_in\":3600,\"token_type\":\"Bearer\"}", ph(x, 0),
	    ph(x, 1));
	want = http_msg("HTTP/1.1 200 OK\r\n"
	    "Content-Type: application/json\r\n", wbody);
	down = text(flow_down(x->f));
	assert_string_equal(down, want);
	/* The record: refreshed, named, never a value. */
	assert_int_equal(x->nm, 2);
	assert_int_equal(x->m[0].type, GATE_REFRESH);
	assert_string_equal(x->m[0].name, "LOGIN");
	assert_string_equal(x->m[0].host, "auth.test");
	assert_string_equal(x->m[0].path, TOKEN_PATH);
	assert_non_null(strstr(x->m[0].text, "access_token, refresh_token"));
	assert_non_null(strstr(x->m[0].text, "not written"));
	assert_int_equal(x->m[1].type, GATE_HTTP);
	assert_int_equal(x->m[1].verdict, GATE_ALLOW);
	assert_int_equal(x->m[1].status, 200);
	assert_string_equal(x->m[1].name, "LOGIN");
	no_token_in_msgs(x, (const char *const[]){ AT, RT, NEWAT, NEWRT,
	    JWT_SIG, NULL });
	assert_false(flow_closing(x->f));

	/* The old phantom maps to nothing now; the new one to NEWAT. */
	open_flow(x, "api.test");
	req = xasprintf("GET /v1/a HTTP/1.1\r\nHost: api.test\r\n"
	    "Authorization: Bearer %s\r\n\r\n", old0);
	feed(x, req);
	up = text(flow_up(x->f));
	assert_non_null(strstr(up, old0));
	assert_null(strstr(up, AT));
	assert_null(strstr(up, NEWAT));
	open_flow(x, "api.test");
	free(req);
	req = xasprintf("GET /v1/a HTTP/1.1\r\nHost: api.test\r\n"
	    "Authorization: Bearer %s\r\n\r\n", ph(x, 0));
	feed(x, req);
	free(up);
	up = text(flow_up(x->f));
	assert_non_null(strstr(up, "Authorization: Bearer " NEWAT "\r\n"));
	/* And the next refresh carries the new refresh token. */
	{
		cleanup_free char *b = xasprintf("{\"refresh_token\":\"%s\"}",
		    ph(x, 1));
		cleanup_free char *u = post_refresh(x, "application/json", b);

		assert_non_null(strstr(u, "{\"refresh_token\":\"" NEWRT "\"}"));
	}
}

static void
test_refresh_reply_chunked_jwt(void **state)
{
	struct fx *x = *state;
	cleanup_free char *reply = NULL, *down = NULL, *want = NULL;
	cleanup_free char *wbody = NULL;
	/* A JWT access token, cut across chunks. */
	const char *nj = "eyJhbGciOiJFUzI1NiJ9.eyJleHAiOjF9.bmV3LXNpZ25hdHVyZQ";
	cleanup_free char *rbody = xasprintf("{\"access_token\":\"%s\","
	    "\"scope\":\"x\"}", nj);

	reply = xasprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
	    "\r\n%zx\r\n%.40s\r\n%zx\r\n%s\r\n0\r\n\r\n", (size_t)40, rbody,
	    strlen(rbody) - 40, rbody + 40);
	refresh_then_reply(x, reply, 60);
	assert_int_equal(x->s.v[0].len, strlen("bmV3LXNpZ25hdHVyZQ"));
	/* The refresh token is left: the reply names none. */
	assert_int_equal(x->s.v[1].len, strlen(RT));
	assert_memory_equal(x->s.v[1].value, RT, strlen(RT));
	wbody = xasprintf("{\"access_token\":\"eyJhbGciOiJFUzI1NiJ9."
	    "eyJleHAiOjF9.%s\",\"scope\":\"x\"}", ph(x, 0));
	want = http_msg("HTTP/1.1 200 OK\r\n", wbody);
	down = text(flow_down(x->f));
	assert_string_equal(down, want);
	assert_int_equal(x->m[0].type, GATE_REFRESH);
	assert_non_null(strstr(x->m[0].text, "access_token"));
	assert_null(strstr(x->m[0].text, "refresh_token"));
	no_token_in_msgs(x, (const char *const[]){ AT, RT,
	    "bmV3LXNpZ25hdHVyZQ", NULL });
}

static void
test_refresh_reply_refused_or_passed(void **state)
{
	struct fx *x = *state;
	char old0[SECRETS_PHANTOM_LEN + 1];

	strcpy(old0, ph(x, 0));
	/* A 2xx that is not JSON: a 502, nothing renewed. */
	{
		const char *reply = "HTTP/1.1 200 OK\r\nContent-Length: 14\r\n"
		    "\r\nnot json " NEWAT;
		cleanup_free char *down = NULL;

		/* Its body is over 14 bytes: trimmed to its length. */
		refresh_then_reply(x, reply, 0);
		down = text(flow_down(x->f));
		assert_true(strncmp(down, "HTTP/1.1 502 Bad Gateway\r\n", 26) == 0);
		assert_non_null(strstr(down, "not a JSON object"));
		assert_null(strstr(down, "not json"));
		assert_true(flow_closing(x->f));
		assert_string_equal(ph(x, 0), old0);
		assert_memory_equal(x->s.v[0].value, AT, strlen(AT));
		assert_int_equal(x->nm, 1);
		assert_int_equal(x->m[0].type, GATE_HTTP);
		assert_int_equal(x->m[0].verdict, GATE_DENY);
		assert_int_equal(x->m[0].status, 502);
	}
	/* A 400 passes as it is, scrubbed (it echoes the real token). */
	{
		cleanup_free char *reply = NULL, *down = NULL, *want = NULL;
		cleanup_free char *wbody = NULL;
		const char *b = "{\"error\":\"invalid_grant\",\"refresh_token\":"
		    "\"" RT "\"}";

		reply = http_msg("HTTP/1.1 400 Bad Request\r\nContent-Type: "
		    "application/json\r\n", b);
		refresh_then_reply(x, reply, 0);
		wbody = xasprintf("{\"error\":\"invalid_grant\","
		    "\"refresh_token\":\"%s\"}", ph(x, 1));
		want = http_msg("HTTP/1.1 400 Bad Request\r\nContent-Type: "
		    "application/json\r\n", wbody);
		down = text(flow_down(x->f));
		assert_string_equal(down, want);
		assert_string_equal(ph(x, 0), old0);
		assert_int_equal(x->nm, 1);
		assert_int_equal(x->m[0].type, GATE_HTTP);
		assert_int_equal(x->m[0].status, 400);
	}
	/* A 200 naming no token: passed, nothing renewed, no record. */
	{
		cleanup_free char *down = refresh_200(x, "{\"ok\":true}");

		assert_non_null(strstr(down, "\r\n\r\n{\"ok\":true}"));
		assert_string_equal(ph(x, 0), old0);
		assert_int_equal(x->nm, 1);
		assert_int_equal(x->m[0].type, GATE_HTTP);
	}
}

/* Content-Length of the response in down equals its body's length. */
static void
length_right(const char *down)
{
	const char *cl = strstr(down, "Content-Length: ");
	const char *body = strstr(down, "\r\n\r\n");

	assert_non_null(cl);
	assert_non_null(body);
	assert_int_equal(strtoul(cl + 16, NULL, 10), strlen(body + 4));
}

static void
test_refresh_reply_escaped_or_bad(void **state)
{
	struct fx *x = *state;
	char old0[SECRETS_PHANTOM_LEN + 1];

	/* The new token spelled with a JSON escape (\/): the client reads
	 * its phantom all the same. */
	{
		cleanup_free char *down = refresh_200(x,
		    "{\"access_token\":\"at-new\\/0123456789\",\"n\":1}");

		assert_int_equal(x->s.v[0].len, strlen("at-new/0123456789"));
		assert_memory_equal(x->s.v[0].value, "at-new/0123456789",
		    x->s.v[0].len);
		assert_true(strncmp(down, "HTTP/1.1 200 OK\r\n", 17) == 0);
		assert_non_null(strstr(down, ph(x, 0)));
		assert_null(strstr(down, "0123456789"));
		length_right(down);
		no_token_in_msgs(x, (const char *const[]){ "0123456789",
		    NULL });
	}
	/* A new token ward cannot carry: a 502, nothing renewed. */
	strcpy(old0, ph(x, 0));
	{
		cleanup_free char *down = refresh_200(x,
		    "{\"access_token\":\"SEKRETVAL\\u0001\"}");

		assert_true(strncmp(down, "HTTP/1.1 502", 12) == 0);
		assert_null(strstr(down, "SEKRETVAL"));
		assert_string_equal(ph(x, 0), old0);
		no_token_in_msgs(x, (const char *const[]){ "SEKRETVAL", NULL });
	}
}

/* login_renew of LOGIN with the reply's body b, out and what freed
 * first (NULL). */
static int
renew(struct fx *x, const char *b, char **out, size_t *outlen, char **what)
{
	free(*out);
	*out = NULL;
	free(*what);
	*what = NULL;
	return login_renew(&x->s, &x->p.secrets[0], b, strlen(b), out,
	    outlen, what);
}

static void
test_renew_no_keeper(void **state)
{
	struct fx *x = *state;
	cleanup_free char *what = NULL, *out = NULL, *want = NULL;
	size_t outlen = 0;

	assert_int_equal(x->s.keeper, -1);
	assert_int_equal(renew(x, "{\"access_token\":\"" NEWAT "\", "
	    "\"expires_in\":1}", &out, &outlen, &what), 1);
	assert_memory_equal(x->s.v[0].value, NEWAT, strlen(NEWAT));
	assert_non_null(strstr(what, "access_token renewed for this run"));
	assert_non_null(strstr(what, "not written"));
	assert_null(strstr(what, NEWAT));
	/* The reply as the sandbox reads it: its bytes, the phantom in. */
	want = xasprintf("{\"access_token\":\"%s\", \"expires_in\":1}",
	    ph(x, 0));
	assert_int_equal(outlen, strlen(want));
	assert_memory_equal(out, want, outlen);
	/* Not an object; none named. */
	assert_int_equal(renew(x, "[1]", &out, &outlen, &what), -EPROTO);
	assert_null(out);
	assert_int_equal(renew(x, "{\"token_type\":\"Bearer\"}", &out,
	    &outlen, &what), 0);
	assert_null(out);
	/* One ward cannot carry: not passed on, the token left, what
	 * names the field and never the value. */
	assert_int_equal(renew(x, "{\"access_token\":\"SEKRETVAL\\\"b\"}",
	    &out, &outlen, &what), -EPROTO);
	assert_null(out);
	assert_non_null(strstr(what, "access_token"));
	assert_null(strstr(what, "SEKRETVAL"));
	assert_memory_equal(x->s.v[0].value, NEWAT, strlen(NEWAT));
	assert_int_equal(x->s.v[0].len, strlen(NEWAT));
}

/* ---- a real file: secrets_load, the keeper ---- */

static char *
slurp(const char *path)
{
	cleanup_fd int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *t = NULL;
	size_t n = 0;

	assert_true(fd >= 0);
	assert_int_equal(read_fd_max(fd, 1 << 20, &t, &n), 0);
	return t;
}

static void
put_file(const char *path, const char *t, mode_t mode)
{
	cleanup_fd int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    mode);

	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(write_all(fd, t, strlen(t)), 0);
}

/* No .ward- file left in dir. */
static void
no_leftover(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (strstr(e->d_name, ".ward-") != NULL)
			fail_msg("%s/%s left behind", dir, e->d_name);
	closedir(d);
}

static void
test_keeper_rewrites_in_place(void **state)
{
	char tmpl[] = "/tmp/ward-test-login-XXXXXX";
	cleanup_free char *creds = NULL, *text = NULL, *got = NULL;
	cleanup_free char *want = NULL, *what = NULL, *sdir = NULL;
	cleanup_free char *rundir = NULL, *inside = NULL, *cause = NULL;
	char newph[SECRETS_PHANTOM_LEN + 1], *out = NULL;
	size_t outlen = 0;
	struct policy p;
	struct secrets s;
	struct stat st0, st1;
	const char *dir, *b;
	int wst;
	pid_t pid;

	(void)state;
	assert_non_null(dir = mkdtemp(tmpl));
	sdir = xasprintf("%s/state", dir);
	setenv("XDG_STATE_HOME", sdir, 1);
	creds = xasprintf("%s/creds.json", dir);
	text = xasprintf(CREDS_FMT, AT, RT, JWT);
	put_file(creds, text, 0600);
	assert_int_equal(stat(creds, &st0), 0);
	load_policy(&p, creds);
	if (secrets_load(&s, &p, &cause) < 0)
		fail_msg("%s", cause);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.n_files, 1);
	assert_memory_equal(s.v[0].value, AT, strlen(AT));

	/* The copy inside, written into the file the supervisor made. */
	rundir = xasprintf("%s/run", dir);
	assert_int_equal(mkdir(rundir, 0700), 0);
	assert_true(login_write_inside(&s, rundir, &cause) < 0);
	free(cause);
	cause = NULL;
	inside = xasprintf("%s/login-LOGIN.json", rundir);
	put_file(inside, "", 0600);
	assert_int_equal(login_write_inside(&s, rundir, &cause), 0);
	got = slurp(inside);
	assert_string_equal(got, s.files[0].inside);
	assert_null(strstr(got, AT));

	/* The keeper writes the new tokens into the file, in place. */
	assert_int_equal(login_keeper_start(&s, &cause), 0);
	assert_true(s.keeper >= 0);
	alarm(10);
	b = "{\"access_token\":\"" NEWAT "\",\"refresh_token\":\"" NEWRT "\","
	    "\"expires_in\":3600}";
	assert_int_equal(login_renew(&s, &p.secrets[0], b, strlen(b), &out,
	    &outlen, &what), 1);
	free(out);
	assert_non_null(strstr(what, "written to"));
	assert_null(strstr(what, "not written"));
	assert_non_null(strstr(what, creds));
	free(got);
	got = slurp(creds);
	want = xasprintf(CREDS_FMT, NEWAT, NEWRT, JWT);
	assert_string_equal(got, want);
	assert_int_equal(stat(creds, &st1), 0);
	assert_int_equal(st1.st_ino, st0.st_ino);
	assert_int_equal(st1.st_dev, st0.st_dev);
	assert_int_equal(st1.st_mode & 07777, 0600);
	no_leftover(dir);
	strcpy(newph, s.v[0].phantom);
	/* The host's file cut short meanwhile (its agent's write
	 * interrupted): not written, and what says so without the token
	 * near where the JSON broke. */
	{
		const char *cut = "{\"o\":{\"accessToken\":\"SEKRETVAL";
		cleanup_free char *w2 = NULL;

		put_file(creds, cut, 0600);
		assert_int_equal(login_renew(&s, &p.secrets[0], b, strlen(b),
		    &out, &outlen, &w2), 1);
		free(out);
		assert_non_null(strstr(w2, "not written"));
		if (strstr(w2, "SEKRETVAL") != NULL)
			fail_msg("what holds the file's token: %s", w2);
		free(got);
		got = slurp(creds);
		assert_string_equal(got, cut);
		no_leftover(dir);
		put_file(creds, want, 0600);
	}
	secrets_done(&s);
	/* The keeper ends with the gate's end of its socket. */
	pid = waitpid(-1, &wst, 0);
	assert_true(pid > 0);
	assert_true(WIFEXITED(wst));
	assert_int_equal(WEXITSTATUS(wst), 0);
	alarm(0);

	/* The next run reads the new token as the very phantom the
	 * refresh gave. */
	free(cause);
	cause = NULL;
	if (secrets_load(&s, &p, &cause) < 0)
		fail_msg("%s", cause);
	assert_string_equal(s.v[0].phantom, newph);
	assert_memory_equal(s.v[0].value, NEWAT, strlen(NEWAT));
	secrets_done(&s);

	/* A file not there: skipped, its slots empty, no copy. */
	assert_int_equal(unlink(creds), 0);
	assert_int_equal(secrets_load(&s, &p, &cause), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.n_files, 0);
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(s.v[i].len, 0);
	secrets_done(&s);

	/* A symbolic link: refused (the keeper would write through it). */
	{
		cleanup_free char *real = xasprintf("%s/real.json", dir);

		put_file(real, text, 0600);
		assert_int_equal(symlink(real, creds), 0);
		assert_true(secrets_load(&s, &p, &cause) < 0);
		assert_non_null(strstr(cause, "symbolic link"));
		assert_null(strstr(cause, AT));
		unlink(real);
	}
	unlink(creds);
	unlink(inside);
	rmdir(rundir);
	{
		cleanup_free char *key = xasprintf("%s/ward/%s", sdir,
		    SECRETS_KEY_FILE);
		cleanup_free char *wdir = xasprintf("%s/ward", sdir);

		unlink(key);
		rmdir(wdir);
		rmdir(sdir);
		rmdir(dir);
	}
	policy_done(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jwt_sig),
		cmocka_unit_test(test_phantom_form),
		cmocka_unit_test_setup_teardown(test_load_inside_copy, setup, teardown),
		cmocka_unit_test(test_load_absent_and_refused),
		cmocka_unit_test_setup_teardown(test_api_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_login_inside_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_reply_chunked_jwt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_reply_refused_or_passed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_reply_escaped_or_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_renew_no_keeper, setup, teardown),
		cmocka_unit_test(test_keeper_rewrites_in_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
