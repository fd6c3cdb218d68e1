/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The supervisor's end of the wire to ward-gate (issue 19; the messages
 * are supervisor/gate/wire.h's): one struct gate_msg a datagram, fds by
 * SCM_RIGHTS; the gate started with its end as fd 3 and its start-up
 * read; the loopback TCP pairs an intercepted connection is made of.
 * A leaf: no struct sup. Every fd made here is close-on-exec.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "supervisor/gate/wire.h"

#define GATEWIRE_START_MS	30000	/* the gate's start-up (command: sources) */

/* The messages' codec is wire.h's (gate_msg_set/send/recv), one for
 * both ends. */

/* A secret's phantom, as the gate said it at start-up. */
struct gatewire_phantom {
	char	*name;		/* the variable */
	char	*value;		/* "ward-phantom-...": no secret, per run */
};

struct gatewire_ready {
	pid_t	 pid;		/* the gate's */
	int	 wire;		/* the supervisor's end, non-blocking */
	char	*ca;		/* RUNDIR/gate/ca.pem */
	char	*bundle;	/* RUNDIR/gate/bundle.pem */
	struct gatewire_phantom *phantoms;
	size_t	 n_phantoms;
};

/*
 * Start exe as `exe POLICY RUNDIR`, its end of a new SOCK_SEQPACKET pair
 * as fd 3, stdin, stdout and stderr /dev/null, no other fd; then
 * read its start-up (GATE_PHANTOM..., GATE_READY) for at most timeout_ms.
 * 0 and *ret (gatewire_ready_done frees it); else -errno with *cause
 * (the gate's GATE_FAIL text as it said it, or what went wrong), the
 * gate killed and reaped.
 */
int	gatewire_start(const char *exe, const char *policy,
	    const char *run_dir, int timeout_ms, struct gatewire_ready *ret,
	    char **cause);
/* The same in two steps, so that the supervisor goes on making the
 * sandbox's tree while the gate starts: spawn (0 with ret's pid and
 * wire, or -errno and *cause), then wait for its start-up (as above;
 * exe is named in the message when it could not run). */
int	gatewire_spawn(const char *exe, const char *policy,
	    const char *run_dir, struct gatewire_ready *ret, char **cause);
int	gatewire_wait(struct gatewire_ready *ret, const char *exe,
	    int timeout_ms, char **cause);
/* The start-up alone, on a wire already made (and the tests'): reads
 * until GATE_READY or GATE_FAIL. 0 or -errno with *cause. */
int	gatewire_read_start(int wire, int timeout_ms,
	    struct gatewire_ready *ret, char **cause);
void	gatewire_ready_done(struct gatewire_ready *);

/* A listener on loopback, port 0 (AF_INET: 127.0.0.1, AF_INET6: ::1),
 * non-blocking: 0 and *fd, or -errno (-EADDRNOTAVAIL: no [::1] here). */
int	gatewire_listen(int family, int *fd);
/*
 * A connected TCP pair through listener: *client (for the sandbox) and
 * *server (for the gate), both non-blocking. A connection of someone
 * else on the same port (any local process may connect to it) is
 * refused: only the one whose address is our client's is taken. 0 or
 * -errno.
 */
int	gatewire_pair(int listener, int *client, int *server);
