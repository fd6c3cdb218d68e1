/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The wire between the supervisor and ward-gate (issue 19), the helper
 * process that terminates TLS for intercepted hosts, swaps phantoms for
 * secrets and filters HTTP by method and path. It holds the run CA's key
 * and the secrets' values; it has no notify fd, no record, no way to make
 * a connection of its own (the supervisor connects and hands it both
 * ends).
 *
 * One SOCK_SEQPACKET socketpair, made by the supervisor; the gate's end
 * is its fd 3 (GATE_WIRE_FD). Every message is one struct gate_msg (a
 * short or oversized datagram is a protocol error: the reader closes the
 * wire, the gate exits, the supervisor refuses every later intercepted
 * connect). Strings are NUL-terminated inside their arrays; a field too
 * long for its array is cut on a UTF-8 boundary and ends in "...".
 *
 * Start-up, gate -> supervisor, before the sandbox exists:
 *   GATE_PHANTOM x n_secrets   name = the variable, text = its phantom
 *   GATE_READY                 path = the CA certificate (PEM) the gate
 *                              wrote: RUNDIR/gate/ca.pem; text = the
 *                              bundle for the sandbox (the host's CAs
 *                              and this one): RUNDIR/gate/bundle.pem
 *   or GATE_FAIL               text = why, naming file/line/secret:
 *                              "[secret X] from = env:X: not set"
 * Then, any order:
 *   GATE_CONN    sup -> gate   conn, host (the name the policy judged,
 *                              else the address), port; SCM_RIGHTS with
 *                              two fds: [0] the gate's end of a loopback
 *                              TCP pair whose other end the sandbox got,
 *                              [1] the supervisor's connection to the
 *                              real host (connected, or still connecting:
 *                              non-blocking, the gate waits for POLLOUT)
 *   GATE_ASK     gate -> sup   conn, req, method, host, port, path, rule
 *                              (the allow lines of that host, "; "-joined):
 *                              park a request of kind "http" for the
 *                              person; the request waits (reading from
 *                              the client stops) until
 *   GATE_ANSWER  sup -> gate   req, verdict (GATE_ALLOW / GATE_DENY; a
 *                              deny is answered with a 403)
 *   GATE_HTTP    gate -> sup   one request done (its response ended, or
 *                              it was refused): conn, method, host, port,
 *                              path, status (0 = no response), bytes_up,
 *                              bytes_down, verdict, rule (the rule that
 *                              allowed it or ""), name (the secret put in,
 *                              or ""), text (why, when refused)
 *   GATE_SECRET  gate -> sup   a phantom where it may not go: name (the
 *                              secret), host, port, method, path, text
 *                              (where: "header authorization", "url",
 *                              "body", "sni"); the request is refused
 *   GATE_REFRESH gate -> sup   a login's tokens renewed by its token
 *                              endpoint's reply (login.h): name (the
 *                              secret), host, port, path, text (what was
 *                              renewed, and written where; never a value)
 *   GATE_ERROR   gate -> sup   a connection ended in error: conn, host,
 *                              port, text ("upstream certificate: ...",
 *                              "TLS handshake: ...", "SNI other.test is
 *                              not api.test")
 * Closing the wire ends the gate (the supervisor's exit does).
 */
#include <stddef.h>
#include <stdint.h>

#define GATE_WIRE_FD	3
#define GATE_MAX_FDS	2	/* a GATE_CONN's: the gate's end, the host's */

enum gate_type {
	GATE_PHANTOM = 1,
	GATE_READY,
	GATE_FAIL,
	GATE_CONN,
	GATE_ASK,
	GATE_ANSWER,
	GATE_HTTP,
	GATE_SECRET,
	GATE_ERROR,
	GATE_REFRESH,
};

/* A login file's copy for the sandbox, in the run's folder (login.h):
 * made empty by the supervisor, written by the gate, bound over the
 * file's path inside. %s: the [secret]'s NAME. */
#define GATE_LOGIN_FILE	"login-%s.json"

enum gate_verdict {
	GATE_ALLOW = 1,		/* by a rule, a secret's host, or a person */
	GATE_DENY,		/* by the policy ([network] http = deny) */
	GATE_DENY_PERSON,	/* a person said no, or the ask timed out */
	GATE_DENY_SECRET,	/* a phantom where it may not go */
};

struct gate_msg {
	uint32_t	type;		/* enum gate_type */
	uint32_t	verdict;	/* enum gate_verdict */
	uint64_t	conn;		/* the supervisor's number for it */
	uint64_t	req;		/* the gate's number for a request */
	uint32_t	port;
	uint32_t	status;		/* HTTP status, 0 = none */
	uint64_t	bytes_up;	/* request bytes, headers and body */
	uint64_t	bytes_down;	/* response bytes, headers and body */
	char		method[16];
	char		host[256];
	char		name[64];	/* a secret's name */
	char		path[1024];
	char		rule[512];
	char		text[512];
};

/*
 * The codec (supervisor/gate/wire.c), the same at both ends.
 * gate_msg_set: copy s (NULL = "") into a field of cap bytes,
 * NUL-terminated; too long, cut on a UTF-8 boundary, ending in "...".
 */
void	gate_msg_set(char *field, size_t cap, const char *s);
#define GATE_MSG_SET(field, s) gate_msg_set((field), sizeof(field), (s))
/* Send m with n_fds fds (0..GATE_MAX_FDS, else -EINVAL): 0 or -errno;
 * on a non-blocking wire -EAGAIN when it is full. */
int	gate_msg_send(int wire, const struct gate_msg *m, const int *fds,
	    size_t n_fds);
/*
 * Receive one message, never waiting: 0 with *m and its fds (*n_fds of
 * them in fds[0..], each close-on-exec and the caller's; the rest of
 * fds[0..max_fds) -1); -EAGAIN: nothing yet; -EPIPE: the other end
 * closed; -EPROTO: a short or oversized datagram, more fds than
 * max_fds, a type out of range or a string not terminated inside its
 * array (a protocol error: the caller closes the wire); -EMFILE: the
 * message whole (*m is read) but its fds lost, none being free here.
 * Fds that came with a refused message are closed.
 */
int	gate_msg_recv(int wire, struct gate_msg *m, int *fds, size_t max_fds,
	    size_t *n_fds);
