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

#include "approvals/ctl.h"
#include "approvals/gitapi.h"
#include "config/escape.h"
#include "config/util.h"
#include "review/changes-apply.h"
#include "tui/diff.h"
#include "tui/diffcmd-int.h"
#include "tui/usage.h"

static const char diffcmd_apply_help[] =
"Usage: ward apply [RUN] [PATH...] [--commit BRANCH] [--reviewed FILE]\n"
"\n"
"Put a run's staged project changes into the host folders, each file\n"
"atomically (a temporary file in its folder renamed over it, permission\n"
"bits kept, never setuid), keeping each replaced file's before-image in the\n"
"run folder for 'ward undo'. A file whose host copy changed after the run\n"
"started is a conflict: left alone, shown as the diff from the host's copy\n"
"to the staged one. Each file applied is recorded (ward log).\n"
"\n"
"Held files stay staged unless a PATH names the file itself: one that\n"
"something on the host later runs or trusts (a protected path: git's\n"
"hooks and config, .envrc, an agent's settings...) and one larger than\n"
"[review] max_apply (1G). Before anything is written, what apply will\n"
"write (a sparse file's data only: holes stay holes) is counted per file\n"
"system; one without the room free refuses the whole apply.\n"
"\n"
"While the run goes on, its program can rewrite a staged file after you\n"
"read it, so plain apply is refused: stop the run first (ward kill RUN),\n"
"or apply exactly what you reviewed:\n"
"  ward diff --json RUN > reviewed.json    (read it)\n"
"  ward apply RUN --reviewed reviewed.json\n"
"which applies a file only if its staged bytes still have the SHA-256\n"
"shown in the review (checked on the copy just before it goes in), and\n"
"refuses, naming it, a file changed since or not in the review.\n"
"\n"
"Options:\n"
"  -c, --commit BRANCH  instead, one commit of the changes on HEAD, on a new\n"
"                       branch BRANCH of the project's git repository\n"
"                       (message \"ward run ID: COMMAND\"); the worktree and\n"
"                       the staged changes are left as they are (an ended\n"
"                       run only)\n"
"  -r, --reviewed FILE  apply only what FILE, a saved 'ward diff --json',\n"
"                       showed: the same kind, mode and sha256 per file\n"
"  -h, --help           show this help\n"
"\n"
"Exit status: 0 all applied (held files aside, said on stdout), 1 a\n"
"conflict, a failure or no room, 2 usage.\n";

static const char diffcmd_discard_help[] =
"Usage: ward discard [RUN] [PATH...]\n"
"\n"
"Drop a run's staged project changes (all, or those at PATH): the host's\n"
"file shows again. Each file is recorded (ward log).\n"
"\n"
"Options:\n"
"  -h, --help   show this help\n"
"\n"
"Exit status: 0 ok, 1 a failure, 2 usage.\n";

/*
 * ward apply and ward discard, and apply --commit by libgit2: each file
 * into the host (or dropped) with its intent recorded first; the
 * console's diff pane does its files with the same one-file steps.
 */

/* Deletions first: a folder may have to go before a file takes its name. */
int
diffcmd_pass(const struct change *ch)
{
	return ch->kind == CHANGE_DELETED ? 0 : 1;
}

/* One side of a conflict in a line: its hash, size and, for the host's,
 * when it was last changed. */
static void
diffcmd_conflict_side(const char *label, const char *path, bool when)
{
	struct stat st;
	char h[65], t[TIME_RFC3339_LEN] = "";

	if (lstat(path, &st) < 0 || changes_hash_path(path, h) < 0) {
		printf("  %s none (removed)\n", label);
		return;
	}
	if (when)
		time_local_rfc3339((int64_t)st.st_mtim.tv_sec * 1000, t);
	printf("  %s sha256 %.12s, %lld bytes%s%s\n", label, h,
	    (long long)st.st_size, when ? ", changed " : "", t);
}

static void
diffcmd_show_conflict(const struct changes_project *p, const struct change *ch,
    const char *why)
{
	cleanup_free char *e = escape_str(why);
	cleanup_free char *cause = NULL;
	cleanup_free char *host = xasprintf("%s/%s", p->host,
	    ch->from != NULL && ch->kind == CHANGE_RENAMED ? ch->from : ch->path);
	cleanup_free char *up = xasprintf("%s/%s", p->upper, ch->path);
	struct diff_stat st;

	printf("conflict: %s; left alone.\n", e);
	diffcmd_conflict_side("the host's side:", host, true);
	if (ch->kind == CHANGE_DELETED)
		printf("  the run's side:  deleted\n");
	else
		diffcmd_conflict_side("the run's side: ", up, false);
	printf("  The host's copy now (a/) against the staged one (b/):\n");
	if (diff_patch(p, ch, DIFF_CAP, stdout, &st, &cause) < 0)
		printf("  (%s)\n", cause);
	printf("  Merge it by hand, or keep the host's: ward discard RUN "
	    "PATH.\n");
}

/* One file into the host, its intent recorded first. Says what it did
 * on stdout unless rec->quiet. */
enum diffcmd_outcome
diffcmd_apply_one(struct diffcmd_rec *rec, const struct changes_project *p,
    const struct change *ch, const char *before, const char *expect)
{
	cleanup_free char *why = NULL, *cause = NULL;
	cleanup_free char *host = NULL, *from = NULL, *e = NULL;
	struct changes_done d;
	int64_t seq = 0;

	if (changes_conflict(p, ch, &why)) {
		if (!rec->quiet)
			diffcmd_show_conflict(p, ch, why);
		return DIFFCMD_CONFLICT;
	}
	host = xasprintf("%s/%s", p->host, ch->path);
	from = ch->from ? xasprintf("%s/%s", p->host, ch->from) : NULL;
	e = escape_str(host);
	/* Write-ahead: the intent is in the record before the host
	 * changes. */
	strcpy(d.after, "-");
	if (changes_hash_path(from ? from : host, d.before) < 0)
		strcpy(d.before, "?");
	if (diffcmd_rec(rec, "apply", host, from, changes_kind_name(ch->kind),
	    "applying", &d, ch->size, ch->old_mode, ch->new_mode, &seq) < 0)
		return DIFFCMD_UNRECORDED;
	if (changes_apply_reviewed(p, ch, before, expect, &d, &cause) < 0) {
		cleanup_free char *ec = escape_str(cause);

		diffcmd_warn(rec, "apply: %s", ec);
		if (diffcmd_rec_done(rec, "apply", seq, "failed", "-") < 0)
			return DIFFCMD_UNRECORDED;
		return DIFFCMD_FAILED;
	}
	if (diffcmd_rec_done(rec, "apply", seq, "applied", d.after) < 0)
		return DIFFCMD_UNRECORDED;
	if (!rec->quiet)
		printf("applied %s (%s)\n", e, changes_kind_name(ch->kind));
	return DIFFCMD_DONE;
}

/* Bytes more on the file system that path (or its nearest folder that
 * exists) lies on. */
static void
diffcmd_room_add(struct diffcmd_room **v, size_t *n, const char *path,
    int64_t bytes)
{
	cleanup_free char *dir = xstrdup(path);
	struct stat st;
	char *slash;

	while (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		if ((slash = strrchr(dir, '/')) == NULL || slash == dir) {
			strcpy(dir, "/");
			if (stat(dir, &st) < 0)
				return;
			break;
		}
		*slash = '\0';
	}
	for (size_t i = 0; i < *n; i++) {
		if ((*v)[i].dev == st.st_dev) {
			(*v)[i].need += bytes;
			return;
		}
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = (struct diffcmd_room){ st.st_dev, steal_ptr(&dir),
	    bytes };
}

/* Each file system has the room, or says which lacks it: 0 or -1. */
static int
diffcmd_room_check(struct diffcmd_rec *rec, const struct diffcmd_room *v,
    size_t n)
{
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		struct statvfs vfs;
		int64_t avail;
		char need[32], free_[32];
		cleanup_free char *e = NULL;

		e = escape_str(v[i].where);
		if (statvfs(v[i].where, &vfs) < 0) {
			/* Room nobody could count is no room. */
			diffcmd_warn(rec, "apply: %s: statvfs: %s; nothing "
			    "applied", e, strerror(errno));
			r = -1;
			continue;
		}
		avail = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
		if (v[i].need <= avail)
			continue;
		size_human(v[i].need, need, sizeof need);
		size_human(avail, free_, sizeof free_);
		diffcmd_warn(rec, "apply: no room: %s needed on the file system "
		    "of %s, %s free; nothing applied (free some, or apply "
		    "fewer files: ward apply RUN PATH)", need, e, free_);
		r = -1;
	}
	return r;
}

/*
 * Before anything is written: what is held (a protected file, one over
 * [review] max_apply; unless named) leaves v, said on stdout (counted
 * only, for the console), and the rest's bytes are counted per file
 * system, a sparse file's allocated blocks only, before-images too. -1
 * (said) when one lacks the room: then nothing is written.
 */
int
diffcmd_plan(struct diffcmd_rec *rec, const struct policy *pol,
    const char *run_dir, struct diffcmd_todo *v, size_t *n, size_t *held)
{
	cleanup_free char *before = xasprintf("%s/before", run_dir);
	struct diffcmd_room *room = NULL;
	size_t nroom = 0, k = 0;
	int r;

	*held = 0;
	for (size_t i = 0; i < *n; i++) {
		const struct changes_project *p = v[i].p;
		const struct change *ch = v[i].ch;
		cleanup_free char *host = xasprintf("%s/%s", p->host, ch->path);
		cleanup_free char *why = NULL;
		struct changes_cost cost;

		changes_cost(p, ch, &cost);
		if (!v[i].named && diffcmd_held(pol, p, ch, &cost, &why)) {
			cleanup_free char *e = escape_str(host);
			cleanup_free char *id = escape_str(rec->run);

			if (!rec->quiet)
				printf("left staged: %s: %s; 'ward apply %s "
				    "%s' applies it\n", e, why, id, e);
			(*held)++;
			continue;
		}
		/* A block more each: the temporary file's inode and tail. */
		diffcmd_room_add(&room, &nroom, host, cost.write + 4096);
		if (cost.before > 0)
			diffcmd_room_add(&room, &nroom, before, cost.before);
		v[k++] = v[i];
	}
	*n = k;
	r = diffcmd_room_check(rec, room, nroom);
	for (size_t i = 0; i < nroom; i++)
		free(room[i].where);
	free(room);
	return r;
}

/* The review's entry for ch: the same project folder and path. */
static json_t *
diffcmd_reviewed_find(json_t *arr, const struct changes_project *p,
    const char *git_path)
{
	const char *host = p->outside ? "/" : p->host;
	json_t *o;
	size_t i;

	json_array_foreach(arr, i, o) {
		const char *h = json_string_value(json_object_get(o, "host"));
		const char *g = json_string_value(json_object_get(o,
		    "git_path"));

		if (h != NULL && g != NULL && strcmp(h, host) == 0 &&
		    strcmp(g, git_path) == 0)
			return o;
	}
	return NULL;
}

/*
 * apply --reviewed: the hash ch may be applied with, or NULL (said why on
 * stderr) when the review did not show this content: not in it, another
 * kind or mode, or other bytes now.
 */
static const char *
diffcmd_reviewed_hash(struct diffcmd_ctx *c, struct diffcmd_rec *rec,
    const struct changes_project *p, const struct change *ch)
{
	cleanup_free char *q = diff_quote_path("", ch->path);
	cleanup_free char *host = xasprintf("%s/%s", p->host, ch->path);
	cleanup_free char *e = escape_str(host);
	cleanup_free char *id = escape_str(c->id);
	json_t *o = diffcmd_reviewed_find(c->reviewed, p, q);
	const char *want, *kind;
	char now[65];

	if (o == NULL) {
		diffcmd_warn(rec, "apply: %s: not in the review (staged after "
		    "it?); left alone. Look at it with 'ward diff --json %s' "
		    "and apply again, or stop the run first (ward kill %s)", e,
		    id, id);
		return NULL;
	}
	want = json_string_value(json_object_get(o, "sha256"));
	kind = json_string_value(json_object_get(o, "kind"));
	if (changes_staged_hash(p, ch, now) < 0)
		strcpy(now, "?");
	if (want == NULL || kind == NULL ||
	    strcmp(kind, changes_kind_name(ch->kind)) != 0 ||
	    json_integer_value(json_object_get(o, "new_mode")) !=
	    (json_int_t)ch->new_mode || strcmp(want, now) != 0) {
		diffcmd_warn(rec, "apply: %s: changed since it was reviewed "
		    "(reviewed %s sha256 %.12s, staged now %s sha256 %.12s); "
		    "left alone. Review it again with 'ward diff --json %s', "
		    "or stop the run first (ward kill %s)", e,
		    kind ? kind : "?", want ? want : "?",
		    changes_kind_name(ch->kind), now, id, id);
		return NULL;
	}
	return want;
}

static int
diffcmd_apply_files(struct diffcmd_ctx *c, struct diffcmd_rec *rec)
{
	cleanup_free char *before = xasprintf("%s/before", c->run_dir);
	cleanup_free struct diffcmd_todo *v = NULL;
	size_t n = 0, held;
	int status = 0;

	for (int pass = 0; pass < 2; pass++)
	for (size_t i = 0; i < c->run.n; i++) {
		const struct changes_project *p = &c->run.p[i];

		for (size_t j = 0; j < p->n; j++) {
			const struct change *ch = &p->v[j];

			if (diffcmd_pass(ch) != pass || !diffcmd_pick(c, p, ch))
				continue;
			v = xreallocarray(v, n + 1, sizeof *v);
			v[n++] = (struct diffcmd_todo){ p, ch,
			    diffcmd_named(c, p, ch) };
		}
	}
	if (diffcmd_plan(rec, &c->policy, c->run_dir, v, &n, &held) < 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		const char *expect = NULL;

		if (c->reviewed != NULL && (expect = diffcmd_reviewed_hash(c,
		    rec, v[i].p, v[i].ch)) == NULL) {
			status = 1;
			continue;
		}
		switch (diffcmd_apply_one(rec, v[i].p, v[i].ch, before,
		    expect)) {
		case DIFFCMD_DONE:
			break;
		case DIFFCMD_CONFLICT:
		case DIFFCMD_FAILED:
			status = 1;
			break;
		case DIFFCMD_UNRECORDED:
			return 1;
		}
	}
	if (held > 0) {
		cleanup_free char *id = escape_str(c->id);

		printf("%zu file%s left staged (named above); each is applied "
		    "only when named: ward apply %s PATH\n", held,
		    held == 1 ? "" : "s", id);
	}
	return status;
}

static int diffcmd_commit(struct diffcmd_ctx *, struct diffcmd_rec *,
    const char *);

const struct option diffcmd_apply_opts[] = {
	{ "commit", required_argument, NULL, OPT_COMMIT },
	{ "reviewed", required_argument, NULL, OPT_REVIEWED },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* The review a --reviewed FILE holds: ward diff --json's array. */
static int
diffcmd_load_reviewed(struct diffcmd_ctx *c, const char *file)
{
	cleanup_free char *e = escape_str(file);
	json_error_t err;
	json_t *arr = json_load_file(file, 0, &err);
	json_t *o;
	size_t i;

	if (arr == NULL) {
		cleanup_free char *et = escape_str(err.text);

		warn_msg("apply: %s:%d: %s", e, err.line, et);
		return 1;
	}
	if (!json_is_array(arr)) {
		warn_msg("apply: %s: not the output of 'ward diff --json' (no "
		    "array)", e);
		json_decref(arr);
		return 1;
	}
	json_array_foreach(arr, i, o) {
		if (!json_is_string(json_object_get(o, "git_path")) ||
		    !json_is_string(json_object_get(o, "sha256")) ||
		    !json_is_string(json_object_get(o, "host"))) {
			warn_msg("apply: %s: entry %zu has no host, git_path "
			    "or sha256 (a 'ward diff --json' of this ward?)",
			    e, i + 1);
			json_decref(arr);
			return 1;
		}
	}
	c->reviewed = arr;
	return 0;
}

/* Does the run go on? Its control socket answers, or the record has
 * its start and no end (a supervisor killed hard: ward gc ends it). */
static bool
diffcmd_live(const struct diffcmd_ctx *c)
{
	char **ids = NULL;
	size_t n = 0;
	bool live = c->in_record && c->ended_ms == 0;

	if (ctl_list(&ids, &n) < 0)
		return true;
	for (size_t i = 0; i < n && !live; i++)
		live = strcmp(ids[i], c->id) == 0;
	strv_free(ids);
	return live;
}

/*
 * A run that goes on can rewrite a staged file between the person's
 * review and the apply: then only what the review showed is applied
 * (--reviewed), or nothing. 0, or an exit status.
 */
static int
diffcmd_apply_live(struct diffcmd_ctx *c, const char *reviewed, bool commit)
{
	bool live = diffcmd_live(c);
	cleanup_free char *e = escape_str(c->id);

	if (reviewed != NULL)
		return diffcmd_load_reviewed(c, reviewed);
	if (!live)
		return 0;
	warn_msg("apply: run %s is still going (its record has no end): its "
	    "program can rewrite a staged file after you read it, so nothing "
	    "is applied. Stop it first (ward kill %s), or apply only what you "
	    "reviewed: ward diff --json %s > reviewed.json, read it, then "
	    "ward apply %s --reviewed reviewed.json%s", e, e, e, e,
	    commit ? " (--commit: stop the run first)" : "");
	return 1;
}

int
diffcmd_apply(int argc, char **argv)
{
	struct diffcmd_ctx c = { .verb = "apply" };
	struct diffcmd_rec rec;
	const char *branch = NULL, *reviewed = NULL;
	int ch, status;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "c:r:h", diffcmd_apply_opts,
	    NULL)) != -1) {
		switch (ch) {
		case OPT_COMMIT: branch = optarg; break;
		case OPT_REVIEWED: reviewed = optarg; break;
		case OPT_HELP:
			fputs(diffcmd_apply_help, stdout);
			return 0;
		default:
			return usage_error(2, "apply", "unknown option or a "
			    "missing value");
		}
	}
	if (branch != NULL && reviewed != NULL)
		return usage_error(2, "apply", "--reviewed is for an apply into "
		    "the folders, not --commit");
	if ((status = diffcmd_target(&c, argc, argv, false, true)) != 0 ||
	    (status = diffcmd_apply_live(&c, reviewed, branch != NULL)) != 0) {
		diffcmd_done(&c);
		return status;
	}
	if (diffcmd_rec_open(&rec, "apply", c.id) < 0) {
		diffcmd_done(&c);
		return 1;
	}
	if (branch != NULL)
		status = diffcmd_commit(&c, &rec, branch);
	else
		status = diffcmd_apply_files(&c, &rec);
	if (diffcmd_check_used(&c) != 0)
		status = 1;
	diffcmd_rec_close(&rec);
	diffcmd_done(&c);
	return status;
}

enum diffcmd_outcome
diffcmd_discard_one(struct diffcmd_rec *rec, const struct changes_project *p,
    const struct change *chg)
{
	cleanup_free char *cause = NULL, *host = NULL, *e = NULL;
	struct changes_done d = { "-", "-" };

	host = xasprintf("%s/%s", p->host, chg->path);
	e = escape_str(host);
	if (changes_discard(p, chg, &cause) < 0) {
		cleanup_free char *ec = escape_str(cause);

		diffcmd_warn(rec, "discard: %s", ec);
		return DIFFCMD_FAILED;
	}
	changes_hash_path(host, d.before);
	strcpy(d.after, d.before);
	if (diffcmd_rec(rec, "discard", host, NULL, changes_kind_name(chg->kind),
	    "discarded", &d, chg->size, chg->old_mode, chg->new_mode,
	    NULL) < 0)
		return DIFFCMD_UNRECORDED;
	if (!rec->quiet)
		printf("discarded %s (%s)\n", e, changes_kind_name(chg->kind));
	return DIFFCMD_DONE;
}

const struct option diffcmd_discard_opts[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int
diffcmd_discard(int argc, char **argv)
{
	struct diffcmd_ctx c = { .verb = "discard" };
	struct diffcmd_rec rec;
	int ch, status;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", diffcmd_discard_opts, NULL)) != -1) {
		if (ch == OPT_HELP) {
			fputs(diffcmd_discard_help, stdout);
			return 0;
		}
		return usage_error(2, "discard", "unknown option");
	}
	if ((status = diffcmd_target(&c, argc, argv, false, true)) != 0 ||
	    diffcmd_rec_open(&rec, "discard", c.id) < 0) {
		diffcmd_done(&c);
		return status ? status : 1;
	}
	for (size_t i = 0; i < c.run.n; i++) {
		const struct changes_project *p = &c.run.p[i];

		for (size_t j = 0; j < p->n; j++) {
			enum diffcmd_outcome o;

			if (!diffcmd_pick(&c, p, &p->v[j]))
				continue;
			if ((o = diffcmd_discard_one(&rec, p, &p->v[j])) ==
			    DIFFCMD_UNRECORDED) {
				status = 1;
				break;
			}
			if (o != DIFFCMD_DONE)
				status = 1;
		}
	}
	if (diffcmd_check_used(&c) != 0)
		status = 1;
	diffcmd_rec_close(&rec);
	diffcmd_done(&c);
	return status;
}

/* ------------------------------------------------------------------ */
/* ward apply --commit: one commit on a new branch, by libgit2. */

static unsigned int
diffcmd_git_mode(mode_t m)
{
	if (S_ISLNK(m))
		return 0120000;
	return (m & 0111) ? 0100755 : 0100644;
}

static const char *
diffcmd_git_error(void)
{
	const git_error *e = GIT(git_error_last)();

	return e != NULL && e->message != NULL ? e->message : "libgit2 failed";
}

/* Does --commit take ch? Picked, and not held unless named (a protected
 * file on a branch is one checkout away from running). */
static bool
diffcmd_commit_takes(struct diffcmd_ctx *c, const struct changes_project *p,
    const struct change *ch, bool say)
{
	cleanup_free char *why = NULL;
	struct changes_cost cost;

	if (!diffcmd_pick(c, p, ch))
		return false;
	changes_cost(p, ch, &cost);
	if (diffcmd_named(c, p, ch) ||
	    !diffcmd_held(&c->policy, p, ch, &cost, &why))
		return true;
	if (say) {
		cleanup_free char *q = diff_quote_path("", ch->path);

		printf("left out of the commit: %s: %s; named by path it goes "
		    "in\n", q, why);
	}
	return false;
}

/* The project's changes onto idx (paths under prefix in the repo). */
static int
diffcmd_stage_index(struct diffcmd_ctx *c, const struct changes_project *p,
    git_repository *repo, git_index *idx, const char *prefix, size_t *n)
{
	for (size_t j = 0; j < p->n; j++) {
		const struct change *ch = &p->v[j];
		cleanup_free char *path = xasprintf("%s%s", prefix, ch->path);
		cleanup_free char *buf = NULL;
		git_index_entry e;
		size_t len;

		if (!diffcmd_commit_takes(c, p, ch, true))
			continue;
		(*n)++;
		if (ch->from != NULL) {
			cleanup_free char *from = xasprintf("%s%s", prefix,
			    ch->from);

			GIT(git_index_remove)(idx, from, 0);
		}
		if (ch->kind == CHANGE_DELETED) {
			GIT(git_index_remove)(idx, path, 0);
			continue;
		}
		if (changes_read(p, ch, true, SIZE_MAX, &buf, &len) < 0)
			return -1;
		memset(&e, 0, sizeof e);
		e.mode = diffcmd_git_mode(ch->new_mode);
		e.path = path;
		e.file_size = (uint32_t)len;
		if (GIT(git_blob_create_from_buffer)(&e.id, repo, buf ? buf : "",
		    len) < 0 || GIT(git_index_add)(idx, &e) < 0)
			return -1;
	}
	return 0;
}

static int
diffcmd_commit_project(struct diffcmd_ctx *c, const struct changes_project *p,
    const char *branch, git_oid *out, size_t *n)
{
	git_repository *repo = NULL;
	git_index *idx = NULL;
	git_commit *head = NULL, *made = NULL;
	git_tree *tree = NULL, *newtree = NULL;
	git_signature *sig = NULL;
	git_reference *ref = NULL;
	cleanup_free char *msg = NULL, *prefix = NULL;
	char real[PATH_MAX], wd[PATH_MAX];
	git_oid head_id, tree_id;
	int r = -1;

	if (GIT(git_repository_open_ext)(&repo, p->host, 0, NULL) < 0 ||
	    GIT(git_repository_workdir)(repo) == NULL ||
	    realpath(p->host, real) == NULL ||
	    realpath(GIT(git_repository_workdir)(repo), wd) == NULL)
		goto out;
	prefix = strcmp(real, wd) == 0 ? xstrdup("") :
	    xasprintf("%s/", real + strlen(wd) + 1);
	if (GIT(git_reference_name_to_id)(&head_id, repo, "HEAD") < 0 ||
	    GIT(git_commit_lookup)(&head, repo, &head_id) < 0 ||
	    GIT(git_commit_tree)(&tree, head) < 0 || GIT(git_index_new)(&idx) < 0 ||
	    GIT(git_index_read_tree)(idx, tree) < 0 ||
	    diffcmd_stage_index(c, p, repo, idx, prefix, n) < 0 ||
	    GIT(git_index_write_tree_to)(&tree_id, idx, repo) < 0 ||
	    GIT(git_tree_lookup)(&newtree, repo, &tree_id) < 0)
		goto out;
	if (GIT(git_signature_default)(&sig, repo) < 0 &&
	    GIT(git_signature_now)(&sig, "ward", "ward@localhost") < 0)
		goto out;
	msg = xasprintf("ward run %s: %s\n", c->id,
	    c->command ? c->command : "(command not recorded)");
	if (GIT(git_commit_create)(out, repo, NULL, sig, sig, NULL, msg, newtree, 1,
	    (const git_commit **)&head) < 0 ||
	    GIT(git_commit_lookup)(&made, repo, out) < 0 ||
	    GIT(git_branch_create)(&ref, repo, branch, made, 0) < 0)
		goto out;
	r = 0;
out:
	if (r < 0) {
		cleanup_free char *e = escape_str(diffcmd_git_error());

		warn_msg("apply: %s: %s", p->host, e);
	}
	GIT(git_reference_free)(ref);
	GIT(git_signature_free)(sig);
	GIT(git_tree_free)(newtree);
	GIT(git_tree_free)(tree);
	GIT(git_commit_free)(made);
	GIT(git_commit_free)(head);
	GIT(git_index_free)(idx);
	GIT(git_repository_free)(repo);
	return r;
}

static int
diffcmd_commit(struct diffcmd_ctx *c, struct diffcmd_rec *rec,
    const char *branch)
{
	int status = 0;

	for (size_t i = 0; i < c->run.n; i++) {
		const struct changes_project *p = &c->run.p[i];
		char hex[GIT_OID_HEXSZ + 1];
		git_oid id;
		size_t n = 0;

		if (p->outside) {
			if (p->n > 0)
				warn_msg("apply --commit: the staged writes "
				    "outside are in no repository; left "
				    "staged (ward apply RUN /PATH)");
			continue;
		}
		if (diffcmd_commit_project(c, p, branch, &id, &n) < 0) {
			status = 1;
			continue;
		}
		GIT(git_oid_tostr)(hex, sizeof hex, &id);
		for (size_t j = 0; j < p->n; j++) {
			const struct change *ch = &p->v[j];
			cleanup_free char *host = NULL;
			struct changes_done d = { "-", "-" };

			if (!diffcmd_commit_takes(c, p, ch, false))
				continue;
			host = xasprintf("%s/%s", p->host, ch->path);
			snprintf(d.after, sizeof d.after, "git:%.40s", hex);
			if (diffcmd_rec(rec, "apply", host, NULL,
			    changes_kind_name(ch->kind), "committed", &d,
			    ch->size, ch->old_mode, ch->new_mode, NULL) < 0)
				return 1;
		}
		printf("committed %zu file%s of %s to branch %s (%.12s)\n", n,
		    n == 1 ? "" : "s", p->host, branch, hex);
	}
	return status;
}
