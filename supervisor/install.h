/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Package installs as requests (install.c, DESIGN §6): an exec that a
 * package manager's argv says is an install is judged by [packages] and
 * parked as a request of kind "package".
 */
#include <stdbool.h>
#include <linux/seccomp.h>
#include <sys/types.h>

struct sup;

/* An exec, copied out: 1 when it was an install and was answered or
 * parked here, 0 when it is an ordinary exec for the caller to record. */
int	install_on_exec(struct sup *, const struct seccomp_notif *,
	    const char *path, char *const argv[], const char *joined);
/* Does path (as an exec names it) exist in the sandbox? false only when
 * it is clearly absent (the kernel would answer ENOENT or ENOTDIR). */
bool	install_exists_inside(const struct sup *, pid_t, const char *path);
/* The fd that path names in the program's own fd table, as the kernel
 * resolves it for the program (/proc/self/fd/N, /proc/thread-self/fd/N,
 * /dev/fd/N, /dev/stdin, /dev/stdout, /dev/stderr), or -1. */
int	install_path_fd(const char *path);
/* What fd of pid is, for the record: the file's sandbox path, or
 * "memfd:NAME" for a memfd; 0, -ENOENT when pid has no such fd, or
 * -errno. */
int	install_fd_name(pid_t, int fd, char *buf, size_t size);
