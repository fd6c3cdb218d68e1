/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The DNS stub the sandbox's resolv.conf points at. Its two sockets live in
 * the sandbox's network namespace (UDP and TCP on 127.0.0.1:53, opened there
 * by the sandbox's init); the queries it forwards leave from the
 * supervisor's own namespace, to the host's resolvers. Everything is
 * non-blocking and driven from the supervisor's poll loop.
 *
 * Answers: a name the policy denies gets NXDOMAIN (a final answer: the
 * program fails at once with "name not known" instead of retrying as it
 * would on REFUSED or SERVFAIL); a query the stub does not serve (class
 * other than IN, types other than A AAAA CNAME HTTPS SVCB MX TXT SRV,
 * opcodes other than QUERY, names that are not host names) gets REFUSED;
 * an upstream that stays silent or a full stub gets SERVFAIL. Malformed
 * queries get nothing (UDP) or a closed connection (TCP).
 */
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define DNS_MAX_TCP		16	/* TCP clients at once */
#define DNS_MAX_QUERIES		64	/* parked + in flight, all clients */
#define DNS_MAX_PER_NAME	8	/* parked on one undecided name */
#define DNS_MAX_ASKING		32	/* names waiting for a decision */
#define DNS_MAX_SEEN		4096	/* name/address pairs remembered */
/* Enough pollfds for everything: both sockets, each TCP client, and one
 * upstream socket per query. */
#define DNS_POLLFDS_MAX		(2 + DNS_MAX_TCP + DNS_MAX_QUERIES)

#define DNS_TRY_MS		2000	/* per upstream try; two tries */
#define DNS_TCP_UP_MS		4000	/* an upstream TCP exchange */
#define DNS_TCP_IDLE_MS		10000	/* a client with nothing in flight */
/*
 * The sandbox's resolver, as its resolv.conf says (main.c writes
 * "options timeout:5 attempts:2"): glibc, Go and hickory send a query
 * again every DNS_CLIENT_TIMEOUT_S seconds and give up that long after
 * their last try (10 s in all), musl sooner; c-ares doubles the wait of
 * its second try. A lookup whose clients sent it last more than twice
 * the timeout ago (plus a second of slack) has nobody waiting for it.
 */
#define DNS_CLIENT_TIMEOUT_S	5
#define DNS_CLIENT_ATTEMPTS	2
#define DNS_CLIENT_GONE_MS	(2 * DNS_CLIENT_TIMEOUT_S * 1000 + 1000)

struct dns;

/*
 * A client's question, read from its bytes alone (no socket, no state: the
 * stub's first step, and what tests/fuzz/fuzz-dns.c feeds). served is false
 * for what the stub answers REFUSED: an opcode other than QUERY, a class
 * other than IN, a type not served, a name that is no host name; key is
 * then "". name is the presentation form as asked (escapes and all), key
 * the lowercase host name decide() sees.
 */
#define DNS_NAME_MAX		1025	/* NS_MAXDNAME, with its NUL */

struct dns_question {
	uint16_t	 id;
	int		 opcode;
	bool		 rd;
	int		 type, class;
	char		 name[DNS_NAME_MAX];
	char		 key[DNS_NAME_MAX];
	bool		 served;
};

/* 0 and *ret; -EBADMSG when msg is no query (QR set, longer than a DNS
 * message, other than one question, a question that does not parse). */
int	dns_parse_query(const uint8_t *msg, size_t len, struct dns_question *ret);

enum dns_decision { DNS_ALLOW, DNS_DENY, DNS_ASK };

/* Hooks run from inside dns_on_ready()/dns_tick()/dns_answer(); they may
 * call dns_name_of(), dns_name_has() and dns_answer() (decide may settle
 * its own name at once and still return ASK), nothing else of this
 * module. */
struct dns_hooks {
	/* Is this name (lowercase, no trailing dot) allowed? ASK parks the
	 * query, and every later query for the same name, until
	 * dns_answer(); decide is not asked again for it meanwhile. */
	enum dns_decision (*decide)(void *ctx, const char *name, int qtype);
	/* Each A/AAAA address of an answer, under the name that was asked
	 * (CNAME chains followed); addr is a struct in_addr or in6_addr. */
	void	(*resolved)(void *ctx, const char *name, int family,
		    const void *addr);
	void	*ctx;
};

/*
 * Takes both fds (either may be -1), also on failure: udp_fd a bound
 * datagram socket, tcp_fd a listening stream socket. The upstream servers
 * are the host's, from res_ninit() (its resolv.conf). 0 or -errno.
 */
int	dns_new(int udp_fd, int tcp_fd, const struct dns_hooks *,
	    struct dns **ret, char **cause);
void	dns_free(struct dns *);
/* Inside decide(): the client whose query is decided, its address as the
 * stub sees it (UDP: the datagram's source; TCP: the connection's peer)
 * and whether it came over TCP. 0, or -ENOENT outside decide(). */
int	dns_asker(const struct dns *, struct sockaddr_storage *, bool *tcp);
/* Replace the upstream list by this one server (tests). 0 or -EINVAL. */
int	dns_set_upstream(struct dns *, const struct sockaddr *, socklen_t);
/* Replace the upstream list by these n (at most MAXNS taken): a
 * container's own servers. 0 or -EINVAL when none is an address. */
int	dns_set_upstreams(struct dns *, const struct sockaddr_storage *,
	    size_t n);

/* Every fd it wants polled, with its events; at most max of them (pass
 * DNS_POLLFDS_MAX). Then pass the same slice to dns_on_ready() once one
 * is ready, as often as it is polled again; the next dns_pollfds starts a
 * new slice. */
size_t	dns_pollfds(struct dns *, struct pollfd *out, size_t max);
void	dns_on_ready(struct dns *, const struct pollfd *, size_t n);
/* Monotonic ms (now_mono_ms()) of the next retry or timeout, 0 = none;
 * call dns_tick() once it has passed. */
int64_t	dns_next_deadline(const struct dns *);
void	dns_tick(struct dns *, int64_t now_mono_ms);

/* Has every client that asked for name (parked, waiting for a person)
 * given up on it: none sent it, or sent it again, in the last
 * DNS_CLIENT_GONE_MS before now (monotonic ms)? True when none waits. */
bool	dns_asker_gone(const struct dns *, const char *name, int64_t now);

/* The decision for a name decide() answered ASK for: forward every query
 * parked on it, or answer them NXDOMAIN. Later queries for the name go to
 * decide() again. No-op for a name not waiting. */
void	dns_answer(struct dns *, const char *name, bool allow);

/*
 * What the stub resolved, newest first, for "an allow by name covers only
 * the addresses the stub resolved for it" and to show
 * "pypi.org (151.101.0.223):443". family AF_INET/AF_INET6, addr a struct
 * in_addr/in6_addr. The string stays valid until the next call into this
 * module other than these two.
 */
const char *dns_name_of(const struct dns *, int family, const void *addr);
bool	dns_name_has(const struct dns *, const char *name, int family,
	    const void *addr);
