/* SPDX-License-Identifier: MIT */
/*
 * supervisor/dns.c as a whole: one TCP client of the stub sends the input
 * (length-prefixed queries, as a resolver over TCP does), through the
 * stub's framing, parsing, decisions, parking, forwarding and answers. A
 * name with "allow" in it is allowed, "ask" asked (then answered: allow
 * when it has a "y"), "now" asked and settled inside decide(), anything
 * else denied. The fake upstream answers every query it gets with one A
 * record. Properties:
 *   - what the stub forwards is a question it serves, under a fresh id;
 *   - every answer the client gets is a response (QR set) to a question
 *     the client asked, with that question's id;
 *   - resolved() reports only names decide() was asked about.
 */
#include "tests/fuzz/fuzz.h"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "supervisor/dns.h"

#define FUZZ_ASKED_MAX	64

struct fuzz_ctx {
	struct dns	*dns;
	char		 asked[FUZZ_ASKED_MAX][DNS_NAME_MAX];
	size_t		 n_asked;
	char		 decided[FUZZ_ASKED_MAX][DNS_NAME_MAX];
	size_t		 n_decided;
};

static enum dns_decision
fuzz_decide(void *ctx, const char *name, int qtype)
{
	struct fuzz_ctx *f = ctx;

	(void)qtype;
	if (f->n_decided < FUZZ_ASKED_MAX)
		snprintf(f->decided[f->n_decided++], DNS_NAME_MAX, "%s", name);
	if (strstr(name, "allow") != NULL)
		return DNS_ALLOW;
	if (strstr(name, "now") != NULL) {
		dns_answer(f->dns, name, strchr(name, 'y') != NULL);
		return DNS_ASK;
	}
	if (strstr(name, "ask") != NULL) {
		if (f->n_asked < FUZZ_ASKED_MAX)
			snprintf(f->asked[f->n_asked++], DNS_NAME_MAX, "%s", name);
		return DNS_ASK;
	}
	return DNS_DENY;
}

static void
fuzz_resolved(void *ctx, const char *name, int family, const void *addr)
{
	struct fuzz_ctx *f = ctx;
	bool found = false;

	(void)addr;
	fuzz_check(family == AF_INET);
	for (size_t i = 0; i < f->n_decided && !found; i++)
		found = strcmp(f->decided[i], name) == 0;
	fuzz_check(found);
}

static int
fuzz_bound(int type, struct sockaddr_in *sa)
{
	socklen_t len = sizeof *sa;
	int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	fuzz_check(fd >= 0);
	*sa = (struct sockaddr_in){ .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	fuzz_check(bind(fd, (struct sockaddr *)sa, sizeof *sa) == 0);
	fuzz_check(getsockname(fd, (struct sockaddr *)sa, &len) == 0);
	if (type == SOCK_STREAM)
		fuzz_check(listen(fd, 16) == 0);
	return fd;
}

/* A non-blocking connect, waited for: libFuzzer's SIGALRM (-timeout)
 * would interrupt a blocking one on a busy machine. */
static int
fuzz_connect(const struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int err = 0;
	socklen_t len = sizeof err;

	fuzz_check(fd >= 0);
	if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) < 0) {
		struct pollfd p = { fd, POLLOUT, 0 };

		fuzz_check(errno == EINPROGRESS || errno == EINTR);
		while (poll(&p, 1, 5000) < 0)
			fuzz_check(errno == EINTR);
		fuzz_check(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0);
		fuzz_check(err == 0 && (p.revents & POLLOUT));
	}
	return fd;
}

/* The fake upstream: answer each query with its question and one A. */
static void
fuzz_upstream(int up)
{
	unsigned char q[NS_MAXMSG], a[NS_MAXMSG];
	struct sockaddr_storage from;
	socklen_t fromlen = sizeof from;
	struct dns_question qn;
	ssize_t n;

	while ((n = recvfrom(up, q, sizeof q, 0, (struct sockaddr *)&from,
	    &fromlen)) > 0) {
		static const unsigned char rr[] = { 0xc0, 0x0c, 0, 1, 0, 1,
		    0, 0, 0, 60, 0, 4, 192, 0, 2, 1 };
		size_t len = (size_t)n;

		fuzz_check(dns_parse_query(q, len, &qn) == 0 && qn.served);
		if (len + sizeof rr > sizeof a)
			continue;
		memcpy(a, q, len);
		a[2] |= 0x80;		/* QR */
		a[3] = 0x80;		/* RA, NOERROR */
		a[6] = 0, a[7] = 1;	/* ANCOUNT */
		memcpy(a + len, rr, sizeof rr);
		(void)sendto(up, a, len + sizeof rr, 0, (struct sockaddr *)&from,
		    fromlen);
		fromlen = sizeof from;
	}
}

/* What the client sent, read again: is this answer to one of those? */
static void
fuzz_check_answer(const uint8_t *sent, size_t sent_len, const unsigned char *a,
    size_t len)
{
	struct dns_question an, qn;
	size_t off = 0;
	bool found = false;

	fuzz_check(len >= NS_HFIXEDSZ && (a[2] & 0x80));
	/* Read it as a query would be, with QR cleared. */
	{
		unsigned char copy[NS_MAXMSG];

		fuzz_check(len <= sizeof copy);
		memcpy(copy, a, len);
		copy[2] &= 0x7f;
		fuzz_check(dns_parse_query(copy, len, &an) == 0);
	}
	while (!found && off + 2 <= sent_len) {
		size_t flen = (size_t)sent[off] << 8 | sent[off + 1];

		if (off + 2 + flen > sent_len)
			break;
		if (dns_parse_query(sent + off + 2, flen, &qn) == 0)
			found = qn.id == an.id && qn.type == an.type &&
			    qn.class == an.class &&
			    strcasecmp(qn.name, an.name) == 0;
		off += 2 + flen;
	}
	fuzz_check(found);
}

static void
fuzz_pump(struct fuzz_ctx *f, int up, int client, unsigned char *in,
    size_t *in_len, bool *eof)
{
	for (int round = 0; round < 8; round++) {
		struct pollfd p[DNS_POLLFDS_MAX];
		size_t n = dns_pollfds(f->dns, p, DNS_POLLFDS_MAX);
		ssize_t got;

		fuzz_check(n <= DNS_POLLFDS_MAX);
		if (poll(p, n, 0) > 0)
			dns_on_ready(f->dns, p, n);
		fuzz_upstream(up);
		while (!*eof && (got = read(client, in + *in_len,
		    2 * NS_MAXMSG - *in_len)) >= 0) {
			if (got == 0)
				*eof = true;
			*in_len += (size_t)got;
			if (*in_len == 2 * NS_MAXMSG)
				break;
		}
	}
}

/* One listening socket and one upstream for the whole run, each input's
 * stub taking a dup of the first: a socket pair of ports per input would
 * leave thousands in TIME_WAIT. */
static int fuzz_listen = -1, fuzz_up = -1;
static struct sockaddr_in fuzz_listen_sa, fuzz_up_sa;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_listen = fuzz_bound(SOCK_STREAM, &fuzz_listen_sa);
	fuzz_up = fuzz_bound(SOCK_DGRAM, &fuzz_up_sa);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char in[2 * NS_MAXMSG];
	struct fuzz_ctx *f = calloc(1, sizeof *f);
	struct dns_hooks hooks = { fuzz_decide, fuzz_resolved, f };
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	char *cause = NULL;
	size_t in_len = 0, off = 0;
	bool eof = false;
	int client, up = fuzz_up;

	fuzz_check(f != NULL);
	while (recv(up, in, sizeof in, 0) >= 0)
		;	/* what an earlier input's stub left */
	fuzz_check(dns_new(-1, fcntl(fuzz_listen, F_DUPFD_CLOEXEC, 0), &hooks,
	    &f->dns, &cause) == 0);
	fuzz_check(dns_set_upstream(f->dns, (struct sockaddr *)&fuzz_up_sa,
	    sizeof fuzz_up_sa) == 0);
	client = fuzz_connect(&fuzz_listen_sa);
	fuzz_check(setsockopt(client, SOL_SOCKET, SO_LINGER, &rst,
	    sizeof rst) == 0);

	while (off < size) {
		ssize_t n = write(client, data + off, size - off);

		fuzz_check(n > 0 || errno == EAGAIN);
		if (n > 0)
			off += (size_t)n;
		fuzz_pump(f, up, client, in, &in_len, &eof);
	}
	fuzz_pump(f, up, client, in, &in_len, &eof);
	for (size_t i = 0; i < f->n_asked; i++)
		dns_answer(f->dns, f->asked[i], strchr(f->asked[i], 'y') != NULL);
	fuzz_pump(f, up, client, in, &in_len, &eof);

	for (size_t pos = 0; pos + 2 <= in_len;) {
		size_t len = (size_t)in[pos] << 8 | in[pos + 1];

		if (pos + 2 + len > in_len)
			break;
		fuzz_check_answer(data, size, in + pos + 2, len);
		pos += 2 + len;
	}
	close(client);		/* a reset: no TIME_WAIT */
	dns_free(f->dns);
	free(cause);
	free(f);
	return 0;
}
