/* SPDX-License-Identifier: MIT */
/*
 * The record, opened: its schema and the upgrade of an older one, the
 * handle and its teardown, and what every facet shares (errors in
 * sqlite's words, statements, transactions that retry a busy file). The
 * facets: audit-file.c, audit-write.c, audit-changes.c, audit-read.c,
 * audit-lost.c (approvals/audit-int.h says who calls whom).
 */
#include "approvals/audit.h"
#include "approvals/audit-int.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "config/util.h"

#define AUDIT_VERSION		2

/* Every supervisor of the user writes to the one file; a flush waits this
 * long for another's transaction before it gives up (and retries later). */
#define AUDIT_BUSY_MS		5000

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

void
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

void
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

/* Closes without flushing: for a handle that failed to open. */
void
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

void
audit_destroyp(struct audit **ap)
{
	audit_destroy(*ap);
}

/* An sqlite result code as -errno; the OS's own errno where it has one. */
int
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
 * *cause gets sqlite's own message, as sqlite says it ("database disk
 * image is malformed"), never strerror of the -errno returned; when the
 * file is damaged, what a full integrity_check finds is added.
 */
int
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

int
audit_readonly(struct audit *a, char **cause)
{
	set_cause(cause, "audit: %s: opened read-only", a->path);
	return -EROFS;
}

int
audit_exec(struct audit *a, const char *sql, char **cause, const char *what)
{
	int rc = sqlite3_exec(a->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : audit_fail(a, rc, cause, what);
}

/* Runs a prepared statement to its end and makes it ready for reuse. */
int
audit_step(sqlite3_stmt *s)
{
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int
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
int
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
int
audit_bind_first(const int *rcs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rcs[i] != SQLITE_OK)
			return rcs[i];
	return SQLITE_OK;
}

int
audit_query(struct audit *a, const char *sql, sqlite3_stmt **ret,
    char **cause)
{
	int rc = sqlite3_prepare_v2(a->db, sql, -1, ret, NULL);

	return rc == SQLITE_OK ? 0 : audit_fail(a, rc, cause, "reading");
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
