/* SPDX-License-Identifier: MIT */
#include "supervisor/dns.h"

#include <arpa/nameser.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <sys/random.h>
#include <unistd.h>

#include "config/util.h"

/*
 * Messages are read with glibc's resolver library (ns_initparse,
 * ns_parserr, ns_name_uncompress) and built with res_nmkquery; only the
 * 12-byte header is touched directly, through glibc's HEADER. Each upstream
 * try gets its own connected UDP socket (a fresh random source port, and
 * the kernel drops datagrams from anyone but that server) and a fresh
 * random id; a reply counts only if its id and question both match.
 */

#define T_SVCB		64	/* not in glibc 2.36's ns_type */
#define T_HTTPS		65
#define TRIES		2
#define MAX_CHAIN	8	/* CNAME hops followed */
#define MAX_UDP_READS	64	/* datagrams taken per wakeup */
#define MAX_PER_CLIENT	8	/* queries in flight per TCP client */
#define TCP_OUT_MAX	(128u << 10)

enum q_state { Q_PARKED, Q_UDP, Q_TCP };

struct dns_query {
	TAILQ_ENTRY(dns_query) entry;
	uint64_t	 serial;

	/* Who asked: a TCP client (its serial), or a UDP address. */
	uint64_t	 conn;
	struct sockaddr_storage from;
	socklen_t	 fromlen;
	uint16_t	 cid;		/* the client's id */
	int		 opcode;
	bool		 rd;
	int		 type, class;
	char		 name[NS_MAXDNAME];	/* as asked: upstream, answers */
	char		 key[NS_MAXDNAME];	/* lowercase: decide, records */

	enum q_state	 state;
	int		 fd;		/* upstream socket, or -1 */
	uint16_t	 id;		/* upstream id of this try */
	int		 tries;
	int		 server;	/* index into up[] of this try */
	int64_t		 deadline;
	/* Mono ms: it came, or its client sent it again. */
	int64_t		 heard;
	/* The upstream query, after a 2-byte length for TCP. */
	unsigned char	 msg[2 + NS_PACKETSZ];
	size_t		 msglen;
	size_t		 sent;		/* TCP: bytes of msg written */
	unsigned char	*resp;		/* TCP: length + answer */
	size_t		 resp_len;
};

struct dns_client {
	int		 fd;		/* -1: free */
	bool		 dead;		/* closed at the next reap */
	uint64_t	 serial;
	unsigned char	*in;		/* 2 + NS_MAXMSG */
	size_t		 in_len;
	unsigned char	*out;
	size_t		 out_len, out_off;
	int64_t		 deadline;
};

struct dns_seen {
	char		*name;
	int		 family;
	unsigned char	 addr[16];
	uint64_t	 seq;
};

enum slot_kind { SLOT_UDP, SLOT_LISTEN, SLOT_CLIENT, SLOT_QUERY };

struct dns_slot {
	enum slot_kind	 kind;
	int		 fd;
	uint64_t	 serial;
};

struct dns {
	struct __res_state res;
	int		 udp_fd, tcp_fd;
	struct dns_hooks hooks;
	struct sockaddr_storage up[MAXNS];
	socklen_t	 up_len[MAXNS];
	int		 n_up;

	struct dns_client clients[DNS_MAX_TCP];
	TAILQ_HEAD(, dns_query) queries;
	size_t		 n_queries;
	char		*asking[DNS_MAX_ASKING];
	size_t		 n_asking;
	struct dns_seen	*seen;		/* LRU by seq, linear: a few thousand */
	size_t		 n_seen, cap_seen;
	uint64_t	 seen_seq;

	/* What the last dns_pollfds() handed out, slot by slot: objects
	 * are found again by serial, so that one closed meanwhile (and its
	 * fd number reused) is never confused with another. */
	struct dns_slot	 slots[DNS_POLLFDS_MAX];
	size_t		 n_slots;
	uint64_t	 serial;

	/* decide() may answer its own name before returning ASK (a rule
	 * or a headless default settles the request at once). */
	const char	*deciding;
	const struct dns_query *deciding_q;	/* its query: who asked */
	int		 early;		/* -1, or the bool it answered */
	int		 in_hook;	/* no reaping while a hook runs */

	unsigned char	 rnd[64];
	size_t		 rnd_left;
	unsigned char	 buf[NS_MAXMSG + 1] __attribute__((aligned(8)));
};

static void	dns_try(struct dns *, struct dns_query *, int64_t);

static uint16_t
dns_random16(struct dns *d)
{
	if (d->rnd_left < 2) {
		if (getrandom(d->rnd, sizeof d->rnd, 0) != sizeof d->rnd)
			fatal("getrandom: %s", strerror(errno));
		d->rnd_left = sizeof d->rnd;
	}
	d->rnd_left -= 2;
	return (uint16_t)ns_get16(d->rnd + d->rnd_left);
}

static int
dns_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	return 0;
}

static void
dns_add_upstream(struct dns *d, const void *sa, socklen_t len)
{
	if (d->n_up >= MAXNS || len > sizeof d->up[0])
		return;
	memcpy(&d->up[d->n_up], sa, len);
	d->up_len[d->n_up++] = len;
}

int
dns_new(int udp_fd, int tcp_fd, const struct dns_hooks *hooks,
    struct dns **ret, char **cause)
{
	cleanup_fd int u = udp_fd;
	cleanup_fd int t = tcp_fd;
	struct dns *d;
	int r;

	if ((u >= 0 && (r = dns_nonblock(u)) < 0) ||
	    (t >= 0 && (r = dns_nonblock(t)) < 0)) {
		*cause = xasprintf("dns stub: %s", strerror(-r));
		return r;
	}
	d = xcalloc(1, sizeof *d);
	if (res_ninit(&d->res) < 0) {
		free(d);
		*cause = xstrdup("dns stub: cannot read the host's resolver "
		    "configuration");
		return -ENOMEM;
	}
	/* glibc keeps IPv6 servers aside, in _ext.nsaddrs, and marks
	 * their nsaddr_list entries with family 0. */
	for (int i = 0; i < d->res.nscount && i < MAXNS; i++) {
		const struct sockaddr_in6 *s6 = d->res._u._ext.nsaddrs[i];

		if (s6 != NULL && s6->sin6_family == AF_INET6)
			dns_add_upstream(d, s6, sizeof *s6);
		else if (d->res.nsaddr_list[i].sin_family == AF_INET)
			dns_add_upstream(d, &d->res.nsaddr_list[i],
			    sizeof d->res.nsaddr_list[i]);
	}
	d->hooks = *hooks;
	d->udp_fd = steal_fd(&u);
	d->tcp_fd = steal_fd(&t);
	for (size_t i = 0; i < DNS_MAX_TCP; i++)
		d->clients[i].fd = -1;
	TAILQ_INIT(&d->queries);
	*ret = d;
	return 0;
}

static void
dns_query_free(struct dns *d, struct dns_query *q)
{
	TAILQ_REMOVE(&d->queries, q, entry);
	d->n_queries--;
	closep(&q->fd);
	free(q->resp);
	free(q);
}

static void
dns_client_done(struct dns_client *c)
{
	closep(&c->fd);
	free(c->in);
	free(c->out);
	*c = (struct dns_client){ .fd = -1 };
}

void
dns_free(struct dns *d)
{
	if (d == NULL)
		return;
	while (!TAILQ_EMPTY(&d->queries))
		dns_query_free(d, TAILQ_FIRST(&d->queries));
	for (size_t i = 0; i < DNS_MAX_TCP; i++)
		dns_client_done(&d->clients[i]);
	for (size_t i = 0; i < d->n_asking; i++)
		free(d->asking[i]);
	for (size_t i = 0; i < d->n_seen; i++)
		free(d->seen[i].name);
	free(d->seen);
	closep(&d->udp_fd);
	closep(&d->tcp_fd);
	res_nclose(&d->res);
	free(d);
}

int
dns_asker(const struct dns *d, struct sockaddr_storage *ss, bool *tcp)
{
	const struct dns_query *q = d->deciding_q;

	if (q == NULL)
		return -ENOENT;
	*tcp = q->conn != 0;
	if (q->conn == 0) {
		if (q->fromlen == 0)
			return -ENOENT;
		memcpy(ss, &q->from, sizeof *ss);
		return 0;
	}
	for (size_t i = 0; i < DNS_MAX_TCP; i++)
		if (d->clients[i].fd >= 0 && d->clients[i].serial == q->conn) {
			socklen_t len = sizeof *ss;

			return getpeername(d->clients[i].fd,
			    (struct sockaddr *)ss, &len) < 0 ? -errno : 0;
		}
	return -ENOENT;
}

int
dns_set_upstreams(struct dns *d, const struct sockaddr_storage *ss, size_t n)
{
	d->n_up = 0;
	for (size_t i = 0; i < n; i++)
		if (ss[i].ss_family == AF_INET)
			dns_add_upstream(d, &ss[i], sizeof(struct sockaddr_in));
		else if (ss[i].ss_family == AF_INET6)
			dns_add_upstream(d, &ss[i],
			    sizeof(struct sockaddr_in6));
	return d->n_up > 0 ? 0 : -EINVAL;
}

int
dns_set_upstream(struct dns *d, const struct sockaddr *sa, socklen_t len)
{
	if ((sa->sa_family != AF_INET || len < sizeof(struct sockaddr_in)) &&
	    (sa->sa_family != AF_INET6 || len < sizeof(struct sockaddr_in6)))
		return -EINVAL;
	d->n_up = 0;
	dns_add_upstream(d, sa, len);
	return d->n_up == 1 ? 0 : -EINVAL;
}

/* ---- clients ------------------------------------------------------------ */

static struct dns_client *
dns_client_find(struct dns *d, uint64_t serial)
{
	for (size_t i = 0; i < DNS_MAX_TCP; i++) {
		struct dns_client *c = &d->clients[i];

		if (c->fd >= 0 && !c->dead && c->serial == serial)
			return c;
	}
	return NULL;
}

static size_t
dns_client_queries(const struct dns *d, uint64_t serial)
{
	const struct dns_query *q;
	size_t n = 0;

	TAILQ_FOREACH(q, &d->queries, entry)
		n += q->conn == serial;
	return n;
}

static void
dns_client_flush(struct dns_client *c)
{
	while (c->out_off < c->out_len) {
		/* A client gone already is EPIPE here, never SIGPIPE. */
		ssize_t n = send(c->fd, c->out + c->out_off,
		    c->out_len - c->out_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			c->dead = true;
			return;
		}
		c->out_off += (size_t)n;
	}
	c->out_off = c->out_len = 0;
}

/*
 * Clients are closed here only, never in the middle of a walk over the
 * queries: closing one frees its queries, which a caller may be holding.
 */
static void
dns_reap(struct dns *d)
{
	if (d->in_hook > 0)
		return;
	for (size_t i = 0; i < DNS_MAX_TCP; i++) {
		struct dns_client *c = &d->clients[i];
		struct dns_query *q, *next;

		if (c->fd < 0 || !c->dead)
			continue;
		for (q = TAILQ_FIRST(&d->queries); q != NULL; q = next) {
			next = TAILQ_NEXT(q, entry);
			if (q->conn == c->serial)
				dns_query_free(d, q);
		}
		dns_client_done(c);
	}
}

/* Send an answer to whoever asked; TCP clients that went away get none. */
static void
dns_deliver(struct dns *d, uint64_t conn, const struct sockaddr_storage *from,
    socklen_t fromlen, const unsigned char *msg, size_t len)
{
	struct dns_client *c;

	if (conn == 0) {
		/* A full socket buffer loses the answer, as UDP may. */
		if (d->udp_fd >= 0)
			(void)sendto(d->udp_fd, msg, len, MSG_DONTWAIT,
			    (const struct sockaddr *)from, fromlen);
		return;
	}
	if ((c = dns_client_find(d, conn)) == NULL)
		return;
	if (c->out_len + 2 + len > TCP_OUT_MAX) {
		c->dead = true;		/* it does not read its answers */
		return;
	}
	c->out = xrealloc(c->out, c->out_len + 2 + len);
	ns_put16((unsigned)len, c->out + c->out_len);
	memcpy(c->out + c->out_len + 2, msg, len);
	c->out_len += 2 + len;
	c->deadline = now_mono_ms() + DNS_TCP_IDLE_MS;
	dns_client_flush(c);
}

/* Answer q ourselves with rcode and an echo of its question; frees q. */
static void
dns_finish(struct dns *d, struct dns_query *q, int rcode)
{
	unsigned char msg[NS_PACKETSZ];
	struct sockaddr_storage from = q->from;
	socklen_t fromlen = q->fromlen;
	uint64_t conn = q->conn;
	HEADER h;
	int n;

	n = res_nmkquery(&d->res, ns_o_query, q->name, q->class, q->type,
	    NULL, 0, NULL, msg, sizeof msg);
	if (n < (int)sizeof h) {
		dns_query_free(d, q);
		return;
	}
	memcpy(&h, msg, sizeof h);
	h.id = htons(q->cid);
	h.qr = 1;
	h.opcode = (unsigned)q->opcode & 0xf;
	h.aa = h.tc = h.ad = h.cd = h.unused = 0;
	h.rd = q->rd;
	h.ra = 1;
	h.rcode = (unsigned)rcode & 0xf;
	memcpy(msg, &h, sizeof h);
	dns_query_free(d, q);
	dns_deliver(d, conn, &from, fromlen, msg, (size_t)n);
}

/* ---- what was resolved -------------------------------------------------- */

static size_t
dns_addr_len(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

static void
dns_seen_add(struct dns *d, const char *name, int family, const void *addr)
{
	size_t len = dns_addr_len(family), oldest = 0;
	struct dns_seen *e;

	for (size_t i = 0; i < d->n_seen; i++) {
		e = &d->seen[i];
		if (e->family == family && memcmp(e->addr, addr, len) == 0 &&
		    strcmp(e->name, name) == 0) {
			e->seq = ++d->seen_seq;
			return;
		}
		if (e->seq < d->seen[oldest].seq)
			oldest = i;
	}
	if (d->n_seen < DNS_MAX_SEEN) {
		if (d->n_seen == d->cap_seen) {
			d->cap_seen = d->cap_seen ? d->cap_seen * 2 : 64;
			d->seen = xreallocarray(d->seen, d->cap_seen,
			    sizeof *d->seen);
		}
		e = &d->seen[d->n_seen++];
	} else {
		e = &d->seen[oldest];
		free(e->name);
	}
	*e = (struct dns_seen){ .name = xstrdup(name), .family = family,
	    .seq = ++d->seen_seq };
	memcpy(e->addr, addr, len);
}

const char *
dns_name_of(const struct dns *d, int family, const void *addr)
{
	size_t len = dns_addr_len(family);
	const struct dns_seen *best = NULL;

	if (len == 0)
		return NULL;
	for (size_t i = 0; i < d->n_seen; i++) {
		const struct dns_seen *e = &d->seen[i];

		if (e->family == family && memcmp(e->addr, addr, len) == 0 &&
		    (best == NULL || e->seq > best->seq))
			best = e;
	}
	return best ? best->name : NULL;
}

bool
dns_name_has(const struct dns *d, const char *name, int family,
    const void *addr)
{
	size_t len = dns_addr_len(family);

	if (len == 0)
		return false;
	for (size_t i = 0; i < d->n_seen; i++) {
		const struct dns_seen *e = &d->seen[i];

		if (e->family == family && memcmp(e->addr, addr, len) == 0 &&
		    strcasecmp(e->name, name) == 0)
			return true;
	}
	return false;
}

/*
 * Names as ns_parserr and ns_name_uncompress give them, in glibc's
 * canonical presentation form: printable bytes as themselves, others
 * escaped one way only, no trailing dot but the root's ("." or "").
 * Comparing those without case is comparing the names.
 */
static bool
dns_same_name(const char *a, const char *b)
{
	if (strcmp(a, ".") == 0)
		a = "";
	if (strcmp(b, ".") == 0)
		b = "";
	return strcasecmp(a, b) == 0;
}

static bool
dns_chain_has(char chain[][NS_MAXDNAME], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (dns_same_name(chain[i], name))
			return true;
	return false;
}

/*
 * The answer's addresses, under the name asked: follow the CNAMEs from
 * that name (in any order in the section), then take the A/AAAA records
 * owned by a name of the chain. Records for other names are not believed.
 */
static void
dns_record(struct dns *d, const struct dns_query *q, const unsigned char *msg,
    size_t len)
{
	char chain[MAX_CHAIN][NS_MAXDNAME];
	size_t n_chain = 1;
	bool grew = true;
	ns_msg h;
	ns_rr rr;
	int count;

	if (ns_initparse(msg, (int)len, &h) < 0)
		return;
	count = ns_msg_count(h, ns_s_an);
	snprintf(chain[0], sizeof chain[0], "%s", q->name);
	while (grew && n_chain < MAX_CHAIN) {
		grew = false;
		for (int i = 0; i < count; i++) {
			char *next = chain[n_chain];

			if (ns_parserr(&h, ns_s_an, i, &rr) < 0)
				return;
			if (ns_rr_type(rr) != ns_t_cname ||
			    ns_rr_class(rr) != ns_c_in ||
			    !dns_same_name(ns_rr_name(rr), chain[n_chain - 1]))
				continue;
			if (ns_name_uncompress(ns_msg_base(h), ns_msg_end(h),
			    ns_rr_rdata(rr), next, NS_MAXDNAME) < 0 ||
			    dns_chain_has(chain, n_chain, next))
				break;
			n_chain++;
			grew = true;
			break;
		}
	}
	for (int i = 0; i < count; i++) {
		int family;

		if (ns_parserr(&h, ns_s_an, i, &rr) < 0)
			return;
		if (ns_rr_class(rr) != ns_c_in)
			continue;
		if (ns_rr_type(rr) == ns_t_a && ns_rr_rdlen(rr) == 4)
			family = AF_INET;
		else if (ns_rr_type(rr) == ns_t_aaaa && ns_rr_rdlen(rr) == 16)
			family = AF_INET6;
		else
			continue;
		if (!dns_chain_has(chain, n_chain, ns_rr_name(rr)))
			continue;
		if (d->hooks.resolved != NULL) {
			d->in_hook++;
			d->hooks.resolved(d->hooks.ctx, q->key, family,
			    ns_rr_rdata(rr));
			d->in_hook--;
		}
		dns_seen_add(d, q->key, family, ns_rr_rdata(rr));
	}
}

/* ---- upstream ----------------------------------------------------------- */

/* Is msg the answer to q's current try: its id, and its question? */
static bool
dns_reply_matches(const struct dns_query *q, const unsigned char *msg,
    size_t len, ns_msg *h)
{
	ns_rr rr;

	if (len > NS_MAXMSG || ns_initparse(msg, (int)len, h) < 0)
		return false;
	if (ns_msg_id(*h) != q->id || !ns_msg_getflag(*h, ns_f_qr) ||
	    ns_msg_getflag(*h, ns_f_opcode) != ns_o_query ||
	    ns_msg_count(*h, ns_s_qd) != 1 ||
	    ns_parserr(h, ns_s_qd, 0, &rr) < 0)
		return false;
	return (int)ns_rr_type(rr) == q->type &&
	    (int)ns_rr_class(rr) == q->class &&
	    dns_same_name(ns_rr_name(rr), q->name);
}

/* Relay the upstream's answer with the client's id; frees q. */
static void
dns_relay(struct dns *d, struct dns_query *q, unsigned char *msg, size_t len,
    const ns_msg *h)
{
	struct sockaddr_storage from = q->from;
	socklen_t fromlen = q->fromlen;
	uint64_t conn = q->conn;
	HEADER hd;

	if (ns_msg_getflag(*h, ns_f_rcode) == ns_r_noerror)
		dns_record(d, q, msg, len);
	memcpy(&hd, msg, sizeof hd);
	hd.id = htons(q->cid);
	hd.rd = q->rd;
	memcpy(msg, &hd, sizeof hd);
	dns_query_free(d, q);
	dns_deliver(d, conn, &from, fromlen, msg, len);
}

/* Send the next try over UDP, or answer SERVFAIL once the tries are
 * spent; may free q. */
static void
dns_try(struct dns *d, struct dns_query *q, int64_t now)
{
	closep(&q->fd);
	if (q->msglen == 0) {
		int n = res_nmkquery(&d->res, ns_o_query, q->name, q->class,
		    q->type, NULL, 0, NULL, q->msg + 2, NS_PACKETSZ);

		if (n < NS_HFIXEDSZ) {
			dns_finish(d, q, ns_r_servfail);
			return;
		}
		q->msglen = (size_t)n;
	}
	while (q->tries < TRIES && d->n_up > 0) {
		const struct sockaddr_storage *sa;
		HEADER h;
		int fd;

		q->server = q->tries++ % d->n_up;
		sa = &d->up[q->server];
		q->id = dns_random16(d);
		memcpy(&h, q->msg + 2, sizeof h);
		h.id = htons(q->id);
		h.rd = 1;
		memcpy(q->msg + 2, &h, sizeof h);
		fd = socket(sa->ss_family, SOCK_DGRAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, (const struct sockaddr *)sa,
		    d->up_len[q->server]) < 0 ||
		    send(fd, q->msg + 2, q->msglen, 0) != (ssize_t)q->msglen) {
			close(fd);
			continue;
		}
		q->fd = fd;
		q->state = Q_UDP;
		q->deadline = now + DNS_TRY_MS;
		return;
	}
	dns_finish(d, q, ns_r_servfail);
}

/*
 * The UDP answer was truncated and the client asked over TCP, where it
 * expects it whole: ask the same server again over TCP. May free q.
 */
static void
dns_tcp_start(struct dns *d, struct dns_query *q, int64_t now)
{
	const struct sockaddr_storage *sa = &d->up[q->server];
	HEADER h;

	closep(&q->fd);
	q->fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (q->fd < 0 || (connect(q->fd, (const struct sockaddr *)sa,
	    d->up_len[q->server]) < 0 && errno != EINPROGRESS)) {
		dns_finish(d, q, ns_r_servfail);
		return;
	}
	q->id = dns_random16(d);
	memcpy(&h, q->msg + 2, sizeof h);
	h.id = htons(q->id);
	memcpy(q->msg + 2, &h, sizeof h);
	ns_put16((unsigned)q->msglen, q->msg);
	q->sent = 0;
	q->resp = xmalloc(2 + NS_MAXMSG);
	q->resp_len = 0;
	q->state = Q_TCP;
	q->deadline = now + DNS_TCP_UP_MS;
}

static void
dns_on_upstream_udp(struct dns *d, struct dns_query *q, int64_t now)
{
	for (int i = 0; i < MAX_UDP_READS; i++) {
		ssize_t n = recv(q->fd, d->buf, sizeof d->buf, MSG_TRUNC);
		ns_msg h;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n < 0) {
			/* ICMP unreachable on the connected socket: this
			 * server will not answer; go on at once. */
			dns_try(d, q, now);
			return;
		}
		if ((size_t)n > NS_MAXMSG ||
		    !dns_reply_matches(q, d->buf, (size_t)n, &h))
			continue;
		if (ns_msg_getflag(h, ns_f_tc) && q->conn != 0) {
			dns_tcp_start(d, q, now);
			return;
		}
		dns_relay(d, q, d->buf, (size_t)n, &h);
		return;
	}
}

static void
dns_on_upstream_tcp(struct dns *d, struct dns_query *q, short revents)
{
	size_t want;
	ssize_t n;
	ns_msg h;

	if (q->sent < 2 + q->msglen) {
		if (!(revents & (POLLOUT | POLLERR | POLLHUP)))
			return;
		n = send(q->fd, q->msg + q->sent, 2 + q->msglen - q->sent,
		    MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			dns_finish(d, q, ns_r_servfail);
			return;
		}
		q->sent += (size_t)n;
		return;
	}
	n = read(q->fd, q->resp + q->resp_len, 2 + NS_MAXMSG - q->resp_len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		dns_finish(d, q, ns_r_servfail);
		return;
	}
	q->resp_len += (size_t)n;
	if (q->resp_len < 2 || q->resp_len < 2 + (want = ns_get16(q->resp)))
		return;
	if (!dns_reply_matches(q, q->resp + 2, want, &h)) {
		dns_finish(d, q, ns_r_servfail);
		return;
	}
	memcpy(d->buf, q->resp + 2, want);
	dns_relay(d, q, d->buf, want, &h);
}

/* ---- queries ------------------------------------------------------------ */

static bool
dns_type_served(int type)
{
	switch (type) {
	case ns_t_a: case ns_t_aaaa: case ns_t_cname: case T_HTTPS:
	case T_SVCB: case ns_t_mx: case ns_t_txt: case ns_t_srv:
		return true;
	default:
		return false;
	}
}

/*
 * Host names only: letters, digits, '-', '_' and the dots between labels.
 * The presentation form escapes everything else ("\.", "\032"): a name
 * with such a label is no host name, and would read as another name in a
 * request ("pypi\.org").
 */
static bool
dns_host_key(const char *name, char *key, size_t size)
{
	size_t len = strlen(name);

	if (len > 0 && name[len - 1] == '.')
		len--;
	if (len == 0 || len >= size)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.'))
			return false;
		key[i] = c;
	}
	key[len] = '\0';
	return true;
}

static ssize_t
dns_asking_index(const struct dns *d, const char *key)
{
	for (size_t i = 0; i < d->n_asking; i++)
		if (strcmp(d->asking[i], key) == 0)
			return (ssize_t)i;
	return -1;
}

/* The same question from the same UDP socket with the same id: the
 * client's resolver retransmitting (glibc does every 5 s); the query it
 * repeats, or NULL. */
static struct dns_query *
dns_is_retransmit(const struct dns *d, const struct dns_query *n)
{
	struct dns_query *q;

	if (n->conn != 0)
		return NULL;
	TAILQ_FOREACH(q, &d->queries, entry) {
		if (q != n && q->conn == 0 && q->cid == n->cid && q->type == n->type &&
		    q->class == n->class && q->fromlen == n->fromlen &&
		    memcmp(&q->from, &n->from, n->fromlen) == 0 &&
		    strcmp(q->key, n->key) == 0)
			return q;
	}
	return NULL;
}

bool
dns_asker_gone(const struct dns *d, const char *name, int64_t now)
{
	const struct dns_query *q;
	int64_t last = 0;

	TAILQ_FOREACH(q, &d->queries, entry) {
		if (q->state == Q_PARKED && strcmp(q->key, name) == 0 &&
		    q->heard > last)
			last = q->heard;
	}
	return last == 0 || now - last > DNS_CLIENT_GONE_MS;
}

static void
dns_park(struct dns *d, struct dns_query *q)
{
	struct dns_query *p, *oldest = NULL;
	size_t n = 0;

	TAILQ_FOREACH(p, &d->queries, entry) {
		if (p == q || p->state != Q_PARKED ||
		    strcmp(p->key, q->key) != 0)
			continue;
		if (oldest == NULL)
			oldest = p;
		n++;
	}
	/* The oldest waiter's client has most likely retried or given
	 * up by now. */
	if (n >= DNS_MAX_PER_NAME)
		dns_finish(d, oldest, ns_r_servfail);
	q->state = Q_PARKED;
}

_Static_assert(DNS_NAME_MAX == NS_MAXDNAME, "dns.h's DNS_NAME_MAX");

int
dns_parse_query(const uint8_t *msg, size_t len, struct dns_question *ret)
{
	ns_msg h;
	ns_rr rr;

	memset(ret, 0, sizeof *ret);
	if (len > NS_MAXMSG || ns_initparse(msg, (int)len, &h) < 0 ||
	    ns_msg_getflag(h, ns_f_qr) || ns_msg_count(h, ns_s_qd) != 1 ||
	    ns_parserr(&h, ns_s_qd, 0, &rr) < 0)
		return -EBADMSG;
	ret->id = (uint16_t)ns_msg_id(h);
	ret->opcode = ns_msg_getflag(h, ns_f_opcode);
	ret->rd = ns_msg_getflag(h, ns_f_rd);
	ret->type = ns_rr_type(rr);
	ret->class = ns_rr_class(rr);
	snprintf(ret->name, sizeof ret->name, "%s", ns_rr_name(rr));
	ret->served = ret->opcode == ns_o_query && ret->class == ns_c_in &&
	    dns_type_served(ret->type) &&
	    dns_host_key(ret->name, ret->key, sizeof ret->key);
	if (!ret->served)
		ret->key[0] = '\0';
	return 0;
}

/*
 * One query from a client. -EBADMSG if malformed (the TCP client is then
 * dropped); otherwise answered now, forwarded, or parked.
 */
static int
dns_on_query(struct dns *d, const unsigned char *msg, size_t len,
    uint64_t conn, const struct sockaddr_storage *from, socklen_t fromlen)
{
	struct dns_question qn;
	struct dns_query *q, *first;
	enum dns_decision dec;

	if (dns_parse_query(msg, len, &qn) < 0)
		return -EBADMSG;
	q = xcalloc(1, sizeof *q);
	q->serial = ++d->serial;
	q->fd = -1;
	q->conn = conn;
	if (from != NULL && fromlen <= sizeof q->from) {
		memcpy(&q->from, from, fromlen);
		q->fromlen = fromlen;
	}
	q->cid = qn.id;
	q->opcode = qn.opcode;
	q->rd = qn.rd;
	q->type = qn.type;
	q->class = qn.class;
	memcpy(q->name, qn.name, sizeof q->name);
	memcpy(q->key, qn.key, sizeof q->key);
	q->state = Q_PARKED;
	q->heard = now_mono_ms();
	TAILQ_INSERT_TAIL(&d->queries, q, entry);
	d->n_queries++;

	if (!qn.served) {
		dns_finish(d, q, ns_r_refused);
		return 0;
	}
	if ((first = dns_is_retransmit(d, q)) != NULL) {
		/* Its client still waits. */
		first->heard = q->heard;
		dns_query_free(d, q);
		return 0;
	}
	if (d->n_queries > DNS_MAX_QUERIES ||
	    (conn != 0 && dns_client_queries(d, conn) > MAX_PER_CLIENT)) {
		dns_finish(d, q, ns_r_servfail);
		return 0;
	}
	if (dns_asking_index(d, q->key) >= 0) {
		dns_park(d, q);
		return 0;
	}
	dec = DNS_DENY;
	if (d->hooks.decide != NULL) {
		d->deciding = q->key;
		d->deciding_q = q;
		d->early = -1;
		d->in_hook++;
		dec = d->hooks.decide(d->hooks.ctx, q->key, q->type);
		d->in_hook--;
		d->deciding = NULL;
		d->deciding_q = NULL;
		if (dec == DNS_ASK && d->early >= 0)
			dec = d->early ? DNS_ALLOW : DNS_DENY;
	}
	switch (dec) {
	case DNS_ALLOW:
		dns_try(d, q, now_mono_ms());
		break;
	case DNS_ASK:
		if (d->n_asking >= DNS_MAX_ASKING) {
			dns_finish(d, q, ns_r_servfail);
			break;
		}
		d->asking[d->n_asking++] = xstrdup(q->key);
		dns_park(d, q);
		break;
	case DNS_DENY:
	default:
		dns_finish(d, q, ns_r_nxdomain);
		break;
	}
	return 0;
}

void
dns_answer(struct dns *d, const char *name, bool allow)
{
	char key[NS_MAXDNAME];
	struct dns_query *q, *next;
	ssize_t i;
	int64_t now = now_mono_ms();

	if (!dns_host_key(name, key, sizeof key))
		return;
	if (d->deciding != NULL && strcmp(d->deciding, key) == 0) {
		d->early = allow;
		return;
	}
	if ((i = dns_asking_index(d, key)) < 0)
		return;
	free(d->asking[i]);
	d->asking[i] = d->asking[--d->n_asking];
	for (q = TAILQ_FIRST(&d->queries); q != NULL; q = next) {
		next = TAILQ_NEXT(q, entry);
		if (q->state != Q_PARKED || strcmp(q->key, key) != 0)
			continue;
		if (allow)
			dns_try(d, q, now);
		else
			dns_finish(d, q, ns_r_nxdomain);
	}
	dns_reap(d);
}

/* ---- the loop ----------------------------------------------------------- */

static void
dns_on_udp(struct dns *d)
{
	for (int i = 0; i < MAX_UDP_READS; i++) {
		struct sockaddr_storage from;
		socklen_t fromlen = sizeof from;
		ssize_t n = recvfrom(d->udp_fd, d->buf, sizeof d->buf, MSG_TRUNC,
		    (struct sockaddr *)&from, &fromlen);

		if (n < 0)
			return;
		/* Malformed datagrams are dropped without a word. */
		if ((size_t)n <= NS_MAXMSG)
			(void)dns_on_query(d, d->buf, (size_t)n, 0, &from,
			    fromlen);
	}
}

static void
dns_on_accept(struct dns *d)
{
	for (size_t i = 0; i < DNS_MAX_TCP; i++) {
		struct dns_client *c = &d->clients[i];
		int fd;

		if (c->fd >= 0)
			continue;
		fd = accept4(d->tcp_fd, NULL, NULL, SOCK_NONBLOCK |
		    SOCK_CLOEXEC);
		if (fd < 0)
			return;
		*c = (struct dns_client){
			.fd = fd, .serial = ++d->serial,
			.in = xmalloc(2 + NS_MAXMSG),
			.deadline = now_mono_ms() + DNS_TCP_IDLE_MS,
		};
	}
}

static void
dns_on_client(struct dns *d, struct dns_client *c, short revents)
{
	ssize_t n;

	if (revents & POLLOUT)
		dns_client_flush(c);
	if (c->dead || !(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = read(c->fd, c->in + c->in_len, 2 + NS_MAXMSG - c->in_len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		c->dead = true;
		return;
	}
	c->in_len += (size_t)n;
	while (!c->dead && c->in_len >= 2) {
		size_t len = ns_get16(c->in);

		if (len < NS_HFIXEDSZ) {
			c->dead = true;
			return;
		}
		if (c->in_len < 2 + len)
			return;
		if (dns_on_query(d, c->in + 2, len, c->serial, NULL, 0) < 0) {
			c->dead = true;
			return;
		}
		c->in_len -= 2 + len;
		memmove(c->in, c->in + 2 + len, c->in_len);
		c->deadline = now_mono_ms() + DNS_TCP_IDLE_MS;
	}
}

size_t
dns_pollfds(struct dns *d, struct pollfd *out, size_t max)
{
	struct dns_query *q;
	size_t n = 0, n_clients = 0;

	dns_reap(d);
#define SLOT(k, f, s, ev) do {						\
	if (n < max && n < DNS_POLLFDS_MAX) {				\
		d->slots[n] = (struct dns_slot){ (k), (f), (s) };	\
		out[n++] = (struct pollfd){ (f), (short)(ev), 0 };	\
	}								\
} while (0)
	if (d->udp_fd >= 0)
		SLOT(SLOT_UDP, d->udp_fd, 0, POLLIN);
	for (size_t i = 0; i < DNS_MAX_TCP; i++) {
		struct dns_client *c = &d->clients[i];

		if (c->fd < 0)
			continue;
		n_clients++;
		SLOT(SLOT_CLIENT, c->fd, c->serial, POLLIN |
		    (c->out_len > c->out_off ? POLLOUT : 0));
	}
	/* When full, new clients wait in the listen backlog. */
	if (d->tcp_fd >= 0 && n_clients < DNS_MAX_TCP)
		SLOT(SLOT_LISTEN, d->tcp_fd, 0, POLLIN);
	TAILQ_FOREACH(q, &d->queries, entry) {
		if (q->state == Q_UDP)
			SLOT(SLOT_QUERY, q->fd, q->serial, POLLIN);
		else if (q->state == Q_TCP)
			SLOT(SLOT_QUERY, q->fd, q->serial,
			    q->sent < 2 + q->msglen ? POLLOUT : POLLIN);
	}
#undef SLOT
	d->n_slots = n;
	return n;
}

void
dns_on_ready(struct dns *d, const struct pollfd *pfds, size_t n)
{
	int64_t now = now_mono_ms();

	for (size_t i = 0; i < n && i < d->n_slots; i++) {
		const struct dns_slot *s = &d->slots[i];
		struct dns_query *q;

		if (pfds[i].revents == 0 || pfds[i].fd != s->fd)
			continue;
		switch (s->kind) {
		case SLOT_UDP:
			if (d->udp_fd == s->fd)
				dns_on_udp(d);
			break;
		case SLOT_LISTEN:
			if (d->tcp_fd == s->fd)
				dns_on_accept(d);
			break;
		case SLOT_CLIENT: {
			struct dns_client *c = dns_client_find(d, s->serial);

			if (c != NULL && c->fd == s->fd)
				dns_on_client(d, c, pfds[i].revents);
			break;
		}
		case SLOT_QUERY:
			TAILQ_FOREACH(q, &d->queries, entry)
				if (q->serial == s->serial)
					break;
			if (q == NULL || q->fd != s->fd)
				break;
			if (q->state == Q_UDP)
				dns_on_upstream_udp(d, q, now);
			else if (q->state == Q_TCP)
				dns_on_upstream_tcp(d, q, pfds[i].revents);
			break;
		}
	}
	d->n_slots = 0;
	dns_reap(d);
}

int64_t
dns_next_deadline(const struct dns *d)
{
	const struct dns_query *q;
	int64_t next = 0;

	TAILQ_FOREACH(q, &d->queries, entry)
		if (q->state != Q_PARKED && (next == 0 || q->deadline < next))
			next = q->deadline;
	/* A client waiting for its answers is not idle. */
	for (size_t i = 0; i < DNS_MAX_TCP; i++) {
		const struct dns_client *c = &d->clients[i];

		if (c->fd >= 0 && dns_client_queries(d, c->serial) == 0 &&
		    (next == 0 || c->deadline < next))
			next = c->deadline;
	}
	return next;
}

void
dns_tick(struct dns *d, int64_t now)
{
	struct dns_query *q, *next;

	for (q = TAILQ_FIRST(&d->queries); q != NULL; q = next) {
		next = TAILQ_NEXT(q, entry);
		if (q->state == Q_PARKED || q->deadline > now)
			continue;
		if (q->state == Q_UDP)
			dns_try(d, q, now);
		else
			dns_finish(d, q, ns_r_servfail);
	}
	for (size_t i = 0; i < DNS_MAX_TCP; i++) {
		struct dns_client *c = &d->clients[i];

		if (c->fd >= 0 && c->deadline <= now &&
		    dns_client_queries(d, c->serial) == 0)
			c->dead = true;
	}
	dns_reap(d);
}
