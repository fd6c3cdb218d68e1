/* SPDX-License-Identifier: MIT */
/*
 * The changes table's writes, by ward apply and ward undo, and ward gc's
 * removal of a run's rows (approvals/audit-changes.h): the one exception
 * to "only the supervisor writes the record" (DESIGN 8).
 */
#include "approvals/audit-changes.h"
#include "approvals/audit-int.h"

#include <errno.h>
#include <string.h>

#include "config/util.h"

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
	if (str_has_prefix(sql, "DELETE"))
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
