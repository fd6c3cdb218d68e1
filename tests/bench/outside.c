/* SPDX-License-Identifier: MIT */
/*
 * outside -- the approvals workload of the benchmark (issue 6, workload 4).
 *
 *   outside DIR N [WARMUP]
 *
 * Creates WARMUP (default 10) and then N files in DIR, a host folder
 * outside the sandbox's writable set, so that under ward each create is
 * trapped and becomes a request. Times each open(O_CREAT) from the call to
 * its return (CLOCK_MONOTONIC) and prints the N measured latencies in
 * microseconds, one a line, on stdout. The warm-up creates are not
 * printed: the first of them waits for the approver to connect.
 * Exits 1 if any create fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int
main(int argc, char **argv)
{
	long n, warm;
	double *lat;
	char path[4096];

	if (argc < 3) {
		fprintf(stderr, "usage: outside DIR N [WARMUP]\n");
		return 2;
	}
	n = strtol(argv[2], NULL, 10);
	warm = argc > 3 ? strtol(argv[3], NULL, 10) : 10;
	if (n <= 0 || warm < 0 || (lat = calloc((size_t)n, sizeof *lat)) == NULL)
		return 2;
	for (long i = 0; i < warm + n; i++) {
		double t0, t1;
		int fd;

		snprintf(path, sizeof path, "%s/%s%05ld", argv[1],
		    i < warm ? "w" : "a", i);
		t0 = now_us();
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		t1 = now_us();
		if (fd < 0) {
			fprintf(stderr, "outside: create %s: %s\n", path,
			    strerror(errno));
			return 1;
		}
		close(fd);
		if (i >= warm)
			lat[i - warm] = t1 - t0;
	}
	for (long i = 0; i < n; i++)
		printf("%.1f\n", lat[i]);
	return 0;
}
