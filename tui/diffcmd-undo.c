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

#include "approvals/audit.h"
#include "config/escape.h"
#include "config/util.h"
#include "review/changes-apply.h"
#include "tui/diffcmd-int.h"
#include "tui/usage.h"

static const char diffcmd_undo_help[] =
"Usage: ward undo RUN [PATH...]\n"
"\n"
"Restore what RUN changed on the host from the before-images in its run\n"
"folder: project changes applied with 'ward apply' (refused for a file\n"
"changed since it was applied) and approved writes outside (refused while\n"
"the run goes on, and for a file changed after the run ended).\n"
"\n"
"Options:\n"
"  -h, --help   show this help\n"
"\n"
"Exit status: 0 all restored, 1 a refusal or a failure, 2 usage.\n";

/* ward undo: the host's files back from a run's before-images. */

/* One host path's state in the record: its last application. */
struct diffcmd_applied {
	char		*path;
	char		*from;
	char		*kind;
	char		 after[65];
	unsigned int	 old_mode;
	bool		 live;		/* applied and not undone since */
	bool		 seen;		/* in the record at all */
};

struct diffcmd_undo {
	struct diffcmd_applied *v;
	size_t		 n;
};

static struct diffcmd_applied *
diffcmd_undo_find(struct diffcmd_undo *u, const char *path)
{
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(u->v[i].path, path) == 0)
			return &u->v[i];
	return NULL;
}

static struct diffcmd_applied *
diffcmd_undo_get(struct diffcmd_undo *u, const char *path)
{
	struct diffcmd_applied *a = diffcmd_undo_find(u, path);

	if (a != NULL)
		return a;
	u->v = xreallocarray(u->v, u->n + 1, sizeof *u->v);
	a = &u->v[u->n++];
	memset(a, 0, sizeof *a);
	a->path = xstrdup(path);
	return a;
}

static int
diffcmd_on_change(const struct audit_change_row *row, void *arg)
{
	struct diffcmd_undo *u = arg;
	const struct audit_change *ch = &row->ch;
	struct diffcmd_applied *a;

	if (ch->path == NULL || ch->action == NULL)
		return 0;
	a = diffcmd_undo_get(u, ch->path);
	a->seen = true;
	if (strcmp(ch->action, "applied") == 0) {
		free(a->from);
		free(a->kind);
		a->from = ch->from_path ? xstrdup(ch->from_path) : NULL;
		a->kind = xstrdup(ch->kind ? ch->kind : "modified");
		snprintf(a->after, sizeof a->after, "%s",
		    ch->after_hash ? ch->after_hash : "-");
		a->old_mode = ch->old_mode;
		a->live = true;
	} else if (strcmp(ch->action, "undone") == 0) {
		a->live = false;
	}
	if (ch->from_path != NULL)
		diffcmd_undo_get(u, ch->from_path)->seen = true;
	return 0;
}

/* Approved writes outside: every before-image no apply accounts for. */
static void
diffcmd_undo_walk(struct diffcmd_undo *u, const char *root, const char *rel)
{
	cleanup_free char *dir = xasprintf("%s%s", root, rel);
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		cleanup_free char *sub = NULL, *full = NULL;
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		sub = xasprintf("%s/%s", rel, e->d_name);
		full = xasprintf("%s%s", root, sub);
		if (lstat(full, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			diffcmd_undo_walk(u, root, sub);
		else if (diffcmd_undo_find(u, sub) == NULL)
			diffcmd_undo_get(u, sub);
	}
	closedir(d);
}

static bool
diffcmd_undo_pick(struct diffcmd_ctx *c, const char *host)
{
	bool any = c->npaths == 0;

	for (size_t i = 0; i < c->npaths; i++) {
		bool hit = false;

		if (c->paths[i][0] == '/') {
			size_t n = strlen(c->paths[i]);

			while (n > 1 && c->paths[i][n - 1] == '/')
				n--;
			hit = strncmp(host, c->paths[i], n) == 0 &&
			    (host[n] == '\0' || host[n] == '/');
		}
		for (size_t j = 0; !hit && j < c->run.n; j++) {
			const struct changes_project *p = &c->run.p[j];
			size_t hn = strlen(p->host);

			hit = strncmp(host, p->host, hn) == 0 &&
			    host[hn] == '/' &&
			    diffcmd_pick_one(p, c->paths[i], host + hn + 1);
		}
		if (hit)
			c->used[i] = any = true;
	}
	return any;
}

/* An approved write outside: only once the run has ended, and only a
 * file nobody modified since. */
static bool
diffcmd_undo_refused(const struct diffcmd_ctx *c,
    const struct diffcmd_applied *a, const char *e)
{
	struct stat st;
	int64_t mt;

	if (a->live)
		return false;
	if (!c->in_record || c->ended_ms == 0) {
		warn_msg("undo: %s: the run is still going (or not in the "
		    "record); left alone", e);
		return true;
	}
	if (lstat(a->path, &st) == 0) {
		mt = (int64_t)st.st_mtim.tv_sec * 1000 +
		    st.st_mtim.tv_nsec / 1000000;
		if (mt > c->ended_ms) {
			warn_msg("undo: %s: changed after the run ended; left "
			    "alone", e);
			return true;
		}
	}
	return false;
}

/* Restores one path; 0, or 1 for a refusal or a failure. */
static int
diffcmd_undo_one(struct diffcmd_ctx *c, struct diffcmd_rec *rec,
    const struct diffcmd_applied *a, const char *before)
{
	cleanup_free char *cause = NULL, *e = escape_str(a->path);
	struct changes_done d, d2;
	const char *kind = a->kind ? a->kind : "write";
	int64_t seq = 0;
	int r;

	strcpy(d.after, "-");
	if (changes_hash_path(a->path, d.before) < 0)
		strcpy(d.before, "?");
	if (diffcmd_undo_refused(c, a, e) ||
	    diffcmd_rec(rec, "undo", a->path, a->from, kind, "undoing", &d, 0,
	    0, a->old_mode, &seq) < 0)
		return 1;
	if (a->live) {
		bool added = strcmp(kind, "added") == 0 ||
		    strcmp(kind, "renamed") == 0;

		r = changes_undo(before, a->path, a->after, a->old_mode,
		    added, &d, &cause);
		if (r == 0 && a->from != NULL)
			r = changes_undo(before, a->from, "-", a->old_mode,
			    false, &d2, &cause);
	} else {
		struct stat st;

		/* emulate.c keeps its images 0600: the file's mode now is
		 * the one the run left (an approved write keeps it). */
		r = changes_undo(before, a->path, NULL,
		    lstat(a->path, &st) == 0 ? st.st_mode & 07777 : 0644,
		    false, &d, &cause);
	}
	if (r < 0) {
		cleanup_free char *ec = escape_str(cause);

		warn_msg("undo: %s", ec);
		diffcmd_rec_done(rec, "undo", seq, "failed", "-");
		return 1;
	}
	if (diffcmd_rec_done(rec, "undo", seq, "undone", d.after) < 0)
		return 1;
	printf("restored %s\n", e);
	return 0;
}

const struct option diffcmd_undo_opts[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int
diffcmd_undo(int argc, char **argv)
{
	struct diffcmd_ctx c = { .verb = "undo" };
	struct diffcmd_undo u = { 0 };
	struct diffcmd_rec rec;
	cleanup_free char *before = NULL;
	int ch, status;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", diffcmd_undo_opts, NULL)) != -1) {
		if (ch == OPT_HELP) {
			fputs(diffcmd_undo_help, stdout);
			return 0;
		}
		return usage_error(2, "undo", "unknown option");
	}
	if ((status = diffcmd_target(&c, argc, argv, true, false)) != 0 ||
	    diffcmd_rec_open(&rec, "undo", c.id) < 0) {
		diffcmd_done(&c);
		return status ? status : 1;
	}
	before = xasprintf("%s/before", c.run_dir);
	audit_each_change(rec.a, c.id, diffcmd_on_change, &u, NULL);
	diffcmd_undo_walk(&u, before, "");
	for (size_t i = u.n; i-- > 0;) {
		const struct diffcmd_applied *a = &u.v[i];

		if ((a->seen && !a->live) || !diffcmd_undo_pick(&c, a->path))
			continue;
		status |= diffcmd_undo_one(&c, &rec, a, before);
	}
	changes_undo_dirs(before);
	if (diffcmd_check_used(&c) != 0)
		status = 1;
	for (size_t i = 0; i < u.n; i++) {
		free(u.v[i].path);
		free(u.v[i].from);
		free(u.v[i].kind);
	}
	free(u.v);
	diffcmd_rec_close(&rec);
	diffcmd_done(&c);
	return status;
}
