/* SPDX-License-Identifier: MIT */
/*
 * Who writes a run (its supervisor's pid, start, boot and pid
 * namespace), and the runs whose writer is gone: marked lost
 * (audit_recover).
 */
#include "approvals/audit-write.h"
#include "approvals/audit-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/util.h"

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

void
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
const char *
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
