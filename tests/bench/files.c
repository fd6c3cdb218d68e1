/* SPDX-License-Identifier: MIT */
/*
 * files -- the syscall-heavy workload of the benchmark (issue 6, workload 2).
 *
 * In a fresh folder below the current directory: create, write and close N
 * files, read each back (and check it), stat N paths, rename each, delete
 * each, remove the folder. N is 20000 unless given as the first argument.
 * Prints nothing on success; exits 1 with a message on the first failure.
 *
 *   cc -O2 -o files files.c && ./files [N]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
die(const char *what, const char *path)
{
	fprintf(stderr, "files: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	char dir[64], path[128], path2[128], buf[128], back[128];
	struct stat st;

	if (n <= 0 || n > 10000000) {
		fprintf(stderr, "usage: files [N]\n");
		return 2;
	}
	snprintf(dir, sizeof dir, "files-bench.%ld", (long)getpid());
	if (mkdir(dir, 0755) < 0)
		die("mkdir", dir);

	for (long i = 0; i < n; i++) {
		int len = snprintf(buf, sizeof buf,
		    "file %ld of the ward files benchmark\n", i);
		int fd;

		snprintf(path, sizeof path, "%s/f%06ld", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create", path);
		if (write(fd, buf, (size_t)len) != len)
			die("write", path);
		if (close(fd) < 0)
			die("close", path);
	}
	for (long i = 0; i < n; i++) {
		int len = snprintf(buf, sizeof buf,
		    "file %ld of the ward files benchmark\n", i);
		ssize_t got;
		int fd;

		snprintf(path, sizeof path, "%s/f%06ld", dir, i);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("open", path);
		got = read(fd, back, sizeof back);
		if (got != len || memcmp(buf, back, (size_t)len) != 0) {
			errno = EIO;
			die("read back", path);
		}
		close(fd);
	}
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/f%06ld", dir, i);
		if (stat(path, &st) < 0)
			die("stat", path);
	}
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/f%06ld", dir, i);
		snprintf(path2, sizeof path2, "%s/g%06ld", dir, i);
		if (rename(path, path2) < 0)
			die("rename", path);
	}
	for (long i = 0; i < n; i++) {
		snprintf(path2, sizeof path2, "%s/g%06ld", dir, i);
		if (unlink(path2) < 0)
			die("unlink", path2);
	}
	if (rmdir(dir) < 0)
		die("rmdir", dir);
	return 0;
}
