/* SPDX-License-Identifier: MIT */
/*
 * tui/diff.c on a run folder laid out by hand as --project leaves it
 * (real files in a temporary folder, listed by approvals/changes.c): each
 * kind of change as the patch git writes for it. A text edit's hunk, a
 * new file in a new subfolder, a deletion by copy mode's .wh.NAME and by
 * overlay mode's 0:0 character device, a mode change alone, a symlink's
 * target and a file that became a symlink, a binary file as a git binary
 * patch, a rename of the same bytes and a rename with edits (libgit2's
 * similarity), and the size cap's marker line.
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
#include <unistd.h>

#include <cmocka.h>

#include "approvals/changes.h"
#include "approvals/gitapi.h"
#include "config/util.h"
#include "tui/diff.h"

struct fx {
	char			 root[64];
	char			*host;
	char			*run;
	char			*upper;
	struct changes_run	 cr;
	bool			 open;
};

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
text(const char *dir, const char *rel, const char *s)
{
	put(dir, rel, s, strlen(s), 0644);
}

static void
link_at(const char *dir, const char *rel, const char *target)
{
	char *path = xasprintf("%s/%s", dir, rel);

	assert_int_equal(symlink(target, path), 0);
	free(path);
}

static int
setup(void **state)
{
	struct fx *fx = xcalloc(1, sizeof *fx);
	char *p;
	FILE *f;

	if (gitapi_load(NULL) < 0) {
		free(fx);
		return -1;
	}
	snprintf(fx->root, sizeof fx->root, "/tmp/test-tui-diff.XXXXXX");
	assert_non_null(mkdtemp(fx->root));
	fx->host = xasprintf("%s/host", fx->root);
	fx->run = xasprintf("%s/run", fx->root);
	fx->upper = xasprintf("%s/projects/0/upper", fx->run);
	assert_int_equal(mkdir_p(fx->host, 0755), 0);
	assert_int_equal(mkdir_p(fx->upper, 0755), 0);
	p = xasprintf("%s/projects.tsv", fx->run);
	assert_non_null(f = fopen(p, "w"));
	fprintf(f, "0\t%s\tcopy\n", fx->host);
	fclose(f);
	free(p);
	p = xasprintf("%s/projects/0/project.ini", fx->run);
	assert_non_null(f = fopen(p, "w"));
	fprintf(f, "host = %s\nmode = copy\nstarted_ms = %lld\n", fx->host,
	    (long long)now_wall_ms() + 60000);
	fclose(f);
	free(p);
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
	struct fx *fx = *state;

	if (fx->open)
		changes_done(&fx->cr);
	nftw(fx->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(fx->host);
	free(fx->run);
	free(fx->upper);
	free(fx);
	return 0;
}

static void
scan(struct fx *fx)
{
	char *cause = NULL;

	if (fx->open)
		changes_done(&fx->cr);
	assert_int_equal(changes_open(fx->run, &fx->cr, &cause), 0);
	fx->open = true;
	if (changes_scan(&fx->cr, &cause) < 0)
		fail_msg("scan: %s", cause);
}

static const struct change *
find(struct fx *fx, const char *path)
{
	const struct changes_project *p = &fx->cr.p[0];

	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].path, path) == 0)
			return &p->v[i];
	fail_msg("%s: not listed", path);
	return NULL;
}

/* The patch of path's change (cap as given), *st filled. */
static char *
patch_of(struct fx *fx, const char *path, size_t cap, struct diff_stat *st)
{
	char *buf = NULL, *cause = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (diff_patch(&fx->cr.p[0], find(fx, path), cap, f, st, &cause) < 0)
		fail_msg("%s: %s", path, cause);
	fclose(f);
	return buf;
}

static void
has(const char *patch, const char *want)
{
	if (strstr(patch, want) == NULL)
		fail_msg("no \"%s\" in:\n%s", want, patch);
}

static void
has_not(const char *patch, const char *want)
{
	if (strstr(patch, want) != NULL)
		fail_msg("\"%s\" in:\n%s", want, patch);
}

static void
test_text_added_deleted(void **state)
{
	struct fx *fx = *state;
	struct diff_stat st;
	char *p;

	text(fx->host, "mod.txt", "one\ntwo\nthree\n");
	text(fx->upper, "mod.txt", "one\n2\nthree\n");
	text(fx->upper, "new/sub/added.txt", "new\n");
	text(fx->host, "gone.txt", "bye\n");
	text(fx->upper, ".wh.gone.txt", "");
	scan(fx);

	p = patch_of(fx, "mod.txt", DIFF_CAP, &st);
	has(p, "diff --git a/mod.txt b/mod.txt\nindex ");
	has(p, " 100644\n--- a/mod.txt\n+++ b/mod.txt\n@@ -1,3 +1,3 @@\n"
	    " one\n-two\n+2\n three\n");
	assert_int_equal(st.added, 1);
	assert_int_equal(st.deleted, 1);
	assert_false(st.binary);
	free(p);

	p = patch_of(fx, "new/sub/added.txt", DIFF_CAP, &st);
	has(p, "diff --git a/new/sub/added.txt b/new/sub/added.txt\n"
	    "new file mode 100644\nindex 0000000000000000000000000000000000000000..");
	has(p, "--- /dev/null\n+++ b/new/sub/added.txt\n@@ -0,0 +1 @@\n+new\n");
	free(p);

	/* copy mode's whiteout reads as the deletion */
	assert_int_equal(find(fx, "gone.txt")->kind, CHANGE_DELETED);
	p = patch_of(fx, "gone.txt", DIFF_CAP, &st);
	has(p, "deleted file mode 100644\n");
	has(p, "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n");
	free(p);
}

/* overlay mode's whiteout, a 0:0 character device (mknod needs root or
 * a user namespace's root: skipped elsewhere). */
static void
test_overlay_whiteout(void **state)
{
	struct fx *fx = *state;
	struct diff_stat st;
	char *wh = xasprintf("%s/gone.txt", fx->upper);
	char *p;

	text(fx->host, "gone.txt", "bye\n");
	if (mknod(wh, S_IFCHR | 0600, makedev(0, 0)) < 0) {
		free(wh);
		skip();
	}
	free(wh);
	scan(fx);
	assert_int_equal(find(fx, "gone.txt")->kind, CHANGE_DELETED);
	p = patch_of(fx, "gone.txt", DIFF_CAP, &st);
	has(p, "deleted file mode 100644\n");
	has(p, "-bye\n");
	free(p);
}

static void
test_mode_symlink(void **state)
{
	struct fx *fx = *state;
	struct diff_stat st;
	char *p;

	text(fx->host, "tool.sh", "#!/bin/sh\n");
	put(fx->upper, "tool.sh", "#!/bin/sh\n", 10, 0755);
	link_at(fx->host, "ln", "a.txt");
	link_at(fx->upper, "ln", "b.txt");
	text(fx->host, "became", "a file\n");
	link_at(fx->upper, "became", "tool.sh");
	scan(fx);

	/* the same bytes: the mode lines and nothing else */
	assert_int_equal(find(fx, "tool.sh")->kind, CHANGE_MODE);
	p = patch_of(fx, "tool.sh", DIFF_CAP, &st);
	assert_string_equal(p, "diff --git a/tool.sh b/tool.sh\n"
	    "old mode 100644\nnew mode 100755\n");
	free(p);

	assert_int_equal(find(fx, "ln")->kind, CHANGE_SYMLINK);
	p = patch_of(fx, "ln", DIFF_CAP, &st);
	has(p, " 120000\n--- a/ln\n+++ b/ln\n");
	has(p, "-a.txt\n\\ No newline at end of file\n+b.txt\n");
	free(p);

	/* file -> symlink: git's deletion and addition */
	p = patch_of(fx, "became", DIFF_CAP, &st);
	has(p, "diff --git a/became b/became\ndeleted file mode 100644\n");
	has(p, "diff --git a/became b/became\nnew file mode 120000\n");
	has(p, "+tool.sh\n");
	free(p);
}

static void
test_binary(void **state)
{
	struct fx *fx = *state;
	struct diff_stat st;
	char *p;

	put(fx->host, "blob.bin", "\0\1\2\377binary\0", 11, 0644);
	put(fx->upper, "blob.bin", "\0\1\2\377binary\0\3\4", 13, 0644);
	scan(fx);
	assert_true(find(fx, "blob.bin")->binary);
	p = patch_of(fx, "blob.bin", DIFF_CAP, &st);
	assert_true(st.binary);
	has(p, "diff --git a/blob.bin b/blob.bin\nindex ");
	has(p, "GIT binary patch\nliteral 13\n");
	has_not(p, "--- a/blob.bin");
	free(p);
}

static void
test_renames(void **state)
{
	struct fx *fx = *state;
	struct diff_stat st;
	const struct change *c;
	char story[1024] = "", edited[1024] = "";
	char *p;

	for (int i = 1; i <= 20; i++) {
		char line[64];

		snprintf(line, sizeof line, "line %d of the story\n", i);
		strcat(story, line);
		strcat(edited, i == 10 ? "line ten, rewritten\n" : line);
	}
	text(fx->host, "same.txt", "the same bytes, moved\n");
	text(fx->upper, ".wh.same.txt", "");
	text(fx->upper, "moved/same.txt", "the same bytes, moved\n");
	text(fx->host, "story.txt", story);
	text(fx->upper, ".wh.story.txt", "");
	text(fx->upper, "docs/story.md", edited);
	/* nothing alike: a deletion and an addition, not a rename */
	text(fx->host, "old.c", "int main(void) { return 0; }\n");
	text(fx->upper, ".wh.old.c", "");
	text(fx->upper, "notes.txt", "shopping: eggs, milk, bread, tea\n");
	scan(fx);

	c = find(fx, "moved/same.txt");
	assert_int_equal(c->kind, CHANGE_RENAMED);
	assert_string_equal(c->from, "same.txt");
	assert_int_equal(c->similarity, 100);
	p = patch_of(fx, "moved/same.txt", DIFF_CAP, &st);
	assert_string_equal(p, "diff --git a/same.txt b/moved/same.txt\n"
	    "similarity index 100%\nrename from same.txt\n"
	    "rename to moved/same.txt\n");
	free(p);

	c = find(fx, "docs/story.md");
	assert_int_equal(c->kind, CHANGE_RENAMED);
	assert_string_equal(c->from, "story.txt");
	assert_true(c->similarity >= 50 && c->similarity < 100);
	p = patch_of(fx, "docs/story.md", DIFF_CAP, &st);
	has(p, "diff --git a/story.txt b/docs/story.md\nsimilarity index ");
	has(p, "%\nrename from story.txt\nrename to docs/story.md\nindex ");
	has(p, "--- a/story.txt\n+++ b/docs/story.md\n");
	has(p, "-line 10 of the story\n+line ten, rewritten\n");
	assert_int_equal(st.added, 1);
	assert_int_equal(st.deleted, 1);
	free(p);

	assert_int_equal(find(fx, "old.c")->kind, CHANGE_DELETED);
	assert_int_equal(find(fx, "notes.txt")->kind, CHANGE_ADDED);
	assert_int_equal(fx->cr.p[0].n, 4);
}

/* Over the cap: one '# ward:' line (git apply and patch skip it), no
 * hunk, the stat says so. */
static void
test_cap(void **state)
{
	struct fx *fx = *state;
	struct diff_stat st;
	char *p;

	text(fx->host, "big.txt", "small before\n");
	text(fx->upper, "big.txt", "a line longer than the cap of this test\n");
	scan(fx);
	p = patch_of(fx, "big.txt", 16, &st);
	assert_true(st.capped);
	assert_int_equal(strncmp(p, "# ward: big.txt: over the ", 26), 0);
	has(p, "not shown ('ward apply' still applies it)\n");
	has_not(p, "diff --git");
	free(p);
	p = patch_of(fx, "big.txt", DIFF_CAP, &st);
	assert_false(st.capped);
	has(p, "+a line longer than the cap of this test\n");
	free(p);
}

/* Names quoted as git quotes them (core.quotePath): no byte of a name
 * starts a line of the patch or reaches a terminal raw. */
static void
test_quote_path(void **state)
{
	static const struct {
		const char *name, *quoted;
	} table[] = {
		{ "plain.txt", "plain.txt" },
		{ "with space", "with space" },
		{ "nl\n+forged hunk", "\"nl\\n+forged hunk\"" },
		{ "\033]0;title\a\033[2K", "\"\\033]0;title\\a\\033[2K\"" },
		{ "tab\there", "\"tab\\there\"" },
		{ "q\"uote", "\"q\\\"uote\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "caf\xc3\xa9", "\"caf\\303\\251\"" },
		{ "del\x7f\b\v\f\r\x01", "\"del\\177\\b\\v\\f\\r\\001\"" },
	};
	char *q;

	(void)state;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		q = diff_quote_path("", table[i].name);
		assert_string_equal(q, table[i].quoted);
		free(q);
	}
	q = diff_quote_path("a/", "x\ny");
	assert_string_equal(q, "\"a/x\\ny\"");
	free(q);
	q = diff_quote_path("b/", "x");
	assert_string_equal(q, "b/x");
	free(q);
}

/* A patch of files with hostile names: every header quoted, not one raw
 * control byte, and no line the name could have started. */
static void
test_hostile_names(void **state)
{
	struct fx *fx = *state;
	static const char *names[] = {
		"nl\n+forged hunk", "\033]0;title\a\033[2K", "tab\tx",
		"q\"x", "caf\xc3\xa9",
	};
	struct diff_stat st;
	char *p;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		text(fx->upper, names[i], "+benign\n");
	put(fx->upper, "bin\nary", "\0\1\2", 3, 0644);
	text(fx->host, "old\nname", "same bytes here\n");
	text(fx->upper, "new\nname", "same bytes here\n");
	text(fx->upper, ".wh.old\nname", "");
	scan(fx);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		p = patch_of(fx, names[i], DIFF_CAP, &st);
		for (const char *s = p; *s; s++)
			if ((unsigned char)*s < 0x20 && *s != '\n')
				fail_msg("raw byte 0x%02x in:\n%s", *s, p);
		has_not(p, "\n+forged hunk");
		free(p);
	}
	p = patch_of(fx, "nl\n+forged hunk", DIFF_CAP, &st);
	has(p, "diff --git \"a/nl\\n+forged hunk\" \"b/nl\\n+forged hunk\"\n");
	has(p, "--- /dev/null\n+++ \"b/nl\\n+forged hunk\"\n@@ -0,0 +1 @@\n"
	    "++benign\n");
	free(p);
	p = patch_of(fx, "caf\xc3\xa9", DIFF_CAP, &st);
	has(p, "+++ \"b/caf\\303\\251\"\n");
	free(p);
	p = patch_of(fx, "bin\nary", DIFF_CAP, &st);
	has(p, "diff --git \"a/bin\\nary\" \"b/bin\\nary\"\n");
	has_not(p, "bin\nary");
	free(p);
	p = patch_of(fx, "new\nname", DIFF_CAP, &st);
	has(p, "rename from \"old\\nname\"\nrename to \"new\\nname\"\n");
	free(p);
}

/* libgit2 is opened by the soname of the library built against (the
 * Makefile reads it from libgit2.so), never by the development symlink
 * when that soname is there, and never by a version written in. */
static void
test_soname(void **state)
{
	const char *name;

	(void)state;
	assert_int_equal(gitapi_load(NULL), 0);
	assert_non_null(name = gitapi_name());
	assert_true(strncmp(name, "libgit2.so.", 11) == 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text_added_deleted, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_overlay_whiteout, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mode_symlink, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_binary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_renames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
		cmocka_unit_test(test_quote_path),
		cmocka_unit_test(test_soname),
		cmocka_unit_test_setup_teardown(test_hostile_names, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
