/* SPDX-License-Identifier: MIT */
/*
 * The readers (approvals/audit.h): events, runs, output, usage and
 * changes, for ward log, the consoles, the CLI and the probe.
 */
#include "approvals/audit.h"
#include "approvals/audit-int.h"

#include <errno.h>
#include <string.h>

#include "config/util.h"

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

static const char *
audit_col_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
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
