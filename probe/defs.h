/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The battery: one row per probe, naming what it tries, what the
 * outside must see, and which events the record must hold.
 */
#include <stdbool.h>
#include <stddef.h>

#include "approvals/request.h"

enum probe_limit { LIMIT_NONE, LIMIT_PIDS, LIMIT_MEMORY, LIMIT_CLOCK };

/* What in the record shows the attempt. */
enum probe_proof {
	PROOF_EVENTS,	/* the expected events */
	PROOF_OUTPUT,	/* not a trapped call (a read): the run's recorded output */
	PROOF_OWN_EXIT,	/* the run's end, with the program's own status */
	PROOF_LIMIT,	/* the limit in force, named in the run's row */
	PROOF_TIMEOUT,	/* the wall-clock kill */
};

/* One event the record must hold: kind, verdict, and where given the
 * syscall, the rule (a final '*' matches any end), and the subject (or
 * subject2). In subjects, "%c" stands for the canary folder, "%p" for
 * the TCP listener's port, "%u" for the UDP listener's, "%t" for the
 * tools folder and "%n" for the made-up DNS name. */
struct probe_expect {
	enum verdict	 verdict;	/* VERDICT_NONE ends the list */
	enum request_kind kind;
	const char	*syscall;
	const char	*subject;
	const char	*rule;
	bool		 int80;		/* only where the host kernel has int $0x80 */
	unsigned	 count;		/* at least this many (0: one) */
};

struct probe_def {
	const char	*name;
	const char	*tried;
	/* c canary, p TCP port, u UDP port, s secret file, k key in
	 * ~/.ssh, t tools folder, n made-up DNS name, w the writable
	 * folder */
	const char	*args;
	enum probe_limit limit;
	enum probe_proof proof;
	int		 status;	/* the run's expected exit status */
	bool		 allowed;	/* allowed by design, must be recorded */
	const char	*floor;		/* what stops it, where no event says */
	/* Attempts no trap sees (the kernel refuses them): named in the
	 * record column as such. */
	const char	*untrapped;
	bool		 net;		/* watch the network from outside */
	bool		 never;		/* refused by the never list: nobody asked */
	bool		 dns;		/* looks up the made-up name */
	bool		 race;		/* the exec race: every exec that ran */
	bool		 home_in;	/* --in the real home (its stores hidden) */
	bool		 writable;	/* [files] writable = the w folder; its
					 * target must not change */
	struct probe_expect expect[4];
};

extern const struct probe_def probe_defs[];
extern const size_t probe_n_defs;
