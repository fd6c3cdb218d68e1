/* SPDX-License-Identifier: MIT */
/*
 * tests/bench/console.c -- the console's redraw with every run in it
 * (issue 15): RUNS runs of PENDING requests each (100 x 100 by default),
 * fed to the models as the supervisors' messages would be, no sandboxes.
 * Each frame is what console.c does after a round: the queue built again
 * (fleet_refresh), the screen drawn (view_fleet_draw at 200x50), and each
 * run told what was drawn of it (fleet_note_view); between frames the
 * selection moves down the queue (a `j`), so frames are drawn from the
 * top of the queue to deep inside it, and one new request arrives every
 * tenth frame. Prints "median_s p99_s max_s rss_kib frames" on one line:
 * figures, never a verdict.
 *
 * Usage: bench-console [RUNS [PENDING [FRAMES]]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <jansson.h>

#include "config/util.h"
#include "tui/fleet.h"
#include "tui/grid.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/view.h"

#define WALL0	1700000000000LL

static double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
bench_feed(struct model *m, json_t *msg)
{
	if (msg == NULL || model_apply_message(m, msg) < 0) {
		fprintf(stderr, "bench-console: a message did not apply\n");
		exit(2);
	}
	json_decref(msg);
}

static void
bench_request(struct model *m, const char *run, uint64_t id, int64_t at)
{
	char path[128];

	snprintf(path, sizeof path, "/home/u/project/src/module-%" PRIu64
	    "/file.c", id);
	bench_feed(m, json_pack("{s:s,s:{s:I,s:s,s:i,s:s,s:s,s:s,s:s,s:s,"
	    "s:s,s:s,s:I,s:I}}", "type", "request", "request",
	    "id", (json_int_t)id, "run", run, "pid", 1000 + (int)id,
	    "kind", "write", "syscall", "openat", "subject", path,
	    "detail", "flags=O_WRONLY|O_CREAT", "cmdline",
	    "node /usr/lib/node_modules/agent/cli.js --yes", "cwd",
	    "/home/u/project", "why", "no rule matches; [files] write = ask",
	    "created_ms", (json_int_t)at, "deadline_ms",
	    (json_int_t)(at + 600000)));
}

static int
bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 100;
	int pending = argc > 2 ? atoi(argv[2]) : 100;
	int frames = argc > 3 ? atoi(argv[3]) : 300;
	struct fleet *f = fleet_new();
	struct grid *g = grid_new(200, 50);
	double *t = xcalloc((size_t)frames, sizeof *t);
	struct rusage ru;
	uint64_t next_id = (uint64_t)pending + 1;

	if (runs < 1 || pending < 0 || frames < 1) {
		fprintf(stderr, "usage: bench-console [RUNS [PENDING "
		    "[FRAMES]]]\n");
		return 2;
	}
	for (int r = 0; r < runs; r++) {
		char id[16], name[16];
		size_t i;

		snprintf(id, sizeof id, "%08x", 0x10000000u + (unsigned)r);
		snprintf(name, sizeof name, "job%d", r + 1);
		i = fleet_add(f, id);
		model_set_now(f->runs[i].m, 1000, WALL0);
		bench_feed(f->runs[i].m, json_pack("{s:s,s:i,s:{s:s,s:s,s:s,"
		    "s:s,s:i,s:I,s:s,s:i},s:[]}", "type", "welcome", "version",
		    1, "run", "id", id, "name", name, "command", "agent --yes",
		    "state", "running", "pid", 100 + r, "started_ms",
		    (json_int_t)(WALL0 - 3600000), "limits",
		    "timeout=3600s memory=4G pids=512", "ask_timeout", 600,
		    "pending"));
		for (int k = 0; k < pending; k++)
			bench_request(f->runs[i].m, id, (uint64_t)k + 1,
			    WALL0 - 500000 + (int64_t)k * 4000 + r * 37);
		for (int k = 0; k < 50; k++) {
			char line[96];

			snprintf(line, sizeof line, "step %d of the agent's "
			    "work, some output\n", k);
			output_feed(&f->runs[i].m->out, STREAM_PTY, line,
			    strlen(line));
		}
	}
	fleet_set_now(f, 1000, WALL0);
	fleet_refresh(f);

	for (int n = 0; n < frames; n++) {
		struct model_effect eff;
		double t0;
		size_t run;
		bool moved;

		fleet_apply_key(f, 'j', now_mono_ms(), false, &eff, &run, &moved);
		if (n % 10 == 9) {
			struct fleet_run *fr = &f->runs[(size_t)n % f->n_runs];

			bench_request(fr->m, fr->key, next_id++, WALL0 + n);
		}
		t0 = bench_now();
		fleet_set_now(f, 1000 + n * 16, WALL0 + n * 16);
		fleet_refresh(f);
		view_fleet_draw(f, g, f->reps);
		fleet_note_view(f);
		t[n] = bench_now() - t0;
	}
	qsort(t, (size_t)frames, sizeof *t, bench_cmp);
	getrusage(RUSAGE_SELF, &ru);
	printf("%.6f %.6f %.6f %ld %d\n", t[frames / 2],
	    t[(size_t)((double)frames * 0.99)], t[frames - 1], ru.ru_maxrss,
	    frames);
	free(t);
	grid_free(g);
	fleet_free(f);
	return 0;
}
