/* SPDX-License-Identifier: MIT */
/*
 * bare -- the bare seccomp-unotify mechanism, for the benchmark (issue 35).
 *
 *   bare [--read] CMD [ARG...]
 *
 * Runs CMD under ward's own carried filter (build/gen/filter-bpf.h, the
 * program ward-supervisor loads) and a supervisor that CONTINUEs every
 * trapped call: no namespaces, no Landlock, no path read, no judgement,
 * no record. What is left is what the kernel's trap and the round trip
 * through a listener cost. Calls that ward refuses by its answer (mount,
 * io_uring_setup, clone3 ...) are continued here too; those the filter
 * itself fails with an errno fail alike.
 *
 * The child sets no_new_privs, loads the filter with a new listener (the
 * flags ward uses), passes the listener up over a socketpair and execs
 * CMD. The parent sets the listener's synchronous wake-up, as ward does
 * (6.6 and later: the supervisor woken on its target's CPU), and loops
 * NOTIF_RECV / NOTIF_SEND (CONTINUE) on the main thread; a second thread
 * waits for the child and exits with its status (128 + signal if
 * killed), so that the loop needs no poll.
 *
 * With --read: the floor of a supervisor that judges the paths it is
 * asked about, as ward's does, with nothing else. Before each RECV it
 * polls the listener (one fd: a supervisor that serves anything else
 * waits in poll), and it reads each path argument of the call from the
 * target's memory (one pread of at most 256 bytes, up to the page's
 * end, through a /proc/PID/mem fd kept for the last pid, as ward's
 * target.c reads) before the CONTINUE. Nothing is judged or recorded.
 *
 *   cc -O2 -pthread -I. -I build/gen -o bare tests/bench/bare.c
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter-bpf.h"
#include "supervisor/compat.h"	/* what Debian 12's headers lack */

static pid_t child;

/* Which arguments of a trapped call are paths (--read): index + 1, 0 =
 * none. The calls that the files workloads and a shell make. */
struct path_args {
	long	nr;
	int	arg[2];
};

static const struct path_args path_args[] = {
	{ SYS_open, { 1, 0 } },		{ SYS_openat, { 2, 0 } },
	{ SYS_creat, { 1, 0 } },	{ SYS_unlink, { 1, 0 } },
	{ SYS_unlinkat, { 2, 0 } },	{ SYS_rename, { 1, 2 } },
	{ SYS_renameat, { 2, 4 } },	{ SYS_renameat2, { 2, 4 } },
	{ SYS_mkdir, { 1, 0 } },	{ SYS_mkdirat, { 2, 0 } },
	{ SYS_rmdir, { 1, 0 } },	{ SYS_link, { 1, 2 } },
	{ SYS_linkat, { 2, 4 } },	{ SYS_symlink, { 1, 2 } },
	{ SYS_symlinkat, { 1, 3 } },	{ SYS_execve, { 1, 0 } },
	{ SYS_execveat, { 2, 0 } },	{ SYS_truncate, { 1, 0 } },
	{ SYS_chmod, { 1, 0 } },	{ SYS_fchmodat, { 2, 0 } },
};

/* The path arguments of req read from the target's memory (--read). */
static void
read_paths(const struct seccomp_notif *req)
{
	static pid_t mem_pid;
	static int mem = -1;
	char path[256], name[64];

	for (size_t i = 0; i < sizeof path_args / sizeof path_args[0]; i++) {
		if (path_args[i].nr != req->data.nr)
			continue;
		if ((pid_t)req->pid != mem_pid) {
			if (mem >= 0)
				close(mem);
			snprintf(name, sizeof name, "/proc/%u/mem", req->pid);
			mem = open(name, O_RDONLY | O_CLOEXEC);
			mem_pid = (pid_t)req->pid;
		}
		for (int j = 0; j < 2 && path_args[i].arg[j] != 0; j++) {
			uint64_t at = req->data.args[path_args[i].arg[j] - 1];
			size_t len = 4096 - at % 4096;

			if (mem >= 0)
				(void)pread(mem, path, len < sizeof path ? len :
				    sizeof path, (off_t)at);
		}
		return;
	}
}

static void
die(const char *what)
{
	fprintf(stderr, "bare: %s: %s\n", what, strerror(errno));
	exit(125);
}

/* In the child: the filter, its listener sent over sock, then CMD. */
static void
bare_child(int sock, char **argv)
{
	struct sock_fprog prog = {
		.len = sizeof filter_bpf / sizeof filter_bpf[0],
		.filter = (struct sock_filter *)filter_bpf,
	};
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof cbuf,
	};
	struct cmsghdr *cm;
	long fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("PR_SET_NO_NEW_PRIVS");
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER |
	    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
	if (fd < 0 && errno == EINVAL)  /* before 5.19: no killable wait */
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0)
		die("seccomp");
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &(int){ (int)fd }, sizeof(int));
	/* sendmsg is not trapped: nothing waits on the parent yet. */
	if (sendmsg(sock, &msg, 0) != 1)
		die("sendmsg");
	close((int)fd);
	close(sock);
	execvp(argv[0], argv);
	fprintf(stderr, "bare: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The listener from the child, or -1. */
static int
bare_receive(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof cbuf,
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (cm == NULL || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	return fd;
}

/* The child's end is the run's end: exit with its status. */
static void *
bare_on_exit(void *arg)
{
	int st;

	(void)arg;
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

int
main(int argc, char **argv)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	pthread_t waiter;
	int sv[2], fd, first = 1;
	int reads = argc > 1 && strcmp(argv[1], "--read") == 0;

	first += reads;
	if (argc <= first) {
		fprintf(stderr, "usage: bare [--read] CMD [ARG...]\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair");
	if ((child = fork()) < 0)
		die("fork");
	if (child == 0) {
		close(sv[0]);
		bare_child(sv[1], argv + first);
	}
	close(sv[1]);
	if ((fd = bare_receive(sv[0])) < 0) {
		/* The child said why; its status is the answer. */
		bare_on_exit(NULL);
	}
	close(sv[0]);
	/* Before 6.6 the kernel has no such flag: the wake-up then crosses
	 * CPUs, as ward's does there too. */
	(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	errno = pthread_create(&waiter, NULL, bare_on_exit, NULL);
	if (errno != 0)
		die("pthread_create");

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (reads && poll(&p, 1, -1) < 0 && errno != EINTR)
			die("poll");
		memset(&req, 0, sizeof req);
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			die("SECCOMP_IOCTL_NOTIF_RECV");
		}
		if (reads)
			read_paths(&req);
		memset(&resp, 0, sizeof resp);
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		/* ENOENT: the caller is gone (killed) meanwhile. */
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 &&
		    errno != ENOENT)
			die("SECCOMP_IOCTL_NOTIF_SEND");
	}
}
