/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The record's insides, shared by its facets and by nobody else (only
 * approvals/audit*.c include this):
 *   audit.c          open, schema, upgrade, close's teardown, and the
 *                    helpers every facet uses (errors, statements,
 *                    transactions that retry a busy file);
 *   audit-file.c     the file's own safety: its folder, mode and owner,
 *                    the reserve, the check at start-up (PATH-lock,
 *                    PATH-clean);
 *   audit-write.c    the supervisor's writer (audit-write.h): runs'
 *                    start and end, the queue, write-ahead rows, close;
 *   audit-changes.c  the changes table's writes and ward gc's removal
 *                    (audit-changes.h);
 *   audit-read.c     the readers (ward log, the consoles, the probe);
 *   audit-lost.c     who writes a run, and runs whose writer is gone.
 * Calls go one way, so that no two files call each other
 * (tests/includegraph.sh -c): audit-file.c calls none of the others;
 * audit.c calls audit-file.c; the rest call audit.c, and audit-read.c
 * audit-lost.c.
 *
 * It includes none of the record's headers (so that no circle of includes
 * forms, tests/includegraph.sh): approvals/audit.h comes first.
 */
#include <sqlite3.h>

/* A run's start, its end and the marking of lost runs retry a busy file
 * for this many busy timeouts, backing off between tries (D8: under 20
 * heavy runs a single try lost 1 run's end in 20). */
#define AUDIT_RETRY_TIMEOUTS	6
#define AUDIT_BACKOFF_MIN_MS	10
#define AUDIT_BACKOFF_MAX_MS	500

enum audit_stmt {
	AUDIT_BEGIN,
	AUDIT_COMMIT,
	AUDIT_ROLLBACK,
	AUDIT_INSERT_EVENT,
	AUDIT_INSERT_OUTPUT,
	AUDIT_INSERT_RUN,
	AUDIT_END_RUN,
	AUDIT_UPDATE_EVENT,
	AUDIT_DECIDE_EVENT,
	AUDIT_DELETE_OUTPUT,
	AUDIT_N_STMT,
};

/* A queued event: struct audit_event with owned strings. */
struct audit_qevent {
	char		*run;
	int64_t		 time_ms;
	pid_t		 pid;
	enum request_kind kind;
	char		*syscall;
	char		*subject;
	char		*subject2;
	char		*detail;
	enum verdict	 verdict;
	enum how	 how;
	char		*rule;
	char		*decided_by;
	int64_t		 wait_ms;
	uint64_t	 request_id;
	enum audit_state state;
	int64_t		 seq;		/* > 0: an update of that row */
};

struct audit_qoutput {
	char		*run;
	enum audit_stream stream;
	int64_t		 time_ms;
	char		*buf;
	size_t		 len;
	size_t		 cap;
	bool		 tail;		/* past the head of output_max */
};

/* A tail row in the file: what the cap removes first. */
struct audit_tail {
	int64_t		 seq;
	size_t		 len;
};

struct audit {
	sqlite3		*db;
	char		*path;
	bool		 readonly;
	bool		 no_state;	/* an older file, read-only: no events.state */
	int		 version;	/* the file's schema, once opened */
	int		 busy_ms;
	sqlite3_stmt	*stmt[AUDIT_N_STMT];

	struct audit_qevent *ev;
	size_t		 n_ev;
	size_t		 cap_ev;
	struct audit_qoutput *out;
	size_t		 n_out;
	size_t		 cap_out;
	size_t		 out_queued;	/* bytes in out[] */

	uint64_t	 output_max;	/* 0: no cap */
	struct audit_output_counts counts;
	struct audit_tail *tail;	/* tail rows in the file, oldest first */
	size_t		 tail_first, n_tail, cap_tail;
	uint64_t	 tail_bytes;	/* of tail[tail_first..n_tail) */

	char		*reserve;	/* the spare file's path, or NULL */
	bool		 reserve_used;
	int		 wal_pages;	/* in the WAL after our last commit */

	/* The check at start-up (audit_vet): */
	int		 lock_fd;	/* PATH-lock, or -1 */
	bool		 checked;	/* quick_check ran at open */
	bool		 joined;	/* byte 1 held shared, in a session */
	bool		 opened;	/* audit_open returned it */
	bool		 doubt;		/* damage or an I/O error seen */
	bool		 db_known;
	uint64_t	 db_dev, db_ino; /* the file at PATH when opened */
};

/* What audit_vet_begin decided, for audit_vet once sqlite has the file. */
struct audit_vetting {
	int		 fd;		/* PATH-lock, or -1 */
	bool		 gate, first, trust, known;
	uint64_t	 dev, ino;	/* the file at PATH */
	int64_t		 checked;
};

/* Inline, so that every file can finalize its statements and none
 * calls another for it. */
static inline void
audit_finalizep(sqlite3_stmt **sp)
{
	sqlite3_finalize(*sp);
}

void	audit_destroyp(struct audit **);
#define cleanup_audit	__attribute__((cleanup(audit_destroyp)))
#define cleanup_stmt	__attribute__((cleanup(audit_finalizep)))

#define cleanup_vetting	__attribute__((cleanup(audit_vetting_done)))

/* The bytes audit_each_usage counts for a run: its output and the text of
 * its events (the rest of a row is a few integers). */
#define AUDIT_USAGE_BYTES(run) \
	"(SELECT total(length(bytes)) FROM output WHERE run = " run ") +" \
	" (SELECT total(ifnull(length(subject), 0) +" \
	" ifnull(length(subject2), 0) + ifnull(length(detail), 0) +" \
	" ifnull(length(decided_by), 0)) FROM events WHERE run = " run ")"

/* audit.c: the handle, errors, statements, transactions. */
void	audit_qevent_done(struct audit_qevent *);
void	audit_batch_clear(struct audit *);
/* Closes without flushing: for a handle that failed to open. */
void	audit_destroy(struct audit *);
int	audit_errno(sqlite3 *, int rc);
int	audit_fail(struct audit *, int rc, char **cause, const char *what);
int	audit_readonly(struct audit *, char **cause);
int	audit_exec(struct audit *, const char *sql, char **cause,
	    const char *what);
int	audit_step(sqlite3_stmt *);
int	audit_bind_text(sqlite3_stmt *, int i, const char *v);
int	audit_bind_first(const int *rcs, size_t n);
void	audit_backoff(long *delay);
int	audit_txn(struct audit *, int (*fn)(struct audit *, void *),
	    void *arg, char **cause, const char *what);
int	audit_query(struct audit *, const char *sql, sqlite3_stmt **ret,
	    char **cause);

/* audit-file.c: the file's own safety. */
int	audit_check_file(struct audit *, const char *pragma, char **ret);
bool	audit_is_file(const char *path);
int	audit_mkdir_parent(const char *path, char **cause);
int	audit_secure(const char *path, char **cause);
bool	audit_reserve_release(struct audit *);
void	audit_read_line(const char *path, char *buf, size_t len);
void	audit_vetting_done(struct audit_vetting *);
void	audit_vet_begin(const char *path, struct audit_vetting *);
int	audit_vet(struct audit *, struct audit_vetting *, int v,
	    char **cause);
void	audit_unvet(struct audit *, bool clean);

/* audit-lost.c: a run's writer, as the runs table holds it. */
void	audit_col_owner(sqlite3_stmt *, int i, struct audit_owner *);
const char *audit_owner_cols(const struct audit *);
