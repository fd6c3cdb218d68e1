/* SPDX-License-Identifier: MIT */
/*
 * The child's two ways back to the supervisor between clone and exec
 * (supervisor/spawn*.c): its first failure on err_fd, then _exit(125);
 * descriptors over its socket.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "supervisor/spawn-int.h"

void __attribute__((noreturn, format(printf, 2, 3)))
spawn_fail(const struct child *c, const char *fmt, ...)
{
	char buf[512];
	int saved = errno;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf - 64, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof buf - 64)
		n = (int)(sizeof buf - 64);
	n += snprintf(buf + n, sizeof buf - (size_t)n, ": %s", strerror(saved));
	(void)!write(c->err_fd, buf, (size_t)n);
	_exit(125);
}

void
spawn_send_fds(const struct child *c, const int *fds, size_t n)
{
	char dummy = 'L';
	struct iovec iov = { .iov_base = &dummy, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = CMSG_SPACE(n * sizeof(int)),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	memset(u.buf, 0, sizeof u.buf);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	if (sendmsg(c->sock_fd, &msg, MSG_NOSIGNAL) != 1)
		spawn_fail(c, "send fds to the supervisor");
}
