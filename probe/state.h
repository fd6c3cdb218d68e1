/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The battery's state: what probe/setup.c makes (struct probe) and one
 * run while it goes (struct probe_run), which probe/run.c starts and
 * loops on and probe/watch.c samples. Kept apart from all three so that
 * none includes another for a type.
 */
#include <stdbool.h>
#include <sys/types.h>

#include "config/policy.h"
#include "probe/judge.h"

struct proto_conn;

/* The battery: made by probe_setup(), undone by probe_teardown(). */
struct probe {
	const char	*argv0;
	char		*self;		/* our own binary */
	char		*exe;		/* the program run inside */
	char		*bindir;	/* --in: the folder holding exe */
	char		*dir;		/* the temp folder */
	char		*canary;
	/* A folder a probe may get writable, holding "target": 0600, not
	 * the program's to write (root's, when we are root). */
	char		*wr;
	char		*secret_path, *secret_var;
	char		*home;		/* the real home, where both are planted */
	char		*store_key;	/* ~/.ssh/ward-probe-key-XXXXXX */
	bool		 made_ssh;	/* ~/.ssh made for it, to remove */
	char		 token[33];
	char		*policy_path, *policy_text;
	struct policy	 policy;
	int		 lfd;
	unsigned	 port;
	int		 ufd;		/* a UDP listener on 127.0.0.1 */
	unsigned	 uport;
	int		 pfd;		/* the packet watch (root), or -1 */
	char		*tools;		/* the race's folder: tools/pip */
	char		 label[24];	/* the made-up DNS name's first label */
	char		*dnsname;
	bool		 int80;		/* the host kernel runs int $0x80 */
	bool		 json, keep, summary;
	struct probe_result *results;	/* one per probe_defs[] row */
	size_t		 n_results;
};

/* One run, while it goes: the live handles, and what is seen of it. */
struct probe_run {
	struct probe_obs o;
	pid_t		 pid;		/* the supervisor */
	int		 pidfd;
	bool		 reaped;
	bool		 out_open, err_open;
	struct proto_conn *ctl;
	unsigned	 ctl_tries;
	/* For the samples of /proc. */
	pid_t		 init;
	char		 ns_pid[64], ns_user[64];
	const char	*script;	/* the race's tools/pip */
};
