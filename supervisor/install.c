/*
 * Package installs as requests (DESIGN §6). An exec that a package
 * manager's argv says is an install becomes a request naming the manager,
 * the packages and the registry hosts it will need. Approving lets the
 * exec go on (an exec can only be continued) and opens those hosts for
 * that process tree, for as long as the install runs; the file and
 * network floor still hold for everything it does.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "approvals/decide.h"
#include "approvals/netrules.h"
#include "config/escape.h"
#include "config/util.h"
#include "supervisor/packages.h"
#include "supervisor/sup.h"
#include "supervisor/target.h"

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

static void
grant_add(struct sup *s, pid_t tid, const char *manager,
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
install_allows(struct sup *s, pid_t tid, const struct net_dest *d,
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
install_allows_name(struct sup *s, const char *name)
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

/* Read the requirement files the command line names, through the
 * sandbox's root, one level of nesting. */
static void
read_files(struct sup *s, pid_t pid, struct pkg_install *inst)
{
	size_t n = inst->n_files;

	for (size_t i = 0; i < inst->n_files && i < n + 8; i++) {
		int fd = target_open(s->rootfd, pid, inst->files[i],
		    O_RDONLY | O_NONBLOCK);

		if (fd == -ESRCH)
			return;
		if (fd < 0)
			continue;
		(void)packages_read_file(fd, inst->files[i], inst);
		close(fd);
	}
}

static void
record(struct sup *s, pid_t pid, const char *subject, const char *detail,
    enum verdict v, enum how how, const char *rule, const char *by,
    int64_t wait_ms, uint64_t request)
{
	struct audit_event ev = {
		.run = s->id, .time_ms = now_wall_ms(), .pid = pid,
		.kind = KIND_PACKAGE, .syscall = "execve", .subject = subject,
		.detail = detail, .verdict = v, .how = how, .rule = rule,
		.decided_by = by, .wait_ms = wait_ms, .request_id = request,
	};

	sup_event(s, &ev);
}

/* Does the file to exec exist in the sandbox? If not the kernel answers
 * ENOENT, and there is nothing to ask about. */
bool
install_exists_inside(const struct sup *s, pid_t pid, const char *path)
{
	int fd = target_open(s->rootfd, pid, path, O_PATH);

	if (fd < 0)
		/* Only a clear "no such file" says so; else assume it does. */
		return fd != -ENOENT && fd != -ENOTDIR;
	close(fd);
	return true;
}

/*
 * An exec, copied out: 1 when it was an install and was answered or
 * parked here, 0 when it is an ordinary exec for the caller to record.
 */
int
install_on_exec(struct sup *s, const struct seccomp_notif *req,
    const char *path, char *const argv[], const char *joined)
{
	pid_t pid = (pid_t)req->pid;
	struct pkg_install inst = { 0 };
	struct policy_host *hosts = NULL;
	size_t n_hosts;
	cleanup_free char *subject = NULL, *why = NULL;
	const char *which = NULL;
	enum policy_action v;
	struct decision d;
	int r;

	if ((r = packages_parse(path, argv, &inst)) <= 0)
		return 0;
	if (path[0] != '\0' && !install_exists_inside(s, pid, path)) {
		pkg_install_done(&inst);
		return 0;
	}
	/* A manager's script re-execs its interpreter (npm -> node
	 * npm-cli.js): the same process, already approved. */
	grants_prune(s);
	for (size_t i = 0; i < s->n_grants; i++)
		if (s->grants[i].pid == tgid_of(pid) &&
		    strcmp(s->grants[i].manager, inst.manager) == 0) {
			struct audit_event ev = {
				.run = s->id, .time_ms = now_wall_ms(),
				.pid = pid, .kind = KIND_EXEC,
				.syscall = req->data.nr == SYS_execveat ?
				    "execveat" : "execve",
				.subject = path, .detail = joined,
				.verdict = VERDICT_ALLOW, .how = HOW_RUN_RULE,
				.rule = "the approved install, going on",
				.decided_by = "policy",
			};

			sup_continue(s, req->id);
			sup_event(s, &ev);
			pkg_install_done(&inst);
			return 1;
		}
	read_files(s, pid, &inst);
	n_hosts = packages_hosts(&s->policy, &inst, &hosts);
	subject = packages_describe(&inst, hosts, n_hosts);
	v = packages_verdict_install(&s->policy, &inst, &which);
	{
		struct decide_in in = { .policy = &s->policy,
		    .rules = s->rules, .grants = s->run_grants,
		    .now_ms = now_mono_ms() };

		d = decide_package(&in, tgid_of(pid), subject, inst.manager, v,
		    which);
	}
	if (d.verdict == VERDICT_DENY) {
		/* A shell's execvp tries every PATH folder in turn: the
		 * same install must not be asked again at once. */
		if (d.step == DECIDE_POLICY || d.step == DECIDE_DEFAULT)
			run_grants_refuse(s->run_grants, KIND_PACKAGE,
			    tgid_of(pid), subject, now_mono_ms());
		sup_respond(s, req->id, -EACCES, 0);
		record(s, pid, subject, joined, VERDICT_DENY, d.how, d.rule,
		    "policy", 0, 0);
		packages_hosts_free(hosts, n_hosts);
	} else if (d.verdict == VERDICT_ALLOW) {
		grant_add(s, pid, inst.manager, hosts, n_hosts);
		sup_continue(s, req->id);
		record(s, pid, subject, joined, VERDICT_ALLOW, d.how, d.rule,
		    "policy", 0, 0);
	} else {
		struct parked *pk = xcalloc(1, sizeof *pk);
		struct request *rq = request_new();
		char cwd[PATH_MAX];

		pk->req = *req;
		pk->call.op = OP_EXEC;
		pk->call.name = "execve";
		pk->call.hosts = hosts;
		pk->call.n_hosts = n_hosts;
		snprintf(pk->call.path, sizeof pk->call.path, "%s", subject);
		snprintf(pk->call.raw2, sizeof pk->call.raw2, "%s", joined);
		snprintf(pk->call.xname, sizeof pk->call.xname, "%s",
		    inst.manager);
		pk->asked_ms = now_mono_ms();
		why = steal_ptr(&d.rule);
		rq->id = ++s->next_request;
		rq->run = xstrdup(s->id);
		rq->pid = pid;
		rq->kind = KIND_PACKAGE;
		rq->syscall = xstrdup("execve");
		rq->subject = xstrdup(subject);
		rq->detail = xstrdup(joined);
		rq->cmdline = xstrdup(joined);
		rq->cwd = xstrdup(target_dir(pid, AT_FDCWD, cwd, sizeof cwd) == 0 ?
		    cwd : "?");
		rq->why = steal_ptr(&why);
		rq->created_ms = now_wall_ms();
		rq->deadline_ms = rq->created_ms +
		    (int64_t)s->policy.ask_timeout * 1000;
		unotify_park_request(s, rq, pk);
	}
	decision_done(&d);
	pkg_install_done(&inst);
	return 1;
}

/* A person's answer to a parked install. */
void
install_resolve(struct sup *s, struct parked *pk, enum verdict v,
    enum how how, const char *by, const char *reason, int64_t wait_ms,
    uint64_t request)
{
	bool ok = v == VERDICT_ALLOW &&
	    ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &pk->req.id) == 0;

	if (ok) {
		grant_add(s, (pid_t)pk->req.pid, pk->call.xname, pk->call.hosts,
		    pk->call.n_hosts);
		pk->call.hosts = NULL;
		pk->call.n_hosts = 0;
		sup_continue(s, pk->req.id);
	} else {
		run_grants_refuse(s->run_grants, KIND_PACKAGE,
		    tgid_of((pid_t)pk->req.pid), pk->call.path, now_mono_ms());
		sup_respond(s, pk->req.id, -EACCES, 0);
	}
	record(s, (pid_t)pk->req.pid, pk->call.path, pk->call.raw2,
	    ok ? VERDICT_ALLOW : VERDICT_DENY,
	    v == VERDICT_ALLOW && !ok ? HOW_SUPERVISOR : how,
	    reason, v == VERDICT_ALLOW && !ok ? "target gone" : by, wait_ms,
	    request);
}

void
install_done(struct sup *s)
{
	for (size_t i = 0; i < s->n_grants; i++)
		packages_hosts_free(s->grants[i].hosts, s->grants[i].n_hosts);
	free(s->grants);
	s->grants = NULL;
	s->n_grants = 0;
}
