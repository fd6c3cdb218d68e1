/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * ward gc: removes old runs — their folders under state/runs and their
 * rows in the record (runs, events, output) — by age or to fit a total
 * size, never a live run's, and says what it freed.
 *
 * gc_collect reads what there is into plain rows, gc_select marks the
 * ones to remove, gc_apply removes them: tests drive each on a temporary
 * record and folder, with the live runs given as a list.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approvals/audit.h"

struct gc_run {
	char		*id;
	int64_t		 started_ms;	/* the record's, else the folder's mtime */
	int64_t		 ended_ms;	/* 0: no end in the record */
	bool		 in_record;
	bool		 has_folder;
	bool		 live;		/* its control socket answers */
	int64_t		 events;
	int64_t		 outputs;
	int64_t		 record_bytes;
	int64_t		 folder_bytes;	/* disk use (st_blocks) */
	bool		 drop;		/* set by gc_select */
};

/*
 * A run with no end in the record (or a folder with no row) whose socket
 * does not answer is taken only when it started at least this long ago:
 * it may be starting (the folder is made before the row and the socket),
 * or a supervisor that crashed.
 */
#define GC_GRACE_MS	(24 * 3600 * 1000LL)

struct gc_limits {
	int64_t		 now_ms;
	int64_t		 older_than_ms;	/* started before now - this; -1: none */
	int64_t		 max_bytes;	/* oldest first until the rest fits; -1: none */
};

struct gc_set {
	struct gc_run	*run;		/* oldest first */
	size_t		 n;
};

/* The runs of the record and the folders of runs_dir, merged; live lists
 * the ids whose socket answers. 0 or -errno with *cause. */
int	gc_collect(struct audit *, const char *runs_dir, char *const *live,
	    size_t n_live, struct gc_set *, char **cause);
void	gc_select(struct gc_set *, const struct gc_limits *);
/*
 * Removes what gc_select marked (dry: only counts it): the folder first,
 * never following a symlink nor leaving its filesystem, then the rows; a
 * run whose folder cannot be removed keeps its rows, so that a later gc
 * finds it again. *freed adds the rows, folder_bytes adds the folders'
 * bytes. 0, or the first -errno with *cause (the others are still done).
 */
int	gc_apply(struct audit *, const char *runs_dir, struct gc_set *,
	    bool dry, struct audit_freed *freed, int64_t *folder_bytes,
	    char **cause);
void	gc_set_done(struct gc_set *);

/* "30d", "12h", "90m", "45s", "3600" (seconds) in ms; 0 or -EINVAL. */
int	gc_parse_age(const char *, int64_t *ret);

/* ward gc [--older-than AGE] [--max-size SIZE] [--dry-run] */
int	gc_main(int argc, char **argv);

/* The getopt_long tables, for `ward completion` (tui/completion.h). */
extern const struct option gc_opts[];
