/* SPDX-License-Identifier: MIT */
/*
 * Network egress (DESIGN §5). The sandbox's network namespace has only its
 * own loopback; a connection anywhere else is made by the supervisor, in
 * its own namespace, to the address copied out of the target, and swapped
 * into the target's fd (ADDFD with SETFD). What was approved is exactly
 * what is reached. Only stream sockets are swapped in: no host-side UDP
 * socket ever enters the sandbox.
 */
#include "supervisor/net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <linux/openat2.h>
#include <unistd.h>

#include "approvals/decide.h"
#include "approvals/netrules.h"
#include "config/util.h"
#include "supervisor/compat.h"
#include "supervisor/dns.h"
#include "supervisor/grants.h"
#include "supervisor/intercept.h"
#include "supervisor/sup.h"
#include "supervisor/target.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

#define CONNECT_TIMEOUT_MS	30000

/* A trapped connect, copied out; parked as a request of kind "connect". */
struct connect_call {
	int		 sockfd;	/* the target's fd */
	socklen_t	 salen;
	struct sockaddr_storage sa;	/* the copied address */
	char		*subject;	/* net_dest_describe() */
	char		*key;		/* net_dest_key(): a "for this run" grant */
	/* The TLS gate terminates it (intercept_covers): the name the
	 * policy judged (else the address) and the port, for GATE_CONN. */
	bool		 gate;
	char		*gate_host;
	unsigned	 port;
};

/* A lookup of a name nobody allowed, parked for a person. */
struct dns_ask {
	char		*name;
	pid_t		 pid;		/* who sent the query, 0: not told */
};

/* Our own handle on the target's socket (same open file description). */
static int
target_socket(pid_t tid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	int r;

	if (pidfd < 0)
		return -errno;
	r = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (r < 0)
		r = -errno;
	close(pidfd);
	return r;
}

/* Is the target's fd close-on-exec? From /proc/TID/fdinfo/FD "flags:". */
static bool
target_cloexec(pid_t tid, int fd)
{
	char file[32];
	unsigned long flags = 0;

	snprintf(file, sizeof file, "fdinfo/%d", fd);
	if (target_proc_field(tid, file, "flags", 8, &flags) < 0)
		return false;
	return (flags & O_CLOEXEC) != 0;
}


/* seq: the intent this outcome completes, 0 for a new row. */
static void
record(struct sup *s, int64_t seq, pid_t pid, const char *subject,
    const char *detail, enum verdict v, enum how how, const char *rule,
    const char *by)
{
	struct sup_what w = {
		.pid = pid, .kind = KIND_CONNECT, .syscall = "connect",
		.subject = subject, .detail = detail,
	};

	sup_done(s, seq, &w, v, how, rule, by, 0, 0);
}

/* A policy allow, in the record before the connection is made. */
static int
intent(struct sup *s, pid_t pid, const char *subject, enum how how,
    const char *rule, int64_t *seq)
{
	struct sup_what w = {
		.pid = pid, .kind = KIND_CONNECT, .syscall = "connect",
		.subject = subject,
	};

	return sup_intent(s, &w, VERDICT_ALLOW, how, rule, "policy", 0, 0,
	    seq);
}


#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* The network namespace a socket belongs to, by cookie (no capability
 * needed); 0 if unknown. */
static uint64_t
netns_cookie(int fd)
{
	uint64_t c = 0;
	socklen_t l = sizeof c;

	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &l) < 0)
		return 0;
	return c;
}

/* Remember the sandbox's namespace: the DNS stub's sockets were made
 * in it. */
void
net_learn_netns(struct sup *s, int fd_inside)
{
	s->netns_cookie = netns_cookie(fd_inside);
}

/*
 * Is the target's socket one of the sandbox's own namespace? A socket
 * the supervisor swapped in lives in the host's: nothing but the
 * connection that was approved may be done with it (no disconnect and
 * reconnect, no bind, no listen).
 */
static bool
sock_inside(const struct sup *s, int copy)
{
	uint64_t c = netns_cookie(copy);

	return c != 0 && c == s->netns_cookie;
}

/* The mounts that belong to this run alone: a unix socket there is the
 * sandbox's own; anywhere else (read-only host folders, --in, writable
 * host folders) it may be a host daemon's. */
static bool
on_private_mount(const struct sup *s, int fd)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(s->private_mnt); i++)
		if (s->private_mnt[i] != 0 && s->private_mnt[i] == sx.stx_mnt_id)
			return true;
	return false;
}

void
net_learn_mounts(struct sup *s)
{
	static const char *const run[] = { "work", "out", "tmp", "dev/shm" };
	/* A container's root ("") and its usual tmpfs folders; a socket
	 * bound in from the host (docker.sock) is a mount of its own. */
	static const char *const container[] = { "", "tmp", "run", "dev/shm" };
	const char *const *own = s->oci ? container : run;

	_Static_assert(ARRAY_SIZE(run) == ARRAY_SIZE(container),
	    "one list as long as the other");

	for (size_t i = 0; i < ARRAY_SIZE(run) &&
	    i < ARRAY_SIZE(s->private_mnt); i++) {
		struct statx sx;

		if (statx(s->rootfd, own[i], AT_NO_AUTOMOUNT |
		    (own[i][0] == '\0' ? AT_EMPTY_PATH : 0), STATX_MNT_ID,
		    &sx) == 0 && (sx.stx_mask & STATX_MNT_ID))
			s->private_mnt[i] = sx.stx_mnt_id;
	}
}

/* The socket file a path-named unix address leads to, opened O_PATH in
 * the sandbox's root; -errno. */
static int
unix_target(const struct sup *s, pid_t pid, const struct sockaddr_un *un,
    size_t len)
{
	char path[sizeof un->sun_path + 1];
	size_t n = len - offsetof(struct sockaddr_un, sun_path);
	int fd;

	if (n > sizeof un->sun_path)
		n = sizeof un->sun_path;
	memcpy(path, un->sun_path, n);
	path[n] = '\0';
	fd = target_open(s->rootfd, pid, path, O_PATH);
	return fd == -ESRCH ? -ENOENT : fd;
}

static bool
unix_abstract(const struct sockaddr_un *un, size_t len)
{
	return len > offsetof(struct sockaddr_un, sun_path) &&
	    un->sun_path[0] == '\0';
}

static void
refuse(struct sup *s, const struct seccomp_notif *req, int err,
    const char *syscall, const char *subject, const char *detail,
    const char *rule)
{
	struct sup_what w = {
		.pid = (pid_t)req->pid, .kind = KIND_CONNECT,
		.syscall = syscall, .subject = subject, .detail = detail,
	};

	sup_respond(s, req->id, -err, 0);
	sup_record(s, &w, VERDICT_DENY, HOW_FLOOR, rule, "floor", 0, 0);
}


/*
 * The target's own socket (copy shares its file description) connected
 * by us to the address we judged: what continuing would do, without
 * letting the kernel read an address a thread may have changed since.
 * Never blocks the loop: the blocking mode is put back at once.
 */
static int
connect_copy(int copy, const struct sockaddr *sa, socklen_t len)
{
	int fl = fcntl(copy, F_GETFL), r;

	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(copy, F_SETFL, fl | O_NONBLOCK);
	r = connect(copy, sa, len) < 0 ? -errno : 0;
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(copy, F_SETFL, fl);
	return r;
}

/* A connect inside the namespace: continued in a run (its empty
 * namespace is the floor), done by us on the target's socket in a
 * container's (above no floor of ours). */
static void
connect_inside(struct sup *s, const struct seccomp_notif *req,
    const struct connect_call *c, int copy)
{
	if (s->oci)
		sup_respond(s, req->id, connect_copy(copy, (const struct
		    sockaddr *)&c->sa, c->salen), 0);
	else
		sup_continue(s, req->id);
}

/*
 * connect to a path-named unix socket: only to one on the run's own
 * mounts, and made by us on the file we judged (continuing would let the
 * kernel read a path a thread may have changed). 0 when answered.
 */
static void
unix_connect(struct sup *s, const struct seccomp_notif *req,
    const struct connect_call *c, int copy)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)&c->sa;
	cleanup_fd int fd = -1;
	struct sockaddr_un via = { .sun_family = AF_UNIX };
	char subject[PATH_MAX];

	if (unix_abstract(un, c->salen)) {
		/* The abstract namespace is the network namespace's. */
		connect_inside(s, req, c, copy);
		return;
	}
	snprintf(subject, sizeof subject, "unix:%.*s",
	    (int)(c->salen - offsetof(struct sockaddr_un, sun_path)),
	    un->sun_path);
	if ((fd = unix_target(s, (pid_t)req->pid, un, c->salen)) < 0) {
		sup_respond(s, req->id, fd, 0);
		return;
	}
	if (!on_private_mount(s, fd)) {
		refuse(s, req, ECONNREFUSED, "connect", subject, NULL,
		    "a unix socket outside the run's own folders (a host's)");
		return;
	}
	snprintf(via.sun_path, sizeof via.sun_path, "/proc/self/fd/%d", fd);
	sup_respond(s, req->id, connect_copy(copy, (struct sockaddr *)&via,
	    sizeof via), 0);
}

/* bind and listen: only on the sandbox's own sockets. */
void
net_on_bind(struct sup *s, const struct seccomp_notif *req)
{
	cleanup_fd int copy = target_socket((pid_t)req->pid,
	    (int)req->data.args[0]);
	const char *name = req->data.nr == SYS_bind ? "bind" : "listen";

	if (copy < 0) {
		sup_respond(s, req->id, -EBADF, 0);
		return;
	}
	if (!sock_inside(s, copy)) {
		refuse(s, req, EACCES, name, "a connection made for the sandbox",
		    NULL, "a swapped-in connection cannot bind or listen");
		return;
	}
	sup_continue(s, req->id);
}

static void
blocking(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, on ? (fl & ~O_NONBLOCK) : (fl | O_NONBLOCK));
}

/*
 * An intercepted connection (issue 19): the target gets the client end
 * of a loopback pair in the supervisor's namespace, the gate its server
 * end and hostfd, the connection to the real host (still connecting:
 * the gate waits for it). Answered here, at once: the pair is up.
 */
static int
gate_swap(struct sup *s, uint64_t id, const struct connect_call *c,
    int *hostfd, int domain, bool nonblock, bool cloexec, int64_t *result)
{
	cleanup_fd int client = -1, server = -1;
	int one = 1, r;

	if ((r = intercept_pair(s, domain, &client, &server)) < 0) {
		if (r == -EAFNOSUPPORT)
			sup_tell_denied(s, "an IPv6 socket to a host the TLS gate "
			    "intercepts, and no [::1] on this host for the gate");
		*result = r == -EAFNOSUPPORT ? -ENETUNREACH : -ECONNREFUSED;
		sup_respond(s, id, *result, 0);
		return 0;
	}
	/* The file we hand in carries the caller's blocking mode; the
	 * relay is the gate's, and small writes go out at once. */
	if (!nonblock)
		blocking(client, true);
	setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(*hostfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if ((r = sup_inject_fd(s, id, client, c->sockfd, cloexec)) < 0) {
		*result = r;
		sup_respond(s, id, r, 0);
		return 0;
	}
	r = intercept_conn(s, &server, hostfd, c->gate_host, c->port);
	*result = r < 0 ? -ECONNREFUSED : 0;
	sup_respond(s, id, *result, 0);
	return 0;
}

/*
 * Connect for the target: returns 1 when the answer waits for the
 * connection (a blocking caller), else 0 once answered. *result is what
 * the target was told (0, -EINPROGRESS or -errno).
 */
static int
net_swap(struct sup *s, uint64_t id, pid_t pid, const struct connect_call *c,
    int64_t *result)
{
	cleanup_fd int copy = -1, hostfd = -1;
	int domain = 0, proto = 0, one = 0, fl, cerr, r;
	socklen_t ol = sizeof domain;
	bool nonblock, cloexec;

	*result = -ECONNREFUSED;
	if ((copy = target_socket(pid, c->sockfd)) < 0) {
		*result = copy == -ESRCH ? -ECONNREFUSED : -EBADF;
		sup_respond(s, id, *result, 0);
		return 0;
	}
	getsockopt(copy, SOL_SOCKET, SO_DOMAIN, &domain, &ol);
	ol = sizeof proto;
	getsockopt(copy, SOL_SOCKET, SO_PROTOCOL, &proto, &ol);
	fl = fcntl(copy, F_GETFL);
	nonblock = fl >= 0 && (fl & O_NONBLOCK);
	cloexec = target_cloexec(pid, c->sockfd);

	hostfd = socket(domain, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    proto);
	if (hostfd < 0) {
		*result = -errno;
		sup_respond(s, id, *result, 0);
		return 0;
	}
	/* The options a client sets before connecting. */
	ol = sizeof one;
	if (getsockopt(copy, IPPROTO_TCP, TCP_NODELAY, &one, &ol) == 0 && one)
		setsockopt(hostfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	ol = sizeof one;
	if (getsockopt(copy, SOL_SOCKET, SO_KEEPALIVE, &one, &ol) == 0 && one)
		setsockopt(hostfd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);

	cerr = connect(hostfd, (const struct sockaddr *)&c->sa, c->salen) < 0 ?
	    errno : 0;
	if (cerr != 0 && cerr != EINPROGRESS) {
		*result = -cerr;
		sup_respond(s, id, *result, 0);
		return 0;
	}
	if (c->gate)
		return gate_swap(s, id, c, &hostfd, domain, nonblock, cloexec,
		    result);
	if (nonblock || cerr == 0) {
		/* The file we hand in carries the caller's blocking mode. */
		if (!nonblock)
			blocking(hostfd, true);
		if ((r = sup_inject_fd(s, id, hostfd, c->sockfd, cloexec)) < 0) {
			*result = r;
			sup_respond(s, id, r, 0);
			return 0;
		}
		*result = cerr == EINPROGRESS ? -EINPROGRESS : 0;
		sup_respond(s, id, *result, 0);
		return 0;
	}
	/* A blocking caller: park the answer until the connection is made,
	 * serving everything else meanwhile. */
	for (int i = 0; i < SUP_MAX_CONNS; i++) {
		struct pending_conn *pc = &s->conns[i];

		if (pc->hostfd >= 0)
			continue;
		pc->hostfd = steal_fd(&hostfd);
		pc->notif_id = id;
		pc->pid = pid;
		pc->target_fd = c->sockfd;
		pc->cloexec = cloexec;
		pc->deadline = now_mono_ms() + CONNECT_TIMEOUT_MS;
		*result = -EINPROGRESS;
		return 1;
	}
	*result = -EAGAIN;
	sup_respond(s, id, *result, 0);
	return 0;
}

size_t
net_pollfds(struct sup *s, struct pollfd *p, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < SUP_MAX_CONNS && n < max; i++)
		if (s->conns[i].hostfd >= 0)
			p[n++] = (struct pollfd){ s->conns[i].hostfd, POLLOUT, 0 };
	return n;
}

static void
conn_done(struct sup *s, struct pending_conn *pc, int err)
{
	uint64_t id = pc->notif_id;

	if (err == 0) {
		blocking(pc->hostfd, true);
		err = -sup_inject_fd(s, id, pc->hostfd, pc->target_fd,
		    pc->cloexec);
	}
	sup_respond(s, id, -err, 0);
	closep(&pc->hostfd);
}

static void
conn_on_ready(struct sup *s, struct pending_conn *pc, short revents)
{
	int err = 0;
	socklen_t l = sizeof err;

	if (!(revents & (POLLOUT | POLLERR | POLLHUP)))
		return;
	if (getsockopt(pc->hostfd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		err = errno;
	conn_done(s, pc, err);
}

void
net_on_ready(struct sup *s, const struct pollfd *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i].revents == 0)
			continue;
		/* By fd: an earlier answer this round may have freed a slot. */
		for (int j = 0; j < SUP_MAX_CONNS; j++)
			if (s->conns[j].hostfd == p[i].fd) {
				conn_on_ready(s, &s->conns[j], p[i].revents);
				break;
			}
	}
}

void
net_tick(struct sup *s, int64_t now)
{
	for (int i = 0; i < SUP_MAX_CONNS; i++) {
		struct pending_conn *pc = &s->conns[i];

		if (pc->hostfd < 0)
			continue;
		/* The caller died or was killed while we connected. */
		if (!sup_id_valid(s, pc->notif_id)) {
			closep(&pc->hostfd);
			continue;
		}
		if (now >= pc->deadline)
			conn_done(s, pc, ETIMEDOUT);
	}
}

int64_t
net_next_deadline(const struct sup *s)
{
	int64_t next = 0;

	for (int i = 0; i < SUP_MAX_CONNS; i++)
		if (s->conns[i].hostfd >= 0) {
			/* Check ID_VALID at least once a second. */
			int64_t d = s->conns[i].deadline;
			int64_t soon = now_mono_ms() + 1000;

			if (soon < d)
				d = soon;
			if (next == 0 || d < next)
				next = d;
		}
	return next;
}

/* Connect an approved call for the target (no answer waits: a blocking
 * caller's answer comes when the connection is up). */
static int64_t
allow(struct sup *s, const struct parked *pk)
{
	int64_t r;

	(void)net_swap(s, pk->req.id, (pid_t)pk->req.pid, pk->connect, &r);
	return r == -EINPROGRESS ? 0 : r;
}

static void
record_answer(struct sup *s, const struct parked *pk, enum verdict v,
    enum how how, const char *rule, const char *by, int64_t wait_ms,
    uint64_t request)
{
	char detail[32];
	struct sup_what w = {
		.pid = (pid_t)pk->req.pid, .kind = KIND_CONNECT,
		.syscall = "connect", .subject = pk->connect->subject,
		.detail = detail,
	};

	snprintf(detail, sizeof detail, "tcp, fd %d", pk->connect->sockfd);
	sup_done(s, pk->seq, &w, v, how, rule, by, wait_ms, request);
}

static enum verdict
connect_resolve(struct sup *s, struct parked *pk, enum verdict v,
    enum how how, const char *by, const char *reason, int64_t wait_ms,
    uint64_t request)
{
	enum verdict done = sup_answer(s, pk, v, how, by, wait_ms, request,
	    ECONNREFUSED, allow, reason);

	if (done == VERDICT_NONE)
		/* The process went away while the person thought. */
		record_answer(s, pk, VERDICT_DENY, HOW_SUPERVISOR, NULL,
		    "target gone", wait_ms, request);
	else
		record_answer(s, pk, done, how, reason, by, wait_ms, request);
	return done;
}

/* "For this run": a connect is remembered by its grant key (name:port),
 * not its subject, which names the address too. */
static void
connect_remember(struct sup *s, const struct parked *pk,
    const struct request *r, enum verdict v)
{
	(void)r;
	answers_add(s->answers, KIND_CONNECT, pk->connect->key, v);
}

static void
connect_free(struct parked *pk)
{
	if (pk->connect == NULL)
		return;
	free(pk->connect->subject);
	free(pk->connect->key);
	free(pk->connect->gate_host);
	free(pk->connect);
	pk->connect = NULL;
}

static const char *
connect_grant(const struct parked *pk)
{
	return pk->connect->key;
}

static const struct kind_ops connect_ops = {
	.resolve = connect_resolve,
	.remember = connect_remember,
	.grant = connect_grant,
	.free = connect_free,
	.gone = sup_call_gone,
};

static void
park(struct sup *s, const struct seccomp_notif *req, struct connect_call *c,
    const char *why)
{
	struct parked *pk = xcalloc(1, sizeof *pk);
	char detail[32];
	struct sup_what w = {
		.pid = (pid_t)req->pid, .kind = KIND_CONNECT,
		.syscall = "connect", .subject = c->subject, .detail = detail,
	};

	snprintf(detail, sizeof detail, "tcp, fd %d", c->sockfd);
	pk->req = *req;
	pk->ops = &connect_ops;
	pk->connect = xmalloc(sizeof *pk->connect);
	*pk->connect = *c;
	c->subject = c->key = c->gate_host = NULL;	/* moved */
	sup_park(s, pk, &w, why);
}

/* An intercepted host while the gate is gone: refused, and why. */
static bool
gate_gone(struct sup *s, const struct seccomp_notif *req, const char *subject)
{
	const char *why = NULL;

	if (intercept_alive(s, &why))
		return false;
	sup_respond(s, req->id, -ECONNREFUSED, 0);
	record(s, 0, (pid_t)req->pid, subject, why, VERDICT_DENY,
	    HOW_SUPERVISOR, "a host the TLS gate intercepts", "supervisor");
	sup_tell_denied(s, why);
	return true;
}

/*
 * The decision for a connect to an inet address outside the sandbox:
 * DESIGN §7's order, as approvals/decide.c writes it once; here only the
 * acting on it. Returns 1 when it must be parked as a request (*why says
 * why), 0 when answered here.
 */
static int
decide(struct sup *s, const struct seccomp_notif *req, struct connect_call *c,
    struct net_dest *d, int type, char **why)
{
	pid_t pid = (pid_t)req->pid;
	const char *subject = c->subject, *manager = NULL;
	struct decide_in in = { .policy = &s->policy, .rules = s->rules,
	    .answers = s->answers, .now_ms = now_mono_ms() };
	struct decision dc;
	int64_t result, seq = 0;
	int r;

	/* Whether an approved install's process tree covers d is a fact of
	 * /proc, not of the policy: found here, passed in. */
	if (type == SOCK_STREAM)
		(void)grants_allow(s, pid, d, &manager);
	dc = decide_connect(&in, d, type == SOCK_STREAM, manager);
	switch (dc.verdict) {
	case VERDICT_ALLOW:
		if (!sup_id_valid(s, req->id))
			break;
		if (c->gate && gate_gone(s, req, subject))
			break;
		if (intent(s, pid, subject, dc.how, dc.rule, &seq) < 0) {
			/* Fail closed: the record cannot hold it. */
			sup_respond(s, req->id, -ECONNREFUSED, 0);
			record(s, seq, pid, subject, NULL, VERDICT_DENY,
			    HOW_SUPERVISOR, "the record cannot be written",
			    "supervisor");
			break;
		}
		r = net_swap(s, req->id, pid, c, &result);
		record(s, seq, pid, subject, r == 1 ? "connecting" : NULL,
		    result == 0 || result == -EINPROGRESS ? VERDICT_ALLOW :
		    VERDICT_DENY, dc.how, dc.rule, "policy");
		break;
	case VERDICT_DENY:
		/* The floor: a host-side UDP socket could send anywhere,
		 * names go through the DNS stub instead. */
		sup_respond(s, req->id, dc.step == DECIDE_FLOOR ?
		    -ENETUNREACH : -ECONNREFUSED, 0);
		record(s, 0, pid, subject, dc.step == DECIDE_NEVER ?
		    "never reachable" : dc.step == DECIDE_FLOOR ?
		    "datagram socket" : NULL, VERDICT_DENY, dc.how, dc.rule,
		    dc.step == DECIDE_FLOOR ? "floor" : "policy");
		break;
	case VERDICT_ASK:
	case VERDICT_NONE:
	case VERDICT_KILL:
	case VERDICT_STAGE:
		*why = steal_ptr(&dc.rule);
		decision_done(&dc);
		return 1;
	}
	decision_done(&dc);
	return 0;
}

/*
 * The socket and the address, judged by what they are: a connection we
 * made (never reconnected), unix (own mounts only), the sandbox's own
 * namespace, its loopback. Returns 1 when the rules must decide (d
 * filled in, *type the socket's), 0 when answered here.
 */
static int
floor_check(struct sup *s, const struct seccomp_notif *req,
    const struct connect_call *c, struct net_dest *d, int *type)
{
	cleanup_fd int copy = -1;
	socklen_t tl = sizeof *type;

	if ((copy = target_socket((pid_t)req->pid, c->sockfd)) < 0 ||
	    getsockopt(copy, SOL_SOCKET, SO_TYPE, type, &tl) < 0) {
		sup_respond(s, req->id, -EBADF, 0);
		return 0;
	}
	/* A connection we made for it lives in the host's namespace:
	 * disconnecting (AF_UNSPEC) and connecting it elsewhere would be a
	 * host socket of its own. */
	if (!sock_inside(s, copy)) {
		refuse(s, req, c->sa.ss_family == AF_UNSPEC ? EOPNOTSUPP :
		    EISCONN, "connect", "a connection made for the sandbox",
		    c->sa.ss_family == AF_UNSPEC ? "disconnect" : "reconnect",
		    "a swapped-in connection stays where it was approved to");
		return 0;
	}
	switch (c->sa.ss_family) {
	case AF_UNIX:
		unix_connect(s, req, c, copy);
		return 0;
	case AF_UNSPEC:
	case AF_NETLINK:
		/* Inside the sandbox's own namespace. */
		connect_inside(s, req, c, copy);
		return 0;
	case AF_INET:
	case AF_INET6:
		break;
	default:
		refuse(s, req, EAFNOSUPPORT, "connect", "another address family",
		    NULL, "only unix, inet, inet6 and netlink sockets");
		return 0;
	}
	if (net_dest_from_sockaddr(&c->sa, c->salen, d) < 0) {
		sup_respond(s, req->id, -EINVAL, 0);
		return 0;
	}
	if (net_dest_loopback(d) && !s->oci) {
		/* The sandbox's own loopback. */
		sup_continue(s, req->id);
		return 0;
	}
	if (net_dest_loopback(d) && s->oci_own_netns) {
		/* A container's own loopback: a stream connected by us in
		 * its namespace and handed in, a datagram socket connected
		 * by us (the host's loopback, when it shares the host's
		 * namespace, is judged as any address). */
		int64_t result;

		if (*type == SOCK_STREAM)
			(void)net_swap(s, req->id, (pid_t)req->pid, c, &result);
		else
			sup_respond(s, req->id, connect_copy(copy, (const struct
			    sockaddr *)&c->sa, c->salen), 0);
		return 0;
	}
	return 1;
}

void
net_on_connect(struct sup *s, const struct seccomp_notif *req)
{
	struct connect_call c = { .sockfd = (int)req->data.args[0] };
	size_t len = req->data.args[2];
	struct net_dest d;
	cleanup_free char *why = NULL;
	int type = 0;

	if (len > sizeof c.sa)
		len = sizeof c.sa;
	c.salen = (socklen_t)len;
	if (len < sizeof(sa_family_t) || target_read((pid_t)req->pid,
	    req->data.args[1], &c.sa, len) < 0) {
		sup_respond(s, req->id, -EFAULT, 0);
		return;
	}
	if (floor_check(s, req, &c, &d, &type) == 0)
		return;
	d.name = s->dns != NULL ? dns_name_of(s->dns, d.family, d.addr) : NULL;
	c.subject = net_dest_describe(&d);
	c.key = net_dest_key(&d);
	if (type == SOCK_STREAM && s->gate != NULL && intercept_covers(s, &d)) {
		char addr[INET6_ADDRSTRLEN] = "?";

		inet_ntop(d.family, d.addr, addr, sizeof addr);
		c.gate = true;
		c.gate_host = xstrdup(d.name != NULL ? d.name : addr);
		c.port = d.port;
	}
	if (decide(s, req, &c, &d, type, &why) == 1 && sup_id_valid(s, req->id))
		park(s, req, &c, why);
	free(c.subject);
	free(c.key);
	free(c.gate_host);
}

/*
 * sendto with an address. Inside (unix sockets, the sandbox's loopback,
 * including the DNS stub) it goes on; a datagram for anywhere else never
 * leaves: the empty namespace would drop it, and we say so in the record.
 */
void
net_on_sendto(struct sup *s, const struct seccomp_notif *req)
{
	struct sockaddr_storage sa;
	size_t len = req->data.args[5];
	struct net_dest d;
	cleanup_free char *subject = NULL, *rule = NULL;
	bool never;

	if (len > sizeof sa)
		len = sizeof sa;
	memset(&sa, 0, sizeof sa);
	if (len < sizeof(sa_family_t) || target_read((pid_t)req->pid,
	    req->data.args[4], &sa, len) < 0) {
		sup_respond(s, req->id, -EFAULT, 0);
		return;
	}
	if (req->data.args[3] & MSG_FASTOPEN) {
		/* A connect in disguise, past the connect trap. */
		cleanup_free char *to = NULL;

		if (net_dest_from_sockaddr(&sa, len, &d) == 0)
			to = net_dest_describe(&d);
		refuse(s, req, EOPNOTSUPP, "sendto", to ? to : "TCP Fast Open",
		    "TCP Fast Open", "connections go through connect()");
		return;
	}
	if (sa.ss_family == AF_UNIX) {
		const struct sockaddr_un *un = (const struct sockaddr_un *)&sa;
		cleanup_fd int fd = -1;

		if (unix_abstract(un, len)) {
			sup_continue(s, req->id);
			return;
		}
		if ((fd = unix_target(s, (pid_t)req->pid, un, len)) < 0) {
			sup_respond(s, req->id, fd, 0);
			return;
		}
		if (!on_private_mount(s, fd)) {
			refuse(s, req, ECONNREFUSED, "sendto", "unix datagram",
			    NULL, "a unix socket outside the run's own folders");
			return;
		}
		sup_continue(s, req->id);
		return;
	}
	if (s->oci) {
		/* Continued, the kernel would read an address a thread may
		 * have changed; and nothing below ward bounds it. */
		refuse(s, req, sa.ss_family == AF_UNIX ? ECONNREFUSED :
		    ENETUNREACH, "sendto", "a datagram with an address", NULL,
		    "a container's datagrams with an address are not carried "
		    "yet: connect the socket first");
		return;
	}
	if (net_dest_from_sockaddr(&sa, len, &d) < 0 || net_dest_loopback(&d)) {
		sup_continue(s, req->id);
		return;
	}
	d.name = s->dns != NULL ? dns_name_of(s->dns, d.family, d.addr) : NULL;
	subject = net_dest_describe(&d);
	never = netrules_never(&s->policy, &d, &rule);
	sup_respond(s, req->id, -ENETUNREACH, 0);
	{
		struct sup_what w = {
			.pid = (pid_t)req->pid, .kind = KIND_CONNECT,
			.syscall = "sendto", .subject = subject,
			.detail = "datagram",
		};

		sup_record(s, &w, VERDICT_DENY, never ? HOW_POLICY : HOW_FLOOR,
		    never ? rule : "no host-side datagrams; names go through "
		    "the DNS stub", never ? "policy" : "floor", 0, 0);
	}
}

static void
dns_answered(struct sup *s, const char *name, bool allow);

static enum verdict
dns_ask_resolve(struct sup *s, struct parked *pk, enum verdict v, enum how how,
    const char *by, const char *reason, int64_t wait_ms, uint64_t request)
{
	enum verdict done = v == VERDICT_ALLOW ? VERDICT_ALLOW : VERDICT_DENY;
	struct sup_what w = {
		.pid = pk->dns->pid, .kind = KIND_DNS, .syscall = "dns",
		.subject = pk->dns->name,
	};
	int64_t seq = pk->seq;

	/* An approved name is looked up upstream: in the record first. */
	if (done == VERDICT_ALLOW && sup_intent(s, &w, VERDICT_ALLOW, how,
	    reason, by, wait_ms, request, &seq) < 0)
		done = VERDICT_DENY;
	if (v != VERDICT_NONE)
		dns_answered(s, pk->dns->name, done == VERDICT_ALLOW);
	else if (s->dns != NULL)
		/* Nobody waits and nobody decided: nothing remembered. */
		dns_answer(s->dns, pk->dns->name, false);
	sup_done(s, seq, &w, done, how, reason, by, wait_ms, request);
	return done;
}

static void
dns_ask_free(struct parked *pk)
{
	if (pk->dns != NULL)
		free(pk->dns->name);
	free(pk->dns);
	pk->dns = NULL;
}

/* Every client that asked for the name gave up (its resolver's time
 * is known: dns.h's DNS_CLIENT_GONE_MS). */
static bool
dns_ask_gone(struct sup *s, const struct parked *pk, int64_t now)
{
	return s->dns == NULL || dns_asker_gone(s->dns, pk->dns->name, now);
}

static const struct kind_ops dns_ops = {
	.gone = dns_ask_gone,
	.resolve = dns_ask_resolve,
	.remember = sup_remember,
	.free = dns_ask_free,
};

/* A secret's phantom in a name looked up: carried out by DNS it would
 * leave the sandbox to wherever the name's zone is served. */
static void
dns_phantom(struct sup *s, const char *name, const char *secret)
{
	cleanup_free char *detail = xasprintf("in dns: the name %s", name);

	intercept_secret_refused(s, secret, "dns", "dns", detail,
	    "in a DNS name", "policy");
}

/* The process whose socket sent the query being decided: the stub's peer
 * port looked up in the sandbox's own socket tables. 0 when it cannot be
 * told (gone, or a socket passed to a process that exited). */
static pid_t
dns_who(struct sup *s)
{
	struct sockaddr_storage ss;
	bool tcp = false;
	unsigned port;
	pid_t pid;

	if (s->dns == NULL || dns_asker(s->dns, &ss, &tcp) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		port = ntohs(((const struct sockaddr_in *)&ss)->sin_port);
	else if (ss.ss_family == AF_INET6)
		port = ntohs(((const struct sockaddr_in6 *)&ss)->sin6_port);
	else
		return 0;
	pid = target_socket_owner(s->sp.init_pid, tcp, port);
	return pid > 0 ? pid : 0;
}

static enum dns_decision
dns_decide(void *ctx, const char *name, int qtype)
{
	struct sup *s = ctx;
	struct parked *pk;
	const char *kinds = qtype == 28 ? "AAAA" : qtype == 1 ? "A" : "other";
	cleanup_free char *detail = NULL;
	struct sup_what w = {
		.kind = KIND_DNS, .syscall = "dns", .subject = name,
		.detail = kinds,
	};
	struct decide_in in = { .policy = &s->policy, .rules = s->rules,
	    .answers = s->answers, .now_ms = now_mono_ms() };
	struct decision dd;
	const char *secret = intercept_phantom_in(s, name);

	if (secret != NULL) {
		dns_phantom(s, name, secret);
		return DNS_DENY;
	}
	dd = decide_dns(&in, name, grants_allow_name(s, name));
	switch (dd.verdict) {
	case VERDICT_ALLOW:
		decision_done(&dd);
		return DNS_ALLOW;
	case VERDICT_DENY:
		/* A refusal for the run or of a moment ago was recorded
		 * when it was given; the policy's deny lines are not. */
		if (dd.step == DECIDE_DEFAULT || dd.step == DECIDE_POLICY)
			sup_record(s, &w, VERDICT_DENY, dd.how, dd.rule,
			    "policy", 0, 0);
		decision_done(&dd);
		return DNS_DENY;
	case VERDICT_ASK:
	case VERDICT_NONE:
	case VERDICT_KILL:
	case VERDICT_STAGE:
		break;
	}
	/* A lookup of an unknown name is a request too: DNS carries data
	 * out as well as any socket (DESIGN §5). */
	pk = xcalloc(1, sizeof *pk);
	pk->ops = &dns_ops;
	pk->dns = xcalloc(1, sizeof *pk->dns);
	pk->dns->name = xstrdup(name);
	w.detail = detail = xasprintf("lookup %s; approving lets the name "
	    "resolve for this run (connecting to it is asked apart)", kinds);
	/* Who asked: the process whose socket sent the query, with its
	 * command line and folder (sup_park reads them); the stub only
	 * when that cannot be told. */
	if ((w.pid = pk->dns->pid = dns_who(s)) == 0) {
		w.cmdline = "(the DNS stub: a process looked the name up)";
		w.cwd = "-";
	}
	sup_park(s, pk, &w, dd.rule);
	decision_done(&dd);
	return DNS_ASK;
}

static void
dns_answered(struct sup *s, const char *name, bool allow)
{
	/* An approved lookup holds for the run (the request says so); a
	 * refusal only for a moment. */
	if (allow)
		answers_add(s->answers, KIND_DNS, name, VERDICT_ALLOW);
	else
		answers_refuse(s->answers, KIND_DNS, 0, name,
		    now_mono_ms());
	if (s->dns != NULL)
		dns_answer(s->dns, name, allow);
}

int
net_dns_start(struct sup *s, int udp_fd, int tcp_fd, char **cause)
{

	struct dns_hooks hooks = {
		.decide = dns_decide,
		.resolved = NULL,
		.ctx = s,
	};

	return dns_new(udp_fd, tcp_fd, &hooks, &s->dns, cause);
}

/* sendmsg/sendmmsg with MSG_FASTOPEN (trapped only then). */
void
net_on_fastopen(struct sup *s, const struct seccomp_notif *req)
{
	refuse(s, req, EOPNOTSUPP, req->data.nr == SYS_sendmsg ? "sendmsg" :
	    "sendmmsg", "TCP Fast Open", NULL,
	    "connections go through connect()");
}
