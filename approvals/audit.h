#pragma once
/*
 * The record: one sqlite3 database per user, WAL mode, versioned schema
 * (PRAGMA user_version), written only by supervisors in batched
 * transactions. Events and output are queued in memory by audit_event()
 * and audit_output() (cheap, no I/O) and written by audit_flush() in one
 * transaction. Readers (ward log) open it read-only.
 *
 * Schema v1:
 *   runs(id TEXT PRIMARY KEY, name, command, policy_path, policy_hash,
 *        uid, started_ms, ended_ms, exit_code, exit_signal, end_reason,
 *        limits)
 *   events(seq INTEGER PRIMARY KEY, run, time_ms, pid, kind, syscall,
 *        subject, subject2, detail, verdict, how, rule, decided_by,
 *        wait_ms, request_id)
 *   output(seq INTEGER PRIMARY KEY, run, stream, time_ms, bytes BLOB)
 * kind, verdict, how and stream are stored as their names ("write",
 * "allow", "person", "stdout") so that the file reads well in sqlite3(1).
 * Indexes: events(run), output(run), runs(started_ms).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "approvals/request.h"

struct audit;

struct audit_run {
	const char	*id;
	const char	*name;		/* may be NULL */
	const char	*command;	/* argv joined by spaces */
	const char	*policy_path;
	const char	*policy_hash;
	uid_t		 uid;
	int64_t		 started_ms;
	const char	*limits;	/* "timeout=600s memory=2G pids=512 (rlimit)" */
};

struct audit_event {
	const char	*run;
	int64_t		 time_ms;
	pid_t		 pid;
	enum request_kind kind;
	const char	*syscall;	/* may be NULL */
	const char	*subject;
	const char	*subject2;	/* may be NULL */
	const char	*detail;	/* may be NULL */
	enum verdict	 verdict;
	enum how	 how;
	const char	*rule;		/* may be NULL */
	const char	*decided_by;	/* "uid 1000 (alice) via console", "policy", "timeout" */
	int64_t		 wait_ms;
	uint64_t	 request_id;	/* 0 if none */
};

enum audit_stream {
	AUDIT_STDOUT = 1,
	AUDIT_STDERR = 2,
	AUDIT_PTY = 3,
};

/* "stdout", "stderr", "pty"; parse gives 0 or -EINVAL. */
const char *audit_stream_name(enum audit_stream);
int	audit_stream_parse(const char *, enum audit_stream *);

/* Opens (creating folder 0700, file 0600 and schema) read-write; *cause
 * on error; -ENOTSUP when the file's schema is newer than this ward's.
 * The file and its -wal and -shm must be regular files of ours (a symlink
 * or another user's is refused, a too-open one made 0600); an existing
 * record must pass PRAGMA quick_check (else -EBADMSG, sqlite's findings
 * in *cause).
 * ":memory:" gives a private in-memory store (tests). */
int	audit_open(const char *path, struct audit **ret, char **cause);
/* Read-only; -ENOENT if the database does not exist yet (or has no
 * schema yet), -ENOTSUP if its schema is newer. */
int	audit_open_readonly(const char *path, struct audit **ret, char **cause);
/* How long a write waits on another supervisor's transaction (default
 * 5000 ms) before it fails with -EBUSY. */
void	audit_set_busy_timeout(struct audit *, int ms);
/* Flushes what is queued, then closes. NULL is a no-op. */
void	audit_close(struct audit *);

/* Written at once (not batched): a run's start and end. 0 or -errno:
 * -EEXIST when the run id is taken, -ENOENT when ending an unknown run,
 * -EROFS on a read-only handle. Every function here that takes a cause
 * (NULL: none wanted) fills it on error with sqlite's own message, plus
 * what PRAGMA integrity_check finds when the file is damaged. */
int	audit_run_begin(struct audit *, const struct audit_run *, char **cause);
int	audit_run_end(struct audit *, const char *run, int64_t ended_ms,
	    int exit_code, int exit_signal, const char *end_reason,
	    char **cause);

/* Queued; copies everything. Output queued back to back for the same
 * run and stream is joined into one row of at most 64 KiB. */
void	audit_event(struct audit *, const struct audit_event *);
void	audit_output(struct audit *, const char *run, enum audit_stream,
	    int64_t time_ms, const void *buf, size_t len);
size_t	audit_pending(const struct audit *);
/* Writes everything queued in one transaction. On failure keeps the queue
 * (nothing recorded is lost) and returns -errno-ish with *cause (-EBUSY
 * when another writer held the file past the busy timeout). */
int	audit_flush(struct audit *, char **cause);

/* Reading, for `ward log`. Events in the order recorded (seq); run NULL =
 * all runs.
 * cb returns 0 to go on, non-zero to stop (returned). */
struct audit_event_row {
	int64_t		 seq;
	struct audit_event ev;		/* strings valid during the callback */
};
int	audit_each_event(struct audit *, const char *run,
	    int (*cb)(const struct audit_event_row *, void *), void *ctx,
	    char **cause);

struct audit_run_row {
	struct audit_run run;
	int64_t		 ended_ms;	/* 0 while running */
	int		 exit_code;	/* -1 if none */
	int		 exit_signal;	/* 0 if none */
	const char	*end_reason;	/* NULL while running */
};
int	audit_each_run(struct audit *,
	    int (*cb)(const struct audit_run_row *, void *), void *ctx,
	    char **cause);
/* The most recent run's id (malloc'd), or -ENOENT. */
int	audit_last_run(struct audit *, char **ret, char **cause);
/* Concatenated output of a run, for tests and `ward log --output`: *buf is
 * malloc'd and NUL-terminated (not counted in *len); "" if none. */
int	audit_read_output(struct audit *, const char *run, char **buf,
	    size_t *len, char **cause);

/*
 * For `ward gc`: what each run holds in the record (runs the record has,
 * oldest first), and the removal of one run's rows (its runs, events and
 * output rows, in one transaction; *freed adds what went). The file does
 * not shrink: sqlite reuses the freed pages for the next runs.
 */
struct audit_usage {
	const char	*run;
	int64_t		 started_ms;
	int64_t		 ended_ms;	/* 0 while running (or lost) */
	int64_t		 events;
	int64_t		 outputs;	/* output rows */
	int64_t		 bytes;		/* output bytes + events' text */
};
int	audit_each_usage(struct audit *,
	    int (*cb)(const struct audit_usage *, void *), void *ctx,
	    char **cause);
struct audit_freed {
	int64_t		 runs;
	int64_t		 events;
	int64_t		 outputs;
	int64_t		 bytes;
};
int	audit_forget_run(struct audit *, const char *run,
	    struct audit_freed *freed, char **cause);

/*
 * The changes table: what was done with a run's staged and approved
 * changes (DESIGN 8), one row per file and action, written at once.
 *   changes(seq INTEGER PRIMARY KEY, run, time_ms, path, from_path, kind,
 *        action, before_hash, after_hash, size, old_mode, new_mode, by)
 * Created by audit_open on a record that lacks it (an additive table: a
 * record of schema 1 gains it without a version of its own, and an older
 * ward reading the file ignores it). A reader of a record without it sees
 * no changes.
 */
struct audit_change {
	const char	*run;
	int64_t		 time_ms;
	const char	*path;		/* absolute host path */
	const char	*from_path;	/* a rename's old path; may be NULL */
	const char	*kind;		/* "added", "modified", "deleted" ... */
	const char	*action;	/* "applied", "discarded", "undone", "committed";
					 * "applying", "undoing" (an intent), "failed" */
	const char	*before_hash;	/* SHA-256 hex, "-" for no file */
	const char	*after_hash;
	int64_t		 size;
	unsigned int	 old_mode;	/* st_mode, 0 for none */
	unsigned int	 new_mode;
	const char	*by;		/* "uid 1000 (alice)" */
};
/* Written at once; *seq (may be NULL) is the row's, for
 * audit_change_done. An effect on the host is recorded first as an
 * intent ("applying", "undoing"), then done with its result
 * (write-ahead, DESIGN 8). */
int	audit_change(struct audit *, const struct audit_change *, int64_t *seq,
	    char **cause);
int	audit_change_done(struct audit *, int64_t seq, const char *action,
	    const char *after_hash, char **cause);
/* In the order recorded; run NULL = all runs. */
struct audit_change_row {
	int64_t		 seq;
	struct audit_change ch;		/* strings valid during the callback */
};
int	audit_each_change(struct audit *, const char *run,
	    int (*cb)(const struct audit_change_row *, void *), void *ctx,
	    char **cause);
