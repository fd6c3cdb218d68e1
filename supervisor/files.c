/* SPDX-License-Identifier: MIT */
/*
 * The write path: a trapped call that would change a file, copied out of
 * the target, judged where it lands, and continued, refused, performed on
 * the host (emulate.c), or parked for a person. The hot path (a write
 * inside the sandbox's own folders) continues without allocating.
 */
#include "supervisor/files.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "approvals/decide.h"
#include "config/protect.h"
#include "config/util.h"
#include "supervisor/compat.h"
#include "supervisor/emulate.h"
#include "supervisor/oci.h"
#include "supervisor/path.h"
#include "supervisor/sup.h"
#include "supervisor/target.h"

/* Writes beneath these are continued: the floor (mounts, Landlock) holds
 * the same boundary, so a raced path cannot carry the write further. */
static const char *const sandbox_writable[] = { "/work", "/out", "/tmp" };
/* Beneath these, writes reach devices and the sandbox's own processes:
 * the floor alone decides (and /dev/stdout-style links are magic links
 * that only the target itself can resolve). */
static const char *const sandbox_floor[] = { "/dev", "/proc" };

/* The deepest bind holding sandbox path `path`, or NULL: it decides
 * (a read-only --in folder beneath /tmp is not writable because /tmp
 * is). */
static const struct bind *
deepest_bind(const struct sup *s, const char *path)
{
	const struct bind *best = NULL;

	for (size_t i = 0; i < s->n_binds; i++)
		if (path_under(path, s->binds[i].inside) && (best == NULL ||
		    strlen(s->binds[i].inside) > strlen(best->inside)))
			best = &s->binds[i];
	return best;
}

enum files_where
files_where(const struct sup *s, const char *path)
{
	const struct bind *best = deepest_bind(s, path);

	if (best != NULL)
		return best->host_write ? WHERE_HOST : best->writable ?
		    WHERE_WRITABLE : WHERE_OUTSIDE;
	/* A container has none of the sandbox's own folders: its writable
	 * ones are binds of the policy's (oci.c), performed, never
	 * continued. /dev and /proc are its runtime's floor. */
	for (size_t i = 0; i < ARRAY_SIZE(sandbox_writable) && !s->oci; i++)
		if (path_under(path, sandbox_writable[i]))
			return WHERE_WRITABLE;
	for (size_t i = 0; i < ARRAY_SIZE(sandbox_floor); i++)
		if (path_under(path, sandbox_floor[i]))
			return WHERE_FLOOR;
	return WHERE_OUTSIDE;
}

static bool
is_writable(const struct sup *s, const char *path)
{
	return files_where(s, path) != WHERE_OUTSIDE;
}

/*
 * Protected paths (config/protect.h). The host folder holding path (a
 * project, a writable or an --in folder) is the root its relative
 * patterns are matched in; the sandbox's own folders (/work, /out,
 * /tmp) have none: nothing on the host runs what is there.
 */
static const struct bind *
protect_bind(const struct sup *s, const char *path)
{
	const struct bind *best = deepest_bind(s, path);

	for (size_t i = 0; best != NULL && i < ARRAY_SIZE(sandbox_writable);
	    i++)
		if (strcmp(best->inside, sandbox_writable[i]) == 0)
			return NULL;
	return best;
}

static const char *
protect_home(void)
{
	static char *home;

	/* Once: the home of who runs ward does not move during a run. */
	if (home == NULL && policy_home() != NULL)
		home = xstrdup(policy_home());
	return home;
}

static const char *
protect_one(const struct sup *s, const char *path, bool tree)
{
	const struct bind *b = protect_bind(s, path);
	const char *root = b != NULL ? b->inside : NULL;

	return tree ? protect_match_tree(&s->policy, root, protect_home(),
	    path) : protect_match(&s->policy, root, protect_home(), path);
}

/*
 * The pattern protecting the call's path or path2 (p1, p2: as judged so
 * far), or NULL. A rename moves a whole tree in or out at once, and a
 * symlink or a link is a name a tree can come in by: for those a folder
 * above a protected path counts too (".git", ".vscode"). A link's old
 * name counts as well: a second name for .git/config writes it.
 */
static const char *
protect_call(const struct sup *s, const struct write_call *c,
    const char *p1, const char *p2)
{
	bool tree = c->op == OP_RENAME || c->op == OP_SYMLINK ||
	    c->op == OP_LINK;
	const char *m;

	if ((m = protect_one(s, p1, tree)) != NULL)
		return m;
	if (c->two && p2 != NULL && (m = protect_one(s, p2,
	    c->op == OP_RENAME)) != NULL)
		return m;
	return NULL;
}

/*
 * The hot path's one check beyond the string: does any symlink stand on
 * the way to lex inside the sandbox root? One openat2 that refuses
 * symlinks answers it; a missing component is fine (nothing followed).
 * A planted /work/link -> /etc/passwd then takes the slow path and is
 * judged, and recorded, by where it really leads.
 */
static bool
no_symlinks_full(const struct sup *s, const char *lex, bool follow)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, s->rootfd, lex[1] ? lex + 1 : ".",
	    &how, sizeof how);

	if (fd >= 0) {
		close((int)fd);
		return true;
	}
	return errno == ENOENT || errno == ENOTDIR;
}

/*
 * The same answer for the common case, a run of calls in one folder: the
 * last folder found free of symlinks is kept open (O_PATH), and a name in
 * it costs one fstatat of its last component instead of an openat2 and a
 * close. Only a rename or a removed folder can put a symlink on the way
 * to a folder that had none (a symlink is made only where no name was,
 * and a folder's own components cannot be unlinked): judge() drops the
 * folder at each, and at each symlink made, before the kernel acts,
 * unless the hot path found the call's own paths free of symlinks and
 * neither is the kept folder nor a folder above it (a rename in the
 * folder keeps it). Threads that race those calls against a check race
 * the full check as much. What a process outside the sandbox does to a
 * writable folder is not seen here, as it was not seen between the full
 * check and the CONTINUE: either way the floor bounds the write (DESIGN
 * §1), and only the ask's accuracy is at stake, never the boundary.
 */
static struct {
	int	fd;		/* -1: none kept */
	int	rootfd;		/* the root it was found from */
	size_t	len;
	char	dir[PATH_MAX];
} nosym = { .fd = -1 };

/*
 * And the last names in that folder found not to be symlinks (or not
 * there), so that a run of calls on one name (a log reopened, an output
 * written again) costs no fstatat either: 0.7 us of a trapped call's 9.7
 * (tests/bench/trap-cost.sh). A name becomes a symlink only by a
 * symlink, link or rename call, all trapped: each forgets the names
 * before the kernel acts, and until the kernel is done with it (the
 * thread's next trapped call shows that, or its /proc/TID/syscall) none
 * is learned, or one looked at while the call was still under way would
 * be remembered. Beyond MOVING_MAX such calls at once, no names for the
 * rest of the run: the fstatat each time, as before.
 */
#define NOSYM_NAMES	8
#define NOSYM_NAME_MAX	64	/* longer names are not kept */
#define MOVING_MAX	16
#define MOVING_LOOK_MS	10	/* /proc looked at no more often */

static struct {
	unsigned	n, next;
	char		name[NOSYM_NAMES][NOSYM_NAME_MAX];
} fine;

static struct {
	unsigned	n;
	bool		lost;		/* more than MOVING_MAX at once */
	int64_t		looked_ms;
	pid_t		tid[MOVING_MAX];
	int		nr[MOVING_MAX];
} moving;

static void
fine_forget(void)
{
	fine.n = fine.next = 0;
}

void
files_kept_drop(void)
{
	if (nosym.fd >= 0)
		close(nosym.fd);
	nosym.fd = -1;
	fine_forget();
}

static void
moving_remove(unsigned i)
{
	moving.n--;
	moving.tid[i] = moving.tid[moving.n];
	moving.nr[i] = moving.nr[moving.n];
}

void
files_names_moving(pid_t tid, int nr)
{
	fine_forget();
	for (unsigned i = 0; i < moving.n; i++)
		if (moving.tid[i] == tid) {
			moving.nr[i] = nr;
			return;
		}
	if (moving.n == MOVING_MAX) {
		moving.lost = true;
		return;
	}
	moving.tid[moving.n] = tid;
	moving.nr[moving.n] = nr;
	moving.n++;
}

void
files_thread_seen(pid_t tid)
{
	for (unsigned i = 0; i < moving.n; i++)
		if (moving.tid[i] == tid) {
			moving_remove(i);
			return;
		}
}

/* Is the thread still in (or parked before) syscall nr? Gone, running
 * or in another call: done with it. Unreadable: not known, so yes. */
static bool
moving_still(pid_t tid, int nr)
{
	char path[64], buf[64];
	int fd, n;

	snprintf(path, sizeof path, "/proc/%d/syscall", (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno != ENOENT && errno != ESRCH;
	n = (int)read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return n < 0 && errno != ESRCH;
	buf[n] = '\0';
	if (str_has_prefix(buf, "running"))
		return false;
	return strtol(buf, NULL, 10) == nr;
}

/* May names be remembered and trusted now? */
static bool
fine_usable(void)
{
	int64_t now;

	if (moving.lost)
		return false;
	if (moving.n == 0)
		return true;
	if ((now = now_mono_ms()) - moving.looked_ms < MOVING_LOOK_MS)
		return false;
	moving.looked_ms = now;
	for (unsigned i = moving.n; i-- > 0;)
		if (!moving_still(moving.tid[i], moving.nr[i]))
			moving_remove(i);
	return moving.n == 0;
}

static bool
fine_has(const char *name)
{
	for (unsigned i = 0; i < fine.n; i++)
		if (strcmp(fine.name[i], name) == 0)
			return true;
	return false;
}

static void
fine_learn(const char *name, size_t len)
{
	memcpy(fine.name[fine.next], name, len + 1);
	fine.next = (fine.next + 1) % NOSYM_NAMES;
	if (fine.n < NOSYM_NAMES)
		fine.n++;
}

/* A call that moves or removes names went on by the hot path, its
 * paths lex and lex2 (or NULL) checked free of symlinks: the kept folder
 * goes only if one of them is that folder or a folder above it. */
static void
nosym_moved(const char *lex, const char *lex2)
{
	if (nosym.fd >= 0 && (path_under(nosym.dir, lex) ||
	    (lex2 != NULL && path_under(nosym.dir, lex2))))
		files_kept_drop();
}

const char *
files_kept_folder(void)
{
	return nosym.fd >= 0 ? nosym.dir : NULL;
}

/* The last component of lex in the kept folder: 1 fine, 0 a symlink
 * that the call follows, -1 not answered here. */
static int
nosym_last(const char *name, bool follow)
{
	struct stat st;
	size_t len;
	bool keep;

	/* A call that does not follow its last component (O_NOFOLLOW,
	 * O_CREAT|O_EXCL, unlink, rename, mkdir, ...) cannot be led
	 * anywhere by it: the kept folder answers for the rest. */
	if (!follow)
		return 1;
	len = strlen(name);
	keep = len < NOSYM_NAME_MAX && fine_usable();
	if (keep && fine_has(name))
		return 1;
	if (fstatat(nosym.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			return 0;
	} else if (errno != ENOENT)
		return -1;
	if (keep)
		fine_learn(name, len);
	return 1;
}

static bool
no_symlinks(const struct sup *s, const char *lex, bool follow)
{
	const char *slash = strrchr(lex, '/');
	size_t len = (size_t)(slash - lex);
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS,
	};
	char dir[PATH_MAX];
	long fd;
	int r;

	if (slash == lex || slash[1] == '\0' || len >= sizeof dir)
		return no_symlinks_full(s, lex, follow);
	if (nosym.fd >= 0 && nosym.rootfd == s->rootfd && nosym.len == len &&
	    memcmp(nosym.dir, lex, len) == 0 &&
	    (r = nosym_last(slash + 1, follow)) >= 0)
		return r == 1;
	memcpy(dir, lex + 1, len - 1);
	dir[len - 1] = '\0';
	if ((fd = syscall(SYS_openat2, s->rootfd, dir, &how, sizeof how)) < 0)
		return errno == ENOENT || errno == ENOTDIR;
	files_kept_drop();
	nosym.fd = (int)fd;
	nosym.rootfd = s->rootfd;
	nosym.len = len;
	memcpy(nosym.dir, lex, len);
	nosym.dir[len] = '\0';
	if ((r = nosym_last(slash + 1, follow)) >= 0)
		return r == 1;
	return no_symlinks_full(s, lex, follow);
}

bool
files_fast_continue(const struct sup *s, const char *lex, bool follow)
{
	switch (files_where(s, lex)) {
	case WHERE_FLOOR:
		return true;
	case WHERE_WRITABLE:
		return no_symlinks(s, lex, follow);
	case WHERE_HOST:	/* never continued: host_change */
	case WHERE_OUTSIDE:
		break;
	}
	return false;
}

static int
read_path(pid_t pid, uint64_t addr, char *buf)
{
	ssize_t n = target_read_str(pid, addr, buf, PATH_MAX);

	return n < 0 ? (int)n : 0;
}

static int
read_times(pid_t pid, int nr, uint64_t addr, struct write_call *c)
{
	c->times_null = addr == 0;
	if (addr == 0)
		return 0;
	if (nr == SYS_utimensat)
		return target_read(pid, addr, c->times, sizeof c->times);
	if (nr == SYS_utime) {
		struct { long actime, modtime; } u;

		if (target_read(pid, addr, &u, sizeof u) < 0)
			return -EFAULT;
		c->times[0] = (struct timespec){ u.actime, 0 };
		c->times[1] = (struct timespec){ u.modtime, 0 };
		return 0;
	}
	{
		struct timeval tv[2];

		if (target_read(pid, addr, tv, sizeof tv) < 0)
			return -EFAULT;
		for (int i = 0; i < 2; i++)
			c->times[i] = (struct timespec){ tv[i].tv_sec,
			    tv[i].tv_usec * 1000 };
	}
	return 0;
}

/* The syscall's own arguments into c, by syscall: the addresses of the
 * path strings in *path1, *path2 (0: none). 0, or -errno to answer. */
static int
decode_args(const struct seccomp_notif *req, struct write_call *c,
    uint64_t *path1, uint64_t *path2)
{
	const __u64 *a = req->data.args;
	pid_t pid = (pid_t)req->pid;
	int nr = req->data.nr;
	uint64_t p1 = 0, p2 = 0;
	int r;

	switch (nr) {
	case SYS_open:
		c->op = OP_OPEN; c->name = "open";
		p1 = a[0]; c->flags = a[1]; c->mode = a[2];
		break;
	case SYS_openat:
		c->op = OP_OPEN; c->name = "openat";
		c->dirfd = (int)a[0]; p1 = a[1]; c->flags = a[2]; c->mode = a[3];
		break;
	case SYS_creat:
		c->op = OP_OPEN; c->name = "creat";
		p1 = a[0]; c->flags = O_CREAT | O_WRONLY | O_TRUNC; c->mode = a[1];
		break;
	case SYS_mkdir:
		c->op = OP_MKDIR; c->name = "mkdir"; p1 = a[0]; c->mode = a[1];
		break;
	case SYS_mkdirat:
		c->op = OP_MKDIR; c->name = "mkdirat";
		c->dirfd = (int)a[0]; p1 = a[1]; c->mode = a[2];
		break;
	case SYS_mknod:
		c->op = OP_MKNOD; c->name = "mknod"; p1 = a[0]; c->mode = a[1];
		break;
	case SYS_mknodat:
		c->op = OP_MKNOD; c->name = "mknodat";
		c->dirfd = (int)a[0]; p1 = a[1]; c->mode = a[2];
		break;
	case SYS_unlink:
		c->op = OP_UNLINK; c->name = "unlink"; p1 = a[0];
		break;
	case SYS_rmdir:
		c->op = OP_RMDIR; c->name = "rmdir"; p1 = a[0];
		break;
	case SYS_unlinkat:
		c->name = "unlinkat"; c->dirfd = (int)a[0]; p1 = a[1];
		c->flags = a[2];
		c->op = (a[2] & AT_REMOVEDIR) ? OP_RMDIR : OP_UNLINK;
		break;
	case SYS_rename:
		c->op = OP_RENAME; c->name = "rename"; p1 = a[0]; p2 = a[1];
		break;
	case SYS_renameat:
	case SYS_renameat2:
		c->op = OP_RENAME;
		c->name = nr == SYS_renameat ? "renameat" : "renameat2";
		c->dirfd = (int)a[0]; p1 = a[1]; c->dirfd2 = (int)a[2]; p2 = a[3];
		c->flags = nr == SYS_renameat2 ? a[4] : 0;
		break;
	case SYS_link:
		c->op = OP_LINK; c->name = "link"; p1 = a[0]; p2 = a[1];
		break;
	case SYS_linkat:
		c->op = OP_LINK; c->name = "linkat";
		c->dirfd = (int)a[0]; p1 = a[1]; c->dirfd2 = (int)a[2]; p2 = a[3];
		c->flags = a[4];
		break;
	case SYS_symlink:
		/* p1 is the link's text, never resolved; p2 the new name. */
		c->op = OP_SYMLINK; c->name = "symlink"; p1 = a[0]; p2 = a[1];
		break;
	case SYS_symlinkat:
		c->op = OP_SYMLINK; c->name = "symlinkat";
		p1 = a[0]; c->dirfd2 = (int)a[1]; p2 = a[2];
		break;
	case SYS_truncate:
		c->op = OP_TRUNCATE; c->name = "truncate"; p1 = a[0];
		c->length = a[1];
		break;
	case SYS_chmod:
		c->op = OP_CHMOD; c->name = "chmod"; p1 = a[0]; c->mode = a[1];
		break;
	case SYS_fchmodat:
	case __NR_fchmodat2:
		c->op = OP_CHMOD;
		c->name = nr == SYS_fchmodat ? "fchmodat" : "fchmodat2";
		c->dirfd = (int)a[0]; p1 = a[1]; c->mode = a[2];
		c->flags = nr == SYS_fchmodat ? 0 : a[3];
		break;
	case SYS_chown:
	case SYS_lchown:
		c->op = OP_CHOWN; c->name = nr == SYS_chown ? "chown" : "lchown";
		p1 = a[0]; c->uid = (uint32_t)a[1]; c->gid = (uint32_t)a[2];
		c->flags = nr == SYS_lchown ? AT_SYMLINK_NOFOLLOW : 0;
		break;
	case SYS_fchownat:
		c->op = OP_CHOWN; c->name = "fchownat";
		c->dirfd = (int)a[0]; p1 = a[1];
		c->uid = (uint32_t)a[2]; c->gid = (uint32_t)a[3]; c->flags = a[4];
		break;
	case SYS_utime:
	case SYS_utimes:
		c->op = OP_UTIMES; c->name = nr == SYS_utime ? "utime" : "utimes";
		p1 = a[0];
		if ((r = read_times(pid, nr, a[1], c)) < 0)
			return r;
		break;
	case SYS_futimesat:
		c->op = OP_UTIMES; c->name = "futimesat";
		c->dirfd = (int)a[0]; p1 = a[1];
		if ((r = read_times(pid, nr, a[2], c)) < 0)
			return r;
		break;
	case SYS_utimensat:
		c->op = OP_UTIMES; c->name = "utimensat";
		c->dirfd = (int)a[0]; p1 = a[1]; c->flags = a[3];
		if ((r = read_times(pid, nr, a[2], c)) < 0)
			return r;
		break;
	case SYS_setxattr:
	case SYS_lsetxattr:
		c->op = OP_SETXATTR;
		c->name = nr == SYS_setxattr ? "setxattr" : "lsetxattr";
		p1 = a[0]; c->xsize = a[3]; c->xflags = (int)a[4];
		c->flags = nr == SYS_lsetxattr ? AT_SYMLINK_NOFOLLOW : 0;
		if (c->xsize > 65536)
			return -E2BIG;
		if (target_read_str(pid, a[1], c->xname, sizeof c->xname) < 0)
			return -EFAULT;
		c->xvalue = xmalloc(c->xsize ? c->xsize : 1);
		if (c->xsize && target_read(pid, a[2], c->xvalue, c->xsize) < 0)
			return -EFAULT;
		break;
	case SYS_removexattr:
	case SYS_lremovexattr:
		c->op = OP_REMOVEXATTR;
		c->name = nr == SYS_removexattr ? "removexattr" : "lremovexattr";
		p1 = a[0];
		c->flags = nr == SYS_lremovexattr ? AT_SYMLINK_NOFOLLOW : 0;
		if (target_read_str(pid, a[1], c->xname, sizeof c->xname) < 0)
			return -EFAULT;
		break;
	default:
		return -ENOSYS;
	}
	*path1 = p1;
	*path2 = p2;
	return 0;
}

/* Swap two names of PATH_MAX bytes, their strings only: the rest of
 * either is never read. */
static void
swap_names(char *a, char *b)
{
	char t[PATH_MAX];
	size_t na = strlen(a) + 1, nb = strlen(b) + 1;

	memcpy(t, a, na);
	memcpy(a, b, nb);
	memcpy(b, t, na);
}

/*
 * Copy the call out of the target: the path strings and every pointer
 * argument, into c. Returns 0, 1 when the call names no path to judge
 * (an fd-based form: the floor decides), or -errno to answer.
 */
static int
decode(const struct seccomp_notif *req, struct write_call *c)
{
	pid_t pid = (pid_t)req->pid;
	uint64_t p1 = 0, p2 = 0;
	int r;

	memset(c, 0, offsetof(struct write_call, raw));
	c->raw[0] = c->raw2[0] = c->path[0] = c->path2[0] = '\0';
	c->xvalue = NULL;
	c->dirfd = c->dirfd2 = AT_FDCWD;
	c->follow = true;
	if ((r = decode_args(req, c, &p1, &p2)) < 0)
		return r;

	/* A failed read denies (EFAULT); it never continues. */
	if (p1 != 0 && read_path(pid, p1, c->raw) < 0)
		return -EFAULT;
	if (p1 == 0 && c->op != OP_SYMLINK)
		return -EFAULT;
	if (p2 != 0 && read_path(pid, p2, c->raw2) < 0)
		return -EFAULT;

	switch (c->op) {
	case OP_OPEN:
		c->follow = !(c->flags & O_NOFOLLOW) &&
		    !((c->flags & O_CREAT) && (c->flags & O_EXCL));
		break;
	case OP_MKDIR: case OP_MKNOD: case OP_UNLINK: case OP_RMDIR:
		c->follow = false;
		break;
	case OP_RENAME:
		c->two = true;
		c->follow = c->follow2 = false;
		break;
	case OP_LINK:
		/* Both: the new name is created, and a link to a file
		 * outside would be a writable name for it. */
		c->two = true;
		c->follow = false;
		c->follow2 = (c->flags & AT_SYMLINK_FOLLOW) != 0;
		break;
	case OP_SYMLINK:
		c->follow = false;
		break;
	case OP_CHMOD: case OP_CHOWN: case OP_UTIMES:
	case OP_SETXATTR: case OP_REMOVEXATTR:
		c->follow = !(c->flags & AT_SYMLINK_NOFOLLOW);
		break;
	case OP_TRUNCATE:
		break;
	}
	/* "" with AT_EMPTY_PATH works on the fd itself: the floor decides. */
	if ((c->op == OP_CHMOD || c->op == OP_CHOWN || c->op == OP_UTIMES ||
	    c->op == OP_LINK) && (c->flags & AT_EMPTY_PATH) && c->raw[0] == '\0')
		return 1;
	if (c->op == OP_SYMLINK || c->op == OP_LINK) {
		/* Judge the new name, the second argument: swap so that raw
		 * is the new name and raw2 the link text / old name. */
		int fd = c->dirfd;

		swap_names(c->raw, c->raw2);
		c->dirfd = c->dirfd2;
		c->dirfd2 = fd;
	}
	return 0;
}

/* raw made absolute against dirfd (the cwd for AT_FDCWD), as written:
 * "." and ".." are left for path_resolve, which takes them after the
 * symlinks before them, as the kernel does. hot: the cwd may come from
 * target_dir_hot's cache (the fast path's CONTINUE only). 0 or -errno. */
static int
absolute(pid_t pid, int dirfd, const char *raw, bool hot, char *out,
    size_t size)
{
	char base[PATH_MAX];
	size_t lb, lr = strlen(raw);
	int r;

	if (raw[0] == '\0')
		return -ENOENT;
	if (raw[0] == '/') {
		if (lr >= size)
			return -ENAMETOOLONG;
		memcpy(out, raw, lr + 1);
		return 0;
	}
	if ((r = hot ? target_dir_hot(pid, dirfd, base, sizeof base) :
	    target_dir(pid, dirfd, base, sizeof base)) < 0)
		return r;
	/* base "/dir", then "/", then raw: no printf on the hot path. */
	if ((lb = strlen(base)) + 1 + lr >= size)
		return -ENAMETOOLONG;
	memcpy(out, base, lb);
	out[lb] = '/';
	memcpy(out + lb + 1, raw, lr + 1);
	return 0;
}

/* Does a ".." component appear? Then the lexical view may not be the
 * kernel's (a symlink before it), and only resolution tells. */
static bool
has_dotdot(const char *p)
{
	for (const char *s = p; (s = strstr(s, "..")) != NULL; s += 2)
		if ((s == p || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
			return true;
	return false;
}

static int
resolve(const struct sup *s, const char *lex, bool follow, char *out)
{
	return path_resolve(s->rootfd, lex, follow, out, PATH_MAX);
}

static char *
describe_detail(const struct write_call *c)
{
	switch (c->op) {
	case OP_OPEN: {
		char fl[160] = "";
		static const struct { uint64_t bit; const char *name; } f[] = {
			{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" },
			{ O_TRUNC, "O_TRUNC" }, { O_APPEND, "O_APPEND" },
			{ O_NOFOLLOW, "O_NOFOLLOW" }, { O_CLOEXEC, "O_CLOEXEC" },
			{ O_DIRECTORY, "O_DIRECTORY" },
		};
		int acc = (int)(c->flags & O_ACCMODE);

		snprintf(fl, sizeof fl, "%s", acc == O_WRONLY ? "O_WRONLY" :
		    acc == O_RDWR ? "O_RDWR" : "O_RDONLY");
		for (size_t i = 0; i < ARRAY_SIZE(f); i++)
			if (c->flags & f[i].bit) {
				strncat(fl, "|", sizeof fl - strlen(fl) - 1);
				strncat(fl, f[i].name, sizeof fl - strlen(fl) - 1);
			}
		if (c->flags & O_CREAT)
			return xasprintf("flags=%s mode=%04o", fl,
			    (unsigned)(c->mode & 07777));
		return xasprintf("flags=%s", fl);
	}
	case OP_MKDIR:
	case OP_MKNOD:
	case OP_CHMOD:
		return xasprintf("mode=%04o", (unsigned)(c->mode & 07777));
	case OP_TRUNCATE:
		return xasprintf("length=%llu", (unsigned long long)c->length);
	case OP_CHOWN:
		return xasprintf("uid=%d gid=%d", (int)c->uid, (int)c->gid);
	case OP_SYMLINK:
		return xasprintf("target=%s", c->raw2[0] ? c->raw2 : "");
	case OP_SETXATTR:
		return xasprintf("name=%s size=%zu", c->xname, c->xsize);
	case OP_REMOVEXATTR:
		return xasprintf("name=%s", c->xname);
	case OP_RENAME:
		return c->flags ? xasprintf("flags=%#llx",
		    (unsigned long long)c->flags) : xstrdup("");
	case OP_UNLINK: case OP_RMDIR: case OP_LINK: case OP_UTIMES:
		return xstrdup("");
	}
	return xstrdup("");
}

static struct sup_what
what(const struct seccomp_notif *req, const struct write_call *c,
    const char *detail)
{
	return (struct sup_what){
		.pid = (pid_t)req->pid,
		.kind = KIND_WRITE,
		.syscall = c->name,
		.subject = c->path,
		.subject2 = c->two ? c->path2 : NULL,
		.detail = detail,
	};
}

/* seq: the row this outcome completes (an asked request or an
 * intent), 0 for a new one. */
static void
record(struct sup *s, int64_t seq, const struct seccomp_notif *req,
    const struct write_call *c, enum verdict v, enum how how,
    const char *rule, const char *by, int64_t wait_ms, uint64_t request)
{
	cleanup_free char *detail = describe_detail(c);
	struct sup_what w = what(req, c, detail);

	sup_done(s, seq, &w, v, how, rule, by, wait_ms, request);
}

/* A policy allow, in the record before the host changes. */
static int
intent(struct sup *s, const struct seccomp_notif *req,
    const struct write_call *c, enum how how, const char *rule,
    int64_t *seq)
{
	cleanup_free char *detail = describe_detail(c);
	struct sup_what w = what(req, c, detail);

	return sup_intent(s, &w, VERDICT_ALLOW, how, rule, "policy", 0, 0,
	    seq);
}

static void
free_call(struct write_call *c)
{
	free(c->xvalue);
	c->xvalue = NULL;
}

/* The policy's writable folder holding sandbox path p (the deepest
 * bind, as files_where), or NULL. */
static const struct bind *
host_bind(const struct sup *s, const char *p)
{
	const struct bind *best = deepest_bind(s, p);

	return best != NULL && best->host_write ? best : NULL;
}

/*
 * A call on a writable file bound alone (writable = ~/.aider.conf.yml),
 * or on a writable folder itself (chmod 700 ~/.claude), by its own name:
 * what may be done to a mount point, which is all but moving or
 * removing it.
 */
static bool
whole_file(const struct sup *s, const struct write_call *c)
{
	const struct bind *b = host_bind(s, c->path);

	if (b == NULL || strcmp(c->path, b->inside) != 0 || c->two)
		return false;
	switch (c->op) {
	case OP_OPEN: case OP_TRUNCATE: case OP_CHMOD: case OP_CHOWN:
	case OP_UTIMES: case OP_SETXATTR: case OP_REMOVEXATTR:
		return true;
	case OP_MKDIR: case OP_MKNOD: case OP_UNLINK: case OP_RMDIR:
	case OP_RENAME: case OP_LINK: case OP_SYMLINK:
		break;
	}
	return false;
}

/* The ids a change is done with: the one pair the sandbox's namespace
 * maps (ROOT_INNER_ID as root; as a user, the user's), whatever a
 * process inside says of itself; in a container, the thread's own
 * (its fsuid and fsgid: the container's ids are its runtime's). */
static int
program_ids(const struct sup *s, pid_t tid, struct emulate_as *as)
{
	if (s->oci)
		return oci_target_ids(tid, &as->uid, &as->gid) < 0 ? -ESRCH : 0;
	as->uid = s->inner_uid;
	as->gid = s->inner_gid;
	return 0;
}

/* Answer an allowed call by doing it ourselves on the host. A
 * protected write in a project goes on into the project's overlay
 * instead (staged, as every write there: the host's folder is its lower
 * layer, never written during the run); in a writable folder the
 * supervisor does it, the path approved and no other. */
static int64_t
allow(struct sup *s, const struct parked *pk)
{
	const struct write_call *c = pk->write;
	const struct bind *b = protect_bind(s, c->path);
	int fd = -1;
	int64_t r;

	/* A writable file bound alone, approved: its name is a mount
	 * point, the call goes on as made (emulate_call would find the
	 * folder around it is not the host's). */
	if (whole_file(s, c) || (b != NULL && b->project &&
	    is_writable(s, c->path) && (!c->two || is_writable(s, c->path2)))) {
		sup_continue(s, pk->req.id);
		return 0;
	}
	if (s->oci) {
		/* A container's file: done inside its root, as the thread
		 * (there is no host folder of ours behind it). */
		struct emulate_as as;

		if ((r = program_ids(s, (pid_t)pk->req.pid, &as)) == 0)
			r = emulate_in_place(s, (pid_t)pk->req.pid, c, &as,
			    &fd);
	} else
		r = emulate_call(s, (pid_t)pk->req.pid, c, &fd);

	if (fd >= 0) {
		r = sup_respond_fd(s, pk->req.id, fd,
		    (c->flags & O_CLOEXEC) != 0);
		close(fd);
		if (r < 0)
			sup_respond(s, pk->req.id, r, 0);
		return r;
	}
	sup_respond(s, pk->req.id, r, 0);
	return r;
}

/* Answer by handing in the staged copy (emulate_stage); remembered, so
 * that the run's later opens of the path get it again. */
static int64_t
stage(struct sup *s, const struct parked *pk)
{
	const struct write_call *c = pk->write;
	int fd = -1;
	int64_t r = emulate_stage(s, (pid_t)pk->req.pid, c, &fd);
	bool known = false;

	if (fd >= 0) {
		r = sup_respond_fd(s, pk->req.id, fd,
		    (c->flags & O_CLOEXEC) != 0);
		close(fd);
	}
	if (r < 0) {
		sup_respond(s, pk->req.id, r, 0);
		return r;
	}
	for (size_t i = 0; i < s->n_staged && !known; i++)
		known = strcmp(s->staged[i], c->path) == 0;
	if (!known)
		strv_push(&s->staged, &s->n_staged, xstrdup(c->path));
	return r;
}

static bool
staged(const struct sup *s, const char *path)
{
	for (size_t i = 0; i < s->n_staged; i++)
		if (strcmp(s->staged[i], path) == 0)
			return true;
	return false;
}

/* A person's "stage": the approval committed first (the asked row
 * becomes the intent), as sup_answer does for an allow. */
static enum verdict
answer_stage(struct sup *s, const struct parked *pk, enum how how,
    const char *by, int64_t wait_ms, uint64_t request)
{
	struct sup_what w = { .pid = (pid_t)pk->req.pid };
	int64_t seq = pk->seq;

	if (!sup_id_valid(s, pk->req.id))
		return VERDICT_NONE;
	if (sup_intent(s, &w, VERDICT_STAGE, how, NULL, by, wait_ms, request,
	    &seq) < 0) {
		sup_respond(s, pk->req.id, -EACCES, 0);
		return VERDICT_DENY;
	}
	return stage(s, pk) < 0 ? VERDICT_DENY : VERDICT_STAGE;
}

static enum verdict
files_resolve(struct sup *s, struct parked *pk, enum verdict v,
    enum how how, const char *by, const char *reason, int64_t wait_ms,
    uint64_t request)
{
	const struct write_call *c = pk->write;
	const char *pattern = protect_call(s, c, c->path, c->two ? c->path2 :
	    NULL);
	const struct bind *b;
	cleanup_free char *why = NULL;
	enum verdict done;

	/* The record's row keeps what protected it, whatever the answer
	 * says beside it. */
	if (pattern != NULL) {
		why = protect_why(pattern);
		if (reason != NULL && *reason != '\0') {
			char *both = xasprintf("%s; %s", why, reason);

			free(why);
			why = both;
		}
	}
	/* "stage" in a project is what letting it go on does there. */
	if (v == VERDICT_STAGE && (b = protect_bind(s, c->path)) != NULL &&
	    b->project && is_writable(s, c->path))
		v = VERDICT_ALLOW;
	done = v == VERDICT_STAGE ?
	    answer_stage(s, pk, how, by, wait_ms, request) :
	    sup_answer(s, pk, v, how, by, wait_ms, request, EACCES, allow,
	    reason);
	if (why != NULL)
		reason = why;

	if (done == VERDICT_NONE)
		/* The process went away while the person thought. */
		record(s, pk->seq, &pk->req, pk->write, VERDICT_DENY,
		    HOW_SUPERVISOR, NULL, "target gone", wait_ms, request);
	else
		record(s, pk->seq, &pk->req, pk->write, done, how, reason, by,
		    wait_ms, request);
	return done;
}

static void
files_free(struct parked *pk)
{
	if (pk->write != NULL)
		free_call(pk->write);
	free(pk->write);
	pk->write = NULL;
}

/* Only an open has a file to stage; a rename, unlink, chmod ... does
 * not (allow or deny those). */
static bool
files_can_stage(const struct parked *pk)
{
	return pk->write != NULL && pk->write->op == OP_OPEN;
}

static const struct kind_ops files_ops = {
	.resolve = files_resolve,
	.remember = sup_remember,
	.free = files_free,
	.can_stage = files_can_stage,
	.gone = sup_call_gone,
};

/* An open of a path staged earlier in the run: its staged copy again,
 * unasked, as a run grant answers (recorded write-ahead). */
static void
restage(struct sup *s, const struct seccomp_notif *req, struct write_call *c)
{
	cleanup_free char *detail = describe_detail(c);
	struct sup_what w = what(req, c, detail);
	struct parked pk = { .req = *req, .write = c };
	static const char rule[] = "staged earlier in this run";
	int64_t seq = 0, res;

	if (!sup_id_valid(s, req->id))
		return;
	if (sup_intent(s, &w, VERDICT_STAGE, HOW_RUN_RULE, rule, "run", 0, 0,
	    &seq) < 0) {
		sup_respond(s, req->id, -EACCES, 0);
		record(s, seq, req, c, VERDICT_DENY, HOW_SUPERVISOR,
		    "the record cannot be written", "supervisor", 0, 0);
		return;
	}
	res = stage(s, &pk);
	record(s, seq, req, c, res < 0 ? VERDICT_DENY : VERDICT_STAGE,
	    HOW_RUN_RULE, rule, "run", 0, 0);
}

/* Park a copy of the decoded call (scratch keeps no memory it owned). */
static void
park(struct sup *s, const struct seccomp_notif *req,
    struct write_call *scratch, const char *why)
{
	struct parked *pk = xcalloc(1, sizeof *pk);
	cleanup_free char *detail = describe_detail(scratch);
	struct sup_what w;

	pk->req = *req;
	pk->ops = &files_ops;
	pk->write = xmalloc(sizeof *pk->write);
	memcpy(pk->write, scratch, sizeof *scratch);
	scratch->xvalue = NULL;	/* moved */
	w = what(&pk->req, pk->write, detail);
	sup_park(s, pk, &w, why);
}

/*
 * The decision for a write outside the writable set: DESIGN §7's order,
 * as approvals/decide.c writes it once; here only the acting on it.
 */
static void
decide(struct sup *s, const struct seccomp_notif *req, struct write_call *c)
{
	struct decide_in in = { .policy = &s->policy, .rules = s->rules,
	    .answers = s->answers, .now_ms = now_mono_ms() };
	const char *pattern = protect_call(s, c, c->path, c->two ?
	    c->path2 : NULL);
	struct decision d = pattern != NULL ? decide_protected(&in, pattern,
	    c->path, c->two ? c->path2 : NULL) : decide_write(&in, c->path,
	    c->two ? c->path2 : NULL);

	/* Staged once, staged for the run: the program must go on seeing
	 * its own copy (only the never list comes first). */
	if (c->op == OP_OPEN && staged(s, c->path) &&
	    !(d.verdict == VERDICT_DENY && d.step == DECIDE_NEVER)) {
		restage(s, req, c);
		decision_done(&d);
		return;
	}
	switch (d.verdict) {
	case VERDICT_DENY:
		sup_respond(s, req->id, -EACCES, 0);
		record(s, 0, req, c, VERDICT_DENY, d.how, d.rule, "policy", 0,
		    0);
		break;
	case VERDICT_ALLOW:
		/* Copy done; is the id still the same task before we act? */
		if (sup_id_valid(s, req->id)) {
			struct parked pk = { .req = *req, .write = c };
			int64_t seq = 0, res;

			if (intent(s, req, c, d.how, d.rule, &seq) < 0) {
				/* Fail closed: the record cannot hold it. */
				sup_respond(s, req->id, -EACCES, 0);
				record(s, seq, req, c, VERDICT_DENY,
				    HOW_SUPERVISOR, "the record cannot be "
				    "written", "supervisor", 0, 0);
				break;
			}
			res = allow(s, &pk);
			record(s, seq, req, c, res < 0 ? VERDICT_DENY :
			    VERDICT_ALLOW, d.how, d.rule, "policy", 0, 0);
		}
		break;
	case VERDICT_ASK:
	case VERDICT_NONE:
	case VERDICT_KILL:
	case VERDICT_STAGE:
		if (sup_id_valid(s, req->id))
			park(s, req, c, d.rule);
		break;
	}
	decision_done(&d);
}

/*
 * A protected write inside a project or a writable folder, where every
 * other write goes on unasked: asked (decide_protected), or refused by a
 * deny. Approved, allow() lets it go on in place.
 */
static void
protect_decide(struct sup *s, const struct seccomp_notif *req,
    struct write_call *c, const char *pattern)
{
	struct decide_in in = { .policy = &s->policy, .rules = s->rules,
	    .answers = s->answers, .now_ms = now_mono_ms() };
	struct decision d = decide_protected(&in, pattern, c->path,
	    c->two ? c->path2 : NULL);

	if (d.verdict == VERDICT_DENY) {
		sup_respond(s, req->id, -EACCES, 0);
		record(s, 0, req, c, VERDICT_DENY, d.how, d.rule, "policy", 0,
		    0);
	} else if (sup_id_valid(s, req->id))
		park(s, req, c, d.rule);
	decision_done(&d);
}

/* Is there a name at sandbox path p (not followed)? */
static bool
exists(const struct sup *s, const char *p)
{
	struct stat st;

	return p[1] != '\0' &&
	    fstatat(s->rootfd, p + 1, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/*
 * A call that lands in one of the policy's writable folders: the
 * program may change them, but the person will later trust what it
 * leaves there, so each change is recorded (kind write, rule "writable
 * folder DIR") and one to a protected name is asked at the moment it
 * happens. The supervisor performs the call itself (emulate_in_place:
 * the folder opened without symlinks, the last step never followed):
 * a CONTINUE would let the kernel walk the path again, and a symlink
 * swapped in since the check would lead it to a protected file.
 */
/* Open sandbox path p (lexical, absolute) from the sandbox's root, no
 * symlink on the way or at its end: flags and O_NOFOLLOW. */
static int
open_in_root(const struct sup *s, const char *p, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, s->rootfd, p[1] ? p + 1 : ".", &how,
	    sizeof how);
}

/* The largest login file saved into its copy (the gate's limit). */
#define LOGIN_SAVE_MAX	(256 * 1024)

/*
 * An agent saving its login file the safe way, a new file renamed over
 * it (Codex's auth.json, issue 33): that name inside is the run's copy
 * of the file (login.h), a mount point no rename may replace. The new
 * file's bytes go into the copy, in place, and the new file is removed:
 * what the rename would have shown. The host's file is not touched.
 * true when the call was such a save (answered and recorded).
 */
static bool
login_save(struct sup *s, const struct seccomp_notif *req,
    struct write_call *c, const struct bind *b)
{
	const struct bind *to = deepest_bind(s, c->path2);
	const struct policy_secret *ps = NULL;
	cleanup_free char *bytes = NULL, *dir = NULL, *rule = NULL;
	cleanup_fd int src = -1, dfd = -1, dst = -1;
	const char *base;
	struct stat st;
	size_t len = 0;
	int r = 0;

	for (size_t i = 0; i < s->policy.n_secrets && ps == NULL; i++)
		if (s->policy.secrets[i].file != NULL &&
		    strcmp(s->policy.secrets[i].file, c->path2) == 0)
			ps = &s->policy.secrets[i];
	if (ps == NULL || to == NULL || to == b || to->is_dir ||
	    to->host_write || strcmp(to->inside, c->path2) != 0)
		return false;
	dir = xstrdup(c->path);
	base = strrchr(dir, '/') + 1;
	dir[base - dir - 1] = '\0';
	if ((src = open_in_root(s, c->path, O_RDONLY)) < 0 ||
	    fstat(src, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EISDIR;
	else if ((r = read_fd_max(src, LOGIN_SAVE_MAX, &bytes, &len)) < 0)
		;
	else if ((dfd = open_in_root(s, dir[0] ? dir : "/", O_PATH |
	    O_DIRECTORY)) < 0 ||
	    (dst = open(to->host, O_WRONLY | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || write_all(dst, bytes, len) < 0 ||
	    unlinkat(dfd, base, 0) < 0)
		r = -errno;
	if (bytes != NULL)
		explicit_bzero(bytes, len);
	if (!sup_id_valid(s, req->id))
		return true;
	sup_respond_now(s, req->id, r < 0 ? r : 0);
	if (r < 0)
		return true;
	rule = xasprintf("[secret %s]: saved into the run's copy", ps->name);
	record(s, 0, req, c, VERDICT_ALLOW, HOW_POLICY, rule, "policy", 0, 0);
	return true;
}

static void
host_change(struct sup *s, const struct seccomp_notif *req,
    struct write_call *c, const struct bind *b)
{
	char rule[PATH_MAX + 32];
	struct emulate_as as;
	const char *pat;
	int fd = -1;
	int64_t r;

	if (c->op == OP_RENAME && c->two && login_save(s, req, c, b))
		return;

	/* Across folders the kernel would say EXDEV; on the host the
	 * supervisor could link a system file into the folder. Both
	 * names: judge() comes here for either being in a writable folder,
	 * and a file moved or linked in from outside is a change outside. */
	if (c->two && (host_bind(s, c->path) != b ||
	    host_bind(s, c->path2) != b)) {
		sup_respond(s, req->id, -EXDEV, 0);
		return;
	}
	/* An unnamed file (O_TMPFILE) or a link made from an fd cannot be
	 * performed here: glibc falls back to a named file. */
	if ((c->op == OP_OPEN && (c->flags & __O_TMPFILE) == __O_TMPFILE) ||
	    (c->op == OP_LINK && !c->two)) {
		sup_respond(s, req->id, -EOPNOTSUPP, 0);
		return;
	}
	/* A writable file bound alone, or the folder itself: its name is a
	 * mount point inside, which no symlink can replace, so the call
	 * goes on as made, and is recorded (held until the record has it). */
	if (whole_file(s, c)) {
		if ((pat = protect_call(s, c, c->path, NULL)) != NULL) {
			protect_decide(s, req, c, pat);
			return;
		}
		if (!sup_id_valid(s, req->id))
			return;
		sup_continue(s, req->id);
		snprintf(rule, sizeof rule, "writable folder %s", b->host);
		record(s, 0, req, c, VERDICT_ALLOW, HOW_POLICY, rule,
		    "policy", 0, 0);
		return;
	}
	/* The folder itself is a mount point inside: it cannot be moved
	 * or removed, and the supervisor must not do it on the host. */
	if (strcmp(c->path, b->inside) == 0 ||
	    (c->two && strcmp(c->path2, b->inside) == 0)) {
		switch (c->op) {
		case OP_OPEN: case OP_CHMOD: case OP_CHOWN: case OP_UTIMES:
		case OP_SETXATTR: case OP_REMOVEXATTR: case OP_TRUNCATE:
			break;
		case OP_MKDIR: case OP_MKNOD: case OP_SYMLINK: case OP_LINK:
			sup_respond(s, req->id, -EEXIST, 0);
			return;
		case OP_UNLINK: case OP_RMDIR: case OP_RENAME:
			sup_respond(s, req->id, -EBUSY, 0);
			return;
		}
	}
	/* A folder that is there already changes nothing (mkdir -p walks
	 * every step of ~/.claude/hooks): not asked, not recorded. */
	if (c->op == OP_MKDIR && exists(s, c->path)) {
		sup_respond(s, req->id, -EEXIST, 0);
		return;
	}
	if ((pat = protect_call(s, c, c->path, c->two ? c->path2 :
	    NULL)) != NULL) {
		protect_decide(s, req, c, pat);
		return;
	}
	if (!sup_id_valid(s, req->id))
		return;
	if ((r = program_ids(s, (pid_t)req->pid, &as)) < 0) {
		sup_respond(s, req->id, r, 0);
		return;
	}
	r = emulate_in_place(s, (pid_t)req->pid, c, &as, &fd);
	/* Answered at once: the row below is batched with the record's
	 * other rows (a commit a round would cost more than the call). */
	if (fd >= 0) {
		r = sup_respond_fd(s, req->id, fd, (c->flags & O_CLOEXEC) != 0);
		close(fd);
		if (r < 0)
			sup_respond_now(s, req->id, r);
	} else
		sup_respond_now(s, req->id, r);
	/* What failed changed nothing (mkdir -p's EEXIST): not a change. */
	if (r < 0)
		return;
	snprintf(rule, sizeof rule, "writable folder %s", b->host);
	record(s, 0, req, c, VERDICT_ALLOW, HOW_POLICY, rule, "policy", 0, 0);
}

/* Both paths of c made absolute into abs1, abs2 (hot: see absolute). */
static int
absolutes(pid_t pid, const struct write_call *c, bool hot, char *abs1,
    char *abs2, size_t size)
{
	int r;

	if ((r = absolute(pid, c->dirfd, c->raw, hot, abs1, size)) < 0)
		return r;
	return c->two ? absolute(pid, c->dirfd2, c->raw2, hot, abs2, size) : 0;
}

/* Does c name a path relative to the cwd? Only then can the cache of
 * cwds change what judge() sees. */
static bool
uses_cwd(const struct write_call *c)
{
	return (c->raw[0] != '/' && c->dirfd == AT_FDCWD) ||
	    (c->two && c->raw2[0] != '/' && c->dirfd2 == AT_FDCWD);
}

/* The hot path: a lexical look at where the write lands. Inside the
 * writable set the floor holds whatever the path really is. */
static bool
fast(const struct sup *s, const struct write_call *c, const char *abs1,
    const char *abs2, bool moves)
{
	char lex[PATH_MAX], lex2[PATH_MAX];

	if (!(!has_dotdot(abs1) && (!c->two || !has_dotdot(abs2)) &&
	    path_normalize("/", abs1, lex, sizeof lex) == 0 &&
	    (!c->two || path_normalize("/", abs2, lex2, sizeof lex2) == 0) &&
	    files_fast_continue(s, lex, c->follow) &&
	    (!c->two || files_fast_continue(s, lex2, c->follow2))))
		return false;
	/* A protected name leaves the hot path: it is asked however the
	 * floor would bound it (in a project it would be staged unasked). */
	if (protect_call(s, c, lex, c->two ? lex2 : NULL) != NULL)
		return false;
	if (moves)
		nosym_moved(lex, c->two ? lex2 : NULL);
	return true;
}

/* The call being judged, its two paths made absolute: one call's at a
 * time, nothing kept in them between calls (files_shed). */
static struct write_call scratch;
static char abs1[PATH_MAX * 2], abs2[PATH_MAX * 2];

/* ------------------------------------------------------------------ */
/*
 * A container's calls (ward oci serve). Nothing below ward bounds a
 * path there, and a path the supervisor read may be rewritten by another
 * thread before the kernel reads it again: no write is continued. Each
 * is done by the supervisor inside the container's root and handed in,
 * or refused. /dev gets its harmless devices (oci_device_ok) opened so;
 * an fd reopened by name (/dev/stdout, /proc/self/fd/N) is reopened
 * through the thread's own fd table; the rest of /proc is not written
 * through ward (its files act on processes and the kernel, with the
 * supervisor's privilege were it to write them).
 */

/* Refused, and recorded as the floor's answer. */
static void
oci_refuse(struct sup *s, const struct seccomp_notif *req,
    const struct write_call *c, int err, const char *why)
{
	sup_respond(s, req->id, -err, 0);
	record(s, 0, req, c, VERDICT_DENY, HOW_FLOOR, why, "floor", 0, 0);
}

/* Hand in fd (an open the supervisor made) with the caller's blocking
 * mode and close-on-exec; closes fd. */
static void
oci_hand_in(struct sup *s, const struct seccomp_notif *req,
    const struct write_call *c, int fd)
{
	int64_t r;

	if (!(c->flags & O_NONBLOCK)) {
		int fl = fcntl(fd, F_GETFL);

		if (fl >= 0)
			(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	r = sup_respond_fd(s, req->id, fd, (c->flags & O_CLOEXEC) != 0);
	close(fd);
	if (r < 0)
		sup_respond_now(s, req->id, r);
}

/* An open of one of the container's devices: opened in its root, nothing
 * followed, and handed in only when harmless (the runtime's device rules
 * bind the container, not the supervisor). */
static void
oci_device(struct sup *s, const struct seccomp_notif *req,
    const struct write_call *c)
{
	struct open_how how = {
		.flags = (c->flags & ~(uint64_t)(O_CREAT | O_EXCL)) |
		    O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	long fd;

	how.flags &= ~(uint64_t)(O_DIRECTORY | O_PATH);
	fd = syscall(SYS_openat2, s->rootfd, c->path[1] ? c->path + 1 : ".",
	    &how, sizeof how);
	if (fd < 0) {
		/* Making a node in /dev is mknod's business, trapped too. */
		sup_respond(s, req->id, errno == ENOENT && (c->flags & O_CREAT) ?
		    -EACCES : -errno, 0);
		return;
	}
	if (fstat((int)fd, &st) < 0 || !oci_device_ok(&st)) {
		close((int)fd);
		oci_refuse(s, req, c, EACCES, "a device ward does not open for "
		    "a container");
		return;
	}
	oci_hand_in(s, req, c, (int)fd);
}

/*
 * The thread's fd n reopened with the call's flags (what opening
 * /proc/self/fd/N does): a pipe or a harmless device at once, a file
 * only in one of the container's writable folders, found there by the
 * name its fd has and checked to be the same file.
 */
static void
oci_reopen(struct sup *s, const struct seccomp_notif *req,
    struct write_call *c, int n)
{
	char p[64], self[64];
	cleanup_fd int cur = -1, fd = -1;
	struct stat a, b;
	int flags = (int)(c->flags & ~(uint64_t)(O_CREAT | O_EXCL |
	    O_DIRECTORY | O_PATH | O_NOFOLLOW)) | O_CLOEXEC | O_NONBLOCK;

	snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)req->pid, n);
	if ((cur = open(p, O_PATH | O_CLOEXEC)) < 0 || fstat(cur, &a) < 0) {
		sup_respond(s, req->id, errno == ENOENT ? -EBADF : -errno, 0);
		return;
	}
	if (S_ISFIFO(a.st_mode) || (S_ISCHR(a.st_mode) && oci_device_ok(&a))) {
		/* Through our own O_PATH fd, never the thread's table again:
		 * a dup2 since the fstat cannot swap another file in. */
		snprintf(self, sizeof self, "/proc/self/fd/%d", cur);
		if ((fd = open(self, flags)) < 0) {
			sup_respond(s, req->id, -errno, 0);
			return;
		}
		oci_hand_in(s, req, c, steal_fd(&fd));
		return;
	}
	/* The name the fd has, in the container's view (the kernel names
	 * it from the container's root for a reader outside it). */
	{
		ssize_t len = readlink(p, c->path, PATH_MAX - 1);

		if (len <= 0 || c->path[0] != '/') {
			oci_refuse(s, req, c, EACCES, "a file reopened through "
			    "/proc/self/fd whose name ward cannot tell");
			return;
		}
		c->path[len] = '\0';
	}
	if (!S_ISREG(a.st_mode) || host_bind(s, c->path) == NULL) {
		oci_refuse(s, req, c, EACCES, "a file reopened through "
		    "/proc/self/fd outside the container's writable folders: "
		    "open it by its name to be asked");
		return;
	}
	{
		struct open_how how = {
			.flags = (uint64_t)flags | O_NOFOLLOW,
			.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
			    RESOLVE_NO_MAGICLINKS,
		};
		long f = syscall(SYS_openat2, s->rootfd, c->path + 1, &how,
		    sizeof how);

		if (f < 0 || fstat((int)f, &b) < 0 || a.st_dev != b.st_dev ||
		    a.st_ino != b.st_ino) {
			if (f >= 0)
				close((int)f);
			oci_refuse(s, req, c, EACCES, "a file reopened through "
			    "/proc/self/fd is not the file its name now holds");
			return;
		}
		oci_hand_in(s, req, c, (int)f);
	}
	record(s, 0, req, c, VERDICT_ALLOW, HOW_POLICY, "writable folder "
	    "(reopened through /proc/self/fd)", "policy", 0, 0);
}

/* A container's call, judged: see above. */
static void
oci_judge(struct sup *s, const struct seccomp_notif *req,
    struct write_call *c, bool moves)
{
	char lex[PATH_MAX];
	const struct bind *hb;
	int n, r;

	if ((r = absolutes((pid_t)req->pid, c, false, abs1, abs2,
	    sizeof abs1)) < 0) {
		sup_respond(s, req->id, r, 0);
		return;
	}
	if (moves)
		files_kept_drop();
	if (path_normalize("/", abs1, lex, sizeof lex) < 0) {
		sup_respond(s, req->id, -ENAMETOOLONG, 0);
		return;
	}
	if (c->op == OP_OPEN && (n = oci_fd_path(lex)) >= 0) {
		snprintf(c->path, PATH_MAX, "%s", lex);
		oci_reopen(s, req, c, n);
		return;
	}
	/* Named under /proc (its magic links lead anywhere: root, cwd,
	 * fd), or led there by a symlink (below): not written. */
	if (path_under(lex, "/proc") || (c->two && path_normalize("/", abs2,
	    lex, sizeof lex) == 0 && path_under(lex, "/proc"))) {
		snprintf(c->path, PATH_MAX, "%.*s", PATH_MAX - 1, abs1);
		oci_refuse(s, req, c, EACCES, "a container's /proc is not "
		    "written through ward");
		return;
	}
	if ((r = resolve(s, abs1, c->follow, c->path)) < 0 ||
	    (c->two && (r = resolve(s, abs2, c->follow2, c->path2)) < 0)) {
		sup_respond(s, req->id, r, 0);
		return;
	}
	if (path_under(c->path, "/proc") ||
	    (c->two && path_under(c->path2, "/proc"))) {
		oci_refuse(s, req, c, EACCES, "a container's /proc is not "
		    "written through ward");
		return;
	}
	if (c->op == OP_OPEN && path_under(c->path, "/dev") &&
	    host_bind(s, c->path) == NULL) {
		oci_device(s, req, c);
		return;
	}
	if ((hb = host_bind(s, c->path)) != NULL ||
	    (c->two && (hb = host_bind(s, c->path2)) != NULL)) {
		host_change(s, req, c, hb);
		return;
	}
	decide(s, req, c);
}

/* A decoded call: continue it when it lands where the floor holds, else
 * judge where it really leads. */
static void
judge(struct sup *s, const struct seccomp_notif *req, struct write_call *c,
    bool moves)
{
	pid_t pid = (pid_t)req->pid;
	const struct bind *hb;
	int r;

	if (s->oci) {
		oci_judge(s, req, c, moves);
		return;
	}
	/* First with the cached cwd: a CONTINUE that the floor bounds. */
	if (uses_cwd(c) && absolutes(pid, c, true, abs1, abs2,
	    sizeof abs1) == 0 &&
	    fast(s, c, abs1, abs2, moves)) {
		sup_continue_quiet(s, req->id);
		return;
	}
	/* Then as it is now: what is recorded, asked or performed is
	 * judged from a cwd read for this call, never from the cache. */
	if ((r = absolutes(pid, c, false, abs1, abs2, sizeof abs1)) < 0) {
		sup_respond(s, req->id, r, 0);
		return;
	}
	if (fast(s, c, abs1, abs2, moves)) {
		sup_continue_quiet(s, req->id);
		return;
	}
	/* Past the hot path, whatever comes of the call: the kept folder
	 * goes before the kernel (or the supervisor) moves anything. */
	if (moves)
		files_kept_drop();

	/* Outside, as written: resolve it as the kernel would inside the
	 * sandbox root; the resolved path is what the policy and the
	 * person judge. */
	if ((r = resolve(s, abs1, c->follow, c->path)) < 0 ||
	    (c->two && (r = resolve(s, abs2, c->follow2, c->path2)) < 0)) {
		sup_respond(s, req->id, r, 0);
		return;
	}
	if ((hb = host_bind(s, c->path)) != NULL ||
	    (c->two && (hb = host_bind(s, c->path2)) != NULL)) {
		host_change(s, req, c, hb);
		return;
	}
	if (is_writable(s, c->path) && (!c->two || is_writable(s, c->path2))) {
		const char *pattern = protect_call(s, c, c->path, c->two ?
		    c->path2 : NULL);

		if (pattern == NULL) {
			sup_continue_quiet(s, req->id);
			return;
		}
		protect_decide(s, req, c, pattern);
		return;
	}
	/* Only what has a host counterpart can be approved: the rest (the
	 * sandbox's own read-only root, hidden folders) is floor. */
	{
		cleanup_free char *h1 = emulate_host_path(s, c->path);
		cleanup_free char *h2 = c->two ?
		    emulate_host_path(s, c->path2) : NULL;

		if ((h1 == NULL && !is_writable(s, c->path)) ||
		    (c->two && h2 == NULL && !is_writable(s, c->path2))) {
			sup_respond(s, req->id, -EROFS, 0);
			record(s, 0, req, c, VERDICT_DENY, HOW_FLOOR,
			    "read-only sandbox root", "floor", 0, 0);
			return;
		}
	}
	decide(s, req, c);
}

/* Can the call move a folder or remove one, or make a symlink (which,
 * once a folder is gone, can stand where it was)? */
static bool
files_moves_names(const struct seccomp_notif *req)
{
	switch (req->data.nr) {
	case SYS_rename:
	case SYS_renameat:
	case SYS_renameat2:
	case SYS_rmdir:
	case SYS_symlink:
	case SYS_symlinkat:
		return true;
	case SYS_unlinkat:
		return (req->data.args[2] & AT_REMOVEDIR) != 0;
	default:
		return false;
	}
}

/* Can the call put a symlink at a name (a new one, a link to one, one
 * moved there)? */
static bool
files_makes_names(int nr)
{
	switch (nr) {
	case SYS_rename:
	case SYS_renameat:
	case SYS_renameat2:
	case SYS_link:
	case SYS_linkat:
	case SYS_symlink:
	case SYS_symlinkat:
		return true;
	default:
		return false;
	}
}

void
files_on_chdir(struct sup *s, const struct seccomp_notif *req)
{
	/* Before the kernel moves it: a call that this thread (or one that
	 * shares its cwd) makes next reads the cwd afresh. */
	target_cwd_flush();
	sup_continue_quiet(s, req->id);
}

void
files_on_call(struct sup *s, const struct seccomp_notif *req)
{
	/* A call that may put a symlink where the kept folder's path was
	 * (no_symlinks): judge drops that folder before the kernel acts,
	 * unless the hot path showed the call's own paths to be neither it
	 * nor a folder above it. */
	bool moves = files_moves_names(req);
	int r;

	/* Before anything answers it: the names kept free of symlinks are
	 * forgotten, and none learned until the kernel is done with it. */
	if (files_makes_names(req->data.nr))
		files_names_moving((pid_t)req->pid, req->data.nr);
	r = decode(req, &scratch);

	if (r == 1 && moves)
		files_kept_drop();
	if (r == 1)
		sup_continue_quiet(s, req->id);
	else if (r < 0)
		sup_respond(s, req->id, r, 0);
	else
		judge(s, req, &scratch, moves);
	free_call(&scratch);
}

void
files_shed(void)
{
	pages_release(&scratch, sizeof scratch);
	pages_release(abs1, sizeof abs1);
	pages_release(abs2, sizeof abs2);
}
