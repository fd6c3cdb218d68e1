/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Approved writes, performed by the supervisor on the host (emulate.c),
 * and the decoded write they perform: files.c copies a trapped write out
 * of the target into a struct write_call, judges it, and hands the
 * approved ones here.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

struct sup;

enum op {
	OP_OPEN, OP_MKDIR, OP_MKNOD, OP_UNLINK, OP_RMDIR, OP_RENAME,
	OP_LINK, OP_SYMLINK, OP_TRUNCATE, OP_CHMOD, OP_CHOWN, OP_UTIMES,
	OP_SETXATTR, OP_REMOVEXATTR,
};

/* One trapped write, decoded and copied out of the target. The path
 * buffers come last: decoding clears everything before them. */
struct write_call {
	enum op		 op;
	const char	*name;		/* syscall name */
	int		 dirfd, dirfd2;
	bool		 two;		/* path2 is a path to judge */
	bool		 follow, follow2;
	uint64_t	 flags;		/* open flags, unlinkat/renameat2/linkat flags */
	uint64_t	 mode;
	uint64_t	 length;	/* truncate */
	uint32_t	 uid, gid;	/* chown, inside ids */
	bool		 times_null;
	struct timespec	 times[2];
	char		 xname[256];	/* xattr name */
	size_t		 xsize;
	unsigned char	*xvalue;	/* malloc'd */
	int		 xflags;
	char		 raw[PATH_MAX];	/* path as the program wrote it */
	char		 raw2[PATH_MAX];	/* second path, or link text */
	char		 path[PATH_MAX];	/* resolved, sandbox view */
	char		 path2[PATH_MAX];	/* second path resolved, or "" */
};

/* Can c make a file (an open with O_CREAT or O_TMPFILE, mkdir, mknod)?
 * Only then is the program's umask read. */
bool	emulate_creates(const struct write_call *);
/* Perform an approved write of process pid on the host; the value to
 * answer (>= 0, or -errno), or sets *inject_fd to a host fd to hand in. */
int64_t	emulate_call(struct sup *, pid_t, const struct write_call *,
	    int *inject_fd);
/*
 * The same for a change in one of the policy's writable folders, which
 * the program may make: done here rather than continued, so that the
 * name judged is the name changed (the folder opened without symlinks,
 * the last step never followed), and no before-image kept. as: the
 * program's host ids; the call is made with them, in the folder as the
 * sandbox's own mount shows it (checked to be the host's), so that it
 * can do no more than the program could, and a file it makes, or an
 * fd it hands in, is as the program's own would be (an idmapped mount
 * when ward runs as root).
 */
struct emulate_as {
	uid_t	uid;
	gid_t	gid;
};
int64_t	emulate_in_place(struct sup *, pid_t, const struct write_call *,
	    const struct emulate_as *, int *inject_fd);
/*
 * The stage answer to an open outside: the program gets, opened with its
 * own flags, a copy of the host file kept in the run folder,
 * RUN/outside/upper/<host path>, made on first use from the host file
 * (its bytes and permission bits; nothing when there is none and the
 * open creates), with the host's bytes at that moment kept beside it in
 * RUN/outside/base/<host path> for `ward apply`'s conflict check. The
 * host file is never written. Same answers as emulate_call.
 */
int64_t	emulate_stage(struct sup *, pid_t, const struct write_call *,
	    int *inject_fd);
/* The host path behind a sandbox path, or NULL (no host counterpart). */
char	*emulate_host_path(const struct sup *, const char *inside);
