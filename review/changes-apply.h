/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A run's staged changes put into the person's host folders, dropped, or
 * taken back (ward apply, discard, undo and the console's diff pane):
 * the half of approvals/changes.h that writes to the person's project,
 * linked into ward-tui alone. Each step is 0 or -errno with *cause.
 */
#include <stdbool.h>
#include <stdint.h>

#include "approvals/changes.h"
/*
 * Has the host side changed since the run started? Compared with
 * manifest.tsv when the project has one, else: the host file (or for an
 * added file, any file at its path) modified or changed after
 * started_ms. *why (malloc'd) says what was seen.
 */
bool	changes_conflict(const struct changes_project *, const struct change *,
	    char **why);

/*
 * What applying c takes before it is done (ward apply checks the room
 * first, issue 29): write, the staged file's allocated bytes (a sparse
 * file's data only: the copy keeps its holes) on the host folder's file
 * system; before, the host files it replaces, copied as before-images
 * into the run folder's; size, the staged file's apparent size (0 when
 * deleted), which [review] max_apply caps.
 */
struct changes_cost {
	int64_t		 write;
	int64_t		 before;
	int64_t		 size;
};
void	changes_cost(const struct changes_project *, const struct change *,
	    struct changes_cost *);

/* What one apply, discard or undo did, for the record. */
struct changes_done {
	char		 before[65];	/* the host's hash before ("-": none) */
	char		 after[65];	/* after */
};

/*
 * Puts one change into the host folder: a before-image of each host file
 * it replaces or removes into before_dir/<abs path> (once per path), then
 * each file atomically (a temporary file in the same folder, renamed over
 * it, permission bits kept but never setuid or setgid, holes kept: only
 * SEEK_DATA's ranges are copied), then the change is dropped from upper/. No conflict check here (changes_conflict first).
 */
int	changes_apply(const struct changes_project *, const struct change *,
	    const char *before_dir, struct changes_done *done, char **cause);
/*
 * SHA-256 in hex of what applying c would put on the host: the staged
 * file's bytes or symlink's target, "-" for a deletion. What a review
 * (ward diff --json, the diff pane) shows beside each file.
 */
int	changes_staged_hash(const struct changes_project *,
	    const struct change *, char out[65]);
/*
 * changes_apply, but only the content reviewed: expect (from
 * changes_staged_hash at review time; NULL: no check) must be the hash
 * of the bytes actually written, checked on the copy in the host folder
 * just before it is renamed into place. -ESTALE otherwise, nothing on the
 * host changed but the before-image.
 */
int	changes_apply_reviewed(const struct changes_project *,
	    const struct change *, const char *before_dir, const char *expect,
	    struct changes_done *done, char **cause);
/* Drops one change from upper/: the host file shows again. */
int	changes_discard(const struct changes_project *, const struct change *,
	    char **cause);
/*
 * Restores host_path from before_dir/<host_path> (or removes it when
 * there is no before-image and remove_if_none), atomically, with mode's
 * permission bits (0: the before-image's own). Refuses (-ESTALE, *cause
 * says so) unless the host file's hash is still expect (NULL: no check).
 */
int	changes_undo(const char *before_dir, const char *host_path,
	    const char *expect, mode_t mode, bool remove_if_none,
	    struct changes_done *done, char **cause);
/* Removes the folders applies made (listed in <before_dir>.dirs) that
 * are empty again. */
void	changes_undo_dirs(const char *before_dir);
