/* SPDX-License-Identifier: MIT */
/*
 * The run's grants to package installs (DESIGN §6): the registry hosts an
 * approved install's process tree may reach while it runs, and the
 * installs just refused (asked again only after a moment). The handlers
 * net.c (connects, DNS names) and install.c (execs) both read them; so
 * they live here, below both.
 */
#include "supervisor/grants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approvals/decide.h"
#include "approvals/netrules.h"
#include "config/util.h"
#include "supervisor/packages.h"
#include "supervisor/sup.h"
#include "supervisor/target.h"

/* An approved install: its process tree may reach these hosts while it
 * runs. */
struct pkg_grant {
	pid_t		 pid;		/* host pid of the install */
	uint64_t	 start;		/* its start time, against pid reuse */
	char		 manager[16];
	struct policy_host *hosts;
	size_t		 n_hosts;
};

/* A process's start time (field 22 of /proc/PID/stat), to tell a live
 * install from a later process that reuses its pid; 0 if gone. */
static uint64_t
start_time(pid_t pid)
{
	char p[48], buf[1024], *s;
	FILE *f;
	unsigned long long st = 0;
	size_t n;

	snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
	if ((f = fopen(p, "re")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold spaces and ')': skip to the last ')'. */
	if ((s = strrchr(buf, ')')) == NULL)
		return 0;
	if (sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
	    "%*u %*d %*d %*d %*d %*d %*d %llu", &st) != 1)
		return 0;
	return st;
}

static pid_t
parent_of(pid_t pid)
{
	unsigned long v;

	return target_proc_field(pid, "status", "PPid", 10, &v) == 0 ?
	    (pid_t)v : 0;
}

static pid_t
tgid_of(pid_t tid)
{
	unsigned long v;

	return target_proc_field(tid, "status", "Tgid", 10, &v) == 0 ?
	    (pid_t)v : tid;
}

static bool
grant_live(const struct pkg_grant *g)
{
	return g->pid > 0 && start_time(g->pid) == g->start;
}

/* Forget the installs that have ended. */
static void
grants_prune(struct sup *s)
{
	for (size_t i = 0; i < s->n_grants;) {
		if (grant_live(&s->grants[i])) {
			i++;
			continue;
		}
		packages_hosts_free(s->grants[i].hosts, s->grants[i].n_hosts);
		s->grants[i] = s->grants[--s->n_grants];
	}
}

void
grants_add(struct sup *s, pid_t tid, const char *manager,
    struct policy_host *hosts, size_t n_hosts)
{
	pid_t pid = tgid_of(tid);
	struct pkg_grant g = {
		.pid = pid,
		.start = start_time(pid),
		.hosts = hosts,
		.n_hosts = n_hosts,
	};

	snprintf(g.manager, sizeof g.manager, "%s", manager);
	grants_prune(s);
	s->grants = xreallocarray(s->grants, s->n_grants + 1,
	    sizeof *s->grants);
	s->grants[s->n_grants++] = g;
}

/* Is pid (a thread id) inside the process tree of a live approved
 * install whose hosts cover d? *which names the install. */
bool
grants_allow(struct sup *s, pid_t tid, const struct net_dest *d,
    const char **which)
{
	grants_prune(s);
	if (s->n_grants == 0)
		return false;
	/* Walk up from the caller to the sandbox's init. */
	for (pid_t p = tgid_of(tid); p > 1 && p != s->sp.init_pid;
	    p = parent_of(p)) {
		uint64_t st = start_time(p);

		for (size_t i = 0; i < s->n_grants; i++) {
			const struct pkg_grant *g = &s->grants[i];

			if (g->pid != p || g->start != st)
				continue;
			for (size_t j = 0; j < g->n_hosts; j++)
				if (netrules_entry_match(&g->hosts[j], d)) {
					*which = g->manager;
					return true;
				}
		}
	}
	return false;
}

/* May name be looked up because a live approved install needs it? The
 * DNS stub cannot tell which process asks; the connection itself is
 * still judged per process tree. */
bool
grants_allow_name(struct sup *s, const char *name)
{
	struct net_dest d = { .family = AF_INET, .name = name };

	grants_prune(s);
	for (size_t i = 0; i < s->n_grants; i++)
		for (size_t j = 0; j < s->grants[i].n_hosts; j++) {
			struct policy_host h = s->grants[i].hosts[j];

			h.port_lo = 0;
			h.port_hi = 65535;
			if (netrules_entry_match(&h, &d))
				return true;
		}
	return false;
}

pid_t
grants_tgid(pid_t tid)
{
	return tgid_of(tid);
}

/* A shell's execvp tries every PATH folder in turn: an install just
 * refused must not be asked again at once (the run's grants keep it for
 * a moment, by process). */
void
grants_refuse(struct sup *s, pid_t tid, const char *subject)
{
	answers_refuse(s->answers, KIND_PACKAGE, tgid_of(tid), subject,
	    now_mono_ms());
}

/* Is an approved install by this manager running as tid's process? A
 * manager's script re-execs its interpreter (npm -> node npm-cli.js):
 * the same process, already approved. */
bool
grants_running(struct sup *s, pid_t tid, const char *manager)
{
	grants_prune(s);
	for (size_t i = 0; i < s->n_grants; i++)
		if (s->grants[i].pid == tgid_of(tid) &&
		    strcmp(s->grants[i].manager, manager) == 0)
			return true;
	return false;
}

void
grants_done(struct sup *s)
{
	for (size_t i = 0; i < s->n_grants; i++)
		packages_hosts_free(s->grants[i].hosts, s->grants[i].n_hosts);
	free(s->grants);
	s->grants = NULL;
	s->n_grants = 0;
}
