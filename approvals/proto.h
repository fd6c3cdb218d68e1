/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The control protocol's framing, between a supervisor and its consoles /
 * CLI verbs, over a unix stream socket. The messages are in
 * approvals/msg.h; the wire format is written down in PROTOCOL.md.
 *
 * Frame: a 4-byte big-endian length N (1 <= N <= PROTO_MAX_FRAME), then N
 * bytes: one JSON object (UTF-8) with a string member "type". Anything else
 * (zero or oversized length, bad JSON, not an object, no type) is a protocol
 * error and the connection is dropped; a frame cut short by EOF is
 * -EPROTO ("truncated frame").
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#define PROTO_VERSION		1
#define PROTO_MAX_FRAME		(1u << 20)
/* A peer that lets this much pile up unsent is dropped (never block). */
#define PROTO_MAX_OUTBUF	(8u << 20)

struct proto_conn;

/* Takes fd (closed by proto_conn_free). fd should be non-blocking for the
 * supervisor; blocking is fine for CLI use. */
struct proto_conn *proto_conn_new(int fd);
void		 proto_conn_free(struct proto_conn *);
int		 proto_conn_fd(const struct proto_conn *);
/* Peer credentials captured at accept/connect (SO_PEERCRED). */
void		 proto_conn_set_peer(struct proto_conn *, uid_t, pid_t);
uid_t		 proto_conn_peer_uid(const struct proto_conn *);
pid_t		 proto_conn_peer_pid(const struct proto_conn *);

/* Queues msg (does not steal the reference); -ENOBUFS past PROTO_MAX_OUTBUF. */
int		 proto_send(struct proto_conn *, const json_t *msg);
/* Writes what the socket takes; 0 when all is out, -EAGAIN when some is
 * left (poll for POLLOUT), other -errno on failure. */
int		 proto_flush(struct proto_conn *);
bool		 proto_want_write(const struct proto_conn *);
/* Bytes queued and not written yet. */
size_t		 proto_queued(const struct proto_conn *);
/* Reads what is available: >0 bytes read, 0 at EOF, -EAGAIN, -errno;
 * -ENOBUFS while a whole maximal frame waits for proto_next. */
ssize_t		 proto_read(struct proto_conn *);
/* Up to rounds reads, for a poll loop that takes the messages after: >0
 * when bytes came or the buffer is full (take them, then read again), 0 at
 * EOF, -EAGAIN when nothing came, -errno (never -ENOBUFS). */
ssize_t		 proto_read_some(struct proto_conn *, int rounds);
/* Next complete message: 1 and *msg (new reference), 0 if none yet,
 * -EBADMSG / -EMSGSIZE on a bad frame (with *cause). After EOF with a
 * partial frame buffered, -EPROTO ("truncated frame"). */
int		 proto_next(struct proto_conn *, json_t **msg, char **cause);
bool		 proto_eof(const struct proto_conn *);

/* Blocking helpers for the CLI: send msg and wait up to timeout_ms for the
 * first reply whose "type" is reply_type; 0 and *reply, or -errno/cause. */
int		 proto_call(struct proto_conn *, const json_t *msg,
		    const char *reply_type, int timeout_ms, json_t **reply,
		    char **cause);

/* Encode / decode a frame by hand, for tests and the blocking helpers. */
int		 proto_frame(const json_t *msg, char **buf, size_t *len);

/* Output bytes travel as base64 (output is arbitrary bytes, JSON is UTF-8). */
char		*proto_b64_encode(const void *, size_t);
int		 proto_b64_decode(const char *, void **buf, size_t *len);

/* {"type":type}, a new reference; the messages themselves are built by
 * approvals/msg.h. */
json_t		*proto_msg(const char *type);
