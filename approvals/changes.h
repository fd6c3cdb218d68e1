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
 *
 * This half reads (the supervisor counts a headless run's staged files
 * with it, approvals/staged.c); putting changes into the host, taking
 * them back, is review/changes-apply.h's, linked into ward-tui alone.
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
 * What review/changes-apply.c, the other half, takes from this one: the
 * whiteout prefix of copy mode, a line trimmed, a project's list emptied,
 * a host path's check (no link, no "..", under root), whether a folder is
 * opaque, and one folder of upper/ listed into p->v.
 */
#define CHANGES_WH	".wh."
char	*changes_trim(char *s);
void	 changes_clear(struct changes_project *);
bool	 changes_host_ok(const char *root, const char *rel);
bool	 changes_opaque(const struct changes_project *, const char *path);
int	 changes_scan_dir(struct changes_project *, const char *rel);
