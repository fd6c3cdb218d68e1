/* SPDX-License-Identifier: MIT */
/*
 * Everything between clone and exec lives here. The code after clone runs
 * in a copy of a single-threaded supervisor; it reports the first failure
 * on err_fd and ends in _exit, never returning into the supervisor's code.
 */
#include "supervisor/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

#include "config/util.h"
#include "supervisor/compat.h"

extern char **environ;

/* Host folders every sandbox sees read-only, and the root symlinks of a
 * merged-/usr system, recreated as they are. */
static const char *const host_ro_dirs[] = { "/usr", "/etc", "/opt", "/var" };
static const char *const host_root_links[] = {
	"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};
static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty",
};

struct child {
	const struct spawn_config *cfg;
	int	 err_fd;
	int	 sync_fd;
	int	 sock_fd;
	int	 status_fd;
	int	 go_fd;
};

static void send_fds(const struct child *, const int *, size_t);

static void __attribute__((noreturn, format(printf, 2, 3)))
child_fail(const struct child *c, const char *fmt, ...)
{
	char buf[512];
	int saved = errno;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf - 64, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof buf - 64)
		n = (int)(sizeof buf - 64);
	n += snprintf(buf + n, sizeof buf - (size_t)n, ": %s", strerror(saved));
	(void)!write(c->err_fd, buf, (size_t)n);
	_exit(125);
}

static void
path_join(char *out, size_t size, const char *root, const char *p)
{
	snprintf(out, size, "%s%s", root, p);
}

/* mkdir -p, but from the bottom: a path whose parent exists (nearly all
 * of them, below the root we made) costs one mkdir, not one per level. */
static void
mkdir_in(const struct child *c, const char *path)
{
	char parent[PATH_MAX];
	char *slash;

	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return;
	if (errno != ENOENT)
		child_fail(c, "mkdir %s", path);
	snprintf(parent, sizeof parent, "%s", path);
	if ((slash = strrchr(parent, '/')) == NULL || slash == parent)
		child_fail(c, "mkdir %s", path);
	*slash = '\0';
	mkdir_in(c, parent);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		child_fail(c, "mkdir %s", path);
}

static void
touch_in(const struct child *c, const char *path)
{
	char parent[PATH_MAX];
	char *slash;
	int fd;

	snprintf(parent, sizeof parent, "%s", path);
	if ((slash = strrchr(parent, '/')) != NULL && slash != parent) {
		*slash = '\0';
		mkdir_in(c, parent);
	}
	/* An existing file (in a read-only bind) is already a mount point. */
	if (access(path, F_OK) == 0)
		return;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
		child_fail(c, "create %s", path);
	close(fd);
}

/* The flags a remount must keep: in a user namespace the kernel refuses
 * to clear nosuid/nodev/noexec/atime flags locked by the parent. */
static unsigned long
locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long f = 0;

	if (statvfs(path, &sv) < 0)
		return 0;
	if (sv.f_flag & ST_NOSUID)
		f |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV)
		f |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		f |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		f |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		f |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		f |= MS_RELATIME;
	return f;
}

static void
remount_ro(const struct child *c, const char *path)
{
	unsigned long f = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID |
	    MS_NODEV | locked_flags(path);

	if (mount(NULL, path, NULL, f, NULL) < 0)
		child_fail(c, "remount %s read-only", path);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void
unescape_octal(char *s)
{
	char *o = s;

	while (*s != '\0') {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 4;
		} else
			*o++ = *s++;
	}
	*o = '\0';
}

/*
 * A recursive bind brings the submounts of a host folder along (a
 * container's /etc/resolv.conf, say); each must be made read-only on its
 * own, or it stays writable under a read-only parent. One read of
 * mountinfo for all the tops (prefix + tops[i]) bound so far.
 */
static void
remount_submounts_ro(const struct child *c, const char *prefix,
    const char *const *tops, size_t n_tops)
{
	size_t plen = strlen(prefix), cap = 1 << 16, n = 0;
	char *buf = xmalloc(cap), *line, *save = NULL;
	int fd;
	ssize_t r;

	if ((fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)) < 0)
		child_fail(c, "open /proc/self/mountinfo");
	while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (n == cap - 1)
			buf = xrealloc(buf, cap *= 2);
	}
	close(fd);
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *f[5] = { 0 }, *s = line, *m;
		bool under = false;

		for (int i = 0; i < 5 && s != NULL; i++) {
			f[i] = s;
			if ((s = strchr(s, ' ')) != NULL)
				*s++ = '\0';
		}
		if (f[4] == NULL)
			continue;
		unescape_octal(m = f[4]);
		if (strncmp(m, prefix, plen) != 0)
			continue;
		for (size_t i = 0; i < n_tops && !under; i++) {
			size_t len = strlen(tops[i]);

			under = strncmp(m + plen, tops[i], len) == 0 &&
			    m[plen + len] == '/';
		}
		if (!under)
			continue;
		/* EINVAL, ENOENT: a mount shadowed by the bind itself (one
		 * of our hidden tmpfs beneath it, or the run's own root when
		 * the folder holds ward's state), out of reach at this path.
		 * EACCES: a mount below a folder the user cannot search (a
		 * rootful container's under /var/lib/docker): the program,
		 * the same user with no more rights, cannot reach it either,
		 * so it is left as it is, as bubblewrap does. */
		if (mount(NULL, m, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
		    MS_NOSUID | MS_NODEV | locked_flags(m), NULL) < 0 &&
		    errno != EINVAL && errno != ENOENT && errno != EACCES)
			child_fail(c, "remount %s read-only", m);
	}
	free(buf);
}

/* A read-only bind's submounts are the caller's to remount (above). */
static void
bind_one(const struct child *c, const char *host, const char *target,
    bool is_dir, bool writable)
{
	if (is_dir)
		mkdir_in(c, target);
	else
		touch_in(c, target);
	if (mount(host, target, NULL, MS_BIND | MS_REC, NULL) < 0)
		child_fail(c, "bind %s", host);
	if (!writable)
		remount_ro(c, target);
}

/*
 * A project: an overlay over the host folder, mounted here, in the
 * sandbox's user namespace (unprivileged overlayfs, its xattrs in the
 * user.* namespace: userxattr). metacopy=off: a chmod copies the file
 * up whole, so upper/ holds every changed file's bytes. An idmapped copy
 * of the host folder (ward as root) is the lower layer: moved on the
 * target first, named by it.
 */
static void
overlay_into(const struct child *c, const struct bind *b, const char *target)
{
	char opts[3 * PATH_MAX + 64];
	const char *lower = b->host;

	mkdir_in(c, target);
	if (b->tree_fd >= 0) {
		if (syscall(SYS_move_mount, b->tree_fd, "", AT_FDCWD, target,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			child_fail(c, "bind %s (idmapped)", b->host);
		close(b->tree_fd);
		lower = target;
	}
	if ((size_t)snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,"
	    "workdir=%s,userxattr,metacopy=off", lower, b->upper,
	    b->workdir) >= sizeof opts)
		child_fail(c, "overlay %s: paths too long", b->host);
	if (mount("overlay", target, "overlay", 0, opts) < 0)
		child_fail(c, "overlay %s", b->host);
}

static void
bind_into(const struct child *c, const struct bind *b, const char *target)
{
	if (b->upper != NULL) {
		overlay_into(c, b, target);
		return;
	}
	if (b->tree_fd >= 0) {
		/* Made read-only, recursively, with its idmap. */
		if (b->is_dir)
			mkdir_in(c, target);
		else
			touch_in(c, target);
		if (syscall(SYS_move_mount, b->tree_fd, "", AT_FDCWD, target,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			child_fail(c, "bind %s (idmapped)", b->host);
		close(b->tree_fd);
		return;
	}
	bind_one(c, b->host, target, b->is_dir, b->writable);
	if (!b->writable)
		remount_submounts_ro(c, "", &target, 1);
}

/*
 * The sandbox's /etc/resolv.conf names the DNS stub. Where the host's is
 * a symlink into /run (systemd-resolved), /run is the sandbox's own
 * tmpfs and the stub's file goes where the link points.
 */
static void
bind_resolv_conf(const struct child *c)
{
	const char *root = c->cfg->root;
	char p[PATH_MAX], link[PATH_MAX - 8], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (lstat("/etc/resolv.conf", &st) == 0 && S_ISLNK(st.st_mode)) {
		if ((n = readlink("/etc/resolv.conf", link, sizeof link - 1)) < 0)
			child_fail(c, "readlink /etc/resolv.conf");
		link[n] = '\0';
		if (link[0] == '/')
			snprintf(target, sizeof target, "%s", link);
		else
			snprintf(target, sizeof target, "/etc/%s", link);
		/* Only the common shape: a file under /run. */
		if (str_has_prefix(target, "/etc/../run/"))
			memmove(target, target + 7, strlen(target + 7) + 1);
		if (!str_has_prefix(target, "/run/") || strstr(target, "/../"))
			child_fail(c, "/etc/resolv.conf links to %s, outside /run",
			    target);
		path_join(p, sizeof p, root, "/run");
		mkdir_in(c, p);
		if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		    "mode=0755,size=64k") < 0)
			child_fail(c, "mount /run");
		path_join(p, sizeof p, root, target);
	} else
		path_join(p, sizeof p, root, "/etc/resolv.conf");
	touch_in(c, p);
	if (mount(c->cfg->resolv_conf, p, NULL, MS_BIND, NULL) < 0)
		child_fail(c, "bind %s", c->cfg->resolv_conf);
	remount_ro(c, p);
}

/* A file of the run over one of /etc (read-only). */
static void
bind_etc_file(const struct child *c, const char *host, const char *inside)
{
	char p[PATH_MAX];

	path_join(p, sizeof p, c->cfg->root, inside);
	touch_in(c, p);
	if (mount(host, p, NULL, MS_BIND, NULL) < 0)
		child_fail(c, "bind %s on %s", host, inside);
	remount_ro(c, p);
}

/* The TLS gate's CAs: the sandbox trusts the run's CA wherever a client
 * looks for the system's (only the bundles the host has: /etc is the
 * host's, read-only, and takes no new names). */
static void
bind_gate_ca(const struct child *c)
{
	static const char *const system[] = {
		SPAWN_SYSTEM_BUNDLE, SPAWN_SYSTEM_CERT_PEM,
	};
	char p[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(system); i++) {
		path_join(p, sizeof p, c->cfg->root, system[i]);
		if (access(p, F_OK) == 0)
			bind_etc_file(c, c->cfg->ca_bundle, system[i]);
	}
	bind_etc_file(c, c->cfg->ca_bundle, SPAWN_GATE_BUNDLE);
	bind_etc_file(c, c->cfg->ca_cert, SPAWN_GATE_CA);
}

/* The DNS stub's sockets, made here, in the sandbox's network namespace,
 * on its loopback, and handed to the supervisor (which lives outside). */
static void
dns_sockets(const struct child *c)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(53),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fds[2], one = 1;

	fds[0] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	fds[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fds[0] < 0 || fds[1] < 0)
		child_fail(c, "DNS stub socket");
	setsockopt(fds[1], SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fds[0], (struct sockaddr *)&a, sizeof a) < 0 ||
	    bind(fds[1], (struct sockaddr *)&a, sizeof a) < 0 ||
	    listen(fds[1], 16) < 0)
		child_fail(c, "DNS stub on 127.0.0.1:53");
	send_fds(c, fds, 2);
	close(fds[0]);
	close(fds[1]);
}

static void
hide(const struct child *c, const char *p, const char *what,
    const struct stat *st, bool ro)
{
	if (S_ISDIR(st->st_mode)) {
		if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC |
		    (ro ? MS_RDONLY : 0), "mode=0755,size=64k") < 0)
			child_fail(c, "hide %s", what);
	} else if (mount("/dev/null", p, NULL, MS_BIND, NULL) < 0)
		child_fail(c, "hide %s", what);
}

/* One mount of the user's part of the tree: a bind (--in, writable, an
 * exposed entry of a credential store) or a hidden path. */
struct tree_op {
	const char	*inside;
	const struct bind *bind;	/* NULL: hide inside */
	size_t		 order;		/* ties keep the caller's order */
};

static int
tree_op_cmp(const void *a, const void *b)
{
	const struct tree_op *x = a, *y = b;
	int r = strcmp(x->inside, y->inside);

	if (r != 0)
		return r;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Is a bind at or beneath sandbox path h (exactly at it, when exact)? */
static bool
bind_under(const struct spawn_config *cfg, const char *h, bool exact)
{
	size_t n = strlen(h);

	for (size_t i = 0; i < cfg->n_binds + cfg->n_exposed; i++) {
		const char *in = i < cfg->n_binds ? cfg->binds[i].inside :
		    cfg->exposed[i - cfg->n_binds].inside;

		if (strncmp(in, h, n) != 0)
			continue;
		if (exact ? in[n] == '\0' : in[n] == '/')
			return true;
	}
	return false;
}

/*
 * Hide one path, as the sandbox will resolve it (a symlink in an --in
 * folder leads where it leads in there, not on the host): an empty
 * tmpfs over a folder, /dev/null over a file. A path not there is
 * hidden only when a bind lies beneath it (its mount point is made).
 * Writable until every bind beneath is in: when a tmpfs was mounted, an
 * O_PATH fd of it, to remount read-only at the end; else -1.
 */
static int
hide_in_root(const struct child *c, int rootfd, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char p[PATH_MAX], fdp[64];
	struct stat st;
	int fd;

	fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof how);
	if (fd < 0 && errno == ENOENT && bind_under(c->cfg, path, false)) {
		path_join(p, sizeof p, c->cfg->root, path);
		mkdir_in(c, p);
		fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof how);
	}
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			return -1;
		child_fail(c, "hide %s: open", path);
	}
	if (fstat(fd, &st) < 0)
		child_fail(c, "hide %s: stat", path);
	snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", fd);
	hide(c, fdp, path, &st, false);
	close(fd);
	if (!S_ISDIR(st.st_mode))
		return -1;
	/* The same path again: now the tmpfs' root. */
	if ((fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof how)) < 0)
		child_fail(c, "hide %s: reopen", path);
	return fd;
}

/*
 * The user's part of the tree, parents before children: --in and
 * writable folders, the hidden paths (the policy's, the user's home and
 * state, the credential stores) and the exposed entries of those. A
 * child mounted after its parent shows on top of it: ~/p over the hidden
 * home, the hidden ~/.ssh over an --in ~, an exposed ~/.ssh/known_hosts
 * over the hidden ~/.ssh. A hidden path with a bind exactly on it is the
 * bind's (the person named that folder). The hiding tmpfs go read-only
 * once everything beneath them is in.
 */
static void
user_tree(const struct child *c)
{
	const struct spawn_config *cfg = c->cfg;
	size_t n = cfg->n_binds + cfg->n_hidden + cfg->n_exposed, k = 0;
	struct tree_op *ops = xcalloc(n ? n : 1, sizeof *ops);
	int *tmpfs = xcalloc(n ? n : 1, sizeof *tmpfs);
	char p[PATH_MAX];
	int rootfd;

	for (size_t i = 0; i < cfg->n_binds; i++, k++)
		ops[k] = (struct tree_op){ cfg->binds[i].inside, &cfg->binds[i], k };
	for (size_t i = 0; i < cfg->n_hidden; i++, k++)
		ops[k] = (struct tree_op){ cfg->hidden[i], NULL, k };
	for (size_t i = 0; i < cfg->n_exposed; i++, k++)
		ops[k] = (struct tree_op){ cfg->exposed[i].inside,
		    &cfg->exposed[i], k };
	qsort(ops, n, sizeof *ops, tree_op_cmp);
	if ((rootfd = open(cfg->root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		child_fail(c, "open %s", cfg->root);
	for (size_t i = 0; i < n; i++) {
		const struct bind *b = ops[i].bind;

		tmpfs[i] = -1;
		if (b == NULL) {
			if (!bind_under(cfg, ops[i].inside, true))
				tmpfs[i] = hide_in_root(c, rootfd, ops[i].inside);
			continue;
		}
		path_join(p, sizeof p, cfg->root, b->inside);
		bind_into(c, b, p);
	}
	for (size_t i = 0; i < n; i++) {
		if (tmpfs[i] < 0)
			continue;
		snprintf(p, sizeof p, "/proc/self/fd/%d", tmpfs[i]);
		if (mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
		    MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			child_fail(c, "remount %s read-only", ops[i].inside);
		close(tmpfs[i]);
	}
	close(rootfd);
	free(tmpfs);
	free(ops);
}

static void
build_root(const struct child *c)
{
	const struct spawn_config *cfg = c->cfg;
	const char *root = cfg->root;
	char p[PATH_MAX], q[PATH_MAX], tmpopts[64];
	const char *ro_tops[ARRAY_SIZE(host_root_links) +
	    ARRAY_SIZE(host_ro_dirs)];
	size_t n_ro = 0;
	struct stat st;

	/* Nothing we mount may propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(c, "make / private");
	if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0755,size=1m") < 0)
		child_fail(c, "mount root tmpfs on %s", root);

	for (size_t i = 0; i < ARRAY_SIZE(host_root_links); i++) {
		const char *l = host_root_links[i];
		ssize_t n;

		if (lstat(l, &st) < 0)
			continue;
		path_join(p, sizeof p, root, l);
		if (S_ISLNK(st.st_mode)) {
			if ((n = readlink(l, q, sizeof q - 1)) < 0)
				child_fail(c, "readlink %s", l);
			q[n] = '\0';
			if (symlink(q, p) < 0)
				child_fail(c, "symlink %s", p);
		} else if (S_ISDIR(st.st_mode)) {
			bind_one(c, l, p, true, false);
			ro_tops[n_ro++] = l;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(host_ro_dirs); i++) {
		if (stat(host_ro_dirs[i], &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		path_join(p, sizeof p, root, host_ro_dirs[i]);
		bind_one(c, host_ro_dirs[i], p, true, false);
		ro_tops[n_ro++] = host_ro_dirs[i];
	}
	remount_submounts_ro(c, root, ro_tops, n_ro);
	/* The sandbox's own tmpfs take memory: no more than the run may
	 * use (tmpfs' default is half the host's RAM each). */
	if (cfg->memory > 0)
		snprintf(tmpopts, sizeof tmpopts, "mode=1777,size=%llu",
		    (unsigned long long)cfg->memory);
	else
		snprintf(tmpopts, sizeof tmpopts, "mode=1777");
	path_join(p, sizeof p, root, "/tmp");
	mkdir_in(c, p);
	if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, tmpopts) < 0)
		child_fail(c, "mount /tmp");

	path_join(p, sizeof p, root, "/dev");
	mkdir_in(c, p);
	if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NOEXEC,
	    "mode=0755,size=64k") < 0)
		child_fail(c, "mount /dev");
	for (size_t i = 0; i < ARRAY_SIZE(dev_nodes); i++) {
		snprintf(q, sizeof q, "/dev/%s", dev_nodes[i]);
		if (stat(q, &st) < 0)
			continue;
		path_join(p, sizeof p, root, q);
		touch_in(c, p);
		if (mount(q, p, NULL, MS_BIND, NULL) < 0)
			child_fail(c, "bind %s", q);
	}
	path_join(p, sizeof p, root, "/dev/pts");
	mkdir_in(c, p);
	if (mount("devpts", p, "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=0620") < 0)
		child_fail(c, "mount /dev/pts");
	path_join(p, sizeof p, root, "/dev/shm");
	mkdir_in(c, p);
	if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, tmpopts) < 0)
		child_fail(c, "mount /dev/shm");
	{
		static const char *const links[][2] = {
			{ "pts/ptmx", "/dev/ptmx" },
			{ "/proc/self/fd", "/dev/fd" },
			{ "/proc/self/fd/0", "/dev/stdin" },
			{ "/proc/self/fd/1", "/dev/stdout" },
			{ "/proc/self/fd/2", "/dev/stderr" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
			path_join(p, sizeof p, root, links[i][1]);
			if (symlink(links[i][0], p) < 0)
				child_fail(c, "symlink %s", p);
		}
	}
	path_join(p, sizeof p, root, "/dev");
	remount_ro(c, p);

	/* Our own pid namespace's /proc: we are its pid 1. */
	path_join(p, sizeof p, root, "/proc");
	mkdir_in(c, p);
	if (mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) < 0)
		child_fail(c, "mount /proc");

	if (cfg->resolv_conf != NULL)
		bind_resolv_conf(c);
	if (cfg->passwd != NULL)
		bind_etc_file(c, cfg->passwd, "/etc/passwd");
	if (cfg->group != NULL)
		bind_etc_file(c, cfg->group, "/etc/group");
	if (cfg->ca_bundle != NULL && cfg->ca_cert != NULL)
		bind_gate_ca(c);

	user_tree(c);

	/* The root tmpfs itself takes no new names. */
	remount_ro(c, root);

	if (chdir(root) < 0)
		child_fail(c, "chdir %s", root);
	/* pivot_root(".", ".") stacks the old root under the new one;
	 * detaching it leaves the host's tree out of reach. */
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		child_fail(c, "pivot_root");
	if (umount2(".", MNT_DETACH) < 0)
		child_fail(c, "detach the host root");
	if (chdir("/") < 0)
		child_fail(c, "chdir /");
}

/* The new network namespace has only lo, and it starts down. */
static void
loopback_up(const struct child *c)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		child_fail(c, "socket");
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		child_fail(c, "lo flags");
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		child_fail(c, "bring lo up");
	close(fd);
}

static int
landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}

int
spawn_landlock_abi(void)
{
	return landlock_abi();
}

/*
 * Landlock, the second wall: write rights only beneath the writable
 * folders. Applied before the seccomp filter (our filter does not trap
 * landlock_*, but the order keeps the wall independent of the filter).
 */
static void
apply_landlock(const struct child *c)
{
	const struct spawn_config *cfg = c->cfg;
	int abi = landlock_abi();
	uint64_t handled, file_rights;
	struct landlock_ruleset_attr_v6 attr = { 0 };
	const char *always[] = { "/tmp", "/dev", "/proc" };
	int rfd;

	if (abi < 1)
		child_fail(c, "landlock unavailable");
	handled = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
	    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
	    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
	    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
	    LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
	if (abi >= 2)
		handled |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
	file_rights = LANDLOCK_ACCESS_FS_WRITE_FILE |
	    (abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0);
	attr.handled_access_fs = handled;
	/* ABI 6: no abstract unix socket or signal reaches out of the
	 * sandbox's Landlock domain. TCP is not restricted here: the empty
	 * network namespace is that floor, and Landlock cannot tell the
	 * sandbox's own loopback (which must work) from the world. */
	if (abi >= 6)
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
		    LANDLOCK_SCOPE_SIGNAL;
	rfd = (int)syscall(SYS_landlock_create_ruleset, &attr,
	    abi >= 6 ? sizeof attr : offsetof(struct landlock_ruleset_attr_v6,
	    handled_access_net), 0);
	if (rfd < 0)
		child_fail(c, "landlock_create_ruleset");

	for (size_t i = 0; i < ARRAY_SIZE(always) + cfg->n_binds; i++) {
		struct landlock_path_beneath_attr pb = { 0 };
		const char *path;
		bool is_dir = true;
		struct stat st;

		if (i < ARRAY_SIZE(always))
			path = always[i];
		else {
			const struct bind *b = &cfg->binds[i - ARRAY_SIZE(always)];

			if (!b->writable)
				continue;
			path = b->inside;
			is_dir = b->is_dir;
		}
		if ((pb.parent_fd = open(path, O_PATH | O_CLOEXEC)) < 0)
			child_fail(c, "landlock: open %s", path);
		if (fstat(pb.parent_fd, &st) == 0 && !S_ISDIR(st.st_mode))
			is_dir = false;
		pb.allowed_access = is_dir ? handled : file_rights;
		if (syscall(SYS_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH,
		    &pb, 0) < 0)
			child_fail(c, "landlock_add_rule %s", path);
		close(pb.parent_fd);
	}
	if (syscall(SYS_landlock_restrict_self, rfd, 0) < 0)
		child_fail(c, "landlock_restrict_self");
	close(rfd);
}

static void
send_fds(const struct child *c, const int *fds, size_t n)
{
	char dummy = 'L';
	struct iovec iov = { .iov_base = &dummy, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = CMSG_SPACE(n * sizeof(int)),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	memset(u.buf, 0, sizeof u.buf);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	if (sendmsg(c->sock_fd, &msg, MSG_NOSIGNAL) != 1)
		child_fail(c, "send fds to the supervisor");
}

/*
 * Every signal to its default, through the kernel's own call: glibc keeps
 * 32 and 33 for itself and refuses them (signal() and sigaction() say
 * EINVAL), yet one ignored by whoever started ward would reach the
 * program ignored across exec all the same. SIGKILL and SIGSTOP are
 * refused by the kernel, and are never anything else.
 */
static void
child_signals_default(void)
{
	struct {
		void		*handler;
		unsigned long	 flags;
		void		*restorer;
		uint64_t	 mask;
	} dfl = { .handler = SIG_DFL };

	for (int sig = 1; sig <= 64; sig++)
		(void)syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof dfl.mask);
}
static void __attribute__((noreturn))
program_child(const struct child *c)
{
	const struct spawn_config *cfg = c->cfg;
	struct rlimit rl;
	sigset_t none;
	int listener;
	char go;

	if (setsid() < 0)
		child_fail(c, "setsid");
	/* The program gets its own terminal, never the console's:
	 * TIOCSTI on it can only reach itself (CVE-2017-5226). */
	if (cfg->set_ctty && ioctl(cfg->stdio[0], TIOCSCTTY, 0) < 0)
		child_fail(c, "set the controlling terminal");
	for (int i = 0; i < 3; i++)
		if (dup2(cfg->stdio[i], i) < 0)
			child_fail(c, "dup2");
	/* Every inherited fd but stdio closes at exec. */
	if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		child_fail(c, "close_range");

	rl.rlim_cur = rl.rlim_max = 0;
	setrlimit(RLIMIT_CORE, &rl);
	{
		const struct {
			int		 res;
			uint64_t	 cur, max;	/* 0 = no limit */
			const char	*what;
		} limits[] = {
			{ RLIMIT_NPROC, cfg->pids, cfg->pids, "pids" },
			{ RLIMIT_DATA, cfg->memory, cfg->memory, "memory" },
			/* SIGXCPU first, then SIGKILL a second later. */
			{ RLIMIT_CPU, cfg->cpu, cfg->cpu ? cfg->cpu + 1 : 0, "cpu" },
			{ RLIMIT_FSIZE, cfg->file_size, cfg->file_size,
			    "file size" },
			{ RLIMIT_NOFILE, cfg->open_files, cfg->open_files,
			    "open files" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
			if (limits[i].cur == 0)
				continue;
			rl.rlim_cur = limits[i].cur;
			rl.rlim_max = limits[i].max;
			if (setrlimit(limits[i].res, &rl) < 0)
				child_fail(c, "limit %s", limits[i].what);
		}
	}

	/* An empty bounding set: no exec (a setuid or file-capability
	 * binary in a bind) can bring a capability back. Done while we still
	 * hold CAP_SETPCAP in the namespace, up to the first the kernel does
	 * not know (EINVAL). */
	for (int cap = 0;; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL && cap > 0)
			break;
		child_fail(c, "drop capability %d from the bounding set", cap);
	}
	if (cfg->outer_uid == 0 && setgroups(0, NULL) < 0)
		child_fail(c, "setgroups");
	if (setresgid(cfg->inner_gid, cfg->inner_gid, cfg->inner_gid) < 0)
		child_fail(c, "setresgid %u", (unsigned)cfg->inner_gid);
	if (setresuid(cfg->inner_uid, cfg->inner_uid, cfg->inner_uid) < 0)
		child_fail(c, "setresuid %u", (unsigned)cfg->inner_uid);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(c, "no_new_privs");
	if (cfg->landlock)
		apply_landlock(c);
	if (chdir(cfg->cwd) < 0)
		child_fail(c, "chdir %s", cfg->cwd);

	/* The filter goes on last: nothing after it but the hand-off, the
	 * wait for go and exec, none of which it traps. */
	if ((listener = filter_load(cfg->filter)) < 0) {
		errno = -listener;
		child_fail(c, "load the seccomp filter");
	}
	send_fds(c, &listener, 1);
	/* The sandbox must not keep the listener: with it, the program could
	 * answer its own notifications. */
	close(listener);
	/* The supervisor ignores SIGPIPE; an ignored signal would stay
	 * ignored across exec. The program starts with every default. Done
	 * while the supervisor makes ready, not between the go and the exec
	 * (64 calls off the run's start); a signal that comes meanwhile
	 * meets the default the program would meet a moment later. */
	child_signals_default();
	if (read(c->go_fd, &go, 1) != 1)
		_exit(125);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	environ = (char **)cfg->envp;
	if (cfg->exec_path != NULL)
		execv(cfg->exec_path, cfg->argv);
	else
		execvp(cfg->argv[0], cfg->argv);
	{
		/* One write (the supervisor reads it as one message) from
		 * a buffer of our own: dprintf may allocate, and after the
		 * rlimits an ASan build's allocator cannot map memory. */
		static char msg[16384];
		int e = errno, n;

		n = snprintf(msg, sizeof msg, "cannot run %s: %s%s",
		    cfg->argv[0], strerror(e), e == ENOENT &&
		    cfg->not_found != NULL ? cfg->not_found : "");
		if (n > 0)
			(void)!write(c->err_fd, msg, (size_t)n < sizeof msg ?
			    (size_t)n : sizeof msg - 1);
		_exit(e == ENOENT ? 127 : 126);
	}
}

/* init runs as root of its namespace: it keeps none of the supervisor's
 * fds (the record, its terminal, the signalfd) but those it hands on
 * and the idmapped trees it will mount. */
static void
close_others(const struct child *c)
{
	const struct spawn_config *cfg = c->cfg;
	size_t n = 8;
	int *keep = xcalloc(8 + cfg->n_binds + cfg->n_exposed, sizeof *keep);
	unsigned int from = 3;

	memcpy(keep, (int[8]){
		c->err_fd, c->sync_fd, c->sock_fd, c->status_fd, c->go_fd,
		cfg->stdio[0], cfg->stdio[1], cfg->stdio[2],
	}, 8 * sizeof *keep);
	for (size_t i = 0; i < cfg->n_binds + cfg->n_exposed; i++) {
		const struct bind *b = i < cfg->n_binds ? &cfg->binds[i] :
		    &cfg->exposed[i - cfg->n_binds];

		if (b->tree_fd >= 0)
			keep[n++] = b->tree_fd;
	}
	/* Sort the few fds to keep, then close the gaps between them. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned int)keep[i] > from)
			syscall(SYS_close_range, from, (unsigned int)keep[i] - 1, 0);
		from = (unsigned int)keep[i] + 1;
	}
	syscall(SYS_close_range, from, ~0U, 0);
	free(keep);
}

/*
 * The signals a person or a tool sends to end or nudge a run (timeout(1),
 * docker stop, a terminal's hang-up): the supervisor forwards them to
 * init, and init to the program's process group, so that the program's
 * own handlers run (its traps, its clean-up) before any kill.
 */
static const int forwarded[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
};

void
spawn_forward_set(sigset_t *set)
{
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(set, forwarded[i]);
}

/* The program's process group, for init's handler (it called setsid,
 * so it leads its own group, with the pid init knows it by). */
static volatile pid_t init_prog;

static void
init_on_signal(int sig)
{
	int saved = errno;

	if (kill(-init_prog, sig) < 0 && errno == ESRCH)
		(void)kill(init_prog, sig);
	errno = saved;
}

/*
 * A pid namespace's init gets from outside only the signals it has a
 * handler for: these, which the supervisor sends it to forward.
 */
static void
init_forward(pid_t prog)
{
	struct sigaction sa = { .sa_handler = init_on_signal,
	    .sa_flags = SA_RESTART };
	sigset_t set;

	init_prog = prog;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	spawn_forward_set(&set);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		(void)sigaction(forwarded[i], &sa, NULL);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void __attribute__((noreturn))
init_child(struct child *c)
{
	const struct spawn_config *cfg = c->cfg;
	pid_t prog;
	char go;
	int st;

	close_others(c);
	/* If the supervisor dies, so does the sandbox: init is pid 1, and
	 * every process in its namespace dies with it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		child_fail(c, "PDEATHSIG");
	/* Wait for the uid/gid maps; EOF means the supervisor is gone. */
	if (read(c->sync_fd, &go, 1) != 1)
		_exit(125);
	close(c->sync_fd);
	if (sethostname("ward", 4) < 0)
		child_fail(c, "sethostname");
	loopback_up(c);
	if (cfg->resolv_conf != NULL)
		dns_sockets(c);
	build_root(c);

	/* vfork: the program's process shares init's memory until its exec,
	 * so nothing of init is copied (page tables, copy-on-write faults)
	 * and it runs at once on this CPU while init waits. It makes only
	 * system calls on its own stack and leaves by exec or _exit. */
	if ((prog = vfork()) < 0)
		child_fail(c, "vfork");
	if (prog == 0)
		program_child(c);

	close(c->sock_fd);
	close(c->go_fd);
	close(c->err_fd);
	for (int i = 0; i < 3; i++)
		close(cfg->stdio[i]);
	{
		/* Nor the supervisor's own terminal. */
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		for (int i = 0; null >= 0 && i < 3; i++)
			dup2(null, i);
		if (null > 2)
			close(null);
	}
	init_forward(prog);
	/* Reap everything (we are pid 1); report the program's status. */
	for (;;) {
		pid_t p = waitpid(-1, &st, 0);

		if (p == prog) {
			(void)!write(c->status_fd, &st, sizeof st);
			_exit(0);
		}
		if (p < 0 && errno == ECHILD)
			_exit(0);
	}
}

static int
write_file(const char *path, const char *text, char **cause)
{
	cleanup_fd int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write_all(fd, text, strlen(text)) < 0) {
		int e = errno;

		*cause = xasprintf("write %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

static int
write_maps(const struct spawn_config *cfg, pid_t pid, char **cause)
{
	char path[64], map[128];
	int r;

	if (cfg->outer_uid != 0) {
		/* An unprivileged user may only map itself, and only once
		 * setgroups is denied. */
		snprintf(path, sizeof path, "/proc/%d/setgroups", (int)pid);
		if ((r = write_file(path, "deny", cause)) < 0)
			return r;
		snprintf(map, sizeof map, "%u %u 1\n",
		    (unsigned)cfg->inner_uid, (unsigned)cfg->outer_uid);
	} else
		/* root: 0 for init's setup, inner for the program. */
		snprintf(map, sizeof map, "0 0 1\n%u %u 1\n",
		    (unsigned)cfg->inner_uid, (unsigned)cfg->inner_uid);
	snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
	if ((r = write_file(path, map, cause)) < 0)
		return r;
	if (cfg->outer_uid != 0)
		snprintf(map, sizeof map, "%u %u 1\n",
		    (unsigned)cfg->inner_gid, (unsigned)cfg->outer_gid);
	else
		snprintf(map, sizeof map, "0 0 1\n%u %u 1\n",
		    (unsigned)cfg->inner_gid, (unsigned)cfg->inner_gid);
	snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
	return write_file(path, map, cause);
}

/* ------------------------------------------------------------------ */
/* Idmapped binds (ward as root) */

/* A user namespace whose maps send host uid/gid `from` to `to`: a child
 * made in it waits while we write its maps and take its namespace. */
static int
idmap_userns(uid_t from_uid, gid_t from_gid, uid_t to_uid, gid_t to_gid,
    char **cause)
{
	int pp[2], fd = -1, r;
	char path[64], map[64];
	pid_t pid;

	if (pipe2(pp, O_CLOEXEC) < 0)
		return -errno;
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL,
	    NULL, 0);
	if (pid == 0) {
		char b;

		close(pp[1]);
		(void)!read(pp[0], &b, 1);
		_exit(0);
	}
	close(pp[0]);
	if (pid < 0) {
		r = -errno;
		close(pp[1]);
		*cause = xasprintf("a user namespace for an idmap: %s",
		    strerror(-r));
		return r;
	}
	snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
	/* An idmapped mount maps a file's id down through the namespace:
	 * the owner is the inside id, the program's the outside one. */
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)from_uid,
	    (unsigned)to_uid);
	if ((r = write_file(path, map, cause)) == 0) {
		snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)from_gid,
		    (unsigned)to_gid);
		r = write_file(path, map, cause);
	}
	if (r == 0) {
		snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			r = -errno;
			*cause = xasprintf("open %s: %s", path, strerror(-r));
		}
	}
	close(pp[1]);
	waitpid(pid, NULL, 0);
	return r < 0 ? r : fd;
}

/* A detached, recursive copy of b->host with userns' idmap (read-only
 * unless writable): the fd, or -errno. */
static int
idmap_tree(const struct bind *b, int userns)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_IDMAP | (b->writable ? 0 : MOUNT_ATTR_RDONLY),
		.userns_fd = (uint64_t)userns,
	};
	int fd, e;

	fd = (int)syscall(SYS_open_tree, AT_FDCWD, b->host, OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE,
	    &attr, sizeof attr) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* The system's own folders keep their ids whoever asks for them: mapped,
 * root's 0600 files in them (/etc/shadow) would be the program's. */
static bool
system_folder(const char *host)
{
	static const char *const whole[] = {
		"/etc", "/usr", "/boot", "/proc", "/sys", "/dev", "/run",
	};
	static const char *const tops[] = { "/", "/var", "/opt", "/srv",
		"/home", "/lib", "/lib64", "/bin", "/sbin", "/mnt", "/media" };

	for (size_t i = 0; i < ARRAY_SIZE(tops); i++)
		if (strcmp(host, tops[i]) == 0)
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(whole); i++) {
		size_t len = strlen(whole[i]);

		if (strncmp(host, whole[i], len) == 0 &&
		    (host[len] == '\0' || host[len] == '/'))
			return true;
	}
	return false;
}

int
spawn_idmap_binds(struct bind *binds, size_t n, uid_t uid, gid_t gid,
    char ***notes, size_t *n_notes, char **cause)
{
	struct owner_ns { uid_t u; gid_t g; int fd; } ns[16];
	size_t n_ns = 0;
	int r = 0;

	for (size_t i = 0; i < n && r >= 0; i++) {
		struct bind *b = &binds[i];
		struct stat st;
		int userns = -1, fd;

		b->tree_fd = -1;
		if (stat(b->host, &st) < 0 || (st.st_uid == uid &&
		    st.st_gid == gid) || system_folder(b->host))
			continue;
		for (size_t j = 0; j < n_ns && userns < 0; j++)
			if (ns[j].u == st.st_uid && ns[j].g == st.st_gid)
				userns = ns[j].fd;
		if (userns < 0 && n_ns == ARRAY_SIZE(ns)) {
			strv_push(notes, n_notes, xasprintf("%s: too many owners "
			    "to map; it keeps its ids (uid %u)", b->host,
			    (unsigned)st.st_uid));
			continue;
		}
		if (userns < 0) {
			if ((userns = idmap_userns(st.st_uid, st.st_gid, uid, gid,
			    cause)) < 0) {
				r = userns;
				break;
			}
			ns[n_ns++] = (struct owner_ns){ st.st_uid, st.st_gid,
			    userns };
		}
		if ((fd = idmap_tree(b, userns)) >= 0) {
			b->tree_fd = fd;
			continue;
		}
		if (fd != -EINVAL && fd != -ENOSYS && fd != -EPERM &&
		    fd != -EOPNOTSUPP) {
			*cause = xasprintf("idmap %s: %s", b->host, strerror(-fd));
			r = fd;
			break;
		}
		strv_push(notes, n_notes, xasprintf("%s: owned by uid %u, which "
		    "this kernel or filesystem cannot map to the program's "
		    "(%s): inside it keeps its ids, and the program (uid %u) "
		    "may not write to it", b->host, (unsigned)st.st_uid,
		    strerror(-fd), (unsigned)uid));
	}
	for (size_t j = 0; j < n_ns; j++)
		close(ns[j].fd);
	return r;
}

static char *child_error(int, pid_t);
static char *child_said(int, pid_t, int);

static int
recv_fds(int sock, int *fds, size_t n)
{
	char dummy;
	struct iovec iov = { .iov_base = &dummy, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = CMSG_SPACE(n * sizeof(int)),
	};
	struct cmsghdr *cm;
	ssize_t r;

	if ((r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0)
		return -errno;
	if (r != 1 || (msg.msg_flags & MSG_CTRUNC))
		return -EPROTO;
	cm = CMSG_FIRSTHDR(&msg);
	if (cm == NULL || cm->cmsg_level != SOL_SOCKET ||
	    cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(n * sizeof(int)))
		return -EPROTO;
	memcpy(fds, CMSG_DATA(cm), n * sizeof(int));
	return 0;
}

/* Wait for the next fds from the child, or its error. */
static int
await_fds(int sock, int err_fd, pid_t pid, int *fds, size_t n, char **cause)
{
	struct pollfd pfd[2] = {
		{ .fd = sock, .events = POLLIN },
		{ .fd = err_fd, .events = POLLIN },
	};
	int r = poll(pfd, 2, 30000);

	if (r <= 0 || !(pfd[0].revents & POLLIN)) {
		*cause = r == 0 ? xstrdup("sandbox setup timed out") :
		    child_error(err_fd, pid);
		return -EIO;
	}
	if ((r = recv_fds(sock, fds, n)) < 0)
		*cause = child_said(err_fd, pid, r);
	return r;
}

/*
 * The socket ended without fds: the child most likely died, and wrote
 * why on err_fd before it did (its write comes before its exit closes
 * the socket). Its words, not our EPROTO, are what the user needs.
 */
static char *
child_said(int err_fd, pid_t pid, int r)
{
	struct pollfd pfd = { .fd = err_fd, .events = POLLIN };

	if (poll(&pfd, 1, 2000) > 0 && (pfd.revents & (POLLIN | POLLHUP)))
		return child_error(err_fd, pid);
	return xasprintf("receive fds from the sandbox: %s", strerror(-r));
}

/* Reads what the child wrote on err_fd after it failed. */
static char *
child_error(int err_fd, pid_t pid)
{
	char buf[600];
	ssize_t n;
	int st;

	n = read(err_fd, buf, sizeof buf - 1);
	waitpid(pid, &st, 0);
	if (n <= 0)
		return xstrdup("the sandbox did not start");
	buf[n] = '\0';
	return xasprintf("sandbox setup: %s", buf);
}

int
spawn_sandbox(const struct spawn_config *cfg, struct spawn_result *res,
    char **cause)
{
	int errp[2] = { -1, -1 }, syncp[2] = { -1, -1 },
	    statp[2] = { -1, -1 }, gop[2] = { -1, -1 }, sv[2] = { -1, -1 };
	struct child c = { .cfg = cfg };
	pid_t pid;
	int r;

	memset(res, 0, sizeof *res);
	res->listener = res->status_fd = res->go_fd = res->err_fd = -1;
	res->dns[0] = res->dns[1] = -1;
	if (pipe2(errp, O_CLOEXEC) < 0 || pipe2(syncp, O_CLOEXEC) < 0 ||
	    pipe2(statp, O_CLOEXEC) < 0 || pipe2(gop, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		r = -errno;
		*cause = xasprintf("pipe: %s", strerror(errno));
		goto fail;
	}

	/* A raw clone, as fork, so that the child gets the new pid
	 * namespace itself and becomes its pid 1. */
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWPID |
	    CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |
	    CLONE_NEWCGROUP | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid < 0) {
		r = -errno;
		*cause = xasprintf("clone into new namespaces: %s%s",
		    strerror(errno), errno == EPERM || errno == ENOSPC ?
		    " (are unprivileged user namespaces disabled?)" : "");
		goto fail;
	}
	if (pid == 0) {
		close(errp[0]);
		close(syncp[1]);
		close(statp[0]);
		close(gop[1]);
		close(sv[0]);
		c.err_fd = errp[1];
		c.sync_fd = syncp[0];
		c.status_fd = statp[1];
		c.go_fd = gop[0];
		c.sock_fd = sv[1];
		init_child(&c);
	}
	close(errp[1]);
	close(syncp[0]);
	close(statp[1]);
	close(gop[0]);
	close(sv[1]);
	errp[1] = syncp[0] = statp[1] = gop[0] = sv[1] = -1;

	if ((r = write_maps(cfg, pid, cause)) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto fail;
	}
	if (write(syncp[1], "g", 1) != 1) {
		r = -errno;
		*cause = child_error(errp[0], pid);
		goto fail;
	}
	close(syncp[1]);
	syncp[1] = -1;
	if (cfg->meanwhile != NULL && (r = cfg->meanwhile(cfg->ctx, cause)) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto fail;
	}

	if (cfg->resolv_conf != NULL &&
	    (r = await_fds(sv[0], errp[0], pid, res->dns, 2, cause)) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto fail;
	}
	if ((r = await_fds(sv[0], errp[0], pid, &res->listener, 1, cause)) < 0) {
		closep(&res->dns[0]);
		closep(&res->dns[1]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto fail;
	}
	close(sv[0]);
	res->init_pid = pid;
	res->status_fd = statp[0];
	res->go_fd = gop[1];
	res->err_fd = errp[0];
	res->landlock_abi = cfg->landlock ? landlock_abi() : 0;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		closep(&errp[i]);
		closep(&syncp[i]);
		closep(&statp[i]);
		closep(&gop[i]);
		closep(&sv[i]);
	}
	return r;
}
