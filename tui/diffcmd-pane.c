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

#include "approvals/gitapi.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"
#include "review/changes-apply.h"
#include "tui/diff.h"
#include "tui/diffcmd-int.h"
#include "tui/model.h"

/* The console's diff pane: the changes read each second, and its y. */

/*
 * The pane reads the changes every second while it is open: a staged
 * file's hash is remembered with its inode, size and times and taken
 * again only when one of them moved (any write changes ctime), so a big
 * staged file is not read whole each second. The apply checks the bytes
 * themselves.
 */
struct diffcmd_memo {
	char		*path;
	struct stat	 st;
	char		 hash[65];
};

static struct diffcmd_memo *diffcmd_memo;
static size_t diffcmd_n_memo;

static bool
diffcmd_memo_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size && a->st_mode == b->st_mode &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void
diffcmd_memo_free(struct diffcmd_memo *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* c's staged hash into out ("?" when it cannot be read), remembered in
 * next[*nn] for the next reading. */
static void
diffcmd_pane_hash(const struct changes_project *p, const struct change *c,
    char out[65], struct diffcmd_memo **next, size_t *nn)
{
	cleanup_free char *up = NULL;
	struct stat st, st2;

	if (c->kind == CHANGE_DELETED) {
		strcpy(out, "-");
		return;
	}
	up = xasprintf("%s/%s", p->upper, c->path);
	if (lstat(up, &st) < 0) {
		strcpy(out, "?");
		return;
	}
	for (size_t i = 0; i < diffcmd_n_memo; i++) {
		if (strcmp(diffcmd_memo[i].path, up) == 0 &&
		    diffcmd_memo_same(&diffcmd_memo[i].st, &st)) {
			strcpy(out, diffcmd_memo[i].hash);
			goto keep;
		}
	}
	if (changes_staged_hash(p, c, out) < 0) {
		strcpy(out, "?");
		return;
	}
	/* Written while it was read: not remembered. */
	if (lstat(up, &st2) < 0 || !diffcmd_memo_same(&st, &st2))
		return;
keep:
	*next = xreallocarray(*next, *nn + 1, sizeof **next);
	(*next)[*nn].path = steal_ptr(&up);
	(*next)[*nn].st = st;
	strcpy((*next)[*nn].hash, out);
	(*nn)++;
}

/* Is c's staged file still as it was when its hash was remembered? */
static bool
diffcmd_pane_unmoved(const struct changes_project *p, const struct change *c,
    const struct diffcmd_memo *memo, size_t n)
{
	cleanup_free char *up = NULL;
	struct stat st;

	if (c->kind == CHANGE_DELETED)
		return true;
	up = xasprintf("%s/%s", p->upper, c->path);
	if (lstat(up, &st) < 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(memo[i].path, up) == 0)
			return diffcmd_memo_same(&memo[i].st, &st);
	return false;
}

void
diffcmd_pane_load(struct model *m, const char *run)
{
	cleanup_free char *runs = paths_runs_dir();
	cleanup_free char *dir = NULL, *cause = NULL, *buf = NULL;
	const struct changes_project *selp = NULL;
	const struct change *selc = NULL;
	struct changes_run cr;
	char **files = NULL, **targets = NULL, **labels = NULL;
	char **hashes = NULL, **held = NULL;
	size_t n = 0, len = 0, nt = 0, nl = 0, nh = 0, nd = 0, seli = 0;
	size_t nmemo = 0;
	struct diffcmd_memo *memo = NULL;
	struct policy pol;
	struct diff_stat st;
	char h[65];
	FILE *f;

	if (run == NULL || *run == '\0' || strchr(run, '/') != NULL) {
		model_diff_set_files(m, NULL, 0);
		model_diff_set_patch(m, "", 0);
		model_diff_set_note(m, "no run");
		return;
	}
	if (gitapi_load(&cause) < 0) {
		model_diff_set_files(m, NULL, 0);
		model_diff_set_patch(m, "", 0);
		model_diff_set_note(m, cause);
		return;
	}
	dir = xasprintf("%s/%s", runs, run);
	if (diffcmd_policy(&pol, dir, &cause) < 0) {
		/* What is held is the run's policy's: none, no list. */
		model_diff_set_files(m, NULL, 0);
		model_diff_set_patch(m, "", 0);
		model_diff_set_note(m, cause);
		return;
	}
	if (changes_open(dir, &cr, &cause) < 0 ||
	    changes_scan(&cr, &cause) < 0) {
		policy_done(&pol);
		if (cause == NULL || strstr(cause, "no projects") != NULL) {
			free(cause);
			cause = xstrdup("the run has no projects (--project)");
		}
		model_diff_set_files(m, NULL, 0);
		model_diff_set_patch(m, "", 0);
		model_diff_set_note(m, cause);
		return;
	}
	diffcmd_policy_hooks(&pol, &cr);
	for (size_t i = 0; i < cr.n; i++) {
		for (size_t j = 0; j < cr.p[i].n; j++) {
			const struct change *c = &cr.p[i].v[j];
			cleanup_free char *why = NULL, *mark = NULL;
			struct changes_cost cost;
			char size[32];

			changes_cost(&cr.p[i], c, &cost);
			size_human(c->size, size, sizeof size);
			if (!diffcmd_held(&pol, &cr.p[i], c, &cost, &why))
				why = NULL;
			/* The size, and a held file said in the list and in
			 * its confirmation: y applies it only picked alone. */
			mark = why != NULL ? xasprintf("  %s  HELD, %s", size,
			    why) : xasprintf("  %s", size);
			strv_push(&held, &nd, xstrdup(why != NULL ? why : ""));
			if (n == m->diff.sel) {
				selp = &cr.p[i];
				selc = c;
				seli = n;
			}
			/* What y will apply: these bytes, or nothing. */
			diffcmd_pane_hash(&cr.p[i], c, h, &memo, &nmemo);
			strv_push(&hashes, &nh, xstrdup(h));
			strv_push(&targets, &nt, xasprintf("%s/%s",
			    cr.p[i].host, c->path));
			/* HELD first in a confirmation: a long path must
			 * not push it off the screen. */
			strv_push(&labels, &nl, c->from != NULL ?
			    xasprintf("%s%-8s %s/%s -> %s  sha256 %.12s%s",
			    why != NULL ? "HELD " : "",
			    changes_kind_name(c->kind), cr.p[i].host, c->from,
			    c->path, h, mark) :
			    xasprintf("%s%-8s %s/%s%s  sha256 %.12s%s",
			    why != NULL ? "HELD " : "",
			    changes_kind_name(c->kind), cr.p[i].host, c->path,
			    c->binary ? " (binary)" : "", h, mark));
			strv_push(&files, &n, c->from != NULL ?
			    xasprintf("%-8s %s -> %s%s",
			    changes_kind_name(c->kind), c->from, c->path,
			    mark) :
			    xasprintf("%-8s %s%s%s%s", changes_kind_name(c->kind),
			    cr.p[i].outside ? "/" : "", c->path,
			    c->binary ? " (binary)" : "", mark));
		}
	}
	model_diff_set_files(m, (const char *const *)files, n);
	model_diff_set_targets(m, (const char *const *)targets,
	    (const char *const *)labels, n);
	model_diff_set_note(m, n == 0 ? "nothing staged" : NULL);
	if (selc == NULL && n > 0) {
		/* sel was past the end: model_diff_set_files moved it to
		 * the last file, whose patch is shown next time. */
		selp = &cr.p[cr.n - 1];
		for (size_t i = cr.n; i-- > 0;)
			if (cr.p[i].n > 0) {
				selp = &cr.p[i];
				break;
			}
		selc = &selp->v[selp->n - 1];
		seli = n - 1;
	}
	if (selc != NULL && (f = open_memstream(&buf, &len)) != NULL) {
		if (diff_patch(selp, selc, DIFF_CAP, f, &st, &cause) < 0)
			fprintf(f, "(%s)\n", cause);
		fclose(f);
		model_diff_set_patch(m, buf, len);
		/* Rewritten while its patch was read: the patch shown may
		 * not be of the hashed bytes, so y applies nothing of it
		 * until the next reading. */
		if (!diffcmd_pane_unmoved(selp, selc, memo, nmemo)) {
			free(hashes[seli]);
			hashes[seli] = xstrdup("?");
		}
	} else {
		model_diff_set_patch(m, "", 0);
	}
	model_diff_set_hashes(m, (const char *const *)hashes, nh);
	model_diff_set_held(m, (const char *const *)held, nd);
	strv_free(held);
	policy_done(&pol);
	diffcmd_memo_free(diffcmd_memo, diffcmd_n_memo);
	diffcmd_memo = memo;
	diffcmd_n_memo = nmemo;
	strv_free(files);
	strv_free(targets);
	strv_free(labels);
	strv_free(hashes);
	changes_done(&cr);
}

/* Is host among the confirmed files? *hash: the sha256 it was listed
 * with (NULL: none known). */
static bool
diffcmd_pane_picked(const struct model *m, const char *host,
    const char **hash)
{
	for (size_t i = 0; i < m->diff.n_confirm; i++) {
		if (strcmp(m->diff.confirm_targets[i], host) == 0) {
			*hash = m->diff.confirm_hashes != NULL ?
			    m->diff.confirm_hashes[i] : NULL;
			return true;
		}
	}
	return false;
}

/*
 * The pane's apply: only the bytes the pane listed (the run may go on
 * and rewrite a file after the person looked at it). false when the
 * staged file is not those now (said in rec's first warning).
 */
static bool
diffcmd_pane_same(struct diffcmd_rec *rec, const struct changes_project *p,
    const struct change *ch, const char *host, const char *hash)
{
	cleanup_free char *e = NULL;
	char now[65];

	if (hash == NULL)
		return false;
	if (changes_staged_hash(p, ch, now) == 0 && strcmp(now, hash) == 0)
		return true;
	e = escape_str(host);
	diffcmd_warn(rec, "%s: changed since the pane showed it; left alone "
	    "(look at it again, or stop the run with K)", e);
	return false;
}

/* The confirmed files, one by one as ward apply/discard does them. */
static void
diffcmd_pane_each(struct model *m, struct changes_run *cr,
    struct diffcmd_rec *rec, const char *before, size_t count[4])
{
	bool apply = m->diff.confirm == DIFF_OP_APPLY;

	for (int pass = 0; pass < 2; pass++)
	for (size_t i = 0; i < cr->n; i++) {
		const struct changes_project *p = &cr->p[i];

		for (size_t j = 0; j < p->n; j++) {
			const struct change *ch = &p->v[j];
			cleanup_free char *host = xasprintf("%s/%s", p->host,
			    ch->path);
			const char *hash = NULL;
			enum diffcmd_outcome o;

			if (diffcmd_pass(ch) != pass ||
			    !diffcmd_pane_picked(m, host, &hash))
				continue;
			if (apply && !diffcmd_pane_same(rec, p, ch, host,
			    hash))
				o = DIFFCMD_FAILED;
			else if (apply)
				o = diffcmd_apply_one(rec, p, ch, before, hash);
			else
				o = diffcmd_discard_one(rec, p, ch);
			count[o]++;
			if (o == DIFFCMD_UNRECORDED)
				return;
		}
	}
}

/*
 * Before the pane's apply writes anything: the room for all of the
 * confirmed files (each was picked and listed, held ones alone by p:
 * none is left out here). -1 when a file system lacks it (rec->err).
 */
static int
diffcmd_pane_room(struct model *m, struct changes_run *cr,
    struct diffcmd_rec *rec, const char *dir)
{
	cleanup_free struct diffcmd_todo *v = NULL;
	struct policy pol;
	size_t n = 0, held;
	int r;

	policy_init(&pol);
	for (size_t i = 0; i < cr->n; i++) {
		for (size_t j = 0; j < cr->p[i].n; j++) {
			const struct change *ch = &cr->p[i].v[j];
			cleanup_free char *host = xasprintf("%s/%s",
			    cr->p[i].host, ch->path);
			const char *hash;

			if (!diffcmd_pane_picked(m, host, &hash))
				continue;
			v = xreallocarray(v, n + 1, sizeof *v);
			v[n++] = (struct diffcmd_todo){ &cr->p[i], ch, true };
		}
	}
	r = diffcmd_plan(rec, &pol, dir, v, &n, &held);
	policy_done(&pol);
	return r;
}

void
diffcmd_pane_act(struct model *m, const char *run)
{
	const char *verb = m->diff.confirm == DIFF_OP_APPLY ? "apply" :
	    "discard";
	cleanup_free char *runs = paths_runs_dir(), *db = paths_audit_db();
	cleanup_free char *dir = NULL, *before = NULL, *cause = NULL;
	struct diffcmd_rec rec = { .quiet = true, .run = run };
	size_t count[4] = { 0 }, left;
	struct changes_run cr;
	int r;

	if (m->diff.confirm == DIFF_OP_NONE || run == NULL || *run == '\0' ||
	    strchr(run, '/') != NULL) {
		model_diff_confirm_done(m);
		return;
	}
	dir = xasprintf("%s/%s", runs, run);
	if ((r = changes_open(dir, &cr, &cause)) < 0 ||
	    (r = changes_scan(&cr, &cause)) < 0) {
		if (r != 0 && cause == NULL)
			cause = xstrdup(strerror(-r));
		model_message(m, MSG_ERROR, "%s: %s", verb, cause);
		model_diff_confirm_done(m);
		return;
	}
	/* An effect nobody could read about later is not made. */
	if ((r = audit_open(db, &rec.a, &cause)) < 0) {
		cleanup_free char *e = escape_str(cause ? cause : strerror(-r));

		model_message(m, MSG_ERROR, "%s: cannot open the record: %s",
		    verb, e);
		changes_done(&cr);
		model_diff_confirm_done(m);
		return;
	}
	rec.who = diffcmd_who();
	before = xasprintf("%s/before", dir);
	if (m->diff.confirm == DIFF_OP_APPLY &&
	    diffcmd_pane_room(m, &cr, &rec, dir) < 0) {
		model_message(m, MSG_ERROR, "%s", rec.err);
		diffcmd_rec_close(&rec);
		changes_done(&cr);
		model_diff_confirm_done(m);
		return;
	}
	diffcmd_pane_each(m, &cr, &rec, before, count);
	left = m->diff.n_confirm - count[0] - count[1] - count[2] - count[3];
	model_message(m, count[1] + count[2] + count[3] + left > 0 ?
	    MSG_WARN : MSG_INFO, "%s %zu of %zu; conflicts %zu%s, failed "
	    "%zu%s%s%s", m->diff.confirm == DIFF_OP_APPLY ? "applied" :
	    "discarded", count[0], m->diff.n_confirm, count[1],
	    count[1] > 0 ? " (left alone; 'ward apply' shows both sides)" : "",
	    count[2] + count[3], left > 0 ? "; some no longer staged" : "",
	    rec.err != NULL ? ": " : "", rec.err != NULL ? rec.err : "");
	diffcmd_rec_close(&rec);
	changes_done(&cr);
	model_diff_confirm_done(m);
}
