/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's end of the wire to ward-gate (gatewire.h): datagrams
 * of one fixed size, the gate's start, and the loopback pairs.
 */
#include "supervisor/gatewire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/util.h"

void
gatewire_ready_done(struct gatewire_ready *r)
{
	for (size_t i = 0; i < r->n_phantoms; i++) {
		free(r->phantoms[i].name);
		free(r->phantoms[i].value);
	}
	free(r->phantoms);
	free(r->ca);
	free(r->bundle);
	closep(&r->wire);
	*r = (struct gatewire_ready){ .pid = r->pid, .wire = -1 };
}

/* A phantom is put in the sandbox's environment: "ward-phantom-" and
 * hex digits, nothing else. A gate that announced anything else (the
 * value itself, by a bug) would put it where the program reads it. */
static bool
phantom_ok(const struct gate_msg *m)
{
	static const char prefix[] = "ward-phantom-";
	size_t n = strlen(prefix), digits;

	if (m->name[0] == '\0' || strchr(m->name, '=') != NULL ||
	    strncmp(m->text, prefix, n) != 0)
		return false;
	digits = strspn(m->text + n, "0123456789abcdef");
	return digits >= 8 && m->text[n + digits] == '\0';
}

/* One start-up message: 1 when READY, 0 to read on, -errno. */
static int
start_msg(const struct gate_msg *m, struct gatewire_ready *r, char **cause)
{
	switch ((enum gate_type)m->type) {
	case GATE_PHANTOM:
		if (!phantom_ok(m)) {
			set_cause(cause, "ward-gate: a phantom that is no "
			    "plain token (for %s)", m->name);
			return -EPROTO;
		}
		r->phantoms = xreallocarray(r->phantoms, r->n_phantoms + 1,
		    sizeof *r->phantoms);
		r->phantoms[r->n_phantoms++] = (struct gatewire_phantom){
			xstrdup(m->name), xstrdup(m->text),
		};
		return 0;
	case GATE_READY:
		if (m->path[0] != '/' || m->text[0] != '/') {
			set_cause(cause, "ward-gate: ready without its CA "
			    "and bundle files");
			return -EPROTO;
		}
		r->ca = xstrdup(m->path);
		r->bundle = xstrdup(m->text);
		return 1;
	case GATE_FAIL:
		set_cause(cause, "%s", m->text[0] != '\0' ? m->text :
		    "ward-gate failed to start");
		return -EINVAL;
	case GATE_CONN:
	case GATE_ASK:
	case GATE_ANSWER:
	case GATE_HTTP:
	case GATE_SECRET:
	case GATE_ERROR:
	case GATE_REFRESH:
		break;
	}
	set_cause(cause, "ward-gate: message %u before it was ready",
	    (unsigned)m->type);
	return -EPROTO;
}

int
gatewire_read_start(int wire, int timeout_ms, struct gatewire_ready *ret,
    char **cause)
{
	int64_t end = now_mono_ms() + timeout_ms;

	for (;;) {
		struct gate_msg m;
		int fds[GATE_MAX_FDS];
		size_t n_fds = 0;
		struct pollfd p = { wire, POLLIN, 0 };
		int64_t left = end - now_mono_ms();
		int r;

		r = gate_msg_recv(wire, &m, fds, 0, &n_fds);
		if (r == 0) {
			if ((r = start_msg(&m, ret, cause)) != 0)
				return r < 0 ? r : 0;
			continue;
		}
		if (r == -EPIPE) {
			set_cause(cause, "ward-gate ended before it was ready");
			return r;
		}
		if (r != -EAGAIN) {
			set_cause(cause, "ward-gate's start-up: %s",
			    r == -EPROTO ? "a malformed message" :
			    strerror(-r));
			return r;
		}
		if (left <= 0) {
			set_cause(cause, "ward-gate was not ready after %d s "
			    "(a [secret]'s from = command: waiting?)",
			    timeout_ms / 1000);
			return -ETIMEDOUT;
		}
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
			set_cause(cause, "poll: %s", strerror(errno));
			return -errno;
		}
	}
}

/*
 * The gate, between fork and exec: async-signal-safe calls only, and
 * _exit on any failure (the supervisor sees the wire close).
 */
static void __attribute__((noreturn))
child(int theirs, const char *exe, const char *policy, const char *run_dir)
{
	char *const argv[] = { (char *)exe, (char *)policy, (char *)run_dir,
		NULL };
	sigset_t none;
	int null;

	/* The supervisor's mask (signals for its signalfd) is not the
	 * gate's; nor its SIGPIPE ignored. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* The supervisor gone, the gate goes: it serves nobody else. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Its words go on the wire (GATE_FAIL, GATE_ERROR): our stderr
	 * is a console's pipe, closed once the run is up, or a terminal
	 * the console draws on. */
	if ((null = open("/dev/null", O_RDWR)) < 0 || dup2(null, 0) < 0 ||
	    dup2(null, 1) < 0 || dup2(null, 2) < 0)
		_exit(127);
	/* Its end as fd 3: theirs may be 3 already (dup2 to itself keeps
	 * close-on-exec), so through a spare number first. */
	if ((theirs = fcntl(theirs, F_DUPFD, 10)) < 0 || dup2(theirs, 3) < 0)
		_exit(127);
	/* Nothing else of the supervisor's: not the record, the control
	 * socket, nor the consoles'. */
	if (syscall(SYS_close_range, 4, ~0U, 0) < 0)
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
	execv(exe, argv);
	_exit(127);
}

int
gatewire_spawn(const char *exe, const char *policy, const char *run_dir,
    struct gatewire_ready *ret, char **cause)
{
	int sv[2];
	pid_t pid;
	int r;

	*ret = (struct gatewire_ready){ .pid = -1, .wire = -1 };
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		set_cause(cause, "socketpair: %s", strerror(errno));
		return -errno;
	}
	if ((pid = fork()) < 0) {
		r = -errno;
		close(sv[0]);
		close(sv[1]);
		set_cause(cause, "fork: %s", strerror(-r));
		return r;
	}
	if (pid == 0)
		child(sv[1], exe, policy, run_dir);
	close(sv[1]);
	ret->pid = pid;
	ret->wire = sv[0];
	fcntl(ret->wire, F_SETFL, fcntl(ret->wire, F_GETFL) | O_NONBLOCK);
	return 0;
}

int
gatewire_wait(struct gatewire_ready *ret, const char *exe, int timeout_ms,
    char **cause)
{
	pid_t pid = ret->pid;
	int r;

	if ((r = gatewire_read_start(ret->wire, timeout_ms, ret, cause)) < 0) {
		int status = 0;

		kill(pid, SIGKILL);
		if (waitpid(pid, &status, 0) == pid && r == -EPIPE) {
			char *c = *cause;

			/* Ended on its own: how, and 127 is no exec at all. */
			*cause = WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
			    xasprintf("cannot run %s (not there, or not a "
			    "program)", exe) : WIFEXITED(status) ?
			    xasprintf("%s (exit status %d)", c,
			    WEXITSTATUS(status)) : xasprintf("%s (signal %d)", c,
			    WTERMSIG(status));
			free(c);
		}
		gatewire_ready_done(ret);
		ret->pid = -1;
		return r;
	}
	return 0;
}

int
gatewire_start(const char *exe, const char *policy, const char *run_dir,
    int timeout_ms, struct gatewire_ready *ret, char **cause)
{
	int r;

	if ((r = gatewire_spawn(exe, policy, run_dir, ret, cause)) < 0)
		return r;
	return gatewire_wait(ret, exe, timeout_ms, cause);
}

static socklen_t
loopback(int family, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof *ss);
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		return sizeof *a;
	}
	((struct sockaddr_in *)ss)->sin_family = AF_INET;
	((struct sockaddr_in *)ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(struct sockaddr_in);
}

int
gatewire_listen(int family, int *fd)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(family, &ss);
	cleanup_fd int l = socket(family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);

	if (l < 0)
		return -errno;
	if (bind(l, (struct sockaddr *)&ss, len) < 0 || listen(l, 64) < 0)
		return -errno;
	*fd = steal_fd(&l);
	return 0;
}

static bool
same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		    memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr) == 0;
	}
	return ((const struct sockaddr_in *)a)->sin_port ==
	    ((const struct sockaddr_in *)b)->sin_port &&
	    ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	    ((const struct sockaddr_in *)b)->sin_addr.s_addr;
}

/* Loopback answers at once; a bound wait all the same. */
#define PAIR_WAIT_MS	1000

int
gatewire_pair(int listener, int *client, int *server)
{
	struct sockaddr_storage to, mine;
	socklen_t tl = sizeof to, ml = sizeof mine;
	cleanup_fd int c = -1;
	int64_t end = now_mono_ms() + PAIR_WAIT_MS;

	if (getsockname(listener, (struct sockaddr *)&to, &tl) < 0)
		return -errno;
	c = socket(to.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c < 0)
		return -errno;
	if (connect(c, (struct sockaddr *)&to, tl) < 0 && errno != EINPROGRESS)
		return -errno;
	if (getsockname(c, (struct sockaddr *)&mine, &ml) < 0)
		return -errno;
	for (;;) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof peer;
		int a = accept4(listener, (struct sockaddr *)&peer, &pl,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct pollfd p = { listener, POLLIN, 0 };
		int64_t left;

		if (a >= 0) {
			if (same_addr(&peer, &mine)) {
				*server = a;
				*client = steal_fd(&c);
				return 0;
			}
			/* Someone else's: not ours to hand anywhere. */
			close(a);
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		    errno != ECONNABORTED)
			return -errno;
		if ((left = end - now_mono_ms()) <= 0)
			return -ETIMEDOUT;
		(void)poll(&p, 1, (int)left);
	}
}
