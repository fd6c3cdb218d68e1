/* SPDX-License-Identifier: MIT */
#include "supervisor/gate/relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "config/util.h"
#include "supervisor/gate/flow.h"
#include "supervisor/gate/wire.h"

#define CHUNK	16384
/* From GATE_CONN to relaying: both handshakes and the connect. A client
 * or upstream that stalls there holds fds, not the loop. */
#define SETUP_MS	30000
/* Requests held for a person at once, across the connections. */
#define HELD_MAX	32

enum conn_state {
	CONN_ACCEPT,		/* TLS with the sandbox's client */
	CONN_CONNECT,		/* the supervisor's connect still going */
	CONN_HANDSHAKE,		/* TLS with the real host */
	CONN_RELAY,
};

struct conn;

/* What an epoll event points at: one end of a connection. */
struct end {
	struct conn	*c;
	int		 fd;
	uint32_t	 armed;		/* events registered */
	uint32_t	 want;		/* events the last pass blocked on */
	bool		 out;		/* taken out of the set (see relay_run) */
};

struct conn {
	struct relay	*r;
	struct conn	*next;
	uint64_t	 id;
	char		 host[256];
	unsigned	 port;
	enum conn_state	 st;
	struct end	 cl, up;
	SSL		*cs, *us;
	struct flow	*flow;
	struct buf	 cin;		/* the client's bytes flow has not taken */
	bool		 c_eof, u_eof, shut;
	int64_t		 deadline;	/* CLOCK_MONOTONIC ms until relaying */
	char		 err[256];	/* set by a callback: why it failed */
};

struct relay {
	int			 wire, ep;
	const struct policy	*p;
	struct secrets		*s;
	struct ca		*ca;
	SSL_CTX			*sctx, *cctx;
	struct conn		*conns;
	uint64_t		 next_req;
	unsigned		 held;		/* requests held, all conns */
	int			 setup_ms;
	char			*store_pem;	/* not parsed yet (relay_store_later) */
	size_t			 store_len;
};

static void
send_msg(struct relay *r, struct gate_msg *m)
{
	m->type = m->type ? m->type : GATE_ERROR;
	(void)gate_msg_send(r->wire, m, NULL, 0);
}

static void
conn_error(struct conn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
conn_error(struct conn *c, const char *fmt, ...)
{
	struct gate_msg m = { .type = GATE_ERROR };
	cleanup_free char *t = NULL;
	va_list ap;

	va_start(ap, fmt);
	t = xvasprintf(fmt, ap);
	va_end(ap);
	m.conn = c->id;
	m.port = c->port;
	GATE_MSG_SET(m.host, c->host);
	GATE_MSG_SET(m.text, t);
	send_msg(c->r, &m);
}

static const char *
ssl_reason(void)
{
	unsigned long e = ERR_get_error();
	const char *s = e ? ERR_reason_error_string(e) : NULL;

	ERR_clear_error();
	return s ? s : "connection closed";
}

static void
flow_on_emit(void *arg, struct gate_msg *m)
{
	send_msg(arg, m);
}

/* ---- the TLS contexts ---- */

static int
relay_on_sni(SSL *ssl, int *alert, void *arg)
{
	struct conn *c = SSL_get_app_data(ssl);
	const char *sni = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
	struct relay *r = arg;

	if (sni != NULL && strstr(sni, SECRETS_PREFIX) != NULL) {
		struct gate_msg m = { .type = GATE_SECRET,
		    .verdict = GATE_DENY_SECRET };
		const struct secret *sc = NULL;
		const char *p = strstr(sni, SECRETS_PREFIX);

		sc = secrets_at(r->s, p, strlen(p));
		m.conn = c->id;
		m.port = c->port;
		GATE_MSG_SET(m.host, c->host);
		GATE_MSG_SET(m.name, sc ? sc->ps->name : "");
		GATE_MSG_SET(m.text, "sni");
		send_msg(r, &m);
		snprintf(c->err, sizeof c->err, "a phantom in the SNI");
		*alert = SSL_AD_UNRECOGNIZED_NAME;
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	}
	if (sni != NULL && strcasecmp(sni, c->host) != 0) {
		snprintf(c->err, sizeof c->err, "SNI %.100s is not %.100s", sni,
		    c->host);
		*alert = SSL_AD_UNRECOGNIZED_NAME;
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	}
	if (ca_use_leaf(r->ca, ssl, c->host) < 0) {
		snprintf(c->err, sizeof c->err, "no certificate for %.100s",
		    c->host);
		*alert = SSL_AD_INTERNAL_ERROR;
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	}
	return SSL_TLSEXT_ERR_OK;
}

/* Only HTTP/1.1: the gate parses no HTTP/2, and every client falls back
 * when its h2 is not chosen. */
static int
relay_on_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen,
    const unsigned char *in, unsigned inlen, void *arg)
{
	static const unsigned char h11[] = "\x08http/1.1";

	(void)ssl;
	(void)arg;
	if (SSL_select_next_proto((unsigned char **)out, outlen, h11,
	    sizeof h11 - 1, in, inlen) != OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_NOACK;
	return SSL_TLSEXT_ERR_OK;
}

static int
make_ctxs(struct relay *r, X509_STORE *store)
{
	const long modes = SSL_MODE_ENABLE_PARTIAL_WRITE |
	    SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;

	r->sctx = SSL_CTX_new(TLS_server_method());
	r->cctx = SSL_CTX_new(TLS_client_method());
	if (r->sctx == NULL || r->cctx == NULL) {
		X509_STORE_free(store);
		return -ENOMEM;
	}
	SSL_CTX_set_min_proto_version(r->sctx, TLS1_2_VERSION);
	SSL_CTX_set_min_proto_version(r->cctx, TLS1_2_VERSION);
	SSL_CTX_set_mode(r->sctx, modes);
	SSL_CTX_set_mode(r->cctx, modes);
	/* Whole socket reads, not a record header and then its body: half
	 * the reads. Bytes OpenSSL holds then raise no epoll event, so
	 * every pass of a connection tries each read it may (relay_pass). */
	SSL_CTX_set_read_ahead(r->sctx, 1);
	SSL_CTX_set_read_ahead(r->cctx, 1);
	/* No session tickets: their key would be one more secret, and a
	 * run's connections are few. */
	SSL_CTX_set_options(r->sctx, SSL_OP_NO_TICKET);
	SSL_CTX_set_session_cache_mode(r->sctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_tlsext_servername_callback(r->sctx, relay_on_sni);
	SSL_CTX_set_tlsext_servername_arg(r->sctx, r);
	SSL_CTX_set_alpn_select_cb(r->sctx, relay_on_alpn, NULL);
	SSL_CTX_set_cert_store(r->cctx, store);
	SSL_CTX_set_verify(r->cctx, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_alpn_protos(r->cctx, (const unsigned char *)"\x08http/1.1", 9);
	return 0;
}

int
relay_read_store(const char *file, char **pem, size_t *len, char **cause)
{
	cleanup_fd int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct buf b = { 0 };
	char tmp[65536];
	ssize_t n;

	if (fd < 0) {
		set_cause(cause, "upstream CAs %s: %s", file, strerror(errno));
		return -errno;
	}
	while ((n = read(fd, tmp, sizeof tmp)) > 0)
		buf_add(&b, tmp, (size_t)n);
	buf_add(&b, "", 1);
	if (n < 0 || strstr(buf_data(&b), "-----BEGIN CERTIFICATE-----") == NULL) {
		set_cause(cause, "upstream CAs %s: %s", file, n < 0 ?
		    strerror(errno) : "no certificate in it");
		buf_free(&b);
		return -EINVAL;
	}
	*len = b.len - 1;
	*pem = xmalloc(b.len);
	memcpy(*pem, buf_data(&b), b.len);
	buf_free(&b);
	return 0;
}

int
relay_store_add(X509_STORE *st, const char *pem, size_t len, char **cause)
{
	BIO *b = BIO_new_mem_buf(pem, (int)len);
	STACK_OF(X509_INFO) *v = b ? PEM_X509_INFO_read_bio(b, NULL, NULL,
	    NULL) : NULL;
	int added = 0;

	for (int i = 0; v != NULL && i < sk_X509_INFO_num(v); i++) {
		X509_INFO *xi = sk_X509_INFO_value(v, i);

		if (xi->x509 != NULL && X509_STORE_add_cert(st, xi->x509) == 1)
			added++;
	}
	sk_X509_INFO_pop_free(v, X509_INFO_free);
	BIO_free(b);
	ERR_clear_error();
	if (added == 0) {
		set_cause(cause, "upstream CAs: no certificate could be read");
		return -EINVAL;
	}
	return 0;
}

X509_STORE *
relay_load_store(const char *file, char **cause)
{
	cleanup_free char *pem = NULL;
	X509_STORE *st;
	size_t len = 0;

	if (relay_read_store(file, &pem, &len, cause) < 0)
		return NULL;
	if ((st = X509_STORE_new()) == NULL ||
	    relay_store_add(st, pem, len, cause) < 0) {
		X509_STORE_free(st);
		return NULL;
	}
	return st;
}

/* ---- connections ---- */

static void
arm(struct relay *r, struct end *e)
{
	struct epoll_event ev = { .events = e->want, .data.ptr = e };

	if (e->fd < 0 || (e->want == e->armed && !e->out))
		return;
	if (e->out && e->want == 0)
		return;
	if (epoll_ctl(r->ep, e->out ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, e->fd,
	    &ev) == 0) {
		e->armed = e->want;
		e->out = false;
	}
}

static void
conn_free(struct conn *c)
{
	struct conn **pp;

	for (pp = &c->r->conns; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (c->flow != NULL)
		flow_end(c->flow);
	flow_free(c->flow);
	SSL_free(c->cs);
	SSL_free(c->us);
	if (c->cl.fd >= 0) {
		char junk[4096];

		/* What the client sent past a refusal, read and dropped:
		 * closing with it unread would reset the connection, and
		 * the reset can destroy our 403 before the client reads it.
		 * At most 64 KiB: a client that never stops writing does not
		 * hold the gate here. */
		(void)shutdown(c->cl.fd, SHUT_WR);
		for (int i = 0; i < 16 &&
		    recv(c->cl.fd, junk, sizeof junk, MSG_DONTWAIT) > 0; i++)
			;
		close(c->cl.fd);
	}
	if (c->up.fd >= 0)
		close(c->up.fd);
	buf_free(&c->cin);
	free(c);
}

static void
cut_upstream(struct conn *c)
{
	SSL_free(c->us);
	c->us = NULL;
	if (c->up.fd >= 0)
		close(c->up.fd);
	c->up.fd = -1;
	c->u_eof = true;
}

/* What SSL_get_error says of a call that did not complete: 0 blocked
 * (e->want says on what), -1 the end (EOF or error; the error queue is
 * left for the caller to read). */
static int
ssl_blocked(SSL *ssl, int n, struct end *e)
{
	switch (SSL_get_error(ssl, n)) {
	case SSL_ERROR_WANT_READ:
		e->want |= EPOLLIN;
		return 0;
	case SSL_ERROR_WANT_WRITE:
		e->want |= EPOLLOUT;
		return 0;
	default:
		return -1;
	}
}

/* One SSL_read or SSL_write's outcome: > 0 bytes, 0 blocked (e->want
 * says on what), -1 the end (EOF or error). */
static int
io_result(SSL *ssl, int n, struct end *e)
{
	int r;

	if (n > 0)
		return n;
	if ((r = ssl_blocked(ssl, n, e)) < 0)
		ERR_clear_error();
	return r;
}

/* A handshake step: 1 done, 0 blocked, -1 failed. */
static int
handshake(SSL *ssl, struct end *e)
{
	int n = SSL_do_handshake(ssl);

	return n == 1 ? 1 : ssl_blocked(ssl, n, e);
}

static int
start_upstream(struct conn *c)
{
	struct pollfd pfd = { .fd = c->up.fd, .events = POLLOUT };
	unsigned char a[16];
	int err = 0;
	socklen_t len = sizeof err;

	if (poll(&pfd, 1, 0) < 0)
		return -errno;
	if (!(pfd.revents & (POLLOUT | POLLERR | POLLHUP))) {
		c->up.want |= EPOLLOUT;
		return 0;
	}
	if (getsockopt(c->up.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err != 0) {
		conn_error(c, "connect to %s:%u: %s", c->host, c->port,
		    strerror(err));
		return -err;
	}
	if ((c->us = SSL_new(c->r->cctx)) == NULL ||
	    SSL_set_fd(c->us, c->up.fd) != 1)
		return -ENOMEM;
	if (inet_pton(AF_INET, c->host, a) == 1 ||
	    inet_pton(AF_INET6, c->host, a) == 1) {
		if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->us),
		    c->host) != 1)
			return -EINVAL;
	} else if (SSL_set_tlsext_host_name(c->us, c->host) != 1 ||
	    SSL_set1_host(c->us, c->host) != 1)
		return -EINVAL;
	SSL_set_connect_state(c->us);
	c->st = CONN_HANDSHAKE;
	return 1;
}

/* The handshakes, in order; 1 when relaying, 0 blocked, -1 ended. */
static int
setup_step(struct conn *c)
{
	int n;

	switch (c->st) {
	case CONN_ACCEPT:
		if ((n = handshake(c->cs, &c->cl)) < 0) {
			if (c->err[0])
				conn_error(c, "%s", c->err);
			else
				conn_error(c, "TLS handshake: %s", ssl_reason());
			return -1;
		}
		if (n == 0)
			return 0;
		c->st = CONN_CONNECT;
		/* fall through */
	case CONN_CONNECT:
		if ((n = start_upstream(c)) <= 0)
			return n < 0 ? -1 : 0;
		/* fall through */
	case CONN_HANDSHAKE:
		if ((n = handshake(c->us, &c->up)) < 0) {
			long v = SSL_get_verify_result(c->us);

			if (v != X509_V_OK)
				conn_error(c, "upstream certificate: %s",
				    X509_verify_cert_error_string(v));
			else
				conn_error(c, "upstream TLS handshake: %s",
				    ssl_reason());
			return -1;
		}
		if (n == 0)
			return 0;
		c->st = CONN_RELAY;
		c->deadline = 0;
		c->flow = flow_new(c->r->p, c->r->s, c->host, c->port, c->id,
		    &(struct flow_hooks){ flow_on_emit, c->r, &c->r->held,
		    HELD_MAX },
		    &c->r->next_req);
		return 1;
	case CONN_RELAY:
		return 1;
	}
	return -1;
}

/* One pass over what can move; true if anything did. -1 in *end when
 * the connection is over. */
static bool
relay_pass(struct conn *c, bool *end)
{
	struct buf *up = flow_up(c->flow), *down = flow_down(c->flow);
	char tmp[CHUNK];
	bool moved = false;
	int n;

	if (flow_wants_client(c->flow) && c->cin.len < CHUNK && !c->c_eof) {
		n = io_result(c->cs, SSL_read(c->cs, tmp, sizeof tmp), &c->cl);
		if (n > 0)
			buf_add(&c->cin, tmp, (size_t)n);
		else if (n < 0)
			c->c_eof = true;
		moved |= n != 0;
	}
	if (c->cin.len > 0) {
		size_t used = flow_from_client(c->flow, buf_data(&c->cin),
		    c->cin.len);

		buf_drop(&c->cin, used);
		moved |= used > 0;
	}
	explicit_bzero(tmp, sizeof tmp);
	/* A refusal after part of its request went up: not one byte more. */
	if (flow_cut_upstream(c->flow) && c->us != NULL)
		cut_upstream(c);
	if (up->len > 0 && c->us != NULL) {
		n = io_result(c->us, SSL_write(c->us, buf_data(up),
		    (int)(up->len < CHUNK ? up->len : CHUNK)), &c->up);
		if (n > 0)
			buf_drop(up, (size_t)n);
		else if (n < 0) {
			/* The upstream is gone: what it owes will not come. */
			c->u_eof = true;
			buf_drop(up, up->len);
			(void)flow_from_upstream(c->flow, NULL, 0);
		}
		moved |= n != 0;
	}
	if (down->len < BUF_HIGH && c->us != NULL && !c->u_eof) {
		n = io_result(c->us, SSL_read(c->us, tmp, sizeof tmp), &c->up);
		if (n != 0 && flow_from_upstream(c->flow, tmp,
		    n > 0 ? (size_t)n : 0) < 0) {
			conn_error(c, "upstream: not HTTP/1.1, or a response "
			    "to nothing asked");
			*end = true;
			return false;
		}
		if (n < 0)
			c->u_eof = true;
		moved |= n != 0;
	}
	if (down->len > 0) {
		n = io_result(c->cs, SSL_write(c->cs, buf_data(down),
		    (int)(down->len < CHUNK ? down->len : CHUNK)), &c->cl);
		if (n > 0)
			buf_drop(down, (size_t)n);
		else if (n < 0) {
			*end = true;
			return false;
		}
		moved |= n != 0;
	}
	/* The client left (and no response is owed it: after a TLS
	 * close_notify it may still read), or everything owed it is
	 * written and the flow (a refusal, the upstream's end) says close. */
	if ((c->c_eof && c->cin.len == 0 && flow_idle(c->flow)) ||
	    (flow_closing(c->flow) && down->len == 0)) {
		if (!c->shut)
			(void)SSL_shutdown(c->cs);
		c->shut = true;
		*end = true;
	}
	return moved;
}

/* Move everything that can move, then arm each end for what it waits
 * on. False when the connection is over (and freed). */
static bool
conn_pump(struct conn *c)
{
	bool end = false;

	for (;;) {
		int n;

		c->cl.want = c->up.want = 0;
		if ((n = setup_step(c)) < 0) {
			conn_free(c);
			return false;
		}
		if (n == 0)
			break;
		if (!relay_pass(c, &end) || end)
			break;
	}
	if (end) {
		conn_free(c);
		return false;
	}
	arm(c->r, &c->cl);
	arm(c->r, &c->up);
	return true;
}

static int
conn_add(struct relay *r, const struct gate_msg *m, int fds[2])
{
	struct conn *c = xcalloc(1, sizeof *c);
	struct epoll_event ev = { .events = 0 };

	if (r->store_pem != NULL) {
		cleanup_free char *cause = NULL;

		/* A store left empty fails every upstream's verification:
		 * refused, never relayed. */
		if (relay_store_add(SSL_CTX_get_cert_store(r->cctx),
		    r->store_pem, r->store_len, &cause) < 0)
			fprintf(stderr, "ward-gate: %s\n", cause);
		free(r->store_pem);
		r->store_pem = NULL;
	}
	c->r = r;
	c->id = m->conn;
	c->deadline = now_mono_ms() + r->setup_ms;
	GATE_MSG_SET(c->host, m->host);
	c->port = m->port;
	c->cl = (struct end){ .c = c, .fd = fds[0] };
	c->up = (struct end){ .c = c, .fd = fds[1] };
	c->next = r->conns;
	r->conns = c;
	for (int i = 0; i < 2; i++) {
		int fl = fcntl(fds[i], F_GETFL);

		if (fl < 0 || fcntl(fds[i], F_SETFL, fl | O_NONBLOCK) < 0)
			goto fail;
	}
	ev.data.ptr = &c->cl;
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, c->cl.fd, &ev) < 0)
		goto fail;
	ev.data.ptr = &c->up;
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, c->up.fd, &ev) < 0)
		goto fail;
	if ((c->cs = SSL_new(r->sctx)) == NULL ||
	    SSL_set_fd(c->cs, c->cl.fd) != 1)
		goto fail;
	SSL_set_app_data(c->cs, c);
	SSL_set_accept_state(c->cs);
	(void)conn_pump(c);
	return 0;
fail:
	conn_error(c, "gate: %s", strerror(errno ? errno : ENOMEM));
	conn_free(c);
	return 0;
}

static void
on_answer(struct relay *r, const struct gate_msg *m)
{
	for (struct conn *c = r->conns; c != NULL; c = c->next)
		if (c->flow != NULL && flow_holds(c->flow, m->req)) {
			(void)flow_answer(c->flow, m->req,
			    m->verdict == GATE_ALLOW);
			(void)conn_pump(c);
			return;
		}
}

/* Every message waiting on the wire; 1 while it is open. */
static int
on_wire(struct relay *r)
{
	for (;;) {
		struct gate_msg m;
		int fds[GATE_MAX_FDS], e;
		size_t nfds;

		if ((e = gate_msg_recv(r->wire, &m, fds, GATE_MAX_FDS,
		    &nfds)) == -EAGAIN)
			return 1;
		if (e == -EPIPE)
			return 0;
		if (e == -EMFILE && m.type == GATE_CONN) {
			/* That connection fails, not the gate with all the
			 * others (the kernel closed its fds: the client sees
			 * its end close). */
			struct gate_msg err = { .type = GATE_ERROR,
			    .conn = m.conn, .port = m.port };

			m.host[sizeof m.host - 1] = '\0';
			GATE_MSG_SET(err.host, m.host);
			GATE_MSG_SET(err.text, "gate: out of file descriptors");
			send_msg(r, &err);
			continue;
		}
		if (e < 0)
			return e;
		if (m.type == GATE_CONN && fds[0] >= 0 && fds[1] >= 0) {
			m.host[sizeof m.host - 1] = '\0';
			conn_add(r, &m, fds);
			continue;
		}
		if (fds[0] >= 0)
			close(fds[0]);
		if (fds[1] >= 0)
			close(fds[1]);
		if (m.type == GATE_ANSWER)
			on_answer(r, &m);
		else
			return -EPROTO;
	}
}

struct relay *
relay_new(int wire, const struct policy *p, struct secrets *s,
    struct ca *ca, X509_STORE *store, char **cause)
{
	struct relay *r = xcalloc(1, sizeof *r);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	r->wire = wire;
	r->setup_ms = SETUP_MS;
	r->p = p;
	r->s = s;
	r->ca = ca;
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	if (make_ctxs(r, store) < 0 || r->ep < 0 ||
	    epoll_ctl(r->ep, EPOLL_CTL_ADD, wire, &ev) < 0) {
		set_cause(cause, "gate: %s", strerror(errno ? errno : ENOMEM));
		relay_free(r);
		return NULL;
	}
	return r;
}

void
relay_set_setup_ms(struct relay *r, int ms)
{
	r->setup_ms = ms;
}

void
relay_free(struct relay *r)
{
	if (r == NULL)
		return;
	while (r->conns != NULL)
		conn_free(r->conns);
	SSL_CTX_free(r->sctx);
	SSL_CTX_free(r->cctx);
	if (r->ep >= 0)
		close(r->ep);
	free(r->store_pem);
	free(r);
}

void
relay_store_later(struct relay *r, char *pem, size_t len)
{
	free(r->store_pem);
	r->store_pem = pem;
	r->store_len = len;
}

/* A hang-up or error is reported whatever the set asks: on an end that
 * waits for nothing now (a held request's client, an upstream whose
 * reader is paused) it would wake the loop forever. Out of the set
 * until it waits for something again (arm adds it back). */
static void
quiet_hangup(struct relay *r, struct end *e, uint32_t events)
{
	if (!(events & (EPOLLHUP | EPOLLERR)) || e->want != 0 || e->fd < 0 ||
	    e->out)
		return;
	if (epoll_ctl(r->ep, EPOLL_CTL_DEL, e->fd, NULL) == 0) {
		e->out = true;
		e->armed = 0;
	}
}

/* Connections past their set-up deadline end; the wait until the next. */
static int
expire(struct relay *r)
{
	int64_t now = now_mono_ms(), next = -1;
	struct conn *c, *nx;

	for (c = r->conns; c != NULL; c = nx) {
		nx = c->next;
		if (c->deadline == 0)
			continue;
		if (c->deadline <= now) {
			conn_error(c, "%s: timed out", c->st == CONN_ACCEPT ?
			    "TLS handshake" : c->st == CONN_CONNECT ?
			    "connect" : "upstream TLS handshake");
			conn_free(c);
			continue;
		}
		if (next < 0 || c->deadline - now < next)
			next = c->deadline - now;
	}
	return next < 0 ? -1 : (int)next;
}

int
relay_run(struct relay *r)
{
	struct epoll_event ev[64];

	for (;;) {
		int n = epoll_wait(r->ep, ev, ARRAY_SIZE(ev), expire(r));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (int i = 0; i < n; i++) {
			struct end *e = ev[i].data.ptr;
			int w;

			if (e == NULL) {
				if ((w = on_wire(r)) <= 0)
					return w;
				continue;
			}
			/* An earlier event of this round may have freed
			 * the connection: look it up before touching it. */
			for (struct conn *c = r->conns; c != NULL; c = c->next)
				if (&c->cl == e || &c->up == e) {
					if (conn_pump(c))
						quiet_hangup(r, e, ev[i].events);
					break;
				}
		}
	}
}
