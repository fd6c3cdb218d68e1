/* SPDX-License-Identifier: MIT */
/*
 * tests/live/fexec: run inside a sandbox by t-fexec.sh. Execs echo by
 * one of the ways a program names a file through its own fd table,
 * as a launcher does (Codex's runs its bundled bwrap by /proc/self/fd/N):
 *
 *   fexec MODE
 *     fexecve-path    fexecve() of an O_PATH fd
 *     fexecve-rdonly  fexecve() of an O_RDONLY fd
 *     proc-self       execve("/proc/self/fd/N")
 *     thread-self     execve("/proc/thread-self/fd/N")
 *     dev-fd          execve("/dev/fd/N")
 *     memfd           a memfd holding a copy of echo, by fexecve()
 *     memfd-proc      the same memfd by execve("/proc/self/fd/N")
 *     absent          execve("/proc/self/fd/N") of an fd not open: the
 *                     kernel's ENOENT, printed as "absent: ENOENT"
 *
 * On success the program run is `echo ran-MODE`; on failure it prints
 * "MODE: ERRNO-NAME" and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ECHO	"/bin/echo"

extern char **environ;

static int
fail(const char *mode)
{
	printf("%s: %s\n", mode, strerrorname_np(errno));
	fflush(stdout);
	return 1;
}

/* A memfd holding a copy of echo. */
static int
memfd_copy(void)
{
	char buf[65536];
	ssize_t n;
	int in = open(ECHO, O_RDONLY | O_CLOEXEC);
	int fd = memfd_create("ward-live-echo", 0);

	if (in < 0 || fd < 0)
		return -1;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(fd, buf, (size_t)n) != n)
			return -1;
	close(in);
	return n < 0 ? -1 : fd;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char marker[64], path[64];
	char *args[] = { (char *)"echo", marker, NULL };
	int fd;

	snprintf(marker, sizeof marker, "ran-%s", mode);
	if (strcmp(mode, "fexecve-path") == 0 ||
	    strcmp(mode, "fexecve-rdonly") == 0) {
		fd = open(ECHO, strcmp(mode, "fexecve-path") == 0 ?
		    O_PATH : O_RDONLY);
		if (fd < 0)
			return fail(mode);
		fexecve(fd, args, environ);
		return fail(mode);
	}
	if (strcmp(mode, "memfd") == 0 || strcmp(mode, "memfd-proc") == 0) {
		if ((fd = memfd_copy()) < 0)
			return fail(mode);
		if (strcmp(mode, "memfd") == 0) {
			fexecve(fd, args, environ);
			return fail(mode);
		}
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		execve(path, args, environ);
		return fail(mode);
	}
	if (strcmp(mode, "absent") == 0) {
		fd = 987;
		close(fd);
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		execve(path, args, environ);
		return fail(mode);
	}
	/* Not close-on-exec: the kernel opens the file by its fd, after
	 * which the fd table is the new program's. */
	if ((fd = open(ECHO, O_RDONLY)) < 0)
		return fail(mode);
	if (strcmp(mode, "proc-self") == 0)
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	else if (strcmp(mode, "thread-self") == 0)
		snprintf(path, sizeof path, "/proc/thread-self/fd/%d", fd);
	else if (strcmp(mode, "dev-fd") == 0)
		snprintf(path, sizeof path, "/dev/fd/%d", fd);
	else {
		fprintf(stderr, "usage: fexec MODE (see tests/live/fexec.c)\n");
		return 2;
	}
	execve(path, args, environ);
	return fail(mode);
}
