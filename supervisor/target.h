/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Reading the target: its memory, cwd, fds and command line. Everything
 * is copied out first; decisions act on the copies. Paths as the kernel
 * would resolve them inside the sandbox root: supervisor/path.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Exactly len bytes at addr, or -EFAULT. */
int	target_read(pid_t, uint64_t addr, void *buf, size_t len);
/* Up to len bytes at addr, page by page, as far as they can be read:
 * how many (at least 1), or -EFAULT when none can. */
ssize_t	target_read_some(pid_t, uint64_t addr, void *buf, size_t len);
/* Drop what is cached of this thread's memory: it is about to exec. */
void	target_forget(pid_t);
/* A NUL-terminated string of at most size-1 bytes; its length, or
 * -EFAULT / -ENAMETOOLONG. Read page by page: a string ending just
 * before an unmapped page is still read. */
ssize_t	target_read_str(pid_t, uint64_t addr, char *buf, size_t size);
/* The sandbox path of dirfd (AT_FDCWD: the cwd); 0 or -errno. */
int	target_dir(pid_t, int dirfd, char *buf, size_t size);
/* The same for the hot path: the cwd from a short-lived cache (kept
 * 200 ms per thread, dropped by target_cwd_flush), any other dirfd
 * as target_dir. What it answers may be stale (another thread's chdir in
 * flight, a thread id reused): use it only to decide a CONTINUE that the
 * floor bounds anyway, never for what is recorded, asked or performed. */
int	target_dir_hot(pid_t, int dirfd, char *buf, size_t size);
/* Forget every cached cwd: a chdir or fchdir was trapped. */
void	target_cwd_flush(void);
/* Open path as the program named it (a relative one against its cwd)
 * inside the sandbox's root rootfd: symlinks followed as the kernel would,
 * never out of that root, no /proc magic links. fd, -ESRCH when the cwd
 * cannot be read, or -errno. */
int	target_open(int rootfd, pid_t, const char *path, int flags);
/*
 * The sandboxed process holding the socket whose local port is port
 * (tcp: a connected TCP socket, else UDP), found in the sandbox's own
 * tables (/proc/INIT/net, its network namespace) and the fds of the
 * processes in its pid namespace: the host pid, or -ESRCH. Scans /proc:
 * off the hot path only (a request about to be asked).
 */
pid_t	target_socket_owner(pid_t init, bool tcp, unsigned port);
/* argv joined by spaces (malloc'd; "?" if gone). */
char	*target_cmdline(pid_t);
/* A "Key:\tvalue" line of /proc/PID/FILE ("status", "fdinfo/3") read as
 * a number in base; 0 or -errno. */
int	target_proc_field(pid_t, const char *file, const char *key, int base,
	    unsigned long *ret);
/* The umask from /proc/PID/status, or 022 (the last pid's file kept open;
 * a process gone since is never read for a new one of its number). */
mode_t	 target_umask(pid_t);
