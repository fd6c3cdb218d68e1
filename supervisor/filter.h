/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The seccomp filter. Its rules are fixed, so libseccomp compiles them to
 * classic BPF once, when ward is built (filter_compile() in filter-gen,
 * which writes build/gen/filter-bpf.h); the supervisor carries the
 * program and never runs libseccomp: a millisecond and a library less at
 * every start. The sandbox child loads it with the raw seccomp() call,
 * because libseccomp 2.5.4 cannot set WAIT_KILLABLE_RECV.
 */
#include <linux/filter.h>
#include <stdbool.h>

/* The program ward was built with. */
const struct sock_fprog *filter_program(void);
/* In the child: load with NEW_LISTENER|WAIT_KILLABLE_RECV; returns the
 * listener fd or -errno. Async-signal-safe. */
int	filter_load(const struct sock_fprog *);

/* libseccomp, at build time (filter-gen) and in the tests, which check
 * that the carried program is what the rules compile to now. Fills *prog
 * (prog->filter is the caller's to free); 0 or -errno with *cause. */
int	filter_compile(struct sock_fprog *prog, char **cause);
/* The same rules as an OCI runtime's seccomp profile (runtime-spec
 * linux.seccomp, without the listener's fields), compact JSON in *json
 * (the caller's to free): filter-gen writes it into
 * build/gen/oci-profile.h for `ward oci profile`. 0 or -errno with
 * *cause. */
int	filter_profile(char **json, char **cause);
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
