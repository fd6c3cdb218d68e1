/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The report card: one line per probe as it is judged, the counts, and
 * the whole card as JSON (--json). The strings the sandbox controls were
 * escaped when the results were built.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "probe/judge.h"
#include "probe/setup.h"

void	probe_print_line(const struct probe_result *res);
/* The results so far, by verdict: ok counts blocked and allowed. */
void	probe_counts(const struct probe *p, unsigned *ok, unsigned *escaped,
	    unsigned *unrecorded, unsigned *errors);
/* harness_error: why the battery stopped short, or NULL. */
void	probe_print_json(const struct probe *p, const char *harness_error);
/* ward probe --summary: one line per surface (files, secrets, network,
 * kernel, limits): tried, stopped and recorded, escaped. */
void	probe_print_summary(const struct probe *, const char *harness_error);
/*
 * --summary's last line: "N of M probes contained; took 12.6 s", M the
 * battery's size (probe_n_defs), N those blocked or allowed and logged;
 * what escaped, went unrecorded, was not judged or not run is named
 * between.
 */
void	probe_print_total(const struct probe *, size_t of, int64_t took_ms);
/*
 * --summary's progress on f (stderr), so that the card on stdout stays
 * the card: before probe i (0-based) of n with res NULL, after it with
 * its result. On a terminal (tty) one counter line rewritten in place
 * ("ward probe: 7 of 31, write-symlink ... 3.1 s"); otherwise a plain line
 * per probe once judged. probe_progress_end clears a terminal's counter.
 */
void	probe_progress(FILE *f, bool tty, size_t i, size_t n,
	    const struct probe_def *def, const struct probe_result *res,
	    int64_t took_ms);
void	probe_progress_end(FILE *f, bool tty);
/* The surface a probe of that name tries. */
const char *probe_surface(const char *name);
