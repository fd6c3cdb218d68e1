/*
 * Network egress (DESIGN §5). The sandbox's network namespace has only its
 * own loopback; a connection anywhere else is made by the supervisor, in
 * its own namespace, to the address copied out of the target, and swapped
 * into the target's fd (ADDFD with SETFD). What was approved is exactly
 * what is reached. Only stream sockets are swapped in: no host-side UDP
 * socket ever enters the sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "approvals/netrules.h"
#include "config/util.h"
#include "supervisor/compat.h"
#include "supervisor/dns.h"
#include "supervisor/sup.h"
#include "supervisor/target.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

#define CONNECT_TIMEOUT_MS	30000



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

static void
respond_val(struct sup *s, uint64_t id, int64_t val)
{
	memset(s->resp, 0, s->resp_size);
	s->resp->id = id;
	if (val < 0)
		s->resp->error = (int32_t)val;
	else
		s->resp->val = val;
	(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp);
}

/* Put hostfd in the target's place of fd, then answer val. */
static int
inject(struct sup *s, uint64_t id, int hostfd, int fd, bool cloexec)
{
	struct seccomp_notif_addfd a = {
		.id = id,
		.flags = SECCOMP_ADDFD_FLAG_SETFD,
		.srcfd = (uint32_t)hostfd,
		.newfd = (uint32_t)fd,
		.newfd_flags = cloexec ? O_CLOEXEC : 0,
	};

	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0)
		return -errno;
	return 0;
}

static void
record(struct sup *s, pid_t pid, const char *subject, const char *detail,
    enum verdict v, enum how how, const char *rule, const char *by)
{
	struct audit_event ev = {
		.run = s->id,
		.time_ms = now_wall_ms(),
		.pid = pid,
		.kind = KIND_CONNECT,
		.syscall = "connect",
		.subject = subject,
		.detail = detail,
		.verdict = v,
		.how = how,
		.rule = rule,
		.decided_by = by,
	};

	sup_event(s, &ev);
}

static void
blocking(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, on ? (fl & ~O_NONBLOCK) : (fl | O_NONBLOCK));
}

/*
 * Connect for the target: returns 1 when the answer waits for the
 * connection (a blocking caller), else 0 once answered. *result is what
 * the target was told (0, -EINPROGRESS or -errno).
 */
int
net_swap(struct sup *s, uint64_t id, pid_t pid, const struct call *c,
    int64_t *result)
{
	cleanup_fd int copy = -1, hostfd = -1;
	int domain = 0, proto = 0, one = 0, fl, cerr, r;
	socklen_t ol = sizeof domain;
	bool nonblock, cloexec;

	*result = -ECONNREFUSED;
	if ((copy = target_socket(pid, c->sockfd)) < 0) {
		*result = copy == -ESRCH ? -ECONNREFUSED : -EBADF;
		respond_val(s, id, *result);
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
		respond_val(s, id, *result);
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
		respond_val(s, id, *result);
		return 0;
	}
	if (nonblock || cerr == 0) {
		/* The file we hand in carries the caller's blocking mode. */
		if (!nonblock)
			blocking(hostfd, true);
		if ((r = inject(s, id, hostfd, c->sockfd, cloexec)) < 0) {
			*result = r;
			respond_val(s, id, r);
			return 0;
		}
		*result = cerr == EINPROGRESS ? -EINPROGRESS : 0;
		respond_val(s, id, *result);
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
	respond_val(s, id, *result);
	return 0;
}

size_t
net_pollfds(struct sup *s, struct pollfd *p, int *slot, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < SUP_MAX_CONNS && n < max; i++)
		if (s->conns[i].hostfd >= 0) {
			p[n] = (struct pollfd){ s->conns[i].hostfd, POLLOUT, 0 };
			slot[n++] = i;
		}
	return n;
}

static void
conn_done(struct sup *s, struct pending_conn *pc, int err)
{
	uint64_t id = pc->notif_id;

	if (err == 0) {
		blocking(pc->hostfd, true);
		err = -inject(s, id, pc->hostfd, pc->target_fd, pc->cloexec);
	}
	respond_val(s, id, -err);
	closep(&pc->hostfd);
}

void
net_on_ready(struct sup *s, int slot, short revents)
{
	struct pending_conn *pc = &s->conns[slot];
	int err = 0;
	socklen_t l = sizeof err;

	if (!(revents & (POLLOUT | POLLERR | POLLHUP)))
		return;
	if (getsockopt(pc->hostfd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		err = errno;
	conn_done(s, pc, err);
}

void
net_tick(struct sup *s)
{
	int64_t now = now_mono_ms();

	for (int i = 0; i < SUP_MAX_CONNS; i++) {
		struct pending_conn *pc = &s->conns[i];

		if (pc->hostfd < 0)
			continue;
		/* The caller died or was killed while we connected. */
		if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID,
		    &pc->notif_id) < 0) {
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

static bool
granted(const struct sup *s, const char *key)
{
	for (size_t i = 0; i < s->n_net_grants; i++)
		if (strcmp(s->net_grants[i], key) == 0)
			return true;
	return false;
}

void
net_grant(struct sup *s, const char *key)
{
	if (!granted(s, key))
		strv_push(&s->net_grants, &s->n_net_grants, xstrdup(key));
}

/*
 * A trapped connect (c has sa/salen/sockfd). Returns 1 when the caller
 * must park it as a request, 0 when answered here.
 */
int
net_on_connect(struct sup *s, const struct seccomp_notif *req,
    struct call *c, char **why)
{
	pid_t pid = (pid_t)req->pid;
	struct net_dest d;
	cleanup_fd int copy = -1;
	cleanup_free char *subject = NULL, *rule = NULL, *key = NULL;
	int type = 0, r;
	socklen_t tl = sizeof type;
	int64_t result;

	if (net_dest_from_sockaddr(&c->sa, c->salen, &d) < 0 ||
	    net_dest_loopback(&d)) {
		/* Unix sockets, AF_UNSPEC, the sandbox's own loopback: the
		 * empty namespace keeps them inside. */
		memset(s->resp, 0, s->resp_size);
		s->resp->id = req->id;
		s->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp);
		return 0;
	}
	d.name = s->dns != NULL ? dns_name_of(s->dns, d.family, d.addr) : NULL;
	subject = net_dest_describe(&d);
	key = net_dest_key(&d);
	snprintf(c->path, sizeof c->path, "%s", subject);
	snprintf(c->raw2, sizeof c->raw2, "%s", key);

	if ((copy = target_socket(pid, c->sockfd)) < 0 ||
	    getsockopt(copy, SOL_SOCKET, SO_TYPE, &type, &tl) < 0) {
		respond_val(s, req->id, -EBADF);
		return 0;
	}
	if (netrules_never(&s->policy, &d, &rule)) {
		respond_val(s, req->id, -ECONNREFUSED);
		record(s, pid, subject, "never reachable", VERDICT_DENY,
		    HOW_POLICY, rule, "policy");
		return 0;
	}
	if (type != SOCK_STREAM) {
		/* A host-side UDP socket could send anywhere: names go
		 * through the DNS stub instead. */
		respond_val(s, req->id, -ENETUNREACH);
		record(s, pid, subject, "datagram socket", VERDICT_DENY,
		    HOW_FLOOR, "no host-side datagram sockets", "floor");
		return 0;
	}
	{
		const char *manager = NULL;

		if (rule == NULL && install_allows(s, pid, &d, &manager))
			rule = xasprintf("registry of an approved %s install",
			    manager);
	}
	if (rule != NULL || granted(s, key) ||
	    netrules_allowed(&s->policy, &d, &rule)) {
		enum how how = rule == NULL ? HOW_RUN_RULE :
		    strncmp(rule, "registry", 8) == 0 ? HOW_RUN_RULE : HOW_POLICY;

		if (!(ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID,
		    &req->id) == 0))
			return 0;
		r = net_swap(s, req->id, pid, c, &result);
		record(s, pid, subject, r == 1 ? "connecting" : NULL,
		    result == 0 || result == -EINPROGRESS ? VERDICT_ALLOW :
		    VERDICT_DENY, how, rule ? rule : "allowed for this run",
		    "policy");
		return 0;
	}
	if (s->policy.connect == POLICY_DENY) {
		respond_val(s, req->id, -ECONNREFUSED);
		record(s, pid, subject, NULL, VERDICT_DENY, HOW_DEFAULT,
		    "[network] connect = deny", "policy");
		return 0;
	}
	*why = xasprintf("no rule matches; [network] connect = ask; "
	    "approving for the run adds: allow %s", key);
	return 1;
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
		respond_val(s, req->id, -EFAULT);
		return;
	}
	if (net_dest_from_sockaddr(&sa, len, &d) < 0 || net_dest_loopback(&d)) {
		memset(s->resp, 0, s->resp_size);
		s->resp->id = req->id;
		s->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp);
		return;
	}
	d.name = s->dns != NULL ? dns_name_of(s->dns, d.family, d.addr) : NULL;
	subject = net_dest_describe(&d);
	never = netrules_never(&s->policy, &d, &rule);
	respond_val(s, req->id, -ENETUNREACH);
	{
		struct audit_event ev = {
			.run = s->id, .time_ms = now_wall_ms(),
			.pid = (pid_t)req->pid, .kind = KIND_CONNECT,
			.syscall = "sendto", .subject = subject,
			.detail = "datagram", .verdict = VERDICT_DENY,
			.how = never ? HOW_POLICY : HOW_FLOOR,
			.rule = never ? rule : "no host-side datagrams; "
			    "names go through the DNS stub",
			.decided_by = never ? "policy" : "floor",
		};

		sup_event(s, &ev);
	}
}

static bool
name_allowed(const struct sup *s, const char *name)
{
	struct net_dest d = { .family = AF_INET, .name = name };

	for (size_t i = 0; i < s->n_dns_grants; i++)
		if (strcasecmp(s->dns_grants[i], name) == 0)
			return true;
	/* A name the policy allows on any port may be looked up. */
	for (size_t i = 0; i < s->policy.n_net_allow; i++) {
		struct policy_host h = s->policy.net_allow[i];

		h.port_lo = 0;
		h.port_hi = 65535;
		if (netrules_entry_match(&h, &d))
			return true;
	}
	return false;
}

static enum dns_decision
dns_decide(void *ctx, const char *name, int qtype)
{
	struct sup *s = ctx;
	struct request *r;
	struct parked *pk;
	const char *kinds = qtype == 28 ? "AAAA" : qtype == 1 ? "A" : "other";

	if (name_allowed(s, name) || install_allows_name(s, name))
		return DNS_ALLOW;
	/* One lookup asks for A and AAAA, and resolvers retry: a name just
	 * refused stays refused for a moment rather than asking again. */
	for (size_t i = 0; i < SUP_DNS_DENIED; i++)
		if (s->dns_denied[i].until > now_mono_ms() &&
		    strcasecmp(s->dns_denied[i].name, name) == 0)
			return DNS_DENY;
	if (s->policy.connect == POLICY_DENY) {
		struct audit_event ev = {
			.run = s->id, .time_ms = now_wall_ms(),
			.kind = KIND_DNS, .syscall = "dns", .subject = name,
			.detail = kinds, .verdict = VERDICT_DENY,
			.how = HOW_DEFAULT, .rule = "[network] connect = deny",
			.decided_by = "policy",
		};

		sup_event(s, &ev);
		return DNS_DENY;
	}
	/* A lookup of an unknown name is a request too: DNS carries data
	 * out as well as any socket (DESIGN §5). */
	pk = xcalloc(1, sizeof *pk);
	pk->call.op = OP_DNS;
	pk->call.name = "dns";
	snprintf(pk->call.path, sizeof pk->call.path, "%s", name);
	pk->asked_ms = now_mono_ms();
	r = request_new();
	r->id = ++s->next_request;
	r->run = xstrdup(s->id);
	r->kind = KIND_DNS;
	r->syscall = xstrdup("dns");
	r->subject = xstrdup(name);
	r->detail = xasprintf("lookup %s; approving lets the name resolve for "
	    "this run (connecting to it is asked apart)", kinds);
	r->cmdline = xstrdup("(the DNS stub: a process looked the name up)");
	r->cwd = xstrdup("-");
	r->why = xasprintf("no [network] allow names %s", name);
	r->created_ms = now_wall_ms();
	r->deadline_ms = r->created_ms + (int64_t)s->policy.ask_timeout * 1000;
	unotify_park_request(s, r, pk);
	return DNS_ASK;
}

void
net_dns_answered(struct sup *s, const char *name, bool allow)
{
	if (allow && !name_allowed(s, name))
		strv_push(&s->dns_grants, &s->n_dns_grants, xstrdup(name));
	if (!allow) {
		size_t oldest = 0;

		for (size_t i = 1; i < SUP_DNS_DENIED; i++)
			if (s->dns_denied[i].until < s->dns_denied[oldest].until)
				oldest = i;
		snprintf(s->dns_denied[oldest].name,
		    sizeof s->dns_denied[oldest].name, "%s", name);
		s->dns_denied[oldest].until = now_mono_ms() + SUP_DNS_DENIED_MS;
	}
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
