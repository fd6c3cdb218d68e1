/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The record: one sqlite3 database per user, WAL mode, versioned schema
 * (PRAGMA user_version). This header opens it and reads it. Who writes
 * what (DESIGN 8): the supervisor alone writes a run into the record,
 * through approvals/audit-write.h; the one exception is `ward apply`,
 * `ward undo` and `ward gc`, which write the changes table (and gc
 * removes a run's rows) through approvals/audit-changes.h
 * (tests/layers.sh holds both headers to their callers).
 * synchronous=NORMAL in WAL mode: a commit survives the process's crash
 * (SIGKILL, OOM) but not a power loss, which may take the last commits
 * (never the file's consistency). Readers (ward log) open it read-only.
 *
 * Schema v2 (a v1 file is migrated when opened read-write; events.state
 * is added on open to a file that lacks it: a column at the end):
 *   runs(id TEXT PRIMARY KEY, name, command, policy_path, policy_hash,
 *        uid, started_ms, ended_ms, exit_code, exit_signal, end_reason,
 *        limits, sup_pid, sup_start, sup_boot, sup_pidns)
 *   events(seq INTEGER PRIMARY KEY, run, time_ms, pid, kind, syscall,
 *        subject, subject2, detail, verdict, how, rule, decided_by,
 *        wait_ms, request_id, state)
 *   output(seq INTEGER PRIMARY KEY, run, stream, time_ms, bytes BLOB)
 * kind, verdict, how and stream are stored as their names ("write",
 * "allow", "person", "stdout") so that the file reads well in sqlite3(1).
 * state: NULL for a batched row; "asked" (a request parked, not yet
 * answered), "intent" (committed before its effect; if the supervisor
 * died then, the effect may or may not have happened), "done" (the
 * outcome of an asked or intended row).
 * Indexes: events(run), output(run), runs(started_ms).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "approvals/request.h"

struct audit;

/*
 * The process that writes a run: its pid, the time it started (clock
 * ticks since boot, field 22 of /proc/PID/stat: a pid reused by another
 * process has another), the boot (/proc/sys/kernel/random/boot_id) and
 * the pid namespace (inode of /proc/self/ns/pid) its pid belongs to.
 * pid 0: not known (a run recorded by a ward of schema 1).
 */
struct audit_owner {
	pid_t		 pid;
	uint64_t	 start;
	char		 boot[40];
	uint64_t	 pidns;
};

struct audit_run {
	const char	*id;
	const char	*name;		/* may be NULL */
	const char	*command;	/* argv joined by spaces */
	const char	*policy_path;
	const char	*policy_hash;
	uid_t		 uid;
	int64_t		 started_ms;
	const char	*limits;	/* "timeout=600s memory=2G pids=512 (rlimit)" */
	struct audit_owner owner;	/* the supervisor; zero: unknown */
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

enum audit_state {
	AUDIT_FINAL = 0,	/* batched: written after the fact */
	AUDIT_ASKED,
	AUDIT_INTENT,
	AUDIT_DONE,
};
/* NULL for AUDIT_FINAL, else "asked", "intent", "done". */
const char *audit_state_name(enum audit_state);

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
 * in *cause) unless there is no reason to doubt it: the last writer to
 * close it left PATH-clean (its identity, this boot, a check under 7 days
 * old) and nothing changed it since, or other writers have it open now
 * (coordinated through locks on PATH-lock; see audit_vet in audit-file.c).
 * ":memory:" gives a private in-memory store (tests). */
int	audit_open(const char *path, struct audit **ret, char **cause);
/* Whether audit_open ran PRAGMA quick_check on this handle's file. */
bool	audit_checked(const struct audit *);
/* Read-only; -ENOENT if the database does not exist yet (or has no
 * schema yet), -ENOTSUP if its schema is newer. */
int	audit_open_readonly(const char *path, struct audit **ret, char **cause);
/* How long a write waits on another supervisor's transaction (default
 * 5000 ms) before it fails with -EBUSY. */
void	audit_set_busy_timeout(struct audit *, int ms);
/* Flushes what is queued, then closes. NULL is a no-op. The last writer
 * of the file to close (and only a read-write handle) leaves PATH-clean,
 * which spares the next start-up the check. */
void	audit_close(struct audit *);
/* Every function of the record that takes a cause (NULL: none wanted)
 * fills it on error with sqlite's own message, plus what PRAGMA
 * integrity_check finds when the file is damaged. */

/*
 * Crash recovery: a run with no end whose supervisor is gone (its pid is
 * no process, a zombie, or a process started at another time or boot)
 * is marked lost: ended_ms = now_ms (when it was noticed), end_reason
 * "lost", and an event of kind run, subject "lost", how "supervisor",
 * decided_by `by` ("ward log"), detail "supervisor pid N gone". A run
 * whose supervisor this process cannot judge (another pid namespace) is
 * left alone; one recorded with no supervisor (schema 1) is lost when
 * hooks->alive says it is not live (no hook: left alone). Marking takes
 * the write lock and checks again, so two wards never mark a run twice;
 * hooks->on_lost is called, after the commit, for each run this call
 * marked. A read-only handle opens the file read-write (audit_open) only
 * when there is something to mark. The number marked, or -errno with
 * *cause.
 */
struct audit_recover_hooks {
	bool	(*alive)(const char *run, void *ctx);
	void	(*on_lost)(const char *run, int64_t noticed_ms, void *ctx);
	void	*ctx;
};
int	audit_recover(struct audit *, int64_t now_ms, const char *by,
	    const struct audit_recover_hooks *, char **cause);

/* A run's output as audit_output_counts (approvals/audit-write.h) gives
 * it; declared here because every handle holds one. */
struct audit_output_counts {
	uint64_t	 seen;		/* bytes given to audit_output */
	uint64_t	 dropped;	/* cut from the middle by the cap */
	uint64_t	 lost;		/* dropped because the queue was full */
};

/* Reading, for `ward log`. Events in the order recorded (seq); run NULL =
 * all runs.
 * cb returns 0 to go on, non-zero to stop (returned). */
struct audit_event_row {
	int64_t		 seq;
	struct audit_event ev;		/* strings valid during the callback */
	enum audit_state state;
};
int	audit_each_event(struct audit *, const char *run,
	    int (*cb)(const struct audit_event_row *, void *), void *ctx,
	    char **cause);
/* The same from row from_seq on (ward events --follow reads again from
 * the oldest row it saw still asked or intended: those rows change in
 * place when decided). */
int	audit_each_event_from(struct audit *, const char *run,
	    int64_t from_seq,
	    int (*cb)(const struct audit_event_row *, void *), void *ctx,
	    char **cause);

struct audit_run_row {
	struct audit_run run;
	int64_t		 ended_ms;	/* 0 while running */
	int		 exit_code;	/* -1 if none */
	int		 exit_signal;	/* 0 if none */
	const char	*end_reason;	/* NULL while running; "lost" when
					 * its supervisor was found gone */
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
/* audit_forget_run, which removes them: approvals/audit-changes.h. */

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
/* In the order recorded; run NULL = all runs. */
struct audit_change_row {
	int64_t		 seq;
	struct audit_change ch;		/* strings valid during the callback */
};
int	audit_each_change(struct audit *, const char *run,
	    int (*cb)(const struct audit_change_row *, void *), void *ctx,
	    char **cause);
