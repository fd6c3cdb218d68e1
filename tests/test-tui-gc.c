/* SPDX-License-Identifier: MIT */
/*
 * tui/gc.c: which runs `ward gc` takes (a table), and the whole of it on
 * a temporary record and runs folder: rows and folders of the chosen runs
 * go, nothing else, no symlink is followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "approvals/audit.h"
#include "approvals/audit-write.h"
#include "config/util.h"
#include "tui/gc.h"

#define DAY	(86400 * 1000LL)
#define NOW	(1000 * DAY)

static void
test_parse_age(void **state)
{
	static const struct {
		const char	*in;
		int64_t		 ms;	/* -1: refused */
	} rows[] = {
		{ "30d", 30 * DAY }, { "12h", 12 * 3600 * 1000LL },
		{ "90m", 90 * 60 * 1000LL }, { "45s", 45000 }, { "3600", 3600000 },
		{ "0", 0 }, { "", -1 }, { "d", -1 }, { "-1d", -1 }, { "3w", -1 },
		{ "3dd", -1 }, { "99999999999999999999d", -1 },
		{ "9223372036854775807d", -1 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		int64_t ms = -1;
		int r = gc_parse_age(rows[i].in, &ms);

		if (rows[i].ms < 0 ? r != -EINVAL : r != 0 || ms != rows[i].ms)
			fail_msg("gc_parse_age(\"%s\"): %d, %lld", rows[i].in, r,
			    (long long)ms);
	}
}

/*
 * The selection as a table. Each row is a run (oldest first); want says
 * whether gc takes it under the row's limits.
 */
struct sel_row {
	const char	*id;
	int64_t		 age_days;	/* started NOW - this */
	bool		 ended;
	bool		 in_record;
	bool		 live;
	int64_t		 bytes;		/* folder + record */
	bool		 want;
};

static void
check_selection(const char *what, const struct sel_row *rows, size_t n,
    int64_t older_than_days, int64_t max_bytes)
{
	struct gc_set set = { 0 };
	struct gc_limits lim = {
		.now_ms = NOW,
		.older_than_ms = older_than_days < 0 ? -1 : older_than_days * DAY,
		.max_bytes = max_bytes,
	};

	set.run = xcalloc(n, sizeof *set.run);
	set.n = n;
	for (size_t i = 0; i < n; i++) {
		struct gc_run *r = &set.run[i];

		r->id = xstrdup(rows[i].id);
		r->started_ms = NOW - rows[i].age_days * DAY;
		r->ended_ms = rows[i].ended ? r->started_ms + 1000 : 0;
		r->in_record = rows[i].in_record;
		r->has_folder = true;
		r->live = rows[i].live;
		r->folder_bytes = rows[i].bytes / 2;
		r->record_bytes = rows[i].bytes - rows[i].bytes / 2;
	}
	gc_select(&set, &lim);
	for (size_t i = 0; i < n; i++) {
		if (set.run[i].drop != rows[i].want)
			fail_msg("%s: run %s: drop %d, want %d", what, rows[i].id,
			    set.run[i].drop, rows[i].want);
	}
	gc_set_done(&set);
}

static void
test_select(void **state)
{
	/* By age, 30 days: ended runs older go; a live one never; one with
	 * no end (crashed, or starting) only past the grace of a day. */
	static const struct sel_row by_age[] = {
		{ "old", 40, true, true, false, 100, true },
		{ "old-live", 40, true, true, true, 100, false },
		{ "old-lost", 35, false, true, false, 100, true },
		{ "orphan", 31, false, false, false, 100, true },
		{ "edge", 30, true, true, false, 100, false },
		{ "young", 2, true, true, false, 100, false },
		{ "young-lost", 0, false, true, false, 100, false },
	};
	/* By size, 300 bytes: the oldest that may go, until the rest fits;
	 * a live one counts but stays, so an older one goes instead. */
	static const struct sel_row by_size[] = {
		{ "a", 10, true, true, false, 100, true },
		{ "b-live", 9, true, true, true, 100, false },
		{ "c", 8, true, true, false, 100, true },
		{ "d", 7, true, true, false, 100, false },
		{ "e-starting", 0, false, false, false, 100, false },
	};
	/* Both: age first, then size. */
	static const struct sel_row both[] = {
		{ "a", 40, true, true, false, 10, true },
		{ "b", 5, true, true, false, 100, true },
		{ "c", 4, true, true, false, 100, false },
		{ "d", 3, true, true, false, 100, false },
	};

	(void)state;
	check_selection("by age", by_age, ARRAY_SIZE(by_age), 30, -1);
	check_selection("by size", by_size, ARRAY_SIZE(by_size), -1, 300);
	check_selection("nothing to do", by_size, 0, 30, 0);
	check_selection("both", both, ARRAY_SIZE(both), 30, 200);
}

struct fixture {
	char		*dir;
	char		*runs;
	char		*db;
	char		*outside;	/* a file a symlink in a run points at */
	struct audit	*a;
};

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DNR || flag == FTW_D || flag == FTW_DP)
		chmod(path, 0700);
	(void)remove(path);
	return 0;
}

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	char *cause = NULL;

	f->dir = xstrdup("/tmp/test-tui-gc.XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	f->runs = xasprintf("%s/runs", f->dir);
	f->db = xasprintf("%s/audit.db", f->dir);
	f->outside = xasprintf("%s/outside", f->dir);
	if (mkdir(f->runs, 0700) < 0 || audit_open(f->db, &f->a, &cause) < 0)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	audit_close(f->a);
	/* twice: the first pass opens up what a test made unreadable */
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f->dir);
	free(f->runs);
	free(f->db);
	free(f->outside);
	free(f);
	return 0;
}

static void
write_file(const char *path, size_t size)
{
	char buf[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	memset(buf, 'x', sizeof buf);
	assert_true(fd >= 0);
	for (size_t n = 0; n < size; n += sizeof buf)
		assert_int_equal(write_all(fd, buf, size - n < sizeof buf ?
		    size - n : sizeof buf), 0);
	close(fd);
}

/* A run in the record (started age_days ago, ended) with a folder
 * holding a file of size bytes, the way a supervisor leaves one. */
static void
make_run(struct fixture *f, const char *id, int64_t age_days, size_t size)
{
	struct audit_run run = { .id = id, .command = "true", .uid = 0,
	    .started_ms = now_wall_ms() - age_days * DAY };
	struct audit_event ev = { .run = id, .kind = KIND_WRITE,
	    .subject = "/etc/x", .verdict = VERDICT_DENY, .how = HOW_POLICY };
	char *cause = NULL;
	char *p = xasprintf("%s/%s", f->runs, id);
	char *work = xasprintf("%s/work", p);
	char *file = xasprintf("%s/file", work);

	assert_int_equal(audit_run_begin(f->a, &run, NULL), 0);
	audit_event(f->a, &ev);
	audit_event(f->a, &ev);
	audit_output(f->a, id, AUDIT_STDOUT, run.started_ms, "hello\n", 6);
	assert_int_equal(audit_flush(f->a, &cause), 0);
	assert_int_equal(audit_run_end(f->a, id, run.started_ms + 1000, 0, 0,
	    "exited", NULL), 0);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(mkdir(work, 0755), 0);
	write_file(file, size);
	free(file);
	free(work);
	free(p);
}

static int
count_run(const struct audit_usage *u, void *ctx)
{
	char **want = ctx;

	if (strcmp(u->run, want[0]) == 0)
		want[1] = (char *)"found";
	return 0;
}

static bool
in_record(struct fixture *f, const char *id)
{
	char *ctx[2] = { (char *)id, NULL };

	assert_int_equal(audit_each_usage(f->a, count_run, ctx, NULL), 0);
	return ctx[1] != NULL;
}

static bool
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void
run_gc(struct fixture *f, char *const *live, size_t n_live, bool dry,
    struct audit_freed *freed, int64_t *bytes, int want_r)
{
	struct gc_set set = { 0 };
	struct gc_limits lim = { .now_ms = now_wall_ms(),
	    .older_than_ms = 30 * DAY, .max_bytes = -1 };
	char *cause = NULL;
	int r;

	memset(freed, 0, sizeof *freed);
	*bytes = 0;
	assert_int_equal(gc_collect(f->a, f->runs, live, n_live, &set, &cause),
	    0);
	gc_select(&set, &lim);
	r = gc_apply(f->a, f->runs, &set, dry, freed, bytes, &cause);
	if (r != want_r)
		fail_msg("gc_apply: %d (%s), want %d", r, cause, want_r);
	free(cause);
	gc_set_done(&set);
}

static void
test_apply(void **state)
{
	struct fixture *f = *state;
	char *live[] = { (char *)"live" };
	char *old_dir = xasprintf("%s/old", f->runs);
	char *link = xasprintf("%s/old/work/escape", f->runs);
	char *locked = xasprintf("%s/old/work/locked", f->runs);
	char *deep = xasprintf("%s/old/work/locked/inner", f->runs);
	struct audit_freed freed;
	int64_t bytes;

	make_run(f, "old", 40, 100000);
	make_run(f, "new", 1, 1000);
	make_run(f, "live", 40, 1000);
	/* what a hostile program leaves: a symlink out, a folder locked */
	write_file(f->outside, 10);
	assert_int_equal(symlink(f->outside, link), 0);
	assert_int_equal(mkdir(locked, 0755), 0);
	write_file(deep, 10);
	assert_int_equal(chmod(locked, 0), 0);

	run_gc(f, live, 1, true, &freed, &bytes, 0);
	assert_int_equal(freed.runs, 1);
	assert_int_equal(freed.events, 2);
	assert_int_equal(freed.outputs, 1);
	assert_true(bytes >= 100000);
	assert_true(exists(old_dir));
	assert_true(in_record(f, "old"));

	run_gc(f, live, 1, false, &freed, &bytes, 0);
	assert_int_equal(freed.runs, 1);
	assert_int_equal(freed.events, 2);
	assert_int_equal(freed.outputs, 1);
	assert_true(freed.bytes >= 6);
	assert_true(bytes >= 100000);
	assert_false(exists(old_dir));
	assert_false(in_record(f, "old"));
	assert_true(exists(f->outside));
	assert_true(in_record(f, "new"));
	assert_true(in_record(f, "live"));
	free(old_dir);
	old_dir = xasprintf("%s/new", f->runs);
	assert_true(exists(old_dir));
	free(old_dir);
	old_dir = xasprintf("%s/live", f->runs);
	assert_true(exists(old_dir));

	/* again: nothing left to take */
	run_gc(f, live, 1, false, &freed, &bytes, 0);
	assert_int_equal(freed.runs, 0);
	assert_int_equal(bytes, 0);
	free(deep);
	free(locked);
	free(link);
	free(old_dir);
}

/* A run folder swapped for a symlink is not a run's folder: never
 * followed nor removed; the run's rows still go. */
static void
test_apply_symlinked_run(void **state)
{
	struct fixture *f = *state;
	char *target = xasprintf("%s/target", f->dir);
	char *p = xasprintf("%s/old", f->runs);
	char *work = NULL;
	struct audit_freed freed;
	int64_t bytes;

	make_run(f, "old", 40, 1000);
	/* the run's folder swapped for a symlink to somewhere else */
	work = xasprintf("%s/old-moved", f->dir);
	assert_int_equal(rename(p, work), 0);
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, p), 0);
	run_gc(f, NULL, 0, false, &freed, &bytes, 0);
	assert_true(exists(target));
	assert_true(exists(p));
	assert_false(in_record(f, "old"));
	free(work);
	free(p);
	free(target);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_age),
		cmocka_unit_test(test_select),
		cmocka_unit_test_setup_teardown(test_apply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_symlinked_run, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
