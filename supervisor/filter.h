#pragma once
/*
 * The seccomp filter: built with libseccomp, exported as classic BPF and
 * loaded by the sandbox child with the raw seccomp() call, because
 * libseccomp 2.5.4 cannot set WAIT_KILLABLE_RECV.
 */
#include <linux/filter.h>
#include <stdbool.h>

struct filter {
	struct sock_fprog prog;		/* prog.filter is owned */
};

/* Builds the program in the supervisor, before clone (no allocation in
 * the child). 0 or -errno with *cause. */
int	filter_build(struct filter *, char **cause);
void	filter_done(struct filter *);
/* In the child: load with NEW_LISTENER|WAIT_KILLABLE_RECV; returns the
 * listener fd or -errno. Async-signal-safe. */
int	filter_load(const struct filter *);
/* A syscall the floor refuses: the supervisor answers -err and records
 * it under name (NULL: answered in BPF, not recorded). */
struct filter_blocked {
	int		 nr;
	int		 err;
	const char	*name;
};
const struct filter_blocked *filter_blocked(int nr);

/* Is this syscall number trapped (for the decoder's sanity check)? */
int	filter_is_trapped(int nr);
