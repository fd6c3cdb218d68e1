/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The end-of-run summary (DESIGN §9: "every run ends with a summary
 * card"), computed from the record alone by summary_from_record(): what
 * was asked of a person and how it ended, which files changed, and what
 * was refused without asking, by surface. The console shows it when a
 * run ends and on a finished run; `ward log --summary RUN` prints it.
 *
 * Counting, row by row of the run's events (approvals/audit.h):
 *  - a request put to a person is a row with a request id; its outcome is
 *    its verdict: allow or stage (allowed), deny or kill by how "timeout" (timed
 *    out), any other deny or kill (denied: a person, or the supervisor at
 *    the run's end), still "ask" (unanswered: its supervisor died first);
 *  - a row without a request id that denies or kills is a blocked attempt,
 *    counted by its kind's surface (approvals/kind.c: write: files;
 *    connect, dns, http, secret: network; package: packages; exec: exec;
 *    a syscall the floor refuses: syscalls);
 *  - an allowed write by the rule "writable folder DIR" is also a
 *    change in a writable folder, counted call by call;
 *  - an allowed write is a file changed on the host (distinct paths, the
 *    second path of a rename too); the changes table adds the files that
 *    `ward apply` applied or committed (distinct from those);
 *  - the files staged in the run's projects are not in the record but in
 *    its folder: summary_count_staged() adds them (-1 until then).
 */
#include <stdint.h>

#include <jansson.h>

#include "approvals/kind.h"	/* enum summary_surface */

struct audit;

struct summary {
	int64_t		 asked;
	int64_t		 allowed;
	int64_t		 denied;
	int64_t		 timed_out;
	int64_t		 unanswered;
	int64_t		 written;	/* host files changed by allowed writes */
	int64_t		 writable;	/* changes in writable folders (each
					 * call, not each file) */
	int64_t		 applied;	/* files applied from the projects */
	int64_t		 staged;	/* files staged in projects; -1 unknown */
	/* Where they wait, for a person: "~/proj" (one folder), "2
	 * projects", "~/proj and outside it"; "" until counted. */
	char		 staged_in[160];
	int64_t		 blocked[SURFACE_COUNT];
	int64_t		 execs;		/* programs started */
	int64_t		 events;	/* rows read */
};

/* "files", "network", "packages", "exec", "syscalls". */
const char	*summary_surface_name(enum summary_surface);

/* Counts run's rows of the record into *s (zeroed first; staged -1).
 * 0 or -errno with *cause. */
int		 summary_from_record(struct audit *, const char *run,
		    struct summary *s, char **cause);

/* Adds the files staged in the projects of the run folder run_dir
 * (approvals/staged.h: staged_count, as the supervisor's last line of a
 * headless run counts them); a run without projects has 0. 0 or -errno
 * with *cause (s->staged stays -1). */
int		 summary_count_staged(const char *run_dir, struct summary *s,
		    char **cause);

/*
 * What waits for the person at a run's end (issue 30, point 1), one
 * sentence, malloc'd: "2 files staged in ~/proj: `ward diff ID` to read,
 * `ward apply ID` to keep"; NULL when nothing is staged or it is not
 * counted (approvals/staged.h: staged_text). The folder is escaped.
 */
char		*summary_staged_text(const struct summary *, const char *run);

/* Blocked attempts over every surface. */
int64_t		 summary_blocked_total(const struct summary *);
/* Changed files: written + applied + staged (staged only when known). */
int64_t		 summary_changed(const struct summary *);

/*
 * The summary as lines for a person (malloc'd strv, NULL-terminated):
 *   asked 3: allowed 1, denied 1, timed out 1
 *   changed files 2: 1 written on the host, 1 staged in projects
 *   blocked 4: files 2, network 1, packages 0, exec 0, syscalls 1
 *   started 12 programs
 */
char		**summary_lines(const struct summary *);
/* The same as one JSON object (asked, allowed, denied, timed_out,
 * unanswered, changed, written, applied, staged (null unknown),
 * blocked {files, network, ...}, blocked_total, execs). */
json_t		*summary_json(const struct summary *);
