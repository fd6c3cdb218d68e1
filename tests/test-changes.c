/* SPDX-License-Identifier: MIT */
/*
 * approvals/changes.c on run folders laid out by hand as --project leaves
 * them, in both modes: copy mode's .wh.NAME whiteouts and .wh..wh..opq,
 * overlay mode's 0:0 character devices and the opaque xattr; renames by
 * identical bytes, chmod, binary, symlinks, a new subfolder, an unchanged
 * copy-up; then apply, discard and undo of single files, and the record's
 * changes table.
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
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "approvals/audit-changes.h"
#include "approvals/audit.h"
#include "approvals/changes.h"
#include "config/util.h"
#include "review/changes-apply.h"

struct fx {
	char	 root[64];
	char	*host;
	char	*run;
	char	*upper;
};

/* dir/rel in one of a few static buffers: no leak in the checks. */
static const char *
at(const char *dir, const char *rel)
{
	static char buf[8][4096];
	static int next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof buf[0], "%s/%s", dir, rel);
	return b;
}

static void
put(const char *dir, const char *rel, const char *bytes, size_t len,
    mode_t mode)
{
	char *path = xasprintf("%s/%s", dir, rel);
	char *parent = xstrdup(path);
	int fd;

	*strrchr(parent, '/') = '\0';
	assert_int_equal(mkdir_p(parent, 0755), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, bytes, len), 0);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	free(parent);
	free(path);
}

static void
puts_(const char *dir, const char *rel, const char *text)
{
	put(dir, rel, text, strlen(text), 0644);
}

static char *
slurp(const char *dir, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel);
	char *buf = xcalloc(1, 4096);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	free(path);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	assert_true(read(fd, buf, 4095) >= 0);
	close(fd);
	return buf;
}

static int
fx_setup_mode(void **state, bool copy)
{
	struct fx *fx = xcalloc(1, sizeof *fx);
	char *p;
	FILE *f;

	snprintf(fx->root, sizeof fx->root, "/tmp/test-changes.XXXXXX");
	assert_non_null(mkdtemp(fx->root));
	fx->host = xasprintf("%s/host", fx->root);
	fx->run = xasprintf("%s/run", fx->root);
	fx->upper = xasprintf("%s/projects/0/upper", fx->run);
	assert_int_equal(mkdir_p(fx->host, 0755), 0);
	assert_int_equal(mkdir_p(fx->upper, 0755), 0);
	p = xasprintf("%s/projects.tsv", fx->run);
	assert_non_null(f = fopen(p, "w"));
	fprintf(f, "0\t%s\t%s\n", fx->host, copy ? "copy" : "overlay");
	fclose(f);
	free(p);
	p = xasprintf("%s/projects/0/project.ini", fx->run);
	assert_non_null(f = fopen(p, "w"));
	fprintf(f, "host = %s\nmode = %s\nstarted_ms = %lld\n", fx->host,
	    copy ? "copy" : "overlay", (long long)now_wall_ms() + 60000);
	fclose(f);
	free(p);
	*state = fx;
	return 0;
}

static int
setup_copy(void **state)
{
	return fx_setup_mode(state, true);
}

static int
setup_overlay(void **state)
{
	return fx_setup_mode(state, false);
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
	struct fx *fx = *state;

	nftw(fx->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(fx->host);
	free(fx->run);
	free(fx->upper);
	free(fx);
	return 0;
}

static const struct change *
find(const struct changes_project *p, const char *path)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].path, path) == 0)
			return &p->v[i];
	return NULL;
}

static void
expect_kind(const struct changes_project *p, const char *path,
    enum change_kind k)
{
	const struct change *c = find(p, path);

	if (c == NULL)
		fail_msg("%s: not listed", path);
	if (c->kind != k)
		fail_msg("%s: %s, expected %s", path, changes_kind_name(c->kind),
		    changes_kind_name(k));
}

/* The host tree every listing test starts from. */
static void
host_tree(struct fx *fx)
{
	puts_(fx->host, "mod.txt", "one\ntwo\n");
	puts_(fx->host, "del.txt", "bye\n");
	puts_(fx->host, "moved.txt", "the same bytes\n");
	puts_(fx->host, "exec.sh", "#!/bin/sh\n");
	puts_(fx->host, "same.txt", "unchanged\n");
	put(fx->host, "bin.dat", "a\0b", 3, 0644);
	puts_(fx->host, "dir/a.txt", "a\n");
	puts_(fx->host, "dir/b.txt", "b\n");
	puts_(fx->host, "opq/x.txt", "x\n");
	assert_int_equal(symlink("mod.txt", at(fx->host, "ln")), 0);
}

static void
upper_common(struct fx *fx)
{
	char *ln = xstrdup(at(fx->upper, "ln"));

	puts_(fx->upper, "mod.txt", "one\n2\n");
	puts_(fx->upper, "new/sub/added.txt", "new\n");
	puts_(fx->upper, "elsewhere/moved2.txt", "the same bytes\n");
	put(fx->upper, "exec.sh", "#!/bin/sh\n", 10, 0755);
	puts_(fx->upper, "same.txt", "unchanged\n");
	put(fx->upper, "bin.dat", "a\0c", 3, 0644);
	puts_(fx->upper, "opq/y.txt", "y\n");
	assert_int_equal(symlink("del.txt", ln), 0);
	free(ln);
}

static void
check_listing(struct changes_project *p)
{
	expect_kind(p, "mod.txt", CHANGE_MODIFIED);
	expect_kind(p, "del.txt", CHANGE_DELETED);
	expect_kind(p, "elsewhere/moved2.txt", CHANGE_RENAMED);
	assert_string_equal(find(p, "elsewhere/moved2.txt")->from, "moved.txt");
	assert_null(find(p, "moved.txt"));
	expect_kind(p, "exec.sh", CHANGE_MODE);
	assert_int_equal(find(p, "exec.sh")->new_mode & 0777, 0755);
	expect_kind(p, "new/sub/added.txt", CHANGE_ADDED);
	expect_kind(p, "bin.dat", CHANGE_MODIFIED);
	assert_true(find(p, "bin.dat")->binary);
	assert_false(find(p, "mod.txt")->binary);
	expect_kind(p, "dir/a.txt", CHANGE_DELETED);
	expect_kind(p, "dir/b.txt", CHANGE_DELETED);
	expect_kind(p, "opq/x.txt", CHANGE_DELETED);
	expect_kind(p, "opq/y.txt", CHANGE_ADDED);
	expect_kind(p, "ln", CHANGE_SYMLINK);
	assert_null(find(p, "same.txt"));
	/* sorted by path */
	for (size_t i = 1; i < p->n; i++)
		assert_true(strcmp(p->v[i - 1].path, p->v[i].path) < 0);
	assert_int_equal(p->n, 11);
}

static void
test_copy_mode(void **state)
{
	struct fx *fx = *state;
	struct changes_run run;
	char *cause = NULL;

	host_tree(fx);
	upper_common(fx);
	puts_(fx->upper, ".wh.del.txt", "");
	puts_(fx->upper, ".wh.moved.txt", "");
	puts_(fx->upper, ".wh.dir", "");
	puts_(fx->upper, "opq/.wh..wh..opq", "");
	assert_int_equal(changes_open(fx->run, &run, &cause), 0);
	assert_int_equal(run.n, 1);
	assert_true(run.p[0].copy);
	assert_string_equal(run.p[0].host, fx->host);
	assert_int_equal(changes_scan(&run, &cause), 0);
	check_listing(&run.p[0]);
	changes_done(&run);
}

static void
test_overlay_mode(void **state)
{
	struct fx *fx = *state;
	struct changes_run run;
	char *cause = NULL;
	const char *wh[] = { "del.txt", "moved.txt", "dir" };
	char *opq = xstrdup(at(fx->upper, "opq"));

	host_tree(fx);
	upper_common(fx);
	for (size_t i = 0; i < ARRAY_SIZE(wh); i++) {
		char *p = xasprintf("%s/%s", fx->upper, wh[i]);

		if (mknod(p, S_IFCHR | 0600, makedev(0, 0)) < 0) {
			free(p);
			free(opq);
			skip();
		}
		free(p);
	}
	/* trusted.* needs CAP_SYS_ADMIN; user.* is what an unprivileged
	 * overlay writes (userxattr). */
	if (setxattr(opq, "trusted.overlay.opaque", "y", 1, 0) < 0 &&
	    setxattr(opq, "user.overlay.opaque", "y", 1, 0) < 0) {
		free(opq);
		skip();
	}
	free(opq);
	assert_int_equal(changes_open(fx->run, &run, &cause), 0);
	assert_false(run.p[0].copy);
	assert_int_equal(changes_scan(&run, &cause), 0);
	check_listing(&run.p[0]);
	changes_done(&run);
}

static void
test_no_projects(void **state)
{
	struct fx *fx = *state;
	struct changes_run run;
	char *cause = NULL;
	char *p = xasprintf("%s/projects.tsv", fx->run);

	unlink(p);
	free(p);
	assert_int_equal(changes_open(fx->run, &run, &cause), -ENOENT);
	assert_non_null(cause);
	free(cause);
}

static void
test_apply_discard_undo(void **state)
{
	struct fx *fx = *state;
	struct changes_run run;
	struct changes_done d;
	char *cause = NULL, *before = xasprintf("%s/before", fx->run);
	char *host_mod = xstrdup(at(fx->host, "mod.txt"));
	char *host_new = xstrdup(at(fx->host, "new/sub/added.txt"));
	char *s;
	struct stat st;

	host_tree(fx);
	upper_common(fx);
	puts_(fx->upper, ".wh.del.txt", "");
	assert_int_equal(changes_open(fx->run, &run, &cause), 0);
	assert_int_equal(changes_scan(&run, &cause), 0);

	/* started_ms is in the future: nothing is a conflict yet */
	assert_false(changes_conflict(&run.p[0], find(&run.p[0], "mod.txt"),
	    &s));
	assert_int_equal(changes_apply(&run.p[0], find(&run.p[0], "mod.txt"),
	    before, &d, &cause), 0);
	assert_string_equal(s = slurp(fx->host, "mod.txt"), "one\n2\n");
	free(s);
	assert_string_equal(s = slurp(before, host_mod + 0), "one\ntwo\n");
	free(s);
	assert_int_not_equal(access(at(fx->upper, "mod.txt"), F_OK),
	    0);
	assert_int_equal(changes_apply(&run.p[0], find(&run.p[0], "exec.sh"),
	    before, &d, &cause), 0);
	assert_int_equal(stat(at(fx->host, "exec.sh"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(changes_apply(&run.p[0],
	    find(&run.p[0], "new/sub/added.txt"), before, &d, &cause), 0);
	assert_string_equal(d.before, "-");

	/* discard: the whiteout goes, the host file shows again */
	assert_int_equal(changes_discard(&run.p[0], find(&run.p[0], "del.txt"),
	    &cause), 0);
	assert_int_not_equal(access(at(fx->upper, ".wh.del.txt"),
	    F_OK), 0);

	/* undo: refused once the file changed, then byte for byte */
	{
		char after[65];

		assert_int_equal(changes_hash_path(host_mod, after), 0);
		puts_(fx->host, "mod.txt", "edited\n");
		assert_int_equal(changes_undo(before, host_mod, after, 0644,
		    false, &d, &cause), -ESTALE);
		free(cause);
		cause = NULL;
		puts_(fx->host, "mod.txt", "one\n2\n");
		assert_int_equal(changes_undo(before, host_mod, after, 0644,
		    false, &d, &cause), 0);
		assert_string_equal(s = slurp(fx->host, "mod.txt"),
		    "one\ntwo\n");
		free(s);
		assert_int_equal(changes_hash_path(host_new, after), 0);
		assert_int_equal(changes_undo(before, host_new, after, 0, true,
		    &d, &cause), 0);
		assert_int_not_equal(access(host_new, F_OK), 0);
		changes_undo_dirs(before);
		assert_int_not_equal(access(at(fx->host, "new"),
		    F_OK), 0);
	}
	changes_done(&run);
	free(before);
	free(host_mod);
	free(host_new);
}

static void
test_conflict(void **state)
{
	struct fx *fx = *state;
	struct changes_run run;
	char *cause = NULL, *why = NULL, *p;
	FILE *f;

	host_tree(fx);
	upper_common(fx);
	assert_int_equal(changes_open(fx->run, &run, &cause), 0);
	run.p[0].started_ms = now_wall_ms() - 60000;
	assert_int_equal(changes_scan(&run, &cause), 0);
	assert_true(changes_conflict(&run.p[0], find(&run.p[0], "mod.txt"),
	    &why));
	assert_non_null(strstr(why, "changed after the run started"));
	free(why);
	/* A file where an added one goes is a conflict. */
	puts_(fx->host, "new/sub/added.txt", "raced\n");
	assert_true(changes_conflict(&run.p[0],
	    find(&run.p[0], "new/sub/added.txt"), &why));
	free(why);
	/* With a manifest, the hash decides, not the times. */
	p = xasprintf("%s/manifest.tsv", run.p[0].dir);
	assert_non_null(f = fopen(p, "w"));
	fprintf(f, "mod.txt\t%s\n", "0000");
	fclose(f);
	assert_true(changes_conflict(&run.p[0], find(&run.p[0], "mod.txt"),
	    &why));
	free(why);
	{
		char h[65];
		char *hp = xstrdup(at(fx->host, "mod.txt"));

		assert_int_equal(changes_hash_path(hp, h), 0);
		assert_non_null(f = fopen(p, "w"));
		fprintf(f, "mod.txt\t%s\n", h);
		fclose(f);
		free(hp);
	}
	assert_false(changes_conflict(&run.p[0], find(&run.p[0], "mod.txt"),
	    &why));
	free(p);
	changes_done(&run);
}

/* Copy mode: a file the program never wrote keeps the host's old mtime
 * in the copy. The host editing, chmodding or removing it during the run
 * is the host's change, not the run's: not listed (apply would undo it),
 * so no conflict either; a file the program wrote still is. (The host's
 * folder of host-rm.txt changed during the run: it was made now.) */
static void
backdate(const char *path, int64_t ms)
{
	struct timespec t[2] = {
		{ .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 },
		{ .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 },
	};

	assert_int_equal(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0);
}

static void
test_copy_host_only(void **state)
{
	struct fx *fx = *state;
	struct changes_run run;
	char *cause = NULL;
	int64_t start = now_wall_ms() - 5000;

	/* the copy as made at the start: old bytes, old mtimes */
	puts_(fx->upper, "host-edit.txt", "as it was\n");
	puts_(fx->upper, "host-chmod.sh", "#!/bin/sh\n");
	puts_(fx->upper, "host-rm.txt", "removed by the host\n");
	puts_(fx->upper, "agent.txt", "as it was\n");
	backdate(at(fx->upper, "host-edit.txt"), start - 10000);
	backdate(at(fx->upper, "host-chmod.sh"), start - 10000);
	backdate(at(fx->upper, "host-rm.txt"), start - 10000);
	/* the host during the run */
	puts_(fx->host, "host-edit.txt", "edited on the host\n");
	put(fx->host, "host-chmod.sh", "#!/bin/sh\n", 10, 0755);
	puts_(fx->host, "agent.txt", "as it was\n");
	backdate(at(fx->host, "agent.txt"), start - 10000);
	/* the program writes agent.txt (mtime now) */
	puts_(fx->upper, "agent.txt", "the agent's\n");
	assert_int_equal(changes_open(fx->run, &run, &cause), 0);
	run.p[0].started_ms = start;
	assert_int_equal(changes_scan(&run, &cause), 0);
	assert_null(find(&run.p[0], "host-edit.txt"));
	assert_null(find(&run.p[0], "host-chmod.sh"));
	assert_null(find(&run.p[0], "host-rm.txt"));
	expect_kind(&run.p[0], "agent.txt", CHANGE_MODIFIED);
	assert_int_equal(run.p[0].n, 1);
	/* overlay mode has no copy: the same upper is the program's */
	run.p[0].copy = false;
	assert_int_equal(changes_scan_project(&run.p[0], &cause), 0);
	expect_kind(&run.p[0], "host-edit.txt", CHANGE_MODIFIED);
	changes_done(&run);
}

/* upper/ is the sandboxed program's: a folder it put where the host has
 * a symlink out of the project carries no write through it, and a
 * whiteout named .wh... or .wh.. deletes nothing above the project. */
static void
test_hostile_upper(void **state)
{
	struct fx *fx = *state;
	struct changes_run run;
	struct changes_done d;
	char *cause = NULL, *before = xasprintf("%s/before", fx->run);
	char *outside = xasprintf("%s/outside", fx->root);
	const struct change *c;
	char *s;

	assert_int_equal(mkdir_p(outside, 0755), 0);
	puts_(outside, "secret", "keep\n");
	assert_int_equal(symlink(outside, at(fx->host, "link")), 0);
	puts_(fx->upper, "link/secret", "overwritten\n");
	puts_(fx->upper, ".wh...", "");
	puts_(fx->upper, ".wh..", "");
	puts_(fx->root, "above.txt", "above\n");
	assert_int_equal(changes_open(fx->run, &run, &cause), 0);
	assert_int_equal(changes_scan(&run, &cause), 0);
	/* the host symlink deleted (a folder replaced it), the file added */
	expect_kind(&run.p[0], "link", CHANGE_DELETED);
	expect_kind(&run.p[0], "link/secret", CHANGE_ADDED);
	assert_int_equal(run.p[0].n, 2);
	c = find(&run.p[0], "link/secret");
	assert_int_equal(changes_apply(&run.p[0], c, before, &d, &cause),
	    -ELOOP);
	free(cause);
	assert_string_equal(s = slurp(outside, "secret"), "keep\n");
	free(s);
	assert_int_equal(access(at(fx->root, "above.txt"), F_OK), 0);
	changes_done(&run);
	free(before);
	free(outside);
}

static void
test_hash(void **state)
{
	struct fx *fx = *state;
	char h[65];
	char *p = xstrdup(at(fx->host, "abc"));

	puts_(fx->host, "abc", "abc");
	assert_int_equal(changes_hash_path(p, h), 0);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	unlink(p);
	assert_int_equal(changes_hash_path(p, h), 0);
	assert_string_equal(h, "-");
	free(p);
}

/* A sparse staged file (8 MiB, two bytes of data): its hash is the dense
 * copy's, its cost counts the allocated blocks only, and apply keeps
 * the holes (issue 29: the host got every block). */
static void
test_sparse(void **state)
{
	struct fx *fx = *state;
	struct changes_run run;
	struct changes_cost cost;
	struct changes_done d;
	char hs[65], hd[65], *cause = NULL;
	char *before = xasprintf("%s/before", fx->run);
	char *up = xstrdup(at(fx->upper, "sparse.dat"));
	char *dense = xstrdup(at(fx->root, "dense.dat"));
	static const char zero[65536];
	struct stat st;
	int fd;

	assert_true((fd = open(up, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0);
	assert_int_equal(ftruncate(fd, 8 << 20), 0);
	assert_int_equal(pwrite(fd, "abc", 3, 4 << 20), 3);
	assert_int_equal(pwrite(fd, "end", 3, (8 << 20) - 3), 3);
	close(fd);
	assert_true((fd = open(dense, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0);
	for (int i = 0; i < (8 << 20) / (int)sizeof zero; i++)
		assert_int_equal(write_all(fd, zero, sizeof zero), 0);
	assert_int_equal(pwrite(fd, "abc", 3, 4 << 20), 3);
	assert_int_equal(pwrite(fd, "end", 3, (8 << 20) - 3), 3);
	close(fd);
	assert_int_equal(changes_hash_path(up, hs), 0);
	assert_int_equal(changes_hash_path(dense, hd), 0);
	assert_string_equal(hs, hd);

	assert_int_equal(changes_open(fx->run, &run, &cause), 0);
	assert_int_equal(changes_scan(&run, &cause), 0);
	changes_cost(&run.p[0], find(&run.p[0], "sparse.dat"), &cost);
	assert_int_equal(cost.size, 8 << 20);
	assert_true(cost.write < (1 << 20));
	assert_int_equal(cost.before, 0);
	assert_int_equal(changes_apply(&run.p[0], find(&run.p[0],
	    "sparse.dat"), before, &d, &cause), 0);
	assert_string_equal(d.after, hd);
	assert_int_equal(stat(at(fx->host, "sparse.dat"), &st), 0);
	assert_int_equal(st.st_size, 8 << 20);
	assert_true(st.st_blocks * 512 < (1 << 20));
	changes_done(&run);
	free(before);
	free(up);
	free(dense);
}

static int
record_cb(const struct audit_change_row *row, void *arg)
{
	int *n = arg;

	assert_string_equal(row->ch.action, "applied");
	assert_string_equal(row->ch.path, "/h/a");
	assert_string_equal(row->ch.from_path, "/h/b");
	assert_string_equal(row->ch.after_hash, "ab");
	assert_int_equal(row->ch.new_mode, 0100644);
	(*n)++;
	return 0;
}

static void
test_record(void **state)
{
	struct audit *a = NULL;
	char *cause = NULL;
	struct audit_change ch = {
		.run = "r1", .time_ms = 5, .path = "/h/a", .from_path = "/h/b",
		.kind = "renamed", .action = "applied", .before_hash = "-",
		.after_hash = "ab", .size = 3, .new_mode = 0100644,
		.by = "uid 1 (x)",
	};
	int n = 0;

	(void)state;
	assert_int_equal(audit_open(":memory:", &a, &cause), 0);
	int64_t seq = 0;

	ch.action = "applying";
	ch.after_hash = "-";
	assert_int_equal(audit_change(a, &ch, &seq, &cause), 0);
	assert_true(seq > 0);
	assert_int_equal(audit_change_done(a, seq, "applied", "ab", &cause), 0);
	assert_int_equal(audit_change_done(a, seq + 99, "applied", "ab",
	    &cause), -ENOENT);
	free(cause);
	cause = NULL;
	ch.run = "r2";
	ch.action = "applied";
	ch.after_hash = "ab";
	assert_int_equal(audit_change(a, &ch, NULL, &cause), 0);
	assert_int_equal(audit_each_change(a, "r1", record_cb, &n, &cause), 0);
	assert_int_equal(n, 1);
	assert_int_equal(audit_each_change(a, NULL, record_cb, &n, &cause), 0);
	assert_int_equal(n, 3);
	audit_close(a);
}

static void
test_kinds(void **state)
{
	enum change_kind k;

	(void)state;
	for (int i = CHANGE_ADDED; i <= CHANGE_SYMLINK; i++) {
		assert_int_equal(changes_kind_parse(changes_kind_name(
		    (enum change_kind)i), &k), 0);
		assert_int_equal(k, i);
	}
	assert_int_equal(changes_kind_parse("nope", &k), -EINVAL);
}

/* A write outside answered "stage" as the supervisor leaves it: the
 * copy in RUN/outside/upper/<host path>, the host's bytes at stage time
 * in RUN/outside/base/<host path> (none for a file the open created). */
static void
stage_outside(struct fx *fx, const char *name, const char *base,
    const char *staged)
{
	char *rel = xasprintf("%s/%s", fx->host + 1, name);
	char *up = xasprintf("%s/outside/upper", fx->run);
	char *bs = xasprintf("%s/outside/base", fx->run);

	if (base != NULL)
		puts_(bs, rel, base);
	puts_(up, rel, staged);
	free(rel);
	free(up);
	free(bs);
}

static void
test_outside(void **state)
{
	struct fx *fx = *state;
	struct changes_run run;
	struct changes_done d;
	const struct changes_project *p;
	char *cause = NULL, *before = xasprintf("%s/before", fx->run);
	char *rel_conf = xasprintf("%s/canary.conf", fx->host + 1);
	char *rel_new = xasprintf("%s/new.conf", fx->host + 1);
	char *rel_other = xasprintf("%s/other.conf", fx->host + 1);
	char *host_conf = xstrdup(at(fx->host, "canary.conf"));
	char *s = NULL, after[65];
	char buf[512];
	size_t len;

	puts_(fx->host, "canary.conf", "keep = 1\n");
	puts_(fx->host, "other.conf", "other\n");
	stage_outside(fx, "canary.conf", "keep = 1\n", "keep = 2\n");
	stage_outside(fx, "new.conf", NULL, "fresh\n");
	stage_outside(fx, "other.conf", "other\n", "other 2\n");
	/* No project: the staged writes outside are the run's changes. */
	assert_int_equal(unlink(at(fx->run, "projects.tsv")), 0);
	assert_int_equal(changes_open(fx->run, &run, &cause), 0);
	assert_int_equal(run.n, 1);
	p = &run.p[0];
	assert_true(p->outside);
	assert_int_equal(p->index, -1);
	assert_string_equal(p->host, "");
	assert_int_equal(changes_scan(&run, &cause), 0);
	assert_int_equal(p->n, 3);
	expect_kind(p, rel_conf, CHANGE_MODIFIED);
	expect_kind(p, rel_new, CHANGE_ADDED);
	expect_kind(p, rel_other, CHANGE_MODIFIED);
	/* The old side is the host file at its own absolute path. */
	assert_int_equal(changes_read(p, find(p, rel_conf), false, sizeof buf,
	    &s, &len), 0);
	assert_int_equal(len, 9);
	assert_memory_equal(s, "keep = 1\n", 9);
	free(s);

	/* The host as it was at stage time: no conflict; changed since: a
	 * conflict (the base is the judge, not the clock). */
	assert_false(changes_conflict(p, find(p, rel_conf), &s));
	assert_false(changes_conflict(p, find(p, rel_new), &s));
	puts_(fx->host, "other.conf", "edited on the host\n");
	assert_true(changes_conflict(p, find(p, rel_other), &s));
	assert_non_null(strstr(s, "not what it was"));
	free(s);
	puts_(fx->host, "new.conf", "appeared\n");
	assert_true(changes_conflict(p, find(p, rel_new), &s));
	free(s);
	assert_int_equal(unlink(at(fx->host, "new.conf")), 0);

	/* apply: the host file atomically, its before-image kept */
	assert_int_equal(changes_apply(p, find(p, rel_conf), before, &d,
	    &cause), 0);
	assert_string_equal(s = slurp(fx->host, "canary.conf"), "keep = 2\n");
	free(s);
	assert_string_equal(s = slurp(before, host_conf), "keep = 1\n");
	free(s);
	{
		char *up = xasprintf("%s/outside/upper/%s", fx->run, rel_conf);

		/* applied: no longer staged */
		assert_int_not_equal(access(up, F_OK), 0);
		free(up);
	}
	/* undo restores it byte for byte */
	assert_int_equal(changes_hash_path(host_conf, after), 0);
	assert_int_equal(changes_undo(before, host_conf, after, 0644, false,
	    &d, &cause), 0);
	assert_string_equal(s = slurp(fx->host, "canary.conf"), "keep = 1\n");
	free(s);
	/* discard: the staged copy goes, the host is untouched */
	assert_int_equal(changes_discard(p, find(p, rel_new), &cause), 0);
	assert_int_not_equal(access(at(fx->host, "new.conf"), F_OK), 0);
	changes_done(&run);

	/* Beside a project: listed after it. */
	{
		FILE *f = fopen(at(fx->run, "projects.tsv"), "w");

		assert_non_null(f);
		fprintf(f, "0\t%s\tcopy\n", fx->host);
		fclose(f);
	}
	assert_int_equal(changes_open(fx->run, &run, &cause), 0);
	assert_int_equal(run.n, 2);
	assert_false(run.p[0].outside);
	assert_true(run.p[1].outside);
	assert_int_equal(changes_scan(&run, &cause), 0);
	assert_int_equal(run.p[1].n, 1);
	expect_kind(&run.p[1], rel_other, CHANGE_MODIFIED);
	changes_done(&run);
	free(before);
	free(rel_conf);
	free(rel_new);
	free(rel_other);
	free(host_conf);
}

/* changes_apply_reviewed: the reviewed hash or nothing. A file rewritten
 * after its review is refused and the host keeps its bytes; the reviewed
 * content goes in; a deletion reviewed is refused once the file is
 * staged again. */
static void
test_apply_reviewed(void **state)
{
	struct fx *fx = *state;
	struct changes_run run;
	struct changes_done d;
	char *cause = NULL, *before = xasprintf("%s/before", fx->run);
	char h[65], hdel[65];
	char *s;

	host_tree(fx);
	puts_(fx->upper, "mod.txt", "+benign\n");
	puts_(fx->upper, ".wh.del.txt", "");
	assert_int_equal(changes_open(fx->run, &run, &cause), 0);
	assert_int_equal(changes_scan(&run, &cause), 0);
	assert_int_equal(changes_staged_hash(&run.p[0],
	    find(&run.p[0], "mod.txt"), h), 0);
	assert_int_equal(strlen(h), 64);
	assert_int_equal(changes_staged_hash(&run.p[0],
	    find(&run.p[0], "del.txt"), hdel), 0);
	assert_string_equal(hdel, "-");

	/* the agent rewrites it after the review */
	puts_(fx->upper, "mod.txt", "EVIL payload\n");
	assert_int_equal(changes_apply_reviewed(&run.p[0],
	    find(&run.p[0], "mod.txt"), before, h, &d, &cause), -ESTALE);
	assert_non_null(strstr(cause, "reviewed"));
	free(cause);
	cause = NULL;
	assert_string_equal(s = slurp(fx->host, "mod.txt"), "one\ntwo\n");
	free(s);

	/* back to what was reviewed: it goes in */
	puts_(fx->upper, "mod.txt", "+benign\n");
	assert_int_equal(changes_apply_reviewed(&run.p[0],
	    find(&run.p[0], "mod.txt"), before, h, &d, &cause), 0);
	assert_string_equal(s = slurp(fx->host, "mod.txt"), "+benign\n");
	free(s);
	assert_string_equal(d.after, h);

	/* a deletion reviewed, then the file staged again */
	puts_(fx->upper, "del.txt", "back\n");
	assert_int_equal(changes_apply_reviewed(&run.p[0],
	    find(&run.p[0], "del.txt"), before, hdel, &d, &cause), -ESTALE);
	free(cause);
	assert_string_equal(s = slurp(fx->host, "del.txt"), "bye\n");
	free(s);
	changes_done(&run);
	free(before);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_record),
		cmocka_unit_test_setup_teardown(test_copy_mode, setup_copy,
		    teardown),
		cmocka_unit_test_setup_teardown(test_overlay_mode,
		    setup_overlay, teardown),
		cmocka_unit_test_setup_teardown(test_no_projects, setup_copy,
		    teardown),
		cmocka_unit_test_setup_teardown(test_apply_discard_undo,
		    setup_copy, teardown),
		cmocka_unit_test_setup_teardown(test_copy_host_only,
		    setup_copy, teardown),
		cmocka_unit_test_setup_teardown(test_conflict, setup_copy,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hash, setup_copy,
		    teardown),
		cmocka_unit_test_setup_teardown(test_sparse, setup_copy,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hostile_upper, setup_copy,
		    teardown),
		cmocka_unit_test_setup_teardown(test_outside, setup_copy,
		    teardown),
		cmocka_unit_test_setup_teardown(test_apply_reviewed,
		    setup_copy, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
