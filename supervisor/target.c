/* SPDX-License-Identifier: MIT */
#include "supervisor/target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config/util.h"

#define PAGE 4096
#define STR_FIRST 256

/*
 * /proc/TID/mem, kept open for a short while: the notify loop reads the
 * same few threads over and over. The fd is bound to the memory of the
 * process it was opened for; an entry older than MEM_FD_MS is reopened,
 * far sooner than a thread id could be reused by another process, and
 * an exec drops it (target_forget): after a vfork the child's fd would
 * otherwise go on reading its parent's memory, which is still alive.
 */
#define MEM_FDS		16
#define MEM_FD_MS	200

static struct {
	pid_t	 tid;
	int	 fd;
	int64_t	 opened;
} mem_fds[MEM_FDS];

static int
mem_fd(pid_t tid, bool fresh)
{
	int64_t now = now_mono_ms();
	size_t slot = 0;
	char p[32];
	int fd;

	for (size_t i = 0; i < MEM_FDS; i++) {
		if (mem_fds[i].tid == tid && mem_fds[i].fd > 0) {
			if (!fresh && now - mem_fds[i].opened < MEM_FD_MS)
				return mem_fds[i].fd;
			slot = i;
			goto reopen;
		}
		if (mem_fds[i].opened < mem_fds[slot].opened)
			slot = i;
	}
reopen:
	if (mem_fds[slot].fd > 0)
		close(mem_fds[slot].fd);
	mem_fds[slot].tid = 0;
	mem_fds[slot].fd = 0;
	snprintf(p, sizeof p, "/proc/%d/mem", (int)tid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	mem_fds[slot].tid = tid;
	mem_fds[slot].fd = fd;
	mem_fds[slot].opened = now;
	return fd;
}

void
target_forget(pid_t tid)
{
	for (size_t i = 0; i < MEM_FDS; i++)
		if (mem_fds[i].tid == tid && mem_fds[i].fd > 0) {
			close(mem_fds[i].fd);
			mem_fds[i].fd = 0;
			mem_fds[i].tid = 0;
		}
}

/* pread through the cached fd; once more through a fresh one if that
 * fails (the thread may be new since). */
static ssize_t
mem_pread(pid_t tid, void *buf, size_t len, uint64_t addr)
{
	for (int fresh = 0; fresh < 2; fresh++) {
		int fd = mem_fd(tid, fresh);
		ssize_t n;

		if (fd < 0)
			return -1;
		if ((n = pread(fd, buf, len, (off_t)addr)) > 0)
			return n;
	}
	return -1;
}

int
target_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	return mem_pread(pid, buf, len, addr) == (ssize_t)len ? 0 : -EFAULT;
}

ssize_t
target_read_some(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		size_t room = PAGE - ((addr + got) % PAGE);
		ssize_t n;

		if (room > len - got)
			room = len - got;
		if ((n = mem_pread(pid, (char *)buf + got, room,
		    addr + got)) <= 0)
			break;
		got += (size_t)n;
	}
	return got > 0 ? (ssize_t)got : -EFAULT;
}

ssize_t
target_read_str(pid_t pid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (addr == 0)
		return -EFAULT;
	while (got < size) {
		/* Never read across a page boundary in one go: the next
		 * page may be unmapped while the string ends before it. The
		 * first read takes at most STR_FIRST bytes: most paths are
		 * shorter, and the kernel copies all that is asked (twice,
		 * through a page of its own). */
		size_t room = PAGE - ((addr + got) % PAGE);
		ssize_t n;
		char *nul;

		if (got == 0 && room > STR_FIRST)
			room = STR_FIRST;
		if (room > size - got)
			room = size - got;
		n = mem_pread(pid, buf + got, room, addr + got);
		if (n <= 0)
			return -EFAULT;
		if ((nul = memchr(buf + got, '\0', (size_t)n)) != NULL)
			return nul - buf;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

int
target_dir(pid_t pid, int dirfd, char *buf, size_t size)
{
	char p[64];
	ssize_t n;

	if (dirfd == AT_FDCWD)
		snprintf(p, sizeof p, "/proc/%d/cwd", (int)pid);
	else
		snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)pid, dirfd);
	if ((n = readlink(p, buf, size)) < 0)
		return errno == ENOENT && dirfd != AT_FDCWD ? -EBADF : -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	if (dirfd != AT_FDCWD) {
		struct stat st;

		/* A relative path against a file that is not a folder. */
		if (stat(p, &st) < 0)
			return -errno;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
	}
	/* Not a folder (a pipe, a socket, a deleted one): the kernel would
	 * refuse a relative path against it. */
	if (buf[0] != '/' || strstr(buf, " (deleted)") != NULL)
		return -ENOTDIR;
	return 0;
}

/*
 * The cwd of the threads the loop serves, read once by readlink and kept a
 * moment: a trapped write-open in /work then costs no readlink of
 * /proc/TID/cwd (a sixth of the supervisor's time on that path). A chdir
 * or fchdir is trapped and flushes it all (threads share a cwd); an entry
 * lives CWD_MS at most, which bounds what a chdir racing another thread's
 * write, a thread id reused or a folder renamed could leave stale. Short
 * paths only: a longer one is read every time.
 */
#define CWD_SLOTS	16
#define CWD_MS		200
#define CWD_LEN		256

static struct {
	pid_t	 tid;
	int64_t	 at;
	char	 path[CWD_LEN];
} cwds[CWD_SLOTS];

void
target_cwd_flush(void)
{
	for (size_t i = 0; i < CWD_SLOTS; i++)
		cwds[i].tid = 0;
}

int
target_dir_hot(pid_t pid, int dirfd, char *buf, size_t size)
{
	int64_t now = now_mono_ms();
	size_t slot = 0, n;
	int r;

	if (dirfd != AT_FDCWD)
		return target_dir(pid, dirfd, buf, size);
	for (size_t i = 0; i < CWD_SLOTS; i++) {
		if (cwds[i].tid == pid && now - cwds[i].at < CWD_MS) {
			n = strlen(cwds[i].path);
			if (n >= size)
				return -ENAMETOOLONG;
			memcpy(buf, cwds[i].path, n + 1);
			return 0;
		}
		if (cwds[i].tid == pid || cwds[i].at < cwds[slot].at)
			slot = i;
	}
	if ((r = target_dir(pid, dirfd, buf, size)) < 0)
		return r;
	if ((n = strlen(buf)) < CWD_LEN) {
		cwds[slot].tid = pid;
		cwds[slot].at = now;
		memcpy(cwds[slot].path, buf, n + 1);
	}
	return 0;
}

char *
target_cmdline(pid_t pid)
{
	char p[32], buf[4096];
	cleanup_fd int fd = -1;
	ssize_t n;

	snprintf(p, sizeof p, "/proc/%d/cmdline", (int)pid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (n = read(fd, buf, sizeof buf - 1)) <= 0)
		return xstrdup("?");
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return xstrdup(buf);
}

/* The inode of the socket bound to local port in one of the sandbox's
 * /proc/INIT/net tables (its network namespace), or 0. */
static unsigned long
socket_inode(pid_t init, const char *table, unsigned port)
{
	char p[64], line[512];
	FILE *f;
	unsigned long found = 0;

	snprintf(p, sizeof p, "/proc/%d/net/%s", (int)init, table);
	if ((f = fopen(p, "re")) == NULL)
		return 0;
	while (found == 0 && fgets(line, sizeof line, f) != NULL) {
		unsigned lport, st;
		unsigned long ino;

		/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x "
		    "%x %*x:%*x %*x:%*x %*x %*u %*u %lu", &lport, &st,
		    &ino) == 3 && lport == port && ino != 0 &&
		    st != 10 /* TCP_LISTEN: never a client's */)
			found = ino;
	}
	fclose(f);
	return found;
}

/* Does pid hold an fd on socket:[ino]? */
static bool
holds_socket(pid_t pid, const char *want)
{
	char p[64], link[64];
	DIR *d;
	struct dirent *e;
	bool found = false;

	snprintf(p, sizeof p, "/proc/%d/fd", (int)pid);
	if ((d = opendir(p)) == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(d), e->d_name, link, sizeof link - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		found = strcmp(link, want) == 0;
	}
	closedir(d);
	return found;
}

pid_t
target_socket_owner(pid_t init, bool tcp, unsigned port)
{
	char p[64], ns[64], want[48];
	unsigned long ino;
	ssize_t n;
	DIR *d;
	struct dirent *e;
	pid_t found = -ESRCH;

	if ((ino = socket_inode(init, tcp ? "tcp" : "udp", port)) == 0 &&
	    (ino = socket_inode(init, tcp ? "tcp6" : "udp6", port)) == 0)
		return -ESRCH;
	snprintf(want, sizeof want, "socket:[%lu]", ino);
	snprintf(p, sizeof p, "/proc/%d/ns/pid", (int)init);
	if ((n = readlink(p, ns, sizeof ns - 1)) <= 0)
		return -ESRCH;
	ns[n] = '\0';
	if ((d = opendir("/proc")) == NULL)
		return -errno;
	/* Only the sandbox's processes: those of its pid namespace. */
	while (found < 0 && (e = readdir(d)) != NULL) {
		char other[64];
		long pid = strtol(e->d_name, NULL, 10);

		if (pid <= 0 || pid == init)
			continue;
		snprintf(p, sizeof p, "/proc/%ld/ns/pid", pid);
		if ((n = readlink(p, other, sizeof other - 1)) <= 0)
			continue;
		other[n] = '\0';
		if (strcmp(other, ns) == 0 && holds_socket((pid_t)pid, want))
			found = (pid_t)pid;
	}
	closedir(d);
	return found;
}

/* A "KEY:\tvalue" line: 0 and *ret its value read in base, -EINVAL when
 * that is no number, -ENOENT when the line is another key's. */
static int
proc_line_field(const char *line, const char *key, int base,
    unsigned long *ret)
{
	size_t klen = strlen(key);
	char *end;

	if (strncmp(line, key, klen) != 0 || line[klen] != ':')
		return -ENOENT;
	errno = 0;
	*ret = strtoul(line + klen + 1, &end, base);
	return errno != 0 || end == line + klen + 1 ? -EINVAL : 0;
}

int
target_proc_field(pid_t pid, const char *file, const char *key, int base,
    unsigned long *ret)
{
	char p[64], line[256];
	FILE *f;
	int r = -ENOENT;

	snprintf(p, sizeof p, "/proc/%d/%s", (int)pid, file);
	if ((f = fopen(p, "re")) == NULL)
		return -errno;
	while (r == -ENOENT && fgets(line, sizeof line, f) != NULL)
		r = proc_line_field(line, key, base, ret);
	fclose(f);
	return r;
}

/*
 * The status file of the last pid asked is kept open: a new read of it
 * is the kernel's fresh text (about 12 us here), and the open and close
 * around it (6 us more) are spared for a run of creates by one process.
 * The fd holds that very process, not its number: once it is gone, a
 * read fails (ESRCH) and the number, maybe another process's by now, is
 * opened again.
 */
static struct {
	pid_t	pid;
	int	fd;		/* -1: none kept */
} target_umask_kept = { 0, -1 };

static ssize_t
target_umask_read(pid_t pid, char *buf, size_t size)
{
	char p[64];
	ssize_t n;

	if (target_umask_kept.fd >= 0 && target_umask_kept.pid == pid &&
	    (n = pread(target_umask_kept.fd, buf, size, 0)) > 0)
		return n;
	if (target_umask_kept.fd >= 0)
		close(target_umask_kept.fd);
	target_umask_kept.fd = -1;
	snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
	if ((target_umask_kept.fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	target_umask_kept.pid = pid;
	return pread(target_umask_kept.fd, buf, size, 0);
}

mode_t
target_umask(pid_t pid)
{
	/* "Name:\t<comm, escaped: 64 at most>\nUmask:\t0022\n" first. */
	char buf[256], *u;
	ssize_t n = target_umask_read(pid, buf, sizeof buf - 1);
	unsigned long m;

	if (n <= 0)
		return 022;
	buf[n] = '\0';
	if ((u = strstr(buf, "\nUmask:")) == NULL ||
	    proc_line_field(u + 1, "Umask", 8, &m) < 0)
		return 022;
	return (mode_t)(m & 0777);
}

int
target_open(int rootfd, pid_t pid, const char *path, int flags)
{
	char abs[PATH_MAX * 2], cwd[PATH_MAX];
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	if (path[0] == '/')
		snprintf(abs, sizeof abs, "%s", path + 1);
	else if (target_dir(pid, AT_FDCWD, cwd, sizeof cwd) == 0)
		snprintf(abs, sizeof abs, "%s/%s", cwd + 1, path);
	else
		return -ESRCH;
	fd = syscall(SYS_openat2, rootfd, abs[0] ? abs : ".", &how, sizeof how);
	return fd < 0 ? -errno : (int)fd;
}
