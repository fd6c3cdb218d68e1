/* SPDX-License-Identifier: MIT */
/*
 * The hot path alone: N open(O_WRONLY|O_CREAT)+close of one file in the
 * working folder (trapped by ward, continued: in bounds), and N read-only
 * opens (never trapped), each timed as a whole. Prints microseconds per
 * call: "write-open US\nread-open US\n".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	double t;

	if (n <= 0) {
		fprintf(stderr, "usage: opens [N]\n");
		return 2;
	}
	t = now_us();
	for (long i = 0; i < n; i++) {
		int fd = open("opens.tmp", O_WRONLY | O_CREAT, 0644);

		if (fd < 0) {
			perror("open");
			return 1;
		}
		close(fd);
	}
	printf("write-open %.2f\n", (now_us() - t) / (double)n);
	t = now_us();
	for (long i = 0; i < n; i++) {
		int fd = open("opens.tmp", O_RDONLY);

		if (fd < 0) {
			perror("open");
			return 1;
		}
		close(fd);
	}
	printf("read-open %.2f\n", (now_us() - t) / (double)n);
	unlink("opens.tmp");
	return 0;
}
