/* SPDX-License-Identifier: MIT */
/*
 * A container's run (supervisor/oci.h): the runtime's listener adopted,
 * the container's root, network namespace and ids learned.
 */
#include "supervisor/oci.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approvals/ocistate.h"
#include "config/util.h"
#include "supervisor/compat.h"
#include "supervisor/dns.h"
#include "supervisor/path.h"
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

/* ---- names: the DNS stub in the container's namespace ---------------- */

#define RESOLV_MAX	65536	/* a resolv.conf longer than this is not read */

/*
 * The container's resolv.conf, read in its root (bounded): its servers
 * into ns (at most max), the lines its resolver also needs (search,
 * domain, options) appended to *keep. The number of servers, or -errno.
 */
static int
read_resolv(int rootfd, struct sockaddr_storage *ns, size_t max, char **keep)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	cleanup_fd int fd = -1;
	cleanup_free char *buf = xmalloc(RESOLV_MAX + 1);
	size_t n = 0, got = 0;
	char *line, *save = NULL;
	ssize_t r;
	long f;

	if ((f = syscall(SYS_openat2, rootfd, "etc/resolv.conf", &how,
	    sizeof how)) < 0)
		return -errno;
	fd = (int)f;
	while (got < RESOLV_MAX && (r = read(fd, buf + got,
	    RESOLV_MAX - got)) > 0)
		got += (size_t)r;
	buf[got] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char addr[INET6_ADDRSTRLEN + 16], *pct;

		if (sscanf(line, "nameserver %61s", addr) == 1) {
			struct sockaddr_in *v4 = (struct sockaddr_in *)&ns[n];
			struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ns[n];

			if (n >= max)
				continue;
			if ((pct = strchr(addr, '%')) != NULL)
				*pct = '\0';
			memset(&ns[n], 0, sizeof ns[n]);
			if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
				v4->sin_family = AF_INET;
				v4->sin_port = htons(53);
				n++;
			} else if (inet_pton(AF_INET6, addr,
			    &v6->sin6_addr) == 1) {
				v6->sin6_family = AF_INET6;
				v6->sin6_port = htons(53);
				n++;
			}
		} else if ((str_has_prefix(line, "search") ||
		    str_has_prefix(line, "domain") ||
		    str_has_prefix(line, "options")) && strlen(line) < 1024) {
			char *more = xasprintf("%s%s\n", *keep, line);

			free(*keep);
			*keep = more;
		}
	}
	return (int)n;
}

static bool
loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr)
		    >> 24) == 127;
	return ss->ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(
	    &((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* 127.0.0.1:53 of the namespace we are in, UDP and TCP. */
static int
stub_sockets(int *udp, int *tcp)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET, .sin_port = htons(53),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int one = 1;

	*udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	*tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*udp < 0 || *tcp < 0 ||
	    setsockopt(*tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(*udp, (struct sockaddr *)&a, sizeof a) < 0 ||
	    bind(*tcp, (struct sockaddr *)&a, sizeof a) < 0 ||
	    listen(*tcp, 16) < 0) {
		int e = errno;

		closep(udp);
		closep(tcp);
		return -e;
	}
	return 0;
}

/*
 * file bound, read-only, on the container's /etc/resolv.conf (resolved
 * in its root first), from a child that joins its mount namespace. The
 * container's program has not run yet: its first exec waits for us.
 */
static int
bind_resolv(struct sup *s, pid_t pid, const char *file, char **cause)
{
	struct mount_attr ro = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
		    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
	};
	char target[PATH_MAX], p[64];
	cleanup_fd int tree = -1, mnt = -1;
	pid_t child;
	int st, r;

	if ((r = path_resolve(s->rootfd, "/etc/resolv.conf", true, target,
	    sizeof target)) < 0) {
		*cause = xasprintf("/etc/resolv.conf: %s", strerror(-r));
		return r;
	}
	if ((tree = (int)syscall(SYS_open_tree, AT_FDCWD, file,
	    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) < 0 ||
	    syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &ro,
	    sizeof ro) < 0) {
		*cause = xasprintf("%s: %s", file, strerror(errno));
		return -errno;
	}
	snprintf(p, sizeof p, "/proc/%d/ns/mnt", (int)pid);
	if ((mnt = open(p, O_RDONLY | O_CLOEXEC)) < 0) {
		*cause = xasprintf("%s: %s", p, strerror(errno));
		return -errno;
	}
	if ((child = fork()) < 0) {
		*cause = xasprintf("fork: %s", strerror(errno));
		return -errno;
	}
	if (child == 0) {
		if (setns(mnt, CLONE_NEWNS) < 0)
			_exit(10);
		if (syscall(SYS_move_mount, tree, "", AT_FDCWD, target,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			_exit(20 + (errno & 0x3f));
		_exit(0);
	}
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		*cause = xasprintf("cannot mount ward's resolv.conf on the "
		    "container's %s (step %d)", target, WIFEXITED(st) ?
		    WEXITSTATUS(st) : -1);
		return -EPERM;
	}
	return 0;
}

/*
 * Names: the container's resolver pointed at 127.0.0.1:53 of its own
 * network namespace, where the caller starts ward's DNS stub on names'
 * sockets; its lookups leave for the container's own servers (names->up)
 * from that namespace, and are judged as a run's. Without a namespace of
 * its own, or with a resolver of its own on its loopback, the container
 * resolves nothing through ward: names->note says so.
 */
static void
container_dns(struct sup *s, pid_t pid, struct oci_names *names)
{
	cleanup_free char *keep = xstrdup(""), *cause = NULL, *rc = NULL;
	int n, r;
	FILE *f;

	names->udp = names->tcp = -1;
	if (!s->oci_own_netns) {
		names->note = xstrdup("no names: the container shares the "
		    "host's network namespace (ward's DNS stub needs one of "
		    "its own)");
		return;
	}
	if ((n = read_resolv(s->rootfd, names->up, MAXNS, &keep)) < 0)
		n = 0;
	names->n_up = (size_t)n;
	for (int i = 0; i < n; i++)
		if (loopback(&names->up[i])) {
			names->note = xstrdup("no names through ward: the "
			    "container's resolver is on its own loopback");
			return;
		}
	if ((r = stub_sockets(&names->udp, &names->tcp)) < 0) {
		names->note = xasprintf("no names through ward: 127.0.0.1:53 in "
		    "the container: %s", strerror(-r));
		return;
	}
	rc = xasprintf("%s/resolv.conf", s->run_dir);
	if ((f = fopen(rc, "we")) == NULL || fprintf(f, "# ward: the DNS stub "
	    "of this container's run\nnameserver 127.0.0.1\n%soptions edns0 "
	    "timeout:%d attempts:%d\n", keep, DNS_CLIENT_TIMEOUT_S,
	    DNS_CLIENT_ATTEMPTS) < 0 || fclose(f) != 0)
		cause = xasprintf("write %s: %s", rc, strerror(errno));
	else
		(void)bind_resolv(s, pid, rc, &cause);
	if (cause != NULL) {
		names->note = xasprintf("no names through ward: %s", cause);
		closep(&names->udp);
		closep(&names->tcp);
		return;
	}
	names->note = xasprintf("names through ward's DNS stub, upstream: %d "
	    "of the container's server%s", n, n == 1 ? "" : "s");
}

int
oci_adopt(struct sup *s, int fd, pid_t pid, struct oci_names *names,
    char **cause)
{
	char p[64];
	cleanup_fd int nsfd = -1;
	cleanup_free char *why = NULL;
	uint64_t host;
	long pfd;

	if (ocistate_fd_is_listener(fd, &why) < 0) {
		*cause = xasprintf("--oci-listener %d: %s", fd, why);
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
	writable_binds(s);
	container_dns(s, pid, names);
	return 0;
}

int
oci_target_ids(pid_t tid, uid_t *uid, gid_t *gid)
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
			*uid = (uid_t)fs;
			found++;
		} else if (sscanf(line, "Gid: %lu %lu %lu %lu", &r, &e, &ss,
		    &fs) == 4) {
			*gid = (gid_t)fs;
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
