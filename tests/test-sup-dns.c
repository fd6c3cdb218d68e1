/* SPDX-License-Identifier: MIT */
/*
 * supervisor/dns.c: the DNS stub on real sockets on 127.0.0.1 (random
 * ports), against a fake upstream served by the test itself. One thread:
 * pump() polls the stub's fds and the fake upstream's together, and the
 * stub's clock moves through dns_tick(). Messages are built and read with
 * the resolver library (res_nmkquery, dn_comp, ns_initparse, ns_parserr).
 */
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <resolv.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"
#include "supervisor/dns.h"

#define MAXLOG	128

/* ---- the fake upstream -------------------------------------------------- */

enum up_mode {
	UP_ANSWER,	/* answers from the zone below */
	UP_SILENT,	/* counts, never answers */
	UP_BAD_FIRST,	/* forged answers (wrong id, wrong question), then the real one */
	UP_BAD_ONLY,	/* forged answers only */
	UP_MUTATE,	/* the answer with random bytes changed, then intact */
};

struct rr {
	const char	*owner;
	int		 type;
	const char	*data;	/* address text, or the CNAME's target */
};

struct up {
	int		 udp, listen, conn;
	struct sockaddr_in addr;
	enum up_mode	 mode;
	int		 udp_queries, tcp_queries;
	char		 last_name[NS_MAXDNAME];
	int		 last_type;
	bool		 last_rd;
	unsigned char	 in[2 + NS_MAXMSG];
	size_t		 in_len;
};

struct fx {
	struct __res_state res;
	struct dns	*dns;
	struct sockaddr_in udp_addr, tcp_addr;
	struct up	 up;
	bool		 deny_all;
	int		 decide_calls;
	char		 decided[MAXLOG][NS_MAXDNAME];
	int		 decided_type[MAXLOG];
	int		 n_resolved;
	struct {
		char		 name[NS_MAXDNAME];
		int		 family;
		unsigned char	 addr[16];
	} resolved[MAXLOG];
};

/* A reply to (qname, qtype) with these answers, built with res_nmkquery
 * (header and question) and dn_comp (the records' names). */
static size_t
build_reply(struct fx *f, unsigned char *out, size_t size, uint16_t id,
    const char *qname, int qtype, int rcode, bool tc, const struct rr *rrs,
    size_t n)
{
	unsigned char *dnptrs[64] = { out, NULL }, *p, *end = out + size;
	HEADER h;
	int len;

	len = res_nmkquery(&f->res, ns_o_query, qname, ns_c_in, qtype, NULL, 0,
	    NULL, out, (int)size);
	assert_true(len >= NS_HFIXEDSZ);
	memcpy(&h, out, sizeof h);
	h.id = htons(id);
	h.qr = 1;
	h.ra = 1;
	h.rd = 1;
	h.tc = tc;
	h.rcode = (unsigned)rcode;
	h.ancount = htons((uint16_t)n);
	memcpy(out, &h, sizeof h);
	p = out + len;
	for (size_t i = 0; i < n; i++) {
		unsigned char *rdlen;
		int c = dn_comp(rrs[i].owner, p, (int)(end - p), dnptrs,
		    dnptrs + 64);

		assert_true(c > 0);
		p += c;
		ns_put16((unsigned)rrs[i].type, p);
		ns_put16(ns_c_in, p + 2);
		ns_put32(300, p + 4);
		rdlen = p + 8;
		p += 10;
		if (rrs[i].type == ns_t_a) {
			assert_int_equal(inet_pton(AF_INET, rrs[i].data, p), 1);
			p += 4;
		} else if (rrs[i].type == ns_t_aaaa) {
			assert_int_equal(inet_pton(AF_INET6, rrs[i].data, p), 1);
			p += 16;
		} else {
			c = dn_comp(rrs[i].data, p, (int)(end - p), dnptrs,
			    dnptrs + 64);
			assert_true(c > 0);
			p += c;
		}
		ns_put16((unsigned)(p - rdlen - 2), rdlen);
	}
	return (size_t)(p - out);
}

/* The fake world's names. */
static size_t
zone_answer(struct fx *f, const char *name, int type, uint16_t id, bool tcp,
    unsigned char *out, size_t size)
{
	static const struct rr pypi_a[] = {
		{ "pypi.org", ns_t_a, "151.101.0.223" },
		{ "pypi.org", ns_t_a, "151.101.64.223" },
	};
	static const struct rr pypi_aaaa[] = {
		{ "pypi.org", ns_t_aaaa, "2a04:4e42::223" },
	};
	/* Out of order on purpose, and a record nobody asked about. */
	static const struct rr www[] = {
		{ "b.cdn.test", ns_t_a, "192.0.2.7" },
		{ "evil.test", ns_t_a, "203.0.113.66" },
		{ "a.cdn.test", ns_t_cname, "b.cdn.test" },
		{ "www.example.com", ns_t_cname, "a.cdn.test" },
	};
	static const struct rr loop[] = {
		{ "loop.test", ns_t_cname, "loop2.test" },
		{ "loop2.test", ns_t_cname, "loop.test" },
		{ "loop2.test", ns_t_a, "192.0.2.9" },
	};
	static const struct rr mirror[] = {
		{ "mirror.test", ns_t_a, "151.101.0.223" },
	};
	struct rr big[40];
	static char big_addr[40][24];

	if (strcasecmp(name, "pypi.org") == 0 && type == ns_t_a)
		return build_reply(f, out, size, id, name, type, 0, false,
		    pypi_a, 2);
	if (strcasecmp(name, "pypi.org") == 0 && type == ns_t_aaaa)
		return build_reply(f, out, size, id, name, type, 0, false,
		    pypi_aaaa, 1);
	if (strcasecmp(name, "www.example.com") == 0)
		return build_reply(f, out, size, id, name, type, 0, false,
		    www, 4);
	if (strcasecmp(name, "loop.test") == 0)
		return build_reply(f, out, size, id, name, type, 0, false,
		    loop, 3);
	if (strcasecmp(name, "mirror.test") == 0)
		return build_reply(f, out, size, id, name, type, 0, false,
		    mirror, 1);
	if (strcasecmp(name, "big.test") == 0) {
		/* Too big for 512 bytes: over UDP only the header and the
		 * question, with TC. */
		if (!tcp)
			return build_reply(f, out, size, id, name, type, 0,
			    true, NULL, 0);
		for (int i = 0; i < 40; i++) {
			snprintf(big_addr[i], sizeof big_addr[i],
			    "198.18.0.%d", i + 1);
			big[i] = (struct rr){ "big.test", ns_t_a, big_addr[i] };
		}
		return build_reply(f, out, size, id, name, type, 0, false,
		    big, 40);
	}
	if (type == ns_t_a) {
		struct rr one = { name, ns_t_a, "198.51.100.1" };

		return build_reply(f, out, size, id, name, type, 0, false,
		    &one, 1);
	}
	return build_reply(f, out, size, id, name, type, 0, false, NULL, 0);
}

static bool
parse_query(const unsigned char *msg, size_t len, char *name, int *type,
    uint16_t *id, bool *rd)
{
	ns_msg h;
	ns_rr rr;

	if (ns_initparse(msg, (int)len, &h) < 0 ||
	    ns_msg_count(h, ns_s_qd) != 1 ||
	    ns_parserr(&h, ns_s_qd, 0, &rr) < 0)
		return false;
	snprintf(name, NS_MAXDNAME, "%s", ns_rr_name(rr));
	*type = ns_rr_type(rr);
	*id = (uint16_t)ns_msg_id(h);
	*rd = ns_msg_getflag(h, ns_f_rd);
	return true;
}

static void
up_on_udp(struct fx *f)
{
	static const struct rr forged[] = { { NULL, ns_t_a, "6.6.6.6" } };
	unsigned char in[4096], out[4096];
	char name[NS_MAXDNAME];
	struct sockaddr_storage from;
	socklen_t fl;
	ssize_t n;
	size_t len;
	uint16_t id;
	bool rd;
	int type;

	for (;;) {
		fl = sizeof from;
		n = recvfrom(f->up.udp, in, sizeof in, MSG_DONTWAIT,
		    (struct sockaddr *)&from, &fl);
		if (n < 0)
			return;
		f->up.udp_queries++;
		if (!parse_query(in, (size_t)n, name, &type, &id, &rd))
			continue;
		snprintf(f->up.last_name, sizeof f->up.last_name, "%s", name);
		f->up.last_type = type;
		f->up.last_rd = rd;
		switch (f->up.mode) {
		case UP_SILENT:
			continue;
		case UP_BAD_FIRST:
		case UP_BAD_ONLY: {
			struct rr r = forged[0];

			/* Right question, wrong id. */
			r.owner = name;
			len = build_reply(f, out, sizeof out, id ^ 0x5a5a, name,
			    type, 0, false, &r, 1);
			sendto(f->up.udp, out, len, 0,
			    (struct sockaddr *)&from, fl);
			/* Right id, another name. */
			r.owner = "other.test";
			len = build_reply(f, out, sizeof out, id, "other.test",
			    type, 0, false, &r, 1);
			sendto(f->up.udp, out, len, 0,
			    (struct sockaddr *)&from, fl);
			/* Right id and name, another type. */
			r.owner = name;
			len = build_reply(f, out, sizeof out, id, name,
			    type == ns_t_mx ? ns_t_a : ns_t_mx, 0, false,
			    &r, 1);
			sendto(f->up.udp, out, len, 0,
			    (struct sockaddr *)&from, fl);
			/* Not an answer at all. */
			sendto(f->up.udp, "junk", 4, 0,
			    (struct sockaddr *)&from, fl);
			if (f->up.mode == UP_BAD_ONLY)
				continue;
			break;
		}
		case UP_MUTATE:
			len = zone_answer(f, name, type, id, false, out,
			    sizeof out);
			for (int k = 0; k < 1 + random() % 4; k++)
				out[2 + (size_t)random() % (len - 2)] =
				    (unsigned char)random();
			sendto(f->up.udp, out, len - (size_t)(random() % 2 ?
			    random() % (long)(len - 2) : 0), 0,
			    (struct sockaddr *)&from, fl);
			break;
		case UP_ANSWER:
			break;
		}
		len = zone_answer(f, name, type, id, false, out, sizeof out);
		sendto(f->up.udp, out, len, 0, (struct sockaddr *)&from, fl);
	}
}

static void
up_on_tcp(struct fx *f)
{
	unsigned char out[2 + 4096];
	char name[NS_MAXDNAME];
	ssize_t n;
	size_t len, qlen;
	uint16_t id = 0;
	bool rd = false;
	int type = 0;

	n = read(f->up.conn, f->up.in + f->up.in_len,
	    sizeof f->up.in - f->up.in_len);
	if (n <= 0) {
		closep(&f->up.conn);
		return;
	}
	f->up.in_len += (size_t)n;
	if (f->up.in_len < 2 || f->up.in_len < 2 + (qlen = ns_get16(f->up.in)))
		return;
	f->up.tcp_queries++;
	assert_true(parse_query(f->up.in + 2, qlen, name, &type, &id, &rd));
	len = zone_answer(f, name, type, id, true, out + 2, sizeof out - 2);
	ns_put16((unsigned)len, out);
	assert_int_equal(write_all(f->up.conn, out, 2 + len), 0);
	closep(&f->up.conn);
}

/* ---- the stub's hooks --------------------------------------------------- */

static enum dns_decision
t_decide(void *ctx, const char *name, int qtype)
{
	struct fx *f = ctx;

	if (f->decide_calls < MAXLOG) {
		snprintf(f->decided[f->decide_calls], NS_MAXDNAME, "%s", name);
		f->decided_type[f->decide_calls] = qtype;
	}
	f->decide_calls++;
	if (f->deny_all || strstr(name, "blocked") != NULL)
		return DNS_DENY;
	if (strncmp(name, "ask", 3) == 0)
		return DNS_ASK;
	/* A request settled at once (a rule, a headless default): the
	 * answer comes before decide returns. */
	if (strncmp(name, "early", 5) == 0) {
		dns_answer(f->dns, name, strstr(name, "yes") != NULL);
		return DNS_ASK;
	}
	return DNS_ALLOW;
}

static void
t_resolved(void *ctx, const char *name, int family, const void *addr)
{
	struct fx *f = ctx;

	if (f->n_resolved == MAXLOG)
		return;
	snprintf(f->resolved[f->n_resolved].name, NS_MAXDNAME, "%s", name);
	f->resolved[f->n_resolved].family = family;
	memcpy(f->resolved[f->n_resolved].addr, addr,
	    family == AF_INET ? 4 : 16);
	f->n_resolved++;
}

/* ---- fixture ------------------------------------------------------------ */

static int
bound(int type, struct sockaddr_in *addr)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 64), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	if (addr != NULL)
		*addr = a;
	return fd;
}

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof *f);
	struct dns_hooks hooks = { t_decide, t_resolved, f };
	cleanup_free char *cause = NULL;
	int udp, tcp;

	assert_int_equal(res_ninit(&f->res), 0);
	udp = bound(SOCK_DGRAM, &f->udp_addr);
	tcp = bound(SOCK_STREAM, &f->tcp_addr);
	assert_int_equal(dns_new(udp, tcp, &hooks, &f->dns, &cause), 0);
	/* The fake upstream: UDP and TCP on one port (the stub asks the
	 * same address over TCP when an answer is truncated). A random TCP
	 * port can be free while the same UDP port is not: try again. */
	f->up.udp = -1;
	for (int i = 0; i < 100 && f->up.udp < 0; i++) {
		f->up.listen = bound(SOCK_STREAM, &f->up.addr);
		f->up.udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (bind(f->up.udp, (struct sockaddr *)&f->up.addr,
		    sizeof f->up.addr) < 0) {
			closep(&f->up.udp);
			closep(&f->up.listen);
		}
	}
	assert_true(f->up.udp >= 0);
	f->up.conn = -1;
	/* Never the host's resolvers. */
	assert_int_equal(dns_set_upstream(f->dns, (struct sockaddr *)&f->up.addr,
	    sizeof f->up.addr), 0);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	dns_free(f->dns);
	closep(&f->up.udp);
	closep(&f->up.listen);
	closep(&f->up.conn);
	res_nclose(&f->res);
	free(f);
	return 0;
}

/* One round of the loop: the stub and the fake upstream. */
static void
pump(struct fx *f, int ms)
{
	struct pollfd p[DNS_POLLFDS_MAX + 3];
	size_t n = dns_pollfds(f->dns, p, DNS_POLLFDS_MAX), nd = n;
	size_t iu = n, il = n + 1, ic = 0;

	assert_true(n <= DNS_POLLFDS_MAX);
	p[n++] = (struct pollfd){ f->up.udp, POLLIN, 0 };
	p[n++] = (struct pollfd){ f->up.listen, POLLIN, 0 };
	if (f->up.conn >= 0) {
		ic = n;
		p[n++] = (struct pollfd){ f->up.conn, POLLIN, 0 };
	}
	if (poll(p, n, ms) < 0)
		return;
	dns_on_ready(f->dns, p, nd);
	if (p[iu].revents)
		up_on_udp(f);
	if (ic > 0 && p[ic].revents)
		up_on_tcp(f);
	if ((p[il].revents & POLLIN) && f->up.conn < 0) {
		f->up.conn = accept4(f->up.listen, NULL, NULL, SOCK_CLOEXEC |
		    SOCK_NONBLOCK);
		f->up.in_len = 0;
	}
}

static void
settle(struct fx *f, int ms)
{
	int64_t end = now_mono_ms() + ms;

	while (now_mono_ms() < end)
		pump(f, 5);
}

#define PUMP_UNTIL(f, cond) do {					\
	int64_t end_ = now_mono_ms() + 2000;				\
	while (!(cond) && now_mono_ms() < end_)				\
		pump((f), 5);						\
	assert_true(cond);						\
} while (0)

/* ---- clients ------------------------------------------------------------ */

static size_t
mkq(struct fx *f, unsigned char *buf, uint16_t id, const char *name, int type,
    int class)
{
	int n = res_nmkquery(&f->res, ns_o_query, name, class, type, NULL, 0,
	    NULL, buf, NS_PACKETSZ);

	assert_true(n >= NS_HFIXEDSZ);
	ns_put16(id, buf);
	return (size_t)n;
}

static int
udp_client(struct fx *f)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&f->udp_addr,
	    sizeof f->udp_addr), 0);
	return fd;
}

static void
udp_ask(struct fx *f, int fd, uint16_t id, const char *name, int type)
{
	unsigned char q[NS_PACKETSZ];
	size_t n = mkq(f, q, id, name, type, ns_c_in);

	assert_int_equal(send(fd, q, n, 0), (ssize_t)n);
}

/* The next datagram on fd, pumping the loop meanwhile; -1 if none in ms. */
static ssize_t
udp_wait(struct fx *f, int fd, unsigned char *buf, size_t size, int ms)
{
	int64_t end = now_mono_ms() + ms;

	for (;;) {
		ssize_t n = recv(fd, buf, size, MSG_DONTWAIT);

		if (n >= 0)
			return n;
		if (now_mono_ms() >= end)
			return -1;
		pump(f, 5);
	}
}

static int
tcp_client(struct fx *f)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	/* Completes in the kernel's backlog, before the stub accepts. */
	assert_int_equal(connect(fd, (struct sockaddr *)&f->tcp_addr,
	    sizeof f->tcp_addr), 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static void
tcp_ask(struct fx *f, int fd, uint16_t id, const char *name, int type)
{
	unsigned char b[2 + NS_PACKETSZ];
	size_t n = mkq(f, b + 2, id, name, type, ns_c_in);

	ns_put16((unsigned)n, b);
	assert_int_equal(write_all(fd, b, 2 + n), 0);
}

/* Exactly n bytes: 1, 0 at EOF, -1 on timeout. */
static int
read_exact(struct fx *f, int fd, unsigned char *buf, size_t n, int64_t end)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r == 0 || (r < 0 && errno != EAGAIN))
			return 0;
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (now_mono_ms() >= end)
			return -1;
		pump(f, 5);
	}
	return 1;
}

/* The next framed message: its length, -2 at EOF, -1 on timeout. */
static ssize_t
tcp_wait(struct fx *f, int fd, unsigned char *buf, size_t size, int ms)
{
	int64_t end = now_mono_ms() + ms;
	unsigned char l[2];
	size_t len;
	int r;

	if ((r = read_exact(f, fd, l, 2, end)) <= 0)
		return r == 0 ? -2 : -1;
	len = ns_get16(l);
	assert_true(len <= size);
	if ((r = read_exact(f, fd, buf, len, end)) <= 0)
		return r == 0 ? -2 : -1;
	return (ssize_t)len;
}

struct reply {
	uint16_t	 id;
	int		 rcode;
	bool		 qr, tc;
	int		 an;
	char		 qname[NS_MAXDNAME];
	int		 qtype;
	int		 n_a;
	char		 a[64][INET6_ADDRSTRLEN];	/* A/AAAA in the answer */
};

static void
parse_reply(const unsigned char *buf, ssize_t n, struct reply *r)
{
	ns_msg h;
	ns_rr rr;

	assert_true(n >= NS_HFIXEDSZ);
	assert_int_equal(ns_initparse(buf, (int)n, &h), 0);
	memset(r, 0, sizeof *r);
	r->id = (uint16_t)ns_msg_id(h);
	r->rcode = ns_msg_getflag(h, ns_f_rcode);
	r->qr = ns_msg_getflag(h, ns_f_qr);
	r->tc = ns_msg_getflag(h, ns_f_tc);
	r->an = ns_msg_count(h, ns_s_an);
	assert_int_equal(ns_msg_count(h, ns_s_qd), 1);
	assert_int_equal(ns_parserr(&h, ns_s_qd, 0, &rr), 0);
	snprintf(r->qname, sizeof r->qname, "%s", ns_rr_name(rr));
	r->qtype = ns_rr_type(rr);
	for (int i = 0; i < r->an && r->n_a < 64; i++) {
		assert_int_equal(ns_parserr(&h, ns_s_an, i, &rr), 0);
		if (ns_rr_type(rr) == ns_t_a)
			inet_ntop(AF_INET, ns_rr_rdata(rr), r->a[r->n_a++],
			    INET6_ADDRSTRLEN);
		else if (ns_rr_type(rr) == ns_t_aaaa)
			inet_ntop(AF_INET6, ns_rr_rdata(rr), r->a[r->n_a++],
			    INET6_ADDRSTRLEN);
	}
}

/* One UDP question and its reply. */
static void
udp_exchange(struct fx *f, uint16_t id, const char *name, int type,
    struct reply *r)
{
	unsigned char buf[NS_MAXMSG];
	int fd = udp_client(f);
	ssize_t n;

	udp_ask(f, fd, id, name, type);
	n = udp_wait(f, fd, buf, sizeof buf, 2000);
	parse_reply(buf, n, r);
	assert_int_equal(r->id, id);
	assert_true(r->qr);
	close(fd);
}

static bool
resolved_has(const struct fx *f, const char *name, const char *addr)
{
	unsigned char a[16];
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;

	assert_int_equal(inet_pton(family, addr, a), 1);
	for (int i = 0; i < f->n_resolved; i++)
		if (strcmp(f->resolved[i].name, name) == 0 &&
		    f->resolved[i].family == family &&
		    memcmp(f->resolved[i].addr, a, family == AF_INET ? 4 : 16) == 0)
			return true;
	return false;
}

static const char *
name_of(const struct fx *f, const char *addr)
{
	unsigned char a[16];
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;

	assert_int_equal(inet_pton(family, addr, a), 1);
	return dns_name_of(f->dns, family, a);
}

static bool
name_has(const struct fx *f, const char *name, const char *addr)
{
	unsigned char a[16];
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;

	assert_int_equal(inet_pton(family, addr, a), 1);
	return dns_name_has(f->dns, name, family, a);
}

/* ---- tests -------------------------------------------------------------- */

static void
test_allowed_forwarded(void **state)
{
	struct fx *f = *state;
	struct reply r;

	udp_exchange(f, 0x1234, "pypi.org", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_int_equal(r.n_a, 2);
	assert_string_equal(r.a[0], "151.101.0.223");
	assert_string_equal(r.a[1], "151.101.64.223");
	assert_int_equal(f->up.udp_queries, 1);
	assert_string_equal(f->up.last_name, "pypi.org");
	assert_int_equal(f->up.last_type, ns_t_a);
	assert_true(f->up.last_rd);
	assert_int_equal(f->decide_calls, 1);
	assert_string_equal(f->decided[0], "pypi.org");
	assert_int_equal(f->decided_type[0], ns_t_a);

	assert_int_equal(f->n_resolved, 2);
	assert_true(resolved_has(f, "pypi.org", "151.101.0.223"));
	assert_true(resolved_has(f, "pypi.org", "151.101.64.223"));
	assert_string_equal(name_of(f, "151.101.0.223"), "pypi.org");
	assert_true(name_has(f, "pypi.org", "151.101.64.223"));
	assert_false(name_has(f, "pypi.org", "151.101.128.223"));
	assert_false(name_has(f, "files.pythonhosted.org", "151.101.0.223"));
	assert_null(name_of(f, "151.101.128.223"));

	udp_exchange(f, 0xbeef, "pypi.org", ns_t_aaaa, &r);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_int_equal(r.n_a, 1);
	assert_string_equal(r.a[0], "2a04:4e42::223");
	assert_true(resolved_has(f, "pypi.org", "2a04:4e42::223"));
	assert_string_equal(name_of(f, "2a04:4e42::223"), "pypi.org");
	/* Same bytes, other family: not the same address. */
	{
		unsigned char a[16];

		inet_pton(AF_INET, "151.101.0.223", a);
		assert_null(dns_name_of(f->dns, AF_INET6, a));
		assert_null(dns_name_of(f->dns, AF_UNIX, a));
	}
	assert_int_equal(dns_next_deadline(f->dns), 0);
}

/* The key is lowercase without the dot; the answer keeps the client's
 * spelling of the question (resolvers that randomise case check it). */
static void
test_case_and_trailing_dot(void **state)
{
	struct fx *f = *state;
	struct reply r;

	udp_exchange(f, 7, "PyPI.Org.", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_string_equal(r.qname, "PyPI.Org");
	assert_string_equal(f->decided[0], "pypi.org");
	assert_string_equal(name_of(f, "151.101.0.223"), "pypi.org");
	assert_true(name_has(f, "PYPI.org", "151.101.0.223"));
}

static void
test_cname_chain(void **state)
{
	struct fx *f = *state;
	struct reply r;

	udp_exchange(f, 42, "www.example.com", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_int_equal(r.an, 4);		/* relayed as is */
	assert_int_equal(f->n_resolved, 1);
	assert_true(resolved_has(f, "www.example.com", "192.0.2.7"));
	assert_string_equal(name_of(f, "192.0.2.7"), "www.example.com");
	assert_null(name_of(f, "203.0.113.66"));	/* not in the chain */
	assert_false(name_has(f, "b.cdn.test", "192.0.2.7"));

	/* A loop of CNAMEs ends. */
	udp_exchange(f, 43, "loop.test", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_int_equal(f->n_resolved, 2);
	assert_true(resolved_has(f, "loop.test", "192.0.2.9"));
}

static void
test_name_of_most_recent(void **state)
{
	struct fx *f = *state;
	struct reply r;

	udp_exchange(f, 1, "pypi.org", ns_t_a, &r);
	assert_string_equal(name_of(f, "151.101.0.223"), "pypi.org");
	udp_exchange(f, 2, "mirror.test", ns_t_a, &r);
	assert_string_equal(name_of(f, "151.101.0.223"), "mirror.test");
	assert_true(name_has(f, "pypi.org", "151.101.0.223"));
	assert_true(name_has(f, "mirror.test", "151.101.0.223"));
	assert_false(name_has(f, "mirror.test", "151.101.64.223"));
	udp_exchange(f, 3, "pypi.org", ns_t_a, &r);
	assert_string_equal(name_of(f, "151.101.0.223"), "pypi.org");
}

/* The oldest pairs give way past DNS_MAX_SEEN. */
static void
test_seen_capped(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	int fd = udp_client(f);
	char name[32];
	int got = 0, total = DNS_MAX_SEEN + 10;

	for (int i = 0; i < total; i++) {
		snprintf(name, sizeof name, "n%d.test", i);
		udp_ask(f, fd, (uint16_t)i, name, ns_t_a);
		if (i % 32 == 31 || i == total - 1)
			while (got <= i && udp_wait(f, fd, buf, sizeof buf,
			    2000) > 0)
				got++;
	}
	assert_int_equal(got, total);
	assert_int_equal(f->n_resolved, MAXLOG);	/* the log's cap */
	snprintf(name, sizeof name, "n%d.test", total - 1);
	assert_string_equal(name_of(f, "198.51.100.1"), name);
	assert_true(name_has(f, name, "198.51.100.1"));
	assert_true(name_has(f, "n10.test", "198.51.100.1"));
	assert_false(name_has(f, "n9.test", "198.51.100.1"));
	assert_false(name_has(f, "n0.test", "198.51.100.1"));
	close(fd);
}

static void
test_denied_nxdomain(void **state)
{
	struct fx *f = *state;
	struct reply r;

	udp_exchange(f, 0x4242, "exfil.Blocked.test", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_nxdomain);
	assert_string_equal(r.qname, "exfil.Blocked.test");
	assert_int_equal(r.qtype, ns_t_a);
	assert_int_equal(r.an, 0);
	assert_int_equal(f->decide_calls, 1);
	assert_string_equal(f->decided[0], "exfil.blocked.test");
	settle(f, 50);
	assert_int_equal(f->up.udp_queries, 0);
	assert_int_equal(f->n_resolved, 0);
}

/* What the stub does not serve is REFUSED without asking the policy. */
static void
test_unserved_refused(void **state)
{
	struct fx *f = *state;
	static const struct { const char *name; int type, class; } cases[] = {
		{ "1.0.0.127.in-addr.arpa", ns_t_ptr, ns_c_in },
		{ "pypi.org", ns_t_any, ns_c_in },
		{ "pypi.org", ns_t_ns, ns_c_in },
		{ "pypi.org", ns_t_a, ns_c_chaos },
		{ "version.bind", ns_t_txt, ns_c_chaos },
		{ "pypi\\.org.evil.test", ns_t_a, ns_c_in },	/* a dot in a label */
		{ "a\\000b.test", ns_t_a, ns_c_in },
		{ "sp ace.test", ns_t_a, ns_c_in },
		{ ".", ns_t_a, ns_c_in },
	};
	unsigned char q[NS_PACKETSZ], buf[NS_MAXMSG];
	struct reply r;
	int fd = udp_client(f);
	size_t n;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		n = mkq(f, q, (uint16_t)(100 + i), cases[i].name, cases[i].type,
		    cases[i].class);
		assert_int_equal(send(fd, q, n, 0), (ssize_t)n);
		parse_reply(buf, udp_wait(f, fd, buf, sizeof buf, 2000), &r);
		assert_int_equal(r.id, 100 + i);
		assert_int_equal(r.rcode, ns_r_refused);
		assert_int_equal(r.qtype, cases[i].type);
	}
	/* An opcode other than QUERY. */
	{
		HEADER h;

		n = mkq(f, q, 200, "pypi.org", ns_t_a, ns_c_in);
		memcpy(&h, q, sizeof h);
		h.opcode = ns_o_status;
		memcpy(q, &h, sizeof h);
		assert_int_equal(send(fd, q, n, 0), (ssize_t)n);
		parse_reply(buf, udp_wait(f, fd, buf, sizeof buf, 2000), &r);
		assert_int_equal(r.id, 200);
		assert_int_equal(r.rcode, ns_r_refused);
	}
	/* A response sent to the stub is no question: dropped. */
	{
		HEADER h;

		n = mkq(f, q, 201, "pypi.org", ns_t_a, ns_c_in);
		memcpy(&h, q, sizeof h);
		h.qr = 1;
		memcpy(q, &h, sizeof h);
		assert_int_equal(send(fd, q, n, 0), (ssize_t)n);
		assert_int_equal(udp_wait(f, fd, buf, sizeof buf, 100), -1);
	}
	close(fd);
	assert_int_equal(f->decide_calls, 0);
	assert_int_equal(f->up.udp_queries, 0);
}

static void
test_ask_park_allow(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	int c1 = udp_client(f), c2 = udp_client(f);
	struct reply r;

	udp_ask(f, c1, 11, "ask.example", ns_t_a);
	assert_int_equal(udp_wait(f, c1, buf, sizeof buf, 100), -1);
	assert_int_equal(f->decide_calls, 1);
	assert_string_equal(f->decided[0], "ask.example");
	/* glibc's retry (same socket, same id), then another program's
	 * query for the same name: neither asks again nor goes out. */
	udp_ask(f, c1, 11, "ask.example", ns_t_a);
	udp_ask(f, c2, 12, "ASK.example", ns_t_aaaa);
	assert_int_equal(udp_wait(f, c2, buf, sizeof buf, 100), -1);
	assert_int_equal(f->decide_calls, 1);
	assert_int_equal(f->up.udp_queries, 0);
	assert_int_equal(dns_next_deadline(f->dns), 0);	/* parked: no clock */

	dns_answer(f->dns, "ask.example", true);
	parse_reply(buf, udp_wait(f, c1, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 11);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_int_equal(r.n_a, 1);
	assert_string_equal(r.a[0], "198.51.100.1");
	parse_reply(buf, udp_wait(f, c2, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 12);
	assert_int_equal(r.qtype, ns_t_aaaa);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_int_equal(f->up.udp_queries, 2);
	/* The retry was not answered twice. */
	assert_int_equal(udp_wait(f, c1, buf, sizeof buf, 100), -1);
	assert_true(resolved_has(f, "ask.example", "198.51.100.1"));

	/* Decided: the next query asks the policy again. */
	dns_answer(f->dns, "ask.example", true);	/* no-op */
	udp_ask(f, c1, 13, "ask.example", ns_t_a);
	assert_int_equal(udp_wait(f, c1, buf, sizeof buf, 100), -1);
	assert_int_equal(f->decide_calls, 2);
	close(c1);
	close(c2);
}

/* Issue 31: a lookup parked for a person has an asker while its client
 * sends it, or sends it again, within the resolver's timeout (the one
 * resolv.conf gives); after that, and once nothing is parked, none. */
static void
test_ask_asker_gone(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	int c1 = udp_client(f);
	int64_t t0;

	t0 = now_mono_ms();
	udp_ask(f, c1, 31, "ask.gone", ns_t_a);
	assert_int_equal(udp_wait(f, c1, buf, sizeof buf, 100), -1);
	assert_int_equal(f->decide_calls, 1);
	assert_false(dns_asker_gone(f->dns, "ask.gone", now_mono_ms()));
	assert_false(dns_asker_gone(f->dns, "ask.gone",
	    t0 + DNS_CLIENT_GONE_MS));
	assert_true(dns_asker_gone(f->dns, "ask.gone",
	    now_mono_ms() + DNS_CLIENT_GONE_MS + 1));
	/* A name nobody asked has nobody waiting. */
	assert_true(dns_asker_gone(f->dns, "other.gone", now_mono_ms()));

	/* The resolver's retry (same socket, same id): it still waits,
	 * from then on. */
	assert_int_equal(udp_wait(f, c1, buf, sizeof buf, 150), -1);
	t0 = now_mono_ms();
	udp_ask(f, c1, 31, "ask.gone", ns_t_a);
	assert_int_equal(udp_wait(f, c1, buf, sizeof buf, 100), -1);
	assert_int_equal(f->decide_calls, 1);
	assert_false(dns_asker_gone(f->dns, "ask.gone",
	    t0 + DNS_CLIENT_GONE_MS));
	assert_true(dns_asker_gone(f->dns, "ask.gone",
	    now_mono_ms() + DNS_CLIENT_GONE_MS + 1));

	/* Answered: nothing parked, nobody waits. */
	dns_answer(f->dns, "ask.gone", false);
	assert_true(udp_wait(f, c1, buf, sizeof buf, 2000) > 0);
	assert_true(dns_asker_gone(f->dns, "ask.gone", now_mono_ms()));
	close(c1);
}

static void
test_ask_park_deny(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	int c1 = udp_client(f), c2 = tcp_client(f);
	struct reply r;

	dns_answer(f->dns, "nothing.waits", false);	/* no-op */
	udp_ask(f, c1, 21, "ask.example", ns_t_a);
	tcp_ask(f, c2, 22, "ask.example", ns_t_a);
	assert_int_equal(tcp_wait(f, c2, buf, sizeof buf, 100), -1);
	assert_int_equal(f->decide_calls, 1);
	dns_answer(f->dns, "Ask.Example.", false);
	parse_reply(buf, udp_wait(f, c1, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 21);
	assert_int_equal(r.rcode, ns_r_nxdomain);
	parse_reply(buf, tcp_wait(f, c2, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 22);
	assert_int_equal(r.rcode, ns_r_nxdomain);
	settle(f, 50);
	assert_int_equal(f->up.udp_queries, 0);
	close(c1);
	close(c2);
}

/* At most DNS_MAX_PER_NAME wait on a name (the oldest gives way, with
 * SERVFAIL) and DNS_MAX_QUERIES in all (the newest gets SERVFAIL). */
static void
test_answered_inside_decide(void **state)
{
	struct fx *f = *state;
	struct reply r;

	udp_exchange(f, 31, "early-yes.test", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_string_equal(r.a[0], "198.51.100.1");
	udp_exchange(f, 32, "early-no.test", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_nxdomain);
	assert_int_equal(f->up.udp_queries, 1);
	/* Nothing stays parked: the next lookup is decided afresh. */
	udp_exchange(f, 33, "early-yes.test", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_int_equal(f->decide_calls, 3);
}

static void
test_caps(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	int c[DNS_MAX_QUERIES + 1];
	struct reply r;
	char name[32];

	for (int i = 0; i <= DNS_MAX_PER_NAME; i++) {
		c[i] = udp_client(f);
		udp_ask(f, c[i], (uint16_t)i, "ask-cap.test", ns_t_a);
		settle(f, 5);
	}
	parse_reply(buf, udp_wait(f, c[0], buf, sizeof buf, 2000), &r);
	assert_int_equal(r.rcode, ns_r_servfail);
	for (int i = 1; i <= DNS_MAX_PER_NAME; i++)
		assert_int_equal(udp_wait(f, c[i], buf, sizeof buf, 0), -1);
	dns_answer(f->dns, "ask-cap.test", true);
	for (int i = 1; i <= DNS_MAX_PER_NAME; i++) {
		parse_reply(buf, udp_wait(f, c[i], buf, sizeof buf, 2000), &r);
		assert_int_equal(r.id, i);
		assert_int_equal(r.rcode, ns_r_noerror);
	}
	assert_int_equal(f->up.udp_queries, DNS_MAX_PER_NAME);
	for (int i = 0; i <= DNS_MAX_PER_NAME; i++)
		close(c[i]);

	for (int i = 0; i <= DNS_MAX_QUERIES; i++) {
		c[i] = udp_client(f);
		snprintf(name, sizeof name, "ask%d.test", i / DNS_MAX_PER_NAME);
		udp_ask(f, c[i], (uint16_t)i, name, ns_t_a);
		settle(f, 2);
	}
	parse_reply(buf, udp_wait(f, c[DNS_MAX_QUERIES], buf, sizeof buf,
	    2000), &r);
	assert_int_equal(r.rcode, ns_r_servfail);
	for (int i = 0; i < DNS_MAX_QUERIES / DNS_MAX_PER_NAME; i++) {
		snprintf(name, sizeof name, "ask%d.test", i);
		dns_answer(f->dns, name, false);
	}
	for (int i = 0; i < DNS_MAX_QUERIES; i++) {
		parse_reply(buf, udp_wait(f, c[i], buf, sizeof buf, 2000), &r);
		assert_int_equal(r.id, i);
		assert_int_equal(r.rcode, ns_r_nxdomain);
	}
	for (int i = 0; i <= DNS_MAX_QUERIES; i++)
		close(c[i]);
}

/* Silent upstream: one retry at the first deadline, SERVFAIL at the
 * second; the clock is the test's. */
static void
test_timeout_retry_servfail(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	int fd = udp_client(f);
	int64_t d1, d2;
	struct reply r;

	f->up.mode = UP_SILENT;
	udp_ask(f, fd, 0x7777, "pypi.org", ns_t_a);
	PUMP_UNTIL(f, f->up.udp_queries == 1);
	d1 = dns_next_deadline(f->dns);
	assert_true(d1 > 0);
	dns_tick(f->dns, d1 - 1);
	settle(f, 30);
	assert_int_equal(f->up.udp_queries, 1);
	dns_tick(f->dns, d1);
	PUMP_UNTIL(f, f->up.udp_queries == 2);
	d2 = dns_next_deadline(f->dns);
	assert_int_equal(d2, d1 + DNS_TRY_MS);
	assert_int_equal(udp_wait(f, fd, buf, sizeof buf, 30), -1);
	dns_tick(f->dns, d2);
	parse_reply(buf, udp_wait(f, fd, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 0x7777);
	assert_int_equal(r.rcode, ns_r_servfail);
	assert_string_equal(r.qname, "pypi.org");
	assert_int_equal(dns_next_deadline(f->dns), 0);
	assert_int_equal(f->up.udp_queries, 2);
	assert_int_equal(f->n_resolved, 0);
	close(fd);
}

/* Nobody on the upstream port: the ICMP error ends each try at once. */
static void
test_upstream_refused(void **state)
{
	struct fx *f = *state;
	struct sockaddr_in gone;
	struct reply r;
	int fd = bound(SOCK_DGRAM, &gone);

	close(fd);
	assert_int_equal(dns_set_upstream(f->dns, (struct sockaddr *)&gone,
	    sizeof gone), 0);
	udp_exchange(f, 5, "pypi.org", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_servfail);
	assert_int_equal(dns_next_deadline(f->dns), 0);
}

static void
test_forged_replies_ignored(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	struct reply r;
	int fd;

	f->up.mode = UP_BAD_FIRST;
	udp_exchange(f, 0x99, "pypi.org", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_int_equal(r.n_a, 2);
	assert_string_equal(r.a[0], "151.101.0.223");
	assert_null(name_of(f, "6.6.6.6"));
	assert_int_equal(f->n_resolved, 2);

	f->up.mode = UP_BAD_ONLY;
	fd = udp_client(f);
	udp_ask(f, fd, 0x9a, "pypi.org", ns_t_a);
	PUMP_UNTIL(f, f->up.udp_queries == 2);
	settle(f, 30);
	assert_int_equal(udp_wait(f, fd, buf, sizeof buf, 0), -1);
	dns_tick(f->dns, dns_next_deadline(f->dns));
	PUMP_UNTIL(f, f->up.udp_queries == 3);
	settle(f, 30);
	dns_tick(f->dns, dns_next_deadline(f->dns));
	parse_reply(buf, udp_wait(f, fd, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 0x9a);
	assert_int_equal(r.rcode, ns_r_servfail);
	assert_null(name_of(f, "6.6.6.6"));
	assert_int_equal(f->n_resolved, 2);
	close(fd);
}

static void
test_tcp_round_trip(void **state)
{
	struct fx *f = *state;
	unsigned char b[2 * (2 + NS_PACKETSZ)], buf[NS_MAXMSG];
	int fd = tcp_client(f);
	size_t n1, n2;
	struct reply r;

	tcp_ask(f, fd, 0x1111, "pypi.org", ns_t_a);
	parse_reply(buf, tcp_wait(f, fd, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 0x1111);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_int_equal(r.n_a, 2);
	assert_string_equal(name_of(f, "151.101.64.223"), "pypi.org");

	/* Two queries in one write; the denied one is answered first. */
	n1 = mkq(f, b + 2, 0x2222, "pypi.org", ns_t_aaaa, ns_c_in);
	ns_put16((unsigned)n1, b);
	n2 = mkq(f, b + 4 + n1, 0x3333, "x.blocked.test", ns_t_a, ns_c_in);
	ns_put16((unsigned)n2, b + 2 + n1);
	assert_int_equal(write_all(fd, b, 4 + n1 + n2), 0);
	parse_reply(buf, tcp_wait(f, fd, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 0x3333);
	assert_int_equal(r.rcode, ns_r_nxdomain);
	parse_reply(buf, tcp_wait(f, fd, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 0x2222);
	assert_int_equal(r.rcode, ns_r_noerror);
	assert_string_equal(r.a[0], "2a04:4e42::223");
	close(fd);
	/* The stub sees the close and lets the slot go. */
	settle(f, 30);
	assert_int_equal(dns_next_deadline(f->dns), 0);
}

/* A TCP client gets a truncated answer whole: the stub asks again over
 * TCP. A UDP client gets it truncated, and retries over TCP itself. */
static void
test_tcp_truncated(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	struct reply r;
	int fd;

	udp_exchange(f, 0x51, "big.test", ns_t_a, &r);
	assert_true(r.tc);
	assert_int_equal(r.an, 0);
	assert_int_equal(f->up.tcp_queries, 0);

	fd = tcp_client(f);
	tcp_ask(f, fd, 0x52, "big.test", ns_t_a);
	parse_reply(buf, tcp_wait(f, fd, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 0x52);
	assert_false(r.tc);
	assert_int_equal(r.n_a, 40);
	assert_int_equal(f->up.udp_queries, 2);
	assert_int_equal(f->up.tcp_queries, 1);
	assert_string_equal(name_of(f, "198.18.0.40"), "big.test");
	close(fd);
}

/* Idle and slow clients are dropped at their deadline; one waiting for
 * an answer is not. */
static void
test_tcp_idle_dropped(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	int idle = tcp_client(f), slow = tcp_client(f), waiting;
	int64_t d;

	assert_int_equal(write(slow, "\0", 1), 1);	/* half a length */
	settle(f, 30);
	d = dns_next_deadline(f->dns);
	assert_true(d > 0);
	waiting = tcp_client(f);
	tcp_ask(f, waiting, 1, "ask.example", ns_t_a);
	settle(f, 30);
	dns_tick(f->dns, d + DNS_TCP_IDLE_MS);
	assert_int_equal(tcp_wait(f, idle, buf, sizeof buf, 1000), -2);
	assert_int_equal(tcp_wait(f, slow, buf, sizeof buf, 1000), -2);
	/* Only the parked one is left, and it has no clock. */
	assert_int_equal(dns_next_deadline(f->dns), 0);
	dns_answer(f->dns, "ask.example", false);
	assert_int_equal(tcp_wait(f, waiting, buf, sizeof buf, 1000) > 0, 1);
	close(idle);
	close(slow);
	close(waiting);
}

/* DNS_MAX_TCP clients at once; the next waits in the backlog until a
 * slot frees. */
static void
test_tcp_cap(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	int c[DNS_MAX_TCP + 1];
	struct reply r;

	for (int i = 0; i < DNS_MAX_TCP; i++) {
		c[i] = tcp_client(f);
		settle(f, 2);
	}
	c[DNS_MAX_TCP] = tcp_client(f);
	tcp_ask(f, c[DNS_MAX_TCP], 0x77, "pypi.org", ns_t_a);
	assert_int_equal(tcp_wait(f, c[DNS_MAX_TCP], buf, sizeof buf, 150), -1);
	close(c[0]);
	parse_reply(buf, tcp_wait(f, c[DNS_MAX_TCP], buf, sizeof buf, 2000),
	    &r);
	assert_int_equal(r.id, 0x77);
	for (int i = 1; i <= DNS_MAX_TCP; i++)
		close(c[i]);
}

static void
test_tcp_malformed_closed(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	static const unsigned char tiny[] = { 0, 5, 1, 2, 3, 4, 5 };
	unsigned char junk[2 + 30];
	int fd;

	fd = tcp_client(f);
	assert_int_equal(write_all(fd, tiny, sizeof tiny), 0);
	assert_int_equal(tcp_wait(f, fd, buf, sizeof buf, 1000), -2);
	close(fd);

	fd = tcp_client(f);
	memset(junk, 0xff, sizeof junk);
	ns_put16(30, junk);
	assert_int_equal(write_all(fd, junk, sizeof junk), 0);
	assert_int_equal(tcp_wait(f, fd, buf, sizeof buf, 1000), -2);
	close(fd);
	assert_int_equal(f->decide_calls, 0);
}

/* A client that leaves takes its queries with it. */
static void
test_tcp_client_gone(void **state)
{
	struct fx *f = *state;
	int fd = tcp_client(f);

	f->up.mode = UP_SILENT;
	tcp_ask(f, fd, 1, "pypi.org", ns_t_a);
	PUMP_UNTIL(f, f->up.udp_queries == 1);
	assert_true(dns_next_deadline(f->dns) > 0);
	close(fd);
	settle(f, 30);
	assert_int_equal(dns_next_deadline(f->dns), 0);
}

/* Answers written to a client that already closed: EPIPE, not SIGPIPE. */
static void
test_tcp_client_closed_early(void **state)
{
	struct fx *f = *state;
	unsigned char b[4 * (2 + NS_PACKETSZ)];
	size_t n = 0;
	int fd = tcp_client(f);

	for (int i = 0; i < 4; i++) {
		size_t len = mkq(f, b + n + 2, (uint16_t)i, "x.blocked.test",
		    ns_t_a, ns_c_in);

		ns_put16((unsigned)len, b + n);
		n += 2 + len;
	}
	assert_int_equal(write_all(fd, b, n), 0);
	close(fd);
	settle(f, 50);
	/* It stops reading a client once writing to it failed. */
	assert_in_range(f->decide_calls, 1, 4);
	assert_int_equal(dns_next_deadline(f->dns), 0);
}

static void
test_fuzz_udp(void **state)
{
	struct fx *f = *state;
	unsigned char q[NS_PACKETSZ], m[NS_PACKETSZ], buf[NS_MAXMSG];
	int fd = udp_client(f);
	size_t n = mkq(f, q, 0x1010, "pypi.org", ns_t_a, ns_c_in);
	struct reply r;

	srandom(4);
	f->deny_all = true;
	for (int round = 0; round < 100; round++) {
		for (int i = 0; i < 20; i++) {
			size_t len = (size_t)random() % 600;

			for (size_t j = 0; j < len; j++)
				m[j % sizeof m] = (unsigned char)random();
			len = len > sizeof m ? sizeof m : len;
			send(fd, m, len, 0);
		}
		/* Valid queries with a few bytes changed. */
		for (int i = 0; i < 20; i++) {
			size_t len = n - (size_t)(random() % 3 == 0 ?
			    random() % (long)n : 0);

			memcpy(m, q, n);
			for (int k = 0; k < 1 + random() % 3; k++)
				m[(size_t)random() % n] = (unsigned char)random();
			send(fd, m, len, 0);
		}
		settle(f, 2);
		while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
			;
	}
	settle(f, 20);
	while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
		;
	assert_int_equal(f->up.udp_queries, 0);
	f->deny_all = false;
	udp_exchange(f, 0x2020, "pypi.org", ns_t_a, &r);
	assert_int_equal(r.rcode, ns_r_noerror);
	close(fd);
}

static void
test_fuzz_tcp(void **state)
{
	struct fx *f = *state;
	unsigned char m[4096], buf[NS_MAXMSG];
	struct reply r;
	ssize_t w;
	int fd;

	srandom(5);
	f->deny_all = true;
	for (int round = 0; round < 40; round++) {
		size_t len = 1 + (size_t)random() % sizeof m;

		fd = tcp_client(f);
		for (size_t j = 0; j < len; j++)
			m[j] = (unsigned char)random();
		if (round % 2 == 0)	/* a plausible length first */
			ns_put16((unsigned)(12 + random() % 100), m);
		w = write(fd, m, len);
		(void)w;
		settle(f, 5);
		while (read(fd, buf, sizeof buf) > 0)
			;
		close(fd);
	}
	settle(f, 20);
	f->deny_all = false;
	fd = tcp_client(f);
	tcp_ask(f, fd, 0x3030, "pypi.org", ns_t_a);
	parse_reply(buf, tcp_wait(f, fd, buf, sizeof buf, 2000), &r);
	assert_int_equal(r.id, 0x3030);
	assert_int_equal(r.rcode, ns_r_noerror);
	close(fd);
}

/* Damaged answers from upstream with the right id: parsed or ignored,
 * never trusted past what ns_parserr accepts. */
static void
test_fuzz_upstream(void **state)
{
	struct fx *f = *state;
	unsigned char buf[NS_MAXMSG];
	static const char *names[] = { "www.example.com", "pypi.org",
	    "loop.test" };
	int fd = udp_client(f);

	srandom(6);
	f->up.mode = UP_MUTATE;
	for (int i = 0; i < 600; i++) {
		udp_ask(f, fd, (uint16_t)i, names[i % 3],
		    i % 5 == 0 ? ns_t_aaaa : ns_t_a);
		assert_true(udp_wait(f, fd, buf, sizeof buf, 2000) >= 0);
	}
	/* Whatever was believed, it came under a name that was asked. */
	for (int i = 0; i < f->n_resolved; i++)
		assert_true(strcmp(f->resolved[i].name, "www.example.com") == 0 ||
		    strcmp(f->resolved[i].name, "pypi.org") == 0 ||
		    strcmp(f->resolved[i].name, "loop.test") == 0);
	close(fd);
}

static void
test_set_upstream(void **state)
{
	struct fx *f = *state;
	struct sockaddr sa = { .sa_family = AF_UNIX };
	struct sockaddr_in6 six = { .sin6_family = AF_INET6 };

	assert_int_equal(dns_set_upstream(f->dns, &sa, sizeof sa), -EINVAL);
	assert_int_equal(dns_set_upstream(f->dns, (struct sockaddr *)&six, 8),
	    -EINVAL);
	assert_int_equal(dns_set_upstream(f->dns, (struct sockaddr *)&six,
	    sizeof six), 0);
	dns_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_allowed_forwarded),
		T(test_case_and_trailing_dot),
		T(test_cname_chain),
		T(test_name_of_most_recent),
		T(test_seen_capped),
		T(test_denied_nxdomain),
		T(test_unserved_refused),
		T(test_ask_park_allow),
		T(test_ask_park_deny),
		T(test_ask_asker_gone),
		T(test_answered_inside_decide),
		T(test_caps),
		T(test_timeout_retry_servfail),
		T(test_upstream_refused),
		T(test_forged_replies_ignored),
		T(test_tcp_round_trip),
		T(test_tcp_truncated),
		T(test_tcp_idle_dropped),
		T(test_tcp_cap),
		T(test_tcp_malformed_closed),
		T(test_tcp_client_gone),
		T(test_tcp_client_closed_early),
		T(test_fuzz_udp),
		T(test_fuzz_tcp),
		T(test_fuzz_upstream),
		T(test_set_upstream),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
