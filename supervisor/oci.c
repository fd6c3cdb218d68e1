/* SPDX-License-Identifier: MIT */
/*
 * A container's run (supervisor/oci.h): the runtime's listener adopted,
 * the container's root, network namespace and ids learned.
 */
#include "supervisor/oci.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config/util.h"
#include "supervisor/emulate.h"
#include "supervisor/sup.h"

static uint64_t
netns_cookie_now(void)
{
	cleanup_fd int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint64_t c = 0;
	socklen_t l = sizeof c;

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &l) < 0)
		return 0;
	return c;
}

/* The kernel names a listener's file so: an fd of any other kind (a
 * pipe, a socket) is not one, whatever the runtime said. */
static bool
is_listener(int fd)
{
	char link[64], buf[64];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((n = readlink(link, buf, sizeof buf - 1)) < 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, "anon_inode:seccomp notify") == 0;
}

/* Are the container's user ids the host's (no user namespace, or one
 * that maps every id to itself)? Only then may an approved chown name
 * any id: otherwise the supervisor's ids are not the container's. */
static bool
ids_identity(pid_t pid)
{
	char p[64], line[128];
	unsigned long a, b, n;
	FILE *f;
	bool ok = false;

	snprintf(p, sizeof p, "/proc/%d/uid_map", (int)pid);
	if ((f = fopen(p, "re")) == NULL)
		return false;
	if (fgets(line, sizeof line, f) != NULL &&
	    sscanf(line, "%lu %lu %lu", &a, &b, &n) == 3)
		ok = a == 0 && b == 0 && n == 4294967295UL;
	if (fgets(line, sizeof line, f) != NULL)
		ok = false;
	fclose(f);
	return ok;
}

/* The mounts of the container a unix socket may be on and be its own:
 * its root and its usual tmpfs folders. A socket bound in from the host
 * (docker.sock) is a mount of its own, and refused (net.c). */
static void
learn_mounts(struct sup *s)
{
	static const char *const own[] = { "", "tmp", "run", "dev/shm" };

	for (size_t i = 0; i < ARRAY_SIZE(own) &&
	    i < ARRAY_SIZE(s->private_mnt); i++) {
		struct statx sx;

		if (statx(s->rootfd, own[i], AT_NO_AUTOMOUNT |
		    (own[i][0] == '\0' ? AT_EMPTY_PATH : 0), STATX_MNT_ID,
		    &sx) == 0 && (sx.stx_mask & STATX_MNT_ID))
			s->private_mnt[i] = sx.stx_mnt_id;
	}
}

/* The policy's writable folders, read as the container's own paths: a
 * bind each (host == inside), whose changes the supervisor performs. */
static void
writable_binds(struct sup *s)
{
	/* /dev/shm: the container's own tmpfs, where shm_open makes its
	 * files (always writable, as in a run of ward's own). */
	s->n_binds = s->policy.n_writable + 1;
	s->binds = xcalloc(s->n_binds, sizeof *s->binds);
	for (size_t i = 0; i < s->n_binds; i++) {
		const char *p = i < s->policy.n_writable ?
		    s->policy.writable[i] : "/dev/shm";

		s->binds[i] = (struct bind){
			.host = xstrdup(p), .inside = xstrdup(p),
			.writable = true, .host_write = true, .is_dir = true,
			.tree_fd = -1,
		};
	}
}

int
oci_adopt(struct sup *s, int fd, pid_t pid, char **cause)
{
	char p[64];
	cleanup_fd int nsfd = -1;
	uint64_t host;
	long pfd;

	if (!is_listener(fd)) {
		*cause = xasprintf("--oci-listener %d: not a seccomp listener",
		    fd);
		return -EINVAL;
	}
	if ((pfd = syscall(SYS_pidfd_open, pid, 0)) < 0) {
		*cause = xasprintf("the container's init (pid %d): %s",
		    (int)pid, strerror(errno));
		return -ESRCH;
	}
	s->oci_pidfd = (int)pfd;
	(void)fcntl(s->oci_pidfd, F_SETFD, FD_CLOEXEC);
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	s->listener = fd;
	s->sp.init_pid = pid;
	s->sp.go_fd = s->sp.err_fd = s->sp.status_fd = -1;
	s->sp.dns[0] = s->sp.dns[1] = -1;

	snprintf(p, sizeof p, "/proc/%d/root", (int)pid);
	if ((s->rootfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		*cause = xasprintf("open %s: %s", p, strerror(errno));
		return -errno;
	}
	/* The supervisor lives in the container's network namespace from
	 * here on: a connection it makes for the container is the
	 * container's, as if the container had made it. */
	host = netns_cookie_now();
	snprintf(p, sizeof p, "/proc/%d/ns/net", (int)pid);
	if ((nsfd = open(p, O_RDONLY | O_CLOEXEC)) < 0 ||
	    setns(nsfd, CLONE_NEWNET) < 0) {
		*cause = xasprintf("join the container's network namespace "
		    "(%s): %s", p, strerror(errno));
		return -errno;
	}
	s->netns_cookie = netns_cookie_now();
	if (s->netns_cookie == 0) {
		*cause = xstrdup("cannot tell network namespaces apart "
		    "(SO_NETNS_COOKIE needs Linux 5.14)");
		return -ENOSYS;
	}
	s->oci_own_netns = s->netns_cookie != host;
	s->oci_ids_identity = ids_identity(pid);
	learn_mounts(s);
	writable_binds(s);
	return 0;
}

bool
oci_own_netns(const struct sup *s)
{
	return s->oci_own_netns;
}

int
oci_target_ids(pid_t tid, struct emulate_as *as)
{
	char p[64], line[256];
	unsigned long r, e, ss, fs;
	int found = 0;
	FILE *f;

	snprintf(p, sizeof p, "/proc/%d/status", (int)tid);
	if ((f = fopen(p, "re")) == NULL)
		return -ESRCH;
	while (found < 2 && fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "Uid: %lu %lu %lu %lu", &r, &e, &ss,
		    &fs) == 4) {
			as->uid = (uid_t)fs;
			found++;
		} else if (sscanf(line, "Gid: %lu %lu %lu %lu", &r, &e, &ss,
		    &fs) == 4) {
			as->gid = (gid_t)fs;
			found++;
		}
	}
	fclose(f);
	return found == 2 ? 0 : -ESRCH;
}

bool
oci_device_ok(const struct stat *st)
{
	unsigned int ma, mi;

	if (S_ISFIFO(st->st_mode))
		return true;
	if (!S_ISCHR(st->st_mode))
		return false;
	ma = major(st->st_rdev);
	mi = minor(st->st_rdev);
	switch (ma) {
	case 1:		/* null, zero, full, random, urandom */
		return mi == 3 || mi == 5 || mi == 7 || mi == 8 || mi == 9;
	case 5:		/* tty, ptmx */
		return mi == 0 || mi == 2;
	default:	/* the Unix98 pts, 136-143 */
		return ma >= 136 && ma <= 143;
	}
}

/* "N" (digits only, at most 9 of them), else -1. */
static int
fd_number(const char *p)
{
	int n = 0;
	size_t i;

	for (i = 0; p[i] >= '0' && p[i] <= '9' && i < 9; i++)
		n = n * 10 + (p[i] - '0');
	return i > 0 && p[i] == '\0' ? n : -1;
}

int
oci_fd_path(const char *lex)
{
	static const char *const dirs[] = {
		"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/",
	};

	if (strcmp(lex, "/dev/stdin") == 0)
		return 0;
	if (strcmp(lex, "/dev/stdout") == 0)
		return 1;
	if (strcmp(lex, "/dev/stderr") == 0)
		return 2;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (str_has_prefix(lex, dirs[i]))
			return fd_number(lex + strlen(dirs[i]));
	return -1;
}
