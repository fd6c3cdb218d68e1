/* SPDX-License-Identifier: MIT */
/*
 * approvals/audit.c against real sqlite: in memory and in a temporary file,
 * with a second raw connection where the test needs to see or disturb the
 * file from outside (as another supervisor would).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "approvals/audit.h"
#include "approvals/audit-changes.h"
#include "approvals/audit-write.h"
#include "config/util.h"

struct fixture {
	char		*dir;	/* a fresh temporary folder */
	char		*db;	/* dir/state/ward/audit.db (not created) */
};

static int
setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof *fx);
	const char *tmp = getenv("TMPDIR");

	fx->dir = xasprintf("%s/ward-test-audit.XXXXXX", tmp ? tmp : "/tmp");
	if (mkdtemp(fx->dir) == NULL)
		return -1;
	fx->db = xasprintf("%s/state/ward/audit.db", fx->dir);
	*state = fx;
	return 0;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int
teardown(void **state)
{
	struct fixture *fx = *state;

	nftw(fx->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(fx->dir);
	free(fx->db);
	free(fx);
	return 0;
}

/* A raw connection to the file, as another process would have. */
static sqlite3 *
raw_open(const char *path)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 0);
	return db;
}

static void
raw_exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
}

static int64_t
raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static char *
raw_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	char *v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return v;
}

/* What sqlite's plan for sql says, its lines joined. */
static char *
raw_plan(sqlite3 *db, const char *sql)
{
	char *q = xasprintf("EXPLAIN QUERY PLAN %s", sql), *plan = xstrdup("");
	sqlite3_stmt *s = NULL;

	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		char *more = xasprintf("%s%s;", plan,
		    (const char *)sqlite3_column_text(s, 3));

		free(plan);
		plan = more;
	}
	sqlite3_finalize(s);
	free(q);
	return plan;
}

static const struct audit_run run_a = {
	.id = "run-a",
	.name = "alpha",
	.command = "python3 agent.py --task fix",
	.policy_path = "/home/u/.config/ward/ward.ini",
	.policy_hash = "3f2a9c",
	.uid = 1000,
	.started_ms = 1000,
	.limits = "timeout=600s memory=2G pids=512 (rlimit)",
};

static const struct audit_run run_b = {
	.id = "run-b",
	.name = NULL,
	.command = "sh -c true",
	.policy_path = "share/ward.ini",
	.policy_hash = "77aa01",
	.uid = 1001,
	.started_ms = 2000,
	.limits = NULL,
};

static const struct audit_event ev_full = {
	.run = "run-a",
	.time_ms = 1234,
	.pid = 4242,
	.kind = KIND_WRITE,
	.syscall = "renameat2",
	.subject = "/etc/ward-test",
	.subject2 = "/etc/ward-test.new",
	.detail = "flags=RENAME_NOREPLACE",
	.verdict = VERDICT_ALLOW,
	.how = HOW_PERSON,
	.rule = "allow write /etc/ward-test (run)",
	.decided_by = "uid 1000 (alice) via console",
	.wait_ms = 3170,
	.request_id = 17,
};

static const struct audit_event ev_sparse = {
	.run = "run-a",
	.time_ms = 1300,
	.pid = 4243,
	.kind = KIND_CONNECT,
	.syscall = NULL,
	.subject = "pypi.org (151.101.0.223):443",
	.subject2 = NULL,
	.detail = NULL,
	.verdict = VERDICT_DENY,
	.how = HOW_TIMEOUT,
	.rule = NULL,
	.decided_by = "timeout",
	.wait_ms = 90000,
	.request_id = 0,
};

/* Event rows copied out of the callback. */
struct events {
	struct audit_event ev[64];
	int64_t		 seq[64];
	size_t		 n;
	size_t		 stop_after;	/* 0 = never */
};

static char *
dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int
collect_event(const struct audit_event_row *row, void *ctx)
{
	struct events *e = ctx;
	struct audit_event *c = &e->ev[e->n];

	assert_true(e->n < ARRAY_SIZE(e->ev));
	*c = row->ev;
	c->run = dup_or_null(row->ev.run);
	c->syscall = dup_or_null(row->ev.syscall);
	c->subject = dup_or_null(row->ev.subject);
	c->subject2 = dup_or_null(row->ev.subject2);
	c->detail = dup_or_null(row->ev.detail);
	c->rule = dup_or_null(row->ev.rule);
	c->decided_by = dup_or_null(row->ev.decided_by);
	e->seq[e->n++] = row->seq;
	if (e->stop_after != 0 && e->n == e->stop_after)
		return 77;
	return 0;
}

static int
collect_ignore(const struct audit_event_row *row, void *ctx)
{
	(void)row;
	(void)ctx;
	return 0;
}

static void
events_done(struct events *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free((char *)e->ev[i].run);
		free((char *)e->ev[i].syscall);
		free((char *)e->ev[i].subject);
		free((char *)e->ev[i].subject2);
		free((char *)e->ev[i].detail);
		free((char *)e->ev[i].rule);
		free((char *)e->ev[i].decided_by);
	}
	e->n = 0;
}

static void
assert_str_eq_or_null(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void
assert_event_equal(const struct audit_event *a, const struct audit_event *b)
{
	assert_string_equal(a->run, b->run);
	assert_int_equal(a->time_ms, b->time_ms);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->kind, b->kind);
	assert_str_eq_or_null(a->syscall, b->syscall);
	assert_str_eq_or_null(a->subject, b->subject);
	assert_str_eq_or_null(a->subject2, b->subject2);
	assert_str_eq_or_null(a->detail, b->detail);
	assert_int_equal(a->verdict, b->verdict);
	assert_int_equal(a->how, b->how);
	assert_str_eq_or_null(a->rule, b->rule);
	assert_str_eq_or_null(a->decided_by, b->decided_by);
	assert_int_equal(a->wait_ms, b->wait_ms);
	assert_int_equal(a->request_id, b->request_id);
}

/* Runs copied out of the callback. */
struct runs {
	char		*id[8];
	char		*name[8];
	char		*end_reason[8];
	int64_t		 started_ms[8];
	int64_t		 ended_ms[8];
	int		 exit_code[8];
	int		 exit_signal[8];
	uid_t		 uid[8];
	char		*limits[8];
	size_t		 n;
};

static int
collect_run(const struct audit_run_row *row, void *ctx)
{
	struct runs *r = ctx;

	assert_true(r->n < ARRAY_SIZE(r->id));
	r->id[r->n] = xstrdup(row->run.id);
	r->name[r->n] = dup_or_null(row->run.name);
	r->end_reason[r->n] = dup_or_null(row->end_reason);
	r->limits[r->n] = dup_or_null(row->run.limits);
	r->started_ms[r->n] = row->run.started_ms;
	r->ended_ms[r->n] = row->ended_ms;
	r->exit_code[r->n] = row->exit_code;
	r->exit_signal[r->n] = row->exit_signal;
	r->uid[r->n] = row->run.uid;
	r->n++;
	return 0;
}

static void
runs_done(struct runs *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->id[i]);
		free(r->name[i]);
		free(r->end_reason[i]);
		free(r->limits[i]);
	}
	r->n = 0;
}

static void
test_memory_runs(void **state)
{
	struct audit *a = NULL;
	struct runs runs = { 0 };
	char *cause = NULL, *last = NULL;

	(void)state;
	assert_int_equal(audit_open(":memory:", &a, &cause), 0);
	assert_null(cause);
	assert_int_equal(audit_last_run(a, &last, NULL), -ENOENT);
	assert_int_equal(audit_each_run(a, collect_run, &runs, NULL), 0);
	assert_int_equal(runs.n, 0);

	/* started out of order: listed by start time */
	assert_int_equal(audit_run_begin(a, &run_b, NULL), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), -EEXIST);
	assert_int_equal(audit_last_run(a, &last, NULL), 0);
	assert_string_equal(last, "run-b");
	free(last);

	assert_int_equal(audit_each_run(a, collect_run, &runs, NULL), 0);
	assert_int_equal(runs.n, 2);
	assert_string_equal(runs.id[0], "run-a");
	assert_string_equal(runs.name[0], "alpha");
	assert_string_equal(runs.limits[0], run_a.limits);
	assert_int_equal(runs.uid[0], 1000);
	assert_int_equal(runs.started_ms[0], 1000);
	/* still running */
	assert_int_equal(runs.ended_ms[0], 0);
	assert_int_equal(runs.exit_code[0], -1);
	assert_int_equal(runs.exit_signal[0], 0);
	assert_null(runs.end_reason[0]);
	assert_string_equal(runs.id[1], "run-b");
	assert_null(runs.name[1]);
	assert_null(runs.limits[1]);
	runs_done(&runs);

	assert_int_equal(audit_run_end(a, "run-a", 5000, 3, 0, "exited", NULL), 0);
	assert_int_equal(audit_run_end(a, "run-b", 6000, -1, 9, "killed", NULL), 0);
	assert_int_equal(audit_run_end(a, "run-zzz", 6000, 0, 0, "exited", NULL),
	    -ENOENT);
	assert_int_equal(audit_each_run(a, collect_run, &runs, NULL), 0);
	assert_int_equal(runs.ended_ms[0], 5000);
	assert_int_equal(runs.exit_code[0], 3);
	assert_int_equal(runs.exit_signal[0], 0);
	assert_string_equal(runs.end_reason[0], "exited");
	assert_int_equal(runs.ended_ms[1], 6000);
	assert_int_equal(runs.exit_code[1], -1);
	assert_int_equal(runs.exit_signal[1], 9);
	assert_string_equal(runs.end_reason[1], "killed");
	runs_done(&runs);
	audit_close(a);
	audit_close(NULL);
}

static void
test_memory_events(void **state)
{
	struct audit *a = NULL;
	struct audit_event other = ev_full;
	struct events got = { 0 };
	char *cause = NULL;
	char subject[64];

	(void)state;
	assert_int_equal(audit_open(":memory:", &a, &cause), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	assert_int_equal(audit_flush(a, &cause), 0);	/* nothing queued */

	/* the queue copies: the caller's strings may go right away */
	strcpy(subject, "/etc/ward-test");
	other = ev_full;
	other.subject = subject;
	audit_event(a, &other);
	memset(subject, 'X', sizeof subject - 1);
	audit_event(a, &ev_sparse);
	other = ev_full;
	other.run = "run-b";
	other.kind = KIND_RUN;
	other.verdict = VERDICT_KILL;
	other.how = HOW_SUPERVISOR;
	audit_event(a, &other);
	assert_int_equal(audit_pending(a), 3);

	/* queued is not yet written */
	assert_int_equal(audit_each_event(a, NULL, collect_event, &got, NULL), 0);
	assert_int_equal(got.n, 0);

	assert_int_equal(audit_flush(a, &cause), 0);
	assert_null(cause);
	assert_int_equal(audit_pending(a), 0);

	assert_int_equal(audit_each_event(a, NULL, collect_event, &got, NULL), 0);
	assert_int_equal(got.n, 3);
	assert_event_equal(&got.ev[0], &ev_full);
	assert_event_equal(&got.ev[1], &ev_sparse);
	assert_event_equal(&got.ev[2], &other);
	assert_true(got.seq[0] < got.seq[1] && got.seq[1] < got.seq[2]);
	events_done(&got);

	assert_int_equal(audit_each_event(a, "run-a", collect_event, &got, NULL), 0);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.ev[1].kind, KIND_CONNECT);
	events_done(&got);
	assert_int_equal(audit_each_event(a, "run-b", collect_event, &got, NULL), 0);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.ev[0].verdict, VERDICT_KILL);
	events_done(&got);
	assert_int_equal(audit_each_event(a, "nope", collect_event, &got, NULL), 0);
	assert_int_equal(got.n, 0);

	/* a callback's non-zero stops the walk and is returned */
	got.stop_after = 2;
	assert_int_equal(audit_each_event(a, NULL, collect_event, &got, NULL), 77);
	assert_int_equal(got.n, 2);
	events_done(&got);

	/* every kind, verdict and how survives the trip */
	for (int k = KIND_WRITE; k <= KIND_RUN; k++) {
		other = ev_sparse;
		other.kind = (enum request_kind)k;
		other.verdict = (enum verdict)(k % (VERDICT_KILL + 1));
		other.how = (enum how)(k % (HOW_SUPERVISOR + 1));
		audit_event(a, &other);
	}
	assert_int_equal(audit_flush(a, &cause), 0);
	got.stop_after = 0;
	assert_int_equal(audit_each_event(a, NULL, collect_event, &got, NULL), 0);
	assert_int_equal(got.n, 3 + KIND_RUN + 1);
	for (int k = KIND_WRITE; k <= KIND_RUN; k++) {
		assert_int_equal(got.ev[3 + k].kind, k);
		assert_int_equal(got.ev[3 + k].verdict, k % (VERDICT_KILL + 1));
		assert_int_equal(got.ev[3 + k].how, k % (HOW_SUPERVISOR + 1));
	}
	events_done(&got);
	audit_close(a);
}

static void
test_output_coalescing(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL, *buf = NULL, *big;
	size_t len = 0;
	sqlite3 *raw;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_string_equal(audit_stream_name(AUDIT_PTY), "pty");

	audit_output(a, "run-a", AUDIT_STDOUT, 10, "abc", 3);
	audit_output(a, "run-a", AUDIT_STDOUT, 11, "def", 3);
	assert_int_equal(audit_pending(a), 1);
	audit_output(a, "run-a", AUDIT_STDERR, 12, "x", 1);
	assert_int_equal(audit_pending(a), 2);
	/* not consecutive with the first stdout any more */
	audit_output(a, "run-a", AUDIT_STDOUT, 13, "g\0h", 3);
	assert_int_equal(audit_pending(a), 3);
	audit_output(a, "run-b", AUDIT_STDOUT, 14, "other", 5);
	assert_int_equal(audit_pending(a), 4);
	audit_output(a, "run-a", AUDIT_STDOUT, 15, "", 0);
	assert_int_equal(audit_pending(a), 4);

	/* 200 KiB in 1000-byte pieces: rows of 64 KiB, the last shorter */
	big = xmalloc(200 * 1024);
	for (size_t i = 0; i < 200 * 1024; i++)
		big[i] = (char)('a' + i % 26);
	for (size_t off = 0; off < 200 * 1024; off += 1000) {
		size_t n = 200 * 1024 - off < 1000 ? 200 * 1024 - off : 1000;

		audit_output(a, "run-c", AUDIT_PTY, 100, big + off, n);
	}
	assert_int_equal(audit_pending(a), 4 + 4);
	/* one call bigger than a row is split too */
	audit_output(a, "run-d", AUDIT_PTY, 200, big, 200 * 1024);
	assert_int_equal(audit_pending(a), 8 + 4);
	assert_int_equal(audit_flush(a, &cause), 0);

	assert_int_equal(audit_read_output(a, "run-a", &buf, &len, NULL), 0);
	assert_int_equal(len, 10);
	assert_memory_equal(buf, "abcdefxg\0h", 10);
	assert_int_equal(buf[len], '\0');
	free(buf);
	assert_int_equal(audit_read_output(a, "run-c", &buf, &len, NULL), 0);
	assert_int_equal(len, 200 * 1024);
	assert_memory_equal(buf, big, len);
	free(buf);
	assert_int_equal(audit_read_output(a, "run-d", &buf, &len, NULL), 0);
	assert_int_equal(len, 200 * 1024);
	assert_memory_equal(buf, big, len);
	free(buf);
	assert_int_equal(audit_read_output(a, "none", &buf, &len, NULL), 0);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
	free(buf);

	raw = raw_open(fx->db);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM output"), 12);
	assert_int_equal(raw_int(raw, "SELECT max(length(bytes)) FROM output"),
	    64 * 1024);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM output"
	    " WHERE run = 'run-c' AND length(bytes) = 65536"), 3);
	/* a row keeps the time of its first piece */
	assert_int_equal(raw_int(raw, "SELECT time_ms FROM output"
	    " WHERE run = 'run-a' ORDER BY seq LIMIT 1"), 10);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM output"
	    " WHERE run = 'run-a' AND stream = 'stderr'"), 1);
	sqlite3_close(raw);
	free(big);
	audit_close(a);
}

static void
test_file_reopen(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct events got = { 0 };
	struct stat st;
	char *cause = NULL, *last = NULL, *buf = NULL, *s;
	size_t len;
	sqlite3 *raw;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	/* the folders it made are private */
	s = xasprintf("%s/state/ward", fx->dir);
	assert_int_equal(stat(s, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	free(s);

	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	audit_event(a, &ev_full);
	audit_output(a, "run-a", AUDIT_PTY, 1, "hello\n", 6);
	/* close flushes */
	audit_close(a);

	raw = raw_open(fx->db);
	assert_int_equal(raw_int(raw, "PRAGMA user_version"), 2);
	s = raw_text(raw, "PRAGMA journal_mode");
	assert_string_equal(s, "wal");
	free(s);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM sqlite_master"
	    " WHERE type = 'index' AND name IN ('events_run', 'output_run')"), 2);
	s = raw_text(raw, "SELECT kind || ' ' || verdict || ' ' || how"
	    " FROM events");
	assert_string_equal(s, "write allow person");
	free(s);
	sqlite3_close(raw);

	/* reopening keeps what is there */
	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_int_equal(audit_run_begin(a, &run_b, NULL), 0);
	audit_close(a);

	assert_int_equal(audit_open_readonly(fx->db, &a, &cause), 0);
	assert_null(cause);
	assert_int_equal(audit_last_run(a, &last, NULL), 0);
	assert_string_equal(last, "run-b");
	free(last);
	assert_int_equal(audit_each_event(a, "run-a", collect_event, &got, NULL), 0);
	assert_int_equal(got.n, 1);
	assert_event_equal(&got.ev[0], &ev_full);
	events_done(&got);
	assert_int_equal(audit_read_output(a, "run-a", &buf, &len, NULL), 0);
	assert_string_equal(buf, "hello\n");
	free(buf);
	/* a reader does not write */
	assert_int_equal(audit_run_begin(a, &run_b, NULL), -EROFS);
	assert_int_equal(audit_run_end(a, "run-a", 1, 0, 0, "exited", NULL), -EROFS);
	audit_event(a, &ev_full);
	assert_int_equal(audit_flush(a, &cause), -EROFS);
	assert_non_null(strstr(cause, "read-only"));
	free(cause);
	cause = NULL;
	audit_close(a);
}

/* Another writer holds the file: the flush fails, keeps its batch, and a
 * later flush writes it exactly once. */
static void
test_flush_busy(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct events got = { 0 };
	char *cause = NULL, *buf = NULL;
	size_t len;
	sqlite3 *raw;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	audit_set_busy_timeout(a, 50);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	audit_event(a, &ev_full);
	audit_event(a, &ev_sparse);
	audit_output(a, "run-a", AUDIT_STDOUT, 1, "one ", 4);

	raw = raw_open(fx->db);
	raw_exec(raw, "BEGIN EXCLUSIVE");
	assert_int_equal(audit_flush(a, &cause), -EBUSY);
	assert_non_null(cause);
	assert_non_null(strstr(cause, fx->db));
	free(cause);
	cause = NULL;
	assert_int_equal(audit_pending(a), 3);
	/* more arrives while the file is busy; it joins the batch */
	audit_output(a, "run-a", AUDIT_STDOUT, 2, "two", 3);
	assert_int_equal(audit_pending(a), 3);
	assert_int_equal(audit_flush(a, &cause), -EBUSY);
	free(cause);
	cause = NULL;
	raw_exec(raw, "ROLLBACK");

	assert_int_equal(audit_flush(a, &cause), 0);
	assert_null(cause);
	assert_int_equal(audit_pending(a), 0);
	assert_int_equal(audit_each_event(a, NULL, collect_event, &got, NULL), 0);
	assert_int_equal(got.n, 2);
	assert_event_equal(&got.ev[0], &ev_full);
	assert_event_equal(&got.ev[1], &ev_sparse);
	events_done(&got);
	assert_int_equal(audit_read_output(a, "run-a", &buf, &len, NULL), 0);
	assert_string_equal(buf, "one two");
	free(buf);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM events"), 2);
	sqlite3_close(raw);
	audit_close(a);
}

/* A flush that fails half-way (events in, output refused) leaves nothing
 * of the batch in the file, and the handle usable. */
static void
test_flush_atomic(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL;
	sqlite3 *raw;
	int r;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	raw = raw_open(fx->db);
	raw_exec(raw, "CREATE TRIGGER refuse BEFORE INSERT ON output"
	    " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");

	for (int i = 0; i < 10; i++)
		audit_event(a, &ev_full);
	audit_output(a, "run-a", AUDIT_STDOUT, 1, "out", 3);
	r = audit_flush(a, &cause);
	assert_true(r < 0);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "disk on fire"));
	free(cause);
	cause = NULL;
	assert_int_equal(audit_pending(a), 11);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM events"), 0);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM output"), 0);

	/* not left inside a transaction */
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM runs"), 1);

	raw_exec(raw, "DROP TRIGGER refuse");
	assert_int_equal(audit_flush(a, &cause), 0);
	assert_int_equal(audit_pending(a), 0);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM events"), 10);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM output"), 1);
	sqlite3_close(raw);
	audit_close(a);
}

/* Two supervisors of one user share the file. */
static void
test_two_writers(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL, *b = NULL;
	struct audit_event e = ev_sparse;
	struct runs runs = { 0 };
	struct events got = { 0 };
	char *cause = NULL;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_int_equal(audit_open(fx->db, &b, &cause), 0);
	assert_int_equal(audit_run_begin(b, &run_b, NULL), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	for (int i = 0; i < 5; i++) {
		e.run = "run-a";
		e.time_ms = i;
		audit_event(a, &e);
		e.run = "run-b";
		audit_event(b, &e);
		assert_int_equal(audit_flush(i % 2 ? a : b, &cause), 0);
	}
	assert_int_equal(audit_flush(a, &cause), 0);
	assert_int_equal(audit_flush(b, &cause), 0);
	assert_int_equal(audit_each_run(a, collect_run, &runs, NULL), 0);
	assert_int_equal(runs.n, 2);
	assert_string_equal(runs.id[0], "run-a");
	assert_string_equal(runs.id[1], "run-b");
	runs_done(&runs);
	assert_int_equal(audit_each_event(b, "run-a", collect_event, &got, NULL), 0);
	assert_int_equal(got.n, 5);
	for (size_t i = 0; i < got.n; i++)
		assert_int_equal(got.ev[i].time_ms, (int64_t)i);
	events_done(&got);
	audit_close(a);
	audit_close(b);
}

static void
test_readonly_missing(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct stat st;
	char *cause = NULL, *empty;
	sqlite3 *raw;

	assert_int_equal(audit_open_readonly(fx->db, &a, &cause), -ENOENT);
	assert_null(a);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	/* and it did not create anything */
	assert_int_equal(stat(fx->db, &st), -1);
	assert_int_equal(errno, ENOENT);

	/* a file without the schema has no record either */
	empty = xasprintf("%s/empty.db", fx->dir);
	raw = raw_open(empty);
	raw_exec(raw, "CREATE TABLE unrelated (x)");
	sqlite3_close(raw);
	assert_int_equal(audit_open_readonly(empty, &a, &cause), -ENOENT);
	assert_null(a);
	free(cause);
	free(empty);
}

static void
test_version_newer(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL, *path, *mode;
	sqlite3 *raw;

	path = xasprintf("%s/future.db", fx->dir);
	raw = raw_open(path);
	raw_exec(raw, "PRAGMA user_version = 1000");
	sqlite3_close(raw);

	assert_int_equal(audit_open(path, &a, &cause), -ENOTSUP);
	assert_null(a);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "schema version 1000"));
	assert_non_null(strstr(cause, path));
	free(cause);
	cause = NULL;
	assert_int_equal(audit_open_readonly(path, &a, &cause), -ENOTSUP);
	assert_non_null(strstr(cause, "schema version 1000"));
	free(cause);
	cause = NULL;

	/* untouched: still version 2, no tables added, journal mode kept */
	raw = raw_open(path);
	assert_int_equal(raw_int(raw, "PRAGMA user_version"), 1000);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM sqlite_master"), 0);
	mode = raw_text(raw, "PRAGMA journal_mode");
	assert_string_equal(mode, "delete");
	free(mode);
	sqlite3_close(raw);
	free(path);
}

static void
test_not_a_database(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL, *path, junk[4096];
	int fd;

	memset(junk, 'j', sizeof junk);
	path = xasprintf("%s/garbage.db", fx->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, junk, sizeof junk), 0);
	close(fd);
	assert_true(audit_open(path, &a, &cause) < 0);
	assert_null(a);
	assert_non_null(cause);
	assert_non_null(strstr(cause, path));
	free(cause);
	free(path);
}

static mode_t
file_mode(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/* The record, its -wal and -shm 0600 whatever the umask allows. */
static void
test_file_modes(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL;
	char *wal = xasprintf("%s-wal", fx->db);
	char *shm = xasprintf("%s-shm", fx->db);
	mode_t old = umask(0);

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	umask(old);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	assert_int_equal(file_mode(fx->db), 0600);
	assert_int_equal(file_mode(wal), 0600);
	assert_int_equal(file_mode(shm), 0600);
	audit_close(a);
	/* one of ours left 0666 (an older ward, a umask of 0) is made 0600 */
	assert_int_equal(chmod(fx->db, 0666), 0);
	assert_int_equal(chmod(wal, 0644), 0);
	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_int_equal(file_mode(fx->db), 0600);
	assert_int_equal(file_mode(wal), 0600);
	audit_close(a);
	free(shm);
	free(wal);
}

static void
assert_open_refused(const char *path, int want, const char *want_cause)
{
	struct audit *a = NULL;
	char *cause = NULL;
	int r = audit_open(path, &a, &cause);

	if (r != want)
		fail_msg("audit_open: %d (%s), want %d", r, cause, want);
	assert_null(a);
	if (cause == NULL || strstr(cause, want_cause) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\"", cause, want_cause);
	free(cause);
}

static void
test_file_refused(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL;
	char *other = xasprintf("%s/other.db", fx->dir);
	char *wal = xasprintf("%s-wal", fx->db);
	struct stat st;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	audit_close(a);
	/* a symlink, at the record or beside it: never followed */
	assert_int_equal(rename(fx->db, other), 0);
	assert_int_equal(symlink(other, fx->db), 0);
	assert_open_refused(fx->db, -ELOOP, "audit.db: is a symlink");
	assert_int_equal(unlink(fx->db), 0);
	assert_int_equal(rename(other, fx->db), 0);
	unlink(wal);
	assert_int_equal(symlink(other, wal), 0);
	assert_open_refused(fx->db, -ELOOP, "audit.db-wal: is a symlink");
	assert_int_equal(stat(other, &st), -1);
	assert_int_equal(unlink(wal), 0);
	/* another user's */
	if (chown(fx->db, getuid() == 65534 ? 65533 : 65534, (gid_t)-1) == 0) {
		assert_int_equal(chmod(fx->db, 0666), 0);
		assert_open_refused(fx->db, -EPERM, "owned by uid 6553");
		assert_int_equal(file_mode(fx->db), 0666);
	}
	free(wal);
	free(other);
}

/* A record with events, checkpointed into the main file, and the size. */
static off_t
make_record(const char *path, int n_events)
{
	struct audit *a = NULL;
	char *cause = NULL;
	struct audit_event e = ev_full;
	sqlite3 *raw;
	struct stat st;

	assert_int_equal(audit_open(path, &a, &cause), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	for (int i = 0; i < n_events; i++) {
		e.pid = 100 + i;
		audit_event(a, &e);
	}
	assert_int_equal(audit_flush(a, &cause), 0);
	audit_close(a);
	raw = raw_open(path);
	raw_exec(raw, "PRAGMA wal_checkpoint(TRUNCATE)");
	sqlite3_close(raw);
	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/*
 * A damaged record: refused by the quick check on open, and a reader gets
 * sqlite's own words and integrity_check's findings, not "Bad message".
 */
static void
test_damaged(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL, junk[4096];
	off_t size = make_record(fx->db, 2000);
	int fd;

	assert_true(size > 16 * 4096);
	memset(junk, 0x5a, sizeof junk);
	fd = open(fx->db, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	/* pages in the middle: the events table's, not the header */
	assert_int_equal(pwrite(fd, junk, sizeof junk, size / 2 / 4096 * 4096),
	    (ssize_t)sizeof junk);
	close(fd);
	assert_open_refused(fx->db, -EBADMSG, "the record is damaged "
	    "(quick_check: ");

	assert_int_equal(audit_open_readonly(fx->db, &a, &cause), 0);
	assert_int_equal(audit_each_event(a, NULL, collect_ignore, NULL,
	    &cause), -EBADMSG);
	assert_non_null(cause);
	if (strstr(cause, "database disk image is malformed") == NULL ||
	    strstr(cause, "integrity_check: ") == NULL ||
	    strstr(cause, fx->db) == NULL)
		fail_msg("cause: %s", cause);
	free(cause);
	audit_close(a);
}

/* What the quick check on open costs on a record of 10,000 events. */
static void
test_quick_check_cost(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL;
	off_t size = make_record(fx->db, 10000);
	struct timespec t0, t1;

	double with, without;

	/* make_record's checkpoint came from outside ward: checked. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(audit_checked(a));
	audit_close(a);
	with = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	/* after ward's own clean end: not */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_false(audit_checked(a));
	audit_close(a);
	without = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	print_message("audit_open, 10000 events (%lld KiB): %.2f ms with "
	    "quick_check, %.2f ms after a clean end\n", (long long)size / 1024,
	    with, without);
}

/* ---- the check at start-up: only when there is a reason to doubt --- */

/* Opens, says whether the check ran, closes (cleanly: the marker). */
static bool
open_checked(const char *path)
{
	struct audit *a = NULL;
	char *cause = NULL;
	bool checked;

	if (audit_open(path, &a, &cause) != 0)
		fail_msg("audit_open: %s", cause);
	checked = audit_checked(a);
	audit_close(a);
	return checked;
}

static bool
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static char *
slurp(const char *path)
{
	char buf[2048];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	return xstrdup(buf);
}

static void
spit(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* The marker with line PREFIX... replaced by LINE. */
static void
marker_edit(const char *marker, const char *prefix, const char *line)
{
	char *text = slurp(marker), *at = strstr(text, prefix), *end, *t;

	assert_non_null(at);
	end = strchr(at, '\n');
	assert_non_null(end);
	*at = '\0';
	t = xasprintf("%s%s%s", text, line, end);
	spit(marker, t);
	free(t);
	free(text);
}

/* A record of events, closed by ward (so its marker says clean). */
static void
make_clean(const char *path)
{
	make_record(path, 500);
	/* make_record's own checkpoint came from outside ward: checked. */
	assert_true(open_checked(path));
}

/*
 * After a clean end the next start-up does not read the whole file; the
 * marker is taken away while a writer has the record open and is back
 * once the last one closes, 0600; a reader changes nothing.
 */
static void
test_check_skipped(void **state)
{
	struct fixture *fx = *state;
	char *marker = xasprintf("%s-clean", fx->db);
	struct audit *a = NULL, *r = NULL;
	char *cause = NULL;

	/* A new file: nothing to check, and its end is clean. */
	assert_false(open_checked(fx->db));
	assert_true(exists(marker));
	assert_int_equal(file_mode(marker), 0600);
	make_clean(fx->db);
	assert_false(open_checked(fx->db));

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_false(audit_checked(a));
	assert_false(exists(marker));
	assert_int_equal(audit_run_begin(a, &run_b, NULL), 0);
	for (int i = 0; i < 300; i++)
		audit_event(a, &ev_full);
	assert_int_equal(audit_flush(a, &cause), 0);
	audit_close(a);
	assert_true(exists(marker));

	assert_int_equal(audit_open_readonly(fx->db, &r, &cause), 0);
	assert_int_equal(audit_each_event(r, NULL, collect_ignore, NULL,
	    &cause), 0);
	audit_close(r);
	assert_false(open_checked(fx->db));
	assert_false(open_checked(fx->db));
	free(marker);
}

/* Doubt checks: no marker, a changed file or -wal, a marker that is old,
 * of another boot, garbage, or a symlink. */
static void
test_check_doubt(void **state)
{
	struct fixture *fx = *state;
	char *marker = xasprintf("%s-clean", fx->db);
	char *wal = xasprintf("%s-wal", fx->db);
	char *line = NULL;
	struct timespec times[2] = {
		{ .tv_sec = 1000000000 }, { .tv_sec = 1000000000 },
	};
	int fd;

	make_clean(fx->db);
	assert_false(open_checked(fx->db));

	assert_int_equal(unlink(marker), 0);
	assert_true(open_checked(fx->db));
	assert_false(open_checked(fx->db));

	/* touched by another program (the time only) */
	assert_int_equal(utimensat(AT_FDCWD, fx->db, times, 0), 0);
	assert_true(open_checked(fx->db));
	assert_false(open_checked(fx->db));

	/* a byte added to the -wal (a torn frame: sqlite ignores it) */
	assert_true(exists(wal));
	fd = open(wal, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	assert_true(open_checked(fx->db));
	assert_false(open_checked(fx->db));

	/* the last check 8 days ago */
	line = xasprintf("checked %lld", (long long)time(NULL) - 8 * 86400);
	marker_edit(marker, "checked ", line);
	assert_true(open_checked(fx->db));
	assert_false(open_checked(fx->db));
	/* 6 days: still trusted (the edit keeps the identities) */
	free(line);
	line = xasprintf("checked %lld", (long long)time(NULL) - 6 * 86400);
	marker_edit(marker, "checked ", line);
	assert_false(open_checked(fx->db));

	/* another boot: a power loss or a crash since */
	marker_edit(marker, "boot ", "boot 00000000-0000-0000-0000-000000000000");
	assert_true(open_checked(fx->db));

	/* garbage, cut short, or a symlink to a good one */
	spit(marker, "ward-audit-clean 1\nboot");
	assert_true(open_checked(fx->db));
	{
		char *good = xasprintf("%s/good", fx->dir);

		assert_int_equal(rename(marker, good), 0);
		assert_int_equal(symlink(good, marker), 0);
		assert_true(open_checked(fx->db));
		free(good);
	}
	assert_false(open_checked(fx->db));
	free(line);
	free(wal);
	free(marker);
}

/*
 * A writer that never closed (killed): the marker is gone with it, so the
 * next start-up checks. One killed while another writer runs leaves the
 * record to that one, which, the last to close, marks it clean.
 */
static void
test_check_writer_died(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL;
	struct audit_run run_c = run_b;
	pid_t child;
	int status;

	run_c.id = "run-c";

	make_clean(fx->db);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct audit *c = NULL;

		if (audit_open(fx->db, &c, NULL) != 0 || audit_checked(c) ||
		    audit_run_begin(c, &run_b, NULL) != 0)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(open_checked(fx->db));

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_false(audit_checked(a));
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct audit *c = NULL;

		/* not alone: the open writer vouches for the file */
		if (audit_open(fx->db, &c, NULL) != 0)
			_exit(1);
		if (audit_checked(c))
			_exit(2);
		if (audit_run_begin(c, &run_c, NULL) != 0)
			_exit(3);
		_exit(0);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	audit_close(a);
	assert_false(open_checked(fx->db));
}

/* Writers at once: the first checks (no marker), the others do not; only
 * the last to close leaves the marker. A record moved aside by hand and
 * another file put in its place is checked though writers are open. */
static void
test_check_writers(void **state)
{
	struct fixture *fx = *state;
	char *marker = xasprintf("%s-clean", fx->db);
	char *other = xasprintf("%s/other.db", fx->dir);
	char *aside = xasprintf("%s.aside", fx->db);
	struct audit *a = NULL, *b = NULL, *c = NULL;
	char *cause = NULL;

	make_clean(fx->db);
	assert_int_equal(unlink(marker), 0);
	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_true(audit_checked(a));
	assert_int_equal(audit_open(fx->db, &b, &cause), 0);
	assert_false(audit_checked(b));
	audit_close(a);
	assert_false(exists(marker));
	audit_close(b);
	assert_true(exists(marker));

	make_record(other, 50);
	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_false(audit_checked(a));
	assert_int_equal(rename(fx->db, aside), 0);
	assert_int_equal(rename(other, fx->db), 0);
	assert_int_equal(audit_open(fx->db, &b, &cause), 0);
	assert_true(audit_checked(b));
	assert_int_equal(audit_open(fx->db, &c, &cause), 0);
	assert_false(audit_checked(c));
	audit_close(b);
	audit_close(c);
	/* a still writes (to the file moved aside): not the last ones */
	assert_false(exists(marker));
	/* and a, the last, vouches only for the file it opened */
	audit_close(a);
	assert_false(exists(marker));
	assert_true(open_checked(fx->db));
	assert_false(open_checked(fx->db));
	free(aside);
	free(other);
	free(marker);
}

/*
 * Damage written behind ward's back after a clean end, the size kept:
 * still refused, at every start-up, with the same message.
 */
static void
test_check_damaged_after_clean(void **state)
{
	struct fixture *fx = *state;
	char junk[4096];
	off_t size = make_record(fx->db, 2000);
	int fd;

	assert_true(open_checked(fx->db));
	assert_false(open_checked(fx->db));
	/* Past the clock tick of the close: before Linux 6.13, a write in
	 * the same tick may keep the file's times (audit.c says so). */
	usleep(20 * 1000);
	memset(junk, 0x5a, sizeof junk);
	fd = open(fx->db, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, junk, sizeof junk, size / 2 / 4096 * 4096),
	    (ssize_t)sizeof junk);
	close(fd);
	assert_open_refused(fx->db, -EBADMSG, "the record is damaged "
	    "(quick_check: ");
	assert_open_refused(fx->db, -EBADMSG, "move the file aside");
}

/* Damage met by a writer while it has the file open: it leaves no
 * marker, and the next start-up checks and refuses. */
static void
test_check_damage_seen(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL, junk[4096];
	char *marker = xasprintf("%s-clean", fx->db);
	off_t size = make_record(fx->db, 2000);
	int fd;

	assert_true(open_checked(fx->db));
	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_false(audit_checked(a));
	memset(junk, 0x5a, sizeof junk);
	fd = open(fx->db, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, junk, sizeof junk, size / 2 / 4096 * 4096),
	    (ssize_t)sizeof junk);
	close(fd);
	assert_int_equal(audit_each_event(a, NULL, collect_ignore, NULL,
	    &cause), -EBADMSG);
	free(cause);
	cause = NULL;
	audit_close(a);
	assert_false(exists(marker));
	assert_open_refused(fx->db, -EBADMSG, "the record is damaged");
	free(marker);
}

/*
 * The lock file is written in place and never emptied (an emptied file
 * gives its block back, a trim on every start with discard): it holds
 * the session, "DEV INO CHECKED", and a writer that joins trusts only a
 * text that reads whole and names the record; "none", or the new text
 * over a longer old one's tail (a write cut short), is doubt.
 */
static void
test_lock_text_in_place(void **state)
{
	struct fixture *fx = *state;
	char *lock = xasprintf("%s-lock", fx->db);
	struct audit *a = NULL, *b = NULL;
	struct stat st, db;
	char *text, *want;
	int fd;

	make_clean(fx->db);
	assert_int_equal(audit_open(fx->db, &a, NULL), 0);
	assert_false(audit_checked(a));
	assert_int_equal(stat(fx->db, &db), 0);
	want = xasprintf("%llu %llu ", (unsigned long long)db.st_dev,
	    (unsigned long long)db.st_ino);
	text = slurp(lock);
	assert_true(strncmp(text, want, strlen(want)) == 0);
	free(text);
	assert_int_equal(stat(lock, &st), 0);
	assert_true(st.st_blocks > 0);
	/* a second writer joins on the session's word */
	assert_int_equal(audit_open(fx->db, &b, NULL), 0);
	assert_false(audit_checked(b));
	audit_close(b);
	/* "none": it checks */
	fd = open(lock, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "none\n", 5), 5);
	assert_int_equal(audit_open(fx->db, &b, NULL), 0);
	assert_true(audit_checked(b));
	audit_close(b);
	/* the session, with an old text's tail after it: it checks */
	text = slurp(lock);
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, text, strlen(text), 0),
	    (ssize_t)strlen(text));
	assert_int_equal(pwrite(fd, "99\n", 3, (off_t)strlen(text)), 3);
	assert_int_equal(audit_open(fx->db, &b, NULL), 0);
	assert_true(audit_checked(b));
	audit_close(b);
	close(fd);
	free(text);
	audit_close(a);
	/* the first writer of the next session clears it in place */
	assert_int_equal(audit_open(fx->db, &a, NULL), 0);
	assert_int_equal(stat(lock, &st), 0);
	assert_true(st.st_blocks > 0);
	text = slurp(lock);
	assert_true(strncmp(text, want, strlen(want)) == 0);
	assert_non_null(strchr(text, '\n'));
	assert_string_equal(strchr(text, '\n'), "\n");
	free(text);
	audit_close(a);
	free(want);
	free(lock);
}

/* Lock trouble (the lock file a symlink): every open checks, as before,
 * and none leaves a marker it could not coordinate. */
static void
test_check_lock_trouble(void **state)
{
	struct fixture *fx = *state;
	char *lock = xasprintf("%s-lock", fx->db);
	char *marker = xasprintf("%s-clean", fx->db);
	char *elsewhere = xasprintf("%s/elsewhere", fx->dir);

	make_clean(fx->db);
	assert_int_equal(unlink(lock), 0);
	assert_int_equal(symlink(elsewhere, lock), 0);
	assert_true(open_checked(fx->db));
	assert_false(exists(marker));
	assert_true(open_checked(fx->db));
	assert_int_equal(unlink(lock), 0);
	assert_true(open_checked(fx->db));
	assert_false(open_checked(fx->db));
	free(elsewhere);
	free(marker);
	free(lock);
}

/* Many writers starting and ending at once: none fails, and when all
 * are gone the last one's marker spares the next start-up the check. */
static void
test_check_many_writers(void **state)
{
	struct fixture *fx = *state;
	enum { KIDS = 6, ROUNDS = 15 };
	pid_t kids[KIDS];
	int status;

	make_clean(fx->db);
	for (int k = 0; k < KIDS; k++) {
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] > 0)
			continue;
		for (int i = 0; i < ROUNDS; i++) {
			struct audit *c = NULL;
			struct audit_event e = ev_full;

			if (audit_open(fx->db, &c, NULL) != 0)
				_exit(1);
			e.pid = 1000 * k + i;
			audit_event(c, &e);
			if (audit_flush(c, NULL) != 0)
				_exit(2);
			audit_close(c);
		}
		_exit(0);
	}
	for (int k = 0; k < KIDS; k++) {
		assert_int_equal(waitpid(kids[k], &status, 0), kids[k]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_false(open_checked(fx->db));
}

struct usage {
	size_t		 n;
	struct audit_usage u[4];
	char		*id[4];
};

static int
collect_usage(const struct audit_usage *u, void *ctx)
{
	struct usage *g = ctx;

	assert_true(g->n < ARRAY_SIZE(g->u));
	g->u[g->n] = *u;
	g->id[g->n] = xstrdup(u->run);
	g->u[g->n].run = g->id[g->n];
	g->n++;
	return 0;
}

static void
usage_done(struct usage *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->id[i]);
	g->n = 0;
}

/* What `ward gc` reads of each run, and the removal of one run's rows,
 * nothing of another's. */
static void
test_usage_forget(void **state)
{
	struct audit *a = NULL;
	struct audit_event e = ev_full;
	struct audit_freed freed = { 0 };
	struct usage g = { 0 };
	char *cause = NULL;

	(void)state;
	assert_int_equal(audit_open(":memory:", &a, &cause), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	assert_int_equal(audit_run_begin(a, &run_b, NULL), 0);
	audit_event(a, &e);
	audit_event(a, &e);
	e.run = "run-b";
	audit_event(a, &e);
	audit_output(a, "run-a", AUDIT_STDOUT, 1, "12345", 5);
	audit_output(a, "run-b", AUDIT_STDERR, 1, "xy", 2);
	assert_int_equal(audit_flush(a, &cause), 0);
	assert_int_equal(audit_run_end(a, "run-a", 5000, 0, 0, "exited", NULL),
	    0);

	assert_int_equal(audit_each_usage(a, collect_usage, &g, NULL), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.u[0].run, "run-a");
	assert_int_equal(g.u[0].started_ms, run_a.started_ms);
	assert_int_equal(g.u[0].ended_ms, 5000);
	assert_int_equal(g.u[0].events, 2);
	assert_int_equal(g.u[0].outputs, 1);
	assert_true(g.u[0].bytes >= 5 + 2 * (int64_t)strlen(ev_full.subject));
	assert_string_equal(g.u[1].run, "run-b");
	assert_int_equal(g.u[1].ended_ms, 0);
	assert_int_equal(g.u[1].events, 1);
	usage_done(&g);

	assert_int_equal(audit_forget_run(a, "run-a", &freed, &cause), 0);
	assert_int_equal(freed.runs, 1);
	assert_int_equal(freed.events, 2);
	assert_int_equal(freed.outputs, 1);
	assert_true(freed.bytes >= 5);
	/* unknown: nothing, and no error */
	assert_int_equal(audit_forget_run(a, "nope", &freed, &cause), 0);
	assert_int_equal(freed.runs, 1);
	assert_int_equal(audit_each_usage(a, collect_usage, &g, NULL), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.u[0].run, "run-b");
	assert_int_equal(g.u[0].events, 1);
	assert_int_equal(g.u[0].outputs, 1);
	usage_done(&g);
	audit_close(a);
}

/* ------------------------------------------------------------------ */
/* Write-ahead, room, the output cap */

/* audit_intent commits at once, after what was queued before it; the
 * outcome (audit_done) updates the same row in the next flush. */
static off_t
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/*
 * A supervisor's run does not checkpoint in its middle, where a commit
 * crossing sqlite's 1000 pages would hold an effect for two fsyncs: past
 * 1000 pages of intents (and short of AUDIT_CKPT_MAX's 4000) the WAL
 * holds them all and the database file has none; the run's end folds
 * them in.
 */
/* ev_full with a detail of 3000 bytes, about a page a row; free the
 * detail. */
static char *
page_event(struct audit_event *ev)
{
	char *detail = xmalloc(3001);

	memset(detail, 'x', 3000);
	detail[3000] = '\0';
	*ev = ev_full;
	ev->detail = detail;
	ev->request_id = 0;
	return detail;
}

/* N rows of ev, each written ahead in its own commit. */
static void
write_rows(struct audit *a, const struct audit_event *ev, int n)
{
	char *cause = NULL;

	for (int i = 0; i < n; i++) {
		int64_t seq = 0;	/* a new row each time */

		assert_int_equal(audit_intent(a, ev, &seq, &cause), 0);
	}
}

/* What reading cached is given back (audit_shed), and the handle goes on
 * as before: it is a cache, not state. */
static int
count_row(const struct audit_event_row *row, void *ctx)
{
	(void)row;
	(*(int *)ctx)++;
	return 0;
}

static void
test_shed(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct audit_event ev;
	char *detail = page_event(&ev), *cause = NULL;
	sqlite3_int64 held, after;
	int n = 0;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	write_rows(a, &ev, 100);
	audit_close(a);

	/* A fresh handle reads them all: its cache fills (to its 256 KiB). */
	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_int_equal(audit_each_event(a, "run-a", count_row, &n, NULL), 0);
	assert_int_equal(n, 100);
	held = sqlite3_memory_used();
	audit_shed(a);
	after = sqlite3_memory_used();
	print_message("sqlite's memory: %lld bytes, %lld once shed\n",
	    (long long)held, (long long)after);
	assert_true(held - after >= 32 * 4096);

	write_rows(a, &ev, 1);
	n = 0;
	assert_int_equal(audit_each_event(a, "run-a", count_row, &n, NULL), 0);
	assert_int_equal(n, 101);
	audit_shed(NULL);
	audit_close(a);
	free(detail);
}

static void
test_checkpoint_at_end(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct audit_event ev;
	char *wal = xasprintf("%s-wal", fx->db), *detail = page_event(&ev);
	char *cause = NULL;
	off_t db_before;
	sqlite3 *raw;
	int frames = -1;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	db_before = file_size(fx->db);
	write_rows(a, &ev, 400);
	/* 400 commits of three pages or so each (the row's, the index's,
	 * the tree's above them): all in the WAL still. */
	assert_true(file_size(wal) > (off_t)1000 * 4096);
	assert_int_equal(file_size(fx->db), db_before);
	assert_int_equal(audit_run_end(a, "run-a", 2000, 0, 0, "exit", &cause),
	    0);
	assert_true(file_size(fx->db) > db_before + (off_t)400 * 3000);
	raw = raw_open(fx->db);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM events"), 400);
	sqlite3_close(raw);
	audit_close(a);
	/* The WAL started over at the end's commit: the next opener, the
	 * first, rebuilds its index from that commit's few frames, not
	 * from the run's 1200 (which a checkpoint after the last commit
	 * would leave valid). */
	raw = raw_open(fx->db);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM runs WHERE "
	    "end_reason = 'exit'"), 1);
	assert_int_equal(sqlite3_wal_checkpoint_v2(raw, NULL,
	    SQLITE_CHECKPOINT_PASSIVE, &frames, NULL), SQLITE_OK);
	assert_in_range(frames, 1, 20);
	sqlite3_close(raw);
	free(detail);
	free(wal);
}

static void
test_intent_done(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct audit_event intended = ev_full, outcome = ev_full;
	char *cause = NULL, *st = NULL;
	int64_t seq = 0;
	sqlite3 *raw;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	audit_event(a, &ev_sparse);		/* batched, before */
	intended.request_id = 0;
	intended.how = HOW_POLICY;
	intended.decided_by = "policy";
	assert_int_equal(audit_intent(a, &intended, &seq, &cause), 0);
	assert_true(seq > 0);
	assert_int_equal(audit_pending(a), 0);	/* the queue went with it */

	/* Seen from outside, before any flush: both rows, in order. */
	raw = raw_open(fx->db);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM events"), 2);
	st = raw_text(raw, "SELECT state FROM events ORDER BY seq DESC"
	    " LIMIT 1");
	assert_string_equal(st, "intent");
	free(st);
	assert_int_equal(raw_int(raw, "SELECT max(seq) FROM events"), seq);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM events WHERE"
	    " state IS NULL AND verdict = 'deny'"), 1);

	outcome.verdict = VERDICT_DENY;	/* the host said no */
	outcome.how = HOW_POLICY;
	outcome.detail = "EEXIST";
	audit_done(a, seq, &outcome);
	assert_int_equal(audit_pending(a), 1);
	assert_int_equal(audit_flush(a, &cause), 0);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM events"), 2);
	st = raw_text(raw, "SELECT state || ' ' || verdict || ' ' || detail"
	    " FROM events WHERE seq = (SELECT max(seq) FROM events)");
	assert_string_equal(st, "done deny EEXIST");
	free(st);
	sqlite3_close(raw);
	audit_close(a);
}

/* A parked request is in the file as asked at once; its approval turns
 * that row into the intent (what it is about stays as asked). */
static void
test_ask_approve(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct audit_event asked = ev_full, yes = { 0 };
	struct events got = { 0 };
	char *cause = NULL, *st = NULL;
	int64_t seq = -1, seq2;
	sqlite3 *raw;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	asked.verdict = VERDICT_ASK;
	asked.how = HOW_SUPERVISOR;
	asked.decided_by = NULL;
	assert_int_equal(audit_ask(a, &asked, &seq, &cause), 0);
	assert_true(seq > 0);
	raw = raw_open(fx->db);
	st = raw_text(raw, "SELECT state || ' ' || verdict || ' ' || subject"
	    " FROM events");
	assert_string_equal(st, "asked ask /etc/ward-test");
	free(st);

	yes.verdict = VERDICT_ALLOW;
	yes.how = HOW_PERSON;
	yes.decided_by = "uid 1000 (alice) via console";
	yes.wait_ms = 3170;
	seq2 = seq;
	assert_int_equal(audit_intent(a, &yes, &seq2, &cause), 0);
	assert_int_equal(seq2, seq);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM events"), 1);
	st = raw_text(raw, "SELECT state || ' ' || verdict || ' ' || subject"
	    " || ' ' || decided_by || ' ' || wait_ms FROM events");
	assert_string_equal(st, "intent allow /etc/ward-test uid 1000 "
	    "(alice) via console 3170");
	free(st);
	sqlite3_close(raw);

	audit_done(a, seq, &ev_full);
	assert_int_equal(audit_flush(a, &cause), 0);
	assert_int_equal(audit_each_event(a, NULL, collect_event, &got,
	    &cause), 0);
	assert_int_equal(got.n, 1);
	assert_event_equal(&got.ev[0], &ev_full);
	events_done(&got);
	audit_close(a);
}

static int
collect_states(const struct audit_event_row *row, void *ctx)
{
	enum audit_state *st = ctx;

	st[row->seq] = row->state;
	return 0;
}

/* audit_each_event gives each row's state; an unfinished row stays so. */
static void
test_states_read(void **state)
{
	struct audit *a = NULL;
	enum audit_state st[8] = { 0 };
	int64_t s1 = 0, s2 = 0;

	(void)state;
	assert_int_equal(audit_open(":memory:", &a, NULL), 0);
	audit_event(a, &ev_sparse);
	assert_int_equal(audit_ask(a, &ev_full, &s1, NULL), 0);
	assert_int_equal(audit_intent(a, &ev_full, &s2, NULL), 0);
	audit_done(a, s1, &ev_full);
	assert_int_equal(audit_flush(a, NULL), 0);
	for (size_t i = 0; i < ARRAY_SIZE(st); i++)
		st[i] = (enum audit_state)99;
	assert_int_equal(audit_each_event(a, NULL, collect_states, st, NULL),
	    0);
	assert_int_equal(st[1], AUDIT_FINAL);
	assert_int_equal(st[s1], AUDIT_DONE);
	assert_int_equal(st[s2], AUDIT_INTENT);
	assert_null(audit_state_name(AUDIT_FINAL));
	assert_string_equal(audit_state_name(AUDIT_ASKED), "asked");
	audit_close(a);
}

/* A file of an older ward (no events.state): the column is added on
 * open (with the runs' supervisor columns of schema 2); read-only, it
 * reads as before. */
static void
test_old_file_gets_state(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct events got = { 0 };
	char *path = xasprintf("%s/old.db", fx->dir);
	char *cause = NULL;
	sqlite3 *raw = raw_open(path);

	raw_exec(raw, "CREATE TABLE runs (id TEXT PRIMARY KEY, name TEXT,"
	    " command TEXT, policy_path TEXT, policy_hash TEXT, uid INTEGER,"
	    " started_ms INTEGER, ended_ms INTEGER, exit_code INTEGER,"
	    " exit_signal INTEGER, end_reason TEXT, limits TEXT);"
	    "CREATE TABLE events (seq INTEGER PRIMARY KEY, run TEXT,"
	    " time_ms INTEGER, pid INTEGER, kind TEXT, syscall TEXT,"
	    " subject TEXT, subject2 TEXT, detail TEXT, verdict TEXT,"
	    " how TEXT, rule TEXT, decided_by TEXT, wait_ms INTEGER,"
	    " request_id INTEGER);"
	    "CREATE TABLE output (seq INTEGER PRIMARY KEY, run TEXT,"
	    " stream TEXT, time_ms INTEGER, bytes BLOB);"
	    "INSERT INTO events (run, kind, verdict, how, subject)"
	    " VALUES ('r', 'write', 'deny', 'policy', '/x');"
	    "PRAGMA user_version = 1;");
	sqlite3_close(raw);

	assert_int_equal(audit_open_readonly(path, &a, &cause), 0);
	assert_int_equal(audit_each_event(a, NULL, collect_event, &got,
	    &cause), 0);
	assert_int_equal(got.n, 1);
	events_done(&got);
	audit_close(a);

	assert_int_equal(audit_open(path, &a, &cause), 0);
	audit_close(a);
	raw = raw_open(path);
	assert_int_equal(raw_int(raw, "PRAGMA user_version"), 2);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM"
	    " pragma_table_info('events') WHERE name = 'state'"), 1);
	sqlite3_close(raw);
	free(path);
}

/* The spare file sits beside the record, really allocated. */
static void
test_reserve(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *res = xasprintf("%s-reserve", fx->db);
	struct stat st;

	assert_int_equal(audit_open(fx->db, &a, NULL), 0);
	assert_int_equal(stat(res, &st), -1);	/* only when asked */
	assert_int_equal(audit_keep_room(a, NULL), 0);
	assert_int_equal(stat(res, &st), 0);
	assert_true(st.st_blocks * 512 >= 4 * 1024 * 1024);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_false(audit_low_space(a, NULL));
	audit_close(a);
	free(res);
}

/* output_max: the first and last halves are kept, the middle is
 * dropped and counted; the file holds no more than max. */
static void
test_output_cap(void **state)
{
	struct audit *a = NULL;
	struct audit_output_counts c;
	char chunk[100], *buf = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(audit_open(":memory:", &a, NULL), 0);
	audit_set_output_max(a, 1000);
	for (int i = 0; i < 100; i++) {
		memset(chunk, 'a' + i % 26, sizeof chunk);
		audit_output(a, "r", AUDIT_STDOUT, i, chunk, sizeof chunk);
		if (i % 3 == 0)
			assert_int_equal(audit_flush(a, NULL), 0);
	}
	assert_int_equal(audit_flush(a, NULL), 0);
	audit_output_counts(a, &c);
	assert_int_equal(c.seen, 10000);
	assert_int_equal(c.lost, 0);
	assert_int_equal(audit_read_output(a, "r", &buf, &len, NULL), 0);
	assert_true(len <= 1000);
	assert_int_equal(c.dropped, 10000 - len);
	/* head: chunks 0..4; the tail ends with chunk 99 ('a' + 99 % 26) */
	assert_true(len >= 500 + 100);
	for (size_t i = 0; i < 500; i++)
		assert_int_equal(buf[i], 'a' + (int)(i / 100));
	assert_int_equal(buf[len - 1], 'a' + 99 % 26);
	assert_int_equal(buf[500], 'a' + (int)((10000 - (len - 500)) / 100)
	    % 26);
	free(buf);
	audit_close(a);
}

/* Whatever the file does, memory stays bounded: output past 1 MiB
 * waiting is dropped and counted, events past 4096 say audit_full. */
static void
test_queue_bounded(void **state)
{
	struct audit *a = NULL;
	struct audit_output_counts c;
	static char big[64 * 1024];

	(void)state;
	assert_int_equal(audit_open(":memory:", &a, NULL), 0);
	for (int i = 0; i < 32; i++)
		audit_output(a, "r", AUDIT_STDERR, i, big, sizeof big);
	audit_output_counts(a, &c);
	assert_int_equal(c.seen, 32 * sizeof big);
	assert_int_equal(c.lost, 16 * sizeof big);
	assert_true(audit_should_flush(a));
	assert_false(audit_full(a));
	for (int i = 0; i < 4096; i++)
		audit_event(a, &ev_sparse);
	assert_true(audit_full(a));
	assert_int_equal(audit_flush(a, NULL), 0);
	assert_false(audit_full(a));
	assert_false(audit_should_flush(a));
	audit_close(a);
}

/* A read-only handle refuses write-ahead, and queues nothing. */
static void
test_intent_refused(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	char *cause = NULL;
	int64_t seq = 0;

	assert_int_equal(audit_open(fx->db, &a, NULL), 0);
	audit_close(a);
	assert_int_equal(audit_open_readonly(fx->db, &a, NULL), 0);
	assert_int_equal(audit_intent(a, &ev_full, &seq, &cause), -EROFS);
	assert_non_null(cause);
	assert_int_equal(seq, 0);
	assert_int_equal(audit_pending(a), 0);
	free(cause);
	cause = NULL;
	assert_int_equal(audit_ask(a, &ev_full, &seq, &cause), -EROFS);
	free(cause);
	audit_close(a);
}


/* A pid that was a process a moment ago and is none now. */
static pid_t
dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

struct recovered {
	char	*run[8];
	int64_t	 noticed[8];
	size_t	 n;
	bool	 alive;		/* what the hook says of runs with no owner */
	size_t	 asked;
};

static bool
rec_alive(const char *run, void *ctx)
{
	struct recovered *r = ctx;

	(void)run;
	r->asked++;
	return r->alive;
}

static void
rec_on_lost(const char *run, int64_t noticed_ms, void *ctx)
{
	struct recovered *r = ctx;

	assert_true(r->n < ARRAY_SIZE(r->run));
	r->run[r->n] = xstrdup(run);
	r->noticed[r->n++] = noticed_ms;
}

static void
rec_done(struct recovered *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->run[i]);
	r->n = 0;
}

static const char *
run_end_reason(struct runs *runs, const char *id, int64_t *ended)
{
	for (size_t i = 0; i < runs->n; i++) {
		if (strcmp(runs->id[i], id) == 0) {
			*ended = runs->ended_ms[i];
			return runs->end_reason[i];
		}
	}
	fail_msg("no run %s", id);
	return NULL;
}

/*
 * Crash recovery: of five runs with no end, the ones whose supervisor is
 * gone (a dead pid, a reused pid, another boot) are marked lost with an
 * event; a live one, an ended one and, unless the hook says otherwise,
 * one recorded without a supervisor, are left alone. Once only.
 */
static void
test_recover(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL, *ro = NULL;
	struct audit_run r = run_a;
	struct audit_owner me;
	struct recovered got = { 0 };
	struct audit_recover_hooks hooks = {
		.alive = rec_alive, .on_lost = rec_on_lost, .ctx = &got,
	};
	struct runs runs = { 0 };
	int64_t ended;
	char *cause = NULL, *s;
	sqlite3 *raw;

	assert_int_equal(audit_owner_self(&me), 0);
	assert_int_equal(me.pid, getpid());
	assert_true(me.start > 0);
	assert_int_equal(strlen(me.boot), 36);
	assert_true(me.pidns != 0);

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	r.id = "live";
	r.owner = me;
	assert_int_equal(audit_run_begin(a, &r, NULL), 0);
	r.id = "dead";
	r.owner.pid = dead_pid();
	assert_int_equal(audit_run_begin(a, &r, NULL), 0);
	r.id = "reused";		/* our pid, another start time */
	r.owner = me;
	r.owner.start = me.start + 1;
	assert_int_equal(audit_run_begin(a, &r, NULL), 0);
	r.id = "rebooted";
	r.owner = me;
	memcpy(r.owner.boot, "00000000-0000-0000-0000-000000000000", 37);
	assert_int_equal(audit_run_begin(a, &r, NULL), 0);
	r.id = "elsewhere";		/* another pid namespace: cannot tell */
	r.owner = me;
	r.owner.pid = dead_pid();
	r.owner.pidns = me.pidns + 1;
	assert_int_equal(audit_run_begin(a, &r, NULL), 0);
	r.id = "ended";
	r.owner.pid = dead_pid();
	r.owner.pidns = me.pidns;
	assert_int_equal(audit_run_begin(a, &r, NULL), 0);
	assert_int_equal(audit_run_end(a, "ended", 7, 0, 0, "exit", NULL), 0);
	r.id = "old";			/* written by a ward of schema 1 */
	memset(&r.owner, 0, sizeof r.owner);
	assert_int_equal(audit_run_begin(a, &r, NULL), 0);

	/* the hook says the ownerless run is live: three lost */
	got.alive = true;
	assert_int_equal(audit_recover(a, 5000, "ward log", &hooks, &cause), 3);
	assert_null(cause);
	assert_int_equal(got.asked, 1);
	assert_int_equal(got.n, 3);
	assert_string_equal(got.run[0], "dead");
	assert_string_equal(got.run[1], "reused");
	assert_string_equal(got.run[2], "rebooted");
	assert_int_equal(got.noticed[0], 5000);
	rec_done(&got);

	assert_int_equal(audit_each_run(a, collect_run, &runs, NULL), 0);
	assert_string_equal(run_end_reason(&runs, "dead", &ended), "lost");
	assert_int_equal(ended, 5000);
	assert_null(run_end_reason(&runs, "live", &ended));
	assert_int_equal(ended, 0);
	assert_null(run_end_reason(&runs, "elsewhere", &ended));
	assert_null(run_end_reason(&runs, "old", &ended));
	assert_string_equal(run_end_reason(&runs, "ended", &ended), "exit");
	assert_int_equal(ended, 7);
	runs_done(&runs);

	raw = raw_open(fx->db);
	s = raw_text(raw, "SELECT group_concat(run || ' ' || kind || ' ' ||"
	    " subject || ' ' || verdict || ' ' || how || ' ' || decided_by ||"
	    " ' ' || time_ms, ';') FROM events");
	assert_string_equal(s, "dead run lost none supervisor ward log 5000;"
	    "reused run lost none supervisor ward log 5000;"
	    "rebooted run lost none supervisor ward log 5000");
	free(s);
	s = raw_text(raw, "SELECT detail FROM events WHERE run = 'reused'");
	assert_non_null(strstr(s, "gone"));
	free(s);

	/* again: nothing new; the hook now says the old run is gone, and a
	 * reader (ward log) marks it through a handle of its own */
	got.alive = false;
	assert_int_equal(audit_open_readonly(fx->db, &ro, &cause), 0);
	assert_int_equal(audit_recover(ro, 6000, "ward ps", &hooks, &cause), 1);
	assert_int_equal(got.n, 1);
	assert_string_equal(got.run[0], "old");
	rec_done(&got);
	assert_int_equal(audit_each_run(ro, collect_run, &runs, NULL), 0);
	assert_string_equal(run_end_reason(&runs, "old", &ended), "lost");
	assert_int_equal(ended, 6000);
	runs_done(&runs);
	assert_int_equal(audit_recover(ro, 7000, "ward ps", &hooks, &cause), 0);
	assert_int_equal(audit_recover(a, 7000, "ward ps", NULL, &cause), 0);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM events"), 4);
	sqlite3_close(raw);
	audit_close(ro);
	audit_close(a);
}

/* A record without the index of open runs (an older ward's): it is
 * added on open, the version stays 2, and the look for lost runs reads
 * it instead of every run. The run without an end, from an owner that
 * was never set (hooks->alive says gone), is still found. */
static void
test_old_file_gets_runs_open(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct recovered got = { 0 };
	struct audit_recover_hooks hooks = {
		.alive = rec_alive, .on_lost = rec_on_lost, .ctx = &got,
	};
	char *cause = NULL, *plan;
	sqlite3 *raw;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	assert_int_equal(audit_run_end(a, "run-a", 1500, 0, 0, "exit", NULL),
	    0);
	audit_close(a);
	raw = raw_open(fx->db);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM sqlite_schema"
	    " WHERE name = 'runs_open'"), 1);
	raw_exec(raw, "DROP INDEX runs_open;"
	    "INSERT INTO runs (id, started_ms) VALUES ('open-run', 10);");
	sqlite3_close(raw);

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	raw = raw_open(fx->db);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM sqlite_schema"
	    " WHERE name = 'runs_open'"), 1);
	assert_int_equal(raw_int(raw, "PRAGMA user_version"), 2);
	/* the index holds the one open run, not the ended one */
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM runs INDEXED BY"
	    " runs_open WHERE ended_ms IS NULL AND end_reason IS NULL"), 1);
	plan = raw_plan(raw, "SELECT id FROM runs WHERE ended_ms IS NULL AND"
	    " end_reason IS NULL ORDER BY started_ms, rowid");
	sqlite3_close(raw);
	assert_non_null(strstr(plan, "runs_open"));
	got.alive = false;
	assert_int_equal(audit_recover(a, 30, "ward", &hooks, &cause), 1);
	assert_int_equal(got.n, 1);
	assert_string_equal(got.run[0], "open-run");
	rec_done(&got);
	audit_close(a);
	free(plan);
}

/* A record of schema 1 is brought to 2 when opened read-write: its rows
 * stay, its runs gain the supervisor's columns; readers of a schema 1
 * file still read it (and recover through the hook only). */
static void
test_migrate_v1(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct runs runs = { 0 };
	struct recovered got = { 0 };
	struct audit_recover_hooks hooks = {
		.alive = rec_alive, .on_lost = rec_on_lost, .ctx = &got,
	};
	char *cause = NULL, *dir;
	sqlite3 *raw;

	dir = xasprintf("%s/state/ward", fx->dir);
	assert_int_equal(mkdir_p(dir, 0700), 0);
	free(dir);
	raw = raw_open(fx->db);
	raw_exec(raw, "PRAGMA journal_mode=WAL;"
	    "CREATE TABLE runs (id TEXT PRIMARY KEY, name TEXT, command TEXT,"
	    " policy_path TEXT, policy_hash TEXT, uid INTEGER,"
	    " started_ms INTEGER, ended_ms INTEGER, exit_code INTEGER,"
	    " exit_signal INTEGER, end_reason TEXT, limits TEXT);"
	    "CREATE TABLE events (seq INTEGER PRIMARY KEY, run TEXT,"
	    " time_ms INTEGER, pid INTEGER, kind TEXT, syscall TEXT,"
	    " subject TEXT, subject2 TEXT, detail TEXT, verdict TEXT, how TEXT,"
	    " rule TEXT, decided_by TEXT, wait_ms INTEGER, request_id INTEGER);"
	    "CREATE TABLE output (seq INTEGER PRIMARY KEY, run TEXT,"
	    " stream TEXT, time_ms INTEGER, bytes BLOB);"
	    "INSERT INTO runs (id, started_ms) VALUES ('v1-run', 10);"
	    "PRAGMA user_version = 1;");
	chmod(fx->db, 0600);

	/* a reader leaves it at 1 and reads it */
	assert_int_equal(audit_open_readonly(fx->db, &a, &cause), 0);
	assert_int_equal(audit_each_run(a, collect_run, &runs, NULL), 0);
	assert_int_equal(runs.n, 1);
	runs_done(&runs);
	got.alive = true;
	assert_int_equal(audit_recover(a, 20, "ward log", &hooks, &cause), 0);
	assert_int_equal(got.asked, 1);
	audit_close(a);
	assert_int_equal(raw_int(raw, "PRAGMA user_version"), 1);

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_null(cause);
	assert_int_equal(raw_int(raw, "PRAGMA user_version"), 2);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM pragma_table_info"
	    "('runs') WHERE name IN ('sup_pid', 'sup_start', 'sup_boot',"
	    " 'sup_pidns')"), 4);
	assert_int_equal(raw_int(raw, "SELECT count(*) FROM runs"
	    " WHERE id = 'v1-run' AND sup_pid IS NULL"), 1);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	got.alive = false;
	assert_int_equal(audit_recover(a, 30, "ward log", &hooks, &cause), 2);
	rec_done(&got);
	audit_close(a);
	/* opened again: nothing to migrate */
	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	audit_close(a);
	assert_int_equal(raw_int(raw, "PRAGMA user_version"), 2);
	sqlite3_close(raw);
}

/*
 * D8: another writer holds the file longer than the busy timeout. The
 * run's end waits it out with backoff instead of failing; a writer
 * that never lets go makes it fail with -EBUSY and a cause.
 */
static void
test_run_end_busy(void **state)
{
	struct fixture *fx = *state;
	struct audit *a = NULL;
	struct runs runs = { 0 };
	char *cause = NULL;
	int p[2];
	char ch;
	pid_t child;
	sqlite3 *raw;

	assert_int_equal(audit_open(fx->db, &a, &cause), 0);
	assert_int_equal(audit_run_begin(a, &run_a, NULL), 0);
	audit_set_busy_timeout(a, 40);
	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		sqlite3 *db = NULL;

		if (sqlite3_open(fx->db, &db) != SQLITE_OK ||
		    sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL,
		    NULL) != SQLITE_OK)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		/* three busy timeouts, less than the six it waits */
		usleep(120 * 1000);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &ch, 1), 1);
	close(p[0]);
	assert_int_equal(audit_run_end(a, "run-a", 9000, 0, 0, "exit", &cause),
	    0);
	assert_null(cause);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_int_equal(audit_each_run(a, collect_run, &runs, NULL), 0);
	assert_int_equal(runs.ended_ms[0], 9000);
	runs_done(&runs);

	raw = raw_open(fx->db);
	raw_exec(raw, "BEGIN EXCLUSIVE");
	assert_int_equal(audit_run_end(a, "run-a", 9500, 0, 0, "exit", &cause),
	    -EBUSY);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "recording the run's end"));
	free(cause);
	cause = NULL;
	audit_event(a, &ev_full);
	assert_int_equal(audit_drain(a, &cause), -EBUSY);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	raw_exec(raw, "ROLLBACK");
	assert_int_equal(audit_drain(a, &cause), 0);
	assert_int_equal(audit_pending(a), 0);
	sqlite3_close(raw);
	audit_close(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_runs),
		cmocka_unit_test(test_memory_events),
		cmocka_unit_test(test_usage_forget),
		cmocka_unit_test_setup_teardown(test_output_coalescing, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_file_reopen, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_flush_busy, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_flush_atomic, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_two_writers, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_readonly_missing, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_version_newer, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_file_modes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_file_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_quick_check_cost, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_check_skipped, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_check_doubt, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_check_writer_died, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_check_writers, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_check_damaged_after_clean,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_damage_seen, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_lock_text_in_place,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_lock_trouble, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_check_many_writers, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_recover, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_file_gets_runs_open,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v1, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_run_end_busy, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_not_a_database, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_intent_done, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_shed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_at_end, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ask_approve, setup,
		    teardown),
		cmocka_unit_test(test_states_read),
		cmocka_unit_test_setup_teardown(test_old_file_gets_state, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_reserve, setup, teardown),
		cmocka_unit_test(test_output_cap),
		cmocka_unit_test(test_queue_bounded),
		cmocka_unit_test_setup_teardown(test_intent_refused, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
