/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Reviewing a run's changes: ward diff, apply, discard and undo. Each
 * reads the run folder (the run's user is ours) and, for apply, discard
 * and undo, records each file in the record's changes table. Each returns
 * the exit status: 0 ok, 1 a failure or a conflict, 2 usage.
 */
#include <getopt.h>

int	diffcmd_diff(int argc, char **argv);
int	diffcmd_apply(int argc, char **argv);
int	diffcmd_discard(int argc, char **argv);
int	diffcmd_undo(int argc, char **argv);

struct model;
/*
 * Fills the console's diff pane from run's folder: the changed files of
 * every project, and the patch of the selected one (m->diff.sel). The
 * console calls it when the pane opens, on a move, and once a second
 * while it is open (the agent may be writing).
 */
void	diffcmd_pane_load(struct model *m, const char *run);
/*
 * Does what the diff pane's confirmation listed (m->diff.confirm on
 * m->diff.confirm_targets, after an armed y): each file as ward apply or
 * ward discard does it, recorded, nothing printed; the status line says
 * what came of it (applied N of M, conflicts, failures), and the
 * confirmation is over. The console reloads the pane after.
 */
void	diffcmd_pane_act(struct model *m, const char *run);

/* The getopt_long tables, for `ward completion` (tui/completion.h). */
extern const struct option diffcmd_diff_opts[];
extern const struct option diffcmd_apply_opts[];
extern const struct option diffcmd_discard_opts[];
extern const struct option diffcmd_undo_opts[];
