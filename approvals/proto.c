/* SPDX-License-Identifier: MIT */
#include "approvals/proto.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nettle/base64.h>

#include "config/util.h"

/* How much proto_read asks the socket for at a time. */
#define PROTO_READ_CHUNK	(64u << 10)
#define PROTO_HEADER		4u
#define PROTO_DUMP_FLAGS	JSON_COMPACT

struct proto_conn {
	int		 fd;
	uid_t		 peer_uid;
	pid_t		 peer_pid;
	bool		 not_socket;	/* fall back to read/write (tests with pipes) */

	char		*in;		/* received, not yet parsed: in[in_off..in_len) */
	size_t		 in_off;
	size_t		 in_len;
	size_t		 in_cap;
	bool		 eof;

	char		*out;		/* queued, not yet written: out[out_off..out_len) */
	size_t		 out_off;
	size_t		 out_len;
	size_t		 out_cap;

	/* A bad frame poisons the connection: the stream cannot be resynced,
	 * so every later proto_next() reports the same error. */
	int		 error;
	char		*error_cause;
};

struct proto_conn *
proto_conn_new(int fd)
{
	struct proto_conn *c = xcalloc(1, sizeof *c);

	c->fd = fd;
	c->peer_uid = (uid_t)-1;
	c->peer_pid = 0;
	return c;
}

void
proto_conn_free(struct proto_conn *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c->out);
	free(c->error_cause);
	free(c);
}

int
proto_conn_fd(const struct proto_conn *c)
{
	return c->fd;
}

void
proto_conn_set_peer(struct proto_conn *c, uid_t uid, pid_t pid)
{
	c->peer_uid = uid;
	c->peer_pid = pid;
}

uid_t
proto_conn_peer_uid(const struct proto_conn *c)
{
	return c->peer_uid;
}

pid_t
proto_conn_peer_pid(const struct proto_conn *c)
{
	return c->peer_pid;
}

/* Serialises msg as a frame into buf (which has room for size+4 bytes
 * when size came from proto_frame_size()). */
static int
proto_frame_size(const json_t *msg, size_t *size)
{
	size_t n;

	if (!json_is_object(msg) ||
	    !json_is_string(json_object_get(msg, "type")))
		return -EINVAL;
	n = json_dumpb(msg, NULL, 0, PROTO_DUMP_FLAGS);
	if (n == 0)
		return -EINVAL;
	if (n > PROTO_MAX_FRAME)
		return -EMSGSIZE;
	*size = n;
	return 0;
}

static void
proto_frame_write(const json_t *msg, char *buf, size_t size)
{
	uint32_t n = (uint32_t)size;

	buf[0] = (char)(n >> 24);
	buf[1] = (char)(n >> 16);
	buf[2] = (char)(n >> 8);
	buf[3] = (char)n;
	if (json_dumpb(msg, buf + PROTO_HEADER, size, PROTO_DUMP_FLAGS) != size)
		fatal("json_dumpb changed its mind about the size of a message");
}

int
proto_frame(const json_t *msg, char **buf, size_t *len)
{
	size_t size;
	char *p;
	int r;

	if ((r = proto_frame_size(msg, &size)) < 0)
		return r;
	p = xmalloc(PROTO_HEADER + size);
	proto_frame_write(msg, p, size);
	*buf = p;
	*len = PROTO_HEADER + size;
	return 0;
}

int
proto_send(struct proto_conn *c, const json_t *msg)
{
	size_t size, queued = c->out_len - c->out_off, need;
	int r;

	if ((r = proto_frame_size(msg, &size)) < 0)
		return r;
	need = PROTO_HEADER + size;
	if (queued + need > PROTO_MAX_OUTBUF)
		return -ENOBUFS;

	/* Move the unsent tail to the front before growing, so the buffer
	 * stays bounded by what is actually queued. */
	if (c->out_off > 0) {
		memmove(c->out, c->out + c->out_off, queued);
		c->out_off = 0;
		c->out_len = queued;
	}
	if (c->out_len + need > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;

		while (cap < c->out_len + need)
			cap *= 2;
		c->out = xrealloc(c->out, cap);
		c->out_cap = cap;
	}
	proto_frame_write(msg, c->out + c->out_len, size);
	c->out_len += need;
	return 0;
}

int
proto_flush(struct proto_conn *c)
{
	while (c->out_off < c->out_len) {
		size_t left = c->out_len - c->out_off;
		ssize_t n;

		/* MSG_DONTWAIT: never block, even on a blocking CLI fd.
		 * MSG_NOSIGNAL: a vanished peer is -EPIPE, not SIGPIPE. */
		if (!c->not_socket)
			n = send(c->fd, c->out + c->out_off, left,
			    MSG_DONTWAIT | MSG_NOSIGNAL);
		else
			n = write(c->fd, c->out + c->out_off, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOTSOCK && !c->not_socket) {
				c->not_socket = true;
				continue;
			}
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return -EAGAIN;
			return -errno;
		}
		c->out_off += (size_t)n;
	}
	c->out_off = c->out_len = 0;
	return 0;
}

bool
proto_want_write(const struct proto_conn *c)
{
	return c->out_off < c->out_len;
}

size_t
proto_queued(const struct proto_conn *c)
{
	return c->out_len - c->out_off;
}

ssize_t
proto_read(struct proto_conn *c)
{
	size_t avail = c->in_len - c->in_off;
	ssize_t n;

	/* Once a whole maximal frame is buffered, there is a complete frame
	 * (or a bad header) to consume first; reading on would only let a
	 * peer grow our buffer without bound. */
	if (avail >= PROTO_HEADER + PROTO_MAX_FRAME)
		return -ENOBUFS;
	if (c->eof)
		return 0;

	if (c->in_off > 0) {
		memmove(c->in, c->in + c->in_off, avail);
		c->in_off = 0;
		c->in_len = avail;
	}
	if (c->in_cap - c->in_len < PROTO_READ_CHUNK) {
		size_t cap = c->in_cap * 2;

		if (cap < c->in_len + PROTO_READ_CHUNK)
			cap = c->in_len + PROTO_READ_CHUNK;
		c->in = xrealloc(c->in, cap);
		c->in_cap = cap;
	}
	for (;;) {
		if (!c->not_socket)
			n = recv(c->fd, c->in + c->in_len, PROTO_READ_CHUNK,
			    MSG_DONTWAIT);
		else
			n = read(c->fd, c->in + c->in_len, PROTO_READ_CHUNK);
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == ENOTSOCK && !c->not_socket) {
			c->not_socket = true;
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -EAGAIN;
		return -errno;
	}
	if (n == 0)
		c->eof = true;
	c->in_len += (size_t)n;
	return n;
}

ssize_t
proto_read_some(struct proto_conn *c, int rounds)
{
	ssize_t n = -EAGAIN, got = 0;

	for (int i = 0; i < rounds && (n = proto_read(c)) > 0; i++)
		got += n;
	/* A whole maximal frame is in: not an error, the reader's turn. */
	if (n == -ENOBUFS)
		return got > 0 ? got : 1;
	if (n < 0 && n != -EAGAIN)
		return n;
	return got > 0 ? got : n;
}

bool
proto_eof(const struct proto_conn *c)
{
	return c->eof;
}

static int
proto_fail(struct proto_conn *c, int error, char **cause, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
proto_fail(struct proto_conn *c, int error, char **cause, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(c->error_cause);
	c->error_cause = xvasprintf(fmt, ap);
	va_end(ap);
	c->error = error;
	set_cause(cause, "%s", c->error_cause);
	return error;
}

int
proto_next(struct proto_conn *c, json_t **msg, char **cause)
{
	const unsigned char *p;
	size_t avail = c->in_len - c->in_off;
	uint32_t len;
	json_error_t jerr;
	json_t *m;

	if (c->error != 0) {
		set_cause(cause, "%s", c->error_cause);
		return c->error;
	}
	if (avail < PROTO_HEADER) {
		if (c->eof && avail > 0)
			return proto_fail(c, -EPROTO, cause,
			    "truncated frame: connection closed after %zu of "
			    "4 length bytes", avail);
		return 0;
	}
	p = (const unsigned char *)c->in + c->in_off;
	len = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | (uint32_t)p[3];
	if (len == 0)
		return proto_fail(c, -EMSGSIZE, cause, "zero-length frame");
	if (len > PROTO_MAX_FRAME)
		return proto_fail(c, -EMSGSIZE, cause,
		    "frame of %" PRIu32 " bytes exceeds the limit of %u bytes",
		    len, PROTO_MAX_FRAME);
	if (avail - PROTO_HEADER < len) {
		if (c->eof)
			return proto_fail(c, -EPROTO, cause,
			    "truncated frame: connection closed after %zu of "
			    "%" PRIu32 " bytes", avail - PROTO_HEADER, len);
		return 0;
	}

	m = json_loadb((const char *)p + PROTO_HEADER, len,
	    JSON_REJECT_DUPLICATES, &jerr);
	if (m == NULL)
		return proto_fail(c, -EBADMSG, cause,
		    "bad JSON in frame at byte %d: %s", jerr.position,
		    jerr.text);
	if (!json_is_object(m)) {
		json_decref(m);
		return proto_fail(c, -EBADMSG, cause,
		    "frame is not a JSON object");
	}
	if (!json_is_string(json_object_get(m, "type"))) {
		json_decref(m);
		return proto_fail(c, -EBADMSG, cause,
		    "frame has no string \"type\" member");
	}
	c->in_off += PROTO_HEADER + len;
	if (c->in_off == c->in_len)
		c->in_off = c->in_len = 0;
	*msg = m;
	return 1;
}

int
proto_call(struct proto_conn *c, const json_t *msg, const char *reply_type,
    int timeout_ms, json_t **reply, char **cause)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_mono_ms() + timeout_ms;
	int r;

	if ((r = proto_send(c, msg)) < 0) {
		set_cause(cause, "cannot queue a message: %s",
		    strerror(-r));
		return r;
	}
	for (;;) {
		struct pollfd pfd;
		json_t *m = NULL;
		int wait = -1;

		/* The reply may already be buffered from an earlier read. */
		while ((r = proto_next(c, &m, cause)) == 1) {
			const char *type =
			    json_string_value(json_object_get(m, "type"));

			if (strcmp(type, reply_type) == 0) {
				*reply = m;
				return 0;
			}
			json_decref(m);
		}
		if (r < 0)
			return r;
		if (c->eof) {
			set_cause(cause, "connection closed before a "
			    "\"%s\" reply", reply_type);
			return -ECONNRESET;
		}
		r = proto_flush(c);
		if (r < 0 && r != -EAGAIN) {
			set_cause(cause, "cannot send: %s", strerror(-r));
			return r;
		}
		if (deadline >= 0) {
			int64_t left = deadline - now_mono_ms();

			if (left <= 0) {
				set_cause(cause, "no \"%s\" reply within "
				    "%d ms", reply_type, timeout_ms);
				return -ETIMEDOUT;
			}
			wait = left > INT_MAX ? INT_MAX : (int)left;
		}
		pfd.fd = c->fd;
		pfd.events = POLLIN | (proto_want_write(c) ? POLLOUT : 0);
		pfd.revents = 0;
		if (poll(&pfd, 1, wait) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			set_cause(cause, "poll: %s", strerror(errno));
			return r;
		}
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = proto_read(c);

			if (n < 0 && n != -EAGAIN) {
				set_cause(cause, "cannot read: %s",
				    strerror((int)-n));
				return (int)n;
			}
		}
	}
}

json_t *
proto_msg(const char *type)
{
	json_t *m = json_object();

	if (m == NULL || json_object_set_new(m, "type", json_string(type)) < 0)
		fatal("cannot build a \"%s\" message", type);
	return m;
}

char *
proto_b64_encode(const void *buf, size_t len)
{
	char *out;

	if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
		fatal("base64: input of %zu bytes is too large", len);
	out = xmalloc(BASE64_ENCODE_RAW_LENGTH(len) + 1);
	base64_encode_raw(out, len, buf);
	out[BASE64_ENCODE_RAW_LENGTH(len)] = '\0';
	return out;
}

/*
 * Strict RFC 4648 §4: length a multiple of 4, only the alphabet, '=' only
 * as the last one or two characters, and the unused bits before padding
 * zero (so every byte string has exactly one accepted encoding). nettle
 * decodes more leniently (blanks skipped, pad bits ignored): only the
 * alphabet reaches it, and what it decodes must encode back to s.
 */
int
proto_b64_decode(const char *s, void **buf, size_t *len)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/=";
	struct base64_decode_ctx ctx;
	size_t n = strlen(s), got = 0;
	cleanup_free unsigned char *out = NULL;
	cleanup_free char *again = NULL;

	if (n % 4 != 0 || strspn(s, alphabet) != n)
		return -EINVAL;
	out = xmalloc(BASE64_DECODE_LENGTH(n) + 1);
	base64_decode_init(&ctx);
	if (!base64_decode_update(&ctx, &got, out, n, s) ||
	    !base64_decode_final(&ctx))
		return -EINVAL;
	again = proto_b64_encode(out, got);
	if (strcmp(again, s) != 0)
		return -EINVAL;
	out[got] = '\0';
	*len = got;
	*buf = steal_ptr(&out);
	return 0;
}
