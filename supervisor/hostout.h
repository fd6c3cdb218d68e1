/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What the supervisor writes to its own stdout and stderr (headless: the
 * program's output passed through, and ward's own lines), without ever
 * blocking the loop. Each host fd gets a bounded buffer and a
 * non-blocking way to write: a pipe or terminal is reopened by
 * /proc/self/fd with O_NONBLOCK, a file description of our own, so the
 * flag never reaches the shell that shares the original; a socket is
 * written with MSG_DONTWAIT; a regular file is written as it is (it never
 * stalls on a reader).
 *
 * The loop reads the program only while hostout_room() says there is
 * room: a reader that stops reading stops the program in its write, never
 * the loop. A host fd that fails (EPIPE: the reader went away) takes
 * nothing more; what is written to it is dropped, as before.
 *
 * On a terminal, ward's own lines share the screen with the program's
 * output: the program's escape sequences are passed only where they
 * cannot leave its own current line (colours and other SGR, erase in
 * line, moves along the line); every other one (cursor up, positioning,
 * erase in display, scrolling regions, save/restore, the alternate
 * screen, OSC and other strings) is dropped, so that no line ward has
 * written can be moved over or erased. ward's own line starts on a line
 * of its own.
 */
#include <stdbool.h>
#include <stddef.h>

#define HOSTOUT_MAX	(1u << 20)	/* the program's output held back */
#define HOSTOUT_OWN	(64u << 10)	/* more, for ward's own lines */

struct hostout {
	int	 fd;		/* where to write; -1 = nowhere */
	int	 own_fd;	/* our reopened description, or -1 */
	bool	 sock;		/* use send(MSG_DONTWAIT) */
	bool	 broken;	/* a write failed: drop from now on */
	char	*buf;
	size_t	 len;
	size_t	 dropped;	/* bytes that found no room (own lines) */
	bool	 tty;		/* filter the program's escapes */
	bool	 mid_line;	/* the last byte out was not a newline */
	int	 esc;		/* where in an escape sequence (hostout.c) */
	char	 seq[32];	/* the CSI sequence so far */
	size_t	 seq_len;
};

/* fd: the host fd (1 or 2), or -1. Never fails: without a non-blocking
 * way the fd is written as it is. */
void	hostout_init(struct hostout *, int fd);
void	hostout_done(struct hostout *);
/* Room for the program's output (0 when the reader is behind). */
size_t	hostout_room(const struct hostout *);
/* Queue n bytes and write what the fd takes now. own: ward's own line,
 * which may use HOSTOUT_OWN past the limit; beyond that it is dropped. */
void	hostout_write(struct hostout *, const void *, size_t n, bool own);
/* Write what the fd takes; true while something is left. */
bool	hostout_flush(struct hostout *);
bool	hostout_pending(const struct hostout *);
/* The fd to poll for POLLOUT, or -1. */
int	hostout_poll_fd(const struct hostout *);
