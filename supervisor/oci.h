/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A container's run: the supervisor ward oci serve starts for each
 * container adopts the runtime's seccomp listener instead of making a
 * sandbox. The floor is the container's (its mounts, namespaces and
 * capabilities); above it ward's rules hold as for a run of its own,
 * and what they allow is performed by the supervisor inside the
 * container's root or network namespace (DESIGN §1: continued only
 * where something below enforces the same answer).
 */
#include <resolv.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

struct sup;

/* How the container's names are looked up: ward's DNS stub's two
 * sockets on 127.0.0.1:53 of its namespace (or -1: none), the servers
 * the container named (the stub's upstream), and a line that says so. */
struct oci_names {
	int			 udp, tcp;
	struct sockaddr_storage	 up[MAXNS];
	size_t			 n_up;
	char			*note;
};

/*
 * Take the listener fd of the container whose init is host pid `pid`:
 * checked to be a seccomp listener, init held by a pidfd, the
 * container's root opened, its network namespace joined (connections the
 * person approves are made there), the policy's writable folders taken as
 * the container's, and its resolver pointed at 127.0.0.1:53 of its
 * namespace, where *names' sockets wait for the caller's DNS stub
 * (net_dns_start). 0, or -errno with *cause.
 */
int	oci_adopt(struct sup *, int fd, pid_t pid, struct oci_names *,
	    char **cause);
/* The ids thread tid acts with on files (its fsuid and fsgid, as the
 * host sees them): 0 or -errno. */
int	oci_target_ids(pid_t tid, uid_t *uid, gid_t *gid);
/* A device the supervisor may open for a container: the null, zero,
 * full and random devices, the terminal ones (tty, ptmx, a pts), and a
 * FIFO. Not a disk, not a driver: the runtime's device rules bind the
 * container, not the supervisor. */
bool	oci_device_ok(const struct stat *);
/* Is the lexical path lex one that names an fd of the caller's
 * (/dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
 * /proc/thread-self/fd/N)? Its number, else -1. */
int	oci_fd_path(const char *lex);
