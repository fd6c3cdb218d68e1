/* SPDX-License-Identifier: MIT */
/*
 * Everything between clone and exec lives here and in spawn-root.c (the
 * sandbox's mount tree) and spawn-idmap.c (user namespaces' maps). The
 * code after clone runs in a copy of a single-threaded supervisor; it
 * reports the first failure on err_fd and ends in _exit, never returning
 * into the supervisor's code.
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

extern char **environ;


/* The new network namespace has only lo, and it starts down. */
static void
loopback_up(const struct child *c)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		spawn_fail(c, "socket");
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		spawn_fail(c, "lo flags");
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		spawn_fail(c, "bring lo up");
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
		spawn_fail(c, "landlock unavailable");
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
		spawn_fail(c, "landlock_create_ruleset");

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
			spawn_fail(c, "landlock: open %s", path);
		if (fstat(pb.parent_fd, &st) == 0 && !S_ISDIR(st.st_mode))
			is_dir = false;
		pb.allowed_access = is_dir ? handled : file_rights;
		if (syscall(SYS_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH,
		    &pb, 0) < 0)
			spawn_fail(c, "landlock_add_rule %s", path);
		close(pb.parent_fd);
	}
	if (syscall(SYS_landlock_restrict_self, rfd, 0) < 0)
		spawn_fail(c, "landlock_restrict_self");
	close(rfd);
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
		spawn_fail(c, "setsid");
	/* The program gets its own terminal, never the console's:
	 * TIOCSTI on it can only reach itself (CVE-2017-5226). */
	if (cfg->set_ctty && ioctl(cfg->stdio[0], TIOCSCTTY, 0) < 0)
		spawn_fail(c, "set the controlling terminal");
	for (int i = 0; i < 3; i++)
		if (dup2(cfg->stdio[i], i) < 0)
			spawn_fail(c, "dup2");
	/* Every inherited fd but stdio closes at exec. */
	if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		spawn_fail(c, "close_range");

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
				spawn_fail(c, "limit %s", limits[i].what);
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
		spawn_fail(c, "drop capability %d from the bounding set", cap);
	}
	if (cfg->outer_uid == 0 && setgroups(0, NULL) < 0)
		spawn_fail(c, "setgroups");
	if (setresgid(cfg->inner_gid, cfg->inner_gid, cfg->inner_gid) < 0)
		spawn_fail(c, "setresgid %u", (unsigned)cfg->inner_gid);
	if (setresuid(cfg->inner_uid, cfg->inner_uid, cfg->inner_uid) < 0)
		spawn_fail(c, "setresuid %u", (unsigned)cfg->inner_uid);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		spawn_fail(c, "no_new_privs");
	if (cfg->landlock)
		apply_landlock(c);
	if (chdir(cfg->cwd) < 0)
		spawn_fail(c, "chdir %s", cfg->cwd);

	/* The filter goes on last: nothing after it but the hand-off, the
	 * wait for go and exec, none of which it traps. */
	if ((listener = filter_load(cfg->filter)) < 0) {
		errno = -listener;
		spawn_fail(c, "load the seccomp filter");
	}
	spawn_send_fds(c, &listener, 1);
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
		spawn_fail(c, "PDEATHSIG");
	/* Wait for the uid/gid maps; EOF means the supervisor is gone. */
	if (read(c->sync_fd, &go, 1) != 1)
		_exit(125);
	close(c->sync_fd);
	if (sethostname("ward", 4) < 0)
		spawn_fail(c, "sethostname");
	loopback_up(c);
	if (cfg->resolv_conf != NULL)
		spawn_dns_sockets(c);
	spawn_build_root(c);

	/* vfork: the program's process shares init's memory until its exec,
	 * so nothing of init is copied (page tables, copy-on-write faults)
	 * and it runs at once on this CPU while init waits. It makes only
	 * system calls on its own stack and leaves by exec or _exit. */
	if ((prog = vfork()) < 0)
		spawn_fail(c, "vfork");
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

	if ((r = spawn_write_maps(cfg, pid, cause)) < 0) {
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
