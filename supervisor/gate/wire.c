/* SPDX-License-Identifier: MIT */
/*
 * The wire's one codec (wire.h), compiled into both ends: ward-gate and
 * ward-supervisor. Each end treats the other's messages as untrusted.
 */
#include "supervisor/gate/wire.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void
gate_msg_set(char *field, size_t cap, const char *s)
{
	size_t len = s != NULL ? strlen(s) : 0, cut;

	if (cap == 0)
		return;
	if (len < cap) {
		memcpy(field, s != NULL ? s : "", len + 1);
		return;
	}
	if (cap < 4) {
		field[0] = '\0';
		return;
	}
	cut = cap - 4;
	/* Back to the start of a UTF-8 sequence: never half a character. */
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	memcpy(field, s, cut);
	memcpy(field + cut, "...", 4);
}

int
gate_msg_send(int wire, const struct gate_msg *m, const int *fds,
    size_t n_fds)
{
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(GATE_MAX_FDS * sizeof(int))];
	} c;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof *m };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (n_fds > GATE_MAX_FDS)
		return -EINVAL;
	if (n_fds > 0) {
		memset(&c, 0, sizeof c);
		mh.msg_control = c.buf;
		mh.msg_controllen = CMSG_SPACE(n_fds * sizeof(int));
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(n_fds * sizeof(int));
		memcpy(CMSG_DATA(&c.h), fds, n_fds * sizeof(int));
	}
	do
		n = sendmsg(wire, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n == (ssize_t)sizeof *m ? 0 : -EPROTO;
}

static bool
terminated(const char *a, size_t n)
{
	return memchr(a, '\0', n) != NULL;
}

/* Every string of m ends inside its array; the type is one of ours. */
static bool
well_formed(const struct gate_msg *m)
{
	return m->type >= GATE_PHANTOM && m->type <= GATE_REFRESH &&
	    terminated(m->method, sizeof m->method) &&
	    terminated(m->host, sizeof m->host) &&
	    terminated(m->name, sizeof m->name) &&
	    terminated(m->path, sizeof m->path) &&
	    terminated(m->rule, sizeof m->rule) &&
	    terminated(m->text, sizeof m->text);
}

int
gate_msg_recv(int wire, struct gate_msg *m, int *fds, size_t max_fds,
    size_t *n_fds)
{
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(8 * sizeof(int))];
	} c;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof *m };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = c.buf, .msg_controllen = sizeof c.buf,
	};
	int got[8];
	size_t n_got = 0;
	ssize_t n;

	*n_fds = 0;
	for (size_t i = 0; i < max_fds; i++)
		fds[i] = -1;
	do
		n = recvmsg(wire, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h != NULL;
	    h = CMSG_NXTHDR(&mh, h)) {
		size_t k;

		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k && n_got < sizeof got / sizeof *got; i++)
			memcpy(&got[n_got++], CMSG_DATA(h) + i * sizeof(int),
			    sizeof(int));
	}
	if (n == 0 && n_got == 0)
		return -EPIPE;
	/* MSG_TRUNC: the datagram was longer than one message. */
	if (n != (ssize_t)sizeof *m || (mh.msg_flags & (MSG_TRUNC |
	    MSG_CTRUNC)) || n_got > max_fds || !well_formed(m)) {
		for (size_t i = 0; i < n_got; i++)
			close(got[i]);
		/* The message whole, its fds not (the kernel closed those
		 * it could not give: out of fds): that one, not the wire. */
		return n == (ssize_t)sizeof *m && well_formed(m) &&
		    n_got <= max_fds && !(mh.msg_flags & MSG_TRUNC) ?
		    -EMFILE : -EPROTO;
	}
	memcpy(fds, got, n_got * sizeof(int));
	*n_fds = n_got;
	return 0;
}
