/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * HTTP/1.1 on one intercepted connection, both directions, without I/O:
 * bytes the client sent go in (flow_from_client) and come out, judged
 * and re-serialized, in flow_up(); the upstream's bytes go in
 * (flow_from_upstream) and come out in flow_down(): with no secret in
 * the gate unchanged, parsed only for each response's status and end;
 * with secrets re-serialized, every secret's value in a head or body
 * made its phantom (scrub.h), the body re-framed when its length may
 * change. relay.c moves the bytes over TLS; flow.c decides:
 *   - a request is re-serialized from what http-parser parsed (request
 *     line, headers, body re-framed), never copied raw;
 *   - in requests to a secret's hosts, in its header only, its phantom
 *     becomes the value; a phantom anywhere else (the URL, another
 *     header, a body to a host it is not bound to) refuses the request
 *     (GATE_SECRET, a 403); so does a secret's value (not its phantom)
 *     anywhere in a request to a host it is not bound to;
 *   - with secrets, Accept-Encoding and TE are not sent up: a coded
 *     response could not be scrubbed, and one that comes anyway is
 *     refused (a 502, GATE_HTTP deny);
 *   - a request whose Host header or absolute URL names another host
 *     than the connection's (or with two Host headers, or none) is
 *     refused (a 403): a front end shared by several hosts
 *     would route it, and the secret, there;
 *   - on a host with HTTP rules ([network] allow host:port METHOD PATH)
 *     a request no rule allows is refused (http = deny) or held for a
 *     person (GATE_ASK; flow_answer resumes it);
 *   - every request ends in one GATE_HTTP.
 * A 403 of ours waits for the responses before it, then the connection
 * closes (flow_closing).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/policy.h"
#include "supervisor/gate/buf.h"
#include "supervisor/gate/secrets.h"
#include "supervisor/gate/wire.h"

struct flow;

struct flow_hooks {
	/* A message for the supervisor (GATE_ASK, GATE_HTTP, GATE_SECRET);
	 * conn, host and port are filled. */
	void	(*emit)(void *arg, struct gate_msg *);
	void	*arg;
	/* The requests held for a person, counted across the gate's
	 * connections (NULL: not counted); one more past held_max is
	 * refused (a 403), never asked. */
	unsigned	*held;
	unsigned	 held_max;
};

/* *next_req: the gate's request counter, shared by its connections. */
struct flow *flow_new(const struct policy *, struct secrets *,
	    const char *host, unsigned port, uint64_t conn,
	    const struct flow_hooks *, uint64_t *next_req);
void	flow_free(struct flow *);

/* Feed the client's bytes; returns how many were taken (fewer while a
 * request is held or after a refusal: feed the rest later). */
size_t	flow_from_client(struct flow *, const char *, size_t);
/* Feed the upstream's bytes (all taken); len 0 = the upstream closed.
 * -EPROTO when they are not HTTP or answer nothing asked. */
int	flow_from_upstream(struct flow *, const char *, size_t);
/* A held request's answer (GATE_ANSWER); -ENOENT if req is not held. */
int	flow_answer(struct flow *, uint64_t req, bool allow);
/* Is request req held here? */
bool	flow_holds(const struct flow *, uint64_t req);

struct buf *flow_up(struct flow *);	/* for the upstream */
struct buf *flow_down(struct flow *);	/* for the client */
/* May the relay read more from the client? (Not while held, refused,
 * or while flow_up() is over BUF_HIGH.) */
bool	flow_wants_client(const struct flow *);
/* Close both sides once flow_down() is empty. */
bool	flow_closing(const struct flow *);
/* No response owed: no request sent up awaits one, none is held. */
bool	flow_idle(const struct flow *);
/* Close the upstream now (part of a refused request went up). */
bool	flow_cut_upstream(const struct flow *);
/* The client ended (EOF or error): requests still open end in GATE_HTTP
 * as they are. */
void	flow_end(struct flow *);
