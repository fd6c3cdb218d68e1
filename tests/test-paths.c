/* SPDX-License-Identifier: MIT */
/* config/paths.c: XDG variables, fallbacks, the runtime folder's checks. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/paths.h"
#include "config/util.h"

static const char *const vars[] = {
	"HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "WARD_SHARE",
};

struct fixture {
	char	*base;			/* a fresh folder under /tmp */
	char	*saved[ARRAY_SIZE(vars)];
	mode_t	 umask;
};

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		chmod(path, 0700);	/* a test may leave it mode 0 */
	return remove(path) < 0 ? -1 : 0;
}

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);

	f->base = xstrdup("/tmp/test-paths.XXXXXX");
	if (mkdtemp(f->base) == NULL)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);

		f->saved[i] = v ? xstrdup(v) : NULL;
		unsetenv(vars[i]);
	}
	f->umask = umask(022);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	umask(f->umask);
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		if (f->saved[i] != NULL)
			setenv(vars[i], f->saved[i], 1);
		else
			unsetenv(vars[i]);
		free(f->saved[i]);
	}
	nftw(f->base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f->base);
	free(f);
	return 0;
}

/* base/sub, made if it is not there */
static char *
sub(const struct fixture *f, const char *name, mode_t mode)
{
	char *p = xasprintf("%s/%s", f->base, name);

	if (mode != 0)
		assert_int_equal(mkdir_p(p, mode), 0);
	return p;
}

static void
assert_path(char *got, const char *want)
{
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void
test_xdg(void **state)
{
	struct fixture *f = *state;
	char *state_home = sub(f, "state", 0);
	char *config = sub(f, "config", 0);
	char *want;

	setenv("HOME", "/nonexistent/home", 1);
	setenv("XDG_STATE_HOME", state_home, 1);
	setenv("XDG_CONFIG_HOME", config, 1);

	want = xasprintf("%s/ward", state_home);
	assert_path(paths_state_dir(), want);
	free(want);
	want = xasprintf("%s/ward/audit.db", state_home);
	assert_path(paths_audit_db(), want);
	free(want);
	want = xasprintf("%s/ward/runs", state_home);
	assert_path(paths_runs_dir(), want);
	free(want);
	want = xasprintf("%s/ward", config);
	assert_path(paths_config_dir(), want);
	free(want);
	free(state_home);
	free(config);
}

static void
test_home_fallback(void **state)
{
	struct fixture *f = *state;
	char *home = sub(f, "home", 0);
	char *want;

	setenv("HOME", home, 1);
	want = xasprintf("%s/.local/state/ward", home);
	assert_path(paths_state_dir(), want);
	free(want);
	want = xasprintf("%s//", home);
	setenv("HOME", want, 1);
	free(want);
	want = xasprintf("%s/.local/state/ward/audit.db", home);
	assert_path(paths_audit_db(), want);
	free(want);
	want = xasprintf("%s/.config/ward", home);
	assert_path(paths_config_dir(), want);
	free(want);
	free(home);
}

/* The XDG spec: relative (or empty) values are invalid and ignored. */
static void
test_relative_ignored(void **state)
{
	struct fixture *f = *state;
	char *home = sub(f, "home", 0);
	char *want;

	setenv("HOME", home, 1);
	setenv("XDG_STATE_HOME", "relative/state", 1);
	setenv("XDG_CONFIG_HOME", "", 1);
	want = xasprintf("%s/.local/state/ward", home);
	assert_path(paths_state_dir(), want);
	free(want);
	want = xasprintf("%s/.config/ward", home);
	assert_path(paths_config_dir(), want);
	free(want);
	free(home);
}

static void
test_home_unset(void **state)
{
	struct passwd *pw = getpwuid(getuid());
	char *want;

	(void)state;
	if (pw == NULL || pw->pw_dir == NULL || pw->pw_dir[0] != '/')
		skip();
	want = xasprintf("%s/.config/ward", pw->pw_dir);
	assert_path(paths_config_dir(), want);
	free(want);
	/* A relative HOME is no better than none. */
	setenv("HOME", "home", 1);
	want = xasprintf("%s/.local/state/ward", pw->pw_dir);
	assert_path(paths_state_dir(), want);
	free(want);
}

static void
assert_runtime_ok(const char *want)
{
	char *dir = NULL, *cause = NULL;
	struct stat st;
	int r = paths_runtime_dir(&dir, &cause);

	if (r != 0)
		fail_msg("paths_runtime_dir: %d %s", r, cause);
	assert_null(cause);
	assert_string_equal(dir, want);
	assert_int_equal(lstat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, getuid());
	free(dir);
}

static void
assert_runtime_refused(int want_r, const char *want_cause)
{
	char *dir = NULL, *cause = NULL;
	int r = paths_runtime_dir(&dir, &cause);

	if (r != want_r)
		fail_msg("paths_runtime_dir: %d (%s), want %d", r, cause, want_r);
	assert_null(dir);
	if (cause == NULL || strstr(cause, want_cause) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\"", cause, want_cause);
	free(cause);
}

static void
test_runtime_created(void **state)
{
	struct fixture *f = *state;
	char *run = sub(f, "run", 0700);
	char *want = xasprintf("%s/ward", run);

	setenv("XDG_RUNTIME_DIR", run, 1);
	assert_runtime_ok(want);
	/* again, now that it exists; and with a trailing slash */
	free(run);
	run = xasprintf("%s/run/", f->base);
	setenv("XDG_RUNTIME_DIR", run, 1);
	assert_runtime_ok(want);
	free(want);
	free(run);
}

/* A umask that strips our own bits must not leave an unusable folder. */
static void
test_runtime_umask(void **state)
{
	struct fixture *f = *state;
	char *run = sub(f, "run", 0700);
	char *want = xasprintf("%s/ward", run);

	setenv("XDG_RUNTIME_DIR", run, 1);
	umask(0777);
	assert_runtime_ok(want);
	umask(022);
	free(want);
	free(run);
}

static void
test_runtime_mode_fixed(void **state)
{
	struct fixture *f = *state;
	char *run = sub(f, "run", 0700);
	char *want = xasprintf("%s/ward", run);

	setenv("XDG_RUNTIME_DIR", run, 1);
	assert_int_equal(mkdir(want, 0700), 0);
	assert_int_equal(chmod(want, 0777), 0);
	assert_runtime_ok(want);
	assert_int_equal(chmod(want, 01755), 0);
	assert_runtime_ok(want);
	free(want);
	free(run);
}

static void
test_runtime_symlink(void **state)
{
	struct fixture *f = *state;
	char *run = sub(f, "run", 0700);
	char *target = sub(f, "elsewhere", 0700);
	char *link = xasprintf("%s/ward", run);
	struct stat st;

	setenv("XDG_RUNTIME_DIR", run, 1);
	/* to a folder that would pass every other check */
	assert_int_equal(symlink(target, link), 0);
	assert_runtime_refused(-ELOOP, "/ward: is a symlink");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* dangling: mkdir must not create the target */
	assert_int_equal(unlink(link), 0);
	assert_int_equal(rmdir(target), 0);
	assert_int_equal(symlink(target, link), 0);
	assert_runtime_refused(-ELOOP, "is a symlink");
	assert_int_equal(stat(target, &st), -1);
	free(link);
	free(target);
	free(run);
}

static void
test_runtime_not_dir(void **state)
{
	struct fixture *f = *state;
	char *run = sub(f, "run", 0700);
	char *file = xasprintf("%s/ward", run);
	FILE *fp;

	setenv("XDG_RUNTIME_DIR", run, 1);
	assert_non_null(fp = fopen(file, "w"));
	fclose(fp);
	assert_runtime_refused(-ENOTDIR, "/ward: not a directory");
	free(file);
	free(run);
}

static void
test_runtime_not_ours(void **state)
{
	struct fixture *f = *state;
	char *run = sub(f, "run", 0700);
	char *dir = xasprintf("%s/ward", run);
	struct stat st;

	setenv("XDG_RUNTIME_DIR", run, 1);
	assert_int_equal(mkdir(dir, 0700), 0);
	if (chown(dir, getuid() == 65534 ? 65533 : 65534, (gid_t)-1) < 0) {
		free(dir);
		free(run);
		skip();		/* needs root (or CAP_CHOWN) */
	}
	assert_int_equal(chmod(dir, 0777), 0);
	assert_runtime_refused(-EPERM, "/ward: owned by uid 6553");
	/* and its mode was left alone */
	assert_int_equal(lstat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0777);
	free(dir);
	free(run);
}

static void
test_runtime_missing_base(void **state)
{
	struct fixture *f = *state;
	char *run = sub(f, "no/such/run", 0);

	setenv("XDG_RUNTIME_DIR", run, 1);
	assert_runtime_refused(-ENOENT, "/ward: cannot create: No such file");
	free(run);
}

static void
test_runtime_fallback(void **state)
{
	char *want = xasprintf("/tmp/ward-%u", (unsigned)getuid());
	char *dir = NULL, *cause = NULL;

	(void)state;
	setenv("XDG_RUNTIME_DIR", "relative/run", 1);
	if (paths_runtime_dir(&dir, &cause) == 0) {
		assert_string_equal(dir, want);
	} else {
		/* someone else's /tmp/ward-UID: refused, and said so */
		assert_non_null(strstr(cause, want));
	}
	free(dir);
	free(cause);
	free(want);
}

static void
assert_state_refused(bool runs, int want_r, const char *want_cause)
{
	char *dir = NULL, *cause = NULL;
	int r = runs ? paths_runs_make(&dir, &cause) :
	    paths_state_make(&dir, &cause);

	if (r != want_r)
		fail_msg("paths_%s_make: %d (%s), want %d", runs ? "runs" :
		    "state", r, cause, want_r);
	assert_null(dir);
	if (cause == NULL || strstr(cause, want_cause) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\"", cause, want_cause);
	free(cause);
}

static void
assert_mode(const char *path, mode_t want)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, want);
}

/* Created from nothing under HOME, ward's folders 0700; then the same
 * folders accepted again, a too-open one of ours made 0700. */
static void
test_state_created(void **state)
{
	struct fixture *f = *state;
	char *home = sub(f, "home", 0755);
	char *want = xasprintf("%s/.local/state/ward/runs", home);
	char *ward = xasprintf("%s/.local/state/ward", home);
	char *dir = NULL, *cause = NULL;

	setenv("HOME", home, 1);
	umask(0777);
	assert_int_equal(paths_runs_make(&dir, &cause), 0);
	umask(022);
	assert_string_equal(dir, want);
	assert_mode(want, 0700);
	assert_mode(ward, 0700);
	free(dir);
	assert_int_equal(chmod(ward, 0777), 0);
	assert_int_equal(paths_state_make(&dir, &cause), 0);
	assert_string_equal(dir, ward);
	assert_mode(ward, 0700);
	free(dir);
	free(ward);
	free(want);
	free(home);
}

/* The attack the check is for: a shared (sticky, world-writable) state
 * root where another user planted ward -> elsewhere. */
static void
test_state_symlink(void **state)
{
	struct fixture *f = *state;
	char *shared = sub(f, "shared", 0700);
	char *victim = sub(f, "victim", 0700);
	char *link = xasprintf("%s/ward", shared);
	char *runs = xasprintf("%s/runs", victim);
	struct stat st;

	assert_int_equal(chmod(shared, 01777), 0);
	setenv("XDG_STATE_HOME", shared, 1);
	assert_int_equal(symlink(victim, link), 0);
	assert_state_refused(true, -ELOOP, "/shared/ward: is a symlink");
	assert_int_equal(stat(runs, &st), -1);
	/* and runs/ itself a symlink */
	assert_int_equal(unlink(link), 0);
	assert_int_equal(mkdir(link, 0700), 0);
	free(runs);
	runs = xasprintf("%s/runs", link);
	assert_int_equal(symlink(victim, runs), 0);
	assert_state_refused(true, -ELOOP, "/ward/runs: is a symlink");
	free(runs);
	free(link);
	free(victim);
	free(shared);
}

/* A symlink or an open folder on the way from HOME: .local/state. */
static void
test_state_on_the_way(void **state)
{
	struct fixture *f = *state;
	char *home = sub(f, "home", 0755);
	char *local = sub(f, "home/.local", 0700);
	char *st = xasprintf("%s/state", local);
	char *other = sub(f, "other", 0700);

	setenv("HOME", home, 1);
	assert_int_equal(symlink(other, st), 0);
	assert_state_refused(false, -ELOOP, "/.local/state: is a symlink");
	assert_int_equal(unlink(st), 0);
	assert_int_equal(chmod(local, 0777), 0);
	assert_state_refused(false, -EPERM, "/.local: mode 0777: others may "
	    "write it");
	/* the user's own folder is refused, not changed */
	assert_mode(local, 0777);
	free(other);
	free(st);
	free(local);
	free(home);
}

/* A root anyone may write without the sticky bit. */
static void
test_state_open_root(void **state)
{
	struct fixture *f = *state;
	char *root = sub(f, "open", 0700);

	assert_int_equal(chmod(root, 0777), 0);
	setenv("XDG_STATE_HOME", root, 1);
	assert_state_refused(false, -EPERM, "/open: mode 0777: anyone may write");
	free(root);
}

static void
test_state_not_ours(void **state)
{
	struct fixture *f = *state;
	char *root = sub(f, "st", 0700);
	char *dir = xasprintf("%s/ward", root);

	setenv("XDG_STATE_HOME", root, 1);
	assert_int_equal(mkdir(dir, 0700), 0);
	if (chown(dir, getuid() == 65534 ? 65533 : 65534, (gid_t)-1) < 0) {
		free(dir);
		free(root);
		skip();		/* needs root (or CAP_CHOWN) */
	}
	assert_state_refused(false, -EPERM, "/st/ward: owned by uid 6553");
	free(dir);
	free(root);
}

static void
test_default_policy(void **state)
{
	struct fixture *f = *state;
	char *config = sub(f, "config", 0);
	char *user = xasprintf("%s/ward/ward.ini", config);
	char exe[PATH_MAX], *beside, *share_dir, *want;
	ssize_t n;
	FILE *fp;

	setenv("XDG_CONFIG_HOME", config, 1);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';	/* .../build/tests */

	/* installed: PREFIX/bin/ward -> PREFIX/share/ward/ward.ini */
	want = xstrdup(exe);
	*strrchr(want, '/') = '\0';
	{
		char *w = xasprintf("%s/share/ward/ward.ini", want);

		free(want);
		want = w;
	}
	assert_path(paths_default_policy("ward"), want);
	free(want);

	/* a build tree: share/ beside the program */
	share_dir = xasprintf("%s/share", exe);
	beside = xasprintf("%s/ward.ini", share_dir);
	if (mkdir(share_dir, 0755) == 0) {
		assert_non_null(fp = fopen(beside, "w"));
		fclose(fp);
		assert_path(paths_default_policy("ward"), beside);
		unlink(beside);
		rmdir(share_dir);
	}

	setenv("WARD_SHARE", "/opt/ward-share/", 1);
	assert_path(paths_default_policy("ward"), "/opt/ward-share/ward.ini");

	/* the user's own file wins */
	assert_int_equal(mkdir_p(config, 0700), 0);
	want = xasprintf("%s/ward", config);
	assert_int_equal(mkdir(want, 0700), 0);
	free(want);
	assert_non_null(fp = fopen(user, "w"));
	fclose(fp);
	assert_path(paths_default_policy("ward"), user);

	free(share_dir);
	free(beside);
	free(user);
	free(config);
}

/* passwd_file_name reads the file alone; every malformed line is passed
 * over, a line too long for its buffer with its tail. */
static void
test_passwd_file_name(void **state)
{
	struct fixture *f = *state;
	char *file = xasprintf("%s/passwd", f->base), name[16], *longline;
	FILE *fp;

	/* 1023 bytes fill the reader's buffer: read on its own, the tail
	 * would say uid 42 */
	longline = xmalloc(1100);
	memset(longline, 'x', 1023);
	strcpy(longline + 1023, "fake:x:42:0::/:/bin/sh");
	assert_non_null(fp = fopen(file, "w"));
	fprintf(fp, "root:x:0:0:root:/root:/bin/bash\n"
	    "nocolon\n"
	    ":x:7:7::/:/bin/sh\n"
	    "neg:x:-8:0::/:/bin/sh\n"
	    "plus:x:+9:0::/:/bin/sh\n"
	    "junk:x:10x:0::/:/bin/sh\n"
	    "%s\n"
	    "alice:x:1000:1000:Alice:/home/alice:/bin/sh\n"
	    "averyveryverylongname:x:1001:1001::/:/bin/sh\n"
	    "last:x:1002:1002::/:/bin/sh", longline);
	fclose(fp);

	assert_int_equal(passwd_file_name(file, 0, name, sizeof name), 0);
	assert_string_equal(name, "root");
	assert_int_equal(passwd_file_name(file, 1000, name, sizeof name), 0);
	assert_string_equal(name, "alice");
	/* the last line needs no newline */
	assert_int_equal(passwd_file_name(file, 1002, name, sizeof name), 0);
	assert_string_equal(name, "last");
	assert_int_equal(passwd_file_name(file, 1001, name, sizeof name),
	    -ENAMETOOLONG);
	for (unsigned int uid = 7; uid <= 10; uid++)
		assert_int_equal(passwd_file_name(file, uid, name, sizeof name),
		    -ENOENT);
	assert_int_equal(passwd_file_name(file, 42, name, sizeof name), -ENOENT);
	assert_int_equal(passwd_file_name(file, 1000000, name, sizeof name),
	    -ENOENT);
	unlink(file);
	assert_int_equal(passwd_file_name(file, 0, name, sizeof name), -ENOENT);
	free(longline);
	free(file);
}

/* pages_release gives back the whole pages inside the range, and only
 * them: the partial pages at either end keep their bytes, the whole ones
 * leave memory and read as zeros. */
/* size_human: what `ward gc` and `ward diff --stat`/apply print. */
static void
test_size_human(void **state)
{
	static const struct { int64_t n; const char *want; } rows[] = {
		{ 0, "0 B" }, { 512, "512 B" }, { 1023, "1023 B" },
		{ 1024, "1.0 KiB" }, { 12595, "12.3 KiB" },
		{ 3LL << 30, "3.0 GiB" }, { 5LL << 40, "5.0 TiB" },
		{ 5LL << 50, "5120.0 TiB" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		size_human(rows[i].n, buf, sizeof buf);
		assert_string_equal(buf, rows[i].want);
	}
}

static void
test_pages_release(void **state)
{
	static char buf[6 * 4096] __attribute__((aligned(4096)));
	unsigned char in[6];

	(void)state;
	assert_int_equal(sysconf(_SC_PAGESIZE), 4096);
	memset(buf, 0xab, sizeof buf);
	assert_int_equal(mincore(buf, sizeof buf, in), 0);
	for (size_t i = 0; i < 6; i++)
		assert_true(in[i] & 1);

	pages_release(buf + 10, 100);		/* inside one page: none */
	pages_release(buf + 100, 5 * 4096);	/* pages 1 to 4 */
	assert_int_equal(mincore(buf, sizeof buf, in), 0);
	assert_true(in[0] & 1);
	for (size_t i = 1; i < 5; i++)
		assert_false(in[i] & 1);
	assert_true(in[5] & 1);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal((unsigned char)buf[i], 0xab);
	for (size_t i = 5 * 4096; i < sizeof buf; i++)
		assert_int_equal((unsigned char)buf[i], 0xab);
	for (size_t i = 4096; i < 5 * 4096; i++)
		assert_int_equal(buf[i], 0);
}

/* Where the shipped files are for a program installed in a folder: from
 * PREFIX/bin (ward) and from PREFIX/libexec/ward (ward-tui and the
 * supervisor), the same PREFIX/share/ward. */
static void
test_share_installed(void **state)
{
	static const char *const cases[][2] = {
		{ "/usr/bin", "/usr/share/ward" },
		{ "/usr/libexec/ward", "/usr/share/ward" },
		{ "/home/u/.local/bin", "/home/u/.local/share/ward" },
		{ "/home/u/.local/libexec/ward", "/home/u/.local/share/ward" },
		{ "/libexec/ward", "/share/ward" },
		/* Not LIBEXECDIR/ward: its parent, as for bin. */
		{ "/opt/libexec/wardx", "/opt/libexec/share/ward" },
		{ "/opt/ward", "/opt/share/ward" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cleanup_free char *got = paths_share_installed(cases[i][0]);

		assert_string_equal(got, cases[i][1]);
	}
}

/* What ward log and ward gc print: local time with its offset, so a
 * line read on another machine, or after a change of zone, says one
 * instant. POSIX TZ strings: no zone files needed. */
static void
test_time_local_rfc3339(void **state)
{
	const int64_t ms = 1764590618123LL;	/* 2025-12-01T12:03:38.123Z */
	static const struct { const char *tz, *want; } t[] = {
		{ "UTC0", "2025-12-01T12:03:38Z" },
		{ "CET-1", "2025-12-01T13:03:38+01:00" },
		{ "NST3:30", "2025-12-01T08:33:38-03:30" },
		{ "IST-5:30", "2025-12-01T17:33:38+05:30" },
	};
	char buf[TIME_RFC3339_LEN], *old = getenv("TZ");
	cleanup_free char *saved = old ? xstrdup(old) : NULL;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		setenv("TZ", t[i].tz, 1);
		tzset();
		time_local_rfc3339(ms, buf);
		assert_string_equal(buf, t[i].want);
	}
	/* Before the epoch: the second is the one the instant is in. */
	setenv("TZ", "UTC0", 1);
	tzset();
	time_local_rfc3339(-1, buf);
	assert_string_equal(buf, "1969-12-31T23:59:59Z");
	if (saved)
		setenv("TZ", saved, 1);
	else
		unsetenv("TZ");
	tzset();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_xdg, setup, teardown),
		cmocka_unit_test(test_pages_release),
		cmocka_unit_test(test_size_human),
		cmocka_unit_test_setup_teardown(test_home_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_home_unset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_created, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_umask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_mode_fixed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_not_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_not_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_missing_base, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_created, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_on_the_way, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_open_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_not_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_policy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_passwd_file_name, setup, teardown),
		cmocka_unit_test(test_share_installed),
		cmocka_unit_test(test_time_local_rfc3339),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
