/* SPDX-License-Identifier: MIT */
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
	o->tty = isatty(fd) == 1;
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

enum { ESC_NONE, ESC_ESC, ESC_CSI, ESC_STR, ESC_STR_ESC };

/* A CSI sequence that stays on the current line: SGR (m), erase in line
 * (K), cursor forward, back, to a column (C D G). */
static bool
hostout_csi_ok(const char *seq, size_t len)
{
	char fin = seq[len - 1];

	for (size_t i = 2; i + 1 < len; i++)
		if (!((seq[i] >= '0' && seq[i] <= '9') || seq[i] == ';' ||
		    seq[i] == ':'))
			return false;	/* private modes (?1049h) and the like */
	return fin == 'm' || fin == 'K' || fin == 'C' || fin == 'D' ||
	    fin == 'G';
}

/* The program's bytes for a terminal, into b (room for n + sizeof
 * o->seq: a CSI begun in an earlier write comes out whole); its length. */
static size_t
hostout_filter(struct hostout *o, const char *in, size_t n, char *b)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)in[i];

		switch (o->esc) {
		case ESC_ESC:
			if (ch == '[') {
				o->esc = ESC_CSI;
				o->seq[0] = 0x1b;
				o->seq[1] = '[';
				o->seq_len = 2;
			} else if (ch == ']' || ch == 'P' || ch == 'X' ||
			    ch == '^' || ch == '_')
				o->esc = ESC_STR;
			else if (ch < 0x20 || ch > 0x2f)
				o->esc = ESC_NONE;	/* ESC M, 7, 8, c: dropped */
			/* else an intermediate (ESC ( B): wait for the end */
			continue;
		case ESC_CSI:
			if (o->seq_len < sizeof o->seq)
				o->seq[o->seq_len] = (char)ch;
			o->seq_len++;
			if (ch < 0x40 || ch > 0x7e)
				continue;
			o->esc = ESC_NONE;
			if (o->seq_len <= sizeof o->seq &&
			    hostout_csi_ok(o->seq, o->seq_len)) {
				memcpy(b + w, o->seq, o->seq_len);
				w += o->seq_len;
			}
			continue;
		case ESC_STR:
			if (ch == 0x07)
				o->esc = ESC_NONE;
			else if (ch == 0x1b)
				o->esc = ESC_STR_ESC;
			continue;
		case ESC_STR_ESC:
			o->esc = ch == '\\' ? ESC_NONE : ESC_STR;
			continue;
		default:
			break;
		}
		if (ch == 0x1b)
			o->esc = ESC_ESC;
		else
			b[w++] = (char)ch;	/* VT, FF and such move down only */
	}
	return w;
}

static void hostout_queue(struct hostout *, const void *, size_t, bool);

void
hostout_write(struct hostout *o, const void *buf, size_t n, bool own)
{
	if (o->fd < 0 || o->broken || n == 0)
		return;
	if (o->tty && !own) {
		cleanup_free char *b = xmalloc(n + sizeof o->seq);

		hostout_queue(o, b, hostout_filter(o, buf, n, b), false);
		return;
	}
	if (o->tty && o->mid_line)
		hostout_queue(o, "\r\n", 2, true);
	hostout_queue(o, buf, n, own);
}

static void
hostout_queue(struct hostout *o, const void *buf, size_t n, bool own)
{
	size_t cap = HOSTOUT_MAX + (own ? HOSTOUT_OWN : 0);

	if (n == 0)
		return;
	o->mid_line = ((const char *)buf)[n - 1] != '\n';
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
