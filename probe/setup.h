/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The battery's setup: the policy and its copies, the temp folder and
 * the canary in it, the secret planted in the home and in our
 * environment, the program shown to each sandbox, the host's listeners,
 * the packet watch (root), the made-up DNS name and the race's script.
 * All undone by probe_teardown.
 */
#include <stdbool.h>
#include <stddef.h>

#include "probe/defs.h"
#include "probe/judge.h"
#include "probe/state.h"


/* All of it, or -errno with *cause; probe_teardown either way. */
int	probe_setup(struct probe *p, const char *policy_arg, char **cause);
void	probe_teardown(struct probe *p);
/* What the judge needs to know of it. */
struct probe_env probe_env_of(const struct probe *p);
/* The overrides a probe needs, as the report names them (NULL: only
 * what every run gets). */
const char *probe_overrides(const struct probe_def *d);
/* The policy copy for one probe, written into the temp folder. */
int	probe_write_policy(struct probe *p, const struct probe_def *d,
	    char **path, char **cause);
/* The canary, made afresh. */
int	probe_make_canary(struct probe *p, char **cause);
/* The writable folder and its target (state.h), made anew. */
int	probe_make_wr(struct probe *p, char **cause);
/* Remove the canary folder (after an escape changed it). */
void	probe_remove_tree(const char *dir);
/* --keep: a run's stdout or stderr into the temp folder. */
void	probe_keep_file(const struct probe *p, const char *name,
	    const char *ext, const struct probe_buf *b);
