/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What the parts of the child's set-up share (supervisor/spawn*.c; the
 * supervisor's header is supervisor/spawn.h): the child's fds and its one
 * way to fail. Included after supervisor/spawn.h.
 */
#include <sys/types.h>

struct spawn_config;

struct child {
	const struct spawn_config *cfg;
	int	 err_fd;
	int	 sync_fd;
	int	 sock_fd;
	int	 status_fd;
	int	 go_fd;
};

/* spawn-child.c */
void	spawn_fail(const struct child *c, const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 2, 3)));
void	spawn_send_fds(const struct child *c, const int *fds, size_t n);

/* spawn-root.c */
void	spawn_dns_sockets(const struct child *c);
void	spawn_build_root(const struct child *c);

/* spawn-idmap.c */
int	spawn_write_maps(const struct spawn_config *cfg, pid_t pid, char **cause);
