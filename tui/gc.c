/* SPDX-License-Identifier: MIT */
#include "tui/gc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "approvals/audit-changes.h"
#include "approvals/ctl.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/policy.h"
#include "config/util.h"

/* Deeper than this, a folder is left for a person: a program can make a
 * tree as deep as it likes, and each level here holds a descriptor. */
#define GC_MAX_DEPTH	256

#define GC_DEFAULT_AGE	"30d"

static const char gc_help[] =
"Usage: ward gc [--older-than AGE] [--max-size SIZE] [--dry-run]\n"
"\n"
"Remove old runs: each run's folder under $XDG_STATE_HOME/ward/runs and\n"
"its rows in the record (the run, its events and its output). Never a\n"
"live run's: one whose control socket answers is kept, and so is one\n"
"with no end in the record that started less than a day ago.\n"
"\n"
"Options:\n"
"  -o, --older-than AGE  runs started more than AGE ago (30d, 12h, 90m,\n"
"                        45s); the default when --max-size is not given\n"
"                        is " GC_DEFAULT_AGE "\n"
"  -s, --max-size SIZE   and the oldest runs until the folders and the\n"
"                        record's rows of those left fit in SIZE (2G, 500M)\n"
"  -n, --dry-run         say what would go, remove nothing\n"
"  -h, --help            show this help\n"
"\n"
"One line per run removed (RUN  STARTED  SIZE, separated by tabs), then\n"
"what was freed. The record's file keeps its size: sqlite reuses the\n"
"freed pages for the next runs.\n"
"Exit status: 0 ok, 1 something could not be removed or read, 2 usage.\n";

int
gc_parse_age(const char *s, int64_t *ret)
{
	char *end = NULL;
	unsigned long long n;
	int64_t mul;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0)
		return -EINVAL;
	switch (*end) {
	case '\0':
	case 's':
		mul = 1000;
		break;
	case 'm':
		mul = 60 * 1000;
		break;
	case 'h':
		mul = 3600 * 1000;
		break;
	case 'd':
		mul = 86400 * 1000LL;
		break;
	default:
		return -EINVAL;
	}
	if ((*end != '\0' && end[1] != '\0') || n > (unsigned long long)
	    (INT64_MAX / mul))
		return -EINVAL;
	*ret = (int64_t)n * mul;
	return 0;
}

void
gc_set_done(struct gc_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->run[i].id);
	free(set->run);
	set->run = NULL;
	set->n = 0;
}

static struct gc_run *
gc_find(struct gc_set *set, const char *id)
{
	for (size_t i = 0; i < set->n; i++) {
		if (strcmp(set->run[i].id, id) == 0)
			return &set->run[i];
	}
	return NULL;
}

static struct gc_run *
gc_add(struct gc_set *set, const char *id)
{
	struct gc_run *r;

	set->run = xreallocarray(set->run, set->n + 1, sizeof *set->run);
	r = &set->run[set->n++];
	memset(r, 0, sizeof *r);
	r->id = xstrdup(id);
	return r;
}

static int
gc_on_usage(const struct audit_usage *u, void *ctx)
{
	struct gc_set *set = ctx;
	struct gc_run *r = gc_find(set, u->run);

	if (r == NULL)
		r = gc_add(set, u->run);
	r->in_record = true;
	r->started_ms = u->started_ms;
	r->ended_ms = u->ended_ms;
	r->events = u->events;
	r->outputs = u->outputs;
	r->record_bytes = u->bytes;
	return 0;
}

/*
 * Walks name in dirfd without following a symlink or leaving the device:
 * adds its disk use to *bytes and, with remove, removes it. A folder of
 * ours the program made unreadable or unwritable (chmod 0) is made 0700
 * first. The first -errno, after doing what else it can.
 */
static int
gc_tree(int dirfd, const char *name, dev_t dev, bool remove, int depth,
    int64_t *bytes)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd, r = 0, e;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		if (remove && unlinkat(dirfd, name, 0) < 0)
			return -errno;
		*bytes += (int64_t)st.st_blocks * 512;
		return 0;
	}
	if (st.st_dev != dev)
		return -EXDEV;		/* a mount point: not ours to empty */
	if (depth >= GC_MAX_DEPTH)
		return -ELOOP;
	if (remove && (st.st_mode & 0700) != 0700 &&
	    fchmodat(dirfd, name, 0700, 0) < 0)
		return -errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if ((d = fdopendir(fd)) == NULL) {
		e = -errno;
		close(fd);
		return e;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		e = gc_tree(fd, de->d_name, dev, remove, depth + 1, bytes);
		if (e < 0 && r == 0)
			r = e;
	}
	closedir(d);
	if (r < 0)
		return r;
	if (remove && unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
		return -errno;
	*bytes += (int64_t)st.st_blocks * 512;
	return 0;
}

/* The runs folder, opened without following a symlink; -ENOENT if none. */
static int
gc_open_runs(const char *runs_dir, int *ret, dev_t *dev, char **cause)
{
	cleanup_fd int fd = -1;
	struct stat st;
	int r;

	fd = open(runs_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		if (r != -ENOENT)
			set_cause(cause, "%s: %s", runs_dir, strerror(-r));
		return r;
	}
	*dev = st.st_dev;
	*ret = steal_fd(&fd);
	return 0;
}

static int
gc_collect_folders(const char *runs_dir, struct gc_set *set, char **cause)
{
	cleanup_fd int fd = -1;
	struct dirent *de;
	struct stat st;
	dev_t dev;
	DIR *d;
	int r;

	if ((r = gc_open_runs(runs_dir, &fd, &dev, cause)) < 0)
		return r == -ENOENT ? 0 : r;
	if ((d = fdopendir(fcntl(fd, F_DUPFD_CLOEXEC, 0))) == NULL) {
		r = -errno;
		set_cause(cause, "%s: %s", runs_dir, strerror(-r));
		return r;
	}
	while ((de = readdir(d)) != NULL) {
		struct gc_run *run;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		/* Only folders: anything else here is not a run's. */
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if ((run = gc_find(set, de->d_name)) == NULL) {
			run = gc_add(set, de->d_name);
			run->started_ms = (int64_t)st.st_mtim.tv_sec * 1000;
		}
		run->has_folder = true;
		/* Sizes that cannot all be read still count what could. */
		(void)gc_tree(fd, de->d_name, dev, false, 0,
		    &run->folder_bytes);
	}
	closedir(d);
	return 0;
}

static int
gc_cmp(const void *a, const void *b)
{
	const struct gc_run *x = a, *y = b;

	if (x->started_ms != y->started_ms)
		return x->started_ms < y->started_ms ? -1 : 1;
	return strcmp(x->id, y->id);
}

int
gc_collect(struct audit *a, const char *runs_dir, char *const *live,
    size_t n_live, struct gc_set *set, char **cause)
{
	int r;

	memset(set, 0, sizeof *set);
	if (a != NULL && (r = audit_each_usage(a, gc_on_usage, set,
	    cause)) < 0)
		return r;
	if ((r = gc_collect_folders(runs_dir, set, cause)) < 0)
		return r;
	for (size_t i = 0; i < n_live; i++) {
		struct gc_run *run = gc_find(set, live[i]);

		if (run != NULL)
			run->live = true;
	}
	if (set->n > 1)
		qsort(set->run, set->n, sizeof *set->run, gc_cmp);
	return 0;
}

static bool
gc_may_drop(const struct gc_run *r, int64_t now_ms)
{
	if (r->live)
		return false;
	if (r->in_record && r->ended_ms > 0)
		return true;
	return r->started_ms <= now_ms - GC_GRACE_MS;
}

void
gc_select(struct gc_set *set, const struct gc_limits *lim)
{
	int64_t total = 0;

	for (size_t i = 0; i < set->n; i++) {
		struct gc_run *r = &set->run[i];

		r->drop = false;
		total += r->record_bytes + r->folder_bytes;
	}
	for (size_t i = 0; i < set->n; i++) {
		struct gc_run *r = &set->run[i];

		if (!gc_may_drop(r, lim->now_ms))
			continue;
		if (lim->older_than_ms >= 0 &&
		    r->started_ms < lim->now_ms - lim->older_than_ms)
			r->drop = true;
		else if (lim->max_bytes >= 0 && total > lim->max_bytes)
			r->drop = true;
		if (r->drop)
			total -= r->record_bytes + r->folder_bytes;
	}
}

int
gc_apply(struct audit *a, const char *runs_dir, struct gc_set *set, bool dry,
    struct audit_freed *freed, int64_t *folder_bytes, char **cause)
{
	cleanup_fd int fd = -1;
	dev_t dev = 0;
	int first = 0, r;

	if ((r = gc_open_runs(runs_dir, &fd, &dev, cause)) < 0 && r != -ENOENT)
		return r;
	for (size_t i = 0; i < set->n; i++) {
		struct gc_run *run = &set->run[i];
		int64_t bytes = 0;

		if (!run->drop)
			continue;
		if (run->has_folder && !dry && fd >= 0 &&
		    (r = gc_tree(fd, run->id, dev, true, 0, &bytes)) < 0) {
			if (first == 0)
				set_cause(cause, "%s/%s: cannot remove it: %s "
				    "(its record is kept)", runs_dir, run->id,
				    r == -EXDEV ? "a mount point inside" :
				    r == -ELOOP ? "too deep" : strerror(-r));
			first = first ? first : r;
			*folder_bytes += bytes;
			run->drop = false;
			continue;
		}
		*folder_bytes += dry ? run->folder_bytes : bytes;
		if (!run->in_record)
			continue;
		if (dry) {
			freed->runs++;
			freed->events += run->events;
			freed->outputs += run->outputs;
			freed->bytes += run->record_bytes;
		} else if ((r = audit_forget_run(a, run->id, freed,
		    first == 0 ? cause : NULL)) < 0) {
			first = first ? first : r;
			run->drop = false;
		}
	}
	return first;
}

static void
gc_print(const struct gc_set *set, bool dry, const struct audit_freed *f,
    int64_t folder_bytes)
{
	char size[32], rec[32], fold[32];
	size_t n = 0, folders = 0;

	for (size_t i = 0; i < set->n; i++) {
		const struct gc_run *r = &set->run[i];
		cleanup_free char *eid = NULL;
		char when[TIME_RFC3339_LEN];

		if (!r->drop)
			continue;
		n++;
		folders += r->has_folder;
		eid = escape_str(r->id);
		time_local_rfc3339(r->started_ms, when);
		size_human(r->record_bytes + r->folder_bytes, size, sizeof size);
		printf("%s\t%s\t%s\n", eid, when, size);
	}
	size_human(folder_bytes + f->bytes, size, sizeof size);
	size_human(folder_bytes, fold, sizeof fold);
	size_human(f->bytes, rec, sizeof rec);
	printf("%s %zu run%s: %zu folder%s; from the record %" PRId64
	    " run%s, %" PRId64 " event%s, %" PRId64 " output row%s; %s %s "
	    "(folders %s, record %s)\n", dry ? "would remove" : "removed", n,
	    n == 1 ? "" : "s", folders, folders == 1 ? "" : "s", f->runs,
	    f->runs == 1 ? "" : "s", f->events, f->events == 1 ? "" : "s",
	    f->outputs, f->outputs == 1 ? "" : "s",
	    dry ? "would free" : "freed", size, fold, rec);
}

static int gc_usage(const char *, ...) __attribute__((format(printf, 1, 2)));

static int
gc_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("ward gc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("; see 'ward gc --help'\n", stderr);
	return 2;
}

const struct option gc_opts[] = {
	{ "older-than", required_argument, NULL, 'o' },
	{ "max-size", required_argument, NULL, 's' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Options into lim and *dry; -1 to go on, else the exit status. */
static int
gc_options(int argc, char **argv, struct gc_limits *lim, bool *dry)
{
	uint64_t size;
	int c;

	lim->older_than_ms = -1;
	lim->max_bytes = -1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:s:nh", gc_opts, NULL)) != -1) {
		cleanup_free char *e = escape_str(c == 'o' || c == 's' ? optarg :
		    argv[optind - 1]);

		switch (c) {
		case 'o':
			if (gc_parse_age(optarg, &lim->older_than_ms) < 0)
				return gc_usage("--older-than: \"%s\" is not an "
				    "age (use 30d, 12h, 90m, 45s)", e);
			break;
		case 's':
			if (policy_parse_size(optarg, &size) < 0 ||
			    strcmp(optarg, "none") == 0 || size > INT64_MAX)
				return gc_usage("--max-size: \"%s\" is not a "
				    "size (use 2G, 500M, 1048576)", e);
			lim->max_bytes = (int64_t)size;
			break;
		case 'n':
			*dry = true;
			break;
		case 'h':
			fputs(gc_help, stdout);
			return 0;
		case ':':
			return gc_usage("option '%s' needs a value", e);
		default:
			return gc_usage("unknown option '%s'", e);
		}
	}
	if (optind < argc) {
		cleanup_free char *e = escape_str(argv[optind]);

		return gc_usage("unexpected argument '%s'", e);
	}
	if (lim->older_than_ms < 0 && lim->max_bytes < 0)
		(void)gc_parse_age(GC_DEFAULT_AGE, &lim->older_than_ms);
	return -1;
}

/* The record, if there is one: read-only for a dry run. */
static int
gc_open_record(const char *state, bool dry, struct audit **ret, char **cause)
{
	cleanup_free char *db = xasprintf("%s/audit.db", state);
	struct stat st;

	*ret = NULL;
	if (lstat(db, &st) < 0 && errno == ENOENT)
		return 0;
	if (dry)
		return audit_open_readonly(db, ret, cause);
	return audit_open(db, ret, cause);
}

int
gc_main(int argc, char **argv)
{
	cleanup_free char *state = NULL, *runs = NULL, *cause = NULL;
	cleanup_strv char **live = NULL;
	struct gc_limits lim = { 0 };
	struct gc_set set = { 0 };
	struct audit_freed freed = { 0 };
	struct audit *a = NULL;
	int64_t folder_bytes = 0;
	size_t n_live = 0;
	bool dry = false;
	int status, r;

	if ((status = gc_options(argc, argv, &lim, &dry)) >= 0)
		return status;
	lim.now_ms = now_wall_ms();
	if (paths_state_make(&state, &cause) < 0 ||
	    paths_runs_make(&runs, &cause) < 0) {
		warn_msg("gc: the state folder: %s", cause);
		return 1;
	}
	/* Which runs are live: without the answer nothing is safe to take. */
	if ((r = ctl_list(&live, &n_live)) < 0) {
		warn_msg("gc: cannot list the live runs: %s", strerror(-r));
		return 1;
	}
	if ((r = gc_open_record(state, dry, &a, &cause)) < 0) {
		warn_msg("gc: %s", cause ? cause : strerror(-r));
		return 1;
	}
	/* Runs whose supervisor is gone are ended (lost) first, their
	 * sockets removed; a dry run changes nothing. */
	if (a != NULL && !dry && ctl_recover(a, "ward gc", NULL, NULL,
	    &cause) < 0) {
		warn_msg("gc: record: %s (lost runs not marked)", cause);
		free(cause);
		cause = NULL;
	}
	if ((r = gc_collect(a, runs, live, n_live, &set, &cause)) < 0) {
		warn_msg("gc: %s", cause ? cause : strerror(-r));
		audit_close(a);
		return 1;
	}
	gc_select(&set, &lim);
	r = gc_apply(a, runs, &set, dry, &freed, &folder_bytes, &cause);
	audit_close(a);
	gc_print(&set, dry, &freed, folder_bytes);
	gc_set_done(&set);
	if (r < 0) {
		warn_msg("gc: %s", cause ? cause : strerror(-r));
		return 1;
	}
	return 0;
}
