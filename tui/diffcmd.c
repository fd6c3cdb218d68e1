/* SPDX-License-Identifier: MIT */
#include "tui/diffcmd.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "approvals/audit-changes.h"
#include "approvals/audit.h"
#include "approvals/gitapi.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/protect.h"
#include "config/util.h"
#include "review/changes-apply.h"
#include "tui/diffcmd-int.h"
#include "tui/usage.h"

/*
 * What the four verbs share (tui/diffcmd-int.h): which run and which
 * files a verb works on, the run's own policy (held and protected
 * files), and the record of what a verb did (the changes table).
 */

/* ------------------------------------------------------------------ */
/* Which run, which files. */

struct diffcmd_find {
	const char	*want;
	char		*found;
	int64_t		 started;
	char		*command;
	int64_t		 ended_ms;
	bool		 in_record;
};

static int
diffcmd_on_run(const struct audit_run_row *row, void *arg)
{
	struct diffcmd_find *f = arg;
	const struct audit_run *run = &row->run;
	bool id = run->id != NULL && strcmp(run->id, f->want) == 0;
	bool name = run->name != NULL && strcmp(run->name, f->want) == 0 &&
	    (f->found == NULL || run->started_ms >= f->started);

	if (!id && !name)
		return 0;
	free(f->found);
	free(f->command);
	f->found = xstrdup(run->id);
	f->command = run->command != NULL ? xstrdup(run->command) : NULL;
	f->started = run->started_ms;
	f->ended_ms = row->ended_ms;
	f->in_record = true;
	return id ? 1 : 0;
}

/* What the record says of a run id or name (found NULL if nothing). */
static void
diffcmd_lookup(const char *want, struct diffcmd_find *f)
{
	cleanup_free char *db = paths_audit_db();
	struct audit *a = NULL;

	memset(f, 0, sizeof *f);
	f->want = want;
	if (audit_open_readonly(db, &a, NULL) < 0)
		return;
	audit_each_run(a, diffcmd_on_run, f, NULL);
	audit_close(a);
}

static bool
diffcmd_has_projects(const char *runs, const char *id)
{
	cleanup_free char *tsv = xasprintf("%s/%s/projects.tsv", runs, id);
	cleanup_free char *out = xasprintf("%s/%s/outside/upper", runs, id);

	return access(tsv, F_OK) == 0 || access(out, F_OK) == 0;
}

/* The newest run folder with projects (by projects.tsv's mtime). */
static char *
diffcmd_latest(const char *runs)
{
	DIR *d = opendir(runs);
	struct dirent *e;
	char *best = NULL;
	struct timespec bt = { 0 };

	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		cleanup_free char *tsv = NULL;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		tsv = xasprintf("%s/%s/projects.tsv", runs, e->d_name);
		if (stat(tsv, &st) < 0) {
			/* Or only a staged write outside (ward stage). */
			free(tsv);
			tsv = xasprintf("%s/%s/outside/upper", runs, e->d_name);
			if (stat(tsv, &st) < 0)
				continue;
		}
		if (best == NULL || st.st_mtim.tv_sec > bt.tv_sec ||
		    (st.st_mtim.tv_sec == bt.tv_sec &&
		    st.st_mtim.tv_nsec > bt.tv_nsec)) {
			free(best);
			best = xstrdup(e->d_name);
			bt = st.st_mtim;
		}
	}
	closedir(d);
	return best;
}

void
diffcmd_done(struct diffcmd_ctx *c)
{
	free(c->id);
	free(c->run_dir);
	free(c->command);
	free(c->used);
	json_decref(c->reviewed);
	if (c->have_run)
		changes_done(&c->run);
	policy_done(&c->policy);
}

/*
 * The run's own copy of its policy: [review] max_apply and the
 * protected paths are the run's. A run folder without one (an older
 * ward) gets the defaults; one that no longer parses stops the verb.
 */
int
diffcmd_policy(struct policy *p, const char *run_dir, char **cause)
{
	cleanup_free char *path = xasprintf("%s/policy.ini", run_dir);

	if (access(path, F_OK) < 0) {
		policy_init(p);
		return 0;
	}
	return policy_load(p, path, cause);
}

/*
 * Each project's core.hooksPath, as the host's .git/config says it now:
 * git runs the hooks there, so a staged file in it is held as one in
 * .git/hooks is (the run protected the same folder when it started).
 */
void
diffcmd_policy_hooks(struct policy *pol, const struct changes_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		char *pattern;

		if (run->p[i].outside ||
		    (pattern = protect_hooks_path(run->p[i].host,
		    policy_home())) == NULL)
			continue;
		strv_push(&pol->protect, &pol->n_protect, pattern);
	}
}

/*
 * argv[optind..]: [RUN] [PATH...]. The first is the run when it names a
 * run folder or a run in the record; else the most recent run with
 * projects (unless need_run). Returns 0 or an exit status.
 */
int
diffcmd_target(struct diffcmd_ctx *c, int argc, char **argv, bool need_run,
    bool need_projects)
{
	cleanup_free char *runs = paths_runs_dir();
	struct diffcmd_find f;
	int i = optind, r;
	char *cause = NULL;

	if (gitapi_load(&cause) < 0) {
		warn_msg("%s: %s", c->verb, cause);
		free(cause);
		return -1;
	}
	if (i < argc && strchr(argv[i], '/') == NULL) {
		diffcmd_lookup(argv[i], &f);
		if (f.found != NULL) {
			c->id = steal_ptr(&f.found);
			i++;
		} else if (diffcmd_has_projects(runs, argv[i]) ||
		    need_run) {
			c->id = xstrdup(argv[i++]);
		}
		free(f.command);
		free(f.found);
	}
	if (c->id == NULL && need_run)
		return usage_error(2, c->verb, "give the RUN");
	if (c->id == NULL && (c->id = diffcmd_latest(runs)) == NULL) {
		warn_msg("%s: no run with projects in %s", c->verb, runs);
		return 1;
	}
	diffcmd_lookup(c->id, &f);
	c->command = steal_ptr(&f.command);
	c->ended_ms = f.ended_ms;
	c->in_record = f.in_record;
	free(f.found);
	c->run_dir = xasprintf("%s/%s", runs, c->id);
	if (access(c->run_dir, F_OK) < 0) {
		cleanup_free char *e = escape_str(c->id);

		warn_msg("%s: no run %s (no folder in %s)", c->verb, e, runs);
		return 1;
	}
	c->paths = argv + i;
	c->npaths = (size_t)(argc - i);
	c->used = xcalloc(c->npaths + 1, sizeof *c->used);
	if (diffcmd_policy(&c->policy, c->run_dir, &cause) < 0) {
		cleanup_free char *e = escape_str(cause);

		warn_msg("%s: the run's policy: %s", c->verb, e);
		free(cause);
		return 1;
	}
	if ((r = changes_open(c->run_dir, &c->run, &cause)) == 0)
		c->have_run = true;
	if (r == 0 && (r = changes_scan(&c->run, &cause)) < 0)
		c->have_run = false, changes_done(&c->run);
	if (r < 0 && (need_projects || r != -ENOENT)) {
		cleanup_free char *e = escape_str(cause ? cause : strerror(-r));

		warn_msg("%s: %s", c->verb, e);
		free(cause);
		return 1;
	}
	if (c->have_run)
		diffcmd_policy_hooks(&c->policy, &c->run);
	free(cause);
	return 0;
}

/* Does PATH (relative to the project, or absolute) pick rel? */
bool
diffcmd_pick_one(const struct changes_project *p, const char *arg,
    const char *rel)
{
	size_t n, hn = strlen(p->host);

	/* A staged write outside is named by its absolute path only. */
	if (p->outside && arg[0] != '/')
		return false;
	if (arg[0] == '/') {
		if (strncmp(arg, p->host, hn) != 0 ||
		    (arg[hn] != '/' && arg[hn] != '\0'))
			return false;
		arg += hn;
		while (*arg == '/')
			arg++;
		if (*arg == '\0')
			return true;
	}
	while (arg[0] == '.' && arg[1] == '/')
		arg += 2;
	n = strlen(arg);
	while (n > 0 && arg[n - 1] == '/')
		n--;
	if (n == 0 || (n == 1 && arg[0] == '.'))
		return true;
	return strncmp(rel, arg, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

bool
diffcmd_pick(struct diffcmd_ctx *c, const struct changes_project *p,
    const struct change *ch)
{
	bool any = false;

	if (c->npaths == 0)
		return true;
	for (size_t i = 0; i < c->npaths; i++) {
		if (diffcmd_pick_one(p, c->paths[i], ch->path) ||
		    (ch->from != NULL &&
		    diffcmd_pick_one(p, c->paths[i], ch->from))) {
			c->used[i] = true;
			any = true;
		}
	}
	return any;
}

/*
 * Does PATH name rel itself, not a folder above it? What is held out of
 * an apply (a protected file, one over max_apply) goes only when named
 * so: "ward apply ." or a folder never takes it along.
 */
static bool
diffcmd_names_one(const struct changes_project *p, const char *arg,
    const char *rel)
{
	size_t hn = strlen(p->host);

	if (p->outside && arg[0] != '/')
		return false;
	if (arg[0] == '/') {
		if (strncmp(arg, p->host, hn) != 0 || arg[hn] != '/')
			return false;
		arg += hn;
		while (*arg == '/')
			arg++;
	}
	while (arg[0] == '.' && arg[1] == '/')
		arg += 2;
	return strcmp(arg, rel) == 0;
}

bool
diffcmd_named(const struct diffcmd_ctx *c, const struct changes_project *p,
    const struct change *ch)
{
	for (size_t i = 0; i < c->npaths; i++)
		if (diffcmd_names_one(p, c->paths[i], ch->path))
			return true;
	return false;
}

/*
 * The pattern that protects ch (config/protect.h: a file something on
 * the host later runs or trusts), on either side of a rename; NULL when
 * none does. A project's files by their path below its root, a staged
 * write outside by its own; "~/" patterns in the home of who runs ward.
 */
const char *
diffcmd_protected(const struct policy *pol, const struct changes_project *p,
    const struct change *ch)
{
	const char *home = policy_home();
	const char *root = p->outside ? NULL : p->host;
	const char *rels[] = { ch->path, ch->from };

	for (size_t i = 0; i < 2; i++) {
		cleanup_free char *abs = NULL;
		const char *pat;

		if (rels[i] == NULL)
			continue;
		abs = p->outside ? xasprintf("/%s", rels[i]) :
		    xasprintf("%s/%s", p->host, rels[i]);
		if ((pat = protect_match(pol, root, home, abs)) != NULL ||
		    (!p->outside &&
		    (pat = protect_match_rel(pol, rels[i])) != NULL))
			return pat;
	}
	return NULL;
}

/* Why ch stays staged unless named (NULL: it goes with the rest): over
 * [review] max_apply. *why (malloc'd) in plain words. */
static bool
diffcmd_over_max(const struct policy *pol, const struct change *ch,
    const struct changes_cost *cost, char **why)
{
	char have[32], max[32];

	if (pol->max_apply == 0 || ch->kind == CHANGE_DELETED ||
	    (uint64_t)cost->size <= pol->max_apply)
		return false;
	size_human(cost->size, have, sizeof have);
	size_human((int64_t)pol->max_apply, max, sizeof max);
	*why = xasprintf("%s, over [review] max_apply (%s)", have, max);
	return true;
}

/*
 * Why ch stays staged unless named by path (*why malloc'd, plain words),
 * or false: it goes with the rest. A protected file first: it runs code
 * on the host later; then one over [review] max_apply.
 */
bool
diffcmd_held(const struct policy *pol, const struct changes_project *p,
    const struct change *ch, const struct changes_cost *cost, char **why)
{
	const char *pat = diffcmd_protected(pol, p, ch);

	if (pat != NULL) {
		*why = xasprintf("protected: %s", protect_words(pat));
		return true;
	}
	return diffcmd_over_max(pol, ch, cost, why);
}

/* Each PATH given must have picked something. */
int
diffcmd_check_used(const struct diffcmd_ctx *c)
{
	int status = 0;

	for (size_t i = 0; i < c->npaths; i++) {
		if (!c->used[i]) {
			cleanup_free char *e = escape_str(c->paths[i]);

			warn_msg("%s: nothing staged at %s", c->verb, e);
			status = 1;
		}
	}
	return status;
}

/* ------------------------------------------------------------------ */
/* The record of what was done. */

char *
diffcmd_who(void)
{
	char name[256];
	unsigned int uid = (unsigned int)getuid();

	if (passwd_file_name("/etc/passwd", uid, name, sizeof name) == 0)
		return xasprintf("uid %u (%s)", uid, name);
	return xasprintf("uid %u", uid);
}

/* A warning: on stderr, or kept for the console's status line. */
void __attribute__((format(printf, 2, 3)))
diffcmd_warn(struct diffcmd_rec *rec, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!rec->quiet)
		warn_msgv(fmt, ap);
	else if (rec->err == NULL && vasprintf(&rec->err, fmt, ap) < 0)
		rec->err = NULL;
	va_end(ap);
}

int
diffcmd_rec_open(struct diffcmd_rec *rec, const char *verb, const char *run)
{
	cleanup_free char *db = paths_audit_db();
	cleanup_free char *cause = NULL;
	int r;

	memset(rec, 0, sizeof *rec);
	/* An effect nobody could read about later is not made. */
	if ((r = audit_open(db, &rec->a, &cause)) < 0) {
		cleanup_free char *e = escape_str(cause ? cause : strerror(-r));

		warn_msg("%s: cannot open the record: %s", verb, e);
		return -1;
	}
	rec->who = diffcmd_who();
	rec->run = run;
	return 0;
}

void
diffcmd_rec_close(struct diffcmd_rec *rec)
{
	audit_close(rec->a);
	free(rec->who);
	free(rec->err);
}

int
diffcmd_rec(struct diffcmd_rec *rec, const char *verb, const char *path,
    const char *from, const char *kind, const char *action,
    const struct changes_done *d, int64_t size, unsigned int om,
    unsigned int nm, int64_t *seq)
{
	struct audit_change ch = {
		.run = rec->run, .time_ms = now_wall_ms(), .path = path,
		.from_path = from, .kind = kind, .action = action,
		.before_hash = d->before, .after_hash = d->after,
		.size = size, .old_mode = om, .new_mode = nm, .by = rec->who,
	};
	cleanup_free char *cause = NULL;
	int r;

	if ((r = audit_change(rec->a, &ch, seq, &cause)) < 0) {
		cleanup_free char *e = escape_str(cause ? cause : strerror(-r));

		diffcmd_warn(rec, "%s: cannot record %s: %s", verb, path, e);
		return -1;
	}
	return 0;
}

/* The intent recorded by diffcmd_rec, done: its action and after-hash. */
int
diffcmd_rec_done(struct diffcmd_rec *rec, const char *verb, int64_t seq,
    const char *action, const char *after)
{
	cleanup_free char *cause = NULL;
	int r;

	if ((r = audit_change_done(rec->a, seq, action, after, &cause)) < 0) {
		cleanup_free char *e = escape_str(cause ? cause : strerror(-r));

		diffcmd_warn(rec, "%s: cannot record the change: %s", verb, e);
		return -1;
	}
	return 0;
}
