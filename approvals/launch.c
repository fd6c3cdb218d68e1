/* SPDX-License-Identifier: MIT */
/*
 * Starting ward-supervisor: its argv, its exec, and its ready line.
 */
#include "approvals/launch.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/paths.h"
#include "config/util.h"

void
launch_init(struct launch *l)
{
	l->path = paths_supervisor();
	l->argv = NULL;
	l->argc = 0;
	strv_push(&l->argv, &l->argc, xstrdup("ward-supervisor"));
}

void
launch_done(struct launch *l)
{
	free(l->path);
	strv_free(l->argv);
	l->path = NULL;
	l->argv = NULL;
	l->argc = 0;
}

void
launch_opt(struct launch *l, const char *opt, const char *value)
{
	strv_push(&l->argv, &l->argc, xstrdup(opt));
	if (value != NULL)
		strv_push(&l->argv, &l->argc, xstrdup(value));
}

void
launch_ready_fd(struct launch *l, int fd)
{
	strv_push(&l->argv, &l->argc, xstrdup("--ready-fd"));
	strv_push(&l->argv, &l->argc, xasprintf("%d", fd));
}

void
launch_command(struct launch *l, char *const *argv, size_t n)
{
	strv_push(&l->argv, &l->argc, xstrdup("--"));
	for (size_t i = 0; i < n; i++)
		strv_push(&l->argv, &l->argc, xstrdup(argv[i]));
}

int
launch_exec(const struct launch *l)
{
	execv(l->path, l->argv);
	execvp(l->path, l->argv);
	return -errno;
}

int
launch_exec_or_say(const struct launch *l)
{
	int rc = launch_exec(l);

	fprintf(stderr, "ward: cannot start %s: %s\n", l->path, strerror(-rc));
	return 125;
}

bool
launch_is_run_id(const char *line, size_t len)
{
	return len == 8 && strspn(line, "0123456789abcdef") == 8;
}

int
launch_wait_ready(int fd, int timeout_ms, char id[9],
    void (*on_line)(const char *line, void *arg), void *arg)
{
	int64_t end = timeout_ms >= 0 ? now_mono_ms() + timeout_ms : 0;
	char buf[4096];
	size_t len = 0;

	id[0] = '\0';
	for (;;) {
		struct pollfd pf = { fd, POLLIN, 0 };
		int wait = -1;
		ssize_t r;
		char *line, *nl;

		if (timeout_ms >= 0) {
			int64_t left = end - now_mono_ms();

			if (left <= 0)
				return -ETIMEDOUT;
			wait = left > 60000 ? 60000 : (int)left;
		}
		if (poll(&pf, 1, wait) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pf.revents == 0)
			continue;
		if ((r = read(fd, buf + len, sizeof buf - 1 - len)) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EPIPE;
		len += (size_t)r;
		buf[len] = '\0';
		for (line = buf; (nl = strchr(line, '\n')) != NULL;
		    line = nl + 1) {
			*nl = '\0';
			if (launch_is_run_id(line, (size_t)(nl - line))) {
				snprintf(id, 9, "%.8s", line);
				return 0;
			}
			if (on_line != NULL)
				on_line(line, arg);
		}
		/* Keep the unfinished line; one that fills the buffer is
		 * told as it is. */
		len -= (size_t)(line - buf);
		memmove(buf, line, len);
		if (len == sizeof buf - 1) {
			buf[len] = '\0';
			if (on_line != NULL)
				on_line(buf, arg);
			len = 0;
		}
	}
}
