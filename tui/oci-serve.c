/* SPDX-License-Identifier: MIT */
/*
 * ward oci serve: the runtime's seccomp agent. Each connection on the
 * socket is one container: its runtime sends the container process state
 * and the seccomp notify fd (approvals/ocistate.h), and one
 * ward-supervisor takes the container from there.
 *
 * One process per connection, forked as soon as it is accepted: the
 * child receives (at most OCISTATE_TIMEOUT_MS), reads, says what it
 * decided, and execs the supervisor in its own session. So a runtime
 * that connects and says nothing holds only its own child, never the
 * loop; a message that crashed the reader takes one connection down;
 * and this process never holds a container's listener, so nothing of
 * one container can reach another's through it. The loop counts the
 * children still receiving (each holds the write end of a close-on-exec
 * pipe: its end of file is the exec, or the child's death) and stops
 * accepting while OCI_SERVE_PENDING of them wait: the socket's backlog
 * holds the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approvals/ctl.h"
#include "approvals/launch.h"
#include "approvals/ocistate.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"
#include "tui/oci.h"
#include "tui/usage.h"

#define OCI_SERVE_PENDING	64
#define OCI_SERVE_VERB		"oci serve"
#define OCI_SERVE_ROOT_CONFIG	"/etc/ward"

static const char serve_help[] =
"Usage: ward oci serve [--socket PATH] [--policy FILE]\n"
"\n"
"Be the seccomp agent of OCI runtimes (runc, crun, Podman, containerd):\n"
"listen on the socket that 'ward oci profile' names as the profile's\n"
"listenerPath, and supervise each container whose runtime connects: one\n"
"ward-supervisor per container, in its own session, which goes on when\n"
"serve stops. The container is then a run like any other ('ward\n"
"console', 'ward ps', 'ward pending').\n"
"\n"
"Options:\n"
"  -s, --socket PATH  the socket (default /run/ward/oci.sock as root,\n"
"                     else $XDG_RUNTIME_DIR/ward/oci.sock); its folder is\n"
"                     made 0700 if missing, the socket is 0600, a stale\n"
"                     one (nobody answers) is replaced\n"
"  -p, --policy FILE  the policy of containers whose profile names none\n"
"                     (default: the shipped oci.ini)\n"
"  -h, --help         show this help\n"
"\n"
"The policy: a profile's listenerMetadata 'policy=NAME' (NAME of\n"
"[A-Za-z0-9._-], no leading dot) picks CONFIG/oci/NAME.ini, where CONFIG\n"
"is /etc/ward as root, else $XDG_CONFIG_HOME/ward; the file must exist.\n"
"Metadata is ';'-separated key=value pairs; 'policy' is the one key, and\n"
"a connection whose metadata has another is refused. The run's name:\n"
"the annotation ward.name, else a pod's namespace/pod/container, else\n"
"the container id.\n"
"\n"
"Who may connect: root, or the user serve runs as. A connection that is\n"
"refused (another user, not a seccomp listener, a malformed state, no\n"
"message within 5 seconds, a policy that does not exist) gets one line\n"
"on stderr, naming the cause and the runtime's pid, and its runtime\n"
"fails to start the container.\n"
"\n"
"SIGTERM or SIGINT: the socket is removed and serve exits 0.\n"
"Exit status: 0 stopped by a signal, 1 the socket could not be made,\n"
"2 usage.\n";

/* (tui/oci.c's oci_opts are the completion's: the same options, but a
 * table there would make this file call back into its dispatch.) */
static const struct option serve_opts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "policy", required_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct serve {
	char		*policy;	/* the fallback: --policy or oci.ini */
	char		*config;	/* CONFIG of CONFIG/oci/NAME.ini */
	int		 listen_fd;
	int		 sig_fd;
	sigset_t	 oldmask;
	struct {
		pid_t	 pid;
		int	 fd;	/* the read end; -1: a free slot */
	}		 pending[OCI_SERVE_PENDING];
	size_t		 n_pending;
};

/* One refusal: the line, then the child's end. */
static void __attribute__((noreturn))
serve_refuse(pid_t peer, const char *cause)
{
	fprintf(stderr, "ward oci: refused a connection from pid %d: %s\n",
	    (int)peer, cause);
	_exit(1);
}

/*
 * The child's part: receive, read, decide, exec. Every way out but the
 * exec is _exit, and every descriptor received is closed by it.
 */
static void __attribute__((noreturn))
serve_child(struct serve *s, int conn)
{
	struct ocistate_msg m;
	struct ocistate *st = NULL;
	cleanup_free char *cause = NULL, *policy = NULL, *name = NULL;
	cleanup_free char *fdstr = NULL, *pidstr = NULL;
	cleanup_strv char **args = NULL;
	struct launch l;
	size_t nargs = 0;
	int devnull;

	if (ocistate_receive(conn, OCISTATE_TIMEOUT_MS, &m, &cause) < 0)
		serve_refuse(m.peer_pid, cause);
	close(conn);
	/* Something that connects and closes (a serve starting beside
	 * this one probes the socket so): no state to read. */
	if (m.len == 0 && m.nfds == 0)
		serve_refuse(m.peer_pid, "it closed without a message");
	if (ocistate_parse(m.buf, m.len, m.nfds, &st, &cause) < 0)
		serve_refuse(m.peer_pid, cause);
	if (m.fd < 0)
		serve_refuse(m.peer_pid, "no descriptor came with the state");
	if (ocistate_policy_file(st, s->config, s->policy, &policy,
	    &cause) < 0) {
		cleanup_free char *why = xasprintf("container %s: %s", st->id,
		    cause);

		serve_refuse(m.peer_pid, why);
	}
	name = ocistate_name(st);
	if (ocistate_bundle_args(st->bundle, &args, &nargs, &cause) < 0) {
		/* (ocistate's causes quote their input escaped.) */
		fprintf(stderr, "ward oci: container %s: its command is "
		    "unknown (%s); recorded as 'container %s'\n", st->id,
		    cause, st->id);
		nargs = 2;
		args = xcalloc(3, sizeof *args);
		args[0] = xstrdup("container");
		args[1] = xstrdup(st->id);
	}
	fdstr = xasprintf("%d", m.fd);
	pidstr = xasprintf("%d", (int)st->pid);
	launch_init(&l);
	launch_opt(&l, "--headless", NULL);
	launch_opt(&l, "--oci-listener", fdstr);
	launch_opt(&l, "--oci-pid", pidstr);
	launch_opt(&l, "--oci-container", st->id);
	launch_opt(&l, "--name", name);
	launch_opt(&l, "--policy", policy);
	launch_command(&l, args, nargs);

	/* Its own session: a ^C meant for serve's terminal, or serve's
	 * own end, must not reach the supervisors it started. */
	if (setsid() < 0)
		serve_refuse(m.peer_pid, "setsid failed");
	/* The listener crosses the exec; nothing else received does. */
	if (fcntl(m.fd, F_SETFD, 0) < 0)
		serve_refuse(m.peer_pid, "the listener cannot be inherited");
	if ((devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) {
		dup2(devnull, STDIN_FILENO);
		close(devnull);
	}
	fprintf(stderr, "ward oci: container %s (pid %d): supervised as "
	    "%s, policy %s\n", st->id, (int)st->pid, name, policy);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	_exit(launch_exec_or_say(&l));
}

static void
serve_reap(struct serve *s)
{
	struct signalfd_siginfo si;
	int status;
	pid_t pid;

	while (read(s->sig_fd, &si, sizeof si) == sizeof si)
		;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		;
}

/* The peer's pid for a refusal line of the parent's own (0: unknown). */
static int
serve_peer_pid(int conn)
{
	struct ucred cred = { 0 };
	socklen_t len = sizeof cred;

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return 0;
	return (int)cred.pid;
}

static void
serve_accept(struct serve *s)
{
	cleanup_fd int conn = -1, rd = -1, wr = -1;
	int p[2];
	pid_t pid;
	size_t i;

	conn = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (conn < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR && errno != ECONNABORTED) {
			warn_msg("oci: accept: %s", strerror(errno));
			/* EMFILE, ENFILE, ENOBUFS: the connection stays
			 * in the backlog and poll says so at once; a
			 * pause, not a loop that logs as fast as it can. */
			usleep(100 * 1000);
		}
		return;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		fprintf(stderr, "ward oci: refused a connection from pid %d: "
		    "pipe: %s\n", serve_peer_pid(conn), strerror(errno));
		return;
	}
	rd = p[0];
	wr = p[1];
	if ((pid = fork()) < 0) {
		fprintf(stderr, "ward oci: refused a connection from pid %d: "
		    "fork: %s\n", serve_peer_pid(conn), strerror(errno));
		usleep(100 * 1000);
		return;
	}
	if (pid == 0) {
		close(s->listen_fd);
		close(s->sig_fd);
		close(rd);
		for (i = 0; i < OCI_SERVE_PENDING; i++) {
			if (s->pending[i].fd >= 0)
				close(s->pending[i].fd);
		}
		/* wr stays open, close-on-exec: the parent's sign. */
		serve_child(s, conn);
	}
	for (i = 0; i < OCI_SERVE_PENDING; i++) {
		if (s->pending[i].fd < 0)
			break;
	}
	s->pending[i].pid = pid;
	s->pending[i].fd = steal_fd(&rd);
	s->n_pending++;
}

static int
serve_loop(struct serve *s)
{
	for (;;) {
		struct pollfd p[2 + OCI_SERVE_PENDING];
		size_t map[2 + OCI_SERVE_PENDING], n = 0;

		p[n++] = (struct pollfd){ .fd = s->sig_fd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = s->n_pending <
		    OCI_SERVE_PENDING ? s->listen_fd : -1, .events = POLLIN };
		for (size_t i = 0; i < OCI_SERVE_PENDING; i++) {
			if (s->pending[i].fd < 0)
				continue;
			map[n] = i;
			p[n++] = (struct pollfd){ .fd = s->pending[i].fd,
			    .events = POLLIN };
		}
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			warn_msg("oci: poll: %s", strerror(errno));
			return 1;
		}
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			/* Peek at what came: a stop ends the loop, a child
			 * is reaped. */
			while (read(s->sig_fd, &si, sizeof si) == sizeof si) {
				if (si.ssi_signo == SIGTERM ||
				    si.ssi_signo == SIGINT)
					return 0;
			}
			serve_reap(s);
		}
		for (size_t k = 2; k < n; k++) {
			size_t i = map[k];

			if (p[k].revents == 0)
				continue;
			/* End of file: the child exec'd the supervisor or
			 * ended; either way it no longer waits. */
			closep(&s->pending[i].fd);
			s->n_pending--;
		}
		if (p[1].revents & POLLIN)
			serve_accept(s);
	}
}

/* The socket's folder: made 0700 when missing (/run/ward as root). */
static int
serve_folder(const char *sock)
{
	cleanup_free char *dir = xstrdup(sock);
	char *slash = strrchr(dir, '/');
	int r;

	if (slash == NULL || slash == dir)
		return 0;
	*slash = '\0';
	if ((r = mkdir_p(dir, 0700)) < 0) {
		warn_msg("oci: cannot make %s: %s", dir, strerror(-r));
		return r;
	}
	return 0;
}

static bool
serve_same_file(const char *path, const struct stat *was)
{
	struct stat now;

	return lstat(path, &now) == 0 && now.st_dev == was->st_dev &&
	    now.st_ino == was->st_ino;
}

int
oci_serve_main(int argc, char **argv, const char *argv0)
{
	struct serve s = { .listen_fd = -1, .sig_fd = -1 };
	cleanup_free char *sock = NULL, *policy = NULL, *config = NULL;
	cleanup_free char *cause = NULL, *share = NULL;
	struct stat bound;
	sigset_t mask;
	int opt, r, status;

	optind = 1;
	while ((opt = getopt_long(argc, argv, ":s:p:h", serve_opts,
	    NULL)) != -1) {
		switch (opt) {
		case 's':
			free(sock);
			sock = xstrdup(optarg);
			break;
		case 'p':
			free(policy);
			policy = xstrdup(optarg);
			break;
		case 'h':
			fputs(serve_help, stdout);
			return 0;
		default:
			return usage_bad_option(2, OCI_SERVE_VERB, argv, opt);
		}
	}
	if (optind < argc) {
		cleanup_free char *e = escape_str(argv[optind]);

		return usage_error(2, OCI_SERVE_VERB, "unexpected argument "
		    "'%s'", e);
	}
	if (sock == NULL)
		sock = oci_default_socket();
	if (sock[0] != '/')
		return usage_error(2, OCI_SERVE_VERB, "--socket needs an "
		    "absolute path");
	if (policy != NULL) {
		char *abs = realpath(policy, NULL);
		struct stat st;

		if (abs == NULL || stat(abs, &st) < 0 || !S_ISREG(st.st_mode)) {
			cleanup_free char *e = escape_str(policy);

			free(abs);
			return usage_error(2, OCI_SERVE_VERB, "--policy %s: "
			    "not a file", e);
		}
		free(policy);
		policy = abs;
	} else {
		share = paths_share_dir(argv0);
		policy = xasprintf("%s/oci.ini", share);
		if (access(policy, R_OK) < 0)
			warn_msg("oci: %s: %s; containers whose profile names "
			    "no policy will be refused", policy,
			    strerror(errno));
	}
	config = getuid() == 0 ? xstrdup(OCI_SERVE_ROOT_CONFIG) :
	    paths_config_dir();

	if (serve_folder(sock) < 0)
		return 1;
	/* Signals as data, before the socket exists: a SIGTERM in between
	 * still removes it. Children restore the mask before exec. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &s.oldmask);
	signal(SIGPIPE, SIG_IGN);
	s.sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s.sig_fd < 0) {
		warn_msg("oci: signalfd: %s", strerror(errno));
		return 1;
	}
	if ((r = ctl_listen(sock, &s.listen_fd, &cause)) < 0) {
		if (r == -EADDRINUSE)
			warn_msg("oci: something already listens on %s "
			    "(another ward oci serve?)", sock);
		else
			warn_msg("oci: %s", cause);
		close(s.sig_fd);
		return 1;
	}
	/* ctl_listen binds with umask 0177: 0600 from the first instant;
	 * the chmod says so again whatever the file system made of it. */
	if (chmod(sock, 0600) < 0 || lstat(sock, &bound) < 0) {
		warn_msg("oci: %s: %s", sock, strerror(errno));
		unlink(sock);
		close(s.listen_fd);
		close(s.sig_fd);
		return 1;
	}
	for (size_t i = 0; i < OCI_SERVE_PENDING; i++)
		s.pending[i].fd = -1;
	s.policy = policy;
	s.config = config;
	fprintf(stderr, "ward oci: listening on %s\n", sock);

	status = serve_loop(&s);

	/* Only our own socket: a serve started since may have replaced
	 * the file (after finding ours stale) and owns it now. */
	if (serve_same_file(sock, &bound))
		unlink(sock);
	close(s.listen_fd);
	close(s.sig_fd);
	for (size_t i = 0; i < OCI_SERVE_PENDING; i++)
		closep(&s.pending[i].fd);
	fprintf(stderr, "ward oci: stopped; supervisors already started go "
	    "on\n");
	return status;
}
