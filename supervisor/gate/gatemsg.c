/* SPDX-License-Identifier: MIT */
#include "supervisor/gate/gatemsg.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void
gatemsg_set(char *field, size_t cap, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n < cap) {
		memcpy(field, s ? s : "", n + 1);
		return;
	}
	n = cap - 4;
	/* Back off continuation bytes (10xxxxxx): cut before a character. */
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(field, s, n);
	memcpy(field + n, "...", 4);
}

int
gatemsg_send(int wire, const struct gate_msg *m, const int *fds, size_t n_fds)
{
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof *m };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	if (n_fds > 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof u);
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(n_fds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n_fds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n_fds * sizeof(int));
	}
	do
		r = sendmsg(wire, &mh, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return (size_t)r == sizeof *m ? 0 : -EPROTO;
}

int
gatemsg_recv(int wire, struct gate_msg *m, int fds[2])
{
	struct iovec iov = { .iov_base = m, .iov_len = sizeof *m };
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof u.buf,
	};
	ssize_t r;
	size_t k = 0;

	fds[0] = fds[1] = -1;
	do
		r = recvmsg(wire, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -EPIPE;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL;
	    c = CMSG_NXTHDR(&mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
			if (k < 2)
				fds[k++] = fd;
			else
				close(fd);
		}
	}
	if ((size_t)r != sizeof *m || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		for (size_t i = 0; i < k; i++)
			close(fds[i]);
		fds[0] = fds[1] = -1;
		/* The message whole, its fds not (the kernel closed those
		 * it could not give: out of fds): that one, not the wire. */
		return (size_t)r == sizeof *m && !(mh.msg_flags & MSG_TRUNC) ?
		    -EMFILE : -EPROTO;
	}
	return 0;
}
