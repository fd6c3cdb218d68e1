/* SPDX-License-Identifier: MIT */
/* The inside: secrets to read, and writes to the canary by every road. */
#include "probe/inside.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "config/util.h"
#include "probe/probe.h"

int
probe_in_home_secret(char **a)
{
	static const char *const globs[] = {
		"/home/*/.ward-probe-secret-*", "/root/.ward-probe-secret-*",
		"/proc/1/root/root/.ward-probe-secret-*",
		"/proc/1/cwd/.ward-probe-secret-*",
		"/proc/*/root/home/*/.ward-probe-secret-*",
	};
	char p[PATH_MAX + 16];

	probe_in_leak_file(a[0]);
	snprintf(p, sizeof p, "/proc/1/root%s", a[0]);
	probe_in_leak_file(p);
	for (size_t i = 0; i < ARRAY_SIZE(globs); i++) {
		glob_t g;

		snprintf(p, sizeof p, "glob %s", globs[i]);
		if (glob(globs[i], 0, NULL, &g) != 0) {
			probe_in_say(p, ENOENT);
			continue;
		}
		for (size_t j = 0; j < g.gl_pathc; j++)
			probe_in_leak_file(g.gl_pathv[j]);
		globfree(&g);
	}
	return 0;
}

/* The key in ~/.ssh, with the home shown by --in: by its path, through
 * init's root, and whatever the folder lists. */
int
probe_in_store_secret(char **a)
{
	char p[PATH_MAX + 16], *slash;
	glob_t g;

	probe_in_leak_file(a[0]);
	snprintf(p, sizeof p, "/proc/1/root%s", a[0]);
	probe_in_leak_file(p);
	snprintf(p, sizeof p, "%s", a[0]);
	if ((slash = strrchr(p, '/')) != NULL)
		snprintf(slash, sizeof p - (size_t)(slash - p), "/*");
	if (glob(p, GLOB_PERIOD, NULL, &g) != 0) {
		char what[PATH_MAX + 24];

		snprintf(what, sizeof what, "glob %s", p);
		probe_in_say(what, ENOENT);
		return 0;
	}
	for (size_t j = 0; j < g.gl_pathc; j++) {
		const char *base = strrchr(g.gl_pathv[j], '/');

		if (base != NULL && (strcmp(base, "/.") == 0 ||
		    strcmp(base, "/..") == 0))
			continue;
		probe_in_leak_file(g.gl_pathv[j]);
	}
	globfree(&g);
	return 0;
}

/* Our own environment, and every /proc/PID/environ we can read: init is
 * a copy of the supervisor that never exec'd, so its environ is the
 * supervisor's own. */
int
probe_in_env_secret(char **a)
{
	DIR *d;
	struct dirent *e;
	bool seen = false;

	(void)a;
	for (char **v = environ; *v != NULL; v++)
		if (strstr(*v, "SECRET") != NULL) {
			dprintf(STDOUT_FILENO, "ward-probe: %s: LEAK environ: %s\n",
			    probe_in_name, *v);
			seen = true;
		}
	if (!seen)
		probe_in_say("getenv " PROBE_SECRET_PREFIX "*", ENOENT);
	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char path[300], what[320], buf[65536];
		ssize_t n;
		int fd;

		if (strspn(e->d_name, "0123456789") != strlen(e->d_name))
			continue;
		snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
		snprintf(what, sizeof what, "read %s", path);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			probe_in_say(what, errno);
			continue;
		}
		n = read(fd, buf, sizeof buf - 1);
		probe_in_check(what, n);
		close(fd);
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
			buf[n] = '\0';
			if (strstr(buf + i, "SECRET") != NULL)
				dprintf(STDOUT_FILENO, "ward-probe: %s: LEAK %s: "
				    "%s\n", probe_in_name, path, buf + i);
		}
	}
	closedir(d);
	return 0;
}

int
probe_in_write_path(char **a)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/file", a[0]);
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	probe_in_fd("open canary/file O_WRONLY|O_TRUNC", fd);
	snprintf(p, sizeof p, "%s/new", a[0]);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	probe_in_fd("open canary/new O_CREAT|O_EXCL", fd);
	return 0;
}

int
probe_in_write_symlink(char **a)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/file", a[0]);
	unlink("/work/l1");
	probe_in_check("symlink /work/l1 -> canary/file", symlink(p, "/work/l1"));
	fd = open("/work/l1", O_WRONLY | O_APPEND | O_CLOEXEC);
	probe_in_fd("open /work/l1 O_WRONLY|O_APPEND", fd);
	unlink("/work/l2");
	probe_in_check("symlink /work/l2 -> canary", symlink(a[0], "/work/l2"));
	fd = open("/work/l2/new-sym", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	probe_in_fd("open /work/l2/new-sym O_CREAT", fd);
	return 0;
}

int
probe_in_write_hardlink(char **a)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/file", a[0]);
	probe_in_check("link canary/file /work/hard", link(p, "/work/hard"));
	probe_in_check("linkat canary/file /work/hard2 AT_SYMLINK_FOLLOW",
	    linkat(AT_FDCWD, p, AT_FDCWD, "/work/hard2", AT_SYMLINK_FOLLOW));
	fd = open("/work/hard", O_WRONLY | O_APPEND | O_CLOEXEC);
	probe_in_fd("open /work/hard O_WRONLY|O_APPEND", fd);
	return 0;
}

int
probe_in_write_rename(char **a)
{
	char p[PATH_MAX];
	int fd = open("/work/mv", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644);

	probe_in_fd("create /work/mv", fd);
	snprintf(p, sizeof p, "%s/moved-in", a[0]);
	probe_in_check("rename /work/mv canary/moved-in", rename("/work/mv", p));
	snprintf(p, sizeof p, "%s/file", a[0]);
	probe_in_check("rename canary/file /work/moved-out",
	    rename(p, "/work/moved-out"));
	return 0;
}

int
probe_in_write_chmod(char **a)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/file", a[0]);
	probe_in_check("chmod canary/file 0777", chmod(p, 0777));
	probe_in_check("fchmodat canary 0700", fchmodat(AT_FDCWD, a[0], 0700, 0));
	return 0;
}

int
probe_in_write_truncate(char **a)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/file", a[0]);
	probe_in_check("truncate canary/file 0", truncate(p, 0));
	fd = open(p, O_RDONLY | O_TRUNC | O_CLOEXEC);
	probe_in_fd("open canary/file O_RDONLY|O_TRUNC", fd);
	return 0;
}

int
probe_in_write_utimes(char **a)
{
	char p[PATH_MAX];
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	struct timeval tv[2] = { { 1, 0 }, { 1, 0 } };

	snprintf(p, sizeof p, "%s/file", a[0]);
	/* touch -d @1 */
	probe_in_check("utimensat canary/file @1",
	    utimensat(AT_FDCWD, p, ts, 0));
	/* The old call by its own number: glibc's utimes() is utimensat. */
	probe_in_check("utimes canary/file @1", syscall(SYS_utimes, p, tv));
	return 0;
}

/* fd 2 made an O_PATH descriptor of a file we cannot write; a deny with
 * a reason must not land in it. */
int
probe_in_deny_reason_fd(char **a)
{
	char t[PATH_MAX], p[PATH_MAX];
	int fd;

	snprintf(t, sizeof t, "%s/target", a[1]);
	snprintf(p, sizeof p, "%s/file", a[0]);
	fd = open(t, O_PATH | O_CLOEXEC);
	probe_in_check("open wr/target O_PATH", fd);
	if (fd >= 0)
		probe_in_check("dup2 it on fd 2", dup2(fd, 2));
	fd = open(p, O_WRONLY | O_CLOEXEC);
	probe_in_fd("open canary/file O_WRONLY", fd);
	/* Stay a moment: the reason was told after the answer, while the
	 * denied process still had its fd table. */
	usleep(500 * 1000);
	return 0;
}

int
probe_in_write_mkdir(char **a)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/newdir", a[0]);
	probe_in_check("mkdir canary/newdir", mkdir(p, 0755));
	return 0;
}

/*
 * The check/use race: one thread flips the path buffer between a name in
 * /work and one in the canary while another opens it for writing, so that
 * the supervisor might read one and the kernel the other.
 */
struct probe_in_race {
	char		 buf[PATH_MAX];
	char		 a[PATH_MAX], b[PATH_MAX];
	atomic_bool	 stop;
};

static void *
probe_in_flip(void *arg)
{
	struct probe_in_race *r = arg;
	size_t la = strlen(r->a) + 1, lb = strlen(r->b) + 1;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		memcpy(r->buf, r->a, la);
		/* Keep both stores: the other reader is the kernel. */
		__asm__ volatile("" ::: "memory");
		memcpy(r->buf, r->b, lb);
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

int
probe_in_race(char **a)
{
	static struct probe_in_race r;
	static unsigned counts[4096];
	unsigned ok = 0, won = 0, tries = 0;
	size_t clen = strlen(a[0]);
	pthread_t t;
	int64_t end;

	snprintf(r.a, sizeof r.a, "/work/race");
	snprintf(r.b, sizeof r.b, "%s/race", a[0]);
	snprintf(r.buf, sizeof r.buf, "/work/race");
	if ((errno = pthread_create(&t, NULL, probe_in_flip, &r)) != 0) {
		probe_in_say("pthread_create", errno);
		return 3;
	}
	end = now_mono_ms() + 1000;
	while (now_mono_ms() < end) {
		int fd = open(r.buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		tries++;
		if (fd < 0) {
			if (errno > 0 && errno < (int)ARRAY_SIZE(counts))
				counts[errno]++;
			continue;
		}
		ok++;
		{
			char link[64], where[PATH_MAX];
			ssize_t n;

			snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
			n = readlink(link, where, sizeof where - 1);
			if (n > 0 && (size_t)n >= clen &&
			    strncmp(where, a[0], clen) == 0)
				won++;
		}
		close(fd);
	}
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	dprintf(STDOUT_FILENO, "ward-probe: %s: %u opens, %u ok, %u landed in "
	    "the canary\n", probe_in_name, tries, ok, won);
	for (size_t e = 1; e < ARRAY_SIZE(counts); e++)
		if (counts[e] > 0) {
			char what[64];

			snprintf(what, sizeof what, "open x%u", counts[e]);
			probe_in_say(what, (int)e);
		}
	return 0;
}
