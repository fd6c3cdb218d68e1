/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A person's reason for a denial, told to the denied process on its own
 * stderr: the descriptor taken with pidfd_getfd (the program's own open
 * file, never a path reopened), written only when it is a pipe or a
 * socket and only when the write cannot block the supervisor.
 */
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A pidfd of the process (the thread group) pid belongs to, or -errno.
 * The caller checks the notification is still valid after it, so that
 * a reused pid is not told. */
int	tell_pidfd(pid_t pid);

/*
 * Writes line (at most PIPE_BUF bytes, so that it lands whole) to the
 * process's fd 2 when that is a pipe or a socket and is none of the
 * supervisor's own (skip, n_skip: their st_dev/st_ino; ward already
 * says it on those). 0 when written; -EBADF when fd 2 is not one to
 * write (a file, a terminal); -EAGAIN when the write would block; else
 * -errno.
 */
int	tell_stderr(int pidfd, const char *line, size_t len,
	    const struct stat *skip, size_t n_skip);
