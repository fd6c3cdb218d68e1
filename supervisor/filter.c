#include "supervisor/filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* The flags that make an open a write. O_TMPFILE is matched by its own
 * bit (__O_TMPFILE), not by O_TMPFILE, which contains O_DIRECTORY. */
static const unsigned long open_write_bits[] = {
	O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, 020000000,
};

/* Refused outright: the kernel attack surface and the ways around the
 * floor (DESIGN §3). More, and recording them, comes with `ward probe`. */
static const struct {
	int	nr;
	int	err;
} denied[] = {
	{ SCMP_SYS(io_uring_setup), ENOSYS },
	{ SCMP_SYS(io_uring_enter), ENOSYS },
	{ SCMP_SYS(io_uring_register), ENOSYS },
	/* clone3 keeps its flags in memory BPF cannot read: libc falls
	 * back to clone, whose flags we can check. */
	{ SCMP_SYS(clone3), ENOSYS },
	/* openat2 hides its flags in struct open_how; glibc never calls it. */
	{ SCMP_SYS(openat2), ENOSYS },
	{ SCMP_SYS(ptrace), EPERM },
	{ SCMP_SYS(process_vm_readv), EPERM },
	{ SCMP_SYS(process_vm_writev), EPERM },
	{ SCMP_SYS(bpf), EPERM },
	{ SCMP_SYS(perf_event_open), EPERM },
	{ SCMP_SYS(userfaultfd), EPERM },
	{ SCMP_SYS(keyctl), EPERM },
	{ SCMP_SYS(add_key), EPERM },
	{ SCMP_SYS(request_key), EPERM },
	{ SCMP_SYS(mount), EPERM },
	{ SCMP_SYS(umount2), EPERM },
	{ SCMP_SYS(pivot_root), EPERM },
	{ SCMP_SYS(move_mount), EPERM },
	{ SCMP_SYS(open_tree), EPERM },
	{ SCMP_SYS(fsopen), EPERM },
	{ SCMP_SYS(fsconfig), EPERM },
	{ SCMP_SYS(fsmount), EPERM },
	{ SCMP_SYS(fspick), EPERM },
	{ SCMP_SYS(mount_setattr), EPERM },
	{ SCMP_SYS(open_by_handle_at), EPERM },
	{ SCMP_SYS(name_to_handle_at), EPERM },
	{ SCMP_SYS(unshare), EPERM },
	{ SCMP_SYS(setns), EPERM },
	{ SCMP_SYS(kexec_load), EPERM },
	{ SCMP_SYS(kexec_file_load), EPERM },
	{ SCMP_SYS(init_module), EPERM },
	{ SCMP_SYS(finit_module), EPERM },
	{ SCMP_SYS(delete_module), EPERM },
	{ SCMP_SYS(acct), EPERM },
	{ SCMP_SYS(swapon), EPERM },
	{ SCMP_SYS(swapoff), EPERM },
	{ SCMP_SYS(reboot), EPERM },
	{ SCMP_SYS(settimeofday), EPERM },
	{ SCMP_SYS(clock_settime), EPERM },
	{ SCMP_SYS(clock_adjtime), EPERM },
	{ SCMP_SYS(adjtimex), EPERM },
};

static const unsigned long clone_ns_bits[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME,
};

int
filter_is_trapped(int nr)
{
	if (nr == SCMP_SYS(open) || nr == SCMP_SYS(openat) ||
	    nr == SCMP_SYS(utimensat))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(trapped_always); i++)
		if (trapped_always[i] == nr)
			return 1;
	return 0;
}

static int
add(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned int n,
    const struct scmp_arg_cmp *cmp, char **cause)
{
	int r = seccomp_rule_add_array(ctx, action, nr, n, cmp);

	if (r < 0) {
		char *name = seccomp_syscall_resolve_num_arch(
		    SCMP_ARCH_NATIVE, nr);

		*cause = xasprintf("seccomp rule for %s: %s",
		    name ? name : "?", strerror(-r));
		free(name);
	}
	return r;
}

int
filter_build(struct filter *f, char **cause)
{
	scmp_filter_ctx ctx;
	cleanup_fd int mfd = -1;
	struct stat st;
	int r;

	memset(f, 0, sizeof *f);
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		*cause = xstrdup("seccomp_init failed");
		return -ENOMEM;
	}
	/* int 0x80 (i386) and x32 numbers would bypass every rule below. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS);
	if (r < 0) {
		*cause = xasprintf("seccomp bad-arch action: %s", strerror(-r));
		goto out;
	}

	for (size_t i = 0; i < ARRAY_SIZE(trapped_always); i++)
		if ((r = add(ctx, SCMP_ACT_NOTIFY, trapped_always[i], 0, NULL,
		    cause)) < 0)
			goto out;
	for (size_t i = 0; i < ARRAY_SIZE(open_write_bits); i++) {
		unsigned long b = open_write_bits[i];
		struct scmp_arg_cmp a1 = SCMP_A1(SCMP_CMP_MASKED_EQ, b, b);
		struct scmp_arg_cmp a2 = SCMP_A2(SCMP_CMP_MASKED_EQ, b, b);

		if ((r = add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(open), 1, &a1,
		    cause)) < 0 ||
		    (r = add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1, &a2,
		    cause)) < 0)
			goto out;
	}
	{
		/* utimensat(fd, NULL, ...) is futimens: the fd is the floor. */
		struct scmp_arg_cmp a = SCMP_A1(SCMP_CMP_NE, 0);

		if ((r = add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(utimensat), 1, &a,
		    cause)) < 0)
			goto out;
	}

	for (size_t i = 0; i < ARRAY_SIZE(denied); i++)
		if ((r = add(ctx, SCMP_ACT_ERRNO(denied[i].err), denied[i].nr,
		    0, NULL, cause)) < 0)
			goto out;
	for (size_t i = 0; i < ARRAY_SIZE(clone_ns_bits); i++) {
		unsigned long b = clone_ns_bits[i];
		struct scmp_arg_cmp a = SCMP_A0(SCMP_CMP_MASKED_EQ, b, b);

		if ((r = add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
		    &a, cause)) < 0)
			goto out;
	}
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

		if ((r = add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
		    &sti, cause)) < 0 ||
		    (r = add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
		    &lnx, cause)) < 0 ||
		    (r = add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 1,
		    &lis, cause)) < 0)
			goto out;
	}

	if ((mfd = memfd_create("ward-filter", MFD_CLOEXEC)) < 0) {
		r = -errno;
		*cause = xasprintf("memfd_create: %s", strerror(errno));
		goto out;
	}
	if ((r = seccomp_export_bpf(ctx, mfd)) < 0) {
		*cause = xasprintf("seccomp_export_bpf: %s", strerror(-r));
		goto out;
	}
	if (fstat(mfd, &st) < 0 || st.st_size <= 0 ||
	    st.st_size % sizeof(struct sock_filter) != 0) {
		r = -EINVAL;
		*cause = xstrdup("seccomp_export_bpf wrote no program");
		goto out;
	}
	f->prog.len = (unsigned short)(st.st_size / sizeof(struct sock_filter));
	f->prog.filter = xmalloc((size_t)st.st_size);
	if (pread(mfd, f->prog.filter, (size_t)st.st_size, 0) != st.st_size) {
		r = -EIO;
		*cause = xstrdup("reading the exported filter failed");
		filter_done(f);
		goto out;
	}
	r = 0;
out:
	seccomp_release(ctx);
	return r;
}

void
filter_done(struct filter *f)
{
	free(f->prog.filter);
	f->prog.filter = NULL;
	f->prog.len = 0;
}

int
filter_load(const struct filter *f)
{
	long fd;

	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER |
	    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &f->prog);
	if (fd < 0)
		return -errno;
	return (int)fd;
}
