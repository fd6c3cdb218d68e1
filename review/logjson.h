/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A row of the record as the JSON object `ward log --json` and `ward
 * events --json` print (their fields are documented in ward(1)): seq, run,
 * [time,] time_ms, pid, kind, syscall, subject, subject2, detail, verdict,
 * how, rule, decided_by, wait_ms, request_id, state. A string that is not
 * UTF-8 is given escaped (config/escape.h), as the lines print it.
 */
#include <jansson.h>

#include "approvals/audit.h"

/* time: the RFC 3339 form to put after run, or NULL for none. */
json_t	*logjson_event(const struct audit_event_row *, const char *time);
/* A JSON string for s (null for NULL), escaped when it is not UTF-8. */
json_t	*logjson_str(const char *s);
