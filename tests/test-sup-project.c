/* SPDX-License-Identifier: MIT */
/*
 * supervisor/project.c: a project staged as a copy (the hook
 * WARD_PROJECT_MODE=copy's path), changed as a program would, settled:
 * upper/ holds only the changes, a deletion a .wh.NAME marker, the host
 * folder untouched; the skipped paths never copied. The overlay itself
 * is mounted in the sandbox: tests/live/t-project.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/util.h"
#include "supervisor/project.h"

static char tmp[] = "/tmp/test-sup-project.XXXXXX";

/* tmp/rel, in one of two buffers that take turns. */
static const char *
at(const char *rel)
{
	static char buf[2][4096];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tmp, rel);
	return buf[k];
}

static void
put(const char *rel, const char *text, mode_t mode)
{
	char *p = xasprintf("%s/%s", tmp, rel);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

static void
dir(const char *rel)
{
	char *p = xasprintf("%s/%s", tmp, rel);

	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

static bool
exists(const char *rel)
{
	char *p = xasprintf("%s/%s", tmp, rel);
	struct stat st;
	bool r = lstat(p, &st) == 0;

	free(p);
	return r;
}

static char *
slurp(const char *rel)
{
	char *p = xasprintf("%s/%s", tmp, rel), buf[256];
	FILE *f = fopen(p, "r");
	size_t n;

	free(p);
	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return xstrdup(buf);
}

static void
assert_text(const char *rel, const char *want)
{
	char *got = slurp(rel);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void
test_copy_settled(void **state)
{
	char *run, *host, *secret, *cause = NULL, *note = NULL;
	char *skip[1];
	struct project p;
	struct project_opts o;
	struct stat st;
	char *ini, want[8192];

	(void)state;
	assert_non_null(mkdtemp(tmp));
	dir("run");
	dir("host");
	dir("host/keep");
	dir("host/redo");
	dir("host/secret");
	dir("host/modes");
	put("host/a.txt", "one\n", 0644);
	put("host/gone.txt", "bye\n", 0644);
	put("host/mode.sh", "echo\n", 0644);
	put("host/keep/same.txt", "same\n", 0644);
	put("host/redo/old.txt", "old\n", 0644);
	put("host/secret/key", "KEY\n", 0600);
	put("host/modes/same.txt", "same\n", 0644);
	assert_int_equal(symlink("a.txt", at("host/link")), 0);
	/* A fifo is not copied, and not a deletion either. */
	assert_int_equal(mkfifo(at("host/fifo"), 0644), 0);
	run = xstrdup(at("run"));
	host = xstrdup(at("host"));
	secret = xstrdup(at("host/secret"));
	skip[0] = secret;
	o = (struct project_opts){
		.owner_uid = (uid_t)-1, .owner_gid = (gid_t)-1,
		.force_copy = true, .started_ms = 1234567890123,
		.skip = skip, .n_skip = 1,
	};
	assert_int_equal(project_stage(&p, run, 0, host, &o, &note, &cause), 0);
	assert_int_equal(p.mode, PROJECT_COPY);
	assert_non_null(note);
	assert_non_null(strstr(note, "WARD_PROJECT_MODE=copy"));
	snprintf(want, sizeof want, "host = %s\nmode = copy\n"
	    "started_ms = 1234567890123\n", host);
	assert_text("run/projects/0/project.ini", want);
	/* The whole folder copied, but the skipped path. */
	assert_text("run/projects/0/upper/keep/same.txt", "same\n");
	assert_true(exists("run/projects/0/upper/link"));
	assert_false(exists("run/projects/0/upper/secret"));

	/* What a program does to the copy. */
	put("run/projects/0/upper/a.txt", "one\ntwo\n", 0644);
	assert_int_equal(unlink(at("run/projects/0/upper/gone.txt")), 0);
	assert_int_equal(chmod(at("run/projects/0/upper/mode.sh"), 0755), 0);
	assert_int_equal(unlink(at("run/projects/0/upper/redo/old.txt")), 0);
	put("run/projects/0/upper/redo/new.txt", "new\n", 0644);
	assert_int_equal(chmod(at("run/projects/0/upper/modes"), 0700), 0);
	dir("run/projects/0/upper/fresh");
	put("run/projects/0/upper/fresh/f", "f\n", 0600);

	assert_int_equal(project_settle(&p, &o, &cause), 0);
	assert_text("run/projects/0/upper/a.txt", "one\ntwo\n");
	assert_text("run/projects/0/upper/mode.sh", "echo\n");
	assert_text("run/projects/0/upper/fresh/f", "f\n");
	assert_text("run/projects/0/upper/redo/new.txt", "new\n");
	assert_text("run/projects/0/upper/.wh.gone.txt", "");
	assert_text("run/projects/0/upper/redo/.wh.old.txt", "");
	/* Unchanged: gone from upper/; skipped: never a deletion. */
	assert_false(exists("run/projects/0/upper/keep"));
	/* A folder whose mode changed stays, without what it holds unchanged. */
	assert_int_equal(stat(at("run/projects/0/upper/modes"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_false(exists("run/projects/0/upper/modes/same.txt"));
	assert_false(exists("run/projects/0/upper/link"));
	assert_false(exists("run/projects/0/upper/.wh.secret"));
	assert_false(exists("run/projects/0/upper/fifo"));
	assert_false(exists("run/projects/0/upper/.wh.fifo"));
	assert_false(exists("run/projects/0/upper/secret"));
	/* The host as it was. */
	assert_text("host/a.txt", "one\n");
	assert_text("host/gone.txt", "bye\n");
	assert_int_equal(stat(at("host/mode.sh"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	ini = slurp("run/projects/0/project.ini");
	assert_non_null(strstr(ini, "\nsettled_ms = "));

	assert_int_equal(project_write_list(run, &p, 1, &cause), 0);
	snprintf(want, sizeof want, "0\t%s\tcopy\n", host);
	assert_text("run/projects.tsv", want);
	project_done(&p);
	free(note);
	free(ini);
	free(run);
	free(host);
	free(secret);
	snprintf(want, sizeof want, "rm -rf '%s'", tmp);
	assert_int_equal(system(want), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_settled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
