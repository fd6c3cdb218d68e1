/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Projects (issue 14): a host folder the sandbox shows at its own path,
 * writable, every write staged in the run. Project N of a run lives in
 * $RUN_DIR/projects/N/: upper/ (what changed), work/ (overlayfs' own)
 * and project.ini (host, mode, started_ms); $RUN_DIR/projects.tsv lists
 * them, one "N<TAB>host<TAB>mode" line each.
 *
 * mode overlay: upper/ is an overlay's upper layer, mounted in the
 * sandbox's user namespace over the host folder (spawn.c); a deletion
 * is a whiteout, a char device 0:0, and a folder made anew over a host
 * one carries the xattr user.overlay.opaque=y (userxattr).
 * mode copy: where the kernel or the host's filesystem refuses that,
 * upper/ starts as a copy of the host folder (a reflink where the
 * filesystem can) and is bound there; when the run ends it is reduced
 * to the same shape: unchanged files removed, a deletion an empty file
 * ".wh.NAME" beside where NAME was. Until then (the run going on, or a
 * supervisor killed before it could settle) upper/ is the whole copy.
 * Once upper/ is final (either mode), project.ini ends with a line
 * "settled_ms = ...".
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum project_mode { PROJECT_OVERLAY, PROJECT_COPY };

struct project {
	char	*host;		/* real path on the host = the path inside */
	char	*dir;		/* $RUN_DIR/projects/N */
	char	*upper;
	char	*work;
	enum project_mode mode;
};

struct project_opts {
	uid_t	 owner_uid;	/* who owns upper/'s root (the program), */
	gid_t	 owner_gid;	/* or (uid_t)-1 to leave it */
	bool	 force_copy;	/* WARD_PROJECT_MODE=copy (a test hook) */
	int64_t	 started_ms;
	/* Host paths never copied (the credential stores, ward's state):
	 * hidden inside all the same. */
	char	*const *skip;
	size_t	 n_skip;
};

/* Project n of the run in run_dir, of host folder real (a real path):
 * its folder made, its mode chosen, copied if copy, project.ini
 * written. *note: one line to say at start-up (why it is a copy), or
 * NULL. 0, or -errno with *cause. */
int	project_stage(struct project *, const char *run_dir, size_t n,
	    const char *real, const struct project_opts *, char **note,
	    char **cause);
/* $RUN_DIR/projects.tsv. 0, or -errno with *cause. */
int	project_write_list(const char *run_dir, const struct project *,
	    size_t n, char **cause);
/* When the run has ended: a copy's upper/ reduced to what changed (see
 * above); then settled_ms in project.ini. 0, or -errno with *cause. */
int	project_settle(const struct project *, const struct project_opts *,
	    char **cause);
/* "overlay" or "copy". */
const char *project_mode_name(enum project_mode);
void	project_done(struct project *);
