/* SPDX-License-Identifier: MIT */
#include "tui/diffcmd.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "approvals/gitapi.h"
#include "approvals/audit.h"
#include "approvals/audit-changes.h"
#include "approvals/changes.h"
#include "approvals/ctl.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/policy.h"
#include "config/protect.h"
#include "config/util.h"
#include "tui/diff.h"
#include "tui/model.h"
#include "tui/usage.h"

static const char diffcmd_diff_help[] =
"Usage: ward diff [RUN] [PATH...] [--stat] [--json] [--color=WHEN]\n"
"\n"
"Show what a run changed in its projects (--project) and has not been\n"
"applied: a patch in git's format, paths relative to the project root, that\n"
"'git apply' and 'patch -p1' take in a copy of the project. RUN is a run id\n"
"or --name (default: the most recent run with projects); PATH (relative to\n"
"the project root, or absolute) picks files or folders. Writes outside\n"
"answered 'ward stage' follow, paths from / ('patch -p1 -d /' takes them),\n"
"picked by their absolute path.\n"
"\n"
"Options:\n"
"  -s, --stat          one line per file: its kind, +/- line counts and\n"
"                      size; a 'held:' line under a held file\n"
"  -j, --json          one JSON array of {project, host, outside, path,\n"
"                      git_path, from, kind, old_mode, new_mode, size,\n"
"                      allocated, binary, added, deleted, sha256,\n"
"                      protected, held, patch}: sha256 of the staged\n"
"                      bytes ('-' for a deletion), which 'ward apply\n"
"                      --reviewed' takes back; protected the pattern\n"
"                      that protects it, held why apply leaves it\n"
"      --color=WHEN    auto (a terminal), always or never\n"
"  -h, --help          show this help\n"
"\n"
"A rename is a deleted and an added file of the same bytes, or at least\n"
"50% alike by libgit2's measure (shown with its hunks); binary files are\n"
"git binary patches; a file over 8 MiB is a '# ward:' line instead. File\n"
"names are quoted as git quotes them (core.quotePath): a name with a\n"
"control byte, '\"', '\\', DEL or a byte from 0x80 in double quotes with\n"
"C escapes, so that no name can start a line of the patch or reach the\n"
"terminal raw.\n"
"Exit status: 0 ok, 1 no such run or nothing at a PATH, 2 usage.\n";

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

enum {
	OPT_HELP = 'h',
	OPT_STAT = 's',
	OPT_JSON = 'j',
	OPT_COMMIT = 'c',
	OPT_REVIEWED = 'r',
	OPT_COLOR = 256,
};


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

static void
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
static int
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
static void
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
static int
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
static bool
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

static bool
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

static bool
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
static const char *
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
static bool
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
static int
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
/* ward diff */

static void
diffcmd_colour(const char *patch, size_t len, bool colour, FILE *out)
{
	const char *s = patch, *end = patch + len;

	if (!colour) {
		fwrite(patch, 1, len, out);
		return;
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *pen = NULL;

		if (n >= 3 && (strncmp(s, "+++", 3) == 0 ||
		    strncmp(s, "---", 3) == 0))
			pen = "\033[1m";
		else if (s[0] == '+')
			pen = "\033[32m";
		else if (s[0] == '-')
			pen = "\033[31m";
		else if (s[0] == '@')
			pen = "\033[36m";
		else if (s[0] != ' ' && s[0] != '\\')
			pen = "\033[1m";
		if (pen != NULL)
			fputs(pen, out);
		fwrite(s, 1, n, out);
		if (pen != NULL)
			fputs("\033[m", out);
		fputc('\n', out);
		s += n + 1;
	}
}

struct diffcmd_diff_opts {
	bool		 stat;
	bool		 json;
	bool		 colour;
};

/*
 * ch's patch into *buf, and in sha256 the hash of the staged bytes it was
 * made from: taken before the patch and again after, so that a file the
 * run rewrites meanwhile is read again (a few times, then refused) and a
 * review never pairs one content's patch with another's hash. sha256
 * NULL: the patch alone.
 */
static int
diffcmd_patch_steady(const struct changes_project *p, const struct change *ch,
    char **buf, size_t *len, struct diff_stat *st, char sha256[65],
    char **cause)
{
	char again[65];
	FILE *m;
	int r;

	for (int tries = 0; tries < 5; tries++) {
		free(*buf);
		*buf = NULL;
		*len = 0;
		if (sha256 != NULL &&
		    (r = changes_staged_hash(p, ch, sha256)) < 0) {
			set_cause(cause, "%s: hashing the staged file: %s",
			    ch->path, strerror(-r));
			return r;
		}
		if ((m = open_memstream(buf, len)) == NULL)
			fatal("out of memory");
		r = diff_patch(p, ch, DIFF_CAP, m, st, cause);
		fclose(m);
		if (r < 0 || sha256 == NULL)
			return r;
		if (changes_staged_hash(p, ch, again) == 0 &&
		    strcmp(again, sha256) == 0)
			return 0;
	}
	set_cause(cause, "%s: the run keeps rewriting it while it is read; "
	    "stop the run (ward kill) and look again", ch->path);
	return -EAGAIN;
}

static json_t *
diffcmd_json_change(const struct changes_project *p, const struct change *ch,
    const struct diff_stat *st, const char *patch, size_t len,
    const char *sha256, const char *protect, const char *held,
    const struct changes_cost *cost)
{
	json_t *o = json_object();
	json_t *jp = json_stringn(patch, len);
	cleanup_free char *q = diff_quote_path("", ch->path);

	json_object_set_new(o, "project", json_integer(p->index));
	json_object_set_new(o, "host", json_string(p->outside ? "/" :
	    p->host));
	json_object_set_new(o, "outside", json_boolean(p->outside));
	json_object_set_new(o, "path", json_string(ch->path));
	/* ASCII always (a path need not be UTF-8): what --reviewed keys on. */
	json_object_set_new(o, "git_path", json_string(q));
	json_object_set_new(o, "from", ch->from ? json_string(ch->from) :
	    json_null());
	json_object_set_new(o, "kind", json_string(changes_kind_name(ch->kind)));
	json_object_set_new(o, "old_mode", json_integer(ch->old_mode));
	json_object_set_new(o, "new_mode", json_integer(ch->new_mode));
	json_object_set_new(o, "size", json_integer(ch->size));
	json_object_set_new(o, "binary", json_boolean(ch->binary ||
	    st->binary));
	json_object_set_new(o, "added", json_integer((json_int_t)st->added));
	json_object_set_new(o, "deleted",
	    json_integer((json_int_t)st->deleted));
	json_object_set_new(o, "sha256", json_string(sha256));
	/* What apply writes of it (a sparse file's data only), and why a
	 * plain apply leaves it staged: the protecting pattern, the words. */
	json_object_set_new(o, "allocated", json_integer(cost->write));
	json_object_set_new(o, "protected", protect != NULL ?
	    json_string(protect) : json_null());
	json_object_set_new(o, "held", held != NULL ? json_string(held) :
	    json_null());
	/* A binary patch is ASCII; a text one may not be UTF-8. */
	json_object_set_new(o, "patch", jp != NULL ? jp : json_null());
	return o;
}

static int
diffcmd_diff_project(struct diffcmd_ctx *c, const struct changes_project *p,
    const struct diffcmd_diff_opts *o, json_t *arr, size_t *files,
    size_t *adds, size_t *dels)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct change *ch = &p->v[i];
		cleanup_free char *buf = NULL, *cause = NULL;
		struct diff_stat st;
		size_t len = 0;
		char h[65], size[32];
		cleanup_free char *held = NULL;
		struct changes_cost cost;

		if (!diffcmd_pick(c, p, ch))
			continue;
		if (diffcmd_patch_steady(p, ch, &buf, &len, &st,
		    o->json ? h : NULL, &cause) < 0) {
			cleanup_free char *e = escape_str(cause);

			warn_msg("diff: %s", e);
			return 1;
		}
		(*files)++;
		*adds += st.added;
		*dels += st.deleted;
		changes_cost(p, ch, &cost);
		if (!diffcmd_held(&c->policy, p, ch, &cost, &held))
			held = NULL;
		size_human(ch->size, size, sizeof size);
		if (o->json) {
			json_array_append_new(arr, diffcmd_json_change(p, ch,
			    &st, buf, len, h, diffcmd_protected(&c->policy, p,
			    ch), held, &cost));
		} else if (o->stat) {
			cleanup_free char *abs = p->outside ?
			    xasprintf("/%s", ch->path) : NULL;
			/* Names quoted as in the patch (and git's --stat). */
			cleanup_free char *e = ch->from == NULL ?
			    diff_quote_path("", abs ? abs : ch->path) : NULL;

			if (e == NULL) {
				cleanup_free char *absf = p->outside ?
				    xasprintf("/%s", ch->from) : NULL;
				cleanup_free char *ef =
				    diff_quote_path("", absf ? absf : ch->from);
				cleanup_free char *et =
				    diff_quote_path("", abs ? abs : ch->path);

				e = xasprintf("%s -> %s", ef, et);
			}

			if (st.binary || st.capped)
				printf(" %s (%s) | Bin %lld bytes (%s)\n", e,
				    changes_kind_name(ch->kind),
				    (long long)ch->size, size);
			else
				printf(" %s (%s) | +%zu -%zu (%s)\n", e,
				    changes_kind_name(ch->kind), st.added,
				    st.deleted, size);
			if (held != NULL)
				printf("   held: %s; ward apply leaves it "
				    "staged unless named by path\n", held);
		} else {
			/* A comment line: git apply and patch skip it. */
			if (held != NULL)
				printf("# ward: held: %s; 'ward apply' leaves "
				    "the next file staged unless named by "
				    "path\n", held);
			diffcmd_colour(buf, len, o->colour, stdout);
		}
	}
	return 0;
}

static int
diffcmd_parse_colour(const char *v, bool *ret)
{
	if (v == NULL || strcmp(v, "auto") == 0)
		*ret = isatty(STDOUT_FILENO);
	else if (strcmp(v, "always") == 0)
		*ret = true;
	else if (strcmp(v, "never") == 0)
		*ret = false;
	else
		return -EINVAL;
	return 0;
}

const struct option diffcmd_diff_opts[] = {
	{ "stat", no_argument, NULL, OPT_STAT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "colour", optional_argument, NULL, OPT_COLOR },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int
diffcmd_diff(int argc, char **argv)
{
	struct diffcmd_ctx c = { .verb = "diff" };
	struct diffcmd_diff_opts o = { 0 };
	const char *colour = "auto";
	size_t files = 0, adds = 0, dels = 0;
	json_t *arr = NULL;
	int ch, status;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "sjh", diffcmd_diff_opts, NULL)) != -1) {
		switch (ch) {
		case OPT_STAT: o.stat = true; break;
		case OPT_JSON: o.json = true; break;
		case OPT_COLOR: colour = optarg ? optarg : "always"; break;
		case OPT_HELP:
			fputs(diffcmd_diff_help, stdout);
			return 0;
		default:
			return usage_error(2, "diff", "unknown option or a "
			    "missing value");
		}
	}
	if (diffcmd_parse_colour(colour, &o.colour) < 0)
		return usage_error(2,
		    "diff", "--color is auto, always or never");
	if ((status = diffcmd_target(&c, argc, argv, false, true)) != 0) {
		diffcmd_done(&c);
		return status;
	}
	if (o.json)
		arr = json_array();
	for (size_t i = 0; i < c.run.n && status == 0; i++) {
		const struct changes_project *p = &c.run.p[i];

		if (p->outside && !o.json && !o.stat && p->n > 0)
			printf("# ward: staged writes outside the projects, "
			    "paths from / (patch -p1 -d /)\n");
		else if (c.run.n > 1 && !o.json && !o.stat && p->n > 0)
			printf("# ward: project %d: %s\n", p->index, p->host);
		status = diffcmd_diff_project(&c, p, &o, arr, &files, &adds,
		    &dels);
	}
	if (status == 0)
		status = diffcmd_check_used(&c);
	if (o.json) {
		json_dumpf(arr, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(arr);
	} else if (o.stat) {
		printf(" %zu file%s changed, %zu insertion%s(+), %zu "
		    "deletion%s(-)\n", files, files == 1 ? "" : "s", adds,
		    adds == 1 ? "" : "s", dels, dels == 1 ? "" : "s");
	}
	diffcmd_done(&c);
	return status;
}

/* ------------------------------------------------------------------ */
/* The record of what was done. */

static char *
diffcmd_who(void)
{
	char name[256];
	unsigned int uid = (unsigned int)getuid();

	if (passwd_file_name("/etc/passwd", uid, name, sizeof name) == 0)
		return xasprintf("uid %u (%s)", uid, name);
	return xasprintf("uid %u", uid);
}

struct diffcmd_rec {
	struct audit	*a;
	char		*who;
	const char	*run;
	bool		 quiet;		/* the console: nothing on stderr */
	char		*err;		/* then the first warning, escaped */
};

/* A warning: on stderr, or kept for the console's status line. */
static void __attribute__((format(printf, 2, 3)))
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

static int
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

static void
diffcmd_rec_close(struct diffcmd_rec *rec)
{
	audit_close(rec->a);
	free(rec->who);
	free(rec->err);
}

static int
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
static int
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

/* ------------------------------------------------------------------ */
/* ward apply, ward discard */

/* Deletions first: a folder may have to go before a file takes its name. */
static int
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

/* What one file's apply or discard came to. */
enum diffcmd_outcome {
	DIFFCMD_DONE,
	DIFFCMD_CONFLICT,	/* left alone */
	DIFFCMD_FAILED,
	DIFFCMD_UNRECORDED,	/* the record refused: stop here */
};

/* One file into the host, its intent recorded first. Says what it did
 * on stdout unless rec->quiet. */
static enum diffcmd_outcome
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
static int
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

static enum diffcmd_outcome
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

/* ------------------------------------------------------------------ */
/* ward undo */

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

/* ------------------------------------------------------------------ */
/* The console's diff pane. */

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
