/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The report card: one line per probe as it is judged, the counts, and
 * the whole card as JSON (--json). The strings the sandbox controls were
 * escaped when the results were built.
 */
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
/* The surface a probe of that name tries. */
const char *probe_surface(const char *name);
