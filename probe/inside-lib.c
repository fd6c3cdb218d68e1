/* SPDX-License-Identifier: MIT */
/*
 * The inside's helpers: what every action uses to try a call and say
 * what it met.
 */
#include "probe/inside.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>


const char *probe_in_name = "?";

/* One line per attempt: "ward-probe: NAME: WHAT: ok|ERRNO". */
void
probe_in_say(const char *what, int err)
{
	const char *e = err == 0 ? "ok" : strerrorname_np(err);

	dprintf(STDOUT_FILENO, "ward-probe: %s: %s: %s\n", probe_in_name, what,
	    e != NULL ? e : "E?");
}

/* r < 0: failed with errno. Build `what` before the call: anything
 * between the call and here could change errno. */
void
probe_in_check(const char *what, long r)
{
	probe_in_say(what, r < 0 ? errno : 0);
}

/* An fd opened for writing: say so and use it, as a real attacker would. */
void
probe_in_fd(const char *what, int fd)
{
	static const char mark[] = "ward-probe was here\n";

	if (fd < 0) {
		probe_in_say(what, errno);
		return;
	}
	probe_in_say(what, 0);
	(void)!write(fd, mark, sizeof mark - 1);
	close(fd);
}

/* Print whatever a file holds: the harness looks for the token. */
void
probe_in_leak_file(const char *path)
{
	char what[PATH_MAX + 16], buf[4096];
	int fd;
	ssize_t n;

	snprintf(what, sizeof what, "read %s", path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		probe_in_say(what, errno);
		return;
	}
	n = read(fd, buf, sizeof buf - 1);
	probe_in_check(what, n);
	if (n > 0) {
		buf[n] = '\0';
		dprintf(STDOUT_FILENO, "ward-probe: %s: LEAK %s: %s\n",
		    probe_in_name, path, buf);
	}
	close(fd);
}

/* Wait for a child that did something fatal on purpose; say how it ended. */
void
probe_in_reap(const char *what, pid_t pid)
{
	char buf[128];
	int st;

	if (pid < 0) {
		probe_in_say(what, errno);
		return;
	}
	if (waitpid(pid, &st, 0) < 0) {
		probe_in_say(what, errno);
		return;
	}
	if (WIFSIGNALED(st))
		snprintf(buf, sizeof buf, "%s: killed by %s", what,
		    sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?");
	else
		snprintf(buf, sizeof buf, "%s: exit %d", what, WEXITSTATUS(st));
	dprintf(STDOUT_FILENO, "ward-probe: %s: %s\n", probe_in_name, buf);
}

struct sockaddr_in
probe_in_sa4(uint32_t addr, unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };

	sa.sin_addr.s_addr = htonl(addr);
	sa.sin_port = htons((uint16_t)port);
	return sa;
}

/* The same IPv4 address as an IPv4-mapped IPv6 one (::ffff:a.b.c.d). */
struct sockaddr_in6
probe_in_sa6_mapped(uint32_t addr, unsigned port)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };
	uint32_t be = htonl(addr);

	sa.sin6_port = htons((uint16_t)port);
	sa.sin6_addr.s6_addr[10] = 0xff;
	sa.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&sa.sin6_addr.s6_addr[12], &be, 4);
	return sa;
}

/* A fresh socket, then connect: say how it went. */
void
probe_in_connect_to(const char *what, int family, int type,
    const void *sa, socklen_t len)
{
	int s = socket(family, type | SOCK_CLOEXEC, 0);

	if (s < 0) {
		probe_in_say(what, errno);
		return;
	}
	probe_in_check(what, connect(s, sa, len));
	close(s);
}
