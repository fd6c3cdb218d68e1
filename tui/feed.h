/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * ward events: the record as it grows, for scripts and agent frameworks.
 * One line per event (JSON Lines with --json), oldest first; a request
 * recorded as asked shows again once decided (same seq, state "done"),
 * since the record updates that row in place.
 *
 * --follow watches the record's folder with inotify (the database and
 * its -wal file: every supervisor of the user writes the one record, so
 * runs that start later are seen too) and reads again at least once a
 * second (FEED_POLL_MS), never in a busy loop.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "approvals/audit.h"

#define FEED_POLL_MS	1000

struct feed_opts {
	const char	*run;		/* a run id; NULL: every run */
	int64_t		 since_ms;	/* rows recorded before are skipped */
	bool		 json;
};

struct feed;

struct feed	*feed_new(const struct feed_opts *);
void		 feed_free(struct feed *);
/* Prints to out what is new in a since the last call (and rows decided
 * since); the number of lines, or -errno with *cause. */
int		 feed_poll(struct feed *, struct audit *, FILE *out,
		    char **cause);

/* One event as a line, without its newline (malloc'd); name is the
 * run's --name (JSON: "name" after "run", null when NULL). */
char		*feed_line(const struct audit_event_row *, const char *name,
		    bool json);
/* TIME for --since: RFC 3339 ("2026-12-01T11:03:38.123Z", an offset
 * "+02:00" instead of Z, or a date alone), ms since the epoch, or a
 * duration back from now_ms ("90s", "15m", "2h", "1d"). 0 or -EINVAL. */
int		 feed_parse_time(const char *, int64_t now_ms, int64_t *ret);

/*
 * ward events' loop, for ward events and for ward relay's relay_events:
 * the record opened once it exists, RUN (an id or a --name, NULL: every
 * run) resolved, and each step printing to out what is new. *done when
 * nothing more will come (not following, the run ended and was read once
 * more, or an error); the lines printed, or -errno with *cause a whole
 * sentence ("no run "x" in the record (PATH)").
 */
struct feed_session;
struct feed_session *feed_session_new(const char *run, int64_t since_ms,
		    bool json, bool follow);
int		 feed_session_step(struct feed_session *, FILE *out,
		    bool *done, char **cause);
void		 feed_session_free(struct feed_session *);

/* ward events [--follow] [--since TIME] [--run RUN] [--json] [--host H]:
 * its arguments (a usage error or --help: *done, the exit status), and
 * the verb on this machine's record (the exit status). --host is
 * tui/relay.h's relay_events_remote; tui/main.c chooses. */
struct feed_cmd {
	struct feed_opts o;
	bool		 follow;
	const char	*run;		/* as given: an id or a --name */
	const char	*host;		/* --host, or NULL */
};
int		 feed_cmd_parse(int argc, char **argv, struct feed_cmd *,
		    bool *done);
int		 feed_cmd_local(const struct feed_cmd *);

/* The getopt_long tables, for `ward completion` (tui/completion.h). */
extern const struct option feed_opts[];
