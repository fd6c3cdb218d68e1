/* SPDX-License-Identifier: MIT */
/*
 * The notify loop's receive side: receive a trapped call and hand it to
 * the handler of its kind (files.c, net.c, install.c), answering here
 * only what no handler owns (another ABI, the blocked list, plain execs);
 * and resolve a parked request through its kind's ops. Nothing here
 * blocks on a person: a parked request waits in the queue while the loop
 * serves every other notification.
 */
#include "supervisor/unotify.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "approvals/msg.h"
#include "config/util.h"
#include "supervisor/files.h"
#include "supervisor/filter.h"
#include "supervisor/install.h"
#include "supervisor/net.h"
#include "supervisor/sup.h"
#include "supervisor/target.h"

static void
record_other(struct sup *s, const struct seccomp_notif *req,
    enum request_kind kind, const char *syscall, const char *subject,
    const char *detail, enum verdict v, enum how how, const char *rule)
{
	struct sup_what w = {
		.pid = (pid_t)req->pid, .kind = kind, .syscall = syscall,
		.subject = subject, .detail = detail,
	};

	sup_record(s, &w, v, how, rule, "floor", 0, 0);
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

#define EXEC_ARGS	64	/* the arguments of an exec copied out */
#define EXEC_ARG_MAX	1024	/* the bytes of each, its NUL included */

/* The strings of the last exec's argv, one after the other: an exec of
 * a few short ones touches one page of it, not one slot of each. */
static char argbuf[EXEC_ARGS * EXEC_ARG_MAX];

/* The argv an exec names, copied out: the strings in args (at most 64,
 * each cut at EXEC_ARG_MAX), joined by spaces in joined. */
static size_t
exec_argv(pid_t pid, uint64_t argv_addr, char *args[EXEC_ARGS + 1],
    char *joined, size_t size)
{
	uint64_t ptrs[EXEC_ARGS];
	size_t used = 0, n_args = 0, n_ptrs = 0, at = 0;
	ssize_t got;

	joined[0] = '\0';
	/* The pointers in one read (two across a page), not one each. */
	if (argv_addr != 0 &&
	    (got = target_read_some(pid, argv_addr, ptrs, sizeof ptrs)) > 0)
		n_ptrs = (size_t)got / sizeof ptrs[0];
	for (size_t i = 0; i < n_ptrs; i++) {
		uint64_t p = ptrs[i];
		ssize_t n;

		if (p == 0)
			break;
		/* at <= i * EXEC_ARG_MAX: the room is never short. */
		if ((n = target_read_str(pid, p, argbuf + at,
		    EXEC_ARG_MAX)) < 0)
			break;
		args[n_args++] = argbuf + at;
		at += (size_t)n + 1;
		if (used + (size_t)n + 2 >= size)
			continue;
		if (used > 0)
			joined[used++] = ' ';
		memcpy(joined + used, args[n_args - 1], (size_t)n + 1);
		used += (size_t)n;
	}
	args[n_args] = NULL;
	return n_args;
}

/* execve/execveat: recorded, then continued (DESIGN §6: an exec can only
 * be continued; the file and network floor still hold for what runs). */
static void
on_exec(struct sup *s, const struct seccomp_notif *req)
{
	pid_t pid = (pid_t)req->pid;
	bool at = req->data.nr == SYS_execveat;
	uint64_t path_addr = at ? req->data.args[1] : req->data.args[0];
	char *args[EXEC_ARGS + 1];
	char path[PATH_MAX], what[PATH_MAX], argv[4096], via[96];
	const char *rule = NULL;
	int fd = -1;
	size_t n_args;

	if (target_read_str(pid, path_addr, path, sizeof path) < 0)
		snprintf(path, sizeof path, "?");
	if (at && path[0] == '\0' && (req->data.args[4] & AT_EMPTY_PATH))
		fd = (int)req->data.args[0];	/* fexecve */
	else if (path[0] == '/')
		fd = install_path_fd(path);	/* /proc/self/fd/N, /dev/fd/N */
	n_args = exec_argv(pid, at ? req->data.args[2] : req->data.args[1],
	    args, argv, sizeof argv);
	/* Whatever happens next, this thread's memory is about to be
	 * another (a vfork child shared its parent's until now). */
	target_forget(pid);
	/* The argv read here is what the person judges; a thread could
	 * change it before the kernel reads it again. An exec can only be
	 * continued: what it then does still meets the floor. */
	/* A PATH lookup that finds nothing, an fd the program has not open:
	 * the kernel says ENOENT, and nothing ran that the record should
	 * show. An fd is looked up in the program's own table (the
	 * sandbox's /proc/self is nobody for us); what it is (a file's
	 * path, memfd:NAME) is what the record names. */
	if (fd >= 0) {
		int r = install_fd_name(pid, fd, what, sizeof what);

		if (r == -ENOENT && path[0] == '/') {
			sup_respond(s, req->id, -ENOENT, 0);
			return;
		}
		if (r < 0)
			snprintf(what, sizeof what, "%s", path[0] ? path : "?");
		if (str_has_prefix(what, "memfd:"))
			rule = "exec from memory (memfd)";
		else if (path[0] != '\0') {
			snprintf(via, sizeof via, "exec through fd %d (%.40s)", fd,
			    path);
			rule = via;
		}
	} else if (path[0] == '/' && !install_exists_inside(s, pid, path)) {
		/* Answered here, not continued: continuing would let the
		 * kernel read the path again, which a thread may have
		 * turned into a program that exists (an exec nobody saw). */
		sup_respond(s, req->id, -ENOENT, 0);
		return;
	} else {
		snprintf(what, sizeof what, "%s", path);
	}
	if (n_args > 0 && install_on_exec(s, req, path, args, argv) == 1)
		return;
	sup_continue(s, req->id);
	record_other(s, req, KIND_EXEC, at ? "execveat" : "execve", what, argv,
	    VERDICT_ALLOW, HOW_FLOOR, rule);
}

void
unotify_on_ready(struct sup *s)
{
	struct seccomp_notif *req = s->req;

	s->quiet = false;
	memset(req, 0, s->req_size);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
		return;	/* ENOENT: the target went away before we read it */
	files_thread_seen((pid_t)req->pid);
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
	switch (req->data.nr) {
	case SYS_execve:
	case SYS_execveat:
		on_exec(s, req);
		return;
	case SYS_sendto:
		net_on_sendto(s, req);
		return;
	case SYS_bind:
	case SYS_listen:
		net_on_bind(s, req);
		return;
	case SYS_sendmsg:
	case SYS_sendmmsg:
		net_on_fastopen(s, req);
		return;
	case SYS_connect:
		net_on_connect(s, req);
		return;
	case SYS_chdir:
	case SYS_fchdir:
		files_on_chdir(s, req);
		return;
	default:
		files_on_call(s, req);
		return;
	}
}

/* Answer a parked request; gone: its asker went (told to the consoles
 * as verdict "none", by UNOTIFY_GONE_BY). */
static void
resolve(struct sup *s, uint64_t id, enum verdict v, enum how how,
    const char *by, const char *reason, bool gone)
{
	void *data = NULL;
	struct request *r = queue_take(s->queue, id, &data);
	struct parked *pk = data;
	int64_t wait_ms;
	enum verdict done;

	if (r == NULL)
		return;
	wait_ms = now_mono_ms() - pk->asked_ms;
	done = pk->ops->resolve(s, pk, v, how, by, reason, wait_ms, id);
	sup_broadcast(s, msg_resolved(id, gone ? VERDICT_NONE : done, how,
	    by));
	if (s->headless && gone) {
		cleanup_free char *line = xasprintf("%s: run %s request %llu "
		    "closed: %s (nobody waits for an answer)\n", s->tag,
		    s->id, (unsigned long long)id, by);

		hostout_write(&s->host_err, line, strlen(line), true);
	} else if (s->headless && how == HOW_TIMEOUT) {
		/* Through the bounded buffer: never blocks the loop. */
		cleanup_free char *line = xasprintf("%s: run %s request %llu "
		    "denied: nobody answered in %us\n", s->tag, s->id,
		    (unsigned long long)id, s->policy.ask_timeout);

		hostout_write(&s->host_err, line, strlen(line), true);
	}
	request_free(r);
	sup_parked_free(pk);
	if (v == VERDICT_KILL)
		sup_kill(s, "killed");
}

void
unotify_resolve(struct sup *s, uint64_t id, enum verdict v, enum how how,
    const char *by, const char *reason)
{
	resolve(s, id, v, how, by, reason, false);
}

void
unotify_gone(struct sup *s, int64_t now)
{
	uint64_t *ids;
	size_t n = 0, len = queue_len(s->queue);

	if (len == 0) {
		s->gone_at = 0;
		return;
	}
	if (s->gone_at == 0) {
		/* Not at once: a request is parked because its asker is
		 * there. */
		s->gone_at = now + UNOTIFY_GONE_MS;
		return;
	}
	if (now < s->gone_at)
		return;
	s->gone_at = now + UNOTIFY_GONE_MS;
	/* Found first, closed after: closing takes them out of the
	 * queue. */
	ids = xreallocarray(NULL, len, sizeof *ids);
	for (size_t i = 0; i < len; i++) {
		const struct request *r = queue_at(s->queue, i);
		const struct parked *pk = queue_data(s->queue, r->id);

		if (pk != NULL && pk->ops->gone != NULL &&
		    pk->ops->gone(s, pk, now))
			ids[n++] = r->id;
	}
	for (size_t i = 0; i < n; i++)
		/* VERDICT_NONE: nobody decided (a refusal is not
		 * remembered); the record says denied. */
		resolve(s, ids[i], VERDICT_NONE, HOW_SUPERVISOR,
		    UNOTIFY_GONE_BY, NULL, true);
	free(ids);
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

void
unotify_shed(void)
{
	pages_release(argbuf, sizeof argbuf);
}
