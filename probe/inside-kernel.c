/* SPDX-License-Identifier: MIT */
/* The inside: the kernel's surface (filtered calls, foreign entries,
 * namespaces, signals) and the limits (pids, memory, the wall clock). */
#include "probe/inside.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "config/util.h"
#include "probe/probe.h"

int
probe_in_io_uring(char **a)
{
	unsigned char params[256] = { 0 };

	(void)a;
	probe_in_check("io_uring_setup", syscall(SYS_io_uring_setup, 8, params));
	probe_in_check("io_uring_enter", syscall(SYS_io_uring_enter, 0, 1, 0, 0,
	    NULL, 0));
	probe_in_check("io_uring_register", syscall(SYS_io_uring_register, 0, 0,
	    NULL, 0));
	return 0;
}

int
probe_in_tiocsti(char **a)
{
	char c = 'x', sub = 6;	/* TIOCL_GETSHIFTSTATE */
	int fd;

	(void)a;
	probe_in_check("ioctl(0, TIOCSTI)", ioctl(0, TIOCSTI, &c));
	probe_in_check("ioctl(2, TIOCSTI)", ioctl(2, TIOCSTI, &c));
	probe_in_check("ioctl(0, TIOCLINUX)", ioctl(0, TIOCLINUX, &sub));
	fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
	probe_in_check("open /dev/tty", fd);
	if (fd >= 0) {
		probe_in_check("ioctl(/dev/tty, TIOCSTI)", ioctl(fd, TIOCSTI, &c));
		close(fd);
	}
	return 0;
}

int
probe_in_ptrace(char **a)
{
	char buf[16];
	struct iovec l = { buf, sizeof buf }, r = { (void *)0x400000, sizeof buf };
	pid_t pp = getppid();

	(void)a;
	probe_in_check("ptrace(PTRACE_ATTACH, 1)", ptrace(PTRACE_ATTACH, 1,
	    NULL, NULL));
	probe_in_check("ptrace(PTRACE_SEIZE, parent)", ptrace(PTRACE_SEIZE, pp,
	    NULL, NULL));
	probe_in_check("process_vm_readv(1)", process_vm_readv(1, &l, 1, &r, 1,
	    0));
	return 0;
}

/* The supervisor is not in our pid namespace: signal everything we can
 * name. The run must still end with our own status. */
int
probe_in_kill(char **a)
{
	DIR *d;
	struct dirent *e;
	int fd;

	(void)a;
	if ((d = opendir("/proc")) != NULL) {
		while ((e = readdir(d)) != NULL) {
			char what[64];
			long pid;

			if (strspn(e->d_name, "0123456789") != strlen(e->d_name))
				continue;
			pid = strtol(e->d_name, NULL, 10);
			if (pid == getpid())
				continue;
			snprintf(what, sizeof what, "kill(%ld, SIGKILL)", pid);
			probe_in_check(what, kill((pid_t)pid, SIGKILL));
		}
		closedir(d);
	}
	probe_in_check("kill(getppid(), SIGKILL)", kill(getppid(), SIGKILL));
	probe_in_check("kill(-1, SIGKILL)", kill(-1, SIGKILL));
	fd = (int)syscall(SYS_pidfd_open, 1, 0);
	probe_in_check("pidfd_open(1)", fd);
	if (fd >= 0) {
		probe_in_check("pidfd_send_signal(1, SIGKILL)",
		    syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0));
		close(fd);
	}
	usleep(200 * 1000);
	return PROBE_OWN_EXIT;
}

int
probe_in_mount(char **a)
{
	(void)a;
	probe_in_check("mount tmpfs on /work", mount("tmpfs", "/work", "tmpfs", 0,
	    NULL));
	probe_in_check("umount2 /work", umount2("/work", MNT_DETACH));
	return 0;
}

int
probe_in_unshare(char **a)
{
	bool any = false;
	long r;
	int fd;

	(void)a;
	r = unshare(CLONE_NEWUSER);
	probe_in_check("unshare(CLONE_NEWUSER)", r);
	any |= r == 0;
	r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, 0);
	if (r == 0) {
		usleep(300 * 1000);	/* long enough to be seen from outside */
		_exit(0);
	}
	probe_in_check("clone(CLONE_NEWUSER)", r);
	if (r > 0) {
		any = true;
		waitpid((pid_t)r, NULL, 0);
	}
	fd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	r = setns(fd, 0);
	probe_in_check("setns(own user ns)", r);
	if (fd >= 0)
		close(fd);
	if (any)
		usleep(300 * 1000);
	return 0;
}

int
probe_in_open_by_handle(char **a)
{
	struct {
		struct file_handle h;
		unsigned char b[128];
	} fh;
	uint32_t ino[2] = { 2, 0 };
	int mnt, root;

	(void)a;
	memset(&fh, 0, sizeof fh);
	fh.h.handle_bytes = sizeof fh.b;
	probe_in_check("name_to_handle_at /etc/passwd",
	    name_to_handle_at(AT_FDCWD, "/etc/passwd", &fh.h, &mnt, 0));
	root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* FILEID_INO32_GEN for inode 2: the root of most file systems. */
	fh.h.handle_bytes = sizeof ino;
	fh.h.handle_type = 1;
	memcpy(fh.h.f_handle, ino, sizeof ino);
	probe_in_check("open_by_handle_at (inode 2)",
	    open_by_handle_at(root, &fh.h, O_RDONLY | O_CLOEXEC));
	if (root >= 0)
		close(root);
	return 0;
}

int
probe_in_bpf(char **a)
{
	union bpf_attr attr;

	(void)a;
	memset(&attr, 0, sizeof attr);
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	probe_in_check("bpf(BPF_MAP_CREATE)", syscall(SYS_bpf, BPF_MAP_CREATE,
	    &attr, sizeof attr));
	return 0;
}

/* i386 open(canary/int80, O_WRONLY|O_CREAT) through int $0x80, and the
 * same through the x32 table: both past a filter written for x86-64. */
int
probe_in_int80(char **a)
{
	pid_t pid;

	if ((pid = fork()) == 0) {
		char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		long ret;

		if (page == MAP_FAILED) {
			probe_in_say("mmap MAP_32BIT", errno);
			_exit(3);
		}
		snprintf(page, 4096, "%s/int80", a[0]);
		__asm__ volatile("int $0x80"
		    : "=a"(ret)
		    : "a"(5L), "b"((long)(uintptr_t)page), "c"(0101L), "d"(0644L)
		    : "memory", "r8", "r9", "r10", "r11");
		probe_in_say("int $0x80 open canary/int80", ret < 0 ?
		    (int)-ret : 0);
		_exit(0);
	}
	probe_in_reap("i386 child", pid);
	if ((pid = fork()) == 0) {
		char p[PATH_MAX];
		long r;

		snprintf(p, sizeof p, "%s/x32", a[0]);
		r = syscall(0x40000000L | SYS_open, p,
		    O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		probe_in_check("x32 open canary/x32", r);
		_exit(0);
	}
	probe_in_reap("x32 child", pid);
	return 0;
}

int
probe_in_fork_bomb(char **a)
{
	char what[64];
	int n, err = 0;

	(void)a;
	for (n = 0; n < 1024; n++) {
		pid_t pid = fork();

		if (pid == 0) {
			for (;;)
				pause();
		}
		if (pid < 0) {
			err = errno;
			break;
		}
	}
	snprintf(what, sizeof what, "fork x%d, then", n);
	probe_in_say(what, err);
	/* Hold them long enough to be counted from outside. */
	usleep(300 * 1000);
	return 0;
}

int
probe_in_memory_hog(char **a)
{
	size_t total = 0, chunk = 1 << 20;
	char what[64];
	int err = 0;

	(void)a;
	while (total < (1ULL << 30)) {
		char *p = malloc(chunk);

		if (p == NULL) {
			err = errno;
			break;
		}
		memset(p, 0xa5, chunk);
		total += chunk;
	}
	snprintf(what, sizeof what, "malloc+touch %zu MiB, then", total >> 20);
	probe_in_say(what, err);
	usleep(300 * 1000);
	return 0;
}

int
probe_in_wall_clock(char **a)
{
	(void)a;
	sleep(30);
	probe_in_say("slept 30 s", 0);
	return 0;
}
