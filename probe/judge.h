/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The judging: what one run was seen to do, from outside and in the
 * record, turned into a verdict and the report's words. Plain data in,
 * plain data out: nothing here launches, reads /proc or opens the
 * record, so the tests feed it observations as they please.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "approvals/request.h"
#include "probe/common.h"
#include "probe/defs.h"

enum probe_verdict {
	PV_BLOCKED,	/* stopped, and in the record */
	PV_ALLOWED,	/* allowed by design, and in the record */
	PV_ESCAPED,	/* the effect happened */
	PV_UNRECORDED,	/* stopped, but not in the record */
	PV_ERROR,	/* the harness could not judge it */
};

/* One event of the run's record. */
struct probe_event {
	enum request_kind kind;
	enum verdict	 verdict;
	enum how	 how;
	pid_t		 pid;
	char		*syscall, *subject, *subject2, *detail, *rule;
};

/* An exec of the race's script, seen running from outside: its pid,
 * and the path and arguments the kernel took (from /proc/PID/cmdline,
 * past the #! interpreter and its argument). */
struct probe_raced {
	pid_t		 pid;
	char		*path, *args;
};

/* What the outside saw of one run's network. */
struct probe_outside {
	unsigned	 conns;		/* the TCP listener accepted */
	unsigned	 dgrams;	/* the UDP listener received */
	unsigned	 to_out;	/* packets to 192.0.2.1 */
	unsigned	 dns_name;	/* DNS packets carrying the made-up name */
	unsigned	 exec_opens;	/* the race's script opened for exec */
};

/* Everything seen of one run: by the run's loop, by the samples of
 * /proc, by the watches, and in the record. Owned strings, freed by
 * probe_obs_done. */
struct probe_obs {
	const struct probe_def *def;
	char		 id[9];
	int		 wstatus;	/* the supervisor's */
	bool		 hard_killed;	/* ward probe killed it, past the guard */
	int64_t		 t0, t1;	/* monotonic: started, supervisor gone */
	struct probe_buf out, err;	/* the run's stdout and stderr */
	unsigned	 requests;	/* requests denied at once */
	char		*canary_diff;	/* the canary's changes, NULL: none */
	struct probe_outside outside;
	/* Sampled from outside. */
	unsigned	 samples, peak_tasks, leftover;
	uint64_t	 peak_rss, rss_over;
	bool		 new_userns;
	bool		 host_ns;	/* init shares our pid namespace */
	/* The network, sampled from outside. */
	unsigned	 host_socks;	/* supervisor sockets to 192.0.2.1/169.254/16 */
	unsigned	 sup_dns;	/* supervisor sockets to a port 53 */
	bool		 sup_seen;	/* its fd table was read */
	unsigned	 raw_socks;	/* raw/packet sockets in the sandbox */
	bool		 raw_seen;	/* the sandbox's tables were read */
	struct probe_raced *raced;
	size_t		 n_raced;
	bool		 net_shared;	/* the sandbox has the host's network */
	/* The record. */
	struct probe_event *events;
	size_t		 n_events;
	bool		 have_run;
	char		*end_reason, *limits;
	int		 exit_code;
	int64_t		 ended_ms;
	char		*output;
	size_t		 output_len;
};

/* What the judge knows of the battery's setup. */
struct probe_env {
	const char	*canary;	/* %c */
	const char	*tools;		/* %t */
	const char	*dnsname;	/* %n */
	unsigned	 port, uport;	/* %p, %u */
	const char	*token;		/* the planted secret */
	unsigned	 pids;		/* the policy's pids limit (0: none) */
	bool		 int80;		/* the host kernel runs int $0x80 */
	bool		 packet_watch;	/* root's packet watch was on */
};

struct probe_result {
	const struct probe_def *def;
	char		 run[9];
	int		 status;	/* the run's exit status, -1 if none */
	int64_t		 elapsed_ms;
	enum probe_verdict verdict;
	char		*stopped;
	char		*record;
	const char	*overrides;
	char	       **problems;
	size_t		 n_problems;
	unsigned	 requests, peak_tasks;
	uint64_t	 peak_rss;
};

/* Judge one run into res (zeroed, or as probe_one prepares it: def,
 * status -1, overrides). */
void	 probe_judge(const struct probe_env *p, const struct probe_obs *r,
	    struct probe_result *res);
/* Text with "%c", "%p", "%u", "%t" and "%n" filled in. */
char	*probe_expand(const struct probe_env *p, const char *s);
const char *probe_verdict_name(enum probe_verdict v);
void	 probe_obs_done(struct probe_obs *r);
void	 probe_result_done(struct probe_result *res);
