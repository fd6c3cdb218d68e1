/* SPDX-License-Identifier: MIT */
#include "supervisor/filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "config/util.h"
#include "supervisor/compat.h"

/*
 * Calls that create or change a name or data (DESIGN §4) whose decision
 * needs the path: trapped. open/openat only when a write flag is set
 * (checked in BPF below); utimensat only with a path.
 */
static const int trapped_always[] = {
	SCMP_SYS(creat), SCMP_SYS(mkdir), SCMP_SYS(mkdirat),
	SCMP_SYS(mknod), SCMP_SYS(mknodat), SCMP_SYS(unlink),
	SCMP_SYS(unlinkat), SCMP_SYS(rmdir), SCMP_SYS(rename),
	SCMP_SYS(renameat), SCMP_SYS(renameat2), SCMP_SYS(link),
	SCMP_SYS(linkat), SCMP_SYS(symlink), SCMP_SYS(symlinkat),
	SCMP_SYS(truncate), SCMP_SYS(chmod), SCMP_SYS(fchmodat),
	__NR_fchmodat2, SCMP_SYS(chown), SCMP_SYS(lchown),
	SCMP_SYS(fchownat), SCMP_SYS(utime), SCMP_SYS(utimes),
	SCMP_SYS(futimesat), SCMP_SYS(setxattr), SCMP_SYS(lsetxattr),
	SCMP_SYS(removexattr), SCMP_SYS(lremovexattr),
};

/*
 * Calls that move a cwd: trapped (and continued) only so that the
 * supervisor can forget the cwds it keeps for the hot path (target.c).
 */
static const int trapped_cwd[] = { SCMP_SYS(chdir), SCMP_SYS(fchdir) };

/*
 * Refused outright: the kernel attack surface and the ways around the
 * floor (DESIGN §3). They are trapped rather than failed in BPF so that
 * every attempt is seen and recorded; the supervisor answers with the
 * errno below. Should the supervisor be gone, the kernel answers ENOSYS:
 * still a refusal.
 */
static const struct filter_blocked blocked[] = {
	{ SCMP_SYS(io_uring_setup), ENOSYS, "io_uring_setup" },
	{ SCMP_SYS(io_uring_enter), ENOSYS, "io_uring_enter" },
	{ SCMP_SYS(io_uring_register), ENOSYS, "io_uring_register" },
	/* clone3 keeps its flags in memory BPF cannot read: libc falls
	 * back to clone, whose flags we can check. Not recorded: libc
	 * tries it on every thread start. */
	{ SCMP_SYS(clone3), ENOSYS, NULL },
	/* openat2 hides its flags in struct open_how; glibc never calls it. */
	{ SCMP_SYS(openat2), ENOSYS, "openat2" },
	{ SCMP_SYS(ptrace), EPERM, "ptrace" },
	{ SCMP_SYS(process_vm_readv), EPERM, "process_vm_readv" },
	{ SCMP_SYS(process_vm_writev), EPERM, "process_vm_writev" },
	{ SCMP_SYS(bpf), EPERM, "bpf" },
	{ SCMP_SYS(perf_event_open), EPERM, "perf_event_open" },
	{ SCMP_SYS(userfaultfd), EPERM, "userfaultfd" },
	{ SCMP_SYS(keyctl), EPERM, "keyctl" },
	{ SCMP_SYS(add_key), EPERM, "add_key" },
	{ SCMP_SYS(request_key), EPERM, "request_key" },
	{ SCMP_SYS(mount), EPERM, "mount" },
	{ SCMP_SYS(umount2), EPERM, "umount2" },
	{ SCMP_SYS(pivot_root), EPERM, "pivot_root" },
	{ SCMP_SYS(move_mount), EPERM, "move_mount" },
	{ SCMP_SYS(open_tree), EPERM, "open_tree" },
	{ SCMP_SYS(fsopen), EPERM, "fsopen" },
	{ SCMP_SYS(fsconfig), EPERM, "fsconfig" },
	{ SCMP_SYS(fsmount), EPERM, "fsmount" },
	{ SCMP_SYS(fspick), EPERM, "fspick" },
	{ SCMP_SYS(mount_setattr), EPERM, "mount_setattr" },
	/* Newer than libseccomp 2.5.4 knows; by number (x86_64). */
	{ 467, EPERM, "open_tree_attr" },
	/* The *at xattr calls and file_setattr change metadata through
	 * arguments in memory; glibc does not use them yet: ENOSYS makes
	 * a caller fall back to the calls we judge. */
	{ 463, ENOSYS, "setxattrat" },
	{ 466, ENOSYS, "removexattrat" },
	{ 469, ENOSYS, "file_setattr" },
	{ SCMP_SYS(open_by_handle_at), EPERM, "open_by_handle_at" },
	{ SCMP_SYS(name_to_handle_at), EPERM, "name_to_handle_at" },
	{ SCMP_SYS(unshare), EPERM, "unshare" },
	{ SCMP_SYS(setns), EPERM, "setns" },
	{ SCMP_SYS(kexec_load), EPERM, "kexec_load" },
	{ SCMP_SYS(kexec_file_load), EPERM, "kexec_file_load" },
	{ SCMP_SYS(init_module), EPERM, "init_module" },
	{ SCMP_SYS(finit_module), EPERM, "finit_module" },
	{ SCMP_SYS(delete_module), EPERM, "delete_module" },
	{ SCMP_SYS(acct), EPERM, "acct" },
	{ SCMP_SYS(swapon), EPERM, "swapon" },
	{ SCMP_SYS(swapoff), EPERM, "swapoff" },
	{ SCMP_SYS(reboot), EPERM, "reboot" },
	{ SCMP_SYS(settimeofday), EPERM, "settimeofday" },
	{ SCMP_SYS(clock_settime), EPERM, "clock_settime" },
	{ SCMP_SYS(clock_adjtime), EPERM, "clock_adjtime" },
	{ SCMP_SYS(adjtimex), EPERM, "adjtimex" },
	/* Trapped only for the argument values checked in BPF below. */
	{ SCMP_SYS(clone), EPERM, "clone (new namespace)" },
	{ SCMP_SYS(ioctl), EPERM, "ioctl (TIOCSTI/TIOCLINUX)" },
	{ SCMP_SYS(seccomp), EPERM, "seccomp (new listener)" },
	{ SCMP_SYS(personality), EPERM, "personality" },
	/* errno by arguments: see unotify.c on_blocked. */
	{ SCMP_SYS(socket), EPERM, "socket" },
};

#ifndef WARD_FILTER_COMPILE
#include "filter-bpf.h"

const struct sock_fprog *
filter_program(void)
{
	static const struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter_bpf),
		.filter = (struct sock_filter *)filter_bpf,
	};

	return &prog;
}

int
filter_load(const struct sock_fprog *prog)
{
	long fd;

	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER |
	    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, prog);
	if (fd < 0)
		return -errno;
	return (int)fd;
}

const struct filter_blocked *
filter_blocked(int nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(blocked); i++)
		if (blocked[i].nr == nr)
			return &blocked[i];
	return NULL;
}

int
filter_is_trapped(int nr)
{
	if (filter_blocked(nr) != NULL || nr == SCMP_SYS(execve) ||
	    nr == SCMP_SYS(execveat) || nr == SCMP_SYS(connect) ||
	    nr == SCMP_SYS(sendto) || nr == SCMP_SYS(sendmsg) ||
	    nr == SCMP_SYS(sendmmsg) || nr == SCMP_SYS(bind) ||
	    nr == SCMP_SYS(listen))
		return 1;
	if (nr == SCMP_SYS(open) || nr == SCMP_SYS(openat) ||
	    nr == SCMP_SYS(utimensat))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(trapped_always); i++)
		if (trapped_always[i] == nr)
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(trapped_cwd); i++)
		if (trapped_cwd[i] == nr)
			return 1;
	return 0;
}

#else /* WARD_FILTER_COMPILE: libseccomp, in filter-gen and the tests */
#include <jansson.h>

/* The flags that make an open a write. O_TMPFILE is matched by its own
 * bit (__O_TMPFILE), not by O_TMPFILE, which contains O_DIRECTORY. */
static const unsigned long open_write_bits[] = {
	O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, 020000000,
};

/* Blocked only for some argument values (arg-checked rules below). */
static bool
blocked_by_args(int nr)
{
	return nr == SCMP_SYS(clone) || nr == SCMP_SYS(ioctl) ||
	    nr == SCMP_SYS(seccomp) || nr == SCMP_SYS(personality) ||
	    nr == SCMP_SYS(socket);
}

static const unsigned long clone_ns_bits[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME,
};

/* Personality flags that weaken the address space: READ_IMPLIES_EXEC,
 * ADDR_NO_RANDOMIZE, MMAP_PAGE_ZERO, ADDR_COMPAT_LAYOUT. The query
 * 0xffffffff has them all set too: the supervisor lets exactly that value
 * through (unotify.c). */
static const unsigned long personality_bits[] = {
	0x0400000, 0x0040000, 0x0100000, 0x0200000,
};

/*
 * Where the rules go. One list of rules, two outputs: libseccomp's ctx,
 * compiled to the BPF ward carries (filter_compile), or the "syscalls"
 * array of an OCI runtime's seccomp profile (filter_profile, for `ward oci
 * profile`), which the runtime hands to its own libseccomp. Exactly one of
 * the two is set.
 */
struct filter_sink {
	scmp_filter_ctx	 ctx;
	json_t		*syscalls;
};

/* Numbers newer than libseccomp 2.5.4 knows: the profile names them (a
 * runtime reads names, not numbers). x86_64's, as the table above. */
static const struct {
	int		 nr;
	const char	*name;
} syscall_names[] = {
	{ __NR_fchmodat2, "fchmodat2" },
	{ 463, "setxattrat" },
	{ 466, "removexattrat" },
	{ 467, "open_tree_attr" },
	{ 469, "file_setattr" },
};

/* runtime-spec's names of libseccomp's comparisons (config-linux.md). */
static const char *const cmp_names[] = {
	[SCMP_CMP_NE] = "SCMP_CMP_NE",
	[SCMP_CMP_LT] = "SCMP_CMP_LT",
	[SCMP_CMP_LE] = "SCMP_CMP_LE",
	[SCMP_CMP_EQ] = "SCMP_CMP_EQ",
	[SCMP_CMP_GE] = "SCMP_CMP_GE",
	[SCMP_CMP_GT] = "SCMP_CMP_GT",
	[SCMP_CMP_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
};

/* nr's name for the profile: libseccomp's, else the table's; NULL if
 * neither knows it. The caller frees. */
static char *
syscall_name(int nr)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

	if (name != NULL)
		return name;
	for (size_t i = 0; i < ARRAY_SIZE(syscall_names); i++)
		if (syscall_names[i].nr == nr)
			return xstrdup(syscall_names[i].name);
	return NULL;
}

/* One rule as one entry of the profile's "syscalls": its args are ANDed,
 * as libseccomp's are, when each names its own index (a runtime splits
 * two conditions on one index into two rules: none of ours does). */
static int
add_profile(json_t *syscalls, uint32_t action, int nr, unsigned int n,
    const struct scmp_arg_cmp *cmp, char **cause)
{
	cleanup_free char *name = syscall_name(nr);
	json_t *e, *args;
	unsigned int seen = 0;

	if (name == NULL) {
		*cause = xasprintf("syscall %d has no name for the profile: "
		    "add it to filter.c's syscall_names", nr);
		return -EINVAL;
	}
	e = json_object();
	json_object_set_new(e, "names", json_pack("[s]", name));
	if (action == SCMP_ACT_NOTIFY) {
		json_object_set_new(e, "action", json_string("SCMP_ACT_NOTIFY"));
	} else if ((action & ~0xffffU) == SCMP_ACT_ERRNO(0)) {
		json_object_set_new(e, "action", json_string("SCMP_ACT_ERRNO"));
		json_object_set_new(e, "errnoRet",
		    json_integer(action & 0xffffU));
	} else {
		*cause = xasprintf("seccomp rule for %s: action 0x%x has no "
		    "OCI name here", name, action);
		json_decref(e);
		return -EINVAL;
	}
	args = json_array();
	for (unsigned int i = 0; i < n; i++) {
		if (cmp[i].arg > 5 || (seen & (1U << cmp[i].arg)) != 0 ||
		    cmp[i].op <= 0 || (size_t)cmp[i].op >= ARRAY_SIZE(cmp_names) ||
		    cmp_names[cmp[i].op] == NULL ||
		    cmp[i].datum_a > INT64_MAX || cmp[i].datum_b > INT64_MAX) {
			*cause = xasprintf("seccomp rule for %s: argument %u "
			    "cannot be said in a profile", name, i);
			json_decref(args);
			json_decref(e);
			return -EINVAL;
		}
		seen |= 1U << cmp[i].arg;
		/* For MASKED_EQ, value is the mask and valueTwo the datum,
		 * as libseccomp's datum_a and datum_b. */
		json_array_append_new(args, json_pack("{s:I,s:I,s:I,s:s}",
		    "index", (json_int_t)cmp[i].arg,
		    "value", (json_int_t)cmp[i].datum_a,
		    "valueTwo", (json_int_t)cmp[i].datum_b,
		    "op", cmp_names[cmp[i].op]));
	}
	if (n > 0)
		json_object_set_new(e, "args", args);
	else
		json_decref(args);
	json_array_append_new(syscalls, e);
	return 0;
}

static int
add(struct filter_sink *sink, uint32_t action, int nr, unsigned int n,
    const struct scmp_arg_cmp *cmp, char **cause)
{
	int r;

	if (sink->syscalls != NULL)
		return add_profile(sink->syscalls, action, nr, n, cmp, cause);
	if ((r = seccomp_rule_add_array(sink->ctx, action, nr, n, cmp)) < 0) {
		cleanup_free char *name = syscall_name(nr);

		*cause = xasprintf("seccomp rule for %s: %s",
		    name ? name : "?", strerror(-r));
	}
	return r;
}

/* Writes: the calls that always change a name, open and openat with a write
 * flag, utimensat on a path. */
static int
rules_writes(struct filter_sink *sink, char **cause)
{
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(trapped_always); i++)
		if ((r = add(sink, SCMP_ACT_NOTIFY, trapped_always[i], 0, NULL,
		    cause)) < 0)
			return r;
	for (size_t i = 0; i < ARRAY_SIZE(trapped_cwd); i++)
		if ((r = add(sink, SCMP_ACT_NOTIFY, trapped_cwd[i], 0, NULL,
		    cause)) < 0)
			return r;
	for (size_t i = 0; i < ARRAY_SIZE(open_write_bits); i++) {
		unsigned long b = open_write_bits[i];
		struct scmp_arg_cmp a1 = SCMP_A1(SCMP_CMP_MASKED_EQ, b, b);
		struct scmp_arg_cmp a2 = SCMP_A2(SCMP_CMP_MASKED_EQ, b, b);

		if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(open), 1, &a1,
		    cause)) < 0 ||
		    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1, &a2,
		    cause)) < 0)
			return r;
	}
	{
		/* utimensat(fd, NULL, ...) is futimens: the fd is the floor. */
		struct scmp_arg_cmp a = SCMP_A1(SCMP_CMP_NE, 0);

		if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(utimensat), 1, &a,
		    cause)) < 0)
			return r;
	}

	return 0;
}

/* The refused outright: the blocked table, clone with a namespace flag. */
static int
rules_blocked(struct filter_sink *sink, char **cause)
{
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(blocked); i++) {
		/* clone3 is answered in BPF: no record, no round trip. */
		uint32_t act = blocked[i].name == NULL ?
		    SCMP_ACT_ERRNO(blocked[i].err) : SCMP_ACT_NOTIFY;

		if (blocked_by_args(blocked[i].nr))
			continue;
		if ((r = add(sink, act, blocked[i].nr, 0, NULL, cause)) < 0)
			return r;
	}
	for (size_t i = 0; i < ARRAY_SIZE(clone_ns_bits); i++) {
		unsigned long b = clone_ns_bits[i];
		struct scmp_arg_cmp a = SCMP_A0(SCMP_CMP_MASKED_EQ, b, b);

		if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(clone), 1,
		    &a, cause)) < 0)
			return r;
	}
	return 0;
}

/* Sockets of families past the network namespace, raw and packet
 * sockets, and personality flags that weaken the address space. */
static int
rules_sockets(struct filter_sink *sink, char **cause)
{
	int r;

	{
		/* Raw and packet sockets: the program has no CAP_NET_RAW, so
		 * the kernel would refuse them; trapped to be seen. */
		struct scmp_arg_cmp pkt = SCMP_A0(SCMP_CMP_EQ, AF_PACKET);
		struct scmp_arg_cmp raw = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf,
		    SOCK_RAW);
		struct scmp_arg_cmp pk2 = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf,
		    SOCK_PACKET);

		/* Families beyond unix, inet, inet6 and netlink (vsock,
		 * bluetooth, can ...) reach past the network namespace or
		 * into drivers: refused, recorded. */
		for (unsigned long fam = 0; fam < 18; fam++) {
			struct scmp_arg_cmp fc = SCMP_A0(SCMP_CMP_EQ, fam);

			if (fam == AF_UNIX || fam == AF_INET || fam == AF_INET6 ||
			    fam == AF_NETLINK || fam == AF_PACKET)
				continue;
			if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 1,
			    &fc, cause)) < 0)
				return r;
		}
		{
			struct scmp_arg_cmp fc = SCMP_A0(SCMP_CMP_GE, 18);

			if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 1,
			    &fc, cause)) < 0)
				return r;
		}
		if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 1, &pkt,
		    cause)) < 0)
			return r;
		/* Raw IP only: netlink sockets are SOCK_RAW too, and every
		 * libuv and iproute2 opens one (inside its own namespace). */
		for (int i = 0; i < 2; i++) {
			struct scmp_arg_cmp fam[2] = {
				SCMP_A0(SCMP_CMP_EQ, AF_INET),
				SCMP_A0(SCMP_CMP_EQ, AF_INET6),
			};
			struct scmp_arg_cmp both[2] = { fam[i], raw };
			struct scmp_arg_cmp both2[2] = { fam[i], pk2 };

			if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 2,
			    both, cause)) < 0 ||
			    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 2,
			    both2, cause)) < 0)
				return r;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(personality_bits); i++) {
		unsigned long b = personality_bits[i];
		struct scmp_arg_cmp a = SCMP_A0(SCMP_CMP_MASKED_EQ, b, b);

		if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(personality), 1,
		    &a, cause)) < 0)
			return r;
	}
	return 0;
}

/* Execs, connects, datagrams with an address, Fast Open, bind and
 * listen. */
static int
rules_exec_net(struct filter_sink *sink, char **cause)
{
	int r;

	/* Recorded and continued: what ran (DESIGN §6), and where the
	 * program tried to connect (the empty network namespace is the
	 * floor until approvals of network hosts arrive). */
	if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(execve), 0, NULL,
	    cause)) < 0 ||
	    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(execveat), 0, NULL,
	    cause)) < 0 ||
	    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0, NULL,
	    cause)) < 0)
		return r;
	{
		/* sendto with an address: a datagram to somewhere. Without
		 * one it is a write on a connected socket: not trapped. */
		struct scmp_arg_cmp a = SCMP_A4(SCMP_CMP_NE, 0);
		/* TCP Fast Open: a connect hidden in a send. */
		struct scmp_arg_cmp fo3 = SCMP_A3(SCMP_CMP_MASKED_EQ,
		    MSG_FASTOPEN, MSG_FASTOPEN);
		struct scmp_arg_cmp fo2 = SCMP_A2(SCMP_CMP_MASKED_EQ,
		    MSG_FASTOPEN, MSG_FASTOPEN);

		if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, &a,
		    cause)) < 0 ||
		    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, &fo3,
		    cause)) < 0 ||
		    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(sendmsg), 1, &fo2,
		    cause)) < 0 ||
		    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(sendmmsg), 1, &fo3,
		    cause)) < 0 ||
		    /* Only the sandbox's own sockets may bind or listen: a
		     * connection swapped in from the host's may not. */
		    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(bind), 0, NULL,
		    cause)) < 0 ||
		    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(listen), 0, NULL,
		    cause)) < 0)
			return r;
	}
	return 0;
}

/* ioctls that push input or reach the console driver, and a listener of
 * the sandbox's own. */
static int
rules_ioctl(struct filter_sink *sink, char **cause)
{
	int r;

	{
		/* The kernel compares only the low 32 bits of the request. */
		struct scmp_arg_cmp sti = SCMP_A1(SCMP_CMP_MASKED_EQ,
		    0xffffffffUL, TIOCSTI);
		struct scmp_arg_cmp lnx = SCMP_A1(SCMP_CMP_MASKED_EQ,
		    0xffffffffUL, TIOCLINUX);
		/* A listener of the sandbox's own could answer our traps. */
		struct scmp_arg_cmp lis = SCMP_A1(SCMP_CMP_MASKED_EQ,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER);

		if ((r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(ioctl), 1,
		    &sti, cause)) < 0 ||
		    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(ioctl), 1,
		    &lnx, cause)) < 0 ||
		    (r = add(sink, SCMP_ACT_NOTIFY, SCMP_SYS(seccomp), 1,
		    &lis, cause)) < 0)
			return r;
	}

	return 0;
}

/* In this order: the program compiled is compared, instruction by
 * instruction, with the one the supervisor carries, and the profile,
 * rebuilt into libseccomp by the tests, compiles to that program too. */
static int
rules_all(struct filter_sink *sink, char **cause)
{
	int r;

	if ((r = rules_writes(sink, cause)) < 0 ||
	    (r = rules_blocked(sink, cause)) < 0 ||
	    (r = rules_sockets(sink, cause)) < 0 ||
	    (r = rules_exec_net(sink, cause)) < 0 ||
	    (r = rules_ioctl(sink, cause)) < 0)
		return r;
	return 0;
}

/* ctx as a BPF program the kernel loads. */
static int
export_bpf(scmp_filter_ctx ctx, struct sock_fprog *prog, char **cause)
{
	cleanup_fd int mfd = -1;
	struct stat st;
	int r;

	if ((mfd = memfd_create("ward-filter", MFD_CLOEXEC)) < 0) {
		r = -errno;
		*cause = xasprintf("memfd_create: %s", strerror(errno));
		return r;
	}
	if ((r = seccomp_export_bpf(ctx, mfd)) < 0) {
		*cause = xasprintf("seccomp_export_bpf: %s", strerror(-r));
		return r;
	}
	if (fstat(mfd, &st) < 0 || st.st_size <= 0 ||
	    st.st_size % sizeof(struct sock_filter) != 0) {
		r = -EINVAL;
		*cause = xstrdup("seccomp_export_bpf wrote no program");
		return r;
	}
	prog->len = (unsigned short)(st.st_size / sizeof(struct sock_filter));
	prog->filter = xmalloc((size_t)st.st_size);
	if (pread(mfd, prog->filter, (size_t)st.st_size, 0) != st.st_size) {
		r = -EIO;
		*cause = xstrdup("reading the exported filter failed");
		free(prog->filter);
		memset(prog, 0, sizeof *prog);
		return r;
	}
	return 0;
}

int
filter_compile(struct sock_fprog *prog, char **cause)
{
	scmp_filter_ctx ctx;
	int r;

	memset(prog, 0, sizeof *prog);
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		*cause = xstrdup("seccomp_init failed");
		return -ENOMEM;
	}
	/* int 0x80 (i386) and x32 numbers would bypass every rule below.
	 * They are trapped so that the supervisor records the attempt and
	 * kills the process; with no supervisor the call fails ENOSYS. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_NOTIFY);
	if (r < 0) {
		*cause = xasprintf("seccomp bad-arch action: %s", strerror(-r));
		goto out;
	}
	/* The syscall numbers as a binary tree, not a chain: every call the
	 * program makes runs this program, and a chain makes an untrapped
	 * call (read, mmap, ...) walk past every rule first. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r < 0) {
		*cause = xasprintf("seccomp binary tree: %s", strerror(-r));
		goto out;
	}

	if ((r = rules_all(&(struct filter_sink){ .ctx = ctx }, cause)) < 0)
		goto out;
	r = export_bpf(ctx, prog, cause);
out:
	seccomp_release(ctx);
	return r;
}

int
filter_profile(char **json, char **cause)
{
	json_t *syscalls = json_array();
	json_t *p;
	int r;

	*json = NULL;
	if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
		*cause = xstrdup("the OCI profile is written for x86_64 only");
		json_decref(syscalls);
		return -ENOTSUP;
	}
	if ((r = rules_all(&(struct filter_sink){ .syscalls = syscalls },
	    cause)) < 0) {
		json_decref(syscalls);
		return r;
	}
	/* What filter_compile's attributes become. The default is ALLOW, as
	 * there. Its bad-arch action (NOTIFY: int 0x80 and x32 numbers
	 * would bypass every rule) has no field in runtime-spec: the profile
	 * names x86_64 alone, and a call of another ABI gets what the
	 * runtime's libseccomp does with an architecture the filter lacks
	 * (runc 1.1.5: KILL_THREAD; an x32 call dies of SIGSYS). A runtime
	 * drops, silently, a rule whose name its libseccomp lacks (runc
	 * 1.1.5 with libseccomp 2.5.4: the four past fchmodat2 in
	 * syscall_names): those calls are then not trapped at all. The
	 * binary tree (CTL_OPTIMIZE) is the runtime's to choose, and so is
	 * WAIT_KILLABLE_RECV, which runc 1.1 cannot set: a signal to a
	 * container's process interrupts its wait for ward's answer. */
	p = json_pack("{s:s,s:[s],s:o}", "defaultAction", "SCMP_ACT_ALLOW",
	    "architectures", "SCMP_ARCH_X86_64", "syscalls", syscalls);
	if (p == NULL || (*json = json_dumps(p, JSON_COMPACT)) == NULL) {
		json_decref(p);
		*cause = xstrdup("the profile could not be written as JSON");
		return -ENOMEM;
	}
	json_decref(p);
	return 0;
}
#endif
