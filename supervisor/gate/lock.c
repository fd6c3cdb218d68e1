/* SPDX-License-Identifier: MIT */
#include "supervisor/gate/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "config/util.h"

/* What the loop (relay.c, OpenSSL, malloc, the wire, stderr) calls. */
static const char *const allowed[] = {
	"read", "write", "writev", "close", "sendmsg", "recvmsg", "sendto",
	"recvfrom", "epoll_wait", "epoll_pwait", "epoll_ctl", "poll",
	"ppoll", "getsockopt", "shutdown", "brk", "munmap", "mremap",
	"madvise", "munlock", "futex", "getrandom", "clock_gettime",
	"clock_nanosleep", "gettimeofday", "time", "getpid", "gettid",
	"rt_sigreturn", "rt_sigprocmask", "exit", "exit_group",
	"newfstatat", "fstat", "lseek",
	/* ASan's and UBSan's reports (make asan, asan-live) */
	"sigaltstack",
};

/* What the login keeper (login.c) adds: a file rewritten in one folder
 * it opened before, a copy beside it made and removed. */
static const char *const keeper_adds[] = {
	"openat", "pwrite64", "ftruncate", "fsync", "unlinkat", "getuid",
};

static int
lock_with(const char *const *more, size_t n_more, char **cause)
{
	scmp_filter_ctx f;
	int r = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		set_cause(cause, "no_new_privs: %s", strerror(errno));
		return -errno;
	}
	if ((f = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL) {
		set_cause(cause, "seccomp_init failed");
		return -ENOMEM;
	}
	for (size_t i = 0; i < ARRAY_SIZE(allowed) && r == 0; i++) {
		int nr = seccomp_syscall_resolve_name(allowed[i]);

		if (nr != __NR_SCMP_ERROR)
			r = seccomp_rule_add(f, SCMP_ACT_ALLOW, nr, 0);
	}
	for (size_t i = 0; i < n_more && r == 0; i++) {
		int nr = seccomp_syscall_resolve_name(more[i]);

		if (nr != __NR_SCMP_ERROR)
			r = seccomp_rule_add(f, SCMP_ACT_ALLOW, nr, 0);
	}
	/* Memory, never executable: a bug in the parsers cannot map code. */
	if (r == 0)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (r == 0)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	/* fcntl: the flags of fds handed over (O_NONBLOCK), nothing else. */
	if (r == 0)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1,
		    SCMP_A1(SCMP_CMP_EQ, F_GETFL));
	if (r == 0)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1,
		    SCMP_A1(SCMP_CMP_EQ, F_SETFL));
	if (r == 0)
		r = seccomp_load(f);
	seccomp_release(f);
	if (r < 0)
		set_cause(cause, "the gate's seccomp filter: %s", strerror(-r));
	return r;
}

int
lock_apply(char **cause)
{
	return lock_with(NULL, 0, cause);
}

int
lock_apply_keeper(char **cause)
{
	return lock_with(keeper_adds, ARRAY_SIZE(keeper_adds), cause);
}
