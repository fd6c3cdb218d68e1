/* SPDX-License-Identifier: MIT */
/*
 * An LD_PRELOAD shim for the I/O fault tests (t-record-fault.sh): after
 * WARD_FAULT_AFTER writes (write, pwrite, pwrite64, writev) or syncs
 * (fsync, fdatasync) to files whose path contains WARD_FAULT_MATCH
 * ("audit.db" if unset), every further one fails with WARD_FAULT_ERRNO
 * ("ENOSPC" or "EIO"), as a full or failing disk would. Other files are
 * left alone. Built by the test with cc -shared -fPIC.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long faultfs_count;

static int
faultfs_hit(int fd)
{
	const char *match = getenv("WARD_FAULT_MATCH");
	const char *after = getenv("WARD_FAULT_AFTER");
	const char *e = getenv("WARD_FAULT_ERRNO");
	char link[64], path[4096];
	ssize_t n;

	if (after == NULL)
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof path - 1)) <= 0)
		return 0;
	path[n] = '\0';
	if (strstr(path, match != NULL ? match : "audit.db") == NULL)
		return 0;
	if (++faultfs_count <= atol(after))
		return 0;
	errno = e != NULL && strcmp(e, "EIO") == 0 ? EIO : ENOSPC;
	return 1;
}

#define FAULTFS_NEXT(type, name, args) \
	static type (*next) args; \
	if (next == NULL) \
		next = (type (*) args)dlsym(RTLD_NEXT, name)

ssize_t
write(int fd, const void *buf, size_t len)
{
	FAULTFS_NEXT(ssize_t, "write", (int, const void *, size_t));
	return faultfs_hit(fd) ? -1 : next(fd, buf, len);
}

ssize_t
pwrite(int fd, const void *buf, size_t len, off_t off)
{
	FAULTFS_NEXT(ssize_t, "pwrite", (int, const void *, size_t, off_t));
	return faultfs_hit(fd) ? -1 : next(fd, buf, len, off);
}

ssize_t
pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	FAULTFS_NEXT(ssize_t, "pwrite64", (int, const void *, size_t, off_t));
	return faultfs_hit(fd) ? -1 : next(fd, buf, len, off);
}

ssize_t
writev(int fd, const struct iovec *iov, int n)
{
	FAULTFS_NEXT(ssize_t, "writev", (int, const struct iovec *, int));
	return faultfs_hit(fd) ? -1 : next(fd, iov, n);
}

int
fsync(int fd)
{
	FAULTFS_NEXT(int, "fsync", (int));
	return faultfs_hit(fd) ? -1 : next(fd);
}

int
fdatasync(int fd)
{
	FAULTFS_NEXT(int, "fdatasync", (int));
	return faultfs_hit(fd) ? -1 : next(fd);
}
