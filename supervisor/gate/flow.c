/* SPDX-License-Identifier: MIT */
#include "supervisor/gate/flow.h"

#include <arpa/inet.h>
#include <errno.h>
#include <http_parser.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "approvals/netdest.h"
#include "approvals/netrules.h"
#include "config/httppath.h"
#include "config/util.h"
#include "supervisor/gate/login.h"
#include "supervisor/gate/scrub.h"
#include "supervisor/gate/wire.h"

struct hdr {
	char	*name;
	char	*value;
};

struct req {
	uint64_t	 id;
	char		 method[16];
	char		*url;
	uint64_t	 up, down;
	unsigned	 status;
	char		*rule;		/* the rule that allowed it, or NULL */
	const char	*secret;	/* the secret put in, or NULL */
	bool		 sent;		/* some of it went up */
	bool		 http11;	/* HTTP/1.1 or later: takes chunked */
	bool		 done;		/* answered (out of the queue) while
					 * its body still comes */
	/* A POST to a login's token endpoint (login.h): held whole, its
	 * phantoms made tokens; its reply renews them. */
	const struct policy_secret *refresh;
};

struct flow {
	const struct policy	*p;
	struct secrets		*s;
	char			 host[256];
	unsigned		 port;
	uint64_t		 conn;
	struct flow_hooks	 hooks;
	uint64_t		*next_req;
	struct net_dest		 dest;
	bool			*bound;		/* per secret: host is one of its */
	bool			 scan_body;	/* some secret is not bound here */
	bool			*unbound;	/* !bound, or NULL: all bound */
	size_t			 body_keep;	/* what a body scan holds back */
	bool			 scrub;		/* values to keep from responses */
	size_t			*rules;		/* the HTTP rules of this host */
	size_t			 n_rules;

	http_parser		 rq, rs;
	struct buf		 up, down;

	/* The request being parsed. */
	struct req		*cur;
	struct buf		 url, field, value;
	bool			 in_value;
	struct hdr		*h;
	size_t			 nh;
	struct buf		 tail;		/* body bytes held back */
	struct buf		 rbody;		/* a refresh's body, held whole */
	bool			 held;
	bool			 stopped;	/* refused: read no more */
	const char		*malformed;	/* why its head is refused */

	/* Requests sent up, oldest first, awaiting their responses. */
	struct req		**q;
	size_t			 nq;
	char			*refusal;	/* our 403, after those */
	bool			 closing, cut;

	/* The response being parsed, when responses are scrubbed: its head
	 * re-serialized, its body re-framed (see rs_frame). */
	struct buf		 rs_reason, rs_field, rs_value;
	bool			 rs_in_value, rs_in_body;
	struct hdr		*rh;
	size_t			 nrh;
	enum {
		FRAME_SAME,	/* no body, or one to the upstream's close */
		FRAME_HOLD,	/* held whole: its Content-Length made again */
		FRAME_CHUNKED,	/* re-framed as chunks */
		FRAME_CLOSE,	/* to our close: the client is HTTP/1.0 */
	}			 rs_frame;
	struct scrub		 rs_scrub;
	struct buf		 rs_head;	/* FRAME_HOLD's head */
	struct buf		 rs_out;
	struct buf		 rs_raw;	/* a refresh's reply, held whole */
	bool			 rs_over;	/* the upstream is read no more */
};

static void
req_free(struct req *r)
{
	if (r == NULL)
		return;
	free(r->url);
	free(r->rule);
	free(r);
}

/* Free a list of headers, their values wiped: they may carry secrets. */
static void
hdrs_free(struct hdr **h, size_t *n)
{
	for (size_t i = 0; i < *n; i++) {
		free((*h)[i].name);
		if ((*h)[i].value != NULL)
			explicit_bzero((*h)[i].value, strlen((*h)[i].value));
		free((*h)[i].value);
	}
	free(*h);
	*h = NULL;
	*n = 0;
}

/* Move the header parsed into field and value onto the list, and empty
 * them for the next (the value wiped). */
static void
hdrs_push(struct hdr **h, size_t *n, struct buf *field, struct buf *value)
{
	buf_add(field, "", 1);
	buf_add(value, "", 1);
	*h = xreallocarray(*h, *n + 1, sizeof **h);
	(*h)[*n].name = xstrdup(buf_data(field));
	(*h)[*n].value = xstrdup(buf_data(value));
	(*n)++;
	buf_drop(field, field->len);
	explicit_bzero(value->p, value->cap);
	buf_drop(value, value->len);
}

static void
headers_clear(struct flow *f)
{
	hdrs_free(&f->h, &f->nh);
	buf_drop(&f->url, f->url.len);
	buf_drop(&f->field, f->field.len);
	buf_drop(&f->value, f->value.len);
	f->in_value = false;
}

/* ---- messages ---- */

static char *url_path(const char *);
static const struct policy_secret *refresh_of(const struct flow *);
static bool refresh_send(struct flow *);

static void
emit(struct flow *f, struct gate_msg *m)
{
	m->conn = f->conn;
	m->port = f->port;
	GATE_MSG_SET(m->host, f->host);
	f->hooks.emit(f->hooks.arg, m);
}

static void
emit_http(struct flow *f, const struct req *r, enum gate_verdict v,
    const char *why)
{
	struct gate_msg m = { .type = GATE_HTTP, .verdict = v };
	/* The path without its query: a query can carry data the record
	 * has no need of. */
	cleanup_free char *path = url_path(r->url ? r->url : "/");

	m.req = r->id;
	m.status = r->status;
	m.bytes_up = r->up;
	m.bytes_down = r->down;
	GATE_MSG_SET(m.method, r->method);
	GATE_MSG_SET(m.path, r->url ? path : "");
	GATE_MSG_SET(m.rule, r->rule ? r->rule : "");
	GATE_MSG_SET(m.name, r->secret ? r->secret : "");
	GATE_MSG_SET(m.text, why ? why : "");
	emit(f, &m);
}

/* ---- refusals ---- */

static void
refuse(struct flow *f, unsigned status, enum gate_verdict v, const char *why,
    const char *body)
{
	struct req *r = f->cur;
	const char *reason = status == 400 ? "Bad Request" : "Forbidden";

	f->stopped = true;
	if (HTTP_PARSER_ERRNO(&f->rq) == HPE_OK)
		http_parser_pause(&f->rq, 1);
	free(f->refusal);
	f->refusal = xasprintf("HTTP/1.1 %u %s\r\nContent-Type: text/plain; "
	    "charset=utf-8\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n"
	    "%s\n", status, reason, strlen(body) + 1, body);
	bool sent = r != NULL && r->sent && !r->done;	/* r is in the queue */

	if (r != NULL) {
		r->status = status;
		emit_http(f, r, v, why);
		if (r->sent)
			f->cut = true;
	}
	if (f->cut || f->nq == 0) {
		/* Nothing owed before it, or the upstream is cut (the
		 * responses still owed will not come). r, if sent, is in
		 * the queue and freed with it. */
		for (size_t i = 0; i < f->nq; i++) {
			if (f->q[i] != r)
				emit_http(f, f->q[i], GATE_ALLOW, "upstream cut");
			req_free(f->q[i]);
		}
		f->nq = 0;
		buf_add(&f->down, f->refusal, strlen(f->refusal));
		f->closing = true;
	}
	if (r != NULL && !sent)
		req_free(r);
	f->cur = NULL;
}

/*
 * value: the secret's real value, not its phantom, is where it may not
 * go (the sandbox learned it somehow: an upstream that reflected it
 * before responses were scrubbed, a file it should not have read). The
 * message names the secret and the place, never the value.
 */
static void
refuse_secret(struct flow *f, const struct secret *sc, const char *where,
    bool value)
{
	struct gate_msg m = { .type = GATE_SECRET, .verdict = GATE_DENY_SECRET };
	cleanup_free char *why = NULL, *body = NULL, *text = NULL;
	cleanup_free char *path = url_path(f->cur->url ? f->cur->url : "/");

	text = value ? xasprintf("%s (its real value)", where) : xstrdup(where);
	GATE_MSG_SET(m.name, sc->ps->name);
	GATE_MSG_SET(m.method, f->cur->method);
	GATE_MSG_SET(m.path, path);
	GATE_MSG_SET(m.text, text);
	m.req = f->cur->id;
	emit(f, &m);
	why = xasprintf("the %s of %s in the %s", value ? "value" : "phantom",
	    sc->ps->name, where);
	body = xasprintf("ward: the %s of secret %s may not go in the "
	    "%s of a request to %s:%u", value ? "value" : "placeholder",
	    sc->ps->name, where, f->host, f->port);
	refuse(f, 403, GATE_DENY_SECRET, why, body);
}

/* ---- phantoms ---- */

/* The first phantom in s[0..n), or NULL; its offset in *at. */
static const struct secret *
phantom_in(const struct flow *f, const char *s, size_t n, size_t *at)
{
	const size_t pl = sizeof SECRETS_PREFIX - 1;
	const char *p = s, *end = s + n;

	while ((p = memmem(p, (size_t)(end - p), SECRETS_PREFIX, pl)) != NULL) {
		const struct secret *sc = secrets_at(f->s, p, (size_t)(end - p));

		if (sc != NULL) {
			if (at != NULL)
				*at = (size_t)(p - s);
			return sc;
		}
		p++;
	}
	return NULL;
}

static size_t
secret_index(const struct flow *f, const struct secret *sc)
{
	return (size_t)(sc - f->s->v);
}

/* The first value in s[0..n) of a secret not bound to this host, or
 * NULL: a value may go to its own hosts only. */
static const struct secret *
value_in(const struct flow *f, const char *s, size_t n)
{
	return f->unbound != NULL ?
	    scrub_value_in(f->s, f->unbound, s, n, NULL) : NULL;
}

/* ---- rules ---- */

static char *
rule_text(const struct policy_host *h)
{
	char ports[32] = "";

	if (h->port_lo == h->port_hi)
		snprintf(ports, sizeof ports, ":%u", h->port_lo);
	else if (h->port_lo != 0 || h->port_hi != 65535)
		snprintf(ports, sizeof ports, ":%u-%u", h->port_lo, h->port_hi);
	return xasprintf("%s%s %s %s", h->host, ports,
	    h->method ? h->method : "*", h->path ? h->path : "/**");
}

static char *
rules_joined(const struct flow *f, const char *sep)
{
	struct buf b = { 0 };
	char *s;

	for (size_t i = 0; i < f->n_rules; i++) {
		cleanup_free char *t = rule_text(&f->p->net_allow[f->rules[i]]);

		buf_addf(&b, "%s%s%s", i ? "; " : "", sep, t);
	}
	buf_add(&b, "", 1);
	s = xstrdup(buf_data(&b));
	buf_free(&b);
	return s;
}

/* The request's path without its query: origin-form, or the path of an
 * absolute URL. */
static char *
url_path(const char *url)
{
	struct http_parser_url u;

	if (url[0] == '/')
		return xstrndup(url, strcspn(url, "?#"));
	http_parser_url_init(&u);
	if (http_parser_parse_url(url, strlen(url), 0, &u) == 0 &&
	    (u.field_set & (1 << UF_PATH)))
		return xstrndup(url + u.field_data[UF_PATH].off,
		    u.field_data[UF_PATH].len);
	return xstrdup(url[0] == '*' ? "*" : "/");
}

/*
 * A rule judges the path as the gate reads it, the server reads it
 * again: one it could read otherwise (config/httppath.h) is refused, a
 * 400 before any rule is tried, never asked (a person sees the same
 * glob and the same bytes) and never rewritten.
 */
static bool
path_refused(struct flow *f)
{
	const char *why = httppath_check(f->cur->url);
	cleanup_free char *text = NULL, *body = NULL;

	if (why == NULL)
		return false;
	text = xasprintf("path not canonical: %s", why);
	body = xasprintf("ward: bad request: the path is not canonical: %s "
	    "(the rules of %s:%u match canonical paths only)", why, f->host,
	    f->port);
	refuse(f, 400, GATE_DENY, text, body);
	return true;
}

/*
 * Headers by which a server takes the path or the method from elsewhere
 * than the request line the rule judged: Symfony and IIS's URL Rewrite
 * route by X-Original-URL and X-Rewrite-URL, Google's APIs, ASP.NET and
 * Express's method-override by X-HTTP-Method-Override and its kin (a
 * POST the rule allowed would be a DELETE). Refused on a host with
 * rules, a 400 like a path not canonical.
 */
static bool
override_refused(struct flow *f)
{
	static const char *const names[] = {
		"x-original-url", "x-rewrite-url", "x-http-method-override",
		"x-http-method", "x-method-override",
	};
	cleanup_free char *text = NULL, *body = NULL;
	const char *name = NULL;

	for (size_t i = 0; i < f->nh && name == NULL; i++)
		for (size_t j = 0; j < ARRAY_SIZE(names); j++)
			if (strcasecmp(f->h[i].name, names[j]) == 0)
				name = names[j];
	if (name == NULL)
		return false;
	text = xasprintf("a header that overrides the request line: %s", name);
	body = xasprintf("ward: bad request: %s would have the server read "
	    "another path or method than the rules of %s:%u judge", name,
	    f->host, f->port);
	refuse(f, 400, GATE_DENY, text, body);
	return true;
}

/* Which rule allows the request (its text), or NULL. The URL is
 * canonical (path_refused). */
static char *
rule_allows(const struct flow *f, const char *method, const char *url)
{
	cleanup_free char *path = url_path(url);

	for (size_t i = 0; i < f->n_rules; i++) {
		const struct policy_host *h = &f->p->net_allow[f->rules[i]];

		if (h->method != NULL && strcmp(h->method, "*") != 0 &&
		    strcasecmp(h->method, method) != 0)
			continue;
		if (h->path != NULL && !policy_http_path_match(h->path, path))
			continue;
		return rule_text(h);
	}
	return NULL;
}

/* ---- the host a request names ---- */

/* Is name[0..n) the connection's host (a final dot aside)? */
static bool
name_ours(const struct flow *f, const char *name, size_t n)
{
	if (n > 0 && name[n - 1] == '.')
		n--;
	return n > 0 && n == strlen(f->host) &&
	    strncasecmp(name, f->host, n) == 0;
}

/* Is p[0..n) (digits, or nothing: the default) the connection's port? */
static bool
port_ours(const struct flow *f, const char *p, size_t n)
{
	unsigned long v = 0;

	if (n == 0)
		return true;
	if (n > 5)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	return v == f->port;
}

/* A Host header's value: "name", "name:port", "[v6]" or "[v6]:port". */
static bool
authority_ours(const struct flow *f, const char *a)
{
	size_t n = strlen(a), nl;
	const char *name = a, *rest;

	while (n > 0 && (a[n - 1] == ' ' || a[n - 1] == '\t'))
		n--;
	if (n > 0 && a[0] == '[') {
		const char *rb = memchr(a, ']', n);

		if (rb == NULL)
			return false;
		name = a + 1;
		nl = (size_t)(rb - name);
		rest = rb + 1;
	} else {
		const char *colon = memchr(a, ':', n);

		nl = colon != NULL ? (size_t)(colon - a) : n;
		rest = a + nl;
	}
	if (rest < a + n && *rest++ != ':')
		return false;
	return name_ours(f, name, nl) &&
	    port_ours(f, rest, (size_t)(a + n - rest));
}

/*
 * Why the request names a host other than the connection's, or NULL.
 * The server routes by the Host header (or an absolute URL's host): one
 * naming another host (domain fronting through a shared front end)
 * would take the secret, judged for this host, to that one.
 */
static const char *
host_wrong(const struct flow *f)
{
	const char *url = f->cur->url, *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < f->nh; i++)
		if (strcasecmp(f->h[i].name, "host") == 0) {
			v = f->h[i].value;
			n++;
		}
	if (n > 1)
		return "more than one Host header";
	if (n == 1 && !authority_ours(f, v))
		return "the Host header names another host";
	/* None (HTTP/1.0 allows it): the server's default host, which a
	 * shared front end may make another's. */
	if (n == 0)
		return "no Host header";
	if (url[0] != '/' && url[0] != '*') {
		struct http_parser_url u;

		http_parser_url_init(&u);
		if (http_parser_parse_url(url, strlen(url), 0, &u) != 0 ||
		    !(u.field_set & (1 << UF_HOST)) ||
		    !name_ours(f, url + u.field_data[UF_HOST].off,
		    u.field_data[UF_HOST].len) ||
		    ((u.field_set & (1 << UF_PORT)) && !port_ours(f,
		    url + u.field_data[UF_PORT].off,
		    u.field_data[UF_PORT].len)))
			return "the URL names another host";
	}
	return NULL;
}

/* ---- the request side ---- */

static struct flow *
of(http_parser *hp)
{
	return hp->data;
}

/* A header name of token characters only (RFC 9110 5.6.2). */
static bool
header_name_ok(const char *n, size_t len)
{
	static const char tchar[] = "!#$%&'*+-.^_`|~";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)n[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z') || (c != '\0' && strchr(tchar, c))))
			return false;
	}
	return len > 0;
}

/*
 * http-parser, built lenient, takes a space or a tab in a header name
 * ("Host : other.test": a server as lenient reads a second Host), a NUL
 * in a value (the C string cut there is not what was judged), and tabs
 * in the URL: none is relayed.
 */
static void
check_syntax(struct flow *f)
{
	if (f->malformed != NULL)
		return;
	if (!header_name_ok(buf_data(&f->field), f->field.len))
		f->malformed = "a header name that is not a token";
	else if (memchr(buf_data(&f->value), '\0', f->value.len) != NULL)
		f->malformed = "a NUL in a header value";
}

static void
push_header(struct flow *f)
{
	if (f->field.len == 0)
		return;
	check_syntax(f);
	hdrs_push(&f->h, &f->nh, &f->field, &f->value);
	f->in_value = false;
}

static int
rq_on_message_begin(http_parser *hp)
{
	struct flow *f = of(hp);

	headers_clear(f);
	buf_drop(&f->tail, f->tail.len);
	f->malformed = NULL;
	f->cur = xcalloc(1, sizeof *f->cur);
	f->cur->id = ++*f->next_req;
	return 0;
}

static int
rq_on_url(http_parser *hp, const char *at, size_t n)
{
	buf_add(&of(hp)->url, at, n);
	return 0;
}

static int
rq_on_header_field(http_parser *hp, const char *at, size_t n)
{
	struct flow *f = of(hp);

	if (f->in_value)
		push_header(f);
	buf_add(&f->field, at, n);
	return 0;
}

static int
rq_on_header_value(http_parser *hp, const char *at, size_t n)
{
	struct flow *f = of(hp);

	f->in_value = true;
	buf_add(&f->value, at, n);
	return 0;
}

/* Append the value of header i to b, the phantoms of the secrets it may
 * carry replaced by their values. */
static void
put_value(struct flow *f, struct buf *b, const char *v)
{
	size_t at;
	const struct secret *sc;

	while ((sc = phantom_in(f, v, strlen(v), &at)) != NULL) {
		buf_add(b, v, at);
		buf_add(b, sc->value, sc->len);
		if (f->cur->secret == NULL)
			f->cur->secret = sc->ps->name;
		v += at + SECRETS_PHANTOM_LEN;
	}
	buf_add(b, v, strlen(v));
}

static unsigned
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (unsigned)(c - 'A' + 10);
	return 16;
}

/* The URL with its %XX decoded (as the server will read it): a phantom
 * spelled "%77ard-phantom-..." is one all the same. */
static char *
url_decoded(const char *u)
{
	char *out = xmalloc(strlen(u) + 1), *o = out;

	while (*u != '\0') {
		unsigned hi, lo;

		if (u[0] == '%' && (hi = hexval(u[1])) < 16 &&
		    (lo = hexval(u[2])) < 16) {
			*o++ = (char)(hi << 4 | lo);
			u += 3;
		} else
			*o++ = *u++;
	}
	*o = '\0';
	return out;
}

/* A phantom where it may not go: in the URL, a header's name, a header
 * that is not its secret's header on its secret's host. */
/* refuse_secret, where "header NAME" (lower case): made only when a
 * request is refused, not for every header that is checked. */
static void
refuse_in_header(struct flow *f, const struct secret *sc, const char *name,
    bool value)
{
	cleanup_free char *where = xasprintf("header %s", name);

	for (char *lc = where; *lc; lc++)
		*lc = (char)(*lc >= 'A' && *lc <= 'Z' ? *lc + 32 : *lc);
	refuse_secret(f, sc, where, value);
}

static bool
check_phantoms(struct flow *f)
{
	const struct secret *sc;

	cleanup_free char *plain = url_decoded(f->cur->url);

	if ((sc = phantom_in(f, f->cur->url, strlen(f->cur->url), NULL)) ||
	    (sc = phantom_in(f, plain, strlen(plain), NULL))) {
		refuse_secret(f, sc, "url", false);
		return false;
	}
	if ((sc = value_in(f, f->cur->url, strlen(f->cur->url))) ||
	    (sc = value_in(f, plain, strlen(plain)))) {
		refuse_secret(f, sc, "url", true);
		return false;
	}
	for (size_t i = 0; i < f->nh; i++) {
		const char *n = f->h[i].name, *v = f->h[i].value;
		size_t at;

		if ((sc = phantom_in(f, n, strlen(n), NULL))) {
			refuse_in_header(f, sc, n, false);
			return false;
		}
		if ((sc = value_in(f, n, strlen(n))) ||
		    (sc = value_in(f, v, strlen(v)))) {
			refuse_in_header(f, sc, n, true);
			return false;
		}
		while ((sc = phantom_in(f, v, strlen(v), &at)) != NULL) {
			if (!f->bound[secret_index(f, sc)] ||
			    sc->ps->header == NULL ||
			    strcasecmp(n, sc->ps->header) != 0) {
				refuse_in_header(f, sc, n, false);
				return false;
			}
			v += at + SECRETS_PHANTOM_LEN;
		}
	}
	return true;
}

/* The request line and headers as parsed, up; a refresh's with the
 * Content-Length of its body as it goes (length), else -1. */
static void
send_head_len(struct flow *f, long long length)
{
	struct buf *b = &f->up;
	size_t before = b->len;

	buf_addf(b, "%s %s HTTP/%u.%u\r\n", f->cur->method, f->cur->url,
	    f->rq.http_major, f->rq.http_minor);
	f->cur->http11 = f->rq.http_major > 1 ||
	    (f->rq.http_major == 1 && f->rq.http_minor >= 1);
	for (size_t i = 0; i < f->nh; i++) {
		/* A compressed body could not be scanned for a value: the
		 * responses are to come as they are. */
		if (f->scrub && (strcasecmp(f->h[i].name, "accept-encoding") == 0 ||
		    strcasecmp(f->h[i].name, "te") == 0))
			continue;
		if (length >= 0 &&
		    (strcasecmp(f->h[i].name, "content-length") == 0 ||
		    strcasecmp(f->h[i].name, "transfer-encoding") == 0 ||
		    strcasecmp(f->h[i].name, "expect") == 0))
			continue;
		buf_addf(b, "%s: ", f->h[i].name);
		put_value(f, b, f->h[i].value);
		buf_add(b, "\r\n", 2);
	}
	if (length >= 0)
		buf_addf(b, "Content-Length: %lld\r\n", length);
	buf_add(b, "\r\n", 2);
	f->cur->up += b->len - before;
	f->cur->sent = true;
	f->q = xreallocarray(f->q, f->nq + 1, sizeof *f->q);
	f->q[f->nq++] = f->cur;
	headers_clear(f);
}

static void
send_head(struct flow *f)
{
	if (f->cur->refresh != NULL)
		return;		/* with its body, whole (refresh_send) */
	send_head_len(f, -1);
}

/* The request is no longer held (answered, or its connection ended). */
static void
unhold(struct flow *f)
{
	if (f->held && f->hooks.held != NULL && *f->hooks.held > 0)
		--*f->hooks.held;
	f->held = false;
}

static void
ask(struct flow *f)
{
	struct gate_msg m = { .type = GATE_ASK };
	cleanup_free char *rules = rules_joined(f, "");
	cleanup_free char *path = url_path(f->cur->url);

	/* A program opening connection after connection, each with a
	 * request to ask, would flood the person with them. */
	if (f->hooks.held != NULL && *f->hooks.held >= f->hooks.held_max) {
		cleanup_free char *body = xasprintf("ward: %s %s on %s:%u: "
		    "%u requests already wait for the person supervising this "
		    "run", f->cur->method, path, f->host, f->port,
		    *f->hooks.held);

		refuse(f, 403, GATE_DENY, "too many requests waiting "
		    "for a person", body);
		return;
	}
	if (f->hooks.held != NULL)
		++*f->hooks.held;

	m.req = f->cur->id;
	GATE_MSG_SET(m.method, f->cur->method);
	GATE_MSG_SET(m.path, path);
	GATE_MSG_SET(m.rule, rules);
	emit(f, &m);
	f->held = true;
	http_parser_pause(&f->rq, 1);
}

static int
rq_on_headers_complete(http_parser *hp)
{
	struct flow *f = of(hp);
	struct req *r = f->cur;
	const char *why;

	if (f->in_value || f->field.len > 0)
		push_header(f);
	buf_add(&f->url, "", 1);
	r->url = xstrdup(buf_data(&f->url));
	GATE_MSG_SET(r->method, http_method_str((enum http_method)hp->method));
	for (const char *u = r->url; *u != '\0' && f->malformed == NULL; u++)
		if ((unsigned char)*u <= ' ' || *u == 0x7f)
			f->malformed = "a control character in the URL";
	if (f->malformed != NULL) {
		cleanup_free char *body = xasprintf("ward: bad request: %s",
		    f->malformed);

		refuse(f, 400, GATE_DENY, f->malformed, body);
		return 0;
	}
	if (hp->upgrade) {
		refuse(f, 403, GATE_DENY, "upgrade or CONNECT",
		    "ward: upgrades (websocket) and CONNECT are not relayed to "
		    "an intercepted host");
		return 0;
	}
	if ((why = host_wrong(f)) != NULL) {
		cleanup_free char *body = xasprintf("ward: %s: this connection "
		    "is to %s:%u, and a request on it is for that host only",
		    why, f->host, f->port);

		refuse(f, 403, GATE_DENY, why, body);
		return 0;
	}
	if (!check_phantoms(f))
		return 0;
	r->refresh = refresh_of(f);
	if (f->n_rules > 0 && (path_refused(f) || override_refused(f)))
		return 0;
	if (f->n_rules > 0) {
		r->rule = rule_allows(f, r->method, r->url);
		if (r->rule == NULL && f->p->http == POLICY_DENY) {
			cleanup_free char *rules = rules_joined(f, "allow = ");
			cleanup_free char *path = url_path(r->url);
			cleanup_free char *body = xasprintf("ward: %s %s is not "
			    "allowed on %s:%u (policy: %s)", r->method, path,
			    f->host, f->port, rules);

			refuse(f, 403, GATE_DENY, "no rule allows it", body);
			return 0;
		}
		if (r->rule == NULL) {
			ask(f);
			return 0;
		}
	}
	send_head(f);
	return 0;
}

/* ---- a login's refresh (login.h) ---- */

/* The [secret] whose token endpoint this POST is for, or NULL. */
static const struct policy_secret *
refresh_of(const struct flow *f)
{
	cleanup_free char *path = NULL;

	if (strcmp(f->cur->method, "POST") != 0)
		return NULL;
	path = url_path(f->cur->url);
	for (size_t i = 0; i < f->p->n_secrets; i++) {
		const struct policy_secret *ps = &f->p->secrets[i];

		if (ps->refresh.host != NULL &&
		    ps->refresh.port_lo == f->port &&
		    strcasecmp(ps->refresh.host, f->host) == 0 &&
		    strcmp(ps->refresh_path, path) == 0)
			return ps;
	}
	return NULL;
}

/* Is the request's body a form (application/x-www-form-urlencoded)? */
static bool
body_is_form(const struct flow *f)
{
	for (size_t i = 0; i < f->nh; i++)
		if (strcasecmp(f->h[i].name, "content-type") == 0)
			return strncasecmp(f->h[i].value + strspn(f->h[i].value,
			    " \t"), "application/x-www-form-urlencoded",
			    33) == 0;
	return false;
}

/*
 * The refresh's body is whole: each phantom of its secret made the
 * token (percent-encoded in a form), then the head with the new length
 * and the body go up. One that carries no phantom of it brings a token
 * of its own (a login's code exchange, or a refresh token the sandbox
 * should not have): refused, the person told to log in on the host.
 * false when refused.
 */
static bool
refresh_send(struct flow *f)
{
	const struct policy_secret *ps = f->cur->refresh;
	const char *d = buf_data(&f->rbody);
	size_t n = f->rbody.len, pos = 0, at, found = 0;
	const struct secret *sc;
	bool form = body_is_form(f);
	struct buf out = { 0 };

	if ((sc = value_in(f, d, n)) != NULL) {
		refuse_secret(f, sc, "body", true);
		return false;
	}
	while ((sc = phantom_in(f, d + pos, n - pos, &at)) != NULL) {
		if (sc->ps != ps) {
			explicit_bzero(out.p, out.cap);
			buf_free(&out);
			refuse_secret(f, sc, "body", false);
			return false;
		}
		buf_add(&out, d + pos, at);
		for (size_t i = 0; i < sc->len; i++)
			if (!form || httppath_unreserved(
			    (unsigned char)sc->value[i]))
				buf_add(&out, &sc->value[i], 1);
			else
				buf_addf(&out, "%%%02X",
				    (unsigned char)sc->value[i]);
		pos += at + SECRETS_PHANTOM_LEN;
		found++;
	}
	buf_add(&out, d + pos, n - pos);
	explicit_bzero(f->rbody.p, f->rbody.cap);
	buf_drop(&f->rbody, f->rbody.len);
	if (found == 0) {
		cleanup_free char *body = xasprintf("ward: log in on the host, "
		    "not inside the sandbox: this request to %s:%u%s carries "
		    "no token of the login ward keeps outside ([secret %s]); "
		    "log in with the agent on the host, then start the run "
		    "again", f->host, f->port, ps->refresh_path, ps->name);

		buf_free(&out);
		refuse(f, 403, GATE_DENY, "a login inside the sandbox", body);
		return false;
	}
	f->cur->secret = ps->name;
	send_head_len(f, (long long)out.len);
	buf_add(&f->up, buf_data(&out), out.len);
	f->cur->up += out.len;
	explicit_bzero(out.p, out.cap);
	buf_free(&out);
	return true;
}

static void
put_body(struct flow *f, const char *d, size_t n)
{
	if (n == 0)
		return;
	if (f->rq.flags & F_CHUNKED) {
		size_t before = f->up.len;

		buf_addf(&f->up, "%zx\r\n", n);
		buf_add(&f->up, d, n);
		buf_add(&f->up, "\r\n", 2);
		f->cur->up += f->up.len - before;
	} else {
		buf_add(&f->up, d, n);
		f->cur->up += n;
	}
}

static int
rq_on_body(http_parser *hp, const char *at, size_t n)
{
	struct flow *f = of(hp);
	const struct secret *sc;
	const size_t keep = f->body_keep;
	struct buf *t = &f->tail;
	size_t from = 0, off;

	if (f->cur == NULL || f->stopped)
		return 0;
	if (f->cur->refresh != NULL) {
		if (f->rbody.len + n > LOGIN_FILE_MAX) {
			refuse(f, 403, GATE_DENY, "a refresh body over 256 KiB",
			    "ward: a request to a token endpoint over 256 KiB "
			    "is not relayed");
			return 0;
		}
		buf_add(&f->rbody, at, n);
		return 0;
	}
	if (!f->scan_body) {
		put_body(f, at, n);
		return 0;
	}
	/* The last phantom-length-less-one bytes (or longest value's) stay
	 * back, so that a phantom or a value cut across two reads is seen
	 * whole before any of its end goes up. */
	buf_add(t, at, n);
	/* phantom_in's offset is from where it looked: from moves on past
	 * each phantom allowed here, never back (back is a loop forever). */
	while ((sc = phantom_in(f, buf_data(t) + from, t->len - from, &off))) {
		if (!f->bound[secret_index(f, sc)]) {
			refuse_secret(f, sc, "body", false);
			return 0;
		}
		from += off + SECRETS_PHANTOM_LEN;
	}
	if ((sc = value_in(f, buf_data(t), t->len)) != NULL) {
		refuse_secret(f, sc, "body", true);
		return 0;
	}
	if (t->len > keep) {
		put_body(f, buf_data(t), t->len - keep);
		buf_drop(t, t->len - keep);
	}
	return 0;
}

static int
rq_on_message_complete(http_parser *hp)
{
	struct flow *f = of(hp);

	if (f->cur == NULL || f->stopped)
		return 0;
	if (f->cur->refresh != NULL) {
		if (!refresh_send(f))
			return 0;
		if (f->cur->done)
			req_free(f->cur);
		f->cur = NULL;
		return 0;
	}
	put_body(f, buf_data(&f->tail), f->tail.len);
	buf_drop(&f->tail, f->tail.len);
	if (f->rq.flags & F_CHUNKED) {
		buf_add(&f->up, "0\r\n\r\n", 5);
		f->cur->up += 5;
	}
	if (f->cur->done)
		req_free(f->cur);
	f->cur = NULL;	/* the queue holds it, or it is over */
	return 0;
}

static const http_parser_settings rq_settings = {
	.on_message_begin = rq_on_message_begin,
	.on_url = rq_on_url,
	.on_header_field = rq_on_header_field,
	.on_header_value = rq_on_header_value,
	.on_headers_complete = rq_on_headers_complete,
	.on_body = rq_on_body,
	.on_message_complete = rq_on_message_complete,
};

size_t
flow_from_client(struct flow *f, const char *d, size_t n)
{
	size_t used;
	enum http_errno e;

	if (f->stopped || f->held || n == 0)
		return 0;
	used = http_parser_execute(&f->rq, &rq_settings, d, n);
	e = HTTP_PARSER_ERRNO(&f->rq);
	if (e == HPE_PAUSED)
		return used;
	if (e != HPE_OK) {
		cleanup_free char *why = xasprintf("bad request: %s",
		    http_errno_description(e));

		if (f->cur == NULL)
			rq_on_message_begin(&f->rq);
		refuse(f, 400, GATE_DENY, why, why);
		return n;
	}
	return used;
}

int
flow_answer(struct flow *f, uint64_t req, bool allow)
{
	if (!flow_holds(f, req))
		return -ENOENT;
	unhold(f);
	if (!allow) {
		cleanup_free char *path = url_path(f->cur->url);
		cleanup_free char *body = xasprintf("ward: %s %s on %s:%u was "
		    "refused by the person supervising this run",
		    f->cur->method, path, f->host, f->port);

		refuse(f, 403, GATE_DENY_PERSON, "refused by a person", body);
		return 0;
	}
	f->cur->rule = xstrdup("a person");
	send_head(f);
	http_parser_pause(&f->rq, 0);
	return 0;
}

bool
flow_holds(const struct flow *f, uint64_t req)
{
	return f->held && f->cur != NULL && f->cur->id == req;
}

/* ---- the response side ---- */

/*
 * With secrets in the gate, every response is re-serialized: its head
 * from what http-parser parsed, its body as it comes, each secret's
 * value in either made its phantom (scrub.c) before the client reads
 * it. A phantom (45 bytes) and its value rarely have one length, so a
 * body's Content-Length is not known before its end: a small one
 * (RS_HOLD_MAX) is held whole and sent with its length made again; a
 * larger one, or a chunked one, goes on chunked as it comes (to an
 * HTTP/1.1 client) or to our close (HTTP/1.0). Trailers of a chunked
 * body are dropped. A body the gate cannot read
 * (a Content-Encoding or a transfer coding other than chunked: the
 * request's Accept-Encoding and TE were taken out, so the upstream
 * compressed it unasked) is refused with a 502, not decompressed: a
 * decoder here would be one more parser of the upstream's bytes, and
 * a small body could unpack to a huge one.
 */

/* The largest body held whole to keep a Content-Length. */
#define RS_HOLD_MAX	(256 * 1024)

static void
rs_headers_clear(struct flow *f)
{
	hdrs_free(&f->rh, &f->nrh);
	buf_drop(&f->rs_reason, f->rs_reason.len);
	buf_drop(&f->rs_field, f->rs_field.len);
	buf_drop(&f->rs_value, f->rs_value.len);
	f->rs_in_value = false;
}

static void
rs_push_header(struct flow *f)
{
	if (f->rs_field.len == 0)
		return;
	hdrs_push(&f->rh, &f->nrh, &f->rs_field, &f->rs_value);
	f->rs_in_value = false;
}

static int
rs_on_message_begin(http_parser *hp)
{
	struct flow *f = of(hp);

	rs_headers_clear(f);
	f->rs_in_body = false;
	f->rs_frame = FRAME_SAME;
	return 0;
}

static int
rs_on_status(http_parser *hp, const char *at, size_t n)
{
	buf_add(&of(hp)->rs_reason, at, n);
	return 0;
}

static int
rs_on_header_field(http_parser *hp, const char *at, size_t n)
{
	struct flow *f = of(hp);

	if (f->rs_in_body)
		return 0;	/* a trailer: dropped */
	if (f->rs_in_value)
		rs_push_header(f);
	buf_add(&f->rs_field, at, n);
	return 0;
}

static int
rs_on_header_value(http_parser *hp, const char *at, size_t n)
{
	struct flow *f = of(hp);

	if (f->rs_in_body)
		return 0;
	f->rs_in_value = true;
	buf_add(&f->rs_value, at, n);
	return 0;
}

/* Is v (a header's value, spaces around it aside) word, in any case? */
static bool
value_is(const char *v, const char *word)
{
	size_t n;

	v += strspn(v, " \t");
	n = strlen(v);
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	return n == strlen(word) && strncasecmp(v, word, n) == 0;
}

/* Why the response's body cannot be scanned (a header naming a coding
 * the gate does not read), or NULL. */
static const struct hdr *
rs_unreadable(const struct flow *f)
{
	for (size_t i = 0; i < f->nrh; i++) {
		const struct hdr *h = &f->rh[i];

		if (strcasecmp(h->name, "content-encoding") == 0 &&
		    !value_is(h->value, "identity") && !value_is(h->value, ""))
			return h;
		if (strcasecmp(h->name, "transfer-encoding") == 0 &&
		    !value_is(h->value, "chunked"))
			return h;
	}
	return NULL;
}

static void rs_refuse_body(struct flow *, const char *, const char *);

/* Our 502 in place of the response to f->q[0]; the upstream is cut and
 * the connection closes once it is written. */
static void
rs_refuse(struct flow *f, const struct hdr *h)
{
	cleanup_free char *coding = xstrndup(h->value, 64);
	cleanup_free char *why = NULL, *body = NULL;

	/* The upstream's words reach the record and the client escaped by
	 * them; here only printable ASCII is kept of them. */
	for (char *c = coding; *c != '\0'; c++)
		if (*c < ' ' || *c > '~')
			*c = '?';
	why = xasprintf("a response in %s: %s (the gate cannot scan it for "
	    "secrets' values)", h->name, coding);
	body = xasprintf("ward: %s:%u answered with %s: %s, which the gate "
	    "cannot scan for secrets' values; it is not passed on", f->host,
	    f->port, h->name, coding);
	rs_refuse_body(f, why, body);
}

/* The same for a reason of ours (a token endpoint's reply). */
static void
rs_refuse_why(struct flow *f, const char *why)
{
	cleanup_free char *body = xasprintf("ward: %s:%u: %s; it is not "
	    "passed on", f->host, f->port, why);

	rs_refuse_body(f, why, body);
}

static void
rs_refuse_body(struct flow *f, const char *why, const char *body)
{
	struct req *r = f->q[0];

	buf_addf(&f->down, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: "
	    "text/plain; charset=utf-8\r\nContent-Length: %zu\r\nConnection: "
	    "close\r\n\r\n%s\n", strlen(body) + 1, body);
	r->status = 502;
	emit_http(f, r, GATE_DENY, why);
	for (size_t i = 1; i < f->nq; i++)
		emit_http(f, f->q[i], GATE_ALLOW, "upstream cut");
	for (size_t i = 0; i < f->nq; i++) {
		if (f->q[i] == f->cur)
			f->cur = NULL;
		req_free(f->q[i]);
	}
	f->nq = 0;
	if (f->cur != NULL && !f->cur->done) {
		emit_http(f, f->cur, GATE_ALLOW, "upstream cut");
		req_free(f->cur);
		f->cur = NULL;
	}
	f->stopped = true;
	f->cut = true;
	f->closing = true;
	f->rs_over = true;
	http_parser_pause(&f->rs, 1);
}

/* The head, re-serialized and scrubbed, framed for the body to come. */
static void
rs_send_head(struct flow *f, http_parser *hp, bool body)
{
	struct buf head = { 0 };
	bool http11 = f->q[0]->http11 && hp->http_major == 1 &&
	    hp->http_minor >= 1;

	if (body && ((!(hp->flags & F_CHUNKED) &&
	    hp->content_length <= RS_HOLD_MAX) || f->q[0]->refresh != NULL))
		f->rs_frame = FRAME_HOLD;
	else if (body && ((hp->flags & F_CHUNKED) ||
	    hp->content_length != ULLONG_MAX))
		f->rs_frame = http11 ? FRAME_CHUNKED : FRAME_CLOSE;
	else
		f->rs_frame = FRAME_SAME;
	buf_addf(&head, "HTTP/%u.%u %u ", hp->http_major, hp->http_minor,
	    hp->status_code);
	buf_add(&head, buf_data(&f->rs_reason), f->rs_reason.len);
	buf_add(&head, "\r\n", 2);
	for (size_t i = 0; i < f->nrh; i++) {
		const char *n = f->rh[i].name;

		if (f->rs_frame != FRAME_SAME &&
		    (strcasecmp(n, "content-length") == 0 ||
		    strcasecmp(n, "transfer-encoding") == 0))
			continue;
		if (f->rs_frame == FRAME_CLOSE &&
		    (strcasecmp(n, "connection") == 0 ||
		    strcasecmp(n, "keep-alive") == 0))
			continue;
		buf_addf(&head, "%s: %s\r\n", n, f->rh[i].value);
	}
	if (f->rs_frame == FRAME_CHUNKED)
		buf_addf(&head, "Transfer-Encoding: chunked\r\n");
	else if (f->rs_frame == FRAME_CLOSE)
		buf_addf(&head, "Connection: close\r\n");
	if (f->rs_frame == FRAME_HOLD) {
		/* Its Content-Length and end come with the body. */
		buf_add(&f->rs_head, buf_data(&head), head.len);
	} else {
		buf_add(&head, "\r\n", 2);
		(void)scrub_feed(&f->rs_scrub, f->s, buf_data(&head),
		    head.len, &f->down, true);
	}
	buf_free(&head);
	rs_headers_clear(f);
}

static int
rs_on_headers_complete(http_parser *hp)
{
	struct flow *f = of(hp);
	bool head, body;
	const struct hdr *h;

	if (f->nq == 0)
		return -1;
	f->q[0]->status = hp->status_code;
	/* A response to HEAD has no body whatever its headers say. */
	head = strcmp(f->q[0]->method, "HEAD") == 0;
	if (!f->scrub)
		return head ? 1 : 0;
	if (f->rs_in_value || f->rs_field.len > 0)
		rs_push_header(f);
	body = !head && hp->status_code / 100 != 1 &&
	    hp->status_code != 204 && hp->status_code != 304 &&
	    hp->content_length != 0;
	if (body && (h = rs_unreadable(f)) != NULL) {
		rs_refuse(f, h);
		return 0;
	}
	rs_send_head(f, hp, body);
	f->rs_in_body = true;
	return head ? 1 : 0;
}

/* Settled body bytes out, in the response's framing. */
static void
rs_put(struct flow *f, const char *d, size_t n, bool final)
{
	struct buf *o = &f->rs_out;

	(void)scrub_feed(&f->rs_scrub, f->s, d, n, o, final);
	if (f->rs_frame == FRAME_HOLD) {
		if (!final)
			return;
		buf_addf(&f->rs_head, "Content-Length: %zu\r\n\r\n", o->len);
		(void)scrub_feed(&f->rs_scrub, f->s, buf_data(&f->rs_head),
		    f->rs_head.len, &f->down, true);
		buf_drop(&f->rs_head, f->rs_head.len);
		buf_add(&f->down, buf_data(o), o->len);
	} else if (o->len > 0 && f->rs_frame == FRAME_CHUNKED) {
		buf_addf(&f->down, "%zx\r\n", o->len);
		buf_add(&f->down, buf_data(o), o->len);
		buf_add(&f->down, "\r\n", 2);
	} else
		buf_add(&f->down, buf_data(o), o->len);
	if (o->p != NULL)
		explicit_bzero(o->p, o->cap);
	buf_drop(o, o->len);
}

static int
rs_on_body(http_parser *hp, const char *at, size_t n)
{
	struct flow *f = of(hp);

	if (f->scrub && !f->rs_over && f->nq > 0 &&
	    f->q[0]->refresh != NULL) {
		if (f->rs_raw.len + n > RS_HOLD_MAX) {
			rs_refuse_why(f, "a token endpoint's reply over 256 KiB");
			return 0;
		}
		buf_add(&f->rs_raw, at, n);
		return 0;
	}
	if (f->scrub && !f->rs_over)
		rs_put(f, at, n, false);
	return 0;
}

/*
 * A refresh's reply is whole: a 2xx renews the login's tokens (the
 * gate's values and phantoms, the host's file) before it is scrubbed,
 * so that its new tokens go to the sandbox as their phantoms. One that
 * is not JSON is not passed on. false when refused.
 */
static bool
rs_refresh(struct flow *f, http_parser *hp)
{
	struct req *r = f->q[0];
	struct gate_msg m = { .type = GATE_REFRESH };
	cleanup_free char *what = NULL;
	char *out = NULL;
	size_t outlen = 0;
	int k = 0;

	if (hp->status_code / 100 == 2)
		k = login_renew(f->s, r->refresh, buf_data(&f->rs_raw),
		    f->rs_raw.len, &out, &outlen, &what);
	if (k == -EPROTO) {
		explicit_bzero(f->rs_raw.p, f->rs_raw.cap);
		buf_drop(&f->rs_raw, f->rs_raw.len);
		rs_refuse_why(f, what);
		return false;
	}
	if (k > 0) {
		GATE_MSG_SET(m.name, r->refresh->name);
		GATE_MSG_SET(m.path, r->refresh->refresh_path);
		GATE_MSG_SET(m.text, what);
		m.req = r->id;
		emit(f, &m);
	}
	if (out != NULL) {
		rs_put(f, out, outlen, false);
		explicit_bzero(out, outlen);
		free(out);
	} else
		rs_put(f, buf_data(&f->rs_raw), f->rs_raw.len, false);
	explicit_bzero(f->rs_raw.p, f->rs_raw.cap);
	buf_drop(&f->rs_raw, f->rs_raw.len);
	return true;
}

static int
rs_on_message_complete(http_parser *hp)
{
	struct flow *f = of(hp);
	struct req *r;

	if (f->rs_over)
		return 0;
	if (f->nq == 0)
		return -1;
	if (f->scrub && f->q[0]->refresh != NULL && !rs_refresh(f, hp))
		return 0;
	if (f->scrub) {
		rs_put(f, NULL, 0, true);
		if (f->rs_frame == FRAME_CHUNKED)
			buf_add(&f->down, "0\r\n\r\n", 5);
		f->rs_in_body = false;
	}
	if (hp->status_code / 100 == 1 && hp->status_code != 101)
		return 0;	/* interim (100 Continue): the real one follows */
	r = f->q[0];
	memmove(f->q, f->q + 1, (f->nq - 1) * sizeof *f->q);
	f->nq--;
	emit_http(f, r, GATE_ALLOW, NULL);
	if (r == f->cur)
		r->done = true;	/* answered before its body ended: the
				 * rest of the body still goes up */
	else
		req_free(r);
	if (f->scrub && f->rs_frame == FRAME_CLOSE) {
		/* The client knows the body ended by our close: nothing
		 * more is read from either side. */
		for (size_t i = 0; i < f->nq; i++) {
			emit_http(f, f->q[i], GATE_ALLOW, "connection ended");
			if (f->q[i] == f->cur)
				f->cur = NULL;
			req_free(f->q[i]);
		}
		f->nq = 0;
		f->stopped = true;
		f->cut = true;
		f->closing = true;
		f->rs_over = true;
		http_parser_pause(hp, 1);
		return 0;
	}
	if (f->nq == 0 && f->refusal != NULL && !f->closing) {
		buf_add(&f->down, f->refusal, strlen(f->refusal));
		f->closing = true;
	}
	return 0;
}

static const http_parser_settings rs_settings = {
	.on_message_begin = rs_on_message_begin,
	.on_status = rs_on_status,
	.on_header_field = rs_on_header_field,
	.on_header_value = rs_on_header_value,
	.on_headers_complete = rs_on_headers_complete,
	.on_body = rs_on_body,
	.on_message_complete = rs_on_message_complete,
};

int
flow_from_upstream(struct flow *f, const char *d, size_t n)
{
	enum http_errno e;

	if (f->rs_over)
		return 0;	/* refused or ended: what follows is dropped */
	if (n > 0) {
		if (f->nq == 0)
			return -EPROTO;
		f->q[0]->down += n;
		if (!f->scrub)
			buf_add(&f->down, d, n);
	}
	http_parser_execute(&f->rs, &rs_settings, d, n);
	e = HTTP_PARSER_ERRNO(&f->rs);
	if (e != HPE_OK && !(e == HPE_PAUSED && f->rs_over))
		return -EPROTO;
	if (n == 0 && !f->rs_over) {
		flow_end(f);
		f->closing = true;
	}
	return 0;
}

void
flow_end(struct flow *f)
{
	for (size_t i = 0; i < f->nq; i++) {
		emit_http(f, f->q[i], GATE_ALLOW, "connection ended");
		if (f->q[i] == f->cur)
			f->cur = NULL;
		req_free(f->q[i]);
	}
	f->nq = 0;
	if (f->cur != NULL) {
		if (!f->cur->done)
			emit_http(f, f->cur, f->held ? GATE_DENY_PERSON :
			    GATE_ALLOW, "connection ended");
		req_free(f->cur);
		f->cur = NULL;
	}
	unhold(f);
	f->stopped = true;
}

/* ---- the flow ---- */

struct flow *
flow_new(const struct policy *p, struct secrets *s, const char *host,
    unsigned port, uint64_t conn, const struct flow_hooks *hooks,
    uint64_t *next_req)
{
	struct flow *f = xcalloc(1, sizeof *f);

	f->p = p;
	f->s = s;
	GATE_MSG_SET(f->host, host);
	f->port = port;
	f->conn = conn;
	f->hooks = *hooks;
	f->next_req = next_req;
	f->dest.port = port;
	if (inet_pton(AF_INET, host, f->dest.addr) == 1)
		f->dest.family = AF_INET;
	else if (inet_pton(AF_INET6, host, f->dest.addr) == 1)
		f->dest.family = AF_INET6;
	else {
		f->dest.family = AF_INET;
		f->dest.name = f->host;
	}
	f->bound = xcalloc(s->n ? s->n : 1, sizeof *f->bound);
	f->body_keep = SECRETS_PHANTOM_LEN - 1;
	for (size_t i = 0; i < s->n; i++) {
		for (size_t j = 0; j < s->v[i].ps->n_hosts; j++)
			if (netrules_entry_match(&s->v[i].ps->hosts[j], &f->dest))
				f->bound[i] = true;
		if (s->v[i].len > 0)
			f->scrub = true;
		if (f->bound[i])
			continue;
		f->scan_body = true;
		if (f->unbound == NULL)
			f->unbound = xcalloc(s->n, sizeof *f->unbound);
		f->unbound[i] = true;
		if (s->v[i].len > f->body_keep + 1)
			f->body_keep = s->v[i].len - 1;
	}
	f->rules = xcalloc(p->n_net_allow ? p->n_net_allow : 1, sizeof *f->rules);
	for (size_t i = 0; i < p->n_net_allow; i++) {
		const struct policy_host *h = &p->net_allow[i];

		if (policy_host_is_http(h) && netrules_entry_match(h, &f->dest))
			f->rules[f->n_rules++] = i;
	}
	http_parser_init(&f->rq, HTTP_REQUEST);
	http_parser_init(&f->rs, HTTP_RESPONSE);
	f->rq.data = f->rs.data = f;
	return f;
}

void
flow_free(struct flow *f)
{
	if (f == NULL)
		return;
	unhold(f);
	for (size_t i = 0; i < f->nq; i++) {
		if (f->q[i] == f->cur)
			f->cur = NULL;
		req_free(f->q[i]);
	}
	free(f->q);
	req_free(f->cur);
	headers_clear(f);
	buf_free(&f->url);
	buf_free(&f->field);
	buf_free(&f->value);
	buf_free(&f->tail);
	buf_free(&f->up);
	buf_free(&f->down);
	rs_headers_clear(f);
	buf_free(&f->rs_reason);
	buf_free(&f->rs_field);
	buf_free(&f->rs_value);
	buf_free(&f->rs_out);
	buf_free(&f->rs_head);
	if (f->rs_raw.p != NULL)
		explicit_bzero(f->rs_raw.p, f->rs_raw.cap);
	buf_free(&f->rs_raw);
	if (f->rbody.p != NULL)
		explicit_bzero(f->rbody.p, f->rbody.cap);
	buf_free(&f->rbody);
	scrub_free(&f->rs_scrub);
	free(f->refusal);
	free(f->bound);
	free(f->unbound);
	free(f->rules);
	free(f);
}

struct buf *
flow_up(struct flow *f)
{
	return &f->up;
}

struct buf *
flow_down(struct flow *f)
{
	return &f->down;
}

bool
flow_wants_client(const struct flow *f)
{
	return !f->stopped && !f->held && !f->closing && f->up.len < BUF_HIGH;
}

bool
flow_closing(const struct flow *f)
{
	return f->closing;
}

bool
flow_idle(const struct flow *f)
{
	return f->nq == 0 && !f->held;
}

bool
flow_cut_upstream(const struct flow *f)
{
	return f->cut;
}
