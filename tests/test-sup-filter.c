/* SPDX-License-Identifier: MIT */
/*
 * supervisor/filter.c: the program ward carries, loaded for real by
 * forked children (no_new_privs, filter_load) that then make the calls.
 * The test holds the listener (passed over a socketpair, as spawn hands
 * it to the supervisor) and answers what is trapped: refused calls (with
 * filter_blocked()'s errno, as unotify.c does), writes, foreign ABIs.
 * With no listener left, a trapped call must still fail (ENOSYS); what
 * is not trapped runs with nobody answering. Every child is bounded by
 * alarm().
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/util.h"
#include "supervisor/compat.h"
#include "supervisor/filter.h"
#include "supervisor/target.h"

/* Kernel 6.18 numbers that Debian 12's headers lack. */
#define NR_setxattrat		463
#define NR_removexattrat	466
#define NR_open_tree_attr	467

static struct sock_fprog filt;		/* filter_program() */
static char *tmp;		/* a fresh folder for the calls' paths */

/* ---- the harness ------------------------------------------------------- */

/* What the child's call returned. */
struct outcome {
	long	 ret;
	int	 err;		/* errno when ret == -1 */
};

#define ANSWER_NONE	0	/* nothing may be trapped */
#define ANSWER_CONTINUE	(-1)	/* let the kernel run it */
#define ANSWER_BLOCKED	(-2)	/* filter_blocked(nr)->err, or fail */

struct note {
	uint64_t id;
	int	 nr;
	uint32_t arch;
	uint32_t pid;
	uint64_t args[6];
	char	 path[PATH_MAX];	/* read from the child while it waits */
	bool	 id_valid_later;	/* still valid after a signal (killable) */
};

struct trial {
	/* in */
	void	(*fn)(const void *, struct outcome *);
	const void *arg;
	int	 answer;	/* an errno, ANSWER_NONE or ANSWER_CONTINUE */
	int	 path_arg;	/* args[] index of the path to read, or -1 */
	bool	 poke;		/* SIGUSR1 the child while it waits */
	bool	 drop_listener;	/* the child closes it: no supervisor */
	/* out */
	pid_t	 pid;
	bool	 done;		/* the child reported an outcome */
	struct outcome out;
	int	 status;	/* from waitpid */
	size_t	 n_notes;
	struct note notes[4];
};

static int
send_fd(int sock, int fd)
{
	char c = 'L';
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof u.buf,
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	memset(&u, 0, sizeof u);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int
recv_fd(int sock)
{
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof u.buf,
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	if ((cm = CMSG_FIRSTHDR(&m)) == NULL || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	return fd;
}

static const char *
errname(int err)
{
	const char *s = err == 0 ? "0" : strerrorname_np(err);

	return s != NULL ? s : "?";
}

static void
on_usr1(int sig)
{
	(void)sig;
}

/* The child: no cmocka here, only _exit. */
static void __attribute__((noreturn))
child(struct trial *t, int sock)
{
	struct rlimit no_core = { 0, 0 };
	struct sigaction sa;
	struct outcome out;
	const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS };
	int fd;

	/* A stuck call ends the child, not the test run. */
	alarm(10);
	/* cmocka catches these to report a test; in the child they must
	 * kill, not return into cmocka's runner. */
	for (size_t i = 0; i < ARRAY_SIZE(fatal_sigs); i++)
		signal(fatal_sigs[i], SIG_DFL);
	/* SIGSYS dumps core by default. */
	setrlimit(RLIMIT_CORE, &no_core);
	/* Not a tty on 0: a TIOCSTI that got through would type into it. */
	if ((fd = open("/dev/null", O_RDONLY)) < 0 || dup2(fd, 0) < 0)
		_exit(80);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(81);
	if ((fd = filter_load(&filt)) < 0)
		_exit(82);
	if (!t->drop_listener && send_fd(sock, fd) < 0)
		_exit(83);
	close(fd);
	memset(&out, 0, sizeof out);
	t->fn(t->arg, &out);
	if (write(sock, &out, sizeof out) != (ssize_t)sizeof out)
		_exit(84);
	_exit(0);
}

static void
answer(int listener, const struct note *n, int answer_with)
{
	struct seccomp_notif_resp resp;

	memset(&resp, 0, sizeof resp);
	resp.id = n->id;
	if (answer_with == ANSWER_BLOCKED) {
		const struct filter_blocked *b = filter_blocked(n->nr);

		/* Not a refused call: an errno nobody would choose. */
		resp.error = -(b != NULL ? b->err : EHWPOISON);
	} else if (answer_with == ANSWER_CONTINUE)
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else
		/* Something unmistakable when nothing was to be trapped. */
		resp.error = -(answer_with == ANSWER_NONE ? ENOTRECOVERABLE :
		    answer_with);
	assert_int_equal(ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp), 0);
}

static void
take_note(struct trial *t, int listener)
{
	struct seccomp_notif req;
	struct note scratch, *n = t->n_notes < ARRAY_SIZE(t->notes) ?
	    &t->notes[t->n_notes] : &scratch;

	memset(&req, 0, sizeof req);
	assert_int_equal(ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req), 0);
	t->n_notes++;
	memset(n, 0, sizeof *n);
	n->id = req.id;
	n->nr = req.data.nr;
	n->arch = req.data.arch;
	n->pid = req.pid;
	memcpy(n->args, req.data.args, sizeof n->args);
	if (t->path_arg >= 0 &&
	    target_read_str((pid_t)req.pid, req.data.args[t->path_arg],
	    n->path, sizeof n->path) < 0)
		strcpy(n->path, "(unreadable)");
	if (t->poke) {
		/* Received: from now on only a fatal signal may end the
		 * wait, so the id must stay valid across this one. */
		kill((pid_t)req.pid, SIGUSR1);
		usleep(100 * 1000);
		n->id_valid_later = ioctl(listener,
		    SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) == 0;
	}
	answer(listener, n, t->answer);
}

/* Fork, filter, run t->fn in the child, answer what it traps. */
static void
run(struct trial *t)
{
	int sp[2];
	int listener = -1;
	bool got_listener = t->drop_listener;
	int64_t deadline = now_mono_ms() + 15000;

	t->n_notes = 0;
	t->done = false;
	t->status = -1;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sp), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		close(sp[0]);
		child(t, sp[1]);
	}
	close(sp[1]);

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = sp[0], .events = POLLIN },
			{ .fd = listener, .events = POLLIN },
		};
		int64_t left = deadline - now_mono_ms();

		if (left <= 0 || poll(p, 2, (int)left) <= 0)
			break;
		if (p[1].revents & POLLIN)
			take_note(t, listener);
		else if (p[1].revents & (POLLHUP | POLLERR)) {
			close(listener);
			listener = -1;
		}
		if (p[0].revents & (POLLIN | POLLHUP)) {
			ssize_t n;

			if (!got_listener) {
				/* The first message carries the listener. */
				if ((listener = recv_fd(sp[0])) < 0)
					break;
				got_listener = true;
				continue;
			}
			n = read(sp[0], &t->out, sizeof t->out);
			if (n == (ssize_t)sizeof t->out)
				t->done = true;
			break;
		}
	}
	if (listener >= 0)
		close(listener);
	close(sp[0]);
	assert_int_equal(waitpid(t->pid, &t->status, 0), t->pid);
}

/* The child exited 0 after reporting: only then is t->out meaningful. */
static void
assert_reported(const struct trial *t, const char *what)
{
	if (!t->done || !WIFEXITED(t->status) || WEXITSTATUS(t->status) != 0) {
		if (WIFSIGNALED(t->status))
			print_error("%s: child killed by signal %d\n", what,
			    WTERMSIG(t->status));
		else if (WIFEXITED(t->status))
			print_error("%s: child exit %d\n", what,
			    WEXITSTATUS(t->status));
		fail();
	}
}

/* ---- fixtures ------------------------------------------------------------ */

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

static int
setup(void **state)
{
	char tmpl[] = "/tmp/test-sup-filter.XXXXXX";

	(void)state;
	filt = *filter_program();
	if (mkdtemp(tmpl) == NULL)
		return -1;
	tmp = xstrdup(tmpl);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	if (tmp != NULL)
		nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(tmp);
	tmp = NULL;
	return 0;
}

/* ---- calls the children make -------------------------------------------- */

struct sys {
	const char *name;
	long	 nr;
	long	 a[6];
	int	 err;		/* the errno wanted */
};

static void
do_sys(const void *arg, struct outcome *o)
{
	const struct sys *s = arg;

	errno = 0;
	o->ret = syscall(s->nr, s->a[0], s->a[1], s->a[2], s->a[3], s->a[4],
	    s->a[5]);
	o->err = o->ret == -1 ? errno : 0;
	/* A clone that got through: the new child must not go on. */
	if (s->nr == SYS_clone && o->ret == 0)
		_exit(0);
}

static long
P(const void *p)
{
	return (long)(uintptr_t)p;
}

/* ---- tests --------------------------------------------------------------- */

/* The program ward carries is what the rules compile to with this
 * libseccomp now: a rule changed without a rebuild of filter-bpf.h, or a
 * hand edit of it, fails here. */
static void
test_build(void **state)
{
	struct sock_fprog f;
	char *cause = NULL;
	const struct filter_blocked *b;

	(void)state;
	assert_int_equal(filter_compile(&f, &cause), 0);
	assert_null(cause);
	assert_non_null(f.filter);
	assert_true(f.len > 20);
	assert_int_equal(f.len, filter_program()->len);
	assert_memory_equal(f.filter, filter_program()->filter,
	    f.len * sizeof *f.filter);
	free(f.filter);

	assert_true(filter_is_trapped(SYS_openat));
	assert_true(filter_is_trapped(SYS_open));
	assert_true(filter_is_trapped(SYS_utimensat));
	assert_true(filter_is_trapped(SYS_mkdir));
	assert_true(filter_is_trapped(SYS_renameat2));
	assert_true(filter_is_trapped(__NR_fchmodat2));
	assert_true(filter_is_trapped(SYS_ptrace));
	assert_true(filter_is_trapped(SYS_execve));
	assert_true(filter_is_trapped(SYS_chdir));
	assert_true(filter_is_trapped(SYS_fchdir));
	assert_false(filter_is_trapped(SYS_getpid));
	assert_false(filter_is_trapped(SYS_read));
	assert_false(filter_is_trapped(SYS_fstat));
	assert_false(filter_is_trapped(-1));

	assert_non_null(b = filter_blocked(SYS_ptrace));
	assert_int_equal(b->nr, SYS_ptrace);
	assert_int_equal(b->err, EPERM);
	assert_string_equal(b->name, "ptrace");
	/* clone3 is answered in BPF, unrecorded */
	assert_non_null(b = filter_blocked(SYS_clone3));
	assert_int_equal(b->err, ENOSYS);
	assert_null(b->name);
	assert_null(filter_blocked(SYS_getpid));
	assert_null(filter_blocked(SYS_openat));
	assert_null(filter_blocked(-1));
}

/*
 * Refused calls: each reaches the listener as itself, filter_blocked()
 * knows its errno, and that answer is what the child sees; with no
 * listener left the kernel refuses it (ENOSYS). Each call's arguments are
 * harmless should it get through, and fail otherwise than wanted.
 */
static void
test_blocked(void **state)
{
	static const char nowhere[] = "/nonexistent-ward-test";
	static const struct open_how how = { .flags = O_RDONLY };
	static const struct timespec ts = { 1, 0 };
	static struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	static const struct sock_fprog allow_prog = { 1, allow };
	static struct timex tx;
	static char ch = 'x';
	const struct sys calls[] = {
		{ "io_uring_setup", SYS_io_uring_setup, { 1, 0 }, ENOSYS },
		{ "io_uring_enter", SYS_io_uring_enter, { -1 }, ENOSYS },
		{ "io_uring_register", SYS_io_uring_register, { -1 }, ENOSYS },
		{ "openat2", SYS_openat2, { AT_FDCWD, P("/"), P(&how),
		    sizeof how }, ENOSYS },
		{ "ptrace", SYS_ptrace, { PTRACE_PEEKUSER, 1, 0, 0 }, EPERM },
		{ "process_vm_readv", SYS_process_vm_readv, { 1, 0, 0, 0, 0,
		    0 }, EPERM },
		{ "process_vm_writev", SYS_process_vm_writev, { 1, 0, 0, 0, 0,
		    0 }, EPERM },
		{ "bpf", SYS_bpf, { -1, 0, 0 }, EPERM },
		{ "perf_event_open", SYS_perf_event_open, { 0, 0, -1, -1, 0 },
		    EPERM },
		{ "userfaultfd", SYS_userfaultfd, { O_CLOEXEC }, EPERM },
		{ "keyctl", SYS_keyctl, { -1 }, EPERM },
		{ "add_key", SYS_add_key, { 0, 0, 0, 0, 0 }, EPERM },
		{ "request_key", SYS_request_key, { 0, 0, 0, 0 }, EPERM },
		{ "mount", SYS_mount, { P("none"), P(nowhere), P("tmpfs"), 0,
		    0 }, EPERM },
		{ "umount2", SYS_umount2, { P(nowhere), 0 }, EPERM },
		{ "pivot_root", SYS_pivot_root, { P(nowhere), P(nowhere) },
		    EPERM },
		{ "move_mount", SYS_move_mount, { -1, P(""), -1, P(""), 0 },
		    EPERM },
		{ "open_tree", SYS_open_tree, { AT_FDCWD, P(nowhere), 0 },
		    EPERM },
		{ "fsopen", SYS_fsopen, { 0, 0 }, EPERM },
		{ "fsconfig", SYS_fsconfig, { -1, 0, 0, 0, 0 }, EPERM },
		{ "fsmount", SYS_fsmount, { -1, 0, 0 }, EPERM },
		{ "fspick", SYS_fspick, { -1, P(nowhere), 0 }, EPERM },
		{ "mount_setattr", SYS_mount_setattr, { -1, P(""), 0, 0, 0 },
		    EPERM },
		{ "open_by_handle_at", SYS_open_by_handle_at, { -1, 0, 0 },
		    EPERM },
		{ "name_to_handle_at", SYS_name_to_handle_at, { AT_FDCWD,
		    P("/"), 0, 0, 0 }, EPERM },
		{ "unshare(CLONE_NEWUSER)", SYS_unshare, { CLONE_NEWUSER },
		    EPERM },
		{ "unshare(CLONE_NEWNS)", SYS_unshare, { CLONE_NEWNS }, EPERM },
		{ "setns", SYS_setns, { -1, 0 }, EPERM },
		/* invalid flags: refused by the kernel too, but EINVAL */
		{ "kexec_load", SYS_kexec_load, { 0, 0, 0, 0x7fff0000 }, EPERM },
		{ "kexec_file_load", SYS_kexec_file_load, { -1, -1, 0, 0,
		    0x7fff0000 }, EPERM },
		{ "init_module", SYS_init_module, { 0, 0, 0 }, EPERM },
		{ "finit_module", SYS_finit_module, { -1, 0, 0 }, EPERM },
		{ "delete_module", SYS_delete_module, { 0, 0 }, EPERM },
		{ "acct", SYS_acct, { P(nowhere) }, EPERM },
		{ "swapon", SYS_swapon, { P(nowhere), 0 }, EPERM },
		{ "swapoff", SYS_swapoff, { P(nowhere) }, EPERM },
		/* no magic numbers: EINVAL should it get through */
		{ "reboot", SYS_reboot, { 0, 0, 0, 0 }, EPERM },
		{ "settimeofday", SYS_settimeofday, { 0, 0 }, EPERM },
		{ "clock_settime", SYS_clock_settime, { CLOCK_MONOTONIC,
		    P(&ts) }, EPERM },
		{ "clock_adjtime", SYS_clock_adjtime, { CLOCK_REALTIME,
		    P(&tx) }, EPERM },
		{ "adjtimex", SYS_adjtimex, { P(&tx) }, EPERM },
		{ "ioctl(TIOCSTI)", SYS_ioctl, { 0, TIOCSTI, P(&ch) }, EPERM },
		/* the kernel takes the low 32 bits of the request */
		{ "ioctl(TIOCSTI | 1 << 32)", SYS_ioctl, { 0,
		    (long)(TIOCSTI | (1UL << 32)), P(&ch) }, EPERM },
		{ "ioctl(TIOCLINUX)", SYS_ioctl, { 0, TIOCLINUX, P(&ch) },
		    EPERM },
		{ "seccomp(NEW_LISTENER)", SYS_seccomp, {
		    SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
		    P(&allow_prog) }, EPERM },
		{ "seccomp(NEW_LISTENER | WAIT_KILLABLE_RECV)", SYS_seccomp, {
		    SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER |
		    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, P(&allow_prog) },
		    EPERM },
		{ "seccomp(NEW_LISTENER | 1 << 32)", SYS_seccomp, {
		    SECCOMP_SET_MODE_FILTER, (long)(1UL << 32 |
		    SECCOMP_FILTER_FLAG_NEW_LISTENER), P(&allow_prog) },
		    EPERM },
	};
	size_t bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
		const struct sys *c = &calls[i];
		const struct filter_blocked *fb = filter_blocked((int)c->nr);
		struct trial t = {
			.fn = do_sys, .arg = c, .answer = ANSWER_BLOCKED,
			.path_arg = -1,
		};
		struct trial gone = {
			.fn = do_sys, .arg = c, .answer = ANSWER_NONE,
			.path_arg = -1, .drop_listener = true,
		};

		if (fb == NULL || fb->err != c->err || fb->name == NULL) {
			print_error("%s: filter_blocked gives %s/%s, want "
			    "%s and a name\n", c->name,
			    fb ? errname(fb->err) : "(none)",
			    fb && fb->name ? fb->name : "(null)",
			    errname(c->err));
			bad++;
		}
		run(&t);
		assert_reported(&t, c->name);
		if (t.n_notes != 1 || t.notes[0].nr != c->nr ||
		    t.notes[0].arch != AUDIT_ARCH_X86_64 ||
		    t.out.ret != -1 || t.out.err != c->err) {
			print_error("%s: %zu notification(s) (nr %d), got "
			    "%ld/%s; want one (nr %ld) and -1/%s\n", c->name,
			    t.n_notes, t.notes[0].nr, t.out.ret,
			    errname(t.out.err), c->nr, errname(c->err));
			bad++;
		}
		run(&gone);
		assert_reported(&gone, c->name);
		if (gone.out.ret != -1 || gone.out.err != ENOSYS) {
			print_error("%s with no supervisor: got %ld/%s, want "
			    "-1/ENOSYS\n", c->name, gone.out.ret,
			    errname(gone.out.err));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* clone3 is refused in BPF itself: ENOSYS, no round trip, so that
 * libc falls back to clone at once. */
static void
test_clone3(void **state)
{
	const struct sys s = { "clone3", SYS_clone3, { 0, 0 }, ENOSYS };
	struct trial t = {
		.fn = do_sys, .arg = &s, .answer = ANSWER_NONE, .path_arg = -1,
	};

	(void)state;
	run(&t);
	assert_reported(&t, s.name);
	assert_int_equal(t.n_notes, 0);
	assert_int_equal(t.out.ret, -1);
	assert_int_equal(t.out.err, ENOSYS);
}

/* A clone asking for a namespace is trapped and refused; a plain one
 * runs untouched. */
static void
test_clone_ns(void **state)
{
	static const long bits[] = {
		CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
		CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME,
	};
	size_t bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++) {
		const struct sys s = { "clone", SYS_clone,
		    { bits[i] | SIGCHLD, 0, 0, 0, 0 }, EPERM };
		struct trial t = {
			.fn = do_sys, .arg = &s,
			.answer = ANSWER_BLOCKED, .path_arg = -1,
		};

		run(&t);
		assert_reported(&t, "clone");
		if (t.n_notes != 1 || t.notes[0].nr != SYS_clone ||
		    t.notes[0].args[0] != (uint64_t)(bits[i] | SIGCHLD) ||
		    t.out.ret != -1 || t.out.err != EPERM) {
			print_error("clone(%#lx): %zu notification(s), got "
			    "%ld/%s, want one and -1/EPERM\n", bits[i],
			    t.n_notes, t.out.ret, errname(t.out.err));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	{
		const struct sys s = { "clone", SYS_clone, { SIGCHLD }, 0 };
		struct trial t = {
			.fn = do_sys, .arg = &s,
			.answer = ANSWER_NONE, .path_arg = -1,
		};

		run(&t);
		assert_reported(&t, "clone(SIGCHLD)");
		assert_int_equal(t.n_notes, 0);
		assert_true(t.out.ret > 0);	/* a pid; it _exit(0)ed */
	}
}

/* A filter of the program's own, without a listener, is its business. */
static void
test_seccomp_own_filter(void **state)
{
	static struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	static const struct sock_fprog prog = { 1, allow };
	const struct sys s = { "seccomp", SYS_seccomp,
	    { SECCOMP_SET_MODE_FILTER, 0, P(&prog) }, 0 };
	struct trial t = {
		.fn = do_sys, .arg = &s, .answer = ANSWER_NONE, .path_arg = -1,
	};

	(void)state;
	run(&t);
	assert_reported(&t, "seccomp");
	assert_int_equal(t.n_notes, 0);
	assert_int_equal(t.out.ret, 0);
}

struct opening {
	const char *name;
	bool	 legacy;	/* SYS_open rather than openat */
	long	 flags;
	bool	 trapped;
	bool	 dir;		/* open the folder, not the file in it */
};

static void
do_open(const void *arg, struct outcome *o)
{
	const struct opening *op = arg;
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s%s", tmp, op->dir ? "" : "/file");
	errno = 0;
	if (op->legacy)
		o->ret = syscall(SYS_open, p, op->flags, 0600);
	else if (op->flags >> 32 != 0)
		o->ret = syscall(SYS_openat, AT_FDCWD, p, op->flags, 0600);
	else
		o->ret = open(p, (int)op->flags, 0600);
	o->err = o->ret == -1 ? errno : 0;
}

/*
 * A write open reaches the listener as openat (glibc's open) with the
 * path readable from the waiting child, and the answer is what the child
 * sees; a read-only open never reaches it.
 */
static void
test_open(void **state)
{
	static const struct opening cases[] = {
		{ "O_WRONLY", false, O_WRONLY, true, false },
		{ "O_RDWR", false, O_RDWR, true, false },
		{ "O_RDONLY|O_CREAT", false, O_RDONLY | O_CREAT, true, false },
		{ "O_RDONLY|O_TRUNC", false, O_RDONLY | O_TRUNC, true, false },
		{ "O_RDONLY|O_APPEND", false, O_RDONLY | O_APPEND, true, false },
		{ "O_WRONLY|O_CLOEXEC|O_NOFOLLOW", false,
		    O_WRONLY | O_CLOEXEC | O_NOFOLLOW, true, false },
		/* __O_TMPFILE alone: the kernel would want a write mode */
		{ "__O_TMPFILE", false, 020000000, true, false },
		{ "O_TMPFILE|O_RDWR", false, O_TMPFILE | O_RDWR, true, false },
		{ "O_WRONLY | 1 << 32", false, O_WRONLY | (1L << 32), true, false },
		{ "open(2) O_WRONLY", true, O_WRONLY, true, false },
		{ "open(2) O_CREAT", true, O_RDONLY | O_CREAT, true, false },
		{ "O_RDONLY", false, O_RDONLY, false, false },
		{ "O_RDONLY|O_CLOEXEC|O_NOFOLLOW|O_NONBLOCK", false,
		    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, false, false },
		{ "O_DIRECTORY", false, O_RDONLY | O_DIRECTORY, false, true },
		{ "O_PATH", false, O_PATH, false, false },
		{ "O_RDONLY | 1 << 32", false, O_RDONLY | (1L << 32), false, false },
		{ "open(2) O_RDONLY", true, O_RDONLY, false, false },
	};
	char want[PATH_MAX];
	size_t bad = 0;
	int fd;

	(void)state;
	snprintf(want, sizeof want, "%s/file", tmp);
	assert_true((fd = open(want, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >=
	    0);
	close(fd);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct opening *c = &cases[i];
		struct trial t = {
			.fn = do_open, .arg = c, .path_arg = c->legacy ? 0 : 1,
			.answer = c->trapped ? EACCES : ANSWER_NONE,
		};
		const struct note *n = &t.notes[0];
		long nr = c->legacy ? SYS_open : SYS_openat;

		run(&t);
		assert_reported(&t, c->name);
		if (!c->trapped) {
			if (t.n_notes != 0 || t.out.ret < 0) {
				print_error("%s: %zu notification(s), open "
				    "gave %ld/%s; want none and an fd\n",
				    c->name, t.n_notes, t.out.ret,
				    errname(t.out.err));
				bad++;
			}
			continue;
		}
		if (t.n_notes != 1 || n->nr != nr ||
		    n->arch != AUDIT_ARCH_X86_64 || n->pid != (uint32_t)t.pid ||
		    strcmp(n->path, want) != 0 ||
		    (int)n->args[c->legacy ? 1 : 2] != (int)c->flags ||
		    t.out.ret != -1 || t.out.err != EACCES) {
			print_error("%s: %zu notification(s), nr %d (want "
			    "%ld), path \"%s\", pid %u (want %d); open gave "
			    "%ld/%s, want -1/EACCES\n", c->name, t.n_notes,
			    n->nr, nr, n->path, n->pid, (int)t.pid, t.out.ret,
			    errname(t.out.err));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* Answered CONTINUE, the kernel performs the call. */
static void
test_open_continue(void **state)
{
	static const struct opening c = { "O_WRONLY|O_CREAT", false,
	    O_WRONLY | O_CREAT | O_EXCL, true, false };
	struct trial t = {
		.fn = do_open, .arg = &c, .path_arg = 1,
		.answer = ANSWER_CONTINUE,
	};
	char p[PATH_MAX];
	struct stat st;

	(void)state;
	snprintf(p, sizeof p, "%s/file", tmp);
	unlink(p);
	run(&t);
	assert_reported(&t, c.name);
	assert_int_equal(t.n_notes, 1);
	assert_int_equal(t.notes[0].nr, SYS_openat);
	assert_true(t.out.ret >= 0);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

/* After RECV only a fatal signal ends the wait (WAIT_KILLABLE_RECV): the
 * id stays valid across a handled SIGUSR1, and the answer still lands. */
static void
test_wait_killable(void **state)
{
	static const struct opening c = { "O_WRONLY", false, O_WRONLY, true,
	    false };
	struct trial t = {
		.fn = do_open, .arg = &c, .path_arg = 1, .answer = EROFS,
		.poke = true,
	};

	(void)state;
	run(&t);
	assert_reported(&t, c.name);
	assert_int_equal(t.n_notes, 1);
	assert_true(t.notes[0].id_valid_later);
	assert_int_equal(t.out.ret, -1);
	assert_int_equal(t.out.err, EROFS);
}

/*
 * Every call filter.c traps always, made raw with a path in the child:
 * one notification with that number and path, and the child sees the
 * answer.
 */
static void
test_trapped_always(void **state)
{
	static const char p[] = "/nonexistent-ward-test/x";
	static const char name[] = "user.ward";
	static const struct timespec times[2] = { { 0, 0 }, { 0, 0 } };
	const struct {
		struct sys s;
		int	 path_arg;
	} calls[] = {
		{ { "creat", SYS_creat, { P(p), 0600 }, EACCES }, 0 },
		{ { "mkdir", SYS_mkdir, { P(p), 0700 }, EACCES }, 0 },
		{ { "mkdirat", SYS_mkdirat, { AT_FDCWD, P(p), 0700 }, EACCES },
		    1 },
		{ { "mknod", SYS_mknod, { P(p), S_IFIFO | 0600 }, EACCES }, 0 },
		{ { "mknodat", SYS_mknodat, { AT_FDCWD, P(p), S_IFIFO | 0600 },
		    EACCES }, 1 },
		{ { "unlink", SYS_unlink, { P(p) }, EACCES }, 0 },
		{ { "unlinkat", SYS_unlinkat, { AT_FDCWD, P(p) }, EACCES }, 1 },
		{ { "rmdir", SYS_rmdir, { P(p) }, EACCES }, 0 },
		{ { "rename", SYS_rename, { P(p), P(p) }, EACCES }, 0 },
		{ { "renameat", SYS_renameat, { AT_FDCWD, P(p), AT_FDCWD,
		    P(p) }, EACCES }, 1 },
		{ { "renameat2", SYS_renameat2, { AT_FDCWD, P(p), AT_FDCWD,
		    P(p) }, EACCES }, 1 },
		{ { "link", SYS_link, { P(p), P(p) }, EACCES }, 0 },
		{ { "linkat", SYS_linkat, { AT_FDCWD, P(p), AT_FDCWD, P(p) },
		    EACCES }, 1 },
		{ { "symlink", SYS_symlink, { P(p), P(p) }, EACCES }, 1 },
		{ { "symlinkat", SYS_symlinkat, { P(p), AT_FDCWD, P(p) },
		    EACCES }, 2 },
		{ { "truncate", SYS_truncate, { P(p) }, EACCES }, 0 },
		{ { "chmod", SYS_chmod, { P(p), 0600 }, EACCES }, 0 },
		{ { "fchmodat", SYS_fchmodat, { AT_FDCWD, P(p), 0600 },
		    EACCES }, 1 },
		{ { "fchmodat2", __NR_fchmodat2, { AT_FDCWD, P(p), 0600 },
		    EACCES }, 1 },
		{ { "chown", SYS_chown, { P(p) }, EACCES }, 0 },
		{ { "lchown", SYS_lchown, { P(p) }, EACCES }, 0 },
		{ { "fchownat", SYS_fchownat, { AT_FDCWD, P(p) }, EACCES }, 1 },
		{ { "utime", SYS_utime, { P(p) }, EACCES }, 0 },
		{ { "utimes", SYS_utimes, { P(p) }, EACCES }, 0 },
		{ { "futimesat", SYS_futimesat, { AT_FDCWD, P(p) }, EACCES },
		    1 },
		{ { "utimensat", SYS_utimensat, { AT_FDCWD, P(p), P(times) },
		    EACCES }, 1 },
		{ { "setxattr", SYS_setxattr, { P(p), P(name), P("v"), 1 },
		    EACCES }, 0 },
		{ { "lsetxattr", SYS_lsetxattr, { P(p), P(name), P("v"), 1 },
		    EACCES }, 0 },
		{ { "removexattr", SYS_removexattr, { P(p), P(name) }, EACCES },
		    0 },
		{ { "lremovexattr", SYS_lremovexattr, { P(p), P(name) },
		    EACCES }, 0 },
	};
	size_t bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
		struct trial t = {
			.fn = do_sys, .arg = &calls[i].s,
			.path_arg = calls[i].path_arg, .answer = EACCES,
		};
		const struct note *n = &t.notes[0];

		assert_true(filter_is_trapped((int)calls[i].s.nr));
		run(&t);
		assert_reported(&t, calls[i].s.name);
		if (t.n_notes != 1 || n->nr != calls[i].s.nr ||
		    strcmp(n->path, p) != 0 || t.out.ret != -1 ||
		    t.out.err != EACCES) {
			print_error("%s: %zu notification(s), nr %d, path "
			    "\"%s\"; got %ld/%s, want -1/EACCES\n",
			    calls[i].s.name, t.n_notes, n->nr, n->path,
			    t.out.ret, errname(t.out.err));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void
do_futimens(const void *arg, struct outcome *o)
{
	char p[PATH_MAX];
	int fd;

	(void)arg;
	snprintf(p, sizeof p, "%s/times", tmp);
	o->ret = -1;
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0) {
		o->err = errno;
		return;
	}
	errno = 0;
	o->ret = syscall(SYS_utimensat, fd, NULL, NULL, 0);
	o->err = o->ret == -1 ? errno : 0;
	close(fd);
}

/* utimensat without a path is futimens on an fd: not trapped. */
static void
test_futimens_untrapped(void **state)
{
	struct trial t = {
		.fn = do_futimens, .answer = ANSWER_NONE, .path_arg = -1,
	};
	char p[PATH_MAX];
	int fd;

	(void)state;
	snprintf(p, sizeof p, "%s/times", tmp);
	assert_true((fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0);
	close(fd);
	run(&t);
	assert_reported(&t, "futimens");
	assert_int_equal(t.n_notes, 0);
	assert_int_equal(t.out.err, 0);
	assert_int_equal(t.out.ret, 0);
}

static void
do_untrapped(const void *arg, struct outcome *o)
{
	struct stat st;
	char buf[16];
	int fd;

	(void)arg;
	o->ret = -1;
	o->err = 0;
	if (syscall(SYS_getpid) != getpid() || getppid() <= 1)
		return;
	if ((fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC)) < 0 &&
	    (fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)) < 0) {
		o->err = errno;
		return;
	}
	if (fstat(fd, &st) < 0 || read(fd, buf, sizeof buf) < 0) {
		o->err = errno;
		return;
	}
	close(fd);
	o->ret = syscall(SYS_getpid);
}

/* getpid, a read-only open, fstat, read: nothing reaches the listener,
 * and they work with nobody answering. */
static void
test_untrapped(void **state)
{
	struct trial t = {
		.fn = do_untrapped, .answer = ANSWER_NONE, .path_arg = -1,
	};

	(void)state;
	run(&t);
	assert_reported(&t, "untrapped");
	assert_int_equal(t.n_notes, 0);
	assert_int_equal(t.out.err, 0);
	assert_int_equal(t.out.ret, t.pid);
}

static void
do_int80(const void *arg, struct outcome *o)
{
	long r;

	(void)arg;
	/* getpid in the i386 table: 20. Without the arch check it would
	 * run, its number meaning something else to every rule. */
	/* int $0x80 from 64-bit code zeroes r8-r11. */
	__asm__ volatile ("mov $20, %%eax\n\tint $0x80"
	    : "=a" (r) : : "r8", "r9", "r10", "r11", "memory", "cc");
	/* the i386 ABI answers in eax */
	r = (int)r;
	o->ret = r;
	o->err = 0;
}

/*
 * int $0x80 (i386 getpid): every rule is written for x86_64 numbers, so
 * the filter hands it to the supervisor (which kills the process) before
 * it runs; with no supervisor it fails ENOSYS. Either way getpid never
 * runs: its pid is never the answer.
 */
static bool
int80_works(void)
{
	struct outcome o;
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		alarm(10);
		signal(SIGSEGV, SIG_DFL);
		do_int80(NULL, &o);
		_exit(o.ret == getpid() ? 0 : 1);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0;
}

static void
test_int80(void **state)
{
	struct trial t = {
		.fn = do_int80, .answer = EHWPOISON, .path_arg = -1,
	};
	struct trial gone = {
		.fn = do_int80, .answer = ANSWER_NONE, .path_arg = -1,
		.drop_listener = true,
	};

	(void)state;
	/* Some kernels (PVM guests, ia32_emulation=0) have no int $0x80 at
	 * all: it faults (SIGSEGV) before any filter runs. */
	if (!int80_works()) {
		print_message("int $0x80 faults here without any filter: "
		    "nothing for the filter to see\n");
		skip();
	}
	run(&t);
	assert_reported(&t, "int $0x80");
	assert_int_equal(t.n_notes, 1);
	assert_int_equal(t.notes[0].arch, AUDIT_ARCH_I386);
	assert_int_equal(t.notes[0].nr, 20);
	assert_int_equal(t.out.ret, -EHWPOISON);
	run(&gone);
	assert_reported(&gone, "int $0x80, no supervisor");
	assert_int_equal(gone.out.ret, -ENOSYS);
}

/* An x32 number (bit 30) is another ABI: trapped like i386. */
static void
test_x32(void **state)
{
	const struct sys s = { "x32 getpid", 0x40000000L | SYS_getpid, { 0 },
	    0 };
	struct trial t = {
		.fn = do_sys, .arg = &s, .answer = EHWPOISON, .path_arg = -1,
	};
	struct trial gone = {
		.fn = do_sys, .arg = &s, .answer = ANSWER_NONE, .path_arg = -1,
		.drop_listener = true,
	};

	(void)state;
	run(&t);
	assert_reported(&t, s.name);
	assert_int_equal(t.n_notes, 1);
	assert_int_equal(t.notes[0].nr, 0x40000000 | SYS_getpid);
	assert_int_equal(t.out.ret, -1);
	assert_int_equal(t.out.err, EHWPOISON);
	run(&gone);
	assert_reported(&gone, "x32, no supervisor");
	assert_int_equal(gone.out.ret, -1);
	assert_int_equal(gone.out.err, ENOSYS);
}

static void
do_exec(const void *arg, struct outcome *o)
{
	static char *const argv[] = { (char *)"true", (char *)"--ward", NULL };

	(void)arg;
	errno = 0;
	o->ret = syscall(SYS_execve, "/bin/true", argv, environ);
	o->err = o->ret == -1 ? errno : 0;
}

static void
do_net(const void *arg, struct outcome *o)
{
	const int *which = arg;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int sv[2];

	snprintf(a.sun_path, sizeof a.sun_path, "%s/none.sock", tmp);
	o->ret = -1;
	o->err = 0;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) {
		o->err = errno;
		return;
	}
	errno = 0;
	switch (*which) {
	case 0:
		o->ret = connect(sv[0], (struct sockaddr *)&a, sizeof a);
		break;
	case 1:
		o->ret = sendto(sv[0], "x", 1, 0, (struct sockaddr *)&a,
		    sizeof a);
		break;
	default:
		/* connected already: a plain write */
		o->ret = sendto(sv[0], "x", 1, 0, NULL, 0);
		break;
	}
	o->err = o->ret == -1 ? errno : 0;
}

/* What is recorded: exec (with its path and argv readable), connect,
 * and sendto with an address; sendto without one is a write. */
static void
test_recorded(void **state)
{
	static const int connect_ = 0, sendto_addr = 1, sendto_plain = 2;
	struct trial t = {
		.fn = do_exec, .answer = EACCES, .path_arg = 0,
	};
	(void)state;
	run(&t);
	assert_reported(&t, "execve");
	assert_int_equal(t.n_notes, 1);
	assert_int_equal(t.notes[0].nr, SYS_execve);
	assert_string_equal(t.notes[0].path, "/bin/true");
	assert_int_equal(t.out.err, EACCES);

	t = (struct trial){ .fn = do_net, .arg = &connect_,
	    .answer = ECONNREFUSED, .path_arg = -1 };
	run(&t);
	assert_reported(&t, "connect");
	assert_int_equal(t.n_notes, 1);
	assert_int_equal(t.notes[0].nr, SYS_connect);
	assert_int_equal(t.out.err, ECONNREFUSED);

	t = (struct trial){ .fn = do_net, .arg = &sendto_addr,
	    .answer = ECONNREFUSED, .path_arg = -1 };
	run(&t);
	assert_reported(&t, "sendto with an address");
	assert_int_equal(t.n_notes, 1);
	assert_int_equal(t.notes[0].nr, SYS_sendto);
	assert_int_equal(t.out.err, ECONNREFUSED);

	t = (struct trial){ .fn = do_net, .arg = &sendto_plain,
	    .answer = ANSWER_NONE, .path_arg = -1 };
	run(&t);
	assert_reported(&t, "sendto without an address");
	assert_int_equal(t.n_notes, 0);
	assert_int_equal(t.out.ret, 1);
}

/* Personality flags that weaken the address space are refused. */
static void
test_personality(void **state)
{
	static const long weak[] = {
		0x0400000 /* READ_IMPLIES_EXEC */,
		0x0040000 /* ADDR_NO_RANDOMIZE */,
		0x0100000 /* MMAP_PAGE_ZERO */,
		0x0200000 /* ADDR_COMPAT_LAYOUT */,
	};
	size_t bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(weak); i++) {
		const struct sys s = { "personality", SYS_personality,
		    { weak[i] }, EPERM };
		struct trial t = {
			.fn = do_sys, .arg = &s, .answer = ANSWER_BLOCKED,
			.path_arg = -1,
		};

		run(&t);
		assert_reported(&t, s.name);
		if (t.n_notes != 1 || t.out.ret != -1 || t.out.err != EPERM) {
			print_error("personality(%#lx): %zu notification(s), "
			    "got %ld/%s; want one and -1/EPERM\n", weak[i],
			    t.n_notes, t.out.ret, errname(t.out.err));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	{
		/* PER_LINUX, the default: nothing to refuse */
		const struct sys s = { "personality(0)", SYS_personality,
		    { 0 }, 0 };
		struct trial t = {
			.fn = do_sys, .arg = &s, .answer = ANSWER_NONE,
			.path_arg = -1,
		};

		run(&t);
		assert_reported(&t, s.name);
		assert_int_equal(t.n_notes, 0);
		assert_int_equal(t.out.ret, 0);
	}
}

/* The harness itself: a child that is not filtered would pass nothing. */
static void
test_harness_sees_failure(void **state)
{
	struct trial t = {
		.fn = do_untrapped, .answer = ANSWER_NONE, .path_arg = -1,
	};
	struct sock_fprog saved = filt;

	(void)state;
	/* An empty program: filter_load fails, the child exits 82. */
	filt.len = 0;
	run(&t);
	filt = saved;
	assert_false(t.done);
	assert_true(WIFEXITED(t.status));
	assert_int_equal(WEXITSTATUS(t.status), 82);
}

/*
 * Calls newer than libseccomp 2.5.4's table that the kernel (6.18) has:
 * the filter names them by number.
 */

/* open_tree_attr (6.15) is of the mount family: refused, and seen. */
static void
test_open_tree_attr(void **state)
{
	const struct sys s = { "open_tree_attr", NR_open_tree_attr,
	    { AT_FDCWD, P("/nonexistent-ward-test"), 0, 0, 0 }, EPERM };
	struct trial t = {
		.fn = do_sys, .arg = &s, .answer = ANSWER_BLOCKED,
		.path_arg = -1,
	};

	(void)state;
	run(&t);
	assert_reported(&t, s.name);
	assert_int_equal(t.n_notes, 1);
	if (t.out.err != EPERM)
		print_error("open_tree_attr: got %ld/%s, want -1/EPERM\n",
		    t.out.ret, errname(t.out.err));
	assert_int_equal(t.out.err, EPERM);
}

/* setxattrat / removexattrat (6.13) change a path's xattrs like the
 * trapped setxattr / removexattr: they are seen and refused with ENOSYS,
 * which sends a caller back to the calls the supervisor judges. */
static void
test_xattrat(void **state)
{
	static const char p[] = "/nonexistent-ward-test/x";
	static const char name[] = "user.ward";
	/* struct xattr_args { value, size, flags } */
	static const struct { uint64_t value; uint32_t size, flags; } xa;
	const struct sys calls[] = {
		{ "setxattrat", NR_setxattrat, { AT_FDCWD, P(p), 0, P(name),
		    P(&xa), sizeof xa }, ENOSYS },
		{ "removexattrat", NR_removexattrat, { AT_FDCWD, P(p), 0,
		    P(name) }, ENOSYS },
	};
	size_t bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
		struct trial t = {
			.fn = do_sys, .arg = &calls[i], .path_arg = -1,
			.answer = ANSWER_BLOCKED,
		};

		run(&t);
		assert_reported(&t, calls[i].name);
		if (t.n_notes != 1 || t.out.err != ENOSYS) {
			print_error("%s: %zu notification(s), got %ld/%s; "
			    "want one, and -1/ENOSYS\n", calls[i].name,
			    t.n_notes, t.out.ret, errname(t.out.err));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/*
 * personality(0xffffffff) only asks for the current persona (setarch,
 * valgrind do), but has every weakening bit set: the filter traps it and
 * the supervisor lets exactly that value through (unotify.c on_blocked).
 * A value with bit 31 set besides a weakening bit is trapped too: the
 * filter no longer leaves bit 31 as a way around.
 */
static void
test_personality_query(void **state)
{
	const struct sys q = { "personality(0xffffffff)", SYS_personality,
	    { 0xffffffffL }, 0 };
	const struct sys b31 = { "personality(0x80040000)", SYS_personality,
	    { 0x80040000L }, EPERM };
	struct trial t = {
		.fn = do_sys, .arg = &q, .answer = ANSWER_BLOCKED,
		.path_arg = -1,
	};
	struct trial u = {
		.fn = do_sys, .arg = &b31, .answer = ANSWER_BLOCKED,
		.path_arg = -1,
	};

	(void)state;
	run(&t);
	assert_reported(&t, q.name);
	assert_int_equal(t.n_notes, 1);
	run(&u);
	assert_reported(&u, b31.name);
	if (u.n_notes != 1 || u.out.err != EPERM)
		print_error("personality(0x80040000): %zu notification(s), "
		    "got %ld/%s; want one and EPERM\n", u.n_notes,
		    u.out.ret, errname(u.out.err));
	assert_int_equal(u.n_notes, 1);
	assert_int_equal(u.out.err, EPERM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_harness_sees_failure),
		cmocka_unit_test(test_blocked),
		cmocka_unit_test(test_clone3),
		cmocka_unit_test(test_clone_ns),
		cmocka_unit_test(test_seccomp_own_filter),
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_open_continue),
		cmocka_unit_test(test_wait_killable),
		cmocka_unit_test(test_trapped_always),
		cmocka_unit_test(test_futimens_untrapped),
		cmocka_unit_test(test_untrapped),
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_personality),
		cmocka_unit_test(test_int80),
		cmocka_unit_test(test_x32),
		cmocka_unit_test(test_open_tree_attr),
		cmocka_unit_test(test_xattrat),
		cmocka_unit_test(test_personality_query),
	};
	int fails;

	fails = cmocka_run_group_tests_name("sup-filter", tests, setup,
	    teardown);
	return fails;
}
