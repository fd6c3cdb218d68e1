/* SPDX-License-Identifier: MIT */
/*
 * approvals/proto.c: the control protocol's frames, as a peer on the
 * other end of the socket sends them. The input's first byte picks how
 * the rest is cut into writes (1..31 bytes, from 32 up 16 times the
 * byte, 0: all at once), so a frame arrives whole, split in its header,
 * or byte by byte; then the peer closes. Properties:
 *   - proto_next gives exactly the frames a second reading of the bytes
 *     finds (fuzz_expect: length, limits, jansson), then the error that
 *     reading predicts, whatever the cut;
 *   - errors are sticky: once proto_next fails, every later call fails
 *     with the same code and the same cause, and gives no message;
 *   - every message is an object with a string "type", and proto_frame()
 *     of it, read back through a second connection, is json_equal to it.
 */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "approvals/proto.h"

struct fuzz_got {
	json_t	**msgs;
	size_t	  n;
	int	  error;	/* the first proto_next error, or 0 */
	char	 *cause;
};

static void
fuzz_got_done(struct fuzz_got *g)
{
	for (size_t i = 0; i < g->n; i++)
		json_decref(g->msgs[i]);
	free(g->msgs);
	free(g->cause);
}

/* Take every message there is now; after an error, check it sticks. */
static void
fuzz_drain(struct proto_conn *c, struct fuzz_got *g)
{
	for (;;) {
		json_t *m = NULL;
		char *cause = NULL;
		int r = proto_next(c, &m, &cause);

		if (g->error != 0) {
			fuzz_check(r == g->error && m == NULL);
			fuzz_check(cause != NULL && strcmp(cause, g->cause) == 0);
			free(cause);
			return;
		}
		if (r == 0) {
			fuzz_check(m == NULL);
			free(cause);
			return;
		}
		if (r < 0) {
			fuzz_check(r == -EBADMSG || r == -EMSGSIZE || r == -EPROTO);
			fuzz_check(m == NULL && cause != NULL);
			g->error = r;
			g->cause = cause;
			continue;	/* and once more: it must stick */
		}
		fuzz_check(r == 1 && json_is_object(m));
		fuzz_check(json_is_string(json_object_get(m, "type")));
		g->msgs = realloc(g->msgs, (g->n + 1) * sizeof *g->msgs);
		fuzz_check(g->msgs != NULL);
		g->msgs[g->n++] = m;
		free(cause);
	}
}

/* Write buf in pieces of chunk bytes (0: all) into one end of a socket
 * pair, reading and draining the other end as it goes, then close. */
static void
fuzz_feed(const uint8_t *buf, size_t len, size_t chunk, struct fuzz_got *g)
{
	struct proto_conn *c;
	size_t off = 0;
	int sv[2];

	fuzz_check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	fuzz_check(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
	c = proto_conn_new(sv[0]);
	if (chunk == 0)
		chunk = len;
	for (;;) {
		ssize_t n = 0, r;

		if (off < len) {
			n = write(sv[1], buf + off,
			    len - off < chunk ? len - off : chunk);
			fuzz_check(n > 0 || (n < 0 && errno == EAGAIN));
			if (n > 0)
				off += (size_t)n;
		}
		if (off == len && sv[1] >= 0) {
			close(sv[1]);
			sv[1] = -1;
		}
		while ((r = proto_read(c)) > 0)
			;
		fuzz_check(r == 0 || r == -EAGAIN);
		fuzz_drain(c, g);
		if (r == 0)
			break;
	}
	fuzz_check(proto_eof(c));
	fuzz_drain(c, g);	/* sticky after EOF too */
	proto_conn_free(c);
}

/* The same bytes read a second way: how many frames, then which error. */
static size_t
fuzz_expect(const uint8_t *buf, size_t len, int *error)
{
	size_t pos = 0, n = 0;

	*error = 0;
	while (pos < len) {
		const uint8_t *p = buf + pos;
		uint32_t flen;
		json_t *m;
		bool ok;

		if (len - pos < 4) {
			*error = -EPROTO;
			break;
		}
		flen = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		    (uint32_t)p[2] << 8 | p[3];
		if (flen == 0 || flen > PROTO_MAX_FRAME) {
			*error = -EMSGSIZE;
			break;
		}
		if (len - pos - 4 < flen) {
			*error = -EPROTO;
			break;
		}
		m = json_loadb((const char *)p + 4, flen, JSON_REJECT_DUPLICATES,
		    NULL);
		ok = json_is_object(m) &&
		    json_is_string(json_object_get(m, "type"));
		json_decref(m);
		if (!ok) {
			*error = -EBADMSG;
			break;
		}
		n++;
		pos += 4 + flen;
	}
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_got got = { 0 }, again = { 0 };
	char *re = NULL;
	size_t re_len = 0, want;
	int want_error;

	if (size < 1)
		return 0;
	fuzz_feed(data + 1, size - 1, data[0] < 32 ? data[0] : 16u * data[0],
	    &got);
	want = fuzz_expect(data + 1, size - 1, &want_error);
	fuzz_check(got.n == want && got.error == want_error);

	for (size_t i = 0; i < got.n; i++) {
		char *f = NULL;
		size_t flen = 0;

		fuzz_check(proto_frame(got.msgs[i], &f, &flen) == 0);
		re = realloc(re, re_len + flen);
		fuzz_check(re != NULL);
		memcpy(re + re_len, f, flen);
		re_len += flen;
		free(f);
	}
	fuzz_feed((const uint8_t *)re, re_len, 0, &again);
	fuzz_check(again.n == got.n && again.error == 0);
	for (size_t i = 0; i < got.n; i++)
		fuzz_check(json_equal(got.msgs[i], again.msgs[i]));
	free(re);
	fuzz_got_done(&again);
	fuzz_got_done(&got);
	return 0;
}
