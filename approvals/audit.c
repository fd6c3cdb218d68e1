/* SPDX-License-Identifier: MIT */
#include "approvals/audit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "config/util.h"

#define AUDIT_VERSION		2
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
/* The spare file beside the record: released when the disk is full, so
 * that the last events and the run's end still find room. */
#define AUDIT_RESERVE		(4 * 1024 * 1024)
/* At most this many rows of a run's tail are tracked for the output cap;
 * beyond, the oldest tail rows go early (a tail of many tiny rows). */
#define AUDIT_TAIL_ROWS		16384
/* Every supervisor of the user writes to the one file; a flush waits this
 * long for another's transaction before it gives up (and retries later). */
#define AUDIT_BUSY_MS		5000
/* A run's start, its end and the marking of lost runs retry a busy file
 * for this many busy timeouts, backing off between tries (D8: under 20
 * heavy runs a single try lost 1 run's end in 20). */
#define AUDIT_RETRY_TIMEOUTS	6
#define AUDIT_BACKOFF_MIN_MS	10
#define AUDIT_BACKOFF_MAX_MS	500
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

/*
 * The runs with no end, the few a start-up looks for lost ones among
 * (audit_find_lost): a partial index, so that the look costs the open
 * runs, not every run ever recorded (a scan of 1000 runs took 1 ms of
 * each start-up). Like events.state, it is added to an older file on
 * open and the version stays: an older ward reads and writes the file,
 * and sqlite keeps the index for it.
 */
#define AUDIT_RUNS_OPEN	"CREATE INDEX IF NOT EXISTS runs_open ON" \
	" runs(started_ms) WHERE ended_ms IS NULL AND end_reason IS NULL"

static const char audit_schema[] =
	"CREATE TABLE IF NOT EXISTS runs ("
	" id TEXT PRIMARY KEY, name TEXT, command TEXT, policy_path TEXT,"
	" policy_hash TEXT, uid INTEGER, started_ms INTEGER, ended_ms INTEGER,"
	" exit_code INTEGER, exit_signal INTEGER, end_reason TEXT,"
	" limits TEXT, sup_pid INTEGER, sup_start INTEGER, sup_boot TEXT,"
	" sup_pidns INTEGER);"
	"CREATE TABLE IF NOT EXISTS events ("
	" seq INTEGER PRIMARY KEY, run TEXT, time_ms INTEGER, pid INTEGER,"
	" kind TEXT, syscall TEXT, subject TEXT, subject2 TEXT, detail TEXT,"
	" verdict TEXT, how TEXT, rule TEXT, decided_by TEXT, wait_ms INTEGER,"
	" request_id INTEGER, state TEXT);"
	"CREATE TABLE IF NOT EXISTS output ("
	" seq INTEGER PRIMARY KEY, run TEXT, stream TEXT, time_ms INTEGER,"
	" bytes BLOB);"
	"CREATE INDEX IF NOT EXISTS events_run ON events(run);"
	"CREATE INDEX IF NOT EXISTS output_run ON output(run);"
	"CREATE INDEX IF NOT EXISTS runs_started ON runs(started_ms);"
	AUDIT_RUNS_OPEN ";"
	"PRAGMA user_version = 2;";

/*
 * audit_migrate[v] takes a record of schema v to v + 1, in the one
 * transaction that also sets the version (audit_upgrade).
 *   1 -> 2: runs learn who writes them: the supervisor's pid, its start
 *           time (clock ticks since boot, /proc/PID/stat field 22), the
 *           boot and the pid namespace, so that a run whose supervisor is
 *           gone can be told from a live one (audit_recover).
 */
static const char *const audit_migrate[AUDIT_VERSION] = {
	[1] = "ALTER TABLE runs ADD COLUMN sup_pid INTEGER;"
	    "ALTER TABLE runs ADD COLUMN sup_start INTEGER;"
	    "ALTER TABLE runs ADD COLUMN sup_boot TEXT;"
	    "ALTER TABLE runs ADD COLUMN sup_pidns INTEGER;",
};

/*
 * events.state came after version 1 and is added to an older file on
 * open (NULL for its rows, which were all written after the fact): a
 * column added at the end, so the version stays 1 and an older ward
 * still reads and writes the file (its rows get state NULL).
 */
static const char audit_add_state[] =
	"ALTER TABLE events ADD COLUMN state TEXT";

/*
 * No NOT NULL or CHECK constraints above on purpose: a flush that fails
 * keeps its batch and tries again, so a row the schema refused would
 * block every later flush for good.
 */

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

static const char *const audit_sql[AUDIT_N_STMT] = {
	[AUDIT_BEGIN] = "BEGIN IMMEDIATE",
	[AUDIT_COMMIT] = "COMMIT",
	[AUDIT_ROLLBACK] = "ROLLBACK",
	[AUDIT_INSERT_EVENT] = "INSERT INTO events (run, time_ms, pid, kind,"
	    " syscall, subject, subject2, detail, verdict, how, rule,"
	    " decided_by, wait_ms, request_id, state)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
	    " ?14, ?15)",
	[AUDIT_INSERT_OUTPUT] = "INSERT INTO output (run, stream, time_ms,"
	    " bytes) VALUES (?1, ?2, ?3, ?4)",
	[AUDIT_INSERT_RUN] = "INSERT INTO runs (id, name, command, policy_path,"
	    " policy_hash, uid, started_ms, limits, sup_pid, sup_start,"
	    " sup_boot, sup_pidns)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	[AUDIT_END_RUN] = "UPDATE runs SET ended_ms = ?2, exit_code = ?3,"
	    " exit_signal = ?4, end_reason = ?5 WHERE id = ?1",
	/* The row keeps its seq and run: its place in the history is where
	 * it was asked or intended. */
	[AUDIT_UPDATE_EVENT] = "UPDATE events SET time_ms = ?2, pid = ?3,"
	    " kind = ?4, syscall = ?5, subject = ?6, subject2 = ?7,"
	    " detail = ?8, verdict = ?9, how = ?10, rule = ?11,"
	    " decided_by = ?12, wait_ms = ?13, request_id = ?14, state = ?15"
	    " WHERE seq = ?16",
	/* An asked request approved: what it was about stays as asked. */
	[AUDIT_DECIDE_EVENT] = "UPDATE events SET verdict = ?9, how = ?10,"
	    " rule = ?11, decided_by = ?12, wait_ms = ?13, state = ?15"
	    " WHERE seq = ?16",
	[AUDIT_DELETE_OUTPUT] = "DELETE FROM output WHERE seq = ?1",
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

const char *
audit_stream_name(enum audit_stream s)
{
	switch (s) {
	case AUDIT_STDOUT:
		return "stdout";
	case AUDIT_STDERR:
		return "stderr";
	case AUDIT_PTY:
		return "pty";
	}
	return "unknown";
}

int
audit_stream_parse(const char *s, enum audit_stream *ret)
{
	static const enum audit_stream all[] = {
		AUDIT_STDOUT, AUDIT_STDERR, AUDIT_PTY,
	};

	for (size_t i = 0; s != NULL && i < ARRAY_SIZE(all); i++) {
		if (strcmp(audit_stream_name(all[i]), s) == 0) {
			*ret = all[i];
			return 0;
		}
	}
	return -EINVAL;
}

const char *
audit_state_name(enum audit_state st)
{
	switch (st) {
	case AUDIT_FINAL:
		return NULL;
	case AUDIT_ASKED:
		return "asked";
	case AUDIT_INTENT:
		return "intent";
	case AUDIT_DONE:
		return "done";
	}
	return NULL;
}

static int
audit_state_parse(const char *s, enum audit_state *ret)
{
	static const enum audit_state all[] = {
		AUDIT_ASKED, AUDIT_INTENT, AUDIT_DONE,
	};

	*ret = AUDIT_FINAL;
	if (s == NULL)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		if (strcmp(audit_state_name(all[i]), s) == 0) {
			*ret = all[i];
			return 0;
		}
	}
	return -EINVAL;
}

static char *
audit_strdup(const char *s)
{
	return s == NULL ? NULL : xstrdup(s);
}

static void
audit_qevent_done(struct audit_qevent *e)
{
	free(e->run);
	free(e->syscall);
	free(e->subject);
	free(e->subject2);
	free(e->detail);
	free(e->rule);
	free(e->decided_by);
}

static void
audit_batch_clear(struct audit *a)
{
	for (size_t i = 0; i < a->n_ev; i++)
		audit_qevent_done(&a->ev[i]);
	a->n_ev = 0;
	for (size_t i = 0; i < a->n_out; i++) {
		free(a->out[i].run);
		free(a->out[i].buf);
	}
	a->n_out = 0;
	a->out_queued = 0;
}

static void audit_unvet(struct audit *, bool);

/* Closes without flushing: for a handle that failed to open. */
static void
audit_destroy(struct audit *a)
{
	bool closed;

	if (a == NULL)
		return;
	for (size_t i = 0; i < AUDIT_N_STMT; i++)
		sqlite3_finalize(a->stmt[i]);
	closed = sqlite3_close(a->db) == SQLITE_OK;
	audit_unvet(a, closed && a->opened);
	audit_batch_clear(a);
	free(a->ev);
	free(a->out);
	free(a->tail);
	free(a->reserve);
	free(a->path);
	free(a);
}

static void
audit_destroyp(struct audit **ap)
{
	audit_destroy(*ap);
}

static void
audit_finalizep(sqlite3_stmt **sp)
{
	sqlite3_finalize(*sp);
}

#define cleanup_audit	__attribute__((cleanup(audit_destroyp)))
#define cleanup_stmt	__attribute__((cleanup(audit_finalizep)))

/* An sqlite result code as -errno; the OS's own errno where it has one. */
static int
audit_errno(sqlite3 *db, int rc)
{
	int sys = db != NULL ? sqlite3_system_errno(db) : 0;

	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CONSTRAINT:
		return -EEXIST;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EBADMSG;
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
		return sys > 0 ? -sys : -EIO;
	default:
		return -EIO;
	}
}

/* The errors that say the file itself is damaged, not the disk or a lock. */
static bool
audit_is_damage(int rc)
{
	return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB ||
	    (rc & 0xff) == SQLITE_FORMAT;
}

/*
 * PRAGMA quick_check or integrity_check: 0 when sqlite says "ok", else
 * -EBADMSG and *ret says what it found, in sqlite's words (its first
 * three findings, or the error that stopped the check).
 */
static int
audit_check_file(struct audit *a, const char *pragma, char **ret)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	cleanup_free char *sql = xasprintf("PRAGMA %s(3)", pragma);
	char *found = NULL;
	int rc;

	if ((rc = sqlite3_prepare_v2(a->db, sql, -1, &s, NULL)) != SQLITE_OK) {
		*ret = xstrdup(sqlite3_errmsg(a->db));
		return -EBADMSG;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *row = (const char *)sqlite3_column_text(s, 0);
		char *t;

		if (row == NULL || strcmp(row, "ok") == 0)
			continue;
		t = xasprintf("%s%s%s", found ? found : "", found ? "; " : "",
		    row);
		free(found);
		found = t;
	}
	if (rc != SQLITE_DONE && found == NULL)
		found = xstrdup(sqlite3_errmsg(a->db));
	if (found == NULL)
		return 0;
	/* One line: sqlite starts with "*** in database main ***\n". */
	for (char *p = found; (p = strchr(p, '\n')) != NULL; )
		*p = ' ';
	*ret = found;
	return -EBADMSG;
}

/*
 * *cause gets sqlite's own message, as sqlite says it ("database disk
 * image is malformed"), never strerror of the -errno returned; when the
 * file is damaged, what a full integrity_check finds is added.
 */
static int
audit_fail(struct audit *a, int rc, char **cause, const char *what)
{
	int r = audit_errno(a->db, rc);
	cleanup_free char *msg = NULL;
	cleanup_free char *found = NULL;

	/* No marker of a clean end after this (audit_unvet). */
	if (audit_is_damage(rc) || (rc & 0xff) == SQLITE_IOERR)
		a->doubt = true;
	if (r == 0)
		r = -EIO;
	if (cause == NULL)
		return r;
	/* Copied first: the check below overwrites sqlite's message. */
	msg = xstrdup(a->db != NULL ? sqlite3_errmsg(a->db) :
	    sqlite3_errstr(rc));
	if (a->db != NULL && audit_is_damage(rc) &&
	    audit_check_file(a, "integrity_check", &found) == 0)
		found = xstrdup("ok");
	if (found != NULL)
		*cause = xasprintf("audit: %s: %s: %s (integrity_check: %s); "
		    "move the file aside and ward starts a new record",
		    a->path, what, msg, found);
	else
		*cause = xasprintf("audit: %s: %s: %s", a->path, what, msg);
	return r;
}

static int
audit_readonly(struct audit *a, char **cause)
{
	set_cause(cause, "audit: %s: opened read-only", a->path);
	return -EROFS;
}

static int
audit_exec(struct audit *a, const char *sql, char **cause, const char *what)
{
	int rc = sqlite3_exec(a->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : audit_fail(a, rc, cause, what);
}

/* Runs a prepared statement to its end and makes it ready for reuse. */
static int
audit_step(sqlite3_stmt *s)
{
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int
audit_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v == NULL)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

static int
audit_version(struct audit *a, int *ret, char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = sqlite3_prepare_v2(a->db, "PRAGMA user_version", -1, &s,
	    NULL)) != SQLITE_OK)
		return audit_fail(a, rc, cause, "reading schema version");
	if ((rc = sqlite3_step(s)) != SQLITE_ROW)
		return audit_fail(a, rc, cause, "reading schema version");
	*ret = sqlite3_column_int(s, 0);
	return 0;
}

static int
audit_check_version(struct audit *a, int v, char **cause)
{
	if (v <= AUDIT_VERSION)
		return 0;
	if (cause != NULL)
		*cause = xasprintf("audit: %s: schema version %d is newer than "
		    "this ward knows (%d); use a newer ward or another file",
		    a->path, v, AUDIT_VERSION);
	return -ENOTSUP;
}

/* A count the query sql gives is more than 0. */
static bool
audit_has(struct audit *a, const char *sql)
{
	cleanup_stmt sqlite3_stmt *s = NULL;

	return sqlite3_prepare_v2(a->db, sql, -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) > 0;
}

/* Has the file the index runs_open? (A file of an older ward has not.) */
static bool
audit_has_runs_open(struct audit *a)
{
	return audit_has(a, "SELECT count(*) FROM sqlite_schema"
	    " WHERE type = 'index' AND name = 'runs_open'");
}

/* Has the file events.state? (A file of an older ward has not.) */
static bool
audit_has_state(struct audit *a)
{
	return audit_has(a, "SELECT count(*) FROM"
	    " pragma_table_info('events') WHERE name = 'state'");
}

/*
 * Creates the schema unless someone has, or brings an older one up to
 * AUDIT_VERSION step by step (audit_migrate) and adds what it lacks
 * (events.state, the index runs_open). Two supervisors may start at
 * once: the version, the column and the index are read again under the
 * write lock, so only one of them creates or migrates.
 */
static int
audit_upgrade(struct audit *a, char **cause)
{
	int v, r;

	if ((r = audit_exec(a, "BEGIN IMMEDIATE", cause,
	    "creating schema")) < 0)
		return r;
	if ((r = audit_version(a, &v, cause)) == 0 &&
	    (r = audit_check_version(a, v, cause)) == 0 && v == 0)
		r = audit_exec(a, audit_schema, cause, "creating schema");
	for (; r == 0 && v > 0 && v < AUDIT_VERSION; v++) {
		cleanup_free char *sql = xasprintf("%sPRAGMA user_version = %d;",
		    audit_migrate[v], v + 1);

		r = audit_exec(a, sql, cause, "upgrading the schema");
	}
	if (r == 0 && !audit_has_state(a))
		r = audit_exec(a, audit_add_state, cause,
		    "adding events.state");
	if (r == 0 && !audit_has_runs_open(a))
		r = audit_exec(a, AUDIT_RUNS_OPEN, cause,
		    "adding the index of open runs");
	if (r == 0)
		r = audit_exec(a, "COMMIT", cause, "creating schema");
	if (r < 0 && !sqlite3_get_autocommit(a->db))
		sqlite3_exec(a->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

static bool
audit_is_file(const char *path)
{
	return path[0] != '\0' && strcmp(path, ":memory:") != 0 &&
	    strncmp(path, "file:", 5) != 0;
}

static int
audit_mkdir_parent(const char *path, char **cause)
{
	const char *slash = strrchr(path, '/');
	cleanup_free char *dir = NULL;
	int r;

	if (!audit_is_file(path) || slash == NULL || slash == path)
		return 0;
	dir = xstrndup(path, (size_t)(slash - path));
	if ((r = mkdir_p(dir, 0700)) < 0 && cause != NULL)
		*cause = xasprintf("audit: cannot create %s: %s", dir,
		    strerror(-r));
	return r;
}

/*
 * The record and sqlite's -wal and -shm beside it: regular files, not
 * symlinks, owned by us, 0600. sqlite creates the file 0644 & ~umask and
 * gives -wal and -shm the mode (and, as root, the owner) of the database,
 * so creating it 0600 here first makes all three 0600. A file of ours
 * that is more open (an older ward's, a 0666 one) is made 0600; one that
 * is another user's is refused: they could rewrite the history.
 */
static int
audit_secure_one(const char *path, bool create, char **cause)
{
	cleanup_fd int fd = -1;
	struct stat st;
	int r;

	fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    (create ? O_CREAT : 0), 0600);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT && !create)
			return 0;
		if (cause != NULL)
			*cause = r == -ELOOP ? xasprintf("audit: %s: is a "
			    "symlink; refusing it (remove it)", path) :
			    xasprintf("audit: %s: cannot open: %s", path,
			    strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		if (cause != NULL)
			*cause = xasprintf("audit: %s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		if (cause != NULL)
			*cause = xasprintf("audit: %s: not a regular file; "
			    "refusing it (remove it)", path);
		return -EINVAL;
	}
	if (st.st_uid != getuid()) {
		if (cause != NULL)
			*cause = xasprintf("audit: %s: owned by uid %u, not by "
			    "us (uid %u); someone else could rewrite the "
			    "record: refusing it", path, (unsigned)st.st_uid,
			    (unsigned)getuid());
		return -EPERM;
	}
	if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600) < 0) {
		r = -errno;
		if (cause != NULL)
			*cause = xasprintf("audit: %s: mode %04o, and cannot "
			    "make it 0600: %s", path,
			    (unsigned)(st.st_mode & 07777), strerror(-r));
		return r;
	}
	return 0;
}

static int
audit_secure(const char *path, char **cause)
{
	static const char *const sides[] = { "-wal", "-shm" };
	int r;

	if (!audit_is_file(path))
		return 0;
	if ((r = audit_secure_one(path, true, cause)) < 0)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(sides); i++) {
		cleanup_free char *p = xasprintf("%s%s", path, sides[i]);

		if ((r = audit_secure_one(p, false, cause)) < 0)
			return r;
	}
	return 0;
}

/*
 * Before sqlite's first use in the process: no bulk page-cache block at
 * each connection's first read (20 pages, each written at once, whatever
 * the cache then holds). A supervisor reads a handful of pages; its pages
 * come one by one.
 */
static void
audit_configure_once(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
}

/*
 * The spare file: PATH-reserve, AUDIT_RESERVE bytes really allocated on
 * the record's filesystem (which also holds the runs' /work and /out, so
 * that a program filling its disk fills ours). Every supervisor makes
 * sure it is there when it opens; the first one to find the disk full
 * releases it. No room for it: the record cannot be kept, refused.
 */
int
audit_keep_room(struct audit *a, char **cause)
{
	cleanup_free char *p = NULL;
	cleanup_fd int fd = -1;
	struct stat st;
	int r;

	if (!audit_is_file(a->path))
		return 0;
	p = xasprintf("%s-reserve", a->path);
	if ((fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600)) < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		set_cause(cause, "audit: %s: cannot make the reserve: %s", p,
		    strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != getuid()) {
		set_cause(cause, "audit: %s: not a regular file of ours; "
		    "refusing it (remove it)", p);
		return -EPERM;
	}
	if (st.st_blocks * 512 < AUDIT_RESERVE &&
	    (r = -posix_fallocate(fd, 0, AUDIT_RESERVE)) < 0) {
		(void)unlink(p);
		set_cause(cause, "audit: %s: no room for the record's %d MiB "
		    "reserve: %s", p, AUDIT_RESERVE >> 20, strerror(-r));
		return r;
	}
	a->reserve = steal_ptr(&p);
	return 0;
}

/* The disk is full: give the reserve back so that this write (and the
 * few after it, to the run's end) fit. false when none is left. */
static bool
audit_reserve_release(struct audit *a)
{
	if (a->reserve == NULL || a->reserve_used)
		return false;
	a->reserve_used = true;
	return unlink(a->reserve) == 0;
}

bool
audit_low_space(const struct audit *a, char **cause)
{
	if (!a->reserve_used)
		return false;
	set_cause(cause, "audit: %s: database or disk is full (the reserve "
	    "%s was used for the last events)", a->path, a->reserve);
	return true;
}

/* ---- the check at start-up, only when there is a reason to doubt -- */

/*
 * PRAGMA quick_check reads every page: about 1 ms per MB, at every
 * start-up of every supervisor, on a file that only grows. So it runs
 * only when the file may have been damaged since it was last known good:
 *
 *  - PATH-clean, the marker, is written by the last writer to close the
 *    record cleanly: the identity (st_dev, st_ino, st_size, st_mtim,
 *    st_ctim) of the record and of its -wal as that writer left them,
 *    the boot, and when the last quick_check ran. The first writer to
 *    open the record again takes it away (it is never there while a
 *    writer has the file open) and skips the check when all of it still
 *    holds. Anything else is doubt, and doubt checks: no marker (a
 *    writer killed while it had the file open alone took it away and
 *    left none), one that does not parse or is not a 0600 regular file
 *    of ours, another boot (a power loss or an OS crash, which is what
 *    the check is for, reboots; the marker is not fsynced for that
 *    reason: after a crash it is either gone or from another boot), an
 *    identity that differs (another program wrote, touched, replaced or
 *    truncated the file or its -wal; the -wal's ctime is left out, see
 *    audit_idents), a check older than AUDIT_CHECK_AGE (silent damage
 *    on the disk is still found), or one in the future.
 *  - PATH-lock coordinates the writers of one user (supervisors, ward gc,
 *    the review verbs), by OFD locks (per open file, so two handles in
 *    one process count as two; released by the kernel when a process
 *    dies, so a SIGKILLed writer leaves nothing behind): byte 0 is the
 *    gate, held for the short decisions at open and close and through a
 *    first opener's check; byte 1 is held shared by every writer that
 *    opened the record and passed, and taken exclusive (without waiting)
 *    to learn "nobody else has it open". The file holds the identity
 *    (st_dev, st_ino) of the record the current writers passed and when
 *    it was last checked.
 *  - At open, under the gate: alone (byte 1 exclusive) -> the marker
 *    decides, as above. Not alone -> every other holder of byte 1 passed
 *    the check or a good marker before it let the gate go, and is alive
 *    (so no crash since), and sqlite's WAL survives a writer's death
 *    (SIGKILL, OOM) without damage: the check is skipped if PATH is the
 *    file they passed (same st_dev and st_ino; a record moved aside by
 *    hand and a new or other file put there is checked).
 *  - At close, under the gate: byte 1 made exclusive (atomically, from
 *    shared, without waiting) succeeds only for the last writer, which
 *    writes the marker, if the file at PATH is still the one it opened
 *    and it saw no damage or I/O error on the way. Closers go one at a
 *    time, so of two ending together the second is the last.
 *  - Read-only handles (ward log, the consoles) take no lock and never
 *    write the marker: they do not change the file (they cannot
 *    checkpoint, the file being open read-only).
 *  - Lock trouble (no lock file, the gate held too long by another, a
 *    stopped process): the opener checks as it always did and takes the
 *    marker away (it writes unseen by the others), and a closer leaves
 *    no marker.
 * Not seen: a change by another program while ward has the file open
 * (taken into the last closer's identity), or one after the last close
 * that keeps the size on a kernel that gives a file in the same clock
 * tick the same times (before Linux 6.13's fine-grained ctime): for
 * those the check every AUDIT_CHECK_AGE remains.
 */
#define AUDIT_CHECK_AGE		(7 * 24 * 3600)
/* How long an opener waits for the gate (another opener's check of a big
 * record), and a closer (which gives up the marker instead). */
#define AUDIT_GATE_OPEN_MS	5000
#define AUDIT_GATE_CLOSE_MS	1000
#define AUDIT_LOCK_GATE		0
#define AUDIT_LOCK_USERS	1

struct audit_ident {
	bool		 present;
	uint64_t	 dev, ino, size;
	int64_t		 mtime, mtime_ns, ctime, ctime_ns;
};

static void audit_read_line(const char *, char *, size_t);

static int
audit_lock(int fd, short type, off_t byte)
{
	struct flock fl = {
		.l_type = type, .l_whence = SEEK_SET, .l_start = byte,
		.l_len = 1,
	};

	return fcntl(fd, F_OFD_SETLK, &fl) < 0 ? -errno : 0;
}

/* The gate, waiting at most ms (polling: F_OFD_SETLKW has no timeout). */
static int
audit_gate(int fd, int ms)
{
	long delay = 1, waited = 0;
	int r;

	while ((r = audit_lock(fd, F_WRLCK, AUDIT_LOCK_GATE)) == -EAGAIN &&
	    waited < ms) {
		nanosleep(&(struct timespec){ .tv_nsec = delay * 1000000L },
		    NULL);
		waited += delay;
		delay = delay * 2 > 50 ? 50 : delay * 2;
	}
	return r;
}

/* A regular file of ours, by path, never followed: -ENOENT when absent. */
static int
audit_ident_of(const char *path, struct audit_ident *id)
{
	struct stat st;

	memset(id, 0, sizeof *id);
	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != getuid())
		return -EPERM;
	*id = (struct audit_ident){
		.present = true, .dev = (uint64_t)st.st_dev,
		.ino = (uint64_t)st.st_ino, .size = (uint64_t)st.st_size,
		.mtime = (int64_t)st.st_mtim.tv_sec,
		.mtime_ns = (int64_t)st.st_mtim.tv_nsec,
		.ctime = (int64_t)st.st_ctim.tv_sec,
		.ctime_ns = (int64_t)st.st_ctim.tv_nsec,
	};
	return 0;
}

/* The record's and its -wal's identities (a -wal may be absent). */
static int
audit_idents(const char *path, struct audit_ident *db,
    struct audit_ident *wal)
{
	cleanup_free char *w = xasprintf("%s-wal", path);
	int r;

	if ((r = audit_ident_of(path, db)) < 0)
		return r;
	if ((r = audit_ident_of(w, wal)) < 0 && r != -ENOENT)
		return r;
	/* sqlite, as root, fchowns the -wal to the record's owner at every
	 * open, readers' too: its ctime says nothing (its mtime does). */
	wal->ctime = wal->ctime_ns = 0;
	return 0;
}

static bool
audit_ident_equal(const struct audit_ident *a, const struct audit_ident *b)
{
	return a->present == b->present && a->dev == b->dev &&
	    a->ino == b->ino && a->size == b->size && a->mtime == b->mtime &&
	    a->mtime_ns == b->mtime_ns && a->ctime == b->ctime &&
	    a->ctime_ns == b->ctime_ns;
}

static char *
audit_ident_text(const struct audit_ident *id)
{
	if (!id->present)
		return xstrdup("none");
	return xasprintf("%llu %llu %llu %lld.%09lld %lld.%09lld",
	    (unsigned long long)id->dev, (unsigned long long)id->ino,
	    (unsigned long long)id->size, (long long)id->mtime,
	    (long long)id->mtime_ns, (long long)id->ctime,
	    (long long)id->ctime_ns);
}

static bool
audit_ident_parse(const char *s, struct audit_ident *id)
{
	unsigned long long dev, ino, size;
	long long ms, mns, cs, cns;
	int end = -1;

	memset(id, 0, sizeof *id);
	if (strcmp(s, "none") == 0)
		return true;
	if (sscanf(s, "%llu %llu %llu %lld.%9lld %lld.%9lld%n", &dev, &ino,
	    &size, &ms, &mns, &cs, &cns, &end) != 7 || s[end] != '\0')
		return false;
	*id = (struct audit_ident){
		.present = true, .dev = dev, .ino = ino, .size = size,
		.mtime = ms, .mtime_ns = mns, .ctime = cs, .ctime_ns = cns,
	};
	return true;
}

static void
audit_boot_id(char *buf, size_t len)
{
	audit_read_line("/proc/sys/kernel/random/boot_id", buf, len);
}

/*
 * The marker's text:
 *   ward-audit-clean 1
 *   boot BOOT-ID
 *   checked UNIX-SECONDS
 *   db DEV INO SIZE MTIME CTIME
 *   wal DEV INO SIZE MTIME CTIME   (or "wal none")
 */
static char *
audit_marker_text(const char *boot, int64_t checked,
    const struct audit_ident *db, const struct audit_ident *wal)
{
	cleanup_free char *d = audit_ident_text(db);
	cleanup_free char *w = audit_ident_text(wal);

	return xasprintf("ward-audit-clean 1\nboot %s\nchecked %lld\n"
	    "db %s\nwal %s\n", boot, (long long)checked, d, w);
}

/* PATH-clean: the marker's own file, beside the record. */
static char *
audit_marker_path(const char *path)
{
	return xasprintf("%s-clean", path);
}

/*
 * The first writer's look at PATH-clean, which it takes away whatever it
 * says: true when the record can be trusted without a check (*checked:
 * when it was last checked).
 */
static bool
audit_marker_take(const char *path, int64_t *checked)
{
	cleanup_free char *p = audit_marker_path(path);
	cleanup_fd int fd = -1;
	char buf[1024], boot[64], line_boot[64];
	struct audit_ident db, wal, mdb, mwal;
	struct stat st;
	long long when;
	ssize_t n;
	char *s, *nl[5];
	int64_t now = (int64_t)time(NULL);

	fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	(void)unlink(p);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & 077) != 0 ||
	    (n = read(fd, buf, sizeof buf - 1)) <= 0)
		return false;
	buf[n] = '\0';
	/* Five lines, each whole. */
	s = buf;
	for (size_t i = 0; i < ARRAY_SIZE(nl); i++) {
		if ((nl[i] = strchr(s, '\n')) == NULL)
			return false;
		*nl[i] = '\0';
		s = nl[i] + 1;
	}
	if (*s != '\0' || strcmp(buf, "ward-audit-clean 1") != 0)
		return false;
	s = nl[0] + 1;
	if (strncmp(s, "boot ", 5) != 0 ||
	    snprintf(line_boot, sizeof line_boot, "%s", s + 5) >=
	    (int)sizeof line_boot)
		return false;
	s = nl[1] + 1;
	if (sscanf(s, "checked %lld", &when) != 1)
		return false;
	s = nl[2] + 1;
	if (strncmp(s, "db ", 3) != 0 || !audit_ident_parse(s + 3, &mdb) ||
	    !mdb.present)
		return false;
	s = nl[3] + 1;
	if (strncmp(s, "wal ", 4) != 0 || !audit_ident_parse(s + 4, &mwal))
		return false;
	audit_boot_id(boot, sizeof boot);
	if (boot[0] == '\0' || strcmp(boot, line_boot) != 0)
		return false;
	if (when > now + 24 * 3600 || now - when > AUDIT_CHECK_AGE)
		return false;
	if (audit_idents(path, &db, &wal) < 0 ||
	    !audit_ident_equal(&db, &mdb) || !audit_ident_equal(&wal, &mwal))
		return false;
	*checked = (int64_t)when;
	return true;
}

static void
audit_marker_drop(const char *path)
{
	cleanup_free char *p = audit_marker_path(path);

	(void)unlink(p);
}

/* The last writer's marker; false when it cannot be written (no harm:
 * the next opener checks). */
static bool
audit_marker_put(const char *path, int64_t checked,
    const struct audit_ident *db, const struct audit_ident *wal)
{
	cleanup_free char *p = audit_marker_path(path);
	cleanup_free char *text = NULL;
	cleanup_fd int fd = -1;
	char boot[64];
	size_t len;

	audit_boot_id(boot, sizeof boot);
	if (boot[0] == '\0')
		return false;
	text = audit_marker_text(boot, checked, db, wal);
	len = strlen(text);
	/* Made anew, never followed, never another's: O_EXCL after unlink
	 * (under the gate, nobody else writes it meanwhile). */
	(void)unlink(p);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) < 0)
		return false;
	if (fchmod(fd, 0600) < 0 || write(fd, text, len) != (ssize_t)len) {
		(void)unlink(p);
		return false;
	}
	return true;
}

/* PATH-lock: a regular file of ours, or -1 (lock trouble: doubt). */
static int
audit_lock_open(const char *path)
{
	cleanup_free char *p = xasprintf("%s-lock", path);
	cleanup_fd int fd = -1;
	struct stat st;

	if ((fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC, 0600)) < 0 || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_uid != getuid())
		return -1;
	if ((st.st_mode & 077) != 0 && fchmod(fd, 0600) < 0)
		return -1;
	return steal_fd(&fd);
}

/* The lock file's text: "DEV INO CHECKED" of the record the writers that
 * have it open passed; "none" (or nothing, from an older ward) when none
 * did. */
static bool
audit_session_read(int fd, uint64_t *dev, uint64_t *ino, int64_t *checked)
{
	char buf[128];
	unsigned long long d, i;
	long long c;
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	int end = -1;

	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %lld\n%n", &d, &i, &c, &end) != 3 ||
	    end != (int)n)
		return false;
	*dev = d;
	*ino = i;
	*checked = c;
	return true;
}

/*
 * The text written over the old in place, then the file cut to its
 * length: never emptied, so that the file keeps its block. Emptying it
 * at every start-up freed the block and the next write took one again;
 * with the filesystem's discard, each free was a trim on the start's
 * critical path (0.5 ms here). Cut short midway, the file holds the new
 * text and the old one's tail, which does not read as a session: doubt,
 * as for any text that does not read.
 */
static void
audit_lock_text(int fd, const char *text, size_t n)
{
	if (pwrite(fd, text, n, 0) != (ssize_t)n || ftruncate(fd, (off_t)n) < 0)
		(void)ftruncate(fd, 0);
}

static void
audit_session_write(int fd, uint64_t dev, uint64_t ino, int64_t checked)
{
	char buf[128];
	int n = snprintf(buf, sizeof buf, "%llu %llu %lld\n",
	    (unsigned long long)dev, (unsigned long long)ino,
	    (long long)checked);

	audit_lock_text(fd, buf, (size_t)n);
}

static void
audit_session_clear(int fd)
{
	audit_lock_text(fd, "none\n", 5);
}

static void
audit_unlock_all(int fd)
{
	(void)audit_lock(fd, F_UNLCK, AUDIT_LOCK_GATE);
	(void)audit_lock(fd, F_UNLCK, AUDIT_LOCK_USERS);
}

/* What audit_vet_begin decided, for audit_vet once sqlite has the file. */
struct audit_vetting {
	int		 fd;		/* PATH-lock, or -1 */
	bool		 gate, first, trust, known;
	uint64_t	 dev, ino;	/* the file at PATH */
	int64_t		 checked;
};

static void
audit_vetting_done(struct audit_vetting *vt)
{
	if (vt->fd >= 0)
		close(vt->fd);	/* lets the gate and byte 1 go */
	vt->fd = -1;
}

#define cleanup_vetting	__attribute__((cleanup(audit_vetting_done)))

/*
 * At open, before sqlite opens the file (which, as root, chowns the -wal
 * to the record's owner and so changes its ctime): whether the file can
 * be trusted without the check (see the comment above AUDIT_CHECK_AGE).
 */
static void
audit_vet_begin(const char *path, struct audit_vetting *vt)
{
	struct audit_ident db, wal;
	uint64_t sdev = 0, sino = 0;

	*vt = (struct audit_vetting){ .fd = -1 };
	if (!audit_is_file(path))
		return;
	/* Lock trouble, or no identity to pass on: this one writes
	 * without the others knowing, so no marker may stand meanwhile (it
	 * checks, see audit_vet). */
	if ((vt->fd = audit_lock_open(path)) < 0 ||
	    audit_gate(vt->fd, AUDIT_GATE_OPEN_MS) < 0) {
		audit_marker_drop(path);
		return;
	}
	vt->gate = true;
	if (audit_idents(path, &db, &wal) < 0) {
		audit_marker_drop(path);
		return;
	}
	vt->known = true;
	vt->dev = db.dev;
	vt->ino = db.ino;
	vt->first = audit_lock(vt->fd, F_WRLCK, AUDIT_LOCK_USERS) == 0;
	if (vt->first) {
		/* What the lock file says is of writers now gone. */
		audit_session_clear(vt->fd);
		vt->trust = audit_marker_take(path, &vt->checked);
	} else {
		vt->trust = audit_session_read(vt->fd, &sdev, &sino,
		    &vt->checked) && sdev == vt->dev && sino == vt->ino;
	}
}

/* Then, with sqlite's handle: the check if it is needed, and the writer
 * joins the others. */
static int
audit_vet(struct audit *a, struct audit_vetting *vt, int v, char **cause)
{
	cleanup_free char *found = NULL;
	int r;

	if (v > 0 && !vt->trust) {
		a->checked = true;
		vt->checked = (int64_t)time(NULL);
		if ((r = audit_check_file(a, "quick_check", &found)) < 0) {
			if (cause != NULL)
				*cause = xasprintf("audit: %s: the record is "
				    "damaged (quick_check: %s); move the file "
				    "aside and ward starts a new record",
				    a->path, found);
			return r;
		}
	} else if (v == 0) {
		vt->checked = (int64_t)time(NULL);
	}
	if (vt->fd < 0)
		return 0;
	if (vt->gate && vt->known) {
		if (vt->first || !vt->trust)
			audit_session_write(vt->fd, vt->dev, vt->ino,
			    vt->checked);
		/* From exclusive to shared in one step (fcntl locks convert
		 * atomically); joining others, shared at once. */
		if (audit_lock(vt->fd, F_RDLCK, AUDIT_LOCK_USERS) == 0)
			a->joined = true;
		a->db_known = true;
		a->db_dev = vt->dev;
		a->db_ino = vt->ino;
	} else {
		/* Checked without the gate (or without its file's identity):
		 * counted as a writer if it can be, so that no other leaves a
		 * marker while this one writes, but it leaves none itself. */
		(void)audit_lock(vt->fd, F_RDLCK, AUDIT_LOCK_USERS);
	}
	(void)audit_lock(vt->fd, F_UNLCK, AUDIT_LOCK_GATE);
	a->lock_fd = vt->fd;
	vt->fd = -1;
	return 0;
}

/* At close, after sqlite's: the last writer leaves the marker. */
static void
audit_unvet(struct audit *a, bool clean)
{
	struct audit_ident db, wal;
	uint64_t sdev, sino;
	int64_t checked;

	if (a->lock_fd < 0)
		return;
	if (clean && a->joined && a->db_known && !a->doubt &&
	    audit_gate(a->lock_fd, AUDIT_GATE_CLOSE_MS) == 0 &&
	    audit_lock(a->lock_fd, F_WRLCK, AUDIT_LOCK_USERS) == 0 &&
	    audit_session_read(a->lock_fd, &sdev, &sino, &checked) &&
	    sdev == a->db_dev && sino == a->db_ino &&
	    audit_idents(a->path, &db, &wal) == 0 && db.dev == a->db_dev &&
	    db.ino == a->db_ino)
		(void)audit_marker_put(a->path, checked, &db, &wal);
	audit_unlock_all(a->lock_fd);
	close(a->lock_fd);
	a->lock_fd = -1;
}

bool
audit_checked(const struct audit *a)
{
	return a->checked;
}

static int
audit_connect(const char *path, int flags, struct audit **ret, char **cause)
{
	cleanup_audit struct audit *a = xcalloc(1, sizeof *a);
	int rc;

	a->path = xstrdup(path);
	a->lock_fd = -1;
	a->readonly = (flags & SQLITE_OPEN_READONLY) != 0;
	audit_configure_once();
	if ((rc = sqlite3_open_v2(path, &a->db, flags | SQLITE_OPEN_NOMUTEX,
	    NULL)) != SQLITE_OK) {
		if (a->db == NULL)
			fatal("out of memory");
		return audit_fail(a, rc, cause, "cannot open");
	}
	sqlite3_busy_timeout(a->db, AUDIT_BUSY_MS);
	a->busy_ms = AUDIT_BUSY_MS;
	*ret = steal_ptr(&a);
	return 0;
}

static int audit_changes_create(struct audit *, char **);

int
audit_open(const char *path, struct audit **ret, char **cause)
{
	cleanup_audit struct audit *a = NULL;
	cleanup_vetting struct audit_vetting vt = { .fd = -1 };
	int r, rc, v;

	if ((r = audit_mkdir_parent(path, cause)) < 0 ||
	    (r = audit_secure(path, cause)) < 0)
		return r;
	audit_vet_begin(path, &vt);
	if ((r = audit_connect(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOFOLLOW, &a, cause)) < 0)
		return r;
	/* The version first: a newer ward's file is left exactly as it is.
	 * WAL: readers (ward log, consoles) never block the supervisors, and
	 * NORMAL sync is safe with WAL (a crash loses at most the last
	 * commits, never the file). */
	if ((r = audit_version(a, &v, cause)) < 0 ||
	    (r = audit_check_version(a, v, cause)) < 0 ||
	    (r = audit_exec(a, "PRAGMA journal_mode=WAL", cause,
	    "setting WAL mode")) < 0 ||
	    (r = audit_exec(a, "PRAGMA synchronous=NORMAL", cause,
	    "setting synchronous")) < 0 ||
	    /* A supervisor writes in batches and reads nothing back: a
	     * small page cache keeps its memory flat whatever the output. */
	    (r = audit_exec(a, "PRAGMA cache_size=-256", cause,
	    "setting the cache size")) < 0)
		return r;
	/* No checkpoint (and its fsyncs) at every close: a writer of a run
	 * folds the WAL in at the run's end once it has grown
	 * (audit_wal_hook, audit_checkpoint_end), and other handles leave it
	 * to sqlite's own automatic checkpoints. */
	sqlite3_db_config(a->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	/* A damaged record is refused before anything is added to it. The
	 * quick check reads every page but skips the index cross-checks:
	 * about 1 ms per MB of record (measured: tests/test-audit.c), so it
	 * runs only when there is a reason to doubt the file (audit_vet). */
	if ((r = audit_vet(a, &vt, v, cause)) < 0)
		return r;
	if ((v < AUDIT_VERSION || !audit_has_state(a) ||
	    !audit_has_runs_open(a)) && (r = audit_upgrade(a, cause)) < 0)
		return r;
	a->version = AUDIT_VERSION;
	if ((r = audit_changes_create(a, cause)) < 0)
		return r;
	for (size_t i = 0; i < AUDIT_N_STMT; i++) {
		if ((rc = sqlite3_prepare_v3(a->db, audit_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &a->stmt[i], NULL)) != SQLITE_OK)
			return audit_fail(a, rc, cause, "preparing statements");
	}
	a->opened = true;
	*ret = steal_ptr(&a);
	return 0;
}

int
audit_open_readonly(const char *path, struct audit **ret, char **cause)
{
	cleanup_audit struct audit *a = NULL;
	struct stat st;
	int r, v;

	if (audit_is_file(path) && stat(path, &st) < 0) {
		r = -errno;
		if (cause != NULL)
			*cause = xasprintf("audit: %s: %s", path,
			    r == -ENOENT ? "no record yet" : strerror(-r));
		return r;
	}
	if ((r = audit_connect(path, SQLITE_OPEN_READONLY, &a, cause)) < 0 ||
	    (r = audit_version(a, &v, cause)) < 0 ||
	    (r = audit_check_version(a, v, cause)) < 0)
		return r;
	if (v == 0) {
		if (cause != NULL)
			*cause = xasprintf("audit: %s: no record yet", path);
		return -ENOENT;
	}
	a->no_state = !audit_has_state(a);
	a->version = v;
	*ret = steal_ptr(&a);
	return 0;
}

void
audit_set_busy_timeout(struct audit *a, int ms)
{
	sqlite3_busy_timeout(a->db, ms);
	a->busy_ms = ms;
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

static void
audit_backoff(long *delay)
{
	nanosleep(&(struct timespec){ .tv_sec = *delay / 1000,
	    .tv_nsec = (*delay % 1000) * 1000000L }, NULL);
	*delay = *delay * 2 > AUDIT_BACKOFF_MAX_MS ? AUDIT_BACKOFF_MAX_MS :
	    *delay * 2;
}

/*
 * Runs fn in one BEGIN IMMEDIATE transaction: the write lock is taken
 * before anything is read, so a stale snapshot cannot make it fail
 * (SQLITE_BUSY_SNAPSHOT, which no busy handler waits out). While another
 * writer holds the file past the busy timeout, or sqlite says busy
 * without waiting (a WAL recovery, a snapshot), it backs off and tries
 * again, for AUDIT_RETRY_TIMEOUTS busy timeouts in all; any other error
 * ends it at once. fn returns an sqlite result code.
 */
static int
audit_txn(struct audit *a, int (*fn)(struct audit *, void *), void *arg,
    char **cause, const char *what)
{
	int64_t until = now_mono_ms() +
	    (int64_t)AUDIT_RETRY_TIMEOUTS * (a->busy_ms > 0 ? a->busy_ms : 1);
	long delay = AUDIT_BACKOFF_MIN_MS;
	int rc, r;

	for (;;) {
		if ((rc = audit_step(a->stmt[AUDIT_BEGIN])) == SQLITE_OK &&
		    (rc = fn(a, arg)) == SQLITE_OK &&
		    (rc = audit_step(a->stmt[AUDIT_COMMIT])) == SQLITE_OK)
			return 0;
		if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
		    now_mono_ms() >= until) {
			/* The message first: ROLLBACK overwrites it. */
			r = audit_fail(a, rc, cause, what);
			if (!sqlite3_get_autocommit(a->db))
				audit_step(a->stmt[AUDIT_ROLLBACK]);
			return r;
		}
		if (!sqlite3_get_autocommit(a->db))
			audit_step(a->stmt[AUDIT_ROLLBACK]);
		audit_backoff(&delay);
	}
}

/* sqlite3_bind_* fail only for a bad index or a value over sqlite's
 * limits: either way the row must not be written with a NULL instead. */
static int
audit_bind_first(const int *rcs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rcs[i] != SQLITE_OK)
			return rcs[i];
	return SQLITE_OK;
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

/* ---- who writes a run, and runs whose writer is gone -------------- */

/* Field 22 of /proc/PID/stat (and the state, field 3): 0, -ESRCH when
 * there is no such process, other -errno when it cannot be read. */
static int
audit_proc_stat(pid_t pid, char *state, uint64_t *start)
{
	char path[64], buf[1024];
	cleanup_fd int fd = -1;
	ssize_t n;
	char *p;
	unsigned long long v = 0;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if ((n = read(fd, buf, sizeof buf - 1)) < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	buf[n] = '\0';
	/* The name (field 2) may hold spaces and ')': skip to its last ')'. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s"
	    " %*s %*s %*s %*s %*s %*s %*s %llu", state, &v) != 2)
		return -EIO;
	*start = v;
	return 0;
}

static void
audit_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

int
audit_owner_self(struct audit_owner *o)
{
	struct stat st;
	char state;
	int r;

	memset(o, 0, sizeof *o);
	o->pid = getpid();
	if ((r = audit_proc_stat(o->pid, &state, &o->start)) < 0)
		return r;
	audit_read_line("/proc/sys/kernel/random/boot_id", o->boot,
	    sizeof o->boot);
	if (stat("/proc/self/ns/pid", &st) == 0)
		o->pidns = (uint64_t)st.st_ino;
	return 0;
}

/*
 * 1 when the process that wrote o is gone (no such pid, a zombie, a pid
 * reused by a process started at another time, another boot), 0 when it
 * is there, -1 when this process cannot tell (no pid recorded, or
 * another pid namespace, where the pid means another process).
 */
static int
audit_owner_gone(const struct audit_owner *o, const struct audit_owner *me)
{
	uint64_t start;
	char state;
	int r;

	if (o->pid <= 0)
		return -1;
	if (o->boot[0] != '\0' && me->boot[0] != '\0' &&
	    strcmp(o->boot, me->boot) != 0)
		return 1;
	if (o->pidns != 0 && me->pidns != 0 && o->pidns != me->pidns)
		return -1;
	if ((r = audit_proc_stat(o->pid, &state, &start)) == -ESRCH)
		return 1;
	if (r < 0)
		return 0;	/* there, but not ours to read: not gone */
	return state == 'Z' || state == 'X' || start != o->start;
}

static void
audit_col_owner(sqlite3_stmt *s, int i, struct audit_owner *o)
{
	const char *boot = (const char *)sqlite3_column_text(s, i + 2);

	memset(o, 0, sizeof *o);
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return;
	o->pid = (pid_t)sqlite3_column_int64(s, i);
	o->start = (uint64_t)sqlite3_column_int64(s, i + 1);
	if (boot != NULL)
		snprintf(o->boot, sizeof o->boot, "%s", boot);
	o->pidns = (uint64_t)sqlite3_column_int64(s, i + 3);
}

/* The owner columns of runs, or NULLs in a file of schema 1. */
static const char *
audit_owner_cols(const struct audit *a)
{
	return a->version >= 2 ? "sup_pid, sup_start, sup_boot, sup_pidns" :
	    "NULL, NULL, NULL, NULL";
}

struct audit_lost {
	char		*run;
	pid_t		 pid;
};

struct audit_mark {
	struct audit_lost *lost;
	size_t		 n;
	int64_t		 now_ms;
	const char	*by;
	bool		*marked;	/* [n]: this call ended it */
};

static int
audit_mark_txn(struct audit *a, void *arg)
{
	struct audit_mark *m = arg;
	cleanup_stmt sqlite3_stmt *up = NULL;
	cleanup_stmt sqlite3_stmt *ev = NULL;
	int rc;

	if ((rc = sqlite3_prepare_v2(a->db, "UPDATE runs SET ended_ms = ?2,"
	    " end_reason = 'lost' WHERE id = ?1 AND ended_ms IS NULL"
	    " AND end_reason IS NULL", -1, &up, NULL)) != SQLITE_OK ||
	    (rc = sqlite3_prepare_v2(a->db, "INSERT INTO events (run, time_ms,"
	    " pid, kind, subject, detail, verdict, how, decided_by, wait_ms,"
	    " request_id) VALUES (?1, ?2, ?3, ?4, 'lost', ?5, ?6, ?7, ?8, 0,"
	    " 0)", -1, &ev, NULL)) != SQLITE_OK)
		return rc;
	for (size_t i = 0; i < m->n; i++) {
		cleanup_free char *detail = m->lost[i].pid > 0 ?
		    xasprintf("supervisor pid %d gone", (int)m->lost[i].pid) :
		    xstrdup("supervisor gone");
		int rcs[8];

		m->marked[i] = false;
		rcs[0] = audit_bind_text(up, 1, m->lost[i].run);
		rcs[1] = sqlite3_bind_int64(up, 2, m->now_ms);
		if ((rc = audit_bind_first(rcs, 2)) != SQLITE_OK ||
		    (rc = audit_step(up)) != SQLITE_OK)
			return rc;
		/* Someone else noticed first: theirs is the event. */
		if (sqlite3_changes(a->db) == 0)
			continue;
		rcs[0] = audit_bind_text(ev, 1, m->lost[i].run);
		rcs[1] = sqlite3_bind_int64(ev, 2, m->now_ms);
		rcs[2] = sqlite3_bind_int64(ev, 3, m->lost[i].pid);
		rcs[3] = audit_bind_text(ev, 4, request_kind_name(KIND_RUN));
		rcs[4] = sqlite3_bind_text(ev, 5, detail, -1, SQLITE_TRANSIENT);
		rcs[5] = audit_bind_text(ev, 6, verdict_name(VERDICT_NONE));
		rcs[6] = audit_bind_text(ev, 7, how_name(HOW_SUPERVISOR));
		rcs[7] = audit_bind_text(ev, 8, m->by);
		if ((rc = audit_bind_first(rcs, 8)) != SQLITE_OK ||
		    (rc = audit_step(ev)) != SQLITE_OK)
			return rc;
		m->marked[i] = true;
	}
	return SQLITE_OK;
}

/* The runs with no end whose writer is gone (or, not knowing it, that
 * hooks->alive says are not live). */
static int
audit_find_lost(struct audit *a, const struct audit_recover_hooks *hooks,
    struct audit_lost **ret, size_t *n_ret, char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	cleanup_free char *sql = NULL;
	struct audit_owner me;
	struct audit_lost *lost = NULL;
	size_t n = 0;
	int rc, r;

	if (audit_owner_self(&me) < 0)
		memset(&me, 0, sizeof me);
	sql = xasprintf("SELECT id, %s FROM runs WHERE ended_ms IS NULL"
	    " AND end_reason IS NULL ORDER BY started_ms, rowid",
	    audit_owner_cols(a));
	if ((rc = sqlite3_prepare_v2(a->db, sql, -1, &s, NULL)) != SQLITE_OK)
		return audit_fail(a, rc, cause, "reading");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(s, 0);
		struct audit_owner o;
		int gone;

		if (id == NULL)
			continue;
		audit_col_owner(s, 1, &o);
		gone = audit_owner_gone(&o, &me);
		if (gone < 0 && o.pid <= 0 && hooks != NULL &&
		    hooks->alive != NULL)
			gone = !hooks->alive(id, hooks->ctx);
		if (gone != 1)
			continue;
		lost = xreallocarray(lost, n + 1, sizeof *lost);
		lost[n].run = xstrdup(id);
		lost[n++].pid = o.pid;
	}
	r = rc == SQLITE_DONE ? 0 : audit_fail(a, rc, cause, "reading");
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(lost[i].run);
		free(lost);
		return r;
	}
	*ret = lost;
	*n_ret = n;
	return 0;
}

int
audit_recover(struct audit *a, int64_t now_ms, const char *by,
    const struct audit_recover_hooks *hooks, char **cause)
{
	cleanup_audit struct audit *rw = NULL;
	cleanup_free bool *marked = NULL;
	struct audit_lost *lost = NULL;
	struct audit_mark m;
	size_t n = 0;
	int r, count = 0;

	if ((r = audit_find_lost(a, hooks, &lost, &n, cause)) < 0)
		return r;
	if (n == 0)
		return 0;
	/* A reader (ward log) writes only when there is something to mark,
	 * through a handle of its own, checked as any writer's. */
	if (a->readonly && (r = audit_open(a->path, &rw, cause)) < 0)
		goto out;
	marked = xcalloc(n, sizeof *marked);
	m = (struct audit_mark){
		.lost = lost, .n = n, .now_ms = now_ms,
		.by = by != NULL ? by : "ward", .marked = marked,
	};
	if ((r = audit_txn(rw != NULL ? rw : a, audit_mark_txn, &m, cause,
	    "marking lost runs")) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!marked[i])
			continue;
		count++;
		if (hooks != NULL && hooks->on_lost != NULL)
			hooks->on_lost(lost[i].run, now_ms, hooks->ctx);
	}
	r = count;
out:
	for (size_t i = 0; i < n; i++)
		free(lost[i].run);
	free(lost);
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

static const char *
audit_col_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

static int
audit_query(struct audit *a, const char *sql, sqlite3_stmt **ret,
    char **cause)
{
	int rc = sqlite3_prepare_v2(a->db, sql, -1, ret, NULL);

	return rc == SQLITE_OK ? 0 : audit_fail(a, rc, cause, "reading");
}

int
audit_each_event(struct audit *a, const char *run,
    int (*cb)(const struct audit_event_row *, void *), void *ctx,
    char **cause)
{
	return audit_each_event_from(a, run, 0, cb, ctx, cause);
}

int
audit_each_event_from(struct audit *a, const char *run, int64_t from_seq,
    int (*cb)(const struct audit_event_row *, void *), void *ctx,
    char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	cleanup_free char *sql = NULL;
	int rc, r;

	sql = xasprintf("SELECT seq, run, time_ms, pid, kind, syscall,"
	    " subject, subject2, detail, verdict, how, rule, decided_by,"
	    " wait_ms, request_id, %s FROM events WHERE seq >= ?1%s"
	    " ORDER BY seq", a->no_state ? "NULL" : "state",
	    run != NULL ? " AND run = ?2" : "");
	if ((r = audit_query(a, sql, &s, cause)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, from_seq);
	if (run != NULL)
		audit_bind_text(s, 2, run);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct audit_event_row row = { 0 };

		row.seq = sqlite3_column_int64(s, 0);
		row.ev.run = audit_col_text(s, 1);
		row.ev.time_ms = sqlite3_column_int64(s, 2);
		row.ev.pid = (pid_t)sqlite3_column_int64(s, 3);
		row.ev.syscall = audit_col_text(s, 5);
		row.ev.subject = audit_col_text(s, 6);
		row.ev.subject2 = audit_col_text(s, 7);
		row.ev.detail = audit_col_text(s, 8);
		row.ev.rule = audit_col_text(s, 11);
		row.ev.decided_by = audit_col_text(s, 12);
		row.ev.wait_ms = sqlite3_column_int64(s, 13);
		row.ev.request_id = (uint64_t)sqlite3_column_int64(s, 14);
		if (request_kind_parse(audit_col_text(s, 4),
		    &row.ev.kind) < 0 ||
		    verdict_parse(audit_col_text(s, 9), &row.ev.verdict) < 0 ||
		    how_parse(audit_col_text(s, 10), &row.ev.how) < 0 ||
		    audit_state_parse(audit_col_text(s, 15), &row.state) < 0) {
			set_cause(cause, "audit: %s: event %lld: a kind, "
			    "verdict, how or state this ward does not know",
			    a->path,
			    (long long)row.seq);
			return -EBADMSG;
		}
		if ((r = cb(&row, ctx)) != 0)
			return r;
	}
	return rc == SQLITE_DONE ? 0 : audit_fail(a, rc, cause, "reading");
}

int
audit_each_run(struct audit *a,
    int (*cb)(const struct audit_run_row *, void *), void *ctx,
    char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	cleanup_free char *sql = NULL;
	int rc, r;

	sql = xasprintf("SELECT id, name, command, policy_path,"
	    " policy_hash, uid, started_ms, limits, ended_ms, exit_code,"
	    " exit_signal, end_reason, %s FROM runs"
	    " ORDER BY started_ms, rowid", audit_owner_cols(a));
	if ((r = audit_query(a, sql, &s, cause)) < 0)
		return r;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct audit_run_row row = { 0 };

		row.run.id = audit_col_text(s, 0);
		row.run.name = audit_col_text(s, 1);
		row.run.command = audit_col_text(s, 2);
		row.run.policy_path = audit_col_text(s, 3);
		row.run.policy_hash = audit_col_text(s, 4);
		row.run.uid = (uid_t)sqlite3_column_int64(s, 5);
		row.run.started_ms = sqlite3_column_int64(s, 6);
		row.run.limits = audit_col_text(s, 7);
		row.ended_ms = sqlite3_column_int64(s, 8);
		row.exit_code = sqlite3_column_type(s, 9) == SQLITE_NULL ? -1 :
		    sqlite3_column_int(s, 9);
		row.exit_signal = sqlite3_column_int(s, 10);
		row.end_reason = audit_col_text(s, 11);
		audit_col_owner(s, 12, &row.run.owner);
		if ((r = cb(&row, ctx)) != 0)
			return r;
	}
	return rc == SQLITE_DONE ? 0 : audit_fail(a, rc, cause, "reading");
}

int
audit_last_run(struct audit *a, char **ret, char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	int rc, r;

	if ((r = audit_query(a, "SELECT id FROM runs"
	    " ORDER BY started_ms DESC, rowid DESC LIMIT 1", &s, cause)) < 0)
		return r;
	if ((rc = sqlite3_step(s)) == SQLITE_DONE) {
		set_cause(cause, "audit: %s: no runs recorded yet", a->path);
		return -ENOENT;
	}
	if (rc != SQLITE_ROW)
		return audit_fail(a, rc, cause, "reading");
	*ret = xstrdup(audit_col_text(s, 0) ? audit_col_text(s, 0) : "");
	return 0;
}

int
audit_read_output(struct audit *a, const char *run, char **buf, size_t *len,
    char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	cleanup_free char *out = NULL;
	size_t n = 0;
	int rc, r;

	if ((r = audit_query(a, "SELECT bytes FROM output WHERE run = ?1"
	    " ORDER BY seq", &s, cause)) < 0)
		return r;
	audit_bind_text(s, 1, run);
	out = xmalloc(1);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const void *p = sqlite3_column_blob(s, 0);
		size_t m = (size_t)sqlite3_column_bytes(s, 0);

		if (m == 0)
			continue;
		out = xrealloc(out, n + m + 1);
		memcpy(out + n, p, m);
		n += m;
	}
	if (rc != SQLITE_DONE)
		return audit_fail(a, rc, cause, "reading");
	out[n] = '\0';
	*buf = steal_ptr(&out);
	*len = n;
	return 0;
}

/* The bytes audit_each_usage counts for a run: its output and the text of
 * its events (the rest of a row is a few integers). */
#define AUDIT_USAGE_BYTES(run) \
	"(SELECT total(length(bytes)) FROM output WHERE run = " run ") +" \
	" (SELECT total(ifnull(length(subject), 0) +" \
	" ifnull(length(subject2), 0) + ifnull(length(detail), 0) +" \
	" ifnull(length(decided_by), 0)) FROM events WHERE run = " run ")"

int
audit_each_usage(struct audit *a,
    int (*cb)(const struct audit_usage *, void *), void *ctx, char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	int rc, r;

	if ((r = audit_query(a, "SELECT id, started_ms, ended_ms,"
	    " (SELECT count(*) FROM events WHERE run = runs.id),"
	    " (SELECT count(*) FROM output WHERE run = runs.id), "
	    AUDIT_USAGE_BYTES("runs.id")
	    " FROM runs ORDER BY started_ms, rowid", &s, cause)) < 0)
		return r;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct audit_usage u = {
			.run = audit_col_text(s, 0),
			.started_ms = sqlite3_column_int64(s, 1),
			.ended_ms = sqlite3_column_int64(s, 2),
			.events = sqlite3_column_int64(s, 3),
			.outputs = sqlite3_column_int64(s, 4),
			.bytes = sqlite3_column_int64(s, 5),
		};

		if (u.run == NULL)
			continue;
		if ((r = cb(&u, ctx)) != 0)
			return r;
	}
	return rc == SQLITE_DONE ? 0 : audit_fail(a, rc, cause, "reading");
}

/* Runs sql with ?1 = run to its end; *changes is what it changed. */
static int
audit_forget_step(struct audit *a, const char *sql, const char *run,
    int64_t *changes, char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	int rc, r;

	if ((r = audit_query(a, sql, &s, cause)) < 0)
		return r;
	audit_bind_text(s, 1, run);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*changes = sqlite3_column_int64(s, 0);
	if (rc != SQLITE_DONE)
		return audit_fail(a, rc, cause, "removing a run");
	if (strncmp(sql, "DELETE", 6) == 0)
		*changes = sqlite3_changes(a->db);
	return 0;
}

int
audit_forget_run(struct audit *a, const char *run, struct audit_freed *freed,
    char **cause)
{
	struct audit_freed f = { 0 };
	int64_t ign = 0;
	int r;

	if (a->readonly)
		return audit_readonly(a, cause);
	if ((r = audit_exec(a, "BEGIN IMMEDIATE", cause,
	    "removing a run")) < 0)
		return r;
	if ((r = audit_forget_step(a, "SELECT " AUDIT_USAGE_BYTES("?1"), run,
	    &f.bytes, cause)) == 0 &&
	    (r = audit_forget_step(a, "DELETE FROM events WHERE run = ?1",
	    run, &f.events, cause)) == 0 &&
	    (r = audit_forget_step(a, "DELETE FROM output WHERE run = ?1",
	    run, &f.outputs, cause)) == 0 &&
	    (r = audit_forget_step(a, "DELETE FROM changes WHERE run = ?1",
	    run, &ign, cause)) == 0 &&
	    (r = audit_forget_step(a, "DELETE FROM runs WHERE id = ?1",
	    run, &f.runs, cause)) == 0)
		r = audit_exec(a, "COMMIT", cause, "removing a run");
	if (r < 0) {
		if (!sqlite3_get_autocommit(a->db))
			sqlite3_exec(a->db, "ROLLBACK", NULL, NULL, NULL);
		return r;
	}
	freed->runs += f.runs;
	freed->events += f.events;
	freed->outputs += f.outputs;
	freed->bytes += f.bytes;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The changes table (ward apply, discard, undo). */

static const char audit_changes_schema[] =
	"CREATE TABLE IF NOT EXISTS changes ("
	" seq INTEGER PRIMARY KEY, run TEXT, time_ms INTEGER, path TEXT,"
	" from_path TEXT, kind TEXT, action TEXT, before_hash TEXT,"
	" after_hash TEXT, size INTEGER, old_mode INTEGER, new_mode INTEGER,"
	" by TEXT);"
	"CREATE INDEX IF NOT EXISTS changes_run ON changes(run);";

static int
audit_changes_create(struct audit *a, char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	int rc;

	/* Most opens find it: look before taking the write lock. */
	if ((rc = sqlite3_prepare_v2(a->db, "SELECT 1 FROM sqlite_master"
	    " WHERE type = 'table' AND name = 'changes'", -1, &s, NULL)) !=
	    SQLITE_OK)
		return audit_fail(a, rc, cause, "reading the schema");
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return audit_fail(a, rc, cause, "reading the schema");
	return audit_exec(a, audit_changes_schema, cause,
	    "adding the changes table");
}

int
audit_change(struct audit *a, const struct audit_change *ch, int64_t *seq,
    char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	int r, rc;

	if (a->readonly)
		return audit_readonly(a, cause);
	if ((r = audit_query(a, "INSERT INTO changes (run, time_ms, path,"
	    " from_path, kind, action, before_hash, after_hash, size, old_mode,"
	    " new_mode, by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
	    " ?11, ?12)", &s, cause)) < 0)
		return r;
	audit_bind_text(s, 1, ch->run);
	sqlite3_bind_int64(s, 2, ch->time_ms);
	audit_bind_text(s, 3, ch->path);
	audit_bind_text(s, 4, ch->from_path);
	audit_bind_text(s, 5, ch->kind);
	audit_bind_text(s, 6, ch->action);
	audit_bind_text(s, 7, ch->before_hash);
	audit_bind_text(s, 8, ch->after_hash);
	sqlite3_bind_int64(s, 9, ch->size);
	sqlite3_bind_int64(s, 10, ch->old_mode);
	sqlite3_bind_int64(s, 11, ch->new_mode);
	audit_bind_text(s, 12, ch->by);
	if ((rc = audit_step(s)) != SQLITE_OK)
		return audit_fail(a, rc, cause, "recording a change");
	if (seq != NULL)
		*seq = sqlite3_last_insert_rowid(a->db);
	return 0;
}

int
audit_change_done(struct audit *a, int64_t seq, const char *action,
    const char *after_hash, char **cause)
{
	cleanup_stmt sqlite3_stmt *s = NULL;
	int r, rc;

	if (a->readonly)
		return audit_readonly(a, cause);
	if ((r = audit_query(a, "UPDATE changes SET action = ?2,"
	    " after_hash = ?3 WHERE seq = ?1", &s, cause)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, seq);
	audit_bind_text(s, 2, action);
	audit_bind_text(s, 3, after_hash);
	if ((rc = audit_step(s)) != SQLITE_OK)
		return audit_fail(a, rc, cause, "recording a change");
	if (sqlite3_changes(a->db) != 1) {
		set_cause(cause, "audit: %s: no change %lld", a->path,
		    (long long)seq);
		return -ENOENT;
	}
	return 0;
}

int
audit_each_change(struct audit *a, const char *run,
    int (*cb)(const struct audit_change_row *, void *), void *ctx,
    char **cause)
{
	static const char cols[] = "SELECT seq, run, time_ms, path, from_path,"
	    " kind, action, before_hash, after_hash, size, old_mode, new_mode,"
	    " by FROM changes";
	cleanup_stmt sqlite3_stmt *s = NULL;
	cleanup_free char *sql = NULL;
	int rc, r;

	sql = xasprintf("%s%s ORDER BY seq", cols,
	    run != NULL ? " WHERE run = ?1" : "");
	if (sqlite3_prepare_v2(a->db, sql, -1, &s, NULL) != SQLITE_OK) {
		/* A record no read-write ward has opened since: none yet. */
		if (strstr(sqlite3_errmsg(a->db), "no such table") != NULL)
			return 0;
		return audit_fail(a, sqlite3_errcode(a->db), cause, "reading");
	}
	if (run != NULL)
		audit_bind_text(s, 1, run);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct audit_change_row row = { 0 };

		row.seq = sqlite3_column_int64(s, 0);
		row.ch.run = audit_col_text(s, 1);
		row.ch.time_ms = sqlite3_column_int64(s, 2);
		row.ch.path = audit_col_text(s, 3);
		row.ch.from_path = audit_col_text(s, 4);
		row.ch.kind = audit_col_text(s, 5);
		row.ch.action = audit_col_text(s, 6);
		row.ch.before_hash = audit_col_text(s, 7);
		row.ch.after_hash = audit_col_text(s, 8);
		row.ch.size = sqlite3_column_int64(s, 9);
		row.ch.old_mode = (unsigned int)sqlite3_column_int64(s, 10);
		row.ch.new_mode = (unsigned int)sqlite3_column_int64(s, 11);
		row.ch.by = audit_col_text(s, 12);
		if ((r = cb(&row, ctx)) != 0)
			return r;
	}
	return rc == SQLITE_DONE ? 0 : audit_fail(a, rc, cause, "reading");
}
