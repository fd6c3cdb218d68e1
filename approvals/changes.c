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

char *
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

void
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

/* A regular file's bytes into ctx; its holes, found by SEEK_HOLE, fed
 * as zeros without reading them (a 3 GiB sparse file took 7 s of system
 * time to read). */
static int
changes_hash_fd(struct sha256_ctx *ctx, int fd)
{
	static const uint8_t zero[65536];
	uint8_t buf[65536];
	off_t off = 0, hole = 0;
	ssize_t n;

	for (;;) {
		if (off >= hole && (hole = lseek(fd, off, SEEK_HOLE)) < 0)
			hole = INT64_MAX;	/* no SEEK_HOLE: all data */
		if (off == hole) {
			off_t data = lseek(fd, off, SEEK_DATA);
			struct stat st;

			if (data < 0) {		/* a hole to the end */
				if (fstat(fd, &st) < 0)
					return -errno;
				data = st.st_size;
			}
			for (; off < data; off += (off_t)n) {
				n = data - off < (off_t)sizeof zero ?
				    (ssize_t)(data - off) : (ssize_t)sizeof zero;
				sha256_update(ctx, (size_t)n, zero);
			}
			hole = 0;
			continue;
		}
		/* pread: each lseek above moved the file's offset. */
		n = pread(fd, buf, hole - off < (off_t)sizeof buf ?
		    (size_t)(hole - off) : sizeof buf, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		sha256_update(ctx, (size_t)n, buf);
		off += n;
	}
}

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
		int r;

		if (fd < 0)
			return -errno;
		if ((r = changes_hash_fd(&ctx, fd)) < 0)
			return r;
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
bool
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
bool
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

int
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
