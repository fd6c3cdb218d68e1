/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A finished run, opened read-only from the record (DESIGN §9: "a finished
 * run opens read-only from the record"): `ward console RUN` on a run that
 * has ended feeds the same model the socket would, from the database
 * instead (approvals/audit.h): the run's state as a "state" message, every
 * event as an "event" message, the recorded output into the output pane,
 * and its summary (review/summary.h). The diff pane reads the run
 * folder as for a live run (tui/diffcmd.h). A run of `ward demo` (its
 * policy is the shipped share/demo/demo.ini, by real path) gets its
 * scorecard too (review/scorecard.h, model_set_scorecard), which the
 * card shows in the summary's place.
 */
struct audit;
struct model;

/*
 * Fills m with run from the open record a (want: an id, or a name: its
 * most recent run) and makes it read-only. 0; -ENOENT when the record has
 * no such run; -EBUSY when it has not ended; else -errno with *cause.
 */
int	finished_fill(struct model *m, struct audit *a, const char *want,
	    char **cause);

/* finished_fill() from the user's record (runs whose supervisor is gone
 * are marked lost first). */
int	finished_load(struct model *m, const char *want, char **cause);

/* The end-of-run summary of m's run, read from the user's record and its
 * run folder, into m (model_set_summary; and model_set_scorecard for a
 * demo's run, told by m->run.policy). 0 or -errno with *cause. */
int	finished_summary(struct model *m, const char *run, char **cause);

/* What a run has staged so far, counted from its folder (a run that goes
 * on while its console is left): summary_staged_text's sentence, or NULL
 * when nothing is staged. */
char	*finished_staged_text(const char *run);
