/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Kernel constants that Debian 12's headers (linux-libc-dev 6.1) lack.
 * ward probes at run time for everything here; nothing is assumed.
 */
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV	(1ULL << 15)
#endif

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

/* struct landlock_ruleset_attr as of ABI 6 (the 6.1 header stops at
 * handled_access_fs). Passed with the size the running ABI knows. */
struct landlock_ruleset_attr_v6 {
	__u64	handled_access_fs;
	__u64	handled_access_net;
	__u64	scoped;
};
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL			(1ULL << 1)
#endif
