/* SPDX-License-Identifier: MIT */
#include "approvals/changes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "approvals/gitapi.h"
#include "config/util.h"

/* git's own rule reads this much of a file to call it binary. */
#define CHANGES_SNIFF	8000
#define CHANGES_WH	".wh."
#define CHANGES_OPQ	".wh..wh..opq"
/* A rename with edits: git's default threshold, files up to this size,
 * and at most this many deleted x added pairs weighed. */
#define CHANGES_SIMILAR	50
#define CHANGES_SIMILAR_MAX	(8u << 20)
#define CHANGES_SIMILAR_PAIRS	10000

static const char *const changes_kinds[] = {
	[CHANGE_ADDED] = "added",
	[CHANGE_MODIFIED] = "modified",
	[CHANGE_DELETED] = "deleted",
	[CHANGE_RENAMED] = "renamed",
	[CHANGE_MODE] = "mode",
	[CHANGE_SYMLINK] = "symlink",
};

const char *
changes_kind_name(enum change_kind k)
{
	if ((size_t)k < ARRAY_SIZE(changes_kinds))
		return changes_kinds[k];
	return "?";
}

int
changes_kind_parse(const char *s, enum change_kind *ret)
{
	for (size_t i = 0; s != NULL && i < ARRAY_SIZE(changes_kinds); i++) {
		if (strcmp(changes_kinds[i], s) == 0) {
			*ret = (enum change_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

static void
changes_closedirp(DIR **dp)
{
	if (*dp != NULL)
		closedir(*dp);
}
#define cleanup_dir __attribute__((cleanup(changes_closedirp)))

static void
changes_fclosep(FILE **fp)
{
	if (*fp != NULL)
		fclose(*fp);
}
#define cleanup_file __attribute__((cleanup(changes_fclosep)))

/* "a" + "b" -> "a/b"; "" + "b" -> "b". */
static char *
changes_join(const char *a, const char *b)
{
	if (*a == '\0')
		return xstrdup(b);
	if (*b == '\0')
		return xstrdup(a);
	return xasprintf("%s/%s", a, b);
}

static char *
changes_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
	    e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* ------------------------------------------------------------------ */
/* The run folder's description of its projects. */

static int
changes_read_ini(struct changes_project *p, char **cause)
{
	cleanup_free char *path = xasprintf("%s/project.ini", p->dir);
	cleanup_file FILE *f = fopen(path, "re");
	char line[PATH_MAX + 64];

	if (f == NULL) {
		int r = -errno;

		set_cause(cause, "%s: %s", path, strerror(-r));
		return r;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		char *eq = strchr(line, '='), *k, *v;

		if (eq == NULL || line[0] == '#' || line[0] == ';')
			continue;
		*eq = '\0';
		k = changes_trim(line);
		v = changes_trim(eq + 1);
		if (strcmp(k, "host") == 0) {
			free(p->host);
			p->host = xstrdup(v);
		} else if (strcmp(k, "mode") == 0) {
			p->copy = strcmp(v, "copy") == 0;
		} else if (strcmp(k, "started_ms") == 0) {
			p->started_ms = strtoll(v, NULL, 10);
		}
	}
	if (p->host == NULL || p->host[0] != '/') {
		set_cause(cause, "%s: no absolute host = path", path);
		return -EINVAL;
	}
	return 0;
}

/* RUN/outside, when a write outside was staged: one more project. */
static void
changes_open_outside(struct changes_run *run)
{
	cleanup_free char *dir = xasprintf("%s/outside", run->dir);
	cleanup_free char *upper = xasprintf("%s/upper", dir);
	struct changes_project *p;
	struct stat st;

	if (lstat(upper, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	run->p = xreallocarray(run->p, run->n + 1, sizeof *run->p);
	p = &run->p[run->n++];
	memset(p, 0, sizeof *p);
	p->index = -1;
	p->outside = true;
	p->host = xstrdup("");
	p->dir = steal_ptr(&dir);
	p->upper = steal_ptr(&upper);
}

int
changes_open(const char *run_dir, struct changes_run *ret, char **cause)
{
	cleanup_free char *tsv = xasprintf("%s/projects.tsv", run_dir);
	cleanup_file FILE *f = fopen(tsv, "re");
	struct changes_run run = { .dir = xstrdup(run_dir) };
	char line[PATH_MAX + 64];
	int r;

	if (f == NULL && errno == ENOENT) {
		changes_open_outside(&run);
		if (run.n > 0) {
			*ret = run;
			return 0;
		}
		errno = ENOENT;
	}
	if (f == NULL) {
		r = -errno;
		set_cause(cause, "%s: %s", tsv, r == -ENOENT ?
		    "the run has no projects" : strerror(-r));
		changes_done(&run);
		return r;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		struct changes_project *p;
		char *end;
		long n = strtol(line, &end, 10);

		if (end == line || *end != '\t' || n < 0 || n > INT_MAX)
			continue;
		run.p = xreallocarray(run.p, run.n + 1, sizeof *run.p);
		p = &run.p[run.n++];
		memset(p, 0, sizeof *p);
		p->index = (int)n;
		p->dir = xasprintf("%s/projects/%ld", run_dir, n);
		p->upper = xasprintf("%s/upper", p->dir);
		if ((r = changes_read_ini(p, cause)) < 0) {
			changes_done(&run);
			return r;
		}
	}
	changes_open_outside(&run);
	if (run.n == 0) {
		set_cause(cause, "%s: the run has no projects", tsv);
		changes_done(&run);
		return -ENOENT;
	}
	*ret = run;
	return 0;
}

static void
changes_clear(struct changes_project *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].path);
		free(p->v[i].from);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

void
changes_done(struct changes_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		changes_clear(&run->p[i]);
		free(run->p[i].host);
		free(run->p[i].dir);
		free(run->p[i].upper);
	}
	free(run->p);
	free(run->dir);
	memset(run, 0, sizeof *run);
}

/* ------------------------------------------------------------------ */
/* Hashes and contents. */

int
changes_hash_path(const char *path, char out[65])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	struct stat st;
	char buf[65536];
	ssize_t n;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		strcpy(out, "-");
		return 0;
	}
	sha256_init(&ctx);
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlink(path, buf, sizeof buf)) < 0)
			return -errno;
		sha256_update(&ctx, (size_t)n, (const uint8_t *)buf);
	} else if (S_ISREG(st.st_mode)) {
		cleanup_fd int fd = open(path, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC | O_NONBLOCK);

		if (fd < 0)
			return -errno;
		while ((n = read(fd, buf, sizeof buf)) > 0)
			sha256_update(&ctx, (size_t)n, (const uint8_t *)buf);
		if (n < 0)
			return -errno;
	} else {
		return -EINVAL;
	}
	sha256_digest(&ctx, sizeof d, d);
	hex_encode(d, sizeof d, out);
	return 0;
}

/* A file's bytes or a symlink's target, whole, at most max bytes. */
static int
changes_slurp(const char *path, size_t max, char **buf, size_t *len)
{
	cleanup_free char *b = NULL;
	cleanup_fd int fd = -1;
	struct stat st;
	size_t have = 0;
	ssize_t n;

	*buf = NULL;
	*len = 0;
	if (lstat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	if (S_ISLNK(st.st_mode)) {
		b = xmalloc(PATH_MAX + 1);
		if ((n = readlink(path, b, PATH_MAX)) < 0)
			return -errno;
		b[n] = '\0';
		*len = (size_t)n;
		*buf = steal_ptr(&b);
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) < 0)
		return -errno;
	b = xmalloc((size_t)st.st_size + 1);
	while (have < (size_t)st.st_size &&
	    (n = read(fd, b + have, (size_t)st.st_size - have)) > 0)
		have += (size_t)n;
	b[have] = '\0';
	*len = have;
	*buf = steal_ptr(&b);
	return 0;
}

static bool changes_host_ok(const char *, const char *);

int
changes_read(const struct changes_project *p, const struct change *c,
    bool new_side, size_t max, char **buf, size_t *len)
{
	cleanup_free char *path = NULL;

	if (new_side) {
		if (c->kind == CHANGE_DELETED) {
			*buf = NULL;
			*len = 0;
			return 0;
		}
		path = xasprintf("%s/%s", p->upper, c->path);
	} else {
		if (c->kind == CHANGE_ADDED) {
			*buf = NULL;
			*len = 0;
			return 0;
		}
		if (!changes_host_ok(p->host, c->from != NULL ? c->from :
		    c->path)) {
			*buf = NULL;
			*len = 0;
			return 0;
		}
		path = xasprintf("%s/%s", p->host,
		    c->from != NULL ? c->from : c->path);
	}
	return changes_slurp(path, max, buf, len);
}

/* Same bytes? Regular files of equal size, compared in blocks. */
static bool
changes_same_bytes(const char *a, const char *b)
{
	cleanup_fd int fa = open(a, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	cleanup_fd int fb = open(b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	char ba[16384], bb[16384];

	if (fa < 0 || fb < 0)
		return false;
	for (;;) {
		ssize_t na = read(fa, ba, sizeof ba);
		ssize_t nb, got = 0;

		if (na < 0)
			return false;
		while (got < na && (nb = read(fb, bb + got,
		    (size_t)(na - got))) > 0)
			got += nb;
		if (got != na || memcmp(ba, bb, (size_t)na) != 0)
			return false;
		if (na == 0)
			return read(fb, bb, 1) == 0;
	}
}

static bool
changes_sniff_binary(const char *path)
{
	cleanup_fd int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	char buf[CHANGES_SNIFF];
	ssize_t n;

	if (fd < 0 || (n = read(fd, buf, sizeof buf)) <= 0)
		return false;
	if (gitapi_load(NULL) < 0)
		return memchr(buf, '\0', (size_t)n) != NULL;
	return GIT(git_blob_data_is_binary)(buf, (size_t)n) == 1;
}

/*
 * Is every folder on the way from the project root to rel a real folder
 * on the host (or not there yet)? The names come from upper/, which the
 * sandboxed program wrote: a host symlink on the way (a folder the agent
 * replaced) must not carry a write, or a read, out of the project.
 */
static bool
changes_host_ok(const char *root, const char *rel)
{
	cleanup_free char *path = xasprintf("%s/%s", root, rel);
	char *s = path + strlen(root) + 1;
	struct stat st;

	for (; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (lstat(path, &st) < 0) {
			*s = '/';
			return errno == ENOENT;
		}
		*s = '/';
		if (!S_ISDIR(st.st_mode))
			return false;
	}
	return true;
}

/* A whiteout's target must be a plain name. */
static bool
changes_name_ok(const char *name)
{
	return *name != '\0' && strcmp(name, ".") != 0 &&
	    strcmp(name, "..") != 0 && strchr(name, '/') == NULL;
}

/* ------------------------------------------------------------------ */
/* Listing. */

struct changes_scan {
	struct changes_project *p;
	char		*cause;
};

static void
changes_add(struct changes_project *p, const char *rel, enum change_kind k,
    mode_t old_mode, mode_t new_mode, int64_t size)
{
	struct change *c;

	p->v = xreallocarray(p->v, p->n + 1, sizeof *p->v);
	c = &p->v[p->n++];
	memset(c, 0, sizeof *c);
	c->path = xstrdup(rel);
	c->kind = k;
	c->old_mode = old_mode;
	c->new_mode = new_mode;
	c->size = size;
}

/* Every host file at or below rel, as deleted. */
static int
changes_deleted_tree(struct changes_project *p, const char *rel)
{
	cleanup_free char *host = xasprintf("%s/%s", p->host, rel);
	cleanup_dir DIR *d = NULL;
	struct dirent *e;
	struct stat st;
	int r;

	if (!changes_host_ok(p->host, rel))
		return 0;
	if (lstat(host, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
		changes_add(p, rel, CHANGE_DELETED, st.st_mode, 0, st.st_size);
		return 0;
	}
	if (!S_ISDIR(st.st_mode) || (d = opendir(host)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		cleanup_free char *sub = NULL;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		sub = changes_join(rel, e->d_name);
		if ((r = changes_deleted_tree(p, sub)) < 0)
			return r;
	}
	return 0;
}

/* Is the upper folder at path opaque (its host folder hidden whole)? */
static bool
changes_opaque(const struct changes_project *p, const char *path)
{
	cleanup_free char *opq = xasprintf("%s/" CHANGES_OPQ, path);
	char v[2];

	if (getxattr(path, "trusted.overlay.opaque", v, sizeof v) == 1 &&
	    v[0] == 'y')
		return true;
	if (getxattr(path, "user.overlay.opaque", v, sizeof v) == 1 &&
	    v[0] == 'y')
		return true;
	return p->copy && access(opq, F_OK) == 0;
}

/* Under an opaque upper folder rel: each host entry the upper lacks is
 * deleted; folders on both sides are opaque too (the kernel does not
 * look below an opaque folder). */
static int
changes_deleted_under(struct changes_project *p, const char *rel)
{
	cleanup_free char *host = xasprintf("%s/%s", p->host, rel);
	cleanup_dir DIR *d = opendir(host);
	struct dirent *e;
	int r;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		cleanup_free char *sub = NULL, *up = NULL, *hp = NULL;
		struct stat us, hs;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		sub = changes_join(rel, e->d_name);
		up = xasprintf("%s/%s", p->upper, sub);
		hp = xasprintf("%s/%s", p->host, sub);
		if (lstat(hp, &hs) < 0)
			continue;
		if (lstat(up, &us) < 0 || (S_ISCHR(us.st_mode) &&
		    us.st_rdev == makedev(0, 0)))
			r = changes_deleted_tree(p, sub);
		else if (S_ISDIR(us.st_mode) && S_ISDIR(hs.st_mode))
			r = changes_deleted_under(p, sub);
		else
			r = 0;
		if (r < 0)
			return r;
	}
	return 0;
}

static int64_t
changes_ms(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000 + t->tv_nsec / 1000000;
}

/*
 * Copy mode's copy is of the whole project, each file with its mtime:
 * one the program never wrote is older than the run. When the host's
 * file changed (or went) since the run started, the difference is the
 * host's own doing, not the run's: no change (else apply would undo the
 * host's edit). A program that backdates a file it wrote only keeps its
 * own change from the host.
 */
static bool
changes_host_only(const struct changes_project *p, const char *host,
    const struct stat *us)
{
	cleanup_free char *parent = NULL;
	struct stat hs;

	if (!p->copy || p->started_ms <= 0 ||
	    changes_ms(&us->st_mtim) > p->started_ms)
		return false;
	if (lstat(host, &hs) == 0)
		return changes_ms(&hs.st_mtim) > p->started_ms ||
		    changes_ms(&hs.st_ctim) > p->started_ms;
	if (errno != ENOENT)
		return false;
	/* Gone: removed by the host if its folder changed during the run
	 * (else the program made it, backdated: its own). */
	parent = xstrdup(host);
	*strrchr(parent, '/') = '\0';
	return lstat(parent, &hs) == 0 && S_ISDIR(hs.st_mode) &&
	    changes_ms(&hs.st_mtim) > p->started_ms;
}

/* An upper file or symlink against the host's. */
static int
changes_compare(struct changes_project *p, const char *rel,
    const struct stat *us)
{
	cleanup_free char *host = xasprintf("%s/%s", p->host, rel);
	cleanup_free char *up = xasprintf("%s/%s", p->upper, rel);
	struct stat hs;
	int r;

	/* Behind a host symlink the host side is not the project's: the
	 * file reads as added (and changes_apply refuses it). */
	if (!changes_host_ok(p->host, rel)) {
		changes_add(p, rel, CHANGE_ADDED, 0, us->st_mode, us->st_size);
		return 0;
	}
	if (changes_host_only(p, host, us))
		return 0;
	if (lstat(host, &hs) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		changes_add(p, rel, CHANGE_ADDED, 0, us->st_mode, us->st_size);
		return 0;
	}
	if (S_ISDIR(hs.st_mode)) {
		if ((r = changes_deleted_tree(p, rel)) < 0)
			return r;
		changes_add(p, rel, CHANGE_ADDED, 0, us->st_mode, us->st_size);
		return 0;
	}
	if (!S_ISREG(hs.st_mode) && !S_ISLNK(hs.st_mode))
		return 0;
	if ((hs.st_mode & S_IFMT) != (us->st_mode & S_IFMT)) {
		changes_add(p, rel, CHANGE_SYMLINK, hs.st_mode, us->st_mode,
		    us->st_size);
		return 0;
	}
	if (S_ISLNK(hs.st_mode)) {
		char a[PATH_MAX], b[PATH_MAX];
		ssize_t na = readlink(host, a, sizeof a);
		ssize_t nb = readlink(up, b, sizeof b);

		if (na != nb || (na > 0 && memcmp(a, b, (size_t)na) != 0))
			changes_add(p, rel, CHANGE_SYMLINK, hs.st_mode,
			    us->st_mode, us->st_size);
		return 0;
	}
	if (hs.st_size != us->st_size || !changes_same_bytes(host, up))
		changes_add(p, rel, CHANGE_MODIFIED, hs.st_mode, us->st_mode,
		    us->st_size);
	else if ((hs.st_mode & 07777) != (us->st_mode & 07777))
		changes_add(p, rel, CHANGE_MODE, hs.st_mode, us->st_mode,
		    us->st_size);
	return 0;
}

static int
changes_scan_dir(struct changes_project *p, const char *rel)
{
	cleanup_free char *dir = xasprintf("%s/%s", p->upper, rel);
	cleanup_dir DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (d == NULL)
		return errno == ENOENT && *rel == '\0' ? 0 : -errno;
	if (*rel != '\0' && changes_opaque(p, dir) &&
	    (r = changes_deleted_under(p, rel)) < 0)
		return r;
	while ((e = readdir(d)) != NULL) {
		cleanup_free char *sub = NULL, *up = NULL, *host = NULL;
		struct stat us, hs;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (p->copy && strncmp(e->d_name, CHANGES_WH,
		    strlen(CHANGES_WH)) == 0) {
			if (strcmp(e->d_name, CHANGES_OPQ) == 0 ||
			    !changes_name_ok(e->d_name + strlen(CHANGES_WH)))
				continue;
			sub = changes_join(rel, e->d_name + strlen(CHANGES_WH));
			if ((r = changes_deleted_tree(p, sub)) < 0)
				return r;
			continue;
		}
		sub = changes_join(rel, e->d_name);
		up = xasprintf("%s/%s", p->upper, sub);
		if (lstat(up, &us) < 0)
			continue;
		if (S_ISCHR(us.st_mode) && us.st_rdev == makedev(0, 0)) {
			r = changes_deleted_tree(p, sub);
		} else if (S_ISDIR(us.st_mode)) {
			host = xasprintf("%s/%s", p->host, sub);
			/* A folder where the host has a file: the file went. */
			if (lstat(host, &hs) == 0 && !S_ISDIR(hs.st_mode) &&
			    (r = changes_deleted_tree(p, sub)) < 0)
				return r;
			r = changes_scan_dir(p, sub);
		} else if (S_ISREG(us.st_mode) || S_ISLNK(us.st_mode)) {
			r = changes_compare(p, sub, &us);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int
changes_cmp(const void *a, const void *b)
{
	return strcmp(((const struct change *)a)->path,
	    ((const struct change *)b)->path);
}

/* A pair becomes one rename of from's path (the pair's deletion marked
 * for dropping). */
static void
changes_pair(struct change *del, struct change *add, int similarity)
{
	add->kind = CHANGE_RENAMED;
	add->from = steal_ptr(&del->path);
	add->old_mode = del->old_mode;
	add->similarity = similarity;
	del->kind = (enum change_kind)-1;
}

/* A deleted and an added regular file of the same bytes: one rename. */
static void
changes_pair_exact(struct changes_project *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct change *del = &p->v[i];
		cleanup_free char *hp = NULL;
		char hd[65];

		if (del->kind != CHANGE_DELETED || !S_ISREG(del->old_mode) ||
		    del->size == 0)
			continue;
		hp = xasprintf("%s/%s", p->host, del->path);
		if (changes_hash_path(hp, hd) < 0)
			continue;
		for (size_t j = 0; j < p->n; j++) {
			struct change *add = &p->v[j];
			cleanup_free char *up = NULL;
			char ha[65];

			if (add->kind != CHANGE_ADDED ||
			    !S_ISREG(add->new_mode) || add->size != del->size)
				continue;
			up = xasprintf("%s/%s", p->upper, add->path);
			if (changes_hash_path(up, ha) < 0 ||
			    strcmp(ha, hd) != 0)
				continue;
			changes_pair(del, add, 100);
			break;
		}
	}
}

/* libgit2's signature of one side (what git_diff_find_similar compares),
 * NULL when it cannot be had. */
static git_hashsig *
changes_sig(const struct changes_project *p, const struct change *c,
    bool new_side)
{
	cleanup_free char *buf = NULL;
	git_hashsig *sig = NULL;
	size_t len = 0;

	if (changes_read(p, c, new_side, CHANGES_SIMILAR_MAX, &buf,
	    &len) < 0 || buf == NULL || len == 0)
		return NULL;
	if (GIT(git_hashsig_create)(&sig, buf, len, GIT_HASHSIG_NORMAL |
	    GIT_HASHSIG_ALLOW_SMALL_FILES) < 0)
		return NULL;
	return sig;
}

/*
 * What is left: a deleted and an added regular file at least
 * CHANGES_SIMILAR percent alike by libgit2's measure (git's own default
 * threshold for a rename), each deleted file with its most alike added
 * one. Only when libgit2 loads, and only for a bounded number of pairs.
 */
static void
changes_pair_similar(struct changes_project *p)
{
	size_t nd = 0, na = 0;
	git_hashsig **sig = NULL;

	if (gitapi_load(NULL) < 0)
		return;
	for (size_t i = 0; i < p->n; i++) {
		nd += p->v[i].kind == CHANGE_DELETED;
		na += p->v[i].kind == CHANGE_ADDED;
	}
	if (nd == 0 || na == 0 || nd * na > CHANGES_SIMILAR_PAIRS)
		return;
	sig = xcalloc(p->n + 1, sizeof *sig);
	for (size_t i = 0; i < p->n; i++) {
		const struct change *c = &p->v[i];

		if (c->kind == CHANGE_DELETED && S_ISREG(c->old_mode))
			sig[i] = changes_sig(p, c, false);
		else if (c->kind == CHANGE_ADDED && S_ISREG(c->new_mode))
			sig[i] = changes_sig(p, c, true);
	}
	for (size_t i = 0; i < p->n; i++) {
		int best = CHANGES_SIMILAR - 1, score;
		size_t at = p->n;

		if (p->v[i].kind != CHANGE_DELETED || sig[i] == NULL)
			continue;
		for (size_t j = 0; j < p->n; j++) {
			if (p->v[j].kind != CHANGE_ADDED || sig[j] == NULL)
				continue;
			score = GIT(git_hashsig_compare)(sig[i], sig[j]);
			if (score > best) {
				best = score;
				at = j;
			}
		}
		if (at < p->n)
			changes_pair(&p->v[i], &p->v[at], best);
	}
	for (size_t i = 0; i < p->n; i++)
		if (sig[i] != NULL)
			GIT(git_hashsig_free)(sig[i]);
	free(sig);
}

static void
changes_pair_renames(struct changes_project *p)
{
	changes_pair_exact(p);
	changes_pair_similar(p);
	for (size_t i = 0, o = 0, n = p->n; i < n; i++) {
		if ((int)p->v[i].kind == -1) {
			free(p->v[i].path);
			p->n--;
			continue;
		}
		p->v[o++] = p->v[i];
	}
}

int
changes_scan_project(struct changes_project *p, char **cause)
{
	int r;

	changes_clear(p);
	if ((r = changes_scan_dir(p, "")) < 0) {
		set_cause(cause, "%s: %s", p->upper, strerror(-r));
		changes_clear(p);
		return r;
	}
	changes_pair_renames(p);
	if (p->n > 1)
		qsort(p->v, p->n, sizeof *p->v, changes_cmp);
	for (size_t i = 0; i < p->n; i++) {
		struct change *c = &p->v[i];
		cleanup_free char *old = xasprintf("%s/%s", p->host,
		    c->from != NULL ? c->from : c->path);
		cleanup_free char *up = xasprintf("%s/%s", p->upper, c->path);

		c->binary = (S_ISREG(c->old_mode) &&
		    changes_sniff_binary(old)) ||
		    (S_ISREG(c->new_mode) && changes_sniff_binary(up));
	}
	return 0;
}

int
changes_scan(struct changes_run *run, char **cause)
{
	int r;

	for (size_t i = 0; i < run->n; i++)
		if ((r = changes_scan_project(&run->p[i], cause)) < 0)
			return r;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Conflicts. */

/* The manifest's hash for rel: 1 found, 0 not listed, -errno no file. */
static int
changes_manifest(const struct changes_project *p, const char *rel,
    char out[65])
{
	cleanup_free char *path = xasprintf("%s/manifest.tsv", p->dir);
	cleanup_file FILE *f = fopen(path, "re");
	char line[PATH_MAX + 80];
	size_t n = strlen(rel);

	/* A staged write outside: its host file as it was at stage time. */
	if (p->outside) {
		cleanup_free char *base = xasprintf("%s/base/%s", p->dir, rel);

		return changes_hash_path(base, out) < 0 ? -EIO : 1;
	}
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, rel, n) == 0 && line[n] == '\t') {
			snprintf(out, 65, "%s", changes_trim(line + n + 1));
			return 1;
		}
	}
	return 0;
}

static bool
changes_conflict_one(const struct changes_project *p, const char *rel,
    char **why)
{
	cleanup_free char *host = xasprintf("%s/%s", p->host, rel);
	char want[65], now[65];
	struct stat st;
	int m = changes_manifest(p, rel, want);
	int64_t mt, ct;

	if (m >= 0) {
		if (m == 0)
			strcpy(want, "-");
		if (changes_hash_path(host, now) < 0 || strcmp(now, want) != 0) {
			*why = xasprintf("%s: the host file is not what it was "
			    "at the run's start (sha256 %.12s, was %.12s)",
			    rel, now, want);
			return true;
		}
		return false;
	}
	if (lstat(host, &st) < 0)
		return false;
	mt = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
	ct = (int64_t)st.st_ctim.tv_sec * 1000 + st.st_ctim.tv_nsec / 1000000;
	if (mt > p->started_ms || ct > p->started_ms) {
		*why = xasprintf("%s: the host file changed after the run "
		    "started", rel);
		return true;
	}
	return false;
}

bool
changes_conflict(const struct changes_project *p, const struct change *c,
    char **why)
{
	cleanup_free char *host = NULL;

	*why = NULL;
	if (c->kind == CHANGE_ADDED || c->kind == CHANGE_RENAMED) {
		host = xasprintf("%s/%s", p->host, c->path);
		if (access(host, F_OK) == 0 || errno != ENOENT) {
			char want[65];

			/* There at the start too: then the usual rule. */
			if (changes_manifest(p, c->path, want) == 1 ||
			    c->kind == CHANGE_RENAMED)
				return changes_conflict_one(p, c->path, why);
			*why = xasprintf("%s: a file appeared on the host "
			    "during the run", c->path);
			return true;
		}
		if (c->kind == CHANGE_RENAMED)
			return changes_conflict_one(p, c->from, why);
		return false;
	}
	return changes_conflict_one(p, c->path, why);
}

/* ------------------------------------------------------------------ */
/* Writing the host. */

static int
changes_copy_fd(const char *src, int out)
{
	cleanup_fd int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	char buf[65536];
	ssize_t n;
	int r;

	if (in < 0)
		return -errno;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if ((r = write_all(out, buf, (size_t)n)) < 0)
			return r;
	return n < 0 ? -errno : 0;
}

/* -ESTALE unless path's bytes (or target) hash to expect. */
static int
changes_check_copy(const char *path, const char *expect)
{
	char h[65];
	int r;

	if ((r = changes_hash_path(path, h)) < 0)
		return r;
	return strcmp(h, expect) == 0 ? 0 : -ESTALE;
}

/*
 * dest becomes a copy of src (a file or a symlink) in one rename: a
 * temporary name in dest's own folder, so the rename never crosses a
 * file system and a reader sees the old file or the new one, never half.
 */
static int
changes_install(const char *src, const char *dest, mode_t perm,
    const char *expect)
{
	cleanup_free char *dir = xstrdup(dest);
	cleanup_free char *tmp = NULL;
	struct stat st;
	int r;

	*strrchr(dir, '/') = '\0';
	if ((r = mkdir_p(dir, 0755)) < 0)
		return r;
	if (lstat(src, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(src, target, sizeof target - 1);

		if (n < 0)
			return -errno;
		target[n] = '\0';
		for (int i = 0;; i++) {
			free(tmp);
			tmp = xasprintf("%s/.ward-apply.%d.%d", dir,
			    (int)getpid(), i);
			if (symlink(target, tmp) == 0)
				break;
			if (errno != EEXIST || i > 100)
				return -errno;
		}
	} else {
		cleanup_fd int fd = -1;

		tmp = xasprintf("%s/.ward-apply.XXXXXX", dir);
		if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
			return -errno;
		/* Never a setuid or setgid file: ward may run as root. */
		if ((r = changes_copy_fd(src, fd)) < 0 ||
		    (fchmod(fd, (perm ? perm : st.st_mode) & 01777) < 0 &&
		    (r = -errno) < 0) || (fsync(fd) < 0 && (r = -errno) < 0)) {
			unlink(tmp);
			return r;
		}
	}
	/* What goes in is what was reviewed: the copy's own bytes hashed
	 * after it is made, so a rewrite of src at any moment up to here
	 * is caught. */
	if (expect != NULL && (r = changes_check_copy(tmp, expect)) < 0) {
		unlink(tmp);
		return r;
	}
	if (rename(tmp, dest) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}

/* before_dir/<host> once: the first change's image is the run's start. */
static int
changes_before_image(const char *before_dir, const char *host)
{
	cleanup_free char *dest = xasprintf("%s%s", before_dir, host);
	cleanup_free char *dir = xstrdup(dest);
	struct stat st;
	int r;

	if (lstat(host, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (lstat(dest, &st) == 0)
		return 0;
	*strrchr(dir, '/') = '\0';
	if ((r = mkdir_p(dir, 0700)) < 0)
		return r;
	return changes_install(host, dest, 0600, NULL);
}

/* The whiteout of rel in upper/, if there is one of its own. */
static void
changes_drop_whiteout(const struct changes_project *p, const char *rel)
{
	cleanup_free char *up = xasprintf("%s/%s", p->upper, rel);
	cleanup_free char *wh = NULL;
	const char *slash = strrchr(rel, '/');
	struct stat st;

	if (lstat(up, &st) == 0 && S_ISCHR(st.st_mode) &&
	    st.st_rdev == makedev(0, 0)) {
		unlink(up);
		return;
	}
	wh = slash != NULL ? xasprintf("%s/%.*s/" CHANGES_WH "%s", p->upper,
	    (int)(slash - rel), rel, slash + 1) :
	    xasprintf("%s/" CHANGES_WH "%s", p->upper, rel);
	unlink(wh);
}

/* Removes upper/rel and the folders it leaves empty (not opaque ones:
 * those still hide the host's files). */
static int
changes_drop_upper(const struct changes_project *p, const char *rel)
{
	cleanup_free char *up = xasprintf("%s/%s", p->upper, rel);
	cleanup_free char *anc = xstrdup(up);
	char *slash;

	/* Below an opaque folder the upper copy stays (now equal to the
	 * host's): without it the host's new file would read as deleted. */
	while ((slash = strrchr(anc, '/')) != NULL &&
	    (size_t)(slash - anc) > strlen(p->upper)) {
		*slash = '\0';
		if (changes_opaque(p, anc))
			return 0;
	}
	if (unlink(up) < 0 && errno != ENOENT)
		return -errno;
	while ((slash = strrchr(up, '/')) != NULL &&
	    (size_t)(slash - up) > strlen(p->upper)) {
		*slash = '\0';
		if (changes_opaque(p, up) || rmdir(up) < 0)
			break;
	}
	return 0;
}

/* The folders an apply is about to make for host, listed in
 * <before_dir>.dirs so that undo can remove them again. */
static void
changes_note_dirs(const char *before_dir, const char *host)
{
	cleanup_free char *list = xasprintf("%s.dirs", before_dir);
	cleanup_free char *dir = xstrdup(host);
	char **made = NULL;
	size_t n = 0;
	char *slash;
	FILE *f;

	while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (access(dir, F_OK) == 0)
			break;
		strv_push(&made, &n, xstrdup(dir));
	}
	if (n > 0 && (f = fopen(list, "ae")) != NULL) {
		for (size_t i = n; i-- > 0;)
			fprintf(f, "%s\n", made[i]);
		fclose(f);
	}
	strv_free(made);
}

void
changes_undo_dirs(const char *before_dir)
{
	cleanup_free char *list = xasprintf("%s.dirs", before_dir);
	cleanup_file FILE *f = fopen(list, "re");
	char **dirs = NULL;
	size_t n = 0;
	char line[PATH_MAX + 2];

	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL)
		strv_push(&dirs, &n, xstrdup(changes_trim(line)));
	/* Deepest last in the list: remove from the end; a folder that is
	 * not empty (something else lives there now) stays. */
	for (size_t i = n; i-- > 0;)
		rmdir(dirs[i]);
	strv_free(dirs);
}

int
changes_staged_hash(const struct changes_project *p, const struct change *c,
    char out[65])
{
	cleanup_free char *up = NULL;

	if (c->kind == CHANGE_DELETED) {
		strcpy(out, "-");
		return 0;
	}
	up = xasprintf("%s/%s", p->upper, c->path);
	return changes_hash_path(up, out);
}

/* A deletion still staged: upper/rel is a whiteout or nothing. */
static bool
changes_still_deleted(const struct changes_project *p, const char *rel)
{
	cleanup_free char *up = xasprintf("%s/%s", p->upper, rel);
	struct stat st;

	if (lstat(up, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR;
	return S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0);
}

int
changes_apply(const struct changes_project *p, const struct change *c,
    const char *before_dir, struct changes_done *done, char **cause)
{
	return changes_apply_reviewed(p, c, before_dir, NULL, done, cause);
}

int
changes_apply_reviewed(const struct changes_project *p,
    const struct change *c, const char *before_dir, const char *expect,
    struct changes_done *done, char **cause)
{
	cleanup_free char *host = xasprintf("%s/%s", p->host, c->path);
	cleanup_free char *up = xasprintf("%s/%s", p->upper, c->path);
	cleanup_free char *old = c->from != NULL ?
	    xasprintf("%s/%s", p->host, c->from) : NULL;
	const char *what;
	int r;

	if (!changes_host_ok(p->host, c->path) ||
	    (c->from != NULL && !changes_host_ok(p->host, c->from))) {
		r = -ELOOP;
		what = "a folder on the way is not a folder on the host "
		    "(a symlink?); refused";
		goto fail;
	}
	if ((r = changes_hash_path(old != NULL ? old : host,
	    done->before)) < 0) {
		what = "reading the host file";
		goto fail;
	}
	what = "keeping the before-image";
	if ((r = changes_before_image(before_dir, host)) < 0 ||
	    (old != NULL && (r = changes_before_image(before_dir, old)) < 0))
		goto fail;
	if (expect != NULL && (c->kind == CHANGE_DELETED ?
	    strcmp(expect, "-") != 0 || !changes_still_deleted(p, c->path) :
	    strcmp(expect, "-") == 0)) {
		r = -ESTALE;
		what = "the staged change is not the one reviewed; refused";
		goto fail;
	}
	if (c->kind == CHANGE_DELETED) {
		what = "removing the host file";
		if (unlink(host) < 0 && errno != ENOENT) {
			r = -errno;
			goto fail;
		}
		changes_drop_whiteout(p, c->path);
		strcpy(done->after, "-");
		return 0;
	}
	what = "writing the host file";
	changes_note_dirs(before_dir, host);
	if ((r = changes_install(up, host, c->new_mode & 01777, expect)) < 0) {
		if (r == -ESTALE)
			what = "the staged bytes changed since they were "
			    "reviewed (sha256 differs); refused";
		goto fail;
	}
	if (old != NULL) {
		if (unlink(old) < 0 && errno != ENOENT) {
			r = -errno;
			what = "removing the renamed file";
			goto fail;
		}
		changes_drop_whiteout(p, c->from);
	}
	if ((r = changes_hash_path(host, done->after)) < 0)
		strcpy(done->after, "?");
	return changes_drop_upper(p, c->path);
fail:
	set_cause(cause, "%s: %s: %s", c->path, what, strerror(-r));
	return r;
}

int
changes_discard(const struct changes_project *p, const struct change *c,
    char **cause)
{
	cleanup_free char *up = xasprintf("%s/%s", p->upper, c->path);
	struct stat st;
	int r;

	if (c->kind == CHANGE_DELETED || c->kind == CHANGE_RENAMED) {
		const char *rel = c->kind == CHANGE_RENAMED ? c->from : c->path;
		struct changes_project again = *p;
		bool still = false;

		changes_drop_whiteout(p, rel);
		/* Deleted with its folder (a whiteout or an opaque folder
		 * above it): that cannot be undone file by file. */
		again.v = NULL;
		again.n = 0;
		if (changes_scan_dir(&again, "") == 0) {
			for (size_t i = 0; i < again.n; i++)
				if (again.v[i].kind == CHANGE_DELETED &&
				    strcmp(again.v[i].path, rel) == 0)
					still = true;
		}
		changes_clear(&again);
		if (still) {
			set_cause(cause, "%s: deleted with a folder above it; "
			    "discard that folder's deletion instead", rel);
			return -EBUSY;
		}
		if (c->kind == CHANGE_DELETED)
			return 0;
	}
	if (lstat(up, &st) < 0)
		return 0;
	if ((r = changes_drop_upper(p, c->path)) < 0) {
		set_cause(cause, "%s: %s", c->path, strerror(-r));
		return r;
	}
	return 0;
}

int
changes_undo(const char *before_dir, const char *host_path,
    const char *expect, mode_t mode, bool remove_if_none,
    struct changes_done *done, char **cause)
{
	cleanup_free char *img = xasprintf("%s%s", before_dir, host_path);
	struct stat st;
	int r;

	if ((r = changes_hash_path(host_path, done->before)) < 0) {
		set_cause(cause, "%s: %s", host_path, strerror(-r));
		return r;
	}
	if (expect != NULL && strcmp(expect, done->before) != 0) {
		set_cause(cause, "%s: changed since ward wrote it (sha256 %.12s, "
		    "ward wrote %.12s); left alone", host_path, done->before,
		    expect);
		return -ESTALE;
	}
	if (lstat(img, &st) == 0) {
		r = changes_install(img, host_path, mode & 01777, NULL);
	} else if (remove_if_none) {
		r = unlink(host_path) < 0 && errno != ENOENT ? -errno : 0;
	} else {
		set_cause(cause, "%s: no before-image in %s", host_path,
		    before_dir);
		return -ENOENT;
	}
	if (r < 0) {
		set_cause(cause, "%s: %s", host_path, strerror(-r));
		return r;
	}
	if (changes_hash_path(host_path, done->after) < 0)
		strcpy(done->after, "?");
	return 0;
}
