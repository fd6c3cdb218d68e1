/* SPDX-License-Identifier: MIT */
/* approvals/proto.c: framing, validation, buffering, base64, proto_call. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "approvals/proto.h"
#include "config/util.h"

struct pair {
	int			 peer;	/* the raw other end */
	struct proto_conn	*conn;	/* our end */
};

static int
pair_setup(void **state)
{
	struct pair *p = xcalloc(1, sizeof *p);
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	p->conn = proto_conn_new(sv[0]);
	p->peer = sv[1];
	*state = p;
	return 0;
}

static int
pair_teardown(void **state)
{
	struct pair *p = *state;

	proto_conn_free(p->conn);
	if (p->peer >= 0)
		close(p->peer);
	free(p);
	return 0;
}

static void
peer_write(int fd, const void *buf, size_t len)
{
	assert_int_equal(write_all(fd, buf, len), 0);
}

static void
peer_write_frame_raw(int fd, const char *body, size_t len)
{
	unsigned char h[4] = {
		(unsigned char)(len >> 24), (unsigned char)(len >> 16),
		(unsigned char)(len >> 8), (unsigned char)len,
	};

	peer_write(fd, h, 4);
	peer_write(fd, body, len);
}

/* Writes a frame too big for the socket buffer, reading our end as it
 * goes (without parsing, as a poll loop would between reads). */
static void
feed_frame(struct pair *p, const char *body, size_t len)
{
	unsigned char *f = xmalloc(len + 4);
	size_t off = 0;

	f[0] = (unsigned char)(len >> 24);
	f[1] = (unsigned char)(len >> 16);
	f[2] = (unsigned char)(len >> 8);
	f[3] = (unsigned char)len;
	memcpy(f + 4, body, len);
	assert_int_equal(fcntl(p->peer, F_SETFL, O_NONBLOCK), 0);
	while (off < len + 4) {
		ssize_t n = write(p->peer, f + off, len + 4 - off);

		if (n > 0)
			off += (size_t)n;
		else {
			ssize_t r;

			assert_true(n < 0 && errno == EAGAIN);
			r = proto_read(p->conn);
			assert_true(r > 0 || r == -EAGAIN);
		}
	}
	free(f);
}

/* Reads everything the peer has written so far. */
static void
drain(struct proto_conn *c)
{
	ssize_t n;

	while ((n = proto_read(c)) > 0)
		;
	assert_true(n == -EAGAIN || n == 0);
}

/* Expects exactly one error from proto_next, with a cause containing want. */
static void
expect_bad(struct proto_conn *c, int error, const char *want)
{
	json_t *m = NULL;
	char *cause = NULL;

	drain(c);
	assert_int_equal(proto_next(c, &m, &cause), error);
	assert_null(m);
	assert_non_null(cause);
	if (strstr(cause, want) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\"", cause, want);
	free(cause);
	/* Sticky: the stream cannot be resynced. */
	cause = NULL;
	assert_int_equal(proto_next(c, &m, &cause), error);
	assert_non_null(cause);
	free(cause);
}

static json_t *
msgs_new(void)
{
	json_t *a = json_array();
	json_t *m;

	m = proto_msg("hello");
	json_object_set_new(m, "version", json_integer(PROTO_VERSION));
	json_object_set_new(m, "client", json_string("cli"));
	json_object_set_new(m, "watch", json_false());
	json_array_append_new(a, m);

	m = proto_msg("output");
	json_object_set_new(m, "stream", json_string("pty"));
	json_object_set_new(m, "data", json_string("aGVsbG8K"));
	json_array_append_new(a, m);

	m = proto_msg("resolved");
	json_object_set_new(m, "request", json_integer(3));
	json_object_set_new(m, "by", json_string("caf\u00e9 \xe2\x80\xae <x>"));
	json_array_append_new(a, m);

	json_array_append_new(a, proto_msg("k"));
	return a;
}

/* All messages, framed back to back. */
static char *
stream_of(json_t *msgs, size_t *len)
{
	char *all = NULL;
	size_t n = 0, i;
	json_t *m;

	json_array_foreach(msgs, i, m) {
		char *f;
		size_t flen;

		assert_int_equal(proto_frame(m, &f, &flen), 0);
		all = xrealloc(all, n + flen);
		memcpy(all + n, f, flen);
		n += flen;
		free(f);
	}
	*len = n;
	return all;
}

static void
collect(struct proto_conn *c, json_t *got)
{
	json_t *m = NULL;
	char *cause = NULL;
	int r;

	drain(c);
	while ((r = proto_next(c, &m, &cause)) == 1)
		json_array_append_new(got, m);
	assert_int_equal(r, 0);
	assert_null(cause);
}

/* Every split of the stream into two writes yields the same messages. */
static void
test_split_every_byte(void **state)
{
	(void)state;
	json_t *msgs = msgs_new();
	size_t len;
	char *all = stream_of(msgs, &len);

	for (size_t k = 0; k <= len; k++) {
		void *ps;
		struct pair *p;
		json_t *got = json_array();

		pair_setup(&ps);
		p = ps;
		peer_write(p->peer, all, k);
		collect(p->conn, got);
		peer_write(p->peer, all + k, len - k);
		collect(p->conn, got);
		if (!json_equal(got, msgs))
			fail_msg("split at byte %zu of %zu changed the messages",
			    k, len);
		/* Clean EOF between frames is not an error. */
		close(p->peer);
		p->peer = -1;
		collect(p->conn, got);
		assert_true(proto_eof(p->conn));
		json_decref(got);
		pair_teardown(&ps);
	}
	free(all);
	json_decref(msgs);
}

/* Byte by byte, with proto_next called after every byte. */
static void
test_byte_by_byte(void **state)
{
	struct pair *p = *state;
	json_t *msgs = msgs_new();
	json_t *got = json_array();
	size_t len;
	char *all = stream_of(msgs, &len);

	for (size_t k = 0; k < len; k++) {
		peer_write(p->peer, all + k, 1);
		collect(p->conn, got);
	}
	assert_true(json_equal(got, msgs));
	free(all);
	json_decref(got);
	json_decref(msgs);
}

/* proto_send + proto_flush on one conn, proto_next on the other. */
static void
test_send_flush_roundtrip(void **state)
{
	struct pair *p = *state;
	struct proto_conn *other = proto_conn_new(p->peer);
	json_t *msgs = msgs_new();
	json_t *got = json_array();
	size_t i;
	json_t *m;

	p->peer = -1;
	json_array_foreach(msgs, i, m)
		assert_int_equal(proto_send(other, m), 0);
	assert_true(proto_want_write(other));
	assert_int_equal(proto_flush(other), 0);
	assert_false(proto_want_write(other));
	collect(p->conn, got);
	assert_true(json_equal(got, msgs));
	json_decref(got);
	json_decref(msgs);
	proto_conn_free(other);
}

/* A frame far bigger than the socket buffer goes out in pieces. */
static void
test_flush_partial(void **state)
{
	struct pair *p = *state;
	struct proto_conn *other;
	int small = 4096, sv[2];
	size_t big = PROTO_MAX_FRAME - 64;
	char *data = xmalloc(big + 1);
	json_t *m = proto_msg("output"), *got = NULL;
	char *cause = NULL;
	int r, rounds = 0;

	memset(data, 'x', big);
	data[big] = '\0';
	json_object_set_new(m, "data", json_string(data));

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
	/* A blocking fd: proto_flush must still not block. */
	other = proto_conn_new(sv[0]);
	proto_conn_free(p->conn);
	assert_int_equal(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
	p->conn = proto_conn_new(sv[1]);

	assert_int_equal(proto_send(other, m), 0);
	while ((r = proto_flush(other)) == -EAGAIN) {
		assert_true(proto_want_write(other));
		drain(p->conn);
		rounds++;
	}
	assert_int_equal(r, 0);
	assert_true(rounds > 0);
	drain(p->conn);
	assert_int_equal(proto_next(p->conn, &got, &cause), 1);
	assert_true(json_equal(got, m));
	json_decref(got);
	json_decref(m);
	free(data);
	proto_conn_free(other);
}

static void
test_oversize(void **state)
{
	struct pair *p = *state;
	unsigned char h[4] = { 0x00, 0x10, 0x00, 0x01 };	/* 1 MiB + 1 */

	peer_write(p->peer, h, 4);
	expect_bad(p->conn, -EMSGSIZE, "1048577");
}

static void
test_exact_limit(void **state)
{
	struct pair *p = *state;
	size_t len = PROTO_MAX_FRAME;
	char *body = xmalloc(len);
	json_t *m = NULL;
	char *cause = NULL;
	int r;

	memset(body, 'a', len);
	memcpy(body, "{\"type\":\"x\",\"d\":\"", 17);
	memcpy(body + len - 2, "\"}", 2);
	feed_frame(p, body, len);
	free(body);
	close(p->peer);
	p->peer = -1;
	while ((r = proto_next(p->conn, &m, &cause)) == 0) {
		ssize_t n = proto_read(p->conn);

		assert_true(n > 0 || n == -EAGAIN);
	}
	assert_int_equal(r, 1);
	assert_string_equal(json_string_value(json_object_get(m, "type")), "x");
	assert_int_equal(strlen(json_string_value(json_object_get(m, "d"))),
	    len - 19);
	json_decref(m);
	/* Then a clean EOF. */
	drain(p->conn);
	assert_int_equal(proto_next(p->conn, &m, &cause), 0);
	assert_true(proto_eof(p->conn));
}

/*
 * A reader that reads many rounds before it takes the messages (the
 * consoles' poll loops) fills its buffer with a maximal frame and more:
 * proto_read says -ENOBUFS then, and that is the reader's turn, not the
 * peer's fault. proto_read_some says so with >0; the frames all come.
 */
static void
test_read_some_full(void **state)
{
	struct pair *p = *state;
	size_t len = PROTO_MAX_FRAME - 64;
	char *body = xmalloc(len);
	unsigned char h[4] = {
		(unsigned char)(len >> 24), (unsigned char)(len >> 16),
		(unsigned char)(len >> 8), (unsigned char)len,
	};
	int got = 0, r;
	pid_t pid;

	memset(body, 'a', len);
	memcpy(body, "{\"type\":\"x\",\"d\":\"", 17);
	memcpy(body + len - 2, "\"}", 2);
	/* Three frames from another process, blocking as a supervisor's
	 * socket drains; then EOF. */
	if ((pid = fork()) == 0) {
		/* Not our end too: its writes would never end. */
		close(proto_conn_fd(p->conn));
		for (int i = 0; i < 3; i++)
			if (write_all(p->peer, h, 4) < 0 ||
			    write_all(p->peer, body, len) < 0)
				_exit(1);
		_exit(0);
	}
	assert_true(pid > 0);
	close(p->peer);
	p->peer = -1;
	free(body);
	/* Read and do not take, until a whole frame and more is in. */
	while (proto_read(p->conn) != -ENOBUFS) {
		struct pollfd pfd = { .fd = proto_conn_fd(p->conn),
		    .events = POLLIN };
		ssize_t n;

		assert_true(poll(&pfd, 1, 10000) == 1);
		n = proto_read_some(p->conn, 64);
		assert_true(n > 0 || n == -EAGAIN);
	}
	/* Full: the reader's turn, said as more to take. */
	assert_true(proto_read_some(p->conn, 64) > 0);
	assert_true(proto_read_some(p->conn, 1) > 0);
	for (;;) {
		struct pollfd pfd = { .fd = proto_conn_fd(p->conn),
		    .events = POLLIN };
		json_t *m = NULL;
		char *cause = NULL;
		ssize_t n;

		while ((r = proto_next(p->conn, &m, &cause)) == 1) {
			assert_string_equal(json_string_value(json_object_get(m,
			    "type")), "x");
			json_decref(m);
			got++;
		}
		assert_int_equal(r, 0);
		if (proto_eof(p->conn))
			break;
		assert_true(poll(&pfd, 1, 10000) == 1);
		n = proto_read_some(p->conn, 64);
		assert_true(n >= 0 || n == -EAGAIN);
	}
	assert_int_equal(got, 3);
	assert_int_equal(waitpid(pid, &r, 0), pid);
	assert_true(WIFEXITED(r) && WEXITSTATUS(r) == 0);
}

static void
test_zero_length(void **state)
{
	struct pair *p = *state;

	peer_write(p->peer, "\0\0\0\0", 4);
	expect_bad(p->conn, -EMSGSIZE, "zero-length");
}

static void
test_bad_json(void **state)
{
	struct pair *p = *state;

	peer_write_frame_raw(p->peer, "{\"type\":", 8);
	expect_bad(p->conn, -EBADMSG, "bad JSON");
}

static void
test_trailing_garbage(void **state)
{
	struct pair *p = *state;
	const char *s = "{\"type\":\"a\"} x";

	peer_write_frame_raw(p->peer, s, strlen(s));
	expect_bad(p->conn, -EBADMSG, "bad JSON");
}

static void
test_bad_utf8(void **state)
{
	struct pair *p = *state;
	const char *s = "{\"type\":\"\xff\"}";

	peer_write_frame_raw(p->peer, s, strlen(s));
	expect_bad(p->conn, -EBADMSG, "bad JSON");
}

static void
test_not_object(void **state)
{
	struct pair *p = *state;

	peer_write_frame_raw(p->peer, "[1,2]", 5);
	expect_bad(p->conn, -EBADMSG, "not a JSON object");
}

static void
test_missing_type(void **state)
{
	struct pair *p = *state;

	peer_write_frame_raw(p->peer, "{\"a\":1}", 7);
	expect_bad(p->conn, -EBADMSG, "\"type\"");
}

static void
test_type_not_string(void **state)
{
	struct pair *p = *state;

	peer_write_frame_raw(p->peer, "{\"type\":3}", 10);
	expect_bad(p->conn, -EBADMSG, "\"type\"");
}

/* A good frame before the bad one is still delivered. */
static void
test_good_then_bad(void **state)
{
	struct pair *p = *state;
	json_t *m = NULL;
	char *cause = NULL;

	peer_write_frame_raw(p->peer, "{\"type\":\"a\"}", 12);
	peer_write_frame_raw(p->peer, "nope", 4);
	drain(p->conn);
	assert_int_equal(proto_next(p->conn, &m, &cause), 1);
	json_decref(m);
	assert_int_equal(proto_next(p->conn, &m, &cause), -EBADMSG);
	free(cause);
}

static void
test_truncated_body(void **state)
{
	struct pair *p = *state;

	peer_write(p->peer, "\0\0\0\x0c{\"type\"", 11);
	shutdown(p->peer, SHUT_WR);
	expect_bad(p->conn, -EPROTO, "truncated frame");
}

static void
test_truncated_header(void **state)
{
	struct pair *p = *state;
	json_t *m = NULL;
	char *cause = NULL;

	peer_write(p->peer, "\0\0", 2);
	drain(p->conn);
	/* Not yet EOF: just incomplete. */
	assert_int_equal(proto_next(p->conn, &m, &cause), 0);
	close(p->peer);
	p->peer = -1;
	expect_bad(p->conn, -EPROTO, "truncated frame");
}

static void
test_outbuf_limit(void **state)
{
	struct pair *p = *state;
	size_t big = PROTO_MAX_FRAME / 2;
	char *data = xmalloc(big + 1);
	json_t *m = proto_msg("output");
	int r, sent = 0;

	memset(data, 'y', big);
	data[big] = '\0';
	json_object_set_new(m, "data", json_string(data));
	/* Nobody reads and nobody flushes: the queue fills up. */
	while ((r = proto_send(p->conn, m)) == 0)
		sent++;
	assert_int_equal(r, -ENOBUFS);
	assert_true((size_t)sent * big <= PROTO_MAX_OUTBUF);
	assert_true((size_t)(sent + 1) * big > PROTO_MAX_OUTBUF - 4096);
	/* Still refuses: nothing went out. */
	assert_int_equal(proto_send(p->conn, m), -ENOBUFS);
	json_decref(m);
	free(data);
}

static void
test_send_too_big(void **state)
{
	struct pair *p = *state;
	char *data = xmalloc(PROTO_MAX_FRAME + 1);
	json_t *m = proto_msg("output");

	memset(data, 'z', PROTO_MAX_FRAME);
	data[PROTO_MAX_FRAME] = '\0';
	json_object_set_new(m, "data", json_string(data));
	assert_int_equal(proto_send(p->conn, m), -EMSGSIZE);
	assert_false(proto_want_write(p->conn));
	json_decref(m);
	free(data);
}

static void
test_send_not_message(void **state)
{
	struct pair *p = *state;
	json_t *a = json_array();
	json_t *o = json_object();
	char *buf = NULL;
	size_t len;

	assert_int_equal(proto_send(p->conn, a), -EINVAL);
	assert_int_equal(proto_send(p->conn, o), -EINVAL);
	assert_int_equal(proto_frame(o, &buf, &len), -EINVAL);
	assert_null(buf);
	json_decref(a);
	json_decref(o);
}

static void
test_peer(void **state)
{
	struct pair *p = *state;

	assert_int_equal(proto_conn_peer_uid(p->conn), (uid_t)-1);
	proto_conn_set_peer(p->conn, 1000, 42);
	assert_int_equal(proto_conn_peer_uid(p->conn), 1000);
	assert_int_equal(proto_conn_peer_pid(p->conn), 42);
	assert_true(proto_conn_fd(p->conn) >= 0);
}

/* RFC 4648 §10 test vectors. */
static void
test_b64_vectors(void **state)
{
	static const char *const v[][2] = {
		{ "", "" },
		{ "f", "Zg==" },
		{ "fo", "Zm8=" },
		{ "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		char *e = proto_b64_encode(v[i][0], strlen(v[i][0]));
		void *d = NULL;
		size_t len;

		assert_string_equal(e, v[i][1]);
		assert_int_equal(proto_b64_decode(v[i][1], &d, &len), 0);
		assert_int_equal(len, strlen(v[i][0]));
		assert_memory_equal(d, v[i][0], len);
		free(e);
		free(d);
	}
}

static void
test_b64_binary(void **state)
{
	unsigned char all[256];
	(void)state;

	for (size_t i = 0; i < sizeof all; i++)
		all[i] = (unsigned char)(255 - i);
	for (size_t n = 0; n <= sizeof all; n++) {
		char *e = proto_b64_encode(all, n);
		void *d = NULL;
		size_t len;

		assert_int_equal(strlen(e), (n + 2) / 3 * 4);
		assert_int_equal(proto_b64_decode(e, &d, &len), 0);
		assert_int_equal(len, n);
		assert_memory_equal(d, all, n);
		free(e);
		free(d);
	}
}

static void
test_b64_reject(void **state)
{
	static const char *const bad[] = {
		"Z", "Zg", "Zg=", "Zm9", "Zm9vY",	/* length */
		"Zm9v!A==", "Zm 9", "Zm9v\n", "Zm-_",	/* alphabet */
		"Z===", "====", "=Zg=", "Zm=v", "Zg==Zg==",	/* padding */
		"Zh==", "Zm9=",				/* non-zero pad bits */
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		void *d = NULL;
		size_t len = 99;

		if (proto_b64_decode(bad[i], &d, &len) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_null(d);
	}
}

/* The hand-written encoder nettle's replaced, kept here as the
 * reference: the bytes on the wire must stay the same. */
static void
b64_reference(const unsigned char *p, size_t len, char *o)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 3 <= len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 |
		    p[i + 2];

		*o++ = a[v >> 18 & 63];
		*o++ = a[v >> 12 & 63];
		*o++ = a[v >> 6 & 63];
		*o++ = a[v & 63];
	}
	if (len - i >= 1) {
		uint32_t v = (uint32_t)p[i] << 16 |
		    (len - i == 2 ? (uint32_t)p[i + 1] << 8 : 0);

		*o++ = a[v >> 18 & 63];
		*o++ = a[v >> 12 & 63];
		*o++ = len - i == 2 ? a[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
}

/* Padding's edges: every 1- and 2-byte string (one and two '='), a
 * third byte on each (none), as the reference encodes them and back;
 * and every other character where the pad bits must be zero. */
static void
test_b64_padding(void **state)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char in[3];
	char want[8], bad[5];
	(void)state;

	for (unsigned v = 0; v < 65536; v++) {
		in[0] = (unsigned char)(v >> 8);
		in[1] = (unsigned char)v;
		in[2] = (unsigned char)(v * 7);
		for (size_t n = v < 256 ? 1 : 2; n <= 3; n++) {
			char *e = proto_b64_encode(in, n);
			void *d = NULL;
			size_t len = 0;

			b64_reference(in, n, want);
			assert_string_equal(e, want);
			assert_int_equal(proto_b64_decode(e, &d, &len), 0);
			assert_int_equal(len, n);
			assert_memory_equal(d, in, n);
			free(e);
			free(d);
		}
	}
	/* "X?==": the second character's low 4 bits are padding; "XY?=":
	 * the third's low 2. */
	for (size_t i = 0; i < 64; i++) {
		void *d = NULL;
		size_t len;

		snprintf(bad, sizeof bad, "Q%c==", a[i]);
		assert_int_equal(proto_b64_decode(bad, &d, &len),
		    (i & 15) == 0 ? 0 : -EINVAL);
		free(d);
		d = NULL;
		snprintf(bad, sizeof bad, "QU%c=", a[i]);
		assert_int_equal(proto_b64_decode(bad, &d, &len),
		    (i & 3) == 0 ? 0 : -EINVAL);
		free(d);
	}
}

static void
test_call_timeout(void **state)
{
	struct pair *p = *state;
	json_t *hello = proto_msg("hello"), *reply = NULL;
	char *cause = NULL;
	int64_t t0 = now_mono_ms(), dt;

	assert_int_equal(proto_call(p->conn, hello, "welcome", 150, &reply,
	    &cause), -ETIMEDOUT);
	dt = now_mono_ms() - t0;
	assert_true(dt >= 150 && dt < 2000);
	assert_null(reply);
	assert_non_null(strstr(cause, "welcome"));
	free(cause);
	json_decref(hello);
}

/* Replies of other types are skipped; the hello was really sent. */
static void
test_call_skips(void **state)
{
	struct pair *p = *state;
	json_t *hello = proto_msg("hello"), *reply = NULL, *m = NULL;
	struct proto_conn *peer = proto_conn_new(p->peer);
	char *cause = NULL;

	p->peer = -1;
	peer_write_frame_raw(proto_conn_fd(peer), "{\"type\":\"output\"}", 17);
	peer_write_frame_raw(proto_conn_fd(peer),
	    "{\"type\":\"welcome\",\"n\":7}", 24);
	peer_write_frame_raw(proto_conn_fd(peer), "{\"type\":\"state\"}", 16);
	assert_int_equal(proto_call(p->conn, hello, "welcome", 2000, &reply,
	    &cause), 0);
	assert_int_equal(json_integer_value(json_object_get(reply, "n")), 7);
	json_decref(reply);
	/* The later message stays buffered for the caller. */
	assert_int_equal(proto_next(p->conn, &m, &cause), 1);
	assert_string_equal(json_string_value(json_object_get(m, "type")),
	    "state");
	json_decref(m);
	assert_null(cause);

	drain(peer);
	assert_int_equal(proto_next(peer, &m, &cause), 1);
	assert_true(json_equal(m, hello));
	json_decref(m);
	json_decref(hello);
	proto_conn_free(peer);
}

static void
test_call_eof(void **state)
{
	struct pair *p = *state;
	json_t *hello = proto_msg("hello"), *reply = NULL;
	char *cause = NULL;

	peer_write_frame_raw(p->peer, "{\"type\":\"output\"}", 17);
	shutdown(p->peer, SHUT_WR);
	assert_int_equal(proto_call(p->conn, hello, "welcome", 2000, &reply,
	    &cause), -ECONNRESET);
	assert_non_null(strstr(cause, "closed"));
	free(cause);
	json_decref(hello);
}

static void
test_call_bad_frame(void **state)
{
	struct pair *p = *state;
	json_t *hello = proto_msg("hello"), *reply = NULL;
	char *cause = NULL;

	peer_write_frame_raw(p->peer, "[]", 2);
	assert_int_equal(proto_call(p->conn, hello, "welcome", 2000, &reply,
	    &cause), -EBADMSG);
	assert_non_null(strstr(cause, "not a JSON object"));
	free(cause);
	json_decref(hello);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_every_byte),
		cmocka_unit_test_setup_teardown(test_byte_by_byte, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_send_flush_roundtrip,
		    pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_flush_partial, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_oversize, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_exact_limit, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_read_some_full, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_zero_length, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_bad_json, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_trailing_garbage,
		    pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_bad_utf8, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_not_object, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_missing_type, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_type_not_string,
		    pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_good_then_bad, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_truncated_body,
		    pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_truncated_header,
		    pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_outbuf_limit, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_send_too_big, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_send_not_message,
		    pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_peer, pair_setup,
		    pair_teardown),
		cmocka_unit_test(test_b64_vectors),
		cmocka_unit_test(test_b64_binary),
		cmocka_unit_test(test_b64_reject),
		cmocka_unit_test(test_b64_padding),
		cmocka_unit_test_setup_teardown(test_call_timeout, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_call_skips, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_call_eof, pair_setup,
		    pair_teardown),
		cmocka_unit_test_setup_teardown(test_call_bad_frame,
		    pair_setup, pair_teardown),
	};

	return cmocka_run_group_tests_name("proto", tests, NULL, NULL);
}
