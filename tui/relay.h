/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * ward relay: the control protocol of this user's runs on stdin/stdout,
 * each message in an envelope that names its run (msg.h, PROTOCOL.md 7).
 * It is what `ssh HOST ward relay` runs for `ward pending/approve/deny/
 * kill/events --host HOST` (events: the relay reads this side's record
 * itself, tui/feed.h's session, and sends its lines back): OpenSSH carries it and proves who the user is; the
 * relay then talks to the supervisors as that user, so the peer check
 * (only one's own runs) is the same as on the machine itself. Each hello
 * it passes on gets origin "ssh from ADDR" (SSH_CONNECTION's first
 * field; "relay" without one), and the supervisor records decisions "via
 * ssh from ADDR".
 *
 * The other end, relay_client: `$WARD_SSH HOST ward relay` ($WARD_SSH,
 * default "ssh", is one program, run with -T HOST then the command; a
 * test points it at a script).
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "tui/feed.h"

/* ward relay [--help] */
int	relay_main(int argc, char **argv);

struct relay_client;
struct proto_conn;

/* Starts ssh; 0 or -errno with *cause. */
int	relay_client_open(const char *host, struct relay_client **ret,
	    char **cause);
/* The same; detached (the console's links): ssh gets no terminal
 * (setsid) and its stderr is /dev/null, so it neither asks on nor draws
 * over the console's screen (keys from an agent or ssh_config). */
int	relay_client_start(const char *host, bool detached,
	    struct relay_client **ret, char **cause);
/* The stream to the relay (the console polls it itself) and ssh's pid. */
struct proto_conn *relay_client_conn(const struct relay_client *);
pid_t	relay_client_pid(const struct relay_client *);
/* Closes the link and ends ssh by its pid (SIGTERM, SIGKILL after a
 * second), reaped; its wait status. NULL is a no-op. */
int	relay_client_kill(struct relay_client *);
/* Closes the link and waits for ssh. NULL is a no-op. */
void	relay_client_free(struct relay_client *);
/* The live runs on the far side (a strv to free). */
int	relay_client_runs(struct relay_client *, int timeout_ms, char ***ids,
	    size_t *n, char **cause);
/* Sends msg to run, then waits for the first message of type want from
 * it (others are skipped, as proto_call does); *reply is the caller's.
 * -ECONNRESET with the relay's reason when the run's link closed. */
int	relay_client_call(struct relay_client *, const char *run,
	    const json_t *msg, const char *want, int timeout_ms,
	    json_t **reply, char **cause);
/* The next message from run (after a call: the requests that follow a
 * welcome). */
int	relay_client_next(struct relay_client *, const char *run,
	    int timeout_ms, json_t **msg, char **cause);

/* ward events --host HOST: relay_events to HOST's relay, which reads the
 * record there (tui/feed.h's session); its lines printed here as they
 * come (JSON objects read and written again with "host" added; text with
 * no control character but TAB). The exit status, as ward events'. */
int	relay_events_remote(const struct feed_cmd *);
