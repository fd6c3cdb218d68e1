/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's root, built in the child between clone and exec
 * (supervisor/spawn.c): the host's system folders read-only, the
 * projects' overlays, the writable and hidden folders, /dev, /proc and
 * the run's own files, then pivot_root.
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
#include "supervisor/spawn-int.h"

/* Host folders every sandbox sees read-only, and the root symlinks of a
 * merged-/usr system, recreated as they are. */
static const char *const host_ro_dirs[] = { "/usr", "/etc", "/opt", "/var" };
static const char *const host_root_links[] = {
	"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};
static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty",
};

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
		spawn_fail(c, "mkdir %s", path);
	snprintf(parent, sizeof parent, "%s", path);
	if ((slash = strrchr(parent, '/')) == NULL || slash == parent)
		spawn_fail(c, "mkdir %s", path);
	*slash = '\0';
	mkdir_in(c, parent);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		spawn_fail(c, "mkdir %s", path);
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
		spawn_fail(c, "create %s", path);
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
		spawn_fail(c, "remount %s read-only", path);
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
		spawn_fail(c, "open /proc/self/mountinfo");
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
			spawn_fail(c, "remount %s read-only", m);
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
		spawn_fail(c, "bind %s", host);
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
			spawn_fail(c, "bind %s (idmapped)", b->host);
		close(b->tree_fd);
		lower = target;
	}
	if ((size_t)snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,"
	    "workdir=%s,userxattr,metacopy=off", lower, b->upper,
	    b->workdir) >= sizeof opts)
		spawn_fail(c, "overlay %s: paths too long", b->host);
	if (mount("overlay", target, "overlay", 0, opts) < 0)
		spawn_fail(c, "overlay %s", b->host);
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
			spawn_fail(c, "bind %s (idmapped)", b->host);
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
			spawn_fail(c, "readlink /etc/resolv.conf");
		link[n] = '\0';
		if (link[0] == '/')
			snprintf(target, sizeof target, "%s", link);
		else
			snprintf(target, sizeof target, "/etc/%s", link);
		/* Only the common shape: a file under /run. */
		if (str_has_prefix(target, "/etc/../run/"))
			memmove(target, target + 7, strlen(target + 7) + 1);
		if (!str_has_prefix(target, "/run/") || strstr(target, "/../"))
			spawn_fail(c, "/etc/resolv.conf links to %s, outside /run",
			    target);
		path_join(p, sizeof p, root, "/run");
		mkdir_in(c, p);
		if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		    "mode=0755,size=64k") < 0)
			spawn_fail(c, "mount /run");
		path_join(p, sizeof p, root, target);
	} else
		path_join(p, sizeof p, root, "/etc/resolv.conf");
	touch_in(c, p);
	if (mount(c->cfg->resolv_conf, p, NULL, MS_BIND, NULL) < 0)
		spawn_fail(c, "bind %s", c->cfg->resolv_conf);
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
		spawn_fail(c, "bind %s on %s", host, inside);
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
void
spawn_dns_sockets(const struct child *c)
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
		spawn_fail(c, "DNS stub socket");
	setsockopt(fds[1], SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fds[0], (struct sockaddr *)&a, sizeof a) < 0 ||
	    bind(fds[1], (struct sockaddr *)&a, sizeof a) < 0 ||
	    listen(fds[1], 16) < 0)
		spawn_fail(c, "DNS stub on 127.0.0.1:53");
	spawn_send_fds(c, fds, 2);
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
			spawn_fail(c, "hide %s", what);
	} else if (mount("/dev/null", p, NULL, MS_BIND, NULL) < 0)
		spawn_fail(c, "hide %s", what);
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
		spawn_fail(c, "hide %s: open", path);
	}
	if (fstat(fd, &st) < 0)
		spawn_fail(c, "hide %s: stat", path);
	snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", fd);
	hide(c, fdp, path, &st, false);
	close(fd);
	if (!S_ISDIR(st.st_mode))
		return -1;
	/* The same path again: now the tmpfs' root. */
	if ((fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof how)) < 0)
		spawn_fail(c, "hide %s: reopen", path);
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
		spawn_fail(c, "open %s", cfg->root);
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
			spawn_fail(c, "remount %s read-only", ops[i].inside);
		close(tmpfs[i]);
	}
	close(rootfd);
	free(tmpfs);
	free(ops);
}

void
spawn_build_root(const struct child *c)
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
		spawn_fail(c, "make / private");
	if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0755,size=1m") < 0)
		spawn_fail(c, "mount root tmpfs on %s", root);

	for (size_t i = 0; i < ARRAY_SIZE(host_root_links); i++) {
		const char *l = host_root_links[i];
		ssize_t n;

		if (lstat(l, &st) < 0)
			continue;
		path_join(p, sizeof p, root, l);
		if (S_ISLNK(st.st_mode)) {
			if ((n = readlink(l, q, sizeof q - 1)) < 0)
				spawn_fail(c, "readlink %s", l);
			q[n] = '\0';
			if (symlink(q, p) < 0)
				spawn_fail(c, "symlink %s", p);
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
		spawn_fail(c, "mount /tmp");

	path_join(p, sizeof p, root, "/dev");
	mkdir_in(c, p);
	if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NOEXEC,
	    "mode=0755,size=64k") < 0)
		spawn_fail(c, "mount /dev");
	for (size_t i = 0; i < ARRAY_SIZE(dev_nodes); i++) {
		snprintf(q, sizeof q, "/dev/%s", dev_nodes[i]);
		if (stat(q, &st) < 0)
			continue;
		path_join(p, sizeof p, root, q);
		touch_in(c, p);
		if (mount(q, p, NULL, MS_BIND, NULL) < 0)
			spawn_fail(c, "bind %s", q);
	}
	path_join(p, sizeof p, root, "/dev/pts");
	mkdir_in(c, p);
	if (mount("devpts", p, "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=0620") < 0)
		spawn_fail(c, "mount /dev/pts");
	path_join(p, sizeof p, root, "/dev/shm");
	mkdir_in(c, p);
	if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, tmpopts) < 0)
		spawn_fail(c, "mount /dev/shm");
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
				spawn_fail(c, "symlink %s", p);
		}
	}
	path_join(p, sizeof p, root, "/dev");
	remount_ro(c, p);

	/* Our own pid namespace's /proc: we are its pid 1. */
	path_join(p, sizeof p, root, "/proc");
	mkdir_in(c, p);
	if (mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) < 0)
		spawn_fail(c, "mount /proc");

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
		spawn_fail(c, "chdir %s", root);
	/* pivot_root(".", ".") stacks the old root under the new one;
	 * detaching it leaves the host's tree out of reach. */
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		spawn_fail(c, "pivot_root");
	if (umount2(".", MNT_DETACH) < 0)
		spawn_fail(c, "detach the host root");
	if (chdir("/") < 0)
		spawn_fail(c, "chdir /");
}
