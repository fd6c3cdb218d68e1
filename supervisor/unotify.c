/*
 * The notify loop's handlers: receive a trapped call, copy its arguments
 * out of the target, decide, and either answer at once or park it as a
 * request for a person. Nothing here blocks on a person: a parked request
 * waits in the queue while the loop serves every other notification.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "approvals/decide.h"
#include "config/escape.h"
#include "config/util.h"
#include "supervisor/compat.h"
#include "supervisor/filter.h"
#include "supervisor/packages.h"
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

enum where {
	WHERE_OUTSIDE,
	WHERE_WRITABLE,	/* continue, once no symlink leads elsewhere */
	WHERE_FLOOR,	/* continue as it is */
};

static enum where
where(const struct sup *s, const char *path)
{
	const struct bind *best = NULL;

	/* The deepest bind decides: a read-only --in folder beneath /tmp
	 * is not writable because /tmp is. */
	for (size_t i = 0; i < s->n_binds; i++)
		if (path_under(path, s->binds[i].inside) && (best == NULL ||
		    strlen(s->binds[i].inside) > strlen(best->inside)))
			best = &s->binds[i];
	if (best != NULL)
		return best->writable ? WHERE_WRITABLE : WHERE_OUTSIDE;
	for (size_t i = 0; i < ARRAY_SIZE(sandbox_writable); i++)
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
	return where(s, path) != WHERE_OUTSIDE;
}

/*
 * The hot path's one check beyond the string: does any symlink stand on
 * the way to lex inside the sandbox root? One openat2 that refuses
 * symlinks answers it; a missing component is fine (nothing followed).
 * A planted /work/link -> /etc/passwd then takes the slow path and is
 * judged, and recorded, by where it really leads.
 */
static bool
no_symlinks(const struct sup *s, const char *lex, bool follow)
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

static bool
fast_continue(const struct sup *s, const char *lex, bool follow)
{
	switch (where(s, lex)) {
	case WHERE_FLOOR:
		return true;
	case WHERE_WRITABLE:
		return no_symlinks(s, lex, follow);
	case WHERE_OUTSIDE:
		break;
	}
	return false;
}

void
sup_respond(struct sup *s, uint64_t id, int64_t val, uint32_t flags)
{
	memset(s->resp, 0, s->resp_size);
	s->resp->id = id;
	s->resp->flags = flags;
	if (flags == 0) {
		if (val < 0)
			s->resp->error = (int32_t)val;
		else
			s->resp->val = val;
	}
	/* ENOENT: the target was interrupted or died; nothing to answer. */
	(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp);
}

void
sup_continue(struct sup *s, uint64_t id)
{
	sup_respond(s, id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

/* Hand a host fd in as the syscall's return value, atomically. */
static int64_t
respond_fd(struct sup *s, uint64_t id, int fd, bool cloexec)
{
	struct seccomp_notif_addfd a = {
		.id = id,
		.flags = SECCOMP_ADDFD_FLAG_SEND,
		.srcfd = (uint32_t)fd,
		.newfd = 0,
		.newfd_flags = cloexec ? O_CLOEXEC : 0,
	};
	int r = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);

	return r < 0 ? -errno : r;
}

static bool
id_valid(const struct sup *s, uint64_t id)
{
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static int
read_path(pid_t pid, uint64_t addr, char *buf)
{
	ssize_t n = target_read_str(pid, addr, buf, PATH_MAX);

	return n < 0 ? (int)n : 0;
}

static int
read_times(pid_t pid, int nr, uint64_t addr, struct call *c)
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

/*
 * Copy the call out of the target: the path strings and every pointer
 * argument, into c. Returns 0, 1 when the call names no path to judge
 * (an fd-based form: the floor decides), or -errno to answer.
 */
static int
decode(const struct seccomp_notif *req, struct call *c)
{
	const __u64 *a = req->data.args;
	pid_t pid = (pid_t)req->pid;
	int nr = req->data.nr;
	uint64_t p1 = 0, p2 = 0;
	int r;

	memset(c, 0, offsetof(struct call, raw));
	c->raw[0] = c->raw2[0] = c->path[0] = c->path2[0] = '\0';
	c->xvalue = NULL;
	c->dirfd = c->dirfd2 = AT_FDCWD;
	c->follow = true;

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
	case OP_CONNECT:
	case OP_DNS:
	case OP_EXEC:
		break;
	}
	/* "" with AT_EMPTY_PATH works on the fd itself: the floor decides. */
	if ((c->op == OP_CHMOD || c->op == OP_CHOWN || c->op == OP_UTIMES ||
	    c->op == OP_LINK) && (c->flags & AT_EMPTY_PATH) && c->raw[0] == '\0')
		return 1;
	if (c->op == OP_SYMLINK || c->op == OP_LINK) {
		/* Judge the new name, the second argument: swap so that raw
		 * is the new name and raw2 the link text / old name. */
		static char tmp[PATH_MAX];
		int fd = c->dirfd;

		memcpy(tmp, c->raw, sizeof tmp);
		memcpy(c->raw, c->raw2, sizeof c->raw);
		memcpy(c->raw2, tmp, sizeof c->raw2);
		c->dirfd = c->dirfd2;
		c->dirfd2 = fd;
	}
	return 0;
}

/* raw made absolute against dirfd (the cwd for AT_FDCWD), as written:
 * "." and ".." are left for path_resolve, which takes them after the
 * symlinks before them, as the kernel does. 0 or -errno. */
static int
absolute(pid_t pid, int dirfd, const char *raw, char *out, size_t size)
{
	char base[PATH_MAX];
	int r;

	if (raw[0] == '\0')
		return -ENOENT;
	if (raw[0] == '/')
		r = snprintf(out, size, "%s", raw);
	else if ((r = target_dir(pid, dirfd, base, sizeof base)) < 0)
		return r;
	else
		r = snprintf(out, size, "%s/%s", base, raw);
	return (size_t)r >= size ? -ENAMETOOLONG : 0;
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
describe_detail(const struct call *c)
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
	case OP_CONNECT:
		return xasprintf("tcp, fd %d", c->sockfd);
	case OP_DNS:
		return xstrdup("lookup");
	case OP_EXEC:
		return xstrdup(c->raw2);
	}
	return xstrdup("");
}

static void
record(struct sup *s, const struct seccomp_notif *req, const struct call *c,
    enum verdict v, enum how how, const char *rule, const char *by,
    int64_t wait_ms, uint64_t request)
{
	cleanup_free char *detail = describe_detail(c);
	struct audit_event ev = {
		.run = s->id,
		.time_ms = now_wall_ms(),
		.pid = (pid_t)req->pid,
		.kind = c->op == OP_CONNECT ? KIND_CONNECT : KIND_WRITE,
		.syscall = c->name,
		.subject = c->path,
		.subject2 = c->two ? c->path2 : NULL,
		.detail = detail,
		.verdict = v,
		.how = how,
		.rule = rule,
		.decided_by = by,
		.wait_ms = wait_ms,
		.request_id = request,
	};

	sup_event(s, &ev);
}

static void
free_call(struct call *c)
{
	free(c->xvalue);
	c->xvalue = NULL;
	packages_hosts_free(c->hosts, c->n_hosts);
	c->hosts = NULL;
	c->n_hosts = 0;
}

void
unotify_parked_free(void *p)
{
	struct parked *pk = p;

	if (pk != NULL)
		free_call(&pk->call);
	free(pk);
}

/* Answer an allowed call by doing it ourselves on the host. */
static int64_t
allow(struct sup *s, const struct parked *pk)
{
	int fd = -1;
	int64_t r;

	if (pk->call.op == OP_CONNECT) {
		(void)net_swap(s, pk->req.id, (pid_t)pk->req.pid, &pk->call, &r);
		return r == -EINPROGRESS ? 0 : r;
	}
	r = emulate_call(s, pk, &fd);

	if (fd >= 0) {
		r = respond_fd(s, pk->req.id, fd,
		    (pk->call.flags & O_CLOEXEC) != 0);
		close(fd);
		if (r < 0)
			sup_respond(s, pk->req.id, r, 0);
		return r;
	}
	sup_respond(s, pk->req.id, r, 0);
	return r;
}

/* Show a new pending request to everyone and queue it. */
void
unotify_park_request(struct sup *s, struct request *r, struct parked *pk)
{
	if (s->headless) {
		cleanup_free char *subj = escape_str(r->subject);

		fprintf(stderr, "ward: run %s request %llu pending: %s %s "
		    "(pid %d); ward approve %s %llu or ward deny %s %llu\n",
		    s->id, (unsigned long long)r->id, request_kind_name(r->kind),
		    subj, (int)r->pid,
		    s->id, (unsigned long long)r->id, s->id,
		    (unsigned long long)r->id);
	}
	{
		json_t *m = proto_msg("request");

		json_object_set_new(m, "request", request_to_json(r));
		control_broadcast(s, m);
	}
	if (queue_add(s->queue, r, pk) < 0) {
		/* Cannot happen: ids are ours. Fail closed. */
		sup_respond(s, pk->req.id, -EACCES, 0);
		request_free(r);
		unotify_parked_free(pk);
	}
}

static void
park(struct sup *s, struct parked *scratch, enum request_kind kind,
    const char *why)
{
	struct parked *pk = xmalloc(sizeof *pk);
	struct request *r = request_new();
	cleanup_free char *cwd = NULL;
	char buf[PATH_MAX];

	memcpy(pk, scratch, sizeof *pk);
	scratch->call.xvalue = NULL;	/* moved */
	pk->asked_ms = now_mono_ms();

	r->id = ++s->next_request;
	r->run = xstrdup(s->id);
	r->pid = (pid_t)pk->req.pid;
	r->kind = kind;
	r->syscall = xstrdup(pk->call.name);
	r->subject = xstrdup(pk->call.path);
	r->subject2 = pk->call.two ? xstrdup(pk->call.path2) : NULL;
	r->detail = describe_detail(&pk->call);
	r->cmdline = target_cmdline(r->pid);
	r->cwd = xstrdup(target_dir(r->pid, AT_FDCWD, buf, sizeof buf) == 0 ?
	    buf : "?");
	r->why = xstrdup(why);
	r->created_ms = now_wall_ms();
	r->deadline_ms = s->policy.ask_timeout > 0 ?
	    r->created_ms + (int64_t)s->policy.ask_timeout * 1000 : 0;

	unotify_park_request(s, r, pk);
}

static void
record_other(struct sup *s, const struct seccomp_notif *req,
    enum request_kind kind, const char *syscall, const char *subject,
    const char *detail, enum verdict v, enum how how, const char *rule)
{
	struct audit_event ev = {
		.run = s->id,
		.time_ms = now_wall_ms(),
		.pid = (pid_t)req->pid,
		.kind = kind,
		.syscall = syscall,
		.subject = subject,
		.detail = detail,
		.verdict = v,
		.how = how,
		.rule = rule,
		.decided_by = "floor",
	};

	sup_event(s, &ev);
}

/* A refused syscall: answer its errno and record the attempt. */
static void
on_blocked(struct sup *s, const struct seccomp_notif *req,
    const struct filter_blocked *b)
{
	char detail[160], name[64];
	struct filter_blocked sb;

	/* personality(0xffffffff) asks, it does not change: let it be. */
	if (req->data.nr == SYS_personality &&
	    (uint32_t)req->data.args[0] == 0xffffffffU) {
		sup_continue(s, req->id);
		return;
	}
	if (req->data.nr == SYS_socket) {
		int fam = (int)req->data.args[0], type = (int)req->data.args[1] & 0xf;

		sb = *b;
		if (fam == AF_PACKET || ((fam == AF_INET || fam == AF_INET6) &&
		    (type == SOCK_RAW || type == SOCK_PACKET))) {
			sb.err = EPERM;
			snprintf(name, sizeof name, "socket (raw or packet)");
		} else {
			sb.err = EAFNOSUPPORT;
			snprintf(name, sizeof name, "socket (family %d)", fam);
		}
		sb.name = name;
		b = &sb;
	}

	snprintf(detail, sizeof detail, "args=%#llx,%#llx,%#llx errno=%s",
	    (unsigned long long)req->data.args[0],
	    (unsigned long long)req->data.args[1],
	    (unsigned long long)req->data.args[2], strerrorname_np(b->err));
	sup_respond(s, req->id, -b->err, 0);
	record_other(s, req, KIND_BLOCKED, b->name, b->name, detail,
	    VERDICT_DENY, HOW_FLOOR, "refused by the sandbox's filter");
}

/* int 0x80 or x32: another syscall table, past every rule. */
static void
on_foreign_abi(struct sup *s, const struct seccomp_notif *req)
{
	char detail[96];

	snprintf(detail, sizeof detail, "arch=%#x nr=%#x", req->data.arch,
	    (unsigned)req->data.nr);
	/* SIGKILL to one thread ends its whole process. */
	kill((pid_t)req->pid, SIGKILL);
	sup_respond(s, req->id, -ENOSYS, 0);
	record_other(s, req, KIND_BLOCKED, "non-native syscall",
	    req->data.arch != AUDIT_ARCH_X86_64 ? "i386 syscall (int 0x80)" :
	    "x32 syscall", detail, VERDICT_KILL, HOW_FLOOR,
	    "non-native syscall ABI: process killed");
}

/* execve/execveat: recorded, then continued (DESIGN §6: an exec can only
 * be continued; the file and network floor still hold for what runs). */
static void
on_exec(struct sup *s, const struct seccomp_notif *req)
{
	pid_t pid = (pid_t)req->pid;
	bool at = req->data.nr == SYS_execveat;
	uint64_t path_addr = at ? req->data.args[1] : req->data.args[0];
	uint64_t argv_addr = at ? req->data.args[2] : req->data.args[1];
	static char argbuf[64][1024];
	char *args[65];
	bool from_fd = false;
	char path[PATH_MAX], argv[4096];
	size_t used = 0, n_args = 0;

	if (target_read_str(pid, path_addr, path, sizeof path) < 0)
		snprintf(path, sizeof path, "?");
	if (at && path[0] == '\0' && (req->data.args[4] & AT_EMPTY_PATH)) {
		char link[64];
		ssize_t n;

		from_fd = true;
		/* fexecve: say what the fd is (a memfd shows as /memfd:). */
		snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid,
		    (int)req->data.args[0]);
		if ((n = readlink(link, path, sizeof path - 1)) < 0)
			n = 0;
		path[n] = '\0';
	}
	argv[0] = '\0';
	for (int i = 0; i < 64 && argv_addr != 0; i++) {
		uint64_t p;
		ssize_t n;

		if (target_read(pid, argv_addr + 8 * (uint64_t)i, &p,
		    sizeof p) < 0 || p == 0)
			break;
		if ((n = target_read_str(pid, p, argbuf[i], sizeof argbuf[i])) < 0)
			break;
		args[n_args++] = argbuf[i];
		if (used + (size_t)n + 2 >= sizeof argv)
			continue;
		if (used > 0)
			argv[used++] = ' ';
		memcpy(argv + used, argbuf[i], (size_t)n + 1);
		used += (size_t)n;
	}
	args[n_args] = NULL;
	/* Whatever happens next, this thread's memory is about to be
	 * another (a vfork child shared its parent's until now). */
	target_forget(pid);
	/* The argv read here is what the person judges; a thread could
	 * change it before the kernel reads it again. An exec can only be
	 * continued: what it then does still meets the floor. */
	/* A PATH lookup that finds nothing: the kernel says ENOENT, and
	 * nothing ran that the record should show. */
	if (!from_fd && path[0] == '/' &&
	    !install_exists_inside(s, pid, path)) {
		/* Answered here, not continued: continuing would let the
		 * kernel read the path again, which a thread may have
		 * turned into a program that exists (an exec nobody saw). */
		sup_respond(s, req->id, -ENOENT, 0);
		return;
	}
	if (n_args > 0 && install_on_exec(s, req, path, args, argv) == 1)
		return;
	sup_continue(s, req->id);
	record_other(s, req, KIND_EXEC, at ? "execveat" : "execve", path, argv,
	    VERDICT_ALLOW, HOW_FLOOR,
	    strncmp(path, "/memfd:", 7) == 0 ? "exec from memory (memfd)" :
	    NULL);
}

void
unotify_on_ready(struct sup *s)
{
	static struct parked scratch;
	struct seccomp_notif *req = s->req;
	struct call *c = &scratch.call;
	static char abs1[PATH_MAX * 2], abs2[PATH_MAX * 2];
	char lex[PATH_MAX], lex2[PATH_MAX];
	struct decide_in in;
	struct decision d;
	int r;

	memset(req, 0, s->req_size);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
		return;	/* ENOENT: the target went away before we read it */
	if (req->data.arch != AUDIT_ARCH_X86_64 ||
	    (req->data.nr & 0x40000000) != 0) {
		on_foreign_abi(s, req);
		return;
	}
	{
		const struct filter_blocked *b = filter_blocked(req->data.nr);

		if (b != NULL) {
			on_blocked(s, req, b);
			return;
		}
	}
	if (req->data.nr == SYS_execve || req->data.nr == SYS_execveat) {
		on_exec(s, req);
		return;
	}
	if (req->data.nr == SYS_sendto) {
		net_on_sendto(s, req);
		return;
	}
	if (req->data.nr == SYS_bind || req->data.nr == SYS_listen) {
		net_on_bind(s, req);
		return;
	}
	if (req->data.nr == SYS_sendmsg || req->data.nr == SYS_sendmmsg) {
		net_on_fastopen(s, req);
		return;
	}
	scratch.req = *req;
	if (req->data.nr == SYS_connect) {
		cleanup_free char *why = NULL;
		size_t len = req->data.args[2];

		memset(c, 0, offsetof(struct call, raw));
		c->op = OP_CONNECT;
		c->name = "connect";
		c->sockfd = (int)req->data.args[0];
		if (len > sizeof c->sa)
			len = sizeof c->sa;
		c->salen = (socklen_t)len;
		if (len < sizeof(sa_family_t) || target_read((pid_t)req->pid,
		    req->data.args[1], &c->sa, len) < 0) {
			sup_respond(s, req->id, -EFAULT, 0);
			return;
		}
		if (net_on_connect(s, req, c, &why) == 1 &&
		    id_valid(s, req->id))
			park(s, &scratch, KIND_CONNECT, why);
		return;
	}
	r = decode(req, c);
	if (r == 1) {
		sup_continue(s, req->id);
		goto out;
	}
	if (r < 0) {
		sup_respond(s, req->id, r, 0);
		goto out;
	}

	/* The hot path: a lexical look at where the write lands. Inside
	 * the writable set the floor holds whatever the path really is. */
	if ((r = absolute((pid_t)req->pid, c->dirfd, c->raw, abs1,
	    sizeof abs1)) < 0 || (c->two && (r = absolute((pid_t)req->pid,
	    c->dirfd2, c->raw2, abs2, sizeof abs2)) < 0)) {
		sup_respond(s, req->id, r, 0);
		goto out;
	}
	if (!has_dotdot(abs1) && (!c->two || !has_dotdot(abs2)) &&
	    path_normalize("/", abs1, lex, sizeof lex) == 0 &&
	    (!c->two || path_normalize("/", abs2, lex2, sizeof lex2) == 0) &&
	    fast_continue(s, lex, c->follow) &&
	    (!c->two || fast_continue(s, lex2, c->follow2))) {
		sup_continue(s, req->id);
		goto out;
	}

	/* Outside, as written: resolve it as the kernel would inside the
	 * sandbox root; the resolved path is what the policy and the
	 * person judge. */
	if ((r = resolve(s, abs1, c->follow, c->path)) < 0 ||
	    (c->two && (r = resolve(s, abs2, c->follow2, c->path2)) < 0)) {
		sup_respond(s, req->id, r, 0);
		goto out;
	}
	if (is_writable(s, c->path) && (!c->two || is_writable(s, c->path2))) {
		sup_continue(s, req->id);
		goto out;
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
			record(s, req, c, VERDICT_DENY, HOW_FLOOR,
			    "read-only sandbox root", "floor", 0, 0);
			goto out;
		}
	}

	in = (struct decide_in){ .policy = &s->policy, .rules = s->rules,
	    .grants = s->run_grants, .now_ms = now_mono_ms() };
	d = decide_write(&in, c->path, c->two ? c->path2 : NULL);
	switch (d.verdict) {
	case VERDICT_DENY:
		sup_respond(s, req->id, -EACCES, 0);
		record(s, req, c, VERDICT_DENY, d.how, d.rule, "policy", 0, 0);
		break;
	case VERDICT_ALLOW:
		/* Copy done; is the id still the same task before we act? */
		if (id_valid(s, req->id)) {
			int64_t res = allow(s, &scratch);

			record(s, req, c, res < 0 ? VERDICT_DENY :
			    VERDICT_ALLOW, d.how, d.rule, "policy", 0, 0);
		}
		break;
	case VERDICT_ASK:
	case VERDICT_NONE:
	case VERDICT_KILL:
		if (id_valid(s, req->id))
			park(s, &scratch, KIND_WRITE, d.rule);
		break;
	}
	decision_done(&d);
out:
	free_call(c);
}

static char *
deny_message(const char *reason)
{
	cleanup_free char *r = escape_str(reason);

	return xasprintf("ward: denied: %s\n", r);
}

void
unotify_resolve(struct sup *s, uint64_t id, enum verdict v, enum how how,
    const char *by, const char *reason)
{
	void *data = NULL;
	struct request *r = queue_take(s->queue, id, &data);
	struct parked *pk = data;
	int64_t wait_ms;
	enum verdict done = v;

	if (r == NULL)
		return;
	wait_ms = now_mono_ms() - pk->asked_ms;
	if (pk->call.op == OP_EXEC) {
		install_resolve(s, pk, v, how, by, reason, wait_ms, id);
		done = v == VERDICT_ALLOW ? VERDICT_ALLOW : VERDICT_DENY;
		goto resolved;
	}
	if (pk->call.op == OP_DNS) {
		struct audit_event ev = {
			.run = s->id, .time_ms = now_wall_ms(),
			.kind = KIND_DNS, .syscall = "dns",
			.subject = pk->call.path,
			.verdict = v == VERDICT_ALLOW ? VERDICT_ALLOW : VERDICT_DENY,
			.how = how, .rule = reason, .decided_by = by,
			.wait_ms = wait_ms, .request_id = id,
		};

		net_dns_answered(s, pk->call.path, v == VERDICT_ALLOW);
		sup_event(s, &ev);
		done = ev.verdict;
		goto resolved;
	}
	switch (v) {
	case VERDICT_ALLOW:
		if (!id_valid(s, pk->req.id)) {
			done = VERDICT_NONE;
			break;
		}
		if (allow(s, pk) < 0)
			done = VERDICT_ALLOW;	/* approved; the host said no */
		break;
	case VERDICT_KILL:
	case VERDICT_DENY:
	case VERDICT_NONE:
	case VERDICT_ASK:
		sup_respond(s, pk->req.id, pk->call.op == OP_CONNECT ?
		    -ECONNREFUSED : -EACCES, 0);
		if (reason != NULL && *reason != '\0') {
			char p[48];
			cleanup_fd int fd = -1;
			cleanup_free char *msg = deny_message(reason);

			/* Tell the denied process why, on its own stderr. */
			snprintf(p, sizeof p, "/proc/%d/fd/2", (int)pk->req.pid);
			if ((fd = open(p, O_WRONLY | O_NOCTTY | O_NONBLOCK |
			    O_CLOEXEC)) >= 0)
				(void)!write(fd, msg, strlen(msg));
		}
		done = v == VERDICT_KILL ? VERDICT_KILL : VERDICT_DENY;
		break;
	}
	if (done == VERDICT_NONE) {
		/* The process went away while the person thought. */
		record(s, &pk->req, &pk->call, VERDICT_DENY, HOW_SUPERVISOR,
		    NULL, "target gone", wait_ms, id);
	} else
		record(s, &pk->req, &pk->call, done, how, reason, by, wait_ms, id);
resolved:
	{
		json_t *m = proto_msg("resolved");

		json_object_set_new(m, "request", json_integer((json_int_t)id));
		json_object_set_new(m, "verdict", json_string(verdict_name(done)));
		json_object_set_new(m, "how", json_string(how_name(how)));
		json_object_set_new(m, "by", json_string(by));
		control_broadcast(s, m);
	}
	if (s->headless && how == HOW_TIMEOUT)
		fprintf(stderr, "ward: run %s request %llu denied: nobody "
		    "answered in %us\n", s->id, (unsigned long long)id,
		    s->policy.ask_timeout);
	request_free(r);
	unotify_parked_free(pk);
	if (v == VERDICT_KILL)
		sup_kill(s, "killed");
}

void
unotify_expire(struct sup *s, int64_t now)
{
	uint64_t id;

	/* unotify_resolve takes the request out of the queue, so each turn
	 * answers one and the next due comes up. */
	while ((id = queue_expired(s->queue, now)) != 0)
		unotify_resolve(s, id, VERDICT_DENY, HOW_TIMEOUT, "timeout",
		    NULL);
}
