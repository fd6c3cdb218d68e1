/* SPDX-License-Identifier: MIT */
/*
 * A denial's reason to the denied process's stderr (issue 30): an agent
 * reads what its tool printed, not ward's channels, so "use /out
 * instead" must reach the tool's own stream to steer the agent.
 *
 * Why this is no confused deputy: pidfd_getfd gives the very open file
 * description the program holds, with the access mode it opened it
 * with; nothing is reopened through /proc (which would check our
 * credentials against the path, not the program's). Regular files are
 * refused all the same (a log the program keeps is not a stream a
 * person reads), and so are terminals: the only one in the sandbox is
 * the run's own pty, where ward already shows the reason in the pane.
 *
 * And the supervisor never blocks in it: a socket is sent with
 * MSG_DONTWAIT; a pipe is written with RWF_NOWAIT, or, on kernels
 * whose pipes do not take it (before 6.4: EOPNOTSUPP), only when its
 * free room holds the line, and then under a 100 ms timer, in case
 * another writer filled it between the look and the write.
 */
#include "supervisor/tell.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "config/util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* A notification names a thread; pidfd_open wants its thread group's
 * leader (PIDFD_THREAD is 6.9's), read from its status. */
static pid_t
tell_tgid(pid_t tid)
{
	char path[64], line[128];
	FILE *f;
	pid_t tgid = -1;

	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (str_has_prefix(line, "Tgid:")) {
			tgid = (pid_t)strtol(line + 5, NULL, 10);
			break;
		}
	fclose(f);
	return tgid;
}

int
tell_pidfd(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	pid_t tgid;

	if (fd >= 0 || errno != EINVAL)
		return fd >= 0 ? fd : -errno;
	if ((tgid = tell_tgid(pid)) <= 0 || tgid == pid)
		return -ESRCH;
	fd = (int)syscall(SYS_pidfd_open, tgid, 0);
	return fd >= 0 ? fd : -errno;
}

static void
tell_on_alarm(int sig)
{
	(void)sig;
}

/* The fallback: a write that fits the room seen, bounded in time. */
static int
tell_pipe_bounded(int fd, const char *line, size_t len)
{
	struct sigaction sa = { .sa_handler = tell_on_alarm }, old;
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
	    .sigev_signo = SIGALRM };
	struct itimerspec its = { .it_value = { 0, 100 * 1000000L } };
	sigset_t alrm, oldmask;
	timer_t t;
	int queued = 0, size, r;
	ssize_t n;

	if ((size = fcntl(fd, F_GETPIPE_SZ)) < 0 ||
	    ioctl(fd, FIONREAD, &queued) < 0)
		return -errno;
	if (queued < 0 || (size_t)(size - queued) < len)
		return -EAGAIN;
	/* No SA_RESTART: the timer's signal ends a blocked write. */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, &old) < 0)
		return -errno;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	(void)sigprocmask(SIG_UNBLOCK, &alrm, &oldmask);
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) < 0) {
		r = -errno;
		goto out;
	}
	(void)timer_settime(t, 0, &its, NULL);
	n = write(fd, line, len);
	r = n == (ssize_t)len ? 0 : n < 0 ? (errno == EINTR ? -EAGAIN : -errno) :
	    -EIO;
	timer_delete(t);
out:
	(void)sigprocmask(SIG_SETMASK, &oldmask, NULL);
	(void)sigaction(SIGALRM, &old, NULL);
	return r;
}

int
tell_stderr(int pidfd, const char *line, size_t len,
    const struct stat *skip, size_t n_skip)
{
	struct iovec iov = { .iov_base = (void *)line, .iov_len = len };
	cleanup_fd int fd = -1;
	struct stat st;
	ssize_t n;

	if (len == 0 || len > PIPE_BUF)
		return -EINVAL;
	if ((fd = (int)syscall(SYS_pidfd_getfd, pidfd, 2, 0)) < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
		return -EBADF;
	for (size_t i = 0; i < n_skip; i++)
		if (st.st_dev == skip[i].st_dev && st.st_ino == skip[i].st_ino)
			return -EBADF;
	if (S_ISSOCK(st.st_mode))
		n = send(fd, line, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	else {
		n = pwritev2(fd, &iov, 1, -1, RWF_NOWAIT);
		if (n < 0 && errno == EOPNOTSUPP)
			return tell_pipe_bounded(fd, line, len);
	}
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return (size_t)n == len ? 0 : -EIO;
}
