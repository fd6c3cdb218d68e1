/* SPDX-License-Identifier: MIT */
/*
 * Projects: the run's side of each (project.h). The overlay itself is
 * mounted by the sandbox's init (spawn.c); here its folders are made,
 * the kernel asked once whether it will mount it, and a copy made and
 * settled where it will not.
 */
#include "supervisor/project.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/util.h"
#include "supervisor/path.h"

#define WH_PREFIX	".wh."

const char *
project_mode_name(enum project_mode m)
{
	return m == PROJECT_COPY ? "copy" : "overlay";
}

void
project_done(struct project *p)
{
	free(p->host);
	free(p->dir);
	free(p->upper);
	free(p->work);
	*p = (struct project){ 0 };
}

/* Is path (in project root) one never copied? A skipped folder that
 * holds the whole project (the home it is in) skips nothing. */
static bool
skipped(const struct project_opts *o, const char *root, const char *path)
{
	for (size_t i = 0; i < o->n_skip; i++)
		if (path_under(path, o->skip[i]) &&
		    !path_under(root, o->skip[i]))
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* The kernel asked */

static int
write_self(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write_all(fd, text, strlen(text)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/*
 * Will the kernel mount this overlay in a user namespace of ours? A
 * child, in a new user and mount namespace (mapping only itself, which
 * anyone may), mounts it on probe and ends: 0, or the -errno it got.
 */
static int
overlay_probe(const char *opts, const char *probe)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char umap[32], gmap[32];

		/* Our ids before the namespace hides them. */
		snprintf(umap, sizeof umap, "%u %u 1\n", (unsigned)geteuid(),
		    (unsigned)geteuid());
		snprintf(gmap, sizeof gmap, "%u %u 1\n", (unsigned)getegid(),
		    (unsigned)getegid());
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			_exit(errno);
		if (write_self("/proc/self/setgroups", "deny") < 0 ||
		    write_self("/proc/self/uid_map", umap) < 0 ||
		    write_self("/proc/self/gid_map", gmap) < 0)
			_exit(EPERM);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(errno);
		if (mount("overlay", probe, "overlay", 0, opts) < 0)
			_exit(errno);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EIO;
	return -WEXITSTATUS(status);
}

/* Why the overlay was refused, in words a user can act on. */
static const char *
refusal(int e)
{
	switch (e) {
	case EPERM:
		return "this kernel allows no overlayfs in a user namespace";
	case ENODEV:
		return "this kernel has no overlayfs";
	case ELOOP:
	case EBUSY:
		return "overlapping layers, or a layer in use";
	case EINVAL:
	case EOPNOTSUPP:
		return "the host folder's filesystem cannot be a lower layer, "
		    "or the run folder's cannot hold an upper one (user "
		    "xattrs, whiteouts)";
	default:
		return "the kernel refused the mount";
	}
}

/* ------------------------------------------------------------------ */
/* The copy */

static int copy_dir(int from, int to, const char *root, const char *path,
    const struct project_opts *o);

static int
copy_data(int in, int out)
{
	char buf[65536];
	ssize_t n;

	if (ioctl(out, FICLONE, in) == 0)
		return 0;
	for (;;) {
		n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
		if (n == 0)
			return 0;
		if (n < 0)
			break;
	}
	if (errno != EXDEV && errno != EINVAL && errno != EOPNOTSUPP &&
	    errno != ENOSYS)
		return -errno;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write_all(out, buf, (size_t)n) < 0)
			return -errno;
	return n < 0 ? -errno : 0;
}

/* One entry of a folder copied: a file (its data, mode and times), a
 * symlink, a folder (recursively). Anything else is left out. */
static int
copy_entry(int from, int to, const char *name, const char *root,
    const char *path, const struct project_opts *o)
{
	struct stat st;
	char target[PATH_MAX];
	cleanup_fd int in = -1, out = -1;
	struct timespec times[2];
	ssize_t n;
	int r;

	if (skipped(o, root, path))
		return 0;
	if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlinkat(from, name, target, sizeof target - 1)) < 0)
			return -errno;
		target[n] = '\0';
		return symlinkat(target, to, name) < 0 ? -errno : 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (mkdirat(to, name, 0700) < 0)
			return -errno;
		if ((in = openat(from, name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0 || (out = openat(to, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			return -errno;
		if ((r = copy_dir(in, out, root, path, o)) < 0)
			return r;
	} else if (S_ISREG(st.st_mode)) {
		if ((in = openat(from, name, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0 || (out = openat(to, name, O_WRONLY |
		    O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
			return -errno;
		if ((r = copy_data(in, out)) < 0)
			return r;
	} else
		return 0;
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	if (fchmod(out, st.st_mode & 07777) < 0 || futimens(out, times) < 0)
		return -errno;
	return 0;
}

static int
copy_dir(int from, int to, const char *root, const char *path,
    const struct project_opts *o)
{
	int dfd = fcntl(from, F_DUPFD_CLOEXEC, 0), r = 0;
	DIR *d;
	struct dirent *e;

	if (dfd < 0 || (d = fdopendir(dfd)) == NULL) {
		r = -errno;
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	while (r == 0 && (e = readdir(d)) != NULL) {
		cleanup_free char *sub = NULL;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		sub = xasprintf("%s/%s", path, e->d_name);
		r = copy_entry(from, to, e->d_name, root, sub, o);
	}
	closedir(d);
	return r;
}

static int
copy_project(const struct project *p, const struct project_opts *o,
    char **cause)
{
	cleanup_fd int from = open(p->host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cleanup_fd int to = open(p->upper, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (from < 0 || to < 0) {
		r = -errno;
		set_cause(cause, "copy %s: %s", p->host, strerror(-r));
		return r;
	}
	if ((r = copy_dir(from, to, p->host, p->host, o)) < 0)
		set_cause(cause, "copy %s into %s: %s", p->host, p->upper,
		    strerror(-r));
	return r;
}

/* ------------------------------------------------------------------ */
/* Staging */

static int
write_text(const char *path, const char *text, char **cause)
{
	cleanup_fd int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0600);

	if (fd < 0 || write_all(fd, text, strlen(text)) < 0) {
		int r = -errno;

		set_cause(cause, "write %s: %s", path, strerror(-r));
		return r;
	}
	return 0;
}

/* The overlay's options, or NULL when a path holds a character they
 * cannot carry (',' ':' '\\' split them; a newline is refused). */
static char *
overlay_opts(const char *lower, const struct project *p)
{
	const char *paths[] = { lower, p->upper, p->work };

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		if (strpbrk(paths[i], ",:\\\n") != NULL)
			return NULL;
	return xasprintf("lowerdir=%s,upperdir=%s,workdir=%s,userxattr,"
	    "metacopy=off", lower, p->upper, p->work);
}

/* Overlay, unless the hook forces a copy or the kernel refuses. */
static enum project_mode
choose_mode(const struct project *p, const struct project_opts *o,
    char **note)
{
	cleanup_free char *opts = NULL, *probe = NULL;
	int r;

	if (o->force_copy) {
		*note = xasprintf("project %s: staged as a copy "
		    "(WARD_PROJECT_MODE=copy)", p->host);
		return PROJECT_COPY;
	}
	/* The kernel would take it, but an upper layer inside the lower
	 * one changes the lower one under the overlay: undefined. */
	if (path_under(p->upper, p->host)) {
		*note = xasprintf("project %s: staged as a copy (the run folder "
		    "is inside the project, and an overlay's upper layer cannot "
		    "lie in its lower one)", p->host);
		return PROJECT_COPY;
	}
	if ((opts = overlay_opts(p->host, p)) == NULL) {
		*note = xasprintf("project %s: staged as a copy (its path or "
		    "the run folder's holds a , : or \\, which overlayfs' "
		    "options cannot carry)", p->host);
		return PROJECT_COPY;
	}
	probe = xasprintf("%s/probe", p->dir);
	if (mkdir(probe, 0700) < 0)
		return PROJECT_COPY;
	r = overlay_probe(opts, probe);
	rmdir(probe);
	if (r == 0)
		return PROJECT_OVERLAY;
	*note = xasprintf("project %s: staged as a copy (overlayfs refused: "
	    "%s: %s)", p->host, strerror(-r), refusal(-r));
	return PROJECT_COPY;
}

int
project_stage(struct project *p, const char *run_dir, size_t n,
    const char *real, const struct project_opts *o, char **note,
    char **cause)
{
	cleanup_free char *list = xasprintf("%s/projects", run_dir);
	cleanup_free char *ini = NULL;
	struct stat st;
	int r;

	*note = NULL;
	*p = (struct project){
		.host = xstrdup(real),
		.dir = xasprintf("%s/%zu", list, n),
	};
	p->upper = xasprintf("%s/upper", p->dir);
	p->work = xasprintf("%s/work", p->dir);
	if (stat(real, &st) < 0) {
		r = -errno;
		set_cause(cause, "project %s: %s", real, strerror(-r));
		return r;
	}
	if (!S_ISDIR(st.st_mode)) {
		set_cause(cause, "project %s: not a folder", real);
		return -ENOTDIR;
	}
	if ((mkdir(list, 0700) < 0 && errno != EEXIST) ||
	    mkdir(p->dir, 0700) < 0 || mkdir(p->upper, 0700) < 0 ||
	    mkdir(p->work, 0700) < 0) {
		r = -errno;
		set_cause(cause, "create %s: %s", p->dir, strerror(-r));
		return r;
	}
	p->mode = choose_mode(p, o, note);
	if (p->mode == PROJECT_COPY && (r = copy_project(p, o, cause)) < 0)
		return r;
	/* upper/ is the overlay's root: its mode and owner are the
	 * project folder's, as the program sees it. */
	if (chmod(p->upper, st.st_mode & 07777) < 0 ||
	    (p->mode == PROJECT_OVERLAY && o->owner_uid != (uid_t)-1 &&
	    chown(p->upper, o->owner_uid, o->owner_gid) < 0)) {
		r = -errno;
		set_cause(cause, "set up %s: %s", p->upper, strerror(-r));
		return r;
	}
	ini = xasprintf("%s/project.ini", p->dir);
	{
		cleanup_free char *text = xasprintf("host = %s\nmode = %s\n"
		    "started_ms = %lld\n", p->host, project_mode_name(p->mode),
		    (long long)o->started_ms);

		return write_text(ini, text, cause);
	}
}

int
project_write_list(const char *run_dir, const struct project *p, size_t n,
    char **cause)
{
	cleanup_free char *path = xasprintf("%s/projects.tsv", run_dir);
	cleanup_free char *text = xstrdup("");

	for (size_t i = 0; i < n; i++) {
		char *old = text;

		text = xasprintf("%s%zu\t%s\t%s\n", old, i, p[i].host,
		    project_mode_name(p[i].mode));
		free(old);
	}
	return write_text(path, text, cause);
}

/* ------------------------------------------------------------------ */
/* A copy settled */

static int settle_dir(int host, int up, const char *path,
    const struct project_opts *o);

static bool
same_data(int a, int b)
{
	char x[65536], y[65536];
	ssize_t n, m;

	for (;;) {
		n = read(a, x, sizeof x);
		m = read(b, y, sizeof y);
		if (n < 0 || n != m)
			return false;
		if (n == 0)
			return true;
		if (memcmp(x, y, (size_t)n) != 0)
			return false;
	}
}

/* Is upper's entry name what the host has (type, mode, bytes or
 * target)? Folders are settled inside first: the same when emptied. */
static int
settle_entry(int host, int up, const char *name, const char *path,
    const struct project_opts *o)
{
	struct stat h, u;
	char ht[PATH_MAX], ut[PATH_MAX];
	cleanup_fd int a = -1, b = -1;
	ssize_t n, m;
	int r;

	if (fstatat(up, name, &u, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (fstatat(host, name, &h, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;	/* new */
	if ((h.st_mode & S_IFMT) != (u.st_mode & S_IFMT))
		return 0;	/* another kind of file */
	if (S_ISDIR(u.st_mode)) {
		if ((a = openat(host, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0 || (b = openat(up, name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			return 0;
		if ((r = settle_dir(a, b, path, o)) < 0)
			return r;
		/* Emptied and of the same mode: nothing changed there. */
		if ((h.st_mode & 07777) == (u.st_mode & 07777) &&
		    unlinkat(up, name, AT_REMOVEDIR) < 0 &&
		    errno != ENOTEMPTY && errno != EEXIST)
			return -errno;
		return 0;
	}
	if ((h.st_mode & 07777) != (u.st_mode & 07777))
		return 0;	/* its mode changed */
	if (S_ISLNK(u.st_mode)) {
		n = readlinkat(host, name, ht, sizeof ht);
		m = readlinkat(up, name, ut, sizeof ut);
		if (n < 0 || n != m || memcmp(ht, ut, (size_t)n) != 0)
			return 0;
	} else if (S_ISREG(u.st_mode)) {
		if (h.st_size != u.st_size)
			return 0;
		if ((a = openat(host, name, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0 || (b = openat(up, name, O_RDONLY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			return 0;
		if (!same_data(a, b))
			return 0;
	} else
		return 0;
	return unlinkat(up, name, 0) < 0 ? -errno : 0;
}

/* Every name of a folder, or NULL with errno. */
static char **
names_of(int fd, size_t *n)
{
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d;
	struct dirent *e;
	char **v = NULL;

	*n = 0;
	if (dfd < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return NULL;
	}
	strv_push(&v, n, NULL);	/* never NULL, even when empty */
	*n = 0;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			strv_push(&v, n, xstrdup(e->d_name));
	closedir(d);
	return v;
}

static int
settle_dir(int host, int up, const char *path, const struct project_opts *o)
{
	size_t n_up;
	cleanup_strv char **ups = names_of(up, &n_up);
	int r;

	if (ups == NULL)
		return -errno;
	for (size_t i = 0; i < n_up; i++) {
		cleanup_free char *sub = xasprintf("%s/%s", path, ups[i]);

		if ((r = settle_entry(host, up, ups[i], sub, o)) < 0)
			return r;
	}
	return 0;
}

/*
 * Deletions first, while the copy still holds every name it was made
 * with: a host name (not a skipped one) missing in the copy was deleted
 * by the program; then the unchanged entries go.
 */
static int
mark_deleted(int host, int up, const char *root, const char *path,
    const struct project_opts *o)
{
	size_t n_host;
	cleanup_strv char **hosts = names_of(host, &n_host);
	struct stat hs, us;
	int r;

	if (hosts == NULL)
		return -errno;
	for (size_t i = 0; i < n_host; i++) {
		cleanup_free char *sub = xasprintf("%s/%s", path, hosts[i]);
		cleanup_fd int a = -1, b = -1;

		/* Only what copy_entry copies can have been deleted. */
		if (skipped(o, root, sub) || fstatat(host, hosts[i], &hs,
		    AT_SYMLINK_NOFOLLOW) < 0 || !(S_ISREG(hs.st_mode) ||
		    S_ISDIR(hs.st_mode) || S_ISLNK(hs.st_mode)))
			continue;
		if (fstatat(up, hosts[i], &us, AT_SYMLINK_NOFOLLOW) < 0) {
			cleanup_free char *wh = NULL;
			int fd;

			if (errno != ENOENT)
				return -errno;
			wh = xasprintf(WH_PREFIX "%s", hosts[i]);
			if ((fd = openat(up, wh, O_WRONLY | O_CREAT | O_CLOEXEC,
			    0600)) < 0)
				return -errno;
			close(fd);
			continue;
		}
		if (!S_ISDIR(hs.st_mode) || !S_ISDIR(us.st_mode))
			continue;
		if ((a = openat(host, hosts[i], O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0 || (b = openat(up, hosts[i],
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		if ((r = mark_deleted(a, b, root, sub, o)) < 0)
			return r;
	}
	return 0;
}

/* project.ini's last line, once upper/ is final. */
static int
mark_settled(const struct project *p, char **cause)
{
	cleanup_free char *ini = xasprintf("%s/project.ini", p->dir);
	cleanup_free char *line = xasprintf("settled_ms = %lld\n",
	    (long long)now_wall_ms());
	cleanup_fd int fd = open(ini, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd < 0 || write_all(fd, line, strlen(line)) < 0) {
		int r = -errno;

		set_cause(cause, "write %s: %s", ini, strerror(-r));
		return r;
	}
	return 0;
}

int
project_settle(const struct project *p, const struct project_opts *o,
    char **cause)
{
	cleanup_fd int host = -1, up = -1;
	int r;

	if (p->mode != PROJECT_COPY)
		return mark_settled(p, cause);
	host = open(p->host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	up = open(p->upper, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (host < 0 || up < 0) {
		r = -errno;
		set_cause(cause, "settle %s: %s", p->upper, strerror(-r));
		return r;
	}
	if ((r = mark_deleted(host, up, p->host, p->host, o)) < 0 ||
	    (r = settle_dir(host, up, p->host, o)) < 0) {
		set_cause(cause, "settle %s: %s", p->upper, strerror(-r));
		return r;
	}
	return mark_settled(p, cause);
}
