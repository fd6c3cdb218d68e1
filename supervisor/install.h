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
/* Does path (as an exec names it) exist in the sandbox? */
bool	install_exists_inside(const struct sup *, pid_t, const char *path);
