/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * One run of the battery: ward-supervisor started the way `ward run`
 * starts it (approvals/launch.h: the run id comes on the ready fd), its
 * control socket answered (every request denied at once), its output,
 * its end and its processes watched, then its record read.
 */
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "probe/judge.h"
#include "probe/state.h"
#include "probe/setup.h"

struct audit;

/* Set by SIGINT, SIGTERM, SIGHUP: stop the run in progress, clean up
 * (the secret in the home above all) and leave. */
extern volatile sig_atomic_t probe_stop;


/* r zeroed but for o.def, pidfd -1 and o.exit_code -1. Starts the
 * supervisor and waits for it to say it is ready; its stdout and
 * stderr come back in *out_fd and *err_fd. A run that never got ready
 * leaves o.id empty. */
int	probe_spawn(struct probe *p, const char *policy, struct probe_run *r,
	    int *out_fd, int *err_fd, char **cause);
/* The run's loop, until the supervisor is gone and its pipes closed. */
void	probe_run_loop(const struct probe *p, struct probe_run *r,
	    int out_fd, int err_fd);
/* The run's events, its row and its recorded output, from the record
 * (paths_audit_db) into r->o; no record at all is no harness error. */
int	probe_read_record(struct probe_run *r, char **cause);
/* The same from an open record, for o->id: 0 or -errno with *cause. */
int	probe_record_read(struct audit *a, struct probe_obs *o,
	    char **cause);
void	probe_run_done(struct probe_run *r);
