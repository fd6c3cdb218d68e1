/* SPDX-License-Identifier: MIT */
/*
 * tests/bench/gate.c -- the cost of ward-gate's relay (issue 19): one
 * keep-alive TLS connection making REQUESTS small requests in turn to a
 * loopback TLS server, directly and through the gate's loop (relay.c, in
 * a forked child on a real wire, locked as in a run), the phantom of a
 * secret swapped in every request. The two alternate in ROUNDS rounds,
 * same run. Prints "direct_rps gate_rps direct_p50_s gate_p50_s" on one
 * line: figures, never a verdict. Certificates are made here.
 *
 * Usage: bench-gate [REQUESTS [ROUNDS]]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
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

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
ext(X509 *x, X509 *iss, int nid, const char *v)
{
	X509V3_CTX c;
	X509_EXTENSION *e;

	X509V3_set_ctx(&c, iss, x, NULL, NULL, 0);
	if ((e = X509V3_EXT_conf_nid(NULL, &c, nid, v)) == NULL)
		fatal("extension %s", v);
	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
}

static X509 *
make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *ikey)
{
	X509 *x = X509_new();
	X509_NAME *n = X509_NAME_new();

	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), issuer ? 2 : 1);
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
	} else
		ext(x, issuer, NID_subject_alt_name, "DNS:api.test");
	X509_sign(x, ikey, EVP_sha256());
	X509_NAME_free(n);
	return x;
}

struct server {
	int		 lfd;
	unsigned	 port;
	SSL_CTX		*ctx;
};

struct served {
	struct server	*sv;
	int		 fd;
};

/* Keep-alive: a small answer to each request head, until EOF. */
static void *
serve_conn(void *arg)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
	    "\r\nok";
	struct served *c = arg;
	SSL *s = SSL_new(c->sv->ctx);
	char buf[8192];
	size_t n = 0;
	int r, one = 1;

	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	SSL_set_fd(s, c->fd);
	if (SSL_accept(s) == 1)
		while ((r = SSL_read(s, buf + n, (int)(sizeof buf - 1 - n))) > 0) {
			char *end;

			n += (size_t)r;
			buf[n] = '\0';
			while ((end = strstr(buf, "\r\n\r\n")) != NULL) {
				size_t used = (size_t)(end + 4 - buf);

				SSL_write(s, resp, sizeof resp - 1);
				memmove(buf, buf + used, n - used + 1);
				n -= used;
			}
		}
	SSL_free(s);
	close(c->fd);
	free(c);
	return NULL;
}

/* A thread per connection: the direct one stays open beside the gate's. */
static void *
server_main(void *arg)
{
	struct server *sv = arg;
	int fd;

	while ((fd = accept(sv->lfd, NULL, NULL)) >= 0) {
		struct served *c = xcalloc(1, sizeof *c);
		pthread_t th;

		c->sv = sv;
		c->fd = fd;
		pthread_create(&th, NULL, serve_conn, c);
		pthread_detach(th);
	}
	return NULL;
}

/* The supervisor's part: read what the gate says (a GATE_HTTP a
 * request), or its sends would fill the wire and stop it. */
static void *
wire_main(void *arg)
{
	int wire = *(int *)arg;
	struct gate_msg m;

	while (recv(wire, &m, sizeof m, 0) > 0)
		;
	return NULL;
}

static int
tcp_to(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		fatal("connect: %m");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

/* A loopback TCP pair: what the supervisor hands the gate as fd[0]. */
static void
tcp_pair(int *a, int *b)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof sa;
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(l, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(l, 1) < 0)
		fatal("listen: %m");
	getsockname(l, (struct sockaddr *)&sa, &len);
	*a = tcp_to(ntohs(sa.sin_port));
	*b = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	setsockopt(*b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	close(l);
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* n requests on s; their latencies into lat; the seconds it took. */
static double
run(SSL *s, const char *req, int n, double *lat)
{
	double t0 = now();

	for (int i = 0; i < n; i++) {
		char buf[256];
		size_t got = 0;
		double t = now();

		SSL_write(s, req, (int)strlen(req));
		while (got < 40) {
			int r = SSL_read(s, buf + got, (int)(sizeof buf - got));

			if (r <= 0)
				fatal("read %d", r);
			got += (size_t)r;
		}
		lat[i] = now() - t;
	}
	return now() - t0;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	int rounds = argc > 2 ? atoi(argv[2]) : 4;
	static const char *const values[] = { "sekret-value-for-the-bench" };
	EVP_PKEY *tk = EVP_EC_gen("P-256"), *sk = EVP_EC_gen("P-256");
	X509 *tca = make_cert("bench CA", tk, NULL, tk);
	X509 *leaf = make_cert("api.test", sk, tca, tk);
	struct server sv = { 0 };
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof a;
	struct policy p;
	struct secrets s;
	struct policy_secret *sc;
	struct ca *ca;
	char *cause = NULL, dir[] = "/tmp/ward-bench-gate-XXXXXX";
	cleanup_free char *capath = NULL, *req = NULL;
	int wire[2], per = n / rounds;
	double *ld = xcalloc((size_t)n, sizeof *ld);
	double *lg = xcalloc((size_t)n, sizeof *lg);
	double td = 0, tg = 0;
	SSL_CTX *direct_ctx, *gate_ctx;
	SSL *ds, *gs;
	pthread_t th;
	pid_t pid;
	FILE *f;
	BIO *b;

	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(dir) == NULL)
		fatal("mkdtemp: %m");
	capath = xasprintf("%s/ca.pem", dir);
	f = fopen(capath, "w");
	PEM_write_X509(f, tca);
	fclose(f);
	policy_init(&p);
	p.upstream_ca = xstrdup(capath);
	p.secrets = sc = xcalloc(1, sizeof *sc);
	p.n_secrets = 1;
	sc->name = xstrdup("API_KEY");
	sc->from = xstrdup("env:API_KEY");
	sc->hosts = xcalloc(1, sizeof *sc->hosts);
	sc->hosts[0].host = xstrdup("api.test");
	sc->hosts[0].port_lo = sc->hosts[0].port_hi = 443;
	sc->n_hosts = 1;
	sc->header = xstrdup("x-api-key");
	sc->header_value = xstrdup("{}");
	if (secrets_set(&s, &p, values, &cause) < 0 ||
	    (ca = ca_new("bench", &p, &cause)) == NULL)
		fatal("%s", cause);

	socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, wire);
	if ((pid = fork()) == 0) {
		X509_STORE *st = relay_load_store(capath, &cause);
		struct relay *r;

		close(wire[0]);
		if (st == NULL || (r = relay_new(wire[1], &p, &s, ca, st,
		    &cause)) == NULL || lock_apply(&cause) < 0)
			fatal("%s", cause);
		_exit(relay_run(r) < 0);
	}
	close(wire[1]);
	pthread_create(&th, NULL, wire_main, &wire[0]);

	sv.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(sv.lfd, (struct sockaddr *)&a, sizeof a) < 0 ||
	    listen(sv.lfd, 8) < 0)
		fatal("listen: %m");
	getsockname(sv.lfd, (struct sockaddr *)&a, &alen);
	sv.port = ntohs(a.sin_port);
	sv.ctx = SSL_CTX_new(TLS_server_method());
	SSL_CTX_use_certificate(sv.ctx, leaf);
	SSL_CTX_use_PrivateKey(sv.ctx, sk);
	pthread_create(&th, NULL, server_main, &sv);

	/* Direct: the client trusts the test CA. */
	direct_ctx = SSL_CTX_new(TLS_client_method());
	X509_STORE_add_cert(SSL_CTX_get_cert_store(direct_ctx), tca);
	SSL_CTX_set_verify(direct_ctx, SSL_VERIFY_PEER, NULL);
	ds = SSL_new(direct_ctx);
	SSL_set_fd(ds, tcp_to(sv.port));
	SSL_set_tlsext_host_name(ds, "api.test");
	SSL_set1_host(ds, "api.test");
	if (SSL_connect(ds) != 1)
		fatal("direct handshake");

	/* Through the gate: the client trusts the run CA. */
	gate_ctx = SSL_CTX_new(TLS_client_method());
	b = BIO_new_mem_buf(ca_pem(ca), -1);
	X509_STORE_add_cert(SSL_CTX_get_cert_store(gate_ctx),
	    PEM_read_bio_X509(b, NULL, NULL, NULL));
	SSL_CTX_set_verify(gate_ctx, SSL_VERIFY_PEER, NULL);
	{
		struct gate_msg m = { .type = GATE_CONN, .conn = 1, .port = 443 };
		int cl, gl, fds[2];

		tcp_pair(&cl, &gl);
		fds[0] = gl;
		fds[1] = tcp_to(sv.port);
		GATE_MSG_SET(m.host, "api.test");
		if (gate_msg_send(wire[0], &m, fds, 2) < 0)
			fatal("wire");
		close(fds[0]);
		close(fds[1]);
		gs = SSL_new(gate_ctx);
		SSL_set_fd(gs, cl);
	}
	SSL_set_tlsext_host_name(gs, "api.test");
	SSL_set1_host(gs, "api.test");
	if (SSL_connect(gs) != 1)
		fatal("gate handshake");

	req = xasprintf("GET /v1/models HTTP/1.1\r\nHost: api.test\r\n"
	    "x-api-key: %s\r\n\r\n", s.v[0].phantom);
	/* A warm-up of each, then rounds in turn. */
	run(ds, req, 50, ld);
	run(gs, req, 50, lg);
	for (int i = 0; i < rounds; i++) {
		td += run(ds, req, per, ld + i * per);
		tg += run(gs, req, per, lg + i * per);
	}
	qsort(ld, (size_t)(per * rounds), sizeof *ld, cmp);
	qsort(lg, (size_t)(per * rounds), sizeof *lg, cmp);
	printf("%.1f %.1f %.6f %.6f\n", per * rounds / td, per * rounds / tg,
	    ld[per * rounds / 2], lg[per * rounds / 2]);
	unlink(capath);
	rmdir(dir);
	return 0;
}
