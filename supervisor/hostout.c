/*
 * The supervisor's own stdout and stderr, bounded and non-blocking. See
 * hostout.h.
 */
#include "supervisor/hostout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/util.h"

void
hostout_init(struct hostout *o, int fd)
{
	struct stat st;
	char p[40];

	*o = (struct hostout){ .fd = fd, .own_fd = -1 };
	if (fd < 0 || fstat(fd, &st) < 0) {
		o->fd = -1;
		return;
	}
	if (S_ISSOCK(st.st_mode)) {
		o->sock = true;
		return;
	}
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
		return;
	/* A pipe or a terminal: a description of our own, non-blocking.
	 * O_NONBLOCK on fd itself would reach every process sharing it
	 * (the user's shell, after we exit). Our own fd: no other
	 * process's, so reopening it by /proc/self is not choosing a
	 * descriptor someone else controls. */
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	o->own_fd = open(p, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (o->own_fd >= 0)
		o->fd = o->own_fd;
}

void
hostout_done(struct hostout *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = 0;
	closep(&o->own_fd);
	o->fd = -1;
}

size_t
hostout_room(const struct hostout *o)
{
	return o->len >= HOSTOUT_MAX ? 0 : HOSTOUT_MAX - o->len;
}

bool
hostout_pending(const struct hostout *o)
{
	return o->len > 0;
}

int
hostout_poll_fd(const struct hostout *o)
{
	return o->len > 0 ? o->fd : -1;
}

static ssize_t
hostout_put(struct hostout *o, const void *buf, size_t n)
{
	ssize_t w;

	do
		w = o->sock ? send(o->fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL) :
		    write(o->fd, buf, n);
	while (w < 0 && errno == EINTR);
	if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	return w;
}

bool
hostout_flush(struct hostout *o)
{
	while (o->len > 0) {
		ssize_t w;

		if (o->fd < 0 || o->broken) {
			o->len = 0;
			break;
		}
		if ((w = hostout_put(o, o->buf, o->len)) < 0) {
			o->broken = true;
			continue;
		}
		if (w == 0)
			break;
		memmove(o->buf, o->buf + w, o->len - (size_t)w);
		o->len -= (size_t)w;
	}
	return o->len > 0;
}

void
hostout_write(struct hostout *o, const void *buf, size_t n, bool own)
{
	size_t cap = HOSTOUT_MAX + (own ? HOSTOUT_OWN : 0);

	if (o->fd < 0 || o->broken || n == 0)
		return;
	/* Nothing queued: straight out, what the fd takes. */
	if (o->len == 0) {
		ssize_t w = hostout_put(o, buf, n);

		if (w < 0) {
			o->broken = true;
			return;
		}
		buf = (const char *)buf + w;
		n -= (size_t)w;
		if (n == 0)
			return;
	}
	if (o->len + n > cap) {
		o->dropped += o->len + n - cap;
		n = o->len >= cap ? 0 : cap - o->len;
	}
	if (o->buf == NULL)
		o->buf = xmalloc(HOSTOUT_MAX + HOSTOUT_OWN);
	memcpy(o->buf + o->len, buf, n);
	o->len += n;
}
