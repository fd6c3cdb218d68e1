/* SPDX-License-Identifier: MIT */
/* The inside: exec from memory, and the exec argv-swap race. */
#include "probe/inside.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/util.h"
#include "probe/probe.h"

#define PROBE_RACE_ARGV_MS	400	/* flip argv[1] install <-> list */
#define PROBE_RACE_PATH_MS	600	/* flip the path pip <-> pix */
#define PROBE_RACE_LIVE_MS	80	/* each exec that ran lives this long */

int
probe_in_memfd_exec(char **a)
{
	char *const av[] = { (char *)"true", NULL };
	char buf[65536];
	int in, fd;
	ssize_t n;

	(void)a;
	in = open("/usr/bin/true", O_RDONLY | O_CLOEXEC);
	fd = memfd_create("ward-probe", MFD_CLOEXEC);
	if (in < 0 || fd < 0) {
		probe_in_say("memfd_create and open /usr/bin/true", errno);
		return 3;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(fd, buf, (size_t)n) != n) {
			probe_in_say("write memfd", errno);
			return 3;
		}
	close(in);
	probe_in_say("memfd_create + copy /usr/bin/true", 0);
	fexecve(fd, av, environ);
	probe_in_say("fexecve", errno);
	return 3;
}

struct probe_in_exec {
	char		 path[PATH_MAX];
	size_t		 last;		/* the path's last byte: 'p' or 'x' */
	char		*argv[4];
	int		 mode;		/* 0: flip argv[1], 1: flip the path */
	atomic_bool	 stop;
};

/* Shared with the children: what they met, for the report. */
struct probe_in_exec_counts {
	atomic_uint	 attempts[2], runs[2], errs[2][160];
};

static void *
probe_in_exec_flip(void *arg)
{
	static char install[] = "install", list[] = "list";
	struct probe_in_exec *x = arg;
	char *volatile *slot = (char *volatile *)&x->argv[1];
	volatile char *last = &x->path[x->last];

	while (!atomic_load_explicit(&x->stop, memory_order_relaxed)) {
		if (x->mode == 0) {
			*slot = install;
			*slot = list;
		} else {
			*last = 'p';
			*last = 'x';
		}
	}
	return NULL;
}

/* One child: a flipping thread, and execve until one runs or the phase
 * ends (exit 3). */
static void
probe_in_exec_child(struct probe_in_exec *x,
    struct probe_in_exec_counts *c, int64_t end)
{
	pthread_t t;

	if (pthread_create(&t, NULL, probe_in_exec_flip, x) != 0)
		_exit(4);
	while (now_mono_ms() < end) {
		int e;

		atomic_fetch_add(&c->attempts[x->mode], 1);
		execve(x->path, x->argv, environ);
		e = errno;
		if (e > 0 && e < (int)ARRAY_SIZE(c->errs[0]))
			atomic_fetch_add(&c->errs[x->mode][e], 1);
	}
	_exit(3);
}

/*
 * The race: while the main thread execs `pip install wardprobe-x` (pip
 * being a script in a folder of ours whose #! line runs this binary),
 * another flips argv[1] to "list", or the path's last letter to a name
 * that does not exist, so that the supervisor may judge one exec and the
 * kernel run another. Each exec that runs lives a moment, so that the
 * harness sees it from outside, and meets the floor meanwhile.
 */
int
probe_in_exec_race(char **a)
{
	static char arg0[] = "pip", pkg[] = PROBE_RACE_PACKAGE,
	    install[] = "install";
	static const char *const phase[] = { "argv[1] install/list",
	    "path pip/pix" };
	struct probe_in_exec_counts *c;
	struct probe_in_exec x;

	memset(&x, 0, sizeof x);
	snprintf(x.path, sizeof x.path, "%s/%s", a[0], PROBE_RACE_SCRIPT);
	x.last = strlen(x.path) - 1;
	x.argv[0] = arg0;
	x.argv[1] = install;
	x.argv[2] = pkg;
	c = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED) {
		probe_in_say("mmap", errno);
		return 3;
	}
	setenv("WARD_PROBE_CANARY", a[1], 1);
	setenv("WARD_PROBE_PORT", a[2], 1);
	for (x.mode = 0; x.mode < 2; x.mode++) {
		int64_t end = now_mono_ms() + (x.mode == 0 ?
		    PROBE_RACE_ARGV_MS : PROBE_RACE_PATH_MS);
		char what[96];

		x.argv[1] = install;
		x.path[x.last] = 'p';
		while (now_mono_ms() < end) {
			pid_t pid = fork();
			int st;

			if (pid == 0)
				probe_in_exec_child(&x, c, end);
			if (pid < 0) {
				probe_in_say("fork", errno);
				break;
			}
			if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
			    WEXITSTATUS(st) == 0)
				atomic_fetch_add(&c->runs[x.mode], 1);
		}
		dprintf(STDOUT_FILENO, "ward-probe: %s: flip %s: %u execve, "
		    "%u ran\n", probe_in_name, phase[x.mode],
		    atomic_load(&c->attempts[x.mode]),
		    atomic_load(&c->runs[x.mode]));
		for (size_t e = 1; e < ARRAY_SIZE(c->errs[0]); e++)
			if (atomic_load(&c->errs[x.mode][e]) > 0) {
				snprintf(what, sizeof what, "flip %s: execve "
				    "x%u", phase[x.mode],
				    atomic_load(&c->errs[x.mode][e]));
				probe_in_say(what, (int)e);
			}
	}
	return 0;
}

/* What the race got to run (through the #! line of tools/pip): it tries
 * the canary and the outside, then lives a moment to be seen. */
int
probe_in_exec_raced(int argc, char **argv)
{
	const char *canary = getenv("WARD_PROBE_CANARY");
	const char *port = getenv("WARD_PROBE_PORT");
	int64_t t0 = now_mono_ms();
	char what[PATH_MAX + 64], args[256] = "";
	size_t used = 0;

	probe_in_name = "argv-race";
	for (int i = 0; i < argc && used + 2 < sizeof args; i++)
		used += (size_t)snprintf(args + used, sizeof args - used, "%s%s",
		    i ? " " : "", argv[i]);
	if (canary != NULL) {
		char p[PATH_MAX];

		snprintf(what, sizeof what, "ran (pip %s): open canary/raced "
		    "O_CREAT", args);
		snprintf(p, sizeof p, "%s/raced", canary);
		probe_in_fd(what, open(p, O_WRONLY | O_CREAT | O_CLOEXEC,
		    0644));
	}
	if (port != NULL) {
		struct sockaddr_in out = probe_in_sa4(PROBE_OUT_ADDR,
		    (unsigned)atoi(port));

		snprintf(what, sizeof what, "ran (pip %s): connect tcp "
		    "192.0.2.1", args);
		probe_in_connect_to(what, AF_INET, SOCK_STREAM, &out,
		    sizeof out);
	}
	while (now_mono_ms() < t0 + PROBE_RACE_LIVE_MS)
		usleep(5 * 1000);
	return 0;
}
