/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The supervisor's side of the TLS gate (issue 19): ward-gate started
 * before the sandbox when the policy can intercept, the connections to
 * intercepted hosts handed to it, and what it says read in the loop:
 * HTTP requests and phantoms where they may not go into the record and
 * the consoles, requests of kind "http" parked for a person and their
 * answers sent back. The gate's own wire is gatewire.h's.
 *
 * The gate gone (it exited, or broke the protocol), every later
 * intercepted connect is refused (net.c asks intercept_alive) and one
 * event says why; the run goes on.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net_dest;
struct policy;
struct policy_secret;
struct sup;
struct gatewire_phantom;

/* Does the policy name anything the gate terminates: a [secret], or an
 * allow line with a method or path? */
bool	intercept_wanted(const struct policy *);
/* Start exe (ward-gate) for s's policy and run folder; 0, or -errno
 * with *cause. Then, once the supervisor needs the phantoms and the CA
 * (the sandbox's env and tree), wait for its start-up: 0 (also when
 * no gate was started), or -errno with *cause (the gate's own words
 * for a GATE_FAIL), the gate reaped and gone. */
int	intercept_start(struct sup *, const char *exe, char **cause);
int	intercept_ready(struct sup *, char **cause);
/* What the sandbox gets when the gate runs: the phantoms (n of them), the
 * CA alone and the bundle (host files); NULL / 0 when it does not. */
const struct gatewire_phantom *intercept_phantoms(const struct sup *,
	    size_t *n);
const char *intercept_ca(const struct sup *);
const char *intercept_bundle(const struct sup *);

/* Does the gate terminate connections to d (the policy's word, whether
 * the gate is still up or not)? */
bool	intercept_covers(const struct sup *, const struct net_dest *);
/* Is the gate still there to take a connection? *why (may be NULL):
 * why not. */
bool	intercept_alive(const struct sup *, const char **why);
/*
 * A loopback TCP pair of the family of the target's socket (AF_INET or
 * AF_INET6): *client for the sandbox, *server for the gate; 0 or -errno
 * (-EAFNOSUPPORT: no [::1] here for an AF_INET6 socket).
 */
int	intercept_pair(struct sup *, int family, int *client, int *server);
/* Hand the gate a connection: GATE_CONN {host, port} with the server
 * end and the connection to the real host (both taken, closed here).
 * 0, or -errno once the gate is gone (said in the record). */
int	intercept_conn(struct sup *, int *server, int *hostfd,
	    const char *host, unsigned port);

/* The wire's fd for the loop (-1: no gate), the events to poll it for
 * (POLLOUT too while answers wait for room), and its callback. */
int	intercept_fd(const struct sup *);
/* Watch a login file bound inside (issue 33): its name replaced on the
 * host stops the run (intercept_on_login, when intercept_login_fd is
 * readable; -1 when there is none). 0 or -errno and *cause. */
int	intercept_watch_login(struct sup *, const struct policy_secret *,
	    char **cause);
int	intercept_login_fd(const struct sup *);
void	intercept_on_login(struct sup *);
short	intercept_events(const struct sup *);
void	intercept_on_ready(struct sup *, short revents);

/*
 * A phantom where it may not go (the gate's GATE_SECRET, a name looked
 * up): a "secret" event "SECRET to TO", refused by the policy's
 * "[secret SECRET] hosts", decided by by, and the console told "the
 * phantom of the secret SECRET WHERE: refused, an exfiltration attempt".
 */
void	intercept_secret_refused(struct sup *, const char *secret,
	    const char *syscall, const char *to, const char *detail,
	    const char *where, const char *by);
/* The name of the secret whose phantom text holds (any case), or NULL. */
const char *intercept_phantom_in(const struct sup *, const char *text);

/* The run's end: the gate's last messages recorded (a second at most),
 * the wire closed, the gate reaped. */
void	intercept_stop(struct sup *);
