/* SPDX-License-Identifier: MIT */
/*
 * The hot path alone: N open(O_WRONLY|O_CREAT)+close of one file in the
 * working folder (trapped by ward, continued: in bounds), and N read-only
 * opens (never trapped), each timed as a whole. Prints microseconds per
 * call: "write-open US\nread-open US\n".
 *
 * With "floor" as the second argument it prints instead the two-switch
 * floor of this machine: N round trips of one byte between two processes
 * over two pipes (a ping-pong: each trip wakes the other side and sleeps,
 * two context switches, what a trapped call costs at the least: the
 * target sleeps, the supervisor wakes, answers, the target wakes).
 * "floor US" per round trip, the two processes on one CPU: the
 * supervisor asks the kernel to wake it on its target's CPU
 * (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP), so a trapped call is two
 * switches on one CPU, not a wake-up of another. "floor-cross US": the
 * same, the two free to run anywhere; on this guest a wake-up of the
 * other vCPU can cost ten times the switches (47-54 us against 5-7).
 *
 * With "unotify": the mechanism's own floor, a supervisor that does
 * nothing but the least any supervisor must: the same N write-opens,
 * trapped by a one-line filter, answered by a loop of poll, RECV and a
 * CONTINUE (sync wake-up set, as ward sets it), nothing read, nothing
 * judged. "unotify US" per open+close; what ward adds beyond it is its
 * own cost.
 *
 * With "unotify-recv": the same without the poll, the supervisor asleep
 * in RECV itself, "unotify-recv US": the least the kernel's user
 * notification costs at all (a supervisor that serves nothing else, no
 * output, no timer, no signal). Against the ping-pong it shows how far
 * the mechanism alone is above two switches on this machine.
 *
 * With "unotify-read": the floor of a supervisor that judges a path,
 * as ward's does: poll, RECV, the path read from the target's memory
 * (one pread of 256 bytes through /proc/PID/mem, opened once, as
 * ward's cache keeps it), CONTINUE. "unotify-read US". What ward adds
 * beyond it is its judgement alone.
 */
#define _GNU_SOURCE	/* sched_getcpu, CPU_SET */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int
floor_pingpong(long n, const char *name, bool one_cpu)
{
	int there[2], back[2];
	char c = 'x';
	double t;
	pid_t pid;

	if (one_cpu) {
		cpu_set_t set;
		int cpu = sched_getcpu();

		CPU_ZERO(&set);
		CPU_SET(cpu >= 0 ? cpu : 0, &set);
		/* Both sides: the child inherits the mask. */
		if (sched_setaffinity(0, sizeof set, &set) < 0) {
			perror("sched_setaffinity");
			return 1;
		}
	}

	if (pipe(there) < 0 || pipe(back) < 0) {
		perror("pipe");
		return 1;
	}
	if ((pid = fork()) < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(there[1]);
		close(back[0]);
		while (read(there[0], &c, 1) == 1)
			if (write(back[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(there[0]);
	close(back[1]);
	/* A few trips first: both sides warm, the scheduler settled. */
	for (long i = 0; i < n / 10 + 100; i++)
		if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
			return 1;
	t = now_us();
	for (long i = 0; i < n; i++)
		if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1) {
			perror("ping-pong");
			return 1;
		}
	printf("%s %.2f\n", name, (now_us() - t) / (double)n);
	close(there[1]);
	waitpid(pid, NULL, 0);
	return 0;
}

#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP	(1UL << 0)
#endif

static double
write_opens(long n)
{
	double t = now_us();

	for (long i = 0; i < n; i++) {
		int fd = open("opens.tmp", O_WRONLY | O_CREAT, 0644);

		if (fd < 0) {
			perror("open");
			exit(1);
		}
		close(fd);
	}
	return (now_us() - t) / (double)n;
}

static int
floor_unotify(long n, bool with_poll, bool read_path)
{
	char path[256], mem[64];
	int memfd = -1;
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { .len = sizeof prog / sizeof prog[0],
	    .filter = prog };
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	int sv[2], pidfd, fd = -1, lfd;
	pid_t pid;

	if (pipe(sv) < 0 || (pid = fork()) < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    (fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp)) < 0) {
			perror("seccomp");
			_exit(1);
		}
		if (write(sv[1], &fd, sizeof fd) != sizeof fd)
			_exit(1);
		write_opens(n / 10 + 100);	/* warm, as the floor */
		printf("%s %.2f\n", !with_poll ? "unotify-recv" :
		    read_path ? "unotify-read" : "unotify",
		    write_opens(n));
		unlink("opens.tmp");
		fflush(stdout);
		_exit(0);
	}
	close(sv[1]);
	if (read(sv[0], &fd, sizeof fd) != sizeof fd ||
	    (pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0 ||
	    (lfd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0)) < 0) {
		perror("the listener");
		return 1;
	}
	(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0);
	snprintf(mem, sizeof mem, "/proc/%d/mem", (int)pid);
	if (read_path && (memfd = open(mem, O_RDONLY | O_CLOEXEC)) < 0) {
		perror(mem);
		return 1;
	}
	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };

		if (with_poll && (poll(&p, 1, -1) < 0 ||
		    (p.revents & (POLLHUP | POLLERR))))
			break;
		memset(&req, 0, sizeof req);
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (!with_poll)
				break;	/* the target gone: ENOENT, no more */
			continue;
		}
		if (read_path && pread(memfd, path, sizeof path,
		    (off_t)req.data.args[1]) <= 0)
			perror("pread");
		resp = (struct seccomp_notif_resp){ .id = req.id,
		    .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };
		(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	waitpid(pid, NULL, 0);
	return 0;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	double t;

	if (n <= 0) {
		fprintf(stderr, "usage: opens [N] "
		    "[floor|floor-cross|unotify|unotify-recv|unotify-read]\n");
		return 2;
	}
	if (argc > 2 && strcmp(argv[2], "floor") == 0)
		return floor_pingpong(n, "floor", true);
	if (argc > 2 && strcmp(argv[2], "floor-cross") == 0)
		return floor_pingpong(n, "floor-cross", false);
	if (argc > 2 && strcmp(argv[2], "unotify") == 0)
		return floor_unotify(n, true, false);
	if (argc > 2 && strcmp(argv[2], "unotify-recv") == 0)
		return floor_unotify(n, false, false);
	if (argc > 2 && strcmp(argv[2], "unotify-read") == 0)
		return floor_unotify(n, true, true);
	printf("write-open %.2f\n", write_opens(n));
	t = now_us();
	for (long i = 0; i < n; i++) {
		int fd = open("opens.tmp", O_RDONLY);

		if (fd < 0) {
			perror("open");
			return 1;
		}
		close(fd);
	}
	printf("read-open %.2f\n", (now_us() - t) / (double)n);
	unlink("opens.tmp");
	return 0;
}
