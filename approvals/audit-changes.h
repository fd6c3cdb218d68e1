/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The one exception to "only the supervisor writes the record" (DESIGN 8,
 * approvals/audit-write.h): `ward apply` and `ward undo` write the
 * changes table (described in approvals/audit.h, which reads it), and
 * `ward gc` removes a run's rows. Included only by the files that apply,
 * undo and collect (tests/layers.sh).
 */
#include <stdint.h>

#include "approvals/audit.h"

/* Written at once; *seq (may be NULL) is the row's, for
 * audit_change_done. An effect on the host is recorded first as an
 * intent ("applying", "undoing"), then done with its result
 * (write-ahead, DESIGN 8). */
int	audit_change(struct audit *, const struct audit_change *, int64_t *seq,
	    char **cause);
int	audit_change_done(struct audit *, int64_t seq, const char *action,
	    const char *after_hash, char **cause);

/* A run's rows removed (its runs, events, output and changes rows, in
 * one transaction; *freed adds what went; see audit_each_usage). */
int	audit_forget_run(struct audit *, const char *run,
	    struct audit_freed *freed, char **cause);
