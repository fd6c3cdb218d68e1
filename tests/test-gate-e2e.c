/* SPDX-License-Identifier: MIT */
/* ward-gate end to end, in process: the gate's loop (relay.c, locked by
 * lock.c) in a forked child driven over a real SEQPACKET wire; an
 * OpenSSL test server with its own test CA as the upstream on loopback
 * TCP; a TLS client that trusts only the run CA. Certificates are made
 * here, at test time; no key is checked in. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "config/policy.h"
#include "config/util.h"
#include "supervisor/gate/ca.h"
#include "supervisor/gate/wire.h"
#include "supervisor/gate/lock.h"
#include "supervisor/gate/relay.h"
#include "supervisor/gate/secrets.h"
#include "tests/gate-secret.h"

/* ---- test certificates ---- */

static void
ext(X509 *x, X509 *iss, int nid, const char *v)
{
	X509V3_CTX c;
	X509_EXTENSION *e;

	X509V3_set_ctx(&c, iss, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &c, nid, v);
	assert_non_null(e);
	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
}

/* A certificate for cn (a CA when issuer is NULL) signed by ikey. */
static X509 *
make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *ikey)
{
	X509 *x = X509_new();
	X509_NAME *n = X509_NAME_new();
	static long serial = 1;

	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_UTF8,
	    (const unsigned char *)cn, -1, -1, 0);
	X509_set_subject_name(x, n);
	X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : n);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, key);
	if (issuer == NULL) {
		ext(x, x, NID_basic_constraints, "critical,CA:TRUE");
		ext(x, x, NID_key_usage, "critical,keyCertSign");
	} else {
		cleanup_free char *san = xasprintf("DNS:%s", cn);

		ext(x, issuer, NID_subject_alt_name, san);
	}
	X509_sign(x, ikey, EVP_sha256());
	X509_NAME_free(n);
	return x;
}

/* ---- the upstream: a TLS server in a thread ---- */

struct upstream {
	int		 lfd;
	unsigned	 port;
	SSL_CTX		*ctx;
	char		 seen[4096];	/* the last request's head */
	int		 requests;
	int		 go[2];		/* the SSE's second event waits on it */
	pthread_t	 th;
};

static void
serve_one(struct upstream *u, SSL *s)
{
	char buf[4096];
	size_t n = 0;
	int r;

	while (n < sizeof buf - 1 && (r = SSL_read(s, buf + n,
	    (int)(sizeof buf - 1 - n))) > 0) {
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL)
			break;
	}
	if (n == 0)
		return;
	memcpy(u->seen, buf, n + 1);
	__atomic_add_fetch(&u->requests, 1, __ATOMIC_SEQ_CST);
	if (strncmp(buf, "GET /sse ", 9) == 0) {
		const char *h = "HTTP/1.1 200 OK\r\nContent-Type: "
		    "text/event-stream\r\nConnection: close\r\n\r\ndata: 1\n\n";
		char c;

		SSL_write(s, h, (int)strlen(h));
		/* The second event only once the client has the first:
		 * proof that the gate does not hold a body back. */
		if (read(u->go[0], &c, 1) == 1)
			SSL_write(s, "data: 2\n\n", 9);
		return;
	}
	SSL_write(s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 40);
}

static void *
upstream_main(void *arg)
{
	struct upstream *u = arg;
	int fd;

	while ((fd = accept(u->lfd, NULL, NULL)) >= 0) {
		SSL *s = SSL_new(u->ctx);

		SSL_set_fd(s, fd);
		if (SSL_accept(s) == 1)
			serve_one(u, s);
		SSL_shutdown(s);
		SSL_free(s);
		close(fd);
	}
	return NULL;
}

static void
upstream_start(struct upstream *u, X509 *cert, EVP_PKEY *key)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	u->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(u->lfd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(u->lfd, 8), 0);
	getsockname(u->lfd, (struct sockaddr *)&a, &len);
	u->port = ntohs(a.sin_port);
	u->ctx = SSL_CTX_new(TLS_server_method());
	SSL_CTX_use_certificate(u->ctx, cert);
	SSL_CTX_use_PrivateKey(u->ctx, key);
	assert_int_equal(pipe(u->go), 0);
	pthread_create(&u->th, NULL, upstream_main, u);
}

/* ---- the fixture ---- */

struct fx {
	struct policy	 p;
	struct secrets	 s;
	struct ca	*ca;
	int		 wire;
	pid_t		 gate;
	struct upstream	 good, bad;
	SSL_CTX		*cctx;
	char		 dir[64];
	uint64_t	 conn;
};


static void
write_pem(const char *path, X509 *x)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	PEM_write_X509(f, x);
	fclose(f);
}

static void
gate_child(struct fx *x, int wire)
{
	char *cause = NULL;
	X509_STORE *st = relay_load_store(x->p.upstream_ca, &cause);
	struct relay *r;

	if (st == NULL || (r = relay_new(wire, &x->p, &x->s, x->ca, st,
	    &cause)) == NULL || lock_apply(&cause) < 0) {
		fprintf(stderr, "gate child: %s\n", cause);
		_exit(1);
	}
	relay_set_setup_ms(r, 1000);
	_exit(relay_run(r) < 0 ? 1 : 0);
}

static int
setup(void **state)
{
	static const char *const values[] = { "sekret-api", "sekret-other" };
	struct fx *x = xcalloc(1, sizeof *x);
	EVP_PKEY *tk = EVP_EC_gen("P-256"), *ok = EVP_EC_gen("P-256");
	EVP_PKEY *sk = EVP_EC_gen("P-256");
	X509 *tca = make_cert("ward test upstream CA", tk, NULL, tk);
	X509 *oca = make_cert("some other CA", ok, NULL, ok);
	X509 *good = make_cert("api.test", sk, tca, tk);
	X509 *bad = make_cert("api.test", sk, oca, ok);
	X509_STORE *trust;
	BIO *b;
	X509 *runca;
	char *cause = NULL;
	int sv[2];

	signal(SIGPIPE, SIG_IGN);
	snprintf(x->dir, sizeof x->dir, "/tmp/ward-test-gate-XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	policy_init(&x->p);
	x->p.http = POLICY_ASK;
	/* GETs by a rule; anything else asked over the wire. */
	x->p.net_allow = xcalloc(1, sizeof *x->p.net_allow);
	x->p.n_net_allow = 1;
	x->p.net_allow[0].host = xstrdup("api.test");
	x->p.net_allow[0].port_lo = x->p.net_allow[0].port_hi = 443;
	x->p.net_allow[0].method = xstrdup("GET");
	x->p.net_allow[0].path = xstrdup("/**");
	x->p.upstream_ca = xasprintf("%s/upstream-ca.pem", x->dir);
	write_pem(x->p.upstream_ca, tca);
	add_secret(&x->p, "API_KEY", "api.test", "x-api-key");
	add_secret(&x->p, "OTHER_KEY", "other.test", "x-api-key");
	assert_int_equal(secrets_set(&x->s, &x->p, values, &cause), 0);
	x->ca = ca_new("test", &x->p, &cause);
	assert_non_null(x->ca);

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv), 0);
	if ((x->gate = fork()) == 0) {
		close(sv[0]);
		gate_child(x, sv[1]);
	}
	close(sv[1]);
	x->wire = sv[0];
	/* Threads only after the fork. */
	upstream_start(&x->good, good, sk);
	upstream_start(&x->bad, bad, sk);

	x->cctx = SSL_CTX_new(TLS_client_method());
	trust = SSL_CTX_get_cert_store(x->cctx);
	b = BIO_new_mem_buf(ca_pem(x->ca), -1);
	runca = PEM_read_bio_X509(b, NULL, NULL, NULL);
	X509_STORE_add_cert(trust, runca);
	X509_free(runca);
	BIO_free(b);
	SSL_CTX_set_verify(x->cctx, SSL_VERIFY_PEER, NULL);
	X509_free(tca);
	X509_free(oca);
	X509_free(good);
	X509_free(bad);
	EVP_PKEY_free(tk);
	EVP_PKEY_free(ok);
	EVP_PKEY_free(sk);
	*state = x;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *x = *state;
	int st = 0;

	close(x->wire);
	/* The wire's end ends the gate. */
	waitpid(x->gate, &st, 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unlink(x->p.upstream_ca);
	rmdir(x->dir);
	SSL_CTX_free(x->cctx);
	ca_free(x->ca);
	secrets_done(&x->s);
	policy_done(&x->p);
	/* Shutting the listening sockets ends the upstreams' accept. */
	for (int i = 0; i < 2; i++) {
		struct upstream *u = i ? &x->bad : &x->good;

		shutdown(u->lfd, SHUT_RDWR);
		close(u->go[1]);
		pthread_join(u->th, NULL);
		close(u->lfd);
		close(u->go[0]);
		SSL_CTX_free(u->ctx);
	}
	free(x);
	return 0;
}

/* ---- helpers ---- */

/* A connection through the gate to host (SNI sni); the client's SSL. */
static SSL *
connect_via_gate(struct fx *x, struct upstream *u, const char *host,
    const char *sni, int *cfd)
{
	struct gate_msg m = { .type = GATE_CONN };
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 5 };
	int pair[2], ufd, fds[2];
	SSL *s;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)u->port);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    pair), 0);
	ufd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(connect(ufd, (struct sockaddr *)&a, sizeof a) == 0 ||
	    errno == EINPROGRESS);
	m.conn = ++x->conn;
	m.port = 443;
	GATE_MSG_SET(m.host, host);
	fds[0] = pair[1];
	fds[1] = ufd;
	assert_int_equal(gate_msg_send(x->wire, &m, fds, 2), 0);
	close(pair[1]);
	close(ufd);
	setsockopt(pair[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	s = SSL_new(x->cctx);
	SSL_set_fd(s, pair[0]);
	SSL_set_tlsext_host_name(s, sni);
	SSL_set1_host(s, sni);
	*cfd = pair[0];
	return s;
}

static void
close_client(SSL *s, int fd)
{
	SSL_free(s);
	close(fd);
}

/* The next wire message (5 s at most). */
static struct gate_msg
next_msg(struct fx *x)
{
	struct pollfd p = { .fd = x->wire, .events = POLLIN };
	struct gate_msg m = { 0 };
	int fds[2];
	size_t nfds;

	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_int_equal(gate_msg_recv(x->wire, &m, fds, GATE_MAX_FDS, &nfds), 0);
	return m;
}

/* Read until the peer closes or n bytes; the count. */
static size_t
read_all(SSL *s, char *buf, size_t n)
{
	size_t got = 0;
	int r;

	while (got < n - 1 && (r = SSL_read(s, buf + got,
	    (int)(n - 1 - got))) > 0)
		got += (size_t)r;
	buf[got] = '\0';
	return got;
}

/* ---- tests ---- */

static void
test_secret_reaches_upstream(void **state)
{
	struct fx *x = *state;
	cleanup_free char *req = NULL;
	char resp[1024];
	struct gate_msg m;
	int fd;
	SSL *s = connect_via_gate(x, &x->good, "api.test", "api.test", &fd);

	assert_int_equal(SSL_connect(s), 1);
	{
		const unsigned char *alpn = NULL;
		unsigned alen = 0;

		SSL_get0_alpn_selected(s, &alpn, &alen);
		assert_int_equal(alen, 0);	/* none offered here */
	}
	req = xasprintf("GET /v1/models HTTP/1.1\r\nHost: api.test\r\n"
	    "x-api-key: %s\r\nConnection: close\r\n\r\n", x->s.v[0].phantom);
	SSL_write(s, req, (int)strlen(req));
	read_all(s, resp, sizeof resp);
	assert_true(strncmp(resp, "HTTP/1.1 200 OK", 15) == 0);
	assert_non_null(strstr(resp, "\r\n\r\nok"));
	assert_non_null(strstr(x->good.seen, "x-api-key: sekret-api\r\n"));
	assert_null(strstr(x->good.seen, "ward-phantom"));
	m = next_msg(x);
	assert_int_equal(m.type, GATE_HTTP);
	assert_int_equal(m.status, 200);
	assert_string_equal(m.name, "API_KEY");
	assert_string_equal(m.path, "/v1/models");
	assert_int_equal(m.bytes_down, 40);
	close_client(s, fd);
}

static void
test_alpn_is_http11(void **state)
{
	struct fx *x = *state;
	const unsigned char *alpn = NULL;
	unsigned alen = 0;
	int fd;
	SSL *s = connect_via_gate(x, &x->good, "api.test", "api.test", &fd);

	SSL_set_alpn_protos(s, (const unsigned char *)"\x02h2\x08http/1.1", 12);
	assert_int_equal(SSL_connect(s), 1);
	SSL_get0_alpn_selected(s, &alpn, &alen);
	assert_int_equal(alen, 8);
	assert_memory_equal(alpn, "http/1.1", 8);
	close_client(s, fd);
	/* The upstream handshake happened: a client that leaves sends no
	 * request, no GATE_HTTP. */
}

static void
test_refused_never_relayed(void **state)
{
	struct fx *x = *state;
	cleanup_free char *req = NULL;
	char resp[1024];
	struct gate_msg m;
	int fd, before = x->good.requests;
	SSL *s = connect_via_gate(x, &x->good, "api.test", "api.test", &fd);

	assert_int_equal(SSL_connect(s), 1);
	/* OTHER_KEY's phantom, in its header, to a host it is not bound to. */
	req = xasprintf("GET /v1 HTTP/1.1\r\nHost: api.test\r\nx-api-key: %s"
	    "\r\n\r\n", x->s.v[1].phantom);
	SSL_write(s, req, (int)strlen(req));
	read_all(s, resp, sizeof resp);
	assert_true(strncmp(resp, "HTTP/1.1 403 Forbidden", 22) == 0);
	m = next_msg(x);
	assert_int_equal(m.type, GATE_SECRET);
	assert_string_equal(m.name, "OTHER_KEY");
	assert_string_equal(m.text, "header x-api-key");
	m = next_msg(x);
	assert_int_equal(m.type, GATE_HTTP);
	assert_int_equal(m.verdict, GATE_DENY_SECRET);
	assert_int_equal(m.status, 403);
	usleep(100 * 1000);
	assert_int_equal(x->good.requests, before);
	close_client(s, fd);
}

static void
test_sse_arrives_in_pieces(void **state)
{
	struct fx *x = *state;
	const char *req = "GET /sse HTTP/1.1\r\nHost: api.test\r\n\r\n";
	char buf[2048];
	size_t n = 0;
	int fd, r;
	SSL *s = connect_via_gate(x, &x->good, "api.test", "api.test", &fd);

	assert_int_equal(SSL_connect(s), 1);
	SSL_write(s, req, (int)strlen(req));
	while (strstr(buf, "data: 1\n\n") == NULL) {
		r = SSL_read(s, buf + n, (int)(sizeof buf - 1 - n));
		assert_true(r > 0);
		n += (size_t)r;
		buf[n] = '\0';
	}
	assert_null(strstr(buf, "data: 2"));
	assert_int_equal(write(x->good.go[1], "g", 1), 1);
	read_all(s, buf + n, sizeof buf - n);
	assert_non_null(strstr(buf, "data: 2\n\n"));
	/* Close-delimited: the request ends when the upstream closes. */
	{
		struct gate_msg m = next_msg(x);

		assert_int_equal(m.type, GATE_HTTP);
		assert_int_equal(m.status, 200);
		assert_string_equal(m.path, "/sse");
	}
	close_client(s, fd);
}

static void
test_bad_upstream_refused(void **state)
{
	struct fx *x = *state;
	const char *req = "GET /v1 HTTP/1.1\r\nHost: api.test\r\n\r\n";
	char buf[256];
	struct gate_msg m;
	int fd;
	SSL *s = connect_via_gate(x, &x->bad, "api.test", "api.test", &fd);

	/* The gate's side may finish before it meets the upstream. */
	if (SSL_connect(s) == 1) {
		SSL_write(s, req, (int)strlen(req));
		assert_int_equal(read_all(s, buf, sizeof buf), 0);
	}
	m = next_msg(x);
	assert_int_equal(m.type, GATE_ERROR);
	assert_int_equal(m.conn, x->conn);
	assert_true(strncmp(m.text, "upstream certificate: ", 22) == 0);
	close_client(s, fd);
}

static void
test_sni_must_be_the_host(void **state)
{
	struct fx *x = *state;
	struct gate_msg m;
	int fd;
	SSL *s = connect_via_gate(x, &x->good, "api.test", "other.test", &fd);

	assert_int_not_equal(SSL_connect(s), 1);
	ERR_clear_error();
	m = next_msg(x);
	assert_int_equal(m.type, GATE_ERROR);
	assert_string_equal(m.text, "SNI other.test is not api.test");
	close_client(s, fd);
}

/* A POST no rule allows: GATE_ASK, held, then the answer. */
static void
ask_and_answer(struct fx *x, uint32_t verdict, const char *expect)
{
	const char *req = "POST /v1/messages HTTP/1.1\r\nHost: api.test\r\n"
	    "Content-Length: 2\r\n\r\nhi";
	struct gate_msg m, a = { .type = GATE_ANSWER };
	char resp[512];
	int fd, before = x->good.requests;
	SSL *s = connect_via_gate(x, &x->good, "api.test", "api.test", &fd);

	assert_int_equal(SSL_connect(s), 1);
	SSL_write(s, req, (int)strlen(req));
	m = next_msg(x);
	assert_int_equal(m.type, GATE_ASK);
	assert_int_equal(m.conn, x->conn);
	assert_string_equal(m.method, "POST");
	assert_string_equal(m.path, "/v1/messages");
	assert_string_equal(m.host, "api.test");
	assert_string_equal(m.rule, "api.test:443 GET /**");
	usleep(100 * 1000);
	assert_int_equal(x->good.requests, before);	/* held */
	a.req = m.req;
	a.verdict = verdict;
	assert_int_equal(gate_msg_send(x->wire, &a, NULL, 0), 0);
	read_all(s, resp, sizeof resp);
	assert_true(strncmp(resp, expect, strlen(expect)) == 0);
	m = next_msg(x);
	assert_int_equal(m.type, GATE_HTTP);
	assert_int_equal(m.verdict, verdict == GATE_ALLOW ? GATE_ALLOW :
	    GATE_DENY_PERSON);
	assert_int_equal(x->good.requests, before + (verdict == GATE_ALLOW));
	close_client(s, fd);
}

static void
test_ask_over_the_wire(void **state)
{
	struct fx *x = *state;

	ask_and_answer(x, GATE_ALLOW, "HTTP/1.1 200 OK");
	ask_and_answer(x, GATE_DENY, "HTTP/1.1 403 Forbidden");
}

static void
test_half_close_still_answered(void **state)
{
	struct fx *x = *state;
	const char *req = "GET /v1 HTTP/1.1\r\nHost: api.test\r\n\r\n";
	char resp[512];
	int fd;
	SSL *s = connect_via_gate(x, &x->good, "api.test", "api.test", &fd);

	assert_int_equal(SSL_connect(s), 1);
	SSL_write(s, req, (int)strlen(req));
	/* The client's close_notify: it sends no more, and still reads. */
	assert_int_equal(SSL_shutdown(s), 0);
	read_all(s, resp, sizeof resp);
	assert_true(strncmp(resp, "HTTP/1.1 200 OK", 15) == 0);
	assert_int_equal(next_msg(x).type, GATE_HTTP);
	close_client(s, fd);
}

static void
test_stalled_handshake_times_out(void **state)
{
	struct fx *x = *state;
	struct gate_msg m;
	int fd;
	SSL *s = connect_via_gate(x, &x->good, "api.test", "api.test", &fd);

	/* No ClientHello at all: after the set-up time, an error. */
	m = next_msg(x);
	assert_int_equal(m.type, GATE_ERROR);
	assert_string_equal(m.text, "TLS handshake: timed out");
	close_client(s, fd);
}

/* A GATE_CONN whose fds cannot be received (none free) is that
 * message's failure, told apart from a broken wire: the gate refuses
 * that connection and goes on serving the others. */
static void
test_conn_without_fds_is_not_the_wire(void **state)
{
	struct gate_msg m = { .type = GATE_CONN, .conn = 9, .port = 443 };
	struct gate_msg got = { 0 };
	struct rlimit was, now;
	int sv[2], fds[2], r, lowest;
	size_t nfds;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv), 0);
	GATE_MSG_SET(m.host, "api.test");
	fds[0] = fds[1] = sv[0];
	assert_int_equal(gate_msg_send(sv[0], &m, fds, 2), 0);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	lowest = dup(0);
	close(lowest);
	now = was;
	now.rlim_cur = (rlim_t)lowest;	/* no fd can be made */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &now), 0);
	r = gate_msg_recv(sv[1], &got, fds, GATE_MAX_FDS, &nfds);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	assert_int_equal(r, -EMFILE);
	assert_int_equal(got.type, GATE_CONN);
	assert_int_equal(got.conn, 9);
	assert_int_equal(fds[0], -1);
	assert_int_equal(fds[1], -1);
	close(sv[0]);
	close(sv[1]);
}

/* The leaf the gate would show for name, verified against the run CA
 * alone: its name constraints allow only the intercepted names. */
static int
verify_leaf(struct fx *x, const char *name)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	SSL *ssl = SSL_new(ctx);
	X509_STORE *st = X509_STORE_new();
	X509_STORE_CTX *vc = X509_STORE_CTX_new();
	BIO *b = BIO_new_mem_buf(ca_pem(x->ca), -1);
	X509 *ca = PEM_read_bio_X509(b, NULL, NULL, NULL);
	int err;

	assert_int_equal(ca_use_leaf(x->ca, ssl, name), 0);
	X509_STORE_add_cert(st, ca);
	X509_STORE_CTX_init(vc, st, SSL_get_certificate(ssl), NULL);
	err = X509_verify_cert(vc) == 1 ? X509_V_OK :
	    X509_STORE_CTX_get_error(vc);
	X509_STORE_CTX_free(vc);
	X509_STORE_free(st);
	X509_free(ca);
	BIO_free(b);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	return err;
}

static void
test_ca_name_constraints(void **state)
{
	struct fx *x = *state;

	assert_int_equal(verify_leaf(x, "api.test"), X509_V_OK);
	assert_int_equal(verify_leaf(x, "other.test"), X509_V_OK);
	assert_int_equal(verify_leaf(x, "bank.example"),
	    X509_V_ERR_PERMITTED_VIOLATION);
	assert_int_equal(verify_leaf(x, "10.0.0.1"),
	    X509_V_ERR_EXCLUDED_VIOLATION);
	/* And the CA is what the issue asks. */
	{
		BIO *b = BIO_new_mem_buf(ca_pem(x->ca), -1);
		X509 *ca = PEM_read_bio_X509(b, NULL, NULL, NULL);
		char cn[128] = "";

		X509_NAME_get_text_by_NID(X509_get_subject_name(ca),
		    NID_commonName, cn, sizeof cn);
		assert_string_equal(cn, "ward run CA test");
		assert_int_equal(X509_check_ca(ca), 1);
		assert_true(X509_get_key_usage(ca) & KU_KEY_CERT_SIGN);
		assert_int_equal(X509_EXTENSION_get_critical(X509_get_ext(ca,
		    X509_get_ext_by_NID(ca, NID_basic_constraints, -1))), 1);
		assert_int_equal(X509_EXTENSION_get_critical(X509_get_ext(ca,
		    X509_get_ext_by_NID(ca, NID_name_constraints, -1))), 1);
		X509_free(ca);
		BIO_free(b);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ca_name_constraints),
		cmocka_unit_test(test_conn_without_fds_is_not_the_wire),
		cmocka_unit_test(test_secret_reaches_upstream),
		cmocka_unit_test(test_alpn_is_http11),
		cmocka_unit_test(test_refused_never_relayed),
		cmocka_unit_test(test_sse_arrives_in_pieces),
		cmocka_unit_test(test_bad_upstream_refused),
		cmocka_unit_test(test_sni_must_be_the_host),
		cmocka_unit_test(test_ask_over_the_wire),
		cmocka_unit_test(test_half_close_still_answered),
		cmocka_unit_test(test_stalled_handshake_times_out),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
