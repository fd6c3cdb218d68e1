/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A real seccomp listener, as a runtime hands one over: the calling
 * process (a forked child, as a rule) installs a trivial filter (getppid
 * notifies, the rest is allowed) with SECCOMP_FILTER_FLAG_NEW_LISTENER.
 * The listener fd, or -1 with errno. For the tests of ward oci serve and
 * of a container's supervisor, and tests/live/ocisend.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int
test_listener_new(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { .len = sizeof f / sizeof f[0], .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &p);
}
