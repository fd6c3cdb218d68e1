/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What ward diff, apply, discard, undo and the console's diff pane share
 * (tui/diffcmd*.c; the commands' own header is tui/diffcmd.h): the run
 * and files a verb works on (diffcmd.c), the record of what it did, and
 * the one-file apply and discard the pane reuses (diffcmd-apply.c).
 */
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "review/changes-apply.h"
#include "config/policy.h"

struct audit;

enum {
	OPT_HELP = 'h',
	OPT_STAT = 's',
	OPT_JSON = 'j',
	OPT_COMMIT = 'c',
	OPT_REVIEWED = 'r',
	OPT_COLOR = 256,
};

/* One verb's run and files, from its arguments (diffcmd_target). */
struct diffcmd_ctx {
	const char	*verb;
	char		*id;		/* the run */
	char		*run_dir;
	char		*command;	/* from the record; may be NULL */
	int64_t		 ended_ms;	/* 0: running, or not in the record */
	bool		 in_record;
	char	       **paths;		/* PATH arguments */
	size_t		 npaths;
	bool		*used;		/* per PATH: something matched */
	struct changes_run run;
	bool		 have_run;
	struct policy	 policy;	/* the run's copy (RUN/policy.ini) */
	json_t		*reviewed;	/* apply --reviewed: ward diff --json */
};

/* The record a verb writes its files to (the changes table). */
struct diffcmd_rec {
	struct audit	*a;
	char		*who;
	const char	*run;
	bool		 quiet;		/* the console: nothing on stderr */
	char		*err;		/* then the first warning, escaped */
};

/* What one file's apply or discard came to. */
enum diffcmd_outcome {
	DIFFCMD_DONE,
	DIFFCMD_CONFLICT,	/* left alone */
	DIFFCMD_FAILED,
	DIFFCMD_UNRECORDED,	/* the record refused: stop here */
};

/* One file an apply is about to do, in the order it does them. */
struct diffcmd_todo {
	const struct changes_project *p;
	const struct change *ch;
	bool		 named;		/* named by path: taken even if held */
};

/* The room a plan needs on one file system. */
struct diffcmd_room {
	dev_t		 dev;
	char		*where;		/* a folder on it, for statvfs */
	int64_t		 need;
};

/* diffcmd.c: the run and the files. */
void	 diffcmd_done(struct diffcmd_ctx *);
int	 diffcmd_policy(struct policy *, const char *run_dir, char **cause);
void	 diffcmd_policy_hooks(struct policy *, const struct changes_run *);
int	 diffcmd_target(struct diffcmd_ctx *, int argc, char **argv,
	    bool need_run, bool need_projects);
bool	 diffcmd_pick_one(const struct changes_project *, const char *arg,
	    const char *rel);
bool	 diffcmd_pick(struct diffcmd_ctx *, const struct changes_project *,
	    const struct change *);
bool	 diffcmd_named(const struct diffcmd_ctx *,
	    const struct changes_project *, const struct change *);
const char *diffcmd_protected(const struct policy *,
	    const struct changes_project *, const struct change *);
bool	 diffcmd_held(const struct policy *, const struct changes_project *,
	    const struct change *, const struct changes_cost *, char **why);
int	 diffcmd_check_used(const struct diffcmd_ctx *);

/* diffcmd.c: the record of what was done. */
char	*diffcmd_who(void);
void	 diffcmd_warn(struct diffcmd_rec *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	 diffcmd_rec_open(struct diffcmd_rec *, const char *verb,
	    const char *run);
void	 diffcmd_rec_close(struct diffcmd_rec *);
int	 diffcmd_rec(struct diffcmd_rec *, const char *verb, const char *path,
	    const char *from, const char *kind, const char *action,
	    const struct changes_done *, int64_t size, unsigned int om,
	    unsigned int nm, int64_t *seq);
int	 diffcmd_rec_done(struct diffcmd_rec *, const char *verb, int64_t seq,
	    const char *action, const char *after);

/* diffcmd-apply.c: one file's apply or discard, and an apply's plan. */
int	 diffcmd_pass(const struct change *);
enum diffcmd_outcome diffcmd_apply_one(struct diffcmd_rec *,
	    const struct changes_project *, const struct change *,
	    const char *before, const char *expect);
int	 diffcmd_plan(struct diffcmd_rec *, const struct policy *,
	    const char *run_dir, struct diffcmd_todo *v, size_t *n,
	    size_t *held);
enum diffcmd_outcome diffcmd_discard_one(struct diffcmd_rec *,
	    const struct changes_project *, const struct change *);
