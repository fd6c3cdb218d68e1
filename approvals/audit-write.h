/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The supervisor's writer of the record (approvals/audit.h opens and
 * reads it). DESIGN 8, as amended by issue 32: only the supervisor
 * writes the record, and only the supervisor's .c files include this
 * header (tests/layers.sh). The one exception is the changes table,
 * which `ward apply` and `ward undo` write (and `ward gc` removes a
 * run's rows): approvals/audit-changes.h, included only by the files
 * that apply, undo and collect.
 *
 * Two ways in:
 *  - write-ahead, for what changes something outside the sandbox or lets
 *    the program go on past a request: audit_ask() and audit_intent()
 *    commit their row at once (with everything queued before it, so the
 *    order holds) before the caller acts; audit_done() then queues the
 *    outcome as an update of that row.
 *  - batched, for the rest (denials, the floor's continues, output):
 *    audit_event() and audit_output() queue in memory (cheap, no I/O),
 *    audit_flush() writes the queue in one transaction.
 * Every function here that takes a cause (NULL: none wanted) fills it
 * on error with sqlite's own message, plus what PRAGMA integrity_check
 * finds when the file is damaged.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approvals/audit.h"

/* This process, as the writer of its runs (struct audit_owner); 0 or
 * -errno (no /proc). */
int	audit_owner_self(struct audit_owner *);
/* Gives back the pages the connection holds in its cache
 * (sqlite3_db_release_memory): what opening read, the schema's and the
 * lost-run scan's, and no later write needs. NULL is a no-op. */
void	audit_shed(struct audit *);

/* Written at once (not batched): a run's start and end, each in a
 * transaction of its own that takes the write lock first and, while the
 * file stays busy, backs off and tries again for 6 busy timeouts (30 s
 * by default) before it fails. 0 or -errno:
 * -EEXIST when the run id is taken, -ENOENT when ending an unknown run,
 * -EBUSY when the file stayed busy, -EROFS on a read-only handle. */
int	audit_run_begin(struct audit *, const struct audit_run *, char **cause);
int	audit_run_end(struct audit *, const char *run, int64_t ended_ms,
	    int exit_code, int exit_signal, const char *end_reason,
	    char **cause);

/*
 * Write-ahead. Each commits at once, in one transaction with whatever is
 * queued (so that ward log's order is the order things happened), and
 * returns 0 only once the row is in the file; the caller acts after.
 * audit_ask: a request parked for a person (state "asked"); *seq is its
 * row. audit_intent: an effect about to happen (state "intent"); with
 * *seq > 0 that row (an asked request being approved) takes ev's
 * verdict, how, rule, decided_by and wait_ms (what it is about stays as
 * asked), else a new row and *seq is set. On failure nothing is queued or changed and
 * the caller must not act (-ENOSPC, -EIO, -EBADMSG, -EROFS, -EBUSY).
 */
int	audit_ask(struct audit *, const struct audit_event *, int64_t *seq,
	    char **cause);
int	audit_intent(struct audit *, const struct audit_event *, int64_t *seq,
	    char **cause);
/* Queued: the outcome of row seq (ev replaces it, state "done"); seq 0 is
 * audit_event(). */
void	audit_done(struct audit *, int64_t seq, const struct audit_event *);

/* Queued; copies everything. Output queued back to back for the same
 * run and stream is joined into one row of at most 64 KiB. Output beyond
 * 1 MiB waiting in memory (a record that cannot be written) is dropped
 * and counted as lost. */
void	audit_event(struct audit *, const struct audit_event *);
void	audit_output(struct audit *, const char *run, enum audit_stream,
	    int64_t time_ms, const void *buf, size_t len);
size_t	audit_pending(const struct audit *);
/* Time for a flush: 512 events or 64 KiB of output waiting. */
bool	audit_should_flush(const struct audit *);
/* Too many events waiting (4096): the record is not keeping up, the
 * caller must stop acting. Past twice that, events are dropped. */
bool	audit_full(const struct audit *);
/* Writes everything queued in one transaction. On failure keeps the queue
 * (nothing recorded is lost) and returns -errno-ish with *cause (-EBUSY
 * when another writer held the file past the busy timeout). */
int	audit_flush(struct audit *, char **cause);
/* audit_flush, retried with backoff while another writer holds the file
 * (as long as audit_run_end tries): for the end of a run, where nothing
 * later would retry. */
int	audit_drain(struct audit *, char **cause);

/*
 * Room. audit_keep_room() makes sure a spare file of 4 MiB sits beside
 * the record (PATH-reserve; -ENOSPC with *cause when there is no room
 * for it: a supervisor then does not start; ward gc, which frees room,
 * does not ask for it). A write that finds the disk full releases it and
 * tries again once, so that the last events and the run's end are
 * written. From then on audit_low_space() is true (with the message to
 * show in *cause, if wanted): the caller stops the run.
 */
int	audit_keep_room(struct audit *, char **cause);
bool	audit_low_space(const struct audit *, char **cause);

/*
 * The output cap (0, the default: none): of the output given to this
 * handle (one supervisor, one run), the first max/2 bytes and the last
 * max/2 are kept in the record, the middle is dropped; counts says how
 * much, for the run's end event (struct audit_output_counts, in
 * approvals/audit.h).
 */
void	audit_set_output_max(struct audit *, uint64_t max);
void	audit_output_counts(const struct audit *,
	    struct audit_output_counts *);
