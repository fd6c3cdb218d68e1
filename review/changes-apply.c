/* SPDX-License-Identifier: MIT */
/*
 * The half of a run's staged changes that writes to the person's host
 * folders (review/changes-apply.h): conflicts, the room an apply needs,
 * the copy in, before-images, discard and undo.
 */
#include "review/changes-apply.h"

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

#include "approvals/changes.h"
#include "config/util.h"

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

/* The bytes path takes on its file system: its allocated blocks (a
 * sparse file's data only), none for a symlink or nothing. */
static int64_t
changes_allocated(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	return (int64_t)st.st_blocks * 512;
}

void
changes_cost(const struct changes_project *p, const struct change *c,
    struct changes_cost *ret)
{
	cleanup_free char *up = xasprintf("%s/%s", p->upper, c->path);
	cleanup_free char *host = xasprintf("%s/%s", p->host, c->path);
	cleanup_free char *old = c->from != NULL ?
	    xasprintf("%s/%s", p->host, c->from) : NULL;
	struct stat st;

	ret->write = c->kind == CHANGE_DELETED ? 0 : changes_allocated(up);
	ret->before = changes_allocated(host) +
	    (old != NULL ? changes_allocated(old) : 0);
	ret->size = c->kind != CHANGE_DELETED && lstat(up, &st) == 0 ?
	    (int64_t)st.st_size : 0;
}

/* [off, off + len) of in to the same offset of out. */
static int
changes_copy_range(int in, int out, off_t off, off_t len)
{
	char buf[65536];

	while (len > 0) {
		size_t want = len < (off_t)sizeof buf ? (size_t)len : sizeof buf;
		ssize_t n = pread(in, buf, want, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;		/* shorter than it was: the rest a hole */
		for (ssize_t done = 0; done < n;) {
			ssize_t w = pwrite(out, buf + done, (size_t)(n - done),
			    off + done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			done += w;
		}
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * src's bytes into out, its holes kept holes (issue 29: a 3 GiB sparse
 * file with 1 MiB of data wrote 3 GiB of real blocks to the host): only
 * the ranges SEEK_DATA finds are copied, the size set last. A file
 * system without SEEK_DATA reports the whole file as data.
 */
static int
changes_copy_fd(const char *src, int out)
{
	cleanup_fd int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	struct stat st;
	off_t data = 0, hole;
	int r;

	if (in < 0 || fstat(in, &st) < 0)
		return -errno;
	while (data < st.st_size) {
		if ((data = lseek(in, data, SEEK_DATA)) < 0) {
			if (errno == ENXIO)
				break;		/* only a hole is left */
			if (errno != EINVAL)
				return -errno;
			data = 0;		/* no SEEK_DATA here: all data */
			hole = st.st_size;
		} else if ((hole = lseek(in, data, SEEK_HOLE)) < 0) {
			return -errno;
		}
		if (hole > st.st_size)
			hole = st.st_size;
		if ((r = changes_copy_range(in, out, data, hole - data)) < 0)
			return r;
		data = hole;
	}
	return ftruncate(out, st.st_size) < 0 ? -errno : 0;
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
