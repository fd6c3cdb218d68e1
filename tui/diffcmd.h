#pragma once
/*
 * Reviewing a run's changes: ward diff, apply, discard and undo. Each
 * reads the run folder (the run's user is ours) and, for apply, discard
 * and undo, records each file in the record's changes table. Each returns
 * the exit status: 0 ok, 1 a failure or a conflict, 2 usage.
 */
int	diffcmd_diff(int argc, char **argv);
int	diffcmd_apply(int argc, char **argv);
int	diffcmd_discard(int argc, char **argv);
int	diffcmd_undo(int argc, char **argv);
