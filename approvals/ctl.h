/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Where control sockets live and who may talk to them.
 *
 * Each supervisor listens on <runtime>/<RUN>.sock, where <runtime> is
 * paths_runtime_dir() (0700, owned by us). Peers are checked with
 * SO_PEERCRED both ways: the supervisor only accepts clients of its own
 * uid, and clients only talk to a supervisor of their own uid.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "approvals/audit.h"

/* <runtime>/<run>.sock; 0 or -errno with *cause. */
int	ctl_socket_path(const char *run, char **ret, char **cause);
/* Binds and listens (non-blocking, close-on-exec); removes a stale socket
 * file first only if nothing answers on it. 0 or -errno with *cause. */
int	ctl_listen(const char *path, int *ret_fd, char **cause);
/* Accepts one client (non-blocking, close-on-exec): 0 and *ret_fd, *uid,
 * *pid; -EPERM when the peer's uid is not ours (the fd is closed),
 * -EAGAIN when nobody is waiting. */
int	ctl_accept(int listen_fd, int *ret_fd, uid_t *uid, pid_t *pid);
/* Connects to the run named by id or by --name; checks the server's uid.
 * -ENOENT with a cause listing live runs when there is no such run. */
int	ctl_connect(const char *run, int *ret_fd, char **cause);
/* The ids of runs with a socket that answers (sorted); stale socket files
 * are left alone. */
int	ctl_list(char ***ids, size_t *n);

/* Removes run's socket file when nobody answers on it: 1 removed, 0 no
 * file, -EBUSY when it answers (a live supervisor's: never removed),
 * -EPERM when it is not a socket of ours, other -errno. */
int	ctl_remove_stale(const char *run);

/*
 * Crash recovery for the verbs that open the record (ward run's
 * supervisor, ward log, ward ps, ward gc): audit_recover() marks lost the
 * runs whose supervisor is gone (a run recorded without a supervisor pid
 * by an older ward counts as gone when its socket does not answer), and
 * the socket file of each is removed (ctl_remove_stale). *lost (NULL: not
 * wanted) lists the runs this call marked; free with ctl_lost_free. The
 * number marked, or -errno with *cause; a failure still leaves the
 * record readable.
 */
struct ctl_lost {
	char	*run;
	int64_t	 noticed_ms;
};
int	ctl_recover(struct audit *, const char *by, struct ctl_lost **lost,
	    size_t *n, char **cause);
void	ctl_lost_free(struct ctl_lost *, size_t);
