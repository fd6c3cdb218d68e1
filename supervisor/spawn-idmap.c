/* SPDX-License-Identifier: MIT */
/*
 * User namespaces' maps: the sandbox's own (uid_map, gid_map), and the
 * idmapped binds that show a root-run sandbox its user's files as its
 * own.
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

int
spawn_write_maps(const struct spawn_config *cfg, pid_t pid, char **cause)
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
