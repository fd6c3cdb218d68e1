/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's writer (approvals/audit-write.h): a run's start and
 * end, the queue of events and output and its flush, the write-ahead
 * rows, the output cap; and audit_close, which flushes before it
 * closes.
 */
#include "approvals/audit-write.h"
#include "approvals/audit-int.h"

#include <errno.h>
#include <string.h>

#include "config/util.h"

/* Output of one run and stream queued back to back becomes one row of at
 * most this much, so a chatty program writes few rows, none huge. */
#define AUDIT_OUTPUT_MAX	(64 * 1024)
/* The queue in memory, whatever happens to the file: output beyond this
 * many bytes waiting is dropped (and counted), and audit_full() says when
 * events pile up past this many rows (the supervisor then stops the run).
 * audit_should_flush() asks for a flush well before either. */
#define AUDIT_QUEUE_BYTES	(1024 * 1024)
#define AUDIT_QUEUE_EVENTS	4096
#define AUDIT_FLUSH_BYTES	(64 * 1024)
#define AUDIT_FLUSH_EVENTS	512

/* At most this many rows of a run's tail are tracked for the output cap;
 * beyond, the oldest tail rows go early (a tail of many tiny rows). */
#define AUDIT_TAIL_ROWS		16384

/* A supervisor's checkpoints (each two fsyncs: 7-25 ms on this disk)
 * are kept out of its run, where a commit that crosses sqlite's 1000
 * pages would hold an effect or an answer that waits for it: the WAL is
 * folded in at the run's end once it holds AUDIT_CKPT_PAGES, and within
 * the run only past AUDIT_CKPT_MAX (16 MiB), the bound of the WAL file.
 * 200, not sqlite's 1000: the next supervisor, the WAL's first opener,
 * reads every frame of it before its first query (2 us a frame), and a
 * run of `true` adds about 10. Measured, 500 start-ups each, turn
 * about: 0.3 ms less a start than at 1000, and no less at 50. */
#define AUDIT_CKPT_PAGES	200
#define AUDIT_CKPT_MAX		4000

static char *
audit_strdup(const char *s)
{
	return s == NULL ? NULL : xstrdup(s);
}

void
audit_shed(struct audit *a)
{
	if (a != NULL)
		sqlite3_db_release_memory(a->db);
}

void
audit_close(struct audit *a)
{
	if (a == NULL)
		return;
	/* Nobody is left to report a failure to: what cannot be written now
	 * is lost, as it would be if the process died. */
	if (!a->readonly)
		audit_flush(a, NULL);
	audit_destroy(a);
}

static int
audit_bind_owner(sqlite3_stmt *s, int i, const struct audit_owner *o)
{
	int rcs[4];

	if (o->pid <= 0) {
		for (int k = 0; k < 4; k++)
			rcs[k] = sqlite3_bind_null(s, i + k);
	} else {
		rcs[0] = sqlite3_bind_int64(s, i, o->pid);
		rcs[1] = sqlite3_bind_int64(s, i + 1, (sqlite3_int64)o->start);
		rcs[2] = audit_bind_text(s, i + 2, o->boot[0] ? o->boot : NULL);
		rcs[3] = o->pidns != 0 ? sqlite3_bind_int64(s, i + 3,
		    (sqlite3_int64)o->pidns) : sqlite3_bind_null(s, i + 3);
	}
	return audit_bind_first(rcs, ARRAY_SIZE(rcs));
}

static int
audit_begin_txn(struct audit *a, void *arg)
{
	const struct audit_run *run = arg;
	sqlite3_stmt *s = a->stmt[AUDIT_INSERT_RUN];
	int rcs[] = {
		audit_bind_text(s, 1, run->id),
		audit_bind_text(s, 2, run->name),
		audit_bind_text(s, 3, run->command),
		audit_bind_text(s, 4, run->policy_path),
		audit_bind_text(s, 5, run->policy_hash),
		sqlite3_bind_int64(s, 6, (sqlite3_int64)run->uid),
		sqlite3_bind_int64(s, 7, run->started_ms),
		audit_bind_text(s, 8, run->limits),
		audit_bind_owner(s, 9, &run->owner),
	};
	int rc;

	if ((rc = audit_bind_first(rcs, ARRAY_SIZE(rcs))) != SQLITE_OK) {
		sqlite3_clear_bindings(s);
		return rc;
	}
	return audit_step(s);
}

/* sqlite's hook after each commit of ours (in place of its automatic
 * checkpoint, which is this hook with 1000 pages): the WAL's size noted,
 * folded in only past AUDIT_CKPT_MAX. PASSIVE: no waiting for readers
 * or the other supervisors, whose commits go on meanwhile. */
static int
audit_wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct audit *a = arg;

	a->wal_pages = pages;
	if (pages >= AUDIT_CKPT_MAX)
		(void)sqlite3_wal_checkpoint_v2(db, name,
		    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

/* At the run's end, when nothing waits for the record any more, and
 * before the end is written. sqlite starts the WAL over (its frames
 * overwritten from the first) only at a commit that follows a
 * checkpoint that folded all of it in, from the connection that
 * checkpointed: a checkpoint after a run's last commit leaves the WAL
 * whole for the next supervisor, whose sqlite, the first to open it,
 * reads every frame to rebuild the WAL's index before its first query
 * (2 us a frame here; a WAL that never restarted grew to 16 MiB, 8 ms
 * at each start). The run's end, written after it, restarts it. */
static void
audit_checkpoint_end(struct audit *a)
{
	if (a->wal_pages >= AUDIT_CKPT_PAGES &&
	    sqlite3_wal_checkpoint_v2(a->db, NULL, SQLITE_CHECKPOINT_PASSIVE,
	    NULL, NULL) == SQLITE_OK)
		a->wal_pages = 0;
}

int
audit_run_begin(struct audit *a, const struct audit_run *run, char **cause)
{
	if (a->readonly)
		return audit_readonly(a, cause);
	/* The connection that writes a run (a supervisor's) checkpoints at
	 * its end, not in the middle of it. */
	sqlite3_wal_hook(a->db, audit_wal_hook, a);
	return audit_txn(a, audit_begin_txn, (void *)run, cause,
	    "recording the run's start");
}

struct audit_end_args {
	const char	*run;
	int64_t		 ended_ms;
	int		 exit_code, exit_signal;
	const char	*end_reason;
	int64_t		 changes;
};

static int
audit_end_txn(struct audit *a, void *arg)
{
	struct audit_end_args *e = arg;
	sqlite3_stmt *s = a->stmt[AUDIT_END_RUN];
	int rcs[] = {
		audit_bind_text(s, 1, e->run),
		sqlite3_bind_int64(s, 2, e->ended_ms),
		sqlite3_bind_int(s, 3, e->exit_code),
		sqlite3_bind_int(s, 4, e->exit_signal),
		audit_bind_text(s, 5, e->end_reason),
	};
	int rc;

	if ((rc = audit_bind_first(rcs, ARRAY_SIZE(rcs))) != SQLITE_OK) {
		sqlite3_clear_bindings(s);
		return rc;
	}
	if ((rc = audit_step(s)) == SQLITE_OK)
		e->changes = sqlite3_changes(a->db);
	return rc;
}

int
audit_run_end(struct audit *a, const char *run, int64_t ended_ms,
    int exit_code, int exit_signal, const char *end_reason, char **cause)
{
	struct audit_end_args e = {
		.run = run, .ended_ms = ended_ms, .exit_code = exit_code,
		.exit_signal = exit_signal, .end_reason = end_reason,
	};
	int r;

	if (a->readonly)
		return audit_readonly(a, cause);
	/* The checkpoint first: the end's commit then starts the WAL over
	 * (see audit_checkpoint_end). */
	audit_checkpoint_end(a);
	if ((r = audit_txn(a, audit_end_txn, &e, cause,
	    "recording the run's end")) < 0)
		return r;
	if (e.changes == 0) {
		set_cause(cause, "audit: %s: no run %s to end", a->path, run);
		return -ENOENT;
	}
	return 0;
}

int
audit_drain(struct audit *a, char **cause)
{
	int64_t until = now_mono_ms() +
	    (int64_t)AUDIT_RETRY_TIMEOUTS * (a->busy_ms > 0 ? a->busy_ms : 1);
	long delay = AUDIT_BACKOFF_MIN_MS;
	int r;

	while ((r = audit_flush(a, NULL)) == -EBUSY && now_mono_ms() < until) {
		audit_backoff(&delay);
	}
	/* Once more for the cause, in sqlite's words. */
	if (r < 0)
		r = audit_flush(a, cause);
	return r;
}

static void
audit_qevent_fill(struct audit_qevent *q, const struct audit_event *ev,
    enum audit_state state, int64_t seq)
{
	q->run = xstrdup(ev->run != NULL ? ev->run : "");
	q->time_ms = ev->time_ms;
	q->pid = ev->pid;
	q->kind = ev->kind;
	q->syscall = audit_strdup(ev->syscall);
	q->subject = audit_strdup(ev->subject);
	q->subject2 = audit_strdup(ev->subject2);
	q->detail = audit_strdup(ev->detail);
	q->verdict = ev->verdict;
	q->how = ev->how;
	q->rule = audit_strdup(ev->rule);
	q->decided_by = audit_strdup(ev->decided_by);
	q->wait_ms = ev->wait_ms;
	q->request_id = ev->request_id;
	q->state = state;
	q->seq = seq;
}

static bool audit_queue_over(const struct audit *);

static void
audit_queue_event(struct audit *a, const struct audit_event *ev,
    enum audit_state state, int64_t seq)
{
	if (audit_queue_over(a))
		return;
	if (a->n_ev == a->cap_ev) {
		a->cap_ev = a->cap_ev ? a->cap_ev * 2 : 64;
		a->ev = xreallocarray(a->ev, a->cap_ev, sizeof *a->ev);
	}
	audit_qevent_fill(&a->ev[a->n_ev++], ev, state, seq);
}

void
audit_event(struct audit *a, const struct audit_event *ev)
{
	audit_queue_event(a, ev, AUDIT_FINAL, 0);
}

/* Past twice audit_full's bound the caller has had its warning: what
 * comes then is dropped, so that memory stays bounded. */
static bool
audit_queue_over(const struct audit *a)
{
	return a->n_ev >= 2 * AUDIT_QUEUE_EVENTS;
}

void
audit_done(struct audit *a, int64_t seq, const struct audit_event *ev)
{
	audit_queue_event(a, ev, seq > 0 ? AUDIT_DONE : AUDIT_FINAL, seq);
}

static struct audit_qoutput *
audit_output_row(struct audit *a, const char *run, enum audit_stream stream,
    int64_t time_ms, bool tail)
{
	struct audit_qoutput *o;

	if (a->n_out == a->cap_out) {
		a->cap_out = a->cap_out ? a->cap_out * 2 : 64;
		a->out = xreallocarray(a->out, a->cap_out, sizeof *a->out);
	}
	o = &a->out[a->n_out++];
	o->run = xstrdup(run);
	o->stream = stream;
	o->time_ms = time_ms;
	o->buf = NULL;
	o->len = 0;
	o->cap = 0;
	o->tail = tail;
	return o;
}

/* Queue len bytes as head or tail rows, joined to the last row when it
 * is of the same run, stream and part. */
static void
audit_output_queue(struct audit *a, const char *run, enum audit_stream stream,
    int64_t time_ms, const char *p, size_t len, bool tail)
{
	while (len > 0) {
		struct audit_qoutput *o = a->n_out > 0 ? &a->out[a->n_out - 1] :
		    NULL;
		size_t n;

		if (o == NULL || o->stream != stream || o->tail != tail ||
		    o->len == AUDIT_OUTPUT_MAX || strcmp(o->run, run) != 0)
			o = audit_output_row(a, run, stream, time_ms, tail);
		n = AUDIT_OUTPUT_MAX - o->len;
		if (n > len)
			n = len;
		if (o->len + n > o->cap) {
			o->cap = o->cap ? o->cap : 4096;
			while (o->cap < o->len + n)
				o->cap *= 2;
			if (o->cap > AUDIT_OUTPUT_MAX)
				o->cap = AUDIT_OUTPUT_MAX;
			o->buf = xrealloc(o->buf, o->cap);
		}
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		a->out_queued += n;
		p += n;
		len -= n;
	}
}

void
audit_output(struct audit *a, const char *run, enum audit_stream stream,
    int64_t time_ms, const void *buf, size_t len)
{
	const char *p = buf;
	uint64_t head = a->output_max / 2;
	size_t n = 0;

	if (run == NULL)
		run = "";
	if (a->out_queued + len > AUDIT_QUEUE_BYTES) {
		/* The file is not taking it: memory stays bounded. */
		a->counts.seen += len;
		a->counts.lost += len;
		return;
	}
	if (a->output_max > 0 && a->counts.seen < head)
		n = head - a->counts.seen < len ?
		    (size_t)(head - a->counts.seen) : len;
	else if (a->output_max == 0)
		n = len;
	a->counts.seen += len;
	audit_output_queue(a, run, stream, time_ms, p, n, false);
	audit_output_queue(a, run, stream, time_ms, p + n, len - n, true);
}

size_t
audit_pending(const struct audit *a)
{
	return a->n_ev + a->n_out;
}

bool
audit_should_flush(const struct audit *a)
{
	return a->n_ev >= AUDIT_FLUSH_EVENTS || a->out_queued >=
	    AUDIT_FLUSH_BYTES;
}

bool
audit_full(const struct audit *a)
{
	return a->n_ev >= AUDIT_QUEUE_EVENTS;
}

void
audit_set_output_max(struct audit *a, uint64_t max)
{
	a->output_max = max;
}

void
audit_output_counts(const struct audit *a, struct audit_output_counts *ret)
{
	*ret = a->counts;
}

static int
audit_write_event(struct audit *a, const struct audit_qevent *e)
{
	enum audit_stmt which = e->seq == 0 ? AUDIT_INSERT_EVENT :
	    e->state == AUDIT_INTENT ? AUDIT_DECIDE_EVENT : AUDIT_UPDATE_EVENT;
	sqlite3_stmt *s = a->stmt[which];

	if (which != AUDIT_DECIDE_EVENT) {
		audit_bind_text(s, 1, e->run);
		sqlite3_bind_int64(s, 2, e->time_ms);
		sqlite3_bind_int64(s, 3, e->pid);
		audit_bind_text(s, 4, request_kind_name(e->kind));
		audit_bind_text(s, 5, e->syscall);
		audit_bind_text(s, 6, e->subject);
		audit_bind_text(s, 7, e->subject2);
		audit_bind_text(s, 8, e->detail);
		sqlite3_bind_int64(s, 14, (sqlite3_int64)e->request_id);
	}
	audit_bind_text(s, 9, verdict_name(e->verdict));
	audit_bind_text(s, 10, how_name(e->how));
	audit_bind_text(s, 11, e->rule);
	audit_bind_text(s, 12, e->decided_by);
	sqlite3_bind_int64(s, 13, e->wait_ms);
	audit_bind_text(s, 15, audit_state_name(e->state));
	if (e->seq > 0)
		sqlite3_bind_int64(s, 16, e->seq);
	return audit_step(s);
}

/* A tail row went in: track it, and drop the oldest ones past the cap
 * (inside the same transaction; audit_tail_undo restores the counts if
 * it rolls back). */
static int
audit_tail_add(struct audit *a, int64_t seq, size_t len)
{
	uint64_t keep = a->output_max - a->output_max / 2;
	sqlite3_stmt *s = a->stmt[AUDIT_DELETE_OUTPUT];
	int rc;

	if (a->n_tail == a->cap_tail) {
		a->cap_tail = a->cap_tail ? a->cap_tail * 2 : 64;
		a->tail = xreallocarray(a->tail, a->cap_tail, sizeof *a->tail);
	}
	a->tail[a->n_tail++] = (struct audit_tail){ seq, len };
	a->tail_bytes += len;
	while (a->tail_first < a->n_tail && (a->tail_bytes > keep ||
	    a->n_tail - a->tail_first > AUDIT_TAIL_ROWS)) {
		struct audit_tail *t = &a->tail[a->tail_first];

		sqlite3_bind_int64(s, 1, t->seq);
		if ((rc = audit_step(s)) != SQLITE_OK)
			return rc;
		a->tail_bytes -= t->len;
		a->counts.dropped += t->len;
		a->tail_first++;
	}
	return SQLITE_OK;
}

static int
audit_write_batch(struct audit *a)
{
	sqlite3_stmt *s;
	int rc;

	for (size_t i = 0; i < a->n_ev; i++)
		if ((rc = audit_write_event(a, &a->ev[i])) != SQLITE_OK)
			return rc;
	s = a->stmt[AUDIT_INSERT_OUTPUT];
	for (size_t i = 0; i < a->n_out; i++) {
		const struct audit_qoutput *o = &a->out[i];

		audit_bind_text(s, 1, o->run);
		audit_bind_text(s, 2, audit_stream_name(o->stream));
		sqlite3_bind_int64(s, 3, o->time_ms);
		sqlite3_bind_blob(s, 4, o->buf, (int)o->len, SQLITE_STATIC);
		if ((rc = audit_step(s)) != SQLITE_OK)
			return rc;
		if (o->tail && (rc = audit_tail_add(a,
		    sqlite3_last_insert_rowid(a->db), o->len)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

/*
 * One transaction: the queue, then extra (NULL: none), then COMMIT. On
 * success the queue is empty and *seq is extra's row. On failure nothing
 * is in the file, the queue is as it was, and a full disk is tried once
 * more after the reserve is released.
 */
static int
audit_commit(struct audit *a, const struct audit_qevent *extra, int64_t *seq,
    const char *what, char **cause)
{
	int rc, r;

	if (a->readonly)
		return audit_readonly(a, cause);
	/* Outside the transaction: inside it, indexes must stay put. */
	if (a->tail_first > 0) {
		memmove(a->tail, a->tail + a->tail_first,
		    (a->n_tail - a->tail_first) * sizeof *a->tail);
		a->n_tail -= a->tail_first;
		a->tail_first = 0;
	}
	for (int attempt = 0; ; attempt++) {
		size_t first = a->tail_first, n = a->n_tail;
		uint64_t bytes = a->tail_bytes, dropped = a->counts.dropped;

		if ((rc = audit_step(a->stmt[AUDIT_BEGIN])) == SQLITE_OK &&
		    (rc = audit_write_batch(a)) == SQLITE_OK &&
		    (extra == NULL ||
		    (rc = audit_write_event(a, extra)) == SQLITE_OK)) {
			int64_t row = extra == NULL ? 0 : extra->seq > 0 ?
			    extra->seq : sqlite3_last_insert_rowid(a->db);

			if ((rc = audit_step(a->stmt[AUDIT_COMMIT])) ==
			    SQLITE_OK) {
				audit_batch_clear(a);
				if (seq != NULL)
					*seq = row;
				return 0;
			}
		}
		/* Undo what the tail did in memory: the rows it removed are
		 * back after the rollback. */
		a->tail_first = first;
		a->n_tail = n < a->n_tail ? n : a->n_tail;
		a->tail_bytes = bytes;
		a->counts.dropped = dropped;
		if (audit_errno(a->db, rc) == -ENOSPC && attempt == 0 &&
		    audit_reserve_release(a)) {
			if (!sqlite3_get_autocommit(a->db))
				audit_step(a->stmt[AUDIT_ROLLBACK]);
			continue;
		}
		/* The message first: ROLLBACK overwrites it. */
		r = audit_fail(a, rc, cause, what);
		if (!sqlite3_get_autocommit(a->db))
			audit_step(a->stmt[AUDIT_ROLLBACK]);
		return r;
	}
}

int
audit_flush(struct audit *a, char **cause)
{
	if (a->n_ev == 0 && a->n_out == 0)
		return 0;
	return audit_commit(a, NULL, NULL, "flush", cause);
}

static int
audit_commit_one(struct audit *a, const struct audit_event *ev,
    enum audit_state state, int64_t *seq, const char *what, char **cause)
{
	struct audit_qevent q;
	int r;

	audit_qevent_fill(&q, ev, state, *seq);
	r = audit_commit(a, &q, seq, what, cause);
	audit_qevent_done(&q);
	return r;
}

int
audit_ask(struct audit *a, const struct audit_event *ev, int64_t *seq,
    char **cause)
{
	*seq = 0;
	return audit_commit_one(a, ev, AUDIT_ASKED, seq, "recording a request",
	    cause);
}

int
audit_intent(struct audit *a, const struct audit_event *ev, int64_t *seq,
    char **cause)
{
	return audit_commit_one(a, ev, AUDIT_INTENT, seq,
	    "recording an effect before it", cause);
}
