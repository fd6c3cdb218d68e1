/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The record mirrored outward: every event the supervisor records is also
 * sent, as one datagram, to journald (its native protocol, structured
 * fields WARD_*) and/or to syslog (RFC 5424 with the same fields as
 * structured data). A copy for the fleet's logging, never the record:
 * the sqlite record stays what ward log reads.
 *
 * Never blocks the loop: the sockets are non-blocking unix datagram
 * sockets, a datagram the daemon has no room for is dropped and counted
 * (journal_dropped), and a daemon that is not there (ECONNREFUSED,
 * ENOENT) is tried again at most once a second. A leaf: no struct sup.
 *
 * Where: $WARD_JOURNAL_SOCKET, else /run/systemd/journal/socket; for
 * syslog $WARD_SYSLOG_SOCKET, else /dev/log (the variables are for tests,
 * which bind a socket of their own).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approvals/audit.h"

#define JOURNAL_SOCKET	"/run/systemd/journal/socket"
#define SYSLOG_SOCKET	"/dev/log"

enum journal_want {
	JOURNAL_OFF = 0,
	JOURNAL_ON,
	JOURNAL_AUTO,	/* on when the journal's socket exists */
};

struct journal;

/* NULL (nothing to send to) when neither is wanted, or journal is AUTO
 * with no journal socket and syslog is off. */
struct journal *journal_open(enum journal_want journal, bool syslog);
void	journal_free(struct journal *);

/* Sends ev (state: NULL, "asked", "intent", "done") to each sink. NULL is
 * a no-op. */
void	journal_send(struct journal *, const struct audit_event *ev,
	    const char *state);
/* Datagrams dropped (daemon busy or gone) and sent, over every sink. */
uint64_t journal_dropped(const struct journal *);
uint64_t journal_sent(const struct journal *);

/* The datagrams themselves, for tests: malloc'd, *len bytes. */
char	*journal_native(const struct audit_event *, const char *state,
	    size_t *len);
char	*journal_rfc5424(const struct audit_event *, const char *state,
	    const char *host, int pid, size_t *len);
