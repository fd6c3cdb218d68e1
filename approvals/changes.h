/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A run's staged project changes, read from its run folder (the console
 * and `ward diff` run as the run's user, so they read it directly):
 *
 *   RUN/projects.tsv          N<TAB>/abs/host/path<TAB>overlay|copy
 *   RUN/projects/N/project.ini  host = ..., mode = ..., started_ms = ...
 *   RUN/projects/N/upper/     changed and new files; a deleted file is a
 *                             whiteout (a character device 0:0 in overlay
 *                             mode, a .wh.NAME file in copy mode); an
 *                             opaque folder has trusted.overlay.opaque or
 *                             user.overlay.opaque = y (or, in copy mode, a
 *                             .wh..wh..opq file)
 *   RUN/projects/N/manifest.tsv  optional: PATH<TAB>SHA256 of the host
 *                             files at the run's start (the conflict check
 *                             uses it when present)
 *   RUN/before/<abs path>     a host file as it was before ward changed it
 *   RUN/outside/upper/<abs path>  writes outside answered "stage": the
 *                             staged copies the program wrote
 *   RUN/outside/base/<abs path>   each one's host file at stage time
 *                             (none: there was no host file), which the
 *                             conflict check compares with
 *
 * The staged writes outside read as one more project (outside set,
 * index -1, host "", so that host "/" rel is the absolute host path and
 * rel is that path without its leading "/").
 *
 * Renames are found by pairing a deleted file with an added one: of the
 * same bytes (SHA-256), else at least 50% alike by libgit2's similarity
 * signature (git_hashsig, what git_diff_find_similar weighs; when
 * libgit2 loads); a file changed in place is never called a rename.
 * Libraries never print: every function is 0 or -errno, with *cause.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum change_kind {
	CHANGE_ADDED,
	CHANGE_MODIFIED,
	CHANGE_DELETED,
	CHANGE_RENAMED,
	CHANGE_MODE,		/* the same bytes, other permissions */
	CHANGE_SYMLINK,		/* a symlink's target, or file <-> symlink */
};

/* "added", "modified", ...; parse gives 0 or -EINVAL. */
const char *changes_kind_name(enum change_kind);
int	changes_kind_parse(const char *, enum change_kind *);

struct change {
	char		*path;		/* relative to the project root */
	char		*from;		/* CHANGE_RENAMED: the old path */
	enum change_kind kind;
	mode_t		 old_mode;	/* st_mode; 0 when there was none */
	mode_t		 new_mode;	/* 0 when deleted */
	int64_t		 size;		/* the new size (the old one if deleted) */
	bool		 binary;	/* either side, as libgit2 judges */
	int		 similarity;	/* CHANGE_RENAMED: 100 the same bytes,
					 * else libgit2's 50..99 */
};

struct changes_project {
	int		 index;		/* N of projects/N */
	char		*host;		/* the host folder, absolute */
	char		*dir;		/* RUN/projects/N */
	char		*upper;		/* RUN/projects/N/upper */
	bool		 copy;		/* copy mode (else overlay) */
	bool		 outside;	/* RUN/outside: staged writes outside */
	int64_t		 started_ms;
	struct change	*v;		/* sorted by path */
	size_t		 n;
};

struct changes_run {
	char		*dir;		/* the run folder */
	struct changes_project *p;
	size_t		 n;
};

/* Reads projects.tsv and each project's project.ini (no listing yet),
 * and adds RUN/outside last when it is there. -ENOENT when the run has
 * neither projects nor staged writes outside. */
int	changes_open(const char *run_dir, struct changes_run *ret, char **cause);
/* Lists every project's changes (again: the list is rebuilt). */
int	changes_scan(struct changes_run *, char **cause);
/* Lists one project's changes into p->v. */
int	changes_scan_project(struct changes_project *, char **cause);
void	changes_done(struct changes_run *);

/*
 * One side of a change, read whole: a file's bytes or a symlink's target.
 * new_side false reads the host (c->from for a rename). *buf NULL and
 * *len 0 when that side does not exist. At most max bytes: -EFBIG beyond.
 */
int	changes_read(const struct changes_project *, const struct change *,
	    bool new_side, size_t max, char **buf, size_t *len);
/* SHA-256 in hex (65 bytes with the NUL) of a file's bytes or a symlink's
 * target, "-" when there is nothing at path (AT_FDCWD-relative). */
int	changes_hash_path(const char *path, char out[65]);

/*
 * Has the host side changed since the run started? Compared with
 * manifest.tsv when the project has one, else: the host file (or for an
 * added file, any file at its path) modified or changed after
 * started_ms. *why (malloc'd) says what was seen.
 */
bool	changes_conflict(const struct changes_project *, const struct change *,
	    char **why);

/* What one apply, discard or undo did, for the record. */
struct changes_done {
	char		 before[65];	/* the host's hash before ("-": none) */
	char		 after[65];	/* after */
};

/*
 * Puts one change into the host folder: a before-image of each host file
 * it replaces or removes into before_dir/<abs path> (once per path), then
 * each file atomically (a temporary file in the same folder, renamed over
 * it, permission bits kept but never setuid or setgid), then the change is
 * dropped from upper/. No conflict check here (changes_conflict first).
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
