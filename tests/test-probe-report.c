/* SPDX-License-Identifier: MIT */
/*
 * probe/report.c's summary for a slide: every probe of the battery has a
 * surface, and `ward probe --summary` counts each surface's probes by how
 * they ended, saying when one escaped, and ends with the total line;
 * while it works its progress goes to stderr.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"
#include "probe/defs.h"
#include "probe/judge.h"
#include "probe/report.h"
#include "probe/state.h"

static void
test_surfaces(void **state)
{
	static const struct {
		const char *name, *surface;
	} want[] = {
		{ "write-symlink", "files" }, { "path-race", "files" },
		{ "home-secret", "secrets" }, { "metadata", "network" },
		{ "udp", "network" }, { "ptrace", "kernel" },
		{ "int80", "kernel" }, { "fork-bomb", "limits" },
		{ "connect", "network" }, { "connectx", "kernel" },
	};
	unsigned seen[5] = { 0 };
	static const char *const order[] = {
		"files", "secrets", "network", "kernel", "limits",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_string_equal(probe_surface(want[i].name),
		    want[i].surface);
	for (size_t i = 0; i < probe_n_defs; i++) {
		const char *s = probe_surface(probe_defs[i].name);

		for (size_t k = 0; k < 5; k++)
			seen[k] += strcmp(s, order[k]) == 0;
	}
	/* The battery meets every surface. */
	for (size_t k = 0; k < 5; k++)
		assert_true(seen[k] > 0);
}

static char *
summary_of(struct probe *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	FILE *old = stdout;

	assert_non_null(f);
	stdout = f;
	probe_print_summary(p, NULL);
	stdout = old;
	fclose(f);
	return buf;
}

static void
test_summary(void **state)
{
	struct probe p = { 0 };
	struct probe_result r[3] = { { 0 } };
	cleanup_free char *text = NULL;
	const struct probe_def *w = NULL, *m = NULL, *u = NULL;

	(void)state;
	for (size_t i = 0; i < probe_n_defs; i++) {
		if (strcmp(probe_defs[i].name, "write-path") == 0)
			w = &probe_defs[i];
		if (strcmp(probe_defs[i].name, "metadata") == 0)
			m = &probe_defs[i];
		if (strcmp(probe_defs[i].name, "udp") == 0)
			u = &probe_defs[i];
	}
	assert_non_null(w);
	assert_non_null(m);
	assert_non_null(u);
	r[0] = (struct probe_result){ .def = w, .verdict = PV_BLOCKED };
	r[1] = (struct probe_result){ .def = m, .verdict = PV_BLOCKED };
	r[2] = (struct probe_result){ .def = u, .verdict = PV_ESCAPED };
	p.results = r;
	p.n_results = 3;
	text = summary_of(&p);
	assert_non_null(strstr(text, "files     1 tried,  1 stopped and "
	    "recorded  ("));
	assert_non_null(strstr(text, "network   2 tried,  1 stopped and "
	    "recorded, SOME ESCAPED"));
	assert_non_null(strstr(text, "limits    0 tried"));
}

static char *
total_of(struct probe *p, size_t of, int64_t ms)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	FILE *old = stdout;

	assert_non_null(f);
	stdout = f;
	probe_print_total(p, of, ms);
	stdout = old;
	fclose(f);
	return buf;
}

/* --summary's last line: how many of the battery were contained, what
 * was not, and how long it took. */
static void
test_total(void **state)
{
	struct probe p = { 0 };
	struct probe_result r[4] = { { 0 } };
	char *text;

	(void)state;
	for (size_t i = 0; i < 4; i++)
		r[i] = (struct probe_result){ .def = &probe_defs[i],
		    .verdict = i == 1 ? PV_ALLOWED : PV_BLOCKED };
	p.results = r;
	p.n_results = 4;
	text = total_of(&p, 4, 12640);
	assert_string_equal(text, "4 of 4 probes contained; took 12.6 s\n");
	free(text);
	r[2].verdict = PV_ESCAPED;
	r[3].verdict = PV_UNRECORDED;
	p.n_results = 4;
	text = total_of(&p, 31, 950);
	assert_string_equal(text, "2 of 31 probes contained, 1 ESCAPED, "
	    "1 not in the record, 27 not run; took 0.9 s\n");
	free(text);
	r[3].verdict = PV_ERROR;
	text = total_of(&p, 4, 0);
	assert_string_equal(text, "2 of 4 probes contained, 1 ESCAPED, "
	    "1 not judged; took 0.0 s\n");
	free(text);
}

/* The progress on stderr: a counter rewritten in place on a terminal,
 * a plain line per judged probe otherwise, nothing else. */
static void
test_progress(void **state)
{
	struct probe_result r = { .def = &probe_defs[0],
	    .verdict = PV_BLOCKED };
	cleanup_free char *want = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	probe_progress(f, false, 0, 31, &probe_defs[0], NULL, 10);
	probe_progress(f, false, 0, 31, &probe_defs[0], &r, 420);
	probe_progress_end(f, false);
	fclose(f);
	want = xasprintf("ward probe: 1 of 31 %s: blocked (0.4 s)\n",
	    probe_defs[0].name);
	assert_string_equal(buf, want);
	free(buf);
	free(want);

	buf = NULL;
	f = open_memstream(&buf, &len);
	probe_progress(f, true, 6, 31, &probe_defs[0], NULL, 3100);
	probe_progress(f, true, 6, 31, &probe_defs[0], &r, 3500);
	probe_progress_end(f, true);
	fclose(f);
	want = xasprintf("\r\033[Kward probe: 7 of 31, %s ... 3.1 s"
	    "\r\033[K", probe_defs[0].name);
	assert_string_equal(buf, want);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_surfaces),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_total),
		cmocka_unit_test(test_progress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
