/* SPDX-License-Identifier: MIT */
/*
 * Approved escalations, performed by the supervisor itself on the host,
 * with the arguments the person was shown. Decided on file descriptors,
 * not strings: the host folder is opened without following any symlink
 * and must be the very folder the sandbox sees at that path (same device
 * and inode through the bind mount) before anything is changed in it.
 */
#include "supervisor/emulate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "config/util.h"
#include "supervisor/path.h"
#include "supervisor/sup.h"
#include "supervisor/target.h"

/* Sandbox folders that are the host's own, read-only, at the same path. */
static const char *const identity[] = { "/usr", "/etc", "/opt", "/var" };

char *
emulate_host_path(const struct sup *s, const char *inside)
{
	const char *best_in = NULL, *best_host = NULL;
	size_t best = 0;

	/* A container's path has no host folder of ours behind it (what
	 * is done is done inside its root, open_parent); its writable
	 * folders' binds name container paths, never host ones. */
	if (s->oci)
		return NULL;

	for (size_t i = 0; i < s->n_binds; i++) {
		size_t n = strlen(s->binds[i].inside);

		if (path_under(inside, s->binds[i].inside) && n > best) {
			best = n;
			best_in = s->binds[i].inside;
			best_host = s->binds[i].host;
		}
	}
	/* A hidden path deeper than the bind covers it (~/.ssh in --in ~);
	 * a bind beneath a hidden one shows through it (--in ~/p). */
	for (size_t i = 0; i < s->n_hidden; i++)
		if (path_under(inside, s->hidden[i]) &&
		    strlen(s->hidden[i]) > best)
			return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(identity); i++) {
		size_t n = strlen(identity[i]);

		if (path_under(inside, identity[i]) && n > best) {
			best = n;
			best_in = best_host = identity[i];
		}
	}
	if (best_in == NULL)
		return NULL;
	return xasprintf("%s%s", best_host, inside + strlen(best_in));
}

static int
split(const char *path, char *dir, const char **name)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL || slash[1] == '\0')
		return -EINVAL;
	if (slash == path)
		strcpy(dir, "/");
	else {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	}
	*name = slash + 1;
	if (strcmp(*name, ".") == 0 || strcmp(*name, "..") == 0)
		return -EINVAL;
	return 0;
}

static int
openat2_path(int dirfd, const char *path, uint64_t resolve)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = resolve,
	};
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);

	return fd < 0 ? -errno : (int)fd;
}

/* Folder sdir (absolute) as process pid sees it, opened in its root
 * with nothing followed (the path was resolved there): an fd, or
 * -errno. */
static int
open_inside(pid_t pid, const char *sdir)
{
	char rootp[48];
	cleanup_fd int rootfd = -1;

	snprintf(rootp, sizeof rootp, "/proc/%d/root", (int)pid);
	if ((rootfd = open(rootp, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -ESRCH;
	return openat2_path(rootfd, sdir[1] ? sdir + 1 : ".", RESOLVE_IN_ROOT |
	    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

/*
 * Open the host folder that holds inside (a resolved sandbox path) and
 * check that it is the folder the sandbox sees. Returns the fd (or, for
 * sandbox_side, the same folder as the sandbox sees it, through its own
 * mount: idmapped as the program's), *name points into inside.
 */
static int
open_parent(const struct sup *s, pid_t pid, const char *inside,
    const char **name, bool sandbox_side)
{
	char sdir[PATH_MAX];
	cleanup_free char *host = NULL;
	cleanup_fd int sfd = -1, hfd = -1;
	const char *hname;
	char hdir[PATH_MAX];
	struct stat a, b;
	int r;

	if ((r = split(inside, sdir, name)) < 0)
		return -EROFS;
	/* A container's folder has no host side of ours: its own is the
	 * only one. */
	if (s->oci)
		return open_inside(pid, sdir);
	if ((host = emulate_host_path(s, inside)) == NULL)
		return -EROFS;
	if ((r = split(host, hdir, &hname)) < 0)
		return r;
	hfd = openat2_path(AT_FDCWD, hdir,
	    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (hfd < 0)
		return hfd;
	if ((sfd = open_inside(pid, sdir)) < 0)
		return sfd;
	if (fstat(hfd, &a) < 0 || fstat(sfd, &b) < 0)
		return -errno;
	/* Not the same folder: something moved between the question and
	 * the answer. Refuse rather than write somewhere not shown. */
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return -EACCES;
	return sandbox_side ? steal_fd(&sfd) : steal_fd(&hfd);
}

/*
 * Keep the file as it was before the run's first approved change to it:
 * <run>/before/<host path>. Best effort, and only once per path.
 */
static void
before_image(const struct sup *s, const char *inside, int pfd,
    const char *name)
{
	cleanup_free char *host = emulate_host_path(s, inside);
	cleanup_free char *dest = NULL, *dir = NULL;
	cleanup_fd int in = -1, out = -1;
	struct stat st;
	char buf[65536];
	ssize_t n;

	/* A file that is not there (a create) has nothing to keep: known
	 * from one fstatat, before any path is built or looked up. */
	if (host == NULL || fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return;
	dest = xasprintf("%s%s", s->before, host);
	if (access(dest, F_OK) == 0)
		return;
	if ((in = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) < 0)
		return;
	dir = xstrdup(dest);
	*strrchr(dir, '/') = '\0';
	if (mkdir_p(dir, 0700) < 0)
		return;
	if ((out = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0)
		return;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write_all(out, buf, (size_t)n) < 0)
			return;
}

static int
map_id(const struct sup *s, uint32_t in, bool gid, uint32_t *out)
{
	uint32_t inner = gid ? s->inner_gid : s->inner_uid;
	uint32_t outer = gid ? (uint32_t)getgid() : (uint32_t)s->uid;

	if (in == (uint32_t)-1) {
		*out = in;
		return 0;
	}
	/* A container's ids are its own where they are the host's; in a
	 * user namespace of its own, ours are not its: refused. */
	if (s->oci) {
		*out = in;
		return s->oci_ids_identity ? 0 : -EPERM;
	}
	if (in == inner) {
		*out = s->uid == 0 ? inner : outer;
		return 0;
	}
	/* Nobody else: not root, which the program never was. */
	return -EPERM;
}

/*
 * The mode bits an approved write may set. When ward runs as root the
 * supervisor's writes are root's: a setuid or setgid bit on them would
 * turn a program's file into a host root program. The program itself,
 * as its own uid, could never have made one.
 */
static mode_t
safe_mode(const struct sup *s, mode_t mode)
{
	mode &= 07777;
	if (s->uid == 0)
		mode &= ~(mode_t)(S_ISUID | S_ISGID);
	return mode;
}

static int64_t
neg(int r)
{
	return r < 0 ? -errno : r;
}

bool
emulate_creates(const struct write_call *c)
{
	switch (c->op) {
	case OP_OPEN:
		return (c->flags & (O_CREAT | __O_TMPFILE)) != 0;
	case OP_MKDIR:
	case OP_MKNOD:
		return true;
	case OP_UNLINK: case OP_RMDIR: case OP_RENAME: case OP_LINK:
	case OP_SYMLINK: case OP_TRUNCATE: case OP_CHMOD: case OP_CHOWN:
	case OP_UTIMES: case OP_SETXATTR: case OP_REMOVEXATTR:
		return false;
	}
	return true;
}

/*
 * The call done in the folder pfd holds (name its last step), pfd2 and
 * name2 the second path's (a rename, a link). keep: the host file as it
 * was kept in before/ (an approved write outside); not for a writable
 * folder's own changes.
 */
static int64_t
act(struct sup *s, const struct write_call *c, int pfd, const char *name,
    int pfd2, const char *name2, mode_t um, int *inject_fd, bool keep,
    const struct emulate_as *as)
{
	switch (c->op) {
	case OP_OPEN: {
		int flags = (int)c->flags;
		struct stat st;
		int fd;

		if (keep && ((flags & O_ACCMODE) != O_RDONLY ||
		    (flags & O_TRUNC)))
			before_image(s, c->path, pfd, name);
		/* The path was resolved; the last step must not be a
		 * symlink planted since. Non-blocking, so that a FIFO cannot
		 * hang the supervisor; and only a regular file is handed in:
		 * a host folder's fd would lead out of the sandbox by "..". */
		flags |= O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
		flags &= ~(O_DIRECTORY | O_PATH);
		if ((fd = openat(pfd, name, flags, safe_mode(s, (mode_t)c->mode) &
		    ~um)) < 0)
			return -errno;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			int err = S_ISDIR(st.st_mode) ? EISDIR : EACCES;

			close(fd);
			return -err;
		}
		/* F_SETFL takes the status flags only (O_APPEND, O_NONBLOCK
		 * ...): the ones opened with, less ours, without a F_GETFL. */
		if (!(c->flags & O_NONBLOCK))
			fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
		*inject_fd = fd;
		return 0;
	}
	case OP_MKDIR:
		return neg(mkdirat(pfd, name, safe_mode(s, (mode_t)c->mode) & ~um));
	case OP_MKNOD: {
		mode_t type = (mode_t)c->mode & S_IFMT;

		if (type != 0 && type != S_IFREG && type != S_IFIFO &&
		    type != S_IFSOCK)
			return -EPERM;
		return neg(mknodat(pfd, name, type | (safe_mode(s,
		    (mode_t)c->mode) & ~um), 0));
	}
	case OP_UNLINK:
		if (keep)
			before_image(s, c->path, pfd, name);
		return neg(unlinkat(pfd, name, 0));
	case OP_RMDIR:
		return neg(unlinkat(pfd, name, AT_REMOVEDIR));
	case OP_RENAME:
		if (keep) {
			before_image(s, c->path2, pfd2, name2);
			before_image(s, c->path, pfd, name);
		}
		return neg((int)syscall(SYS_renameat2, pfd, name, pfd2, name2,
		    (unsigned)c->flags));
	case OP_LINK:
		/* path2 is the existing file, resolved like path. */
		return neg(linkat(pfd2, name2, pfd, name, 0));
	case OP_SYMLINK:
		return neg(symlinkat(c->raw2, pfd, name));
	case OP_TRUNCATE: {
		cleanup_fd int fd = -1;

		if (keep)
			before_image(s, c->path, pfd, name);
		if ((fd = openat(pfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC |
		    O_NONBLOCK)) < 0)
			return -errno;
		return neg(ftruncate(fd, (off_t)c->length));
	}
	case OP_CHMOD: {
		struct stat st;

		if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		if (S_ISLNK(st.st_mode))
			return -EOPNOTSUPP;
		if (safe_mode(s, (mode_t)c->mode) != ((mode_t)c->mode & 07777))
			return -EPERM;
		return neg(fchmodat(pfd, name, (mode_t)c->mode & 07777, 0));
	}
	case OP_CHOWN: {
		uint32_t u, g;

		if (map_id(s, c->uid, false, &u) < 0 ||
		    map_id(s, c->gid, true, &g) < 0)
			return -EINVAL;
		/* In a writable folder, through the sandbox's own mount:
		 * the program's own ids, which that mount maps. */
		if (as != NULL && !s->oci && u != (uint32_t)-1)
			u = as->uid;
		if (as != NULL && !s->oci && g != (uint32_t)-1)
			g = as->gid;
		return neg(fchownat(pfd, name, u, g, AT_SYMLINK_NOFOLLOW));
	}
	case OP_UTIMES:
		return neg(utimensat(pfd, name, c->times_null ? NULL : c->times,
		    AT_SYMLINK_NOFOLLOW));
	case OP_SETXATTR:
	case OP_REMOVEXATTR: {
		char p[PATH_MAX + 32];

		/* Only attributes an ordinary owner could set: never file
		 * capabilities or security labels, which the supervisor (root,
		 * maybe) could write and the program could not. */
		if (!str_has_prefix(c->xname, "user.") &&
		    !str_has_prefix(c->xname, "system.posix_acl_"))
			return -EPERM;
		snprintf(p, sizeof p, "/proc/self/fd/%d/%s", pfd, name);
		if (c->op == OP_SETXATTR)
			return neg(lsetxattr(p, c->xname, c->xvalue, c->xsize,
			    c->xflags));
		return neg(lremovexattr(p, c->xname));
	}
	}
	return -ENOSYS;
}

/* as: the program's host ids, to act with (setfsuid, setfsgid) in the
 * folder as the sandbox sees it; or NULL: the supervisor's own ids, on
 * the host's folder. */
static int64_t
perform(struct sup *s, pid_t pid, const struct write_call *c,
    int *inject_fd, bool keep, const struct emulate_as *as)
{
	cleanup_fd int pfd = -1, pfd2 = -1;
	const char *name = NULL, *name2 = NULL;
	/* The umask (a read of /proc/PID/status) only where a file may be
	 * made: an open of an existing file, a rename, an unlink go without. */
	mode_t um = emulate_creates(c) ? target_umask(pid) : 0;
	int64_t r;

	*inject_fd = -1;
	/* Both folders opened as the supervisor, before it takes other
	 * ids: the host's folders above a writable one need not be
	 * searchable by its owner, who never walks them (a bind mount). */
	if ((pfd = open_parent(s, pid, c->path, &name, as != NULL)) < 0)
		return pfd;
	if ((c->op == OP_RENAME || c->op == OP_LINK) &&
	    (pfd2 = open_parent(s, pid, c->path2, &name2, as != NULL)) < 0)
		return pfd2;
	if (as == NULL)
		return act(s, c, pfd, name, pfd2, name2, um, inject_fd, keep,
		    NULL);
	setfsgid(as->gid);
	setfsuid(as->uid);
	r = act(s, c, pfd, name, pfd2, name2, um, inject_fd, keep, as);
	setfsuid(getuid());
	setfsgid(getgid());
	return r;
}

int64_t
emulate_call(struct sup *s, pid_t pid, const struct write_call *c,
    int *inject_fd)
{
	return perform(s, pid, c, inject_fd, true, NULL);
}

int64_t
emulate_in_place(struct sup *s, pid_t pid, const struct write_call *c,
    const struct emulate_as *as, int *inject_fd)
{
	return perform(s, pid, c, inject_fd, false, as);
}

/*
 * RUN/<top><dir> opened as a folder (O_PATH), each step made when missing
 * and none a symlink: dir is a host path the program chose, and the run
 * folder is the supervisor's own (as root, root's).
 */
static int
stage_dir(const struct sup *s, const char *top, const char *dir)
{
	cleanup_free char *rel = xasprintf("%s%s", top, dir);
	cleanup_fd int fd = -1;
	char *save = NULL, *comp;

	if ((fd = open(s->run_dir, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -errno;
	for (comp = strtok_r(rel, "/", &save); comp != NULL;
	    comp = strtok_r(NULL, "/", &save)) {
		int next;

		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
			return -EINVAL;
		if (mkdirat(fd, comp, 0700) < 0 && errno != EEXIST)
			return -errno;
		if ((next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0)
			return -errno;
		close(fd);
		fd = next;
	}
	return steal_fd(&fd);
}

/*
 * The first copy of a staged file: the host's bytes into base/ and
 * upper/ from one read, so that both are the host file of one moment.
 * 0 also when there is no host file and the open creates one (upper/
 * gets it from the open, base/ stays without: "there was none").
 */
static int
stage_copy(const struct sup *s, int pfd, const char *name, int up, int base,
    const char *hname, uint64_t flags)
{
	cleanup_fd int in = -1, u = -1, b = -1;
	struct stat st;
	char buf[65536];
	ssize_t n;
	int r = 0;

	/* A base left by an earlier staging that was discarded since. */
	if (unlinkat(base, hname, 0) < 0 && errno != ENOENT)
		return -errno;
	if ((in = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) < 0) {
		if (errno == ENOENT && (flags & O_CREAT))
			return 0;
		return -errno;
	}
	if (fstat(in, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EACCES;
	if ((b = openat(base, hname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) < 0 || (u = openat(up, hname, O_WRONLY |
	    O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		r = -errno;
		goto fail;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if ((r = write_all(b, buf, (size_t)n)) < 0 ||
		    (r = write_all(u, buf, (size_t)n)) < 0)
			goto fail;
	if (n < 0 || fchmod(u, safe_mode(s, st.st_mode)) < 0 ||
	    fchmod(b, safe_mode(s, st.st_mode)) < 0) {
		r = -errno;
		goto fail;
	}
	return 0;
fail:
	unlinkat(base, hname, 0);
	if (u >= 0)
		unlinkat(up, hname, 0);
	return r;
}

int64_t
emulate_stage(struct sup *s, pid_t pid, const struct write_call *c,
    int *inject_fd)
{
	cleanup_fd int pfd = -1, up = -1, base = -1;
	cleanup_free char *host = NULL;
	const char *name = NULL, *hname;
	mode_t um = emulate_creates(c) ? target_umask(pid) : 0;
	int flags = (int)c->flags, fd, r;
	struct stat st;
	char *slash;

	*inject_fd = -1;
	if (c->op != OP_OPEN)
		return -EINVAL;
	/* The folder the sandbox sees, as for an approved write: the copy
	 * is of the file the person was shown. */
	if ((pfd = open_parent(s, pid, c->path, &name, false)) < 0)
		return pfd;
	if ((host = emulate_host_path(s, c->path)) == NULL ||
	    (slash = strrchr(host, '/')) == NULL)
		return -EROFS;
	*slash = '\0';
	hname = slash + 1;
	if ((up = stage_dir(s, "outside/upper", host)) < 0)
		return up;
	if ((base = stage_dir(s, "outside/base", host)) < 0)
		return base;
	if (fstatat(up, hname, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return -errno;
		if ((r = stage_copy(s, pfd, name, up, base, hname,
		    c->flags)) < 0)
			return r;
	}
	/* As emulate_call's open: never a symlink, never blocking, only a
	 * regular file handed in. */
	flags |= O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	flags &= ~(O_DIRECTORY | O_PATH);
	if ((fd = openat(up, hname, flags, safe_mode(s, (mode_t)c->mode) &
	    ~um)) < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EACCES;
	}
	if (!(c->flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	*inject_fd = fd;
	return 0;
}
