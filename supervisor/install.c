/* SPDX-License-Identifier: MIT */
/*
 * Package installs as requests (DESIGN §6). An exec that a package
 * manager's argv says is an install becomes a request naming the manager,
 * the packages and the registry hosts it will need. Approving lets the
 * exec go on (an exec can only be continued) and opens those hosts for
 * that process tree, for as long as the install runs; the file and
 * network floor still hold for everything it does.
 */
#include "supervisor/install.h"

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
#include "config/util.h"
#include "supervisor/grants.h"
#include "supervisor/packages.h"
#include "supervisor/sup.h"
#include "supervisor/target.h"

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

/* seq: the asked or intended row this outcome completes, 0 for new. */
static void
record(struct sup *s, int64_t seq, pid_t pid, const char *subject,
    const char *detail, enum verdict v, enum how how, const char *rule,
    const char *by, int64_t wait_ms, uint64_t request)
{
	struct sup_what w = {
		.pid = pid, .kind = KIND_PACKAGE, .syscall = "execve",
		.subject = subject, .detail = detail,
	};

	sup_done(s, seq, &w, v, how, rule, by, wait_ms, request);
}

/* An install let go on, in the record before it runs (*seq: its row; an
 * asked one is updated). */
static int
intent(struct sup *s, int64_t *seq, pid_t pid, const char *subject,
    const char *detail, enum how how, const char *rule, const char *by,
    int64_t wait_ms, uint64_t request)
{
	struct sup_what w = {
		.pid = pid, .kind = KIND_PACKAGE, .syscall = "execve",
		.subject = subject, .detail = detail,
	};

	return sup_intent(s, &w, VERDICT_ALLOW, how, rule, by, wait_ms,
	    request, seq);
}

/* A parked install: what the person was shown, and the hosts an
 * approval opens. */
struct install_call {
	char		 manager[16];
	char		*subject;	/* packages_describe() */
	char		*argv;		/* joined */
	struct policy_host *hosts;
	size_t		 n_hosts;
};

/* A person's answer to a parked install. */
static enum verdict
install_resolve(struct sup *s, struct parked *pk, enum verdict v,
    enum how how, const char *by, const char *reason, int64_t wait_ms,
    uint64_t request)
{
	struct install_call *ic = pk->install;
	bool ok = v == VERDICT_ALLOW && sup_id_valid(s, pk->req.id);
	int64_t seq = pk->seq;

	if (ok && intent(s, &seq, (pid_t)pk->req.pid, ic->subject, ic->argv,
	    how, reason, by, wait_ms, request) < 0) {
		/* Fail closed: the record cannot hold it. */
		v = VERDICT_DENY;
		ok = false;
	}
	if (ok) {
		grants_add(s, (pid_t)pk->req.pid, ic->manager, ic->hosts,
		    ic->n_hosts);
		ic->hosts = NULL;
		ic->n_hosts = 0;
		sup_continue(s, pk->req.id);
	} else {
		grants_refuse(s, (pid_t)pk->req.pid, ic->subject);
		sup_respond(s, pk->req.id, -EACCES, 0);
	}
	record(s, seq, (pid_t)pk->req.pid, ic->subject, ic->argv,
	    ok ? VERDICT_ALLOW : VERDICT_DENY,
	    v == VERDICT_ALLOW && !ok ? HOW_SUPERVISOR : how,
	    reason, v == VERDICT_ALLOW && !ok ? "target gone" : by, wait_ms,
	    request);
	return v == VERDICT_ALLOW ? VERDICT_ALLOW : VERDICT_DENY;
}

static void
install_free(struct parked *pk)
{
	struct install_call *ic = pk->install;

	if (ic == NULL)
		return;
	packages_hosts_free(ic->hosts, ic->n_hosts);
	free(ic->subject);
	free(ic->argv);
	free(ic);
	pk->install = NULL;
}

static const struct kind_ops install_ops = {
	.resolve = install_resolve,
	.remember = sup_remember,
	.free = install_free,
	.gone = sup_call_gone,
};

static void
park(struct sup *s, const struct seccomp_notif *req, const char *manager,
    const char *subject, const char *joined, struct policy_host *hosts,
    size_t n_hosts, const char *why)
{
	struct parked *pk = xcalloc(1, sizeof *pk);
	struct install_call *ic = xcalloc(1, sizeof *ic);
	struct sup_what w = {
		.pid = (pid_t)req->pid, .kind = KIND_PACKAGE,
		.syscall = "execve", .subject = subject, .detail = joined,
		.cmdline = joined,
	};

	snprintf(ic->manager, sizeof ic->manager, "%s", manager);
	ic->subject = xstrdup(subject);
	ic->argv = xstrdup(joined);
	ic->hosts = hosts;
	ic->n_hosts = n_hosts;
	pk->req = *req;
	pk->ops = &install_ops;
	pk->install = ic;
	sup_park(s, pk, &w, why);
}

int
install_path_fd(const char *path)
{
	static const char *const via[] = {
		"/proc/self/fd/", "/proc/thread-self/fd/", "/dev/fd/",
	};
	static const char *const std[] = {
		"/dev/stdin", "/dev/stdout", "/dev/stderr",
	};

	for (int i = 0; i < (int)ARRAY_SIZE(std); i++)
		if (strcmp(path, std[i]) == 0)
			return i;
	for (size_t i = 0; i < ARRAY_SIZE(via); i++) {
		size_t n = strlen(via[i]), d;
		const char *num = path + n;

		if (strncmp(path, via[i], n) != 0)
			continue;
		d = strspn(num, "0123456789");
		if (d == 0 || d > 9 || num[d] != '\0')
			return -1;
		return atoi(num);
	}
	return -1;
}

int
install_fd_name(pid_t pid, int fd, char *buf, size_t size)
{
	char link[64];
	ssize_t n;
	size_t len;

	snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, fd);
	if ((n = readlink(link, buf, size - 1)) < 0)
		return -errno;
	buf[n] = '\0';
	len = (size_t)n;
	/* A memfd reads "/memfd:NAME (deleted)": it never had a path. */
	if (str_has_prefix(buf, "/memfd:")) {
		if (len >= 17 && strcmp(buf + len - 10, " (deleted)") == 0)
			buf[len - 10] = '\0';
		memmove(buf, buf + 1, strlen(buf + 1) + 1);
	}
	return 0;
}

/* Does the file to exec exist in the sandbox? If not the kernel answers
 * ENOENT, and there is nothing to ask about. */
bool
install_exists_inside(const struct sup *s, pid_t pid, const char *path)
{
	int n = install_path_fd(path), fd;
	char name[PATH_MAX];

	/* The program's own fd table, read where the kernel reads it:
	 * "self" in the sandbox's /proc is nobody for the supervisor, who
	 * is outside its pid namespace (every such path looked absent). */
	if (n >= 0)
		return install_fd_name(pid, n, name, sizeof name) != -ENOENT;
	fd = target_open(s->rootfd, pid, path, O_PATH);

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
	cleanup_free char *subject = NULL;
	const char *which = NULL;
	enum policy_action v;
	struct decision d;
	int64_t seq = 0;
	int r;

	if ((r = packages_parse(path, argv, &inst)) <= 0)
		return 0;
	if (path[0] != '\0' && !install_exists_inside(s, pid, path)) {
		pkg_install_done(&inst);
		return 0;
	}
	/* A manager's script re-execs its interpreter (npm -> node
	 * npm-cli.js): the same process, already approved. */
	if (grants_running(s, pid, inst.manager)) {
		struct sup_what w = {
			.pid = pid, .kind = KIND_EXEC,
			.syscall = req->data.nr == SYS_execveat ?
			    "execveat" : "execve",
			.subject = path, .detail = joined,
		};

		sup_continue(s, req->id);
		sup_record(s, &w, VERDICT_ALLOW, HOW_RUN_RULE,
		    "the approved install, going on", "policy", 0, 0);
		pkg_install_done(&inst);
		return 1;
	}
	read_files(s, pid, &inst);
	n_hosts = packages_hosts(&s->policy, &inst, &hosts);
	subject = packages_describe(&inst, hosts, n_hosts);
	v = packages_verdict_install(&s->policy, &inst, &which);
	{
		struct decide_in in = { .policy = &s->policy,
		    .rules = s->rules, .answers = s->answers,
		    .now_ms = now_mono_ms() };

		d = decide_package(&in, grants_tgid(pid), subject,
		    inst.manager, v, which);
	}
	switch (d.verdict) {
	case VERDICT_DENY:
		if (d.step == DECIDE_POLICY || d.step == DECIDE_DEFAULT)
			grants_refuse(s, pid, subject);
		sup_respond(s, req->id, -EACCES, 0);
		record(s, 0, pid, subject, joined, VERDICT_DENY, d.how,
		    d.rule, "policy", 0, 0);
		packages_hosts_free(hosts, n_hosts);
		break;
	case VERDICT_ALLOW:
		if (intent(s, &seq, pid, subject, joined, d.how, d.rule,
		    "policy", 0, 0) < 0) {
			/* Fail closed: the record cannot hold it. */
			sup_respond(s, req->id, -EACCES, 0);
			record(s, seq, pid, subject, joined, VERDICT_DENY,
			    HOW_SUPERVISOR, "the record cannot be written",
			    "supervisor", 0, 0);
			packages_hosts_free(hosts, n_hosts);
			break;
		}
		grants_add(s, pid, inst.manager, hosts, n_hosts);
		sup_continue(s, req->id);
		record(s, seq, pid, subject, joined, VERDICT_ALLOW, d.how,
		    d.rule, "policy", 0, 0);
		break;
	case VERDICT_ASK:
	case VERDICT_NONE:
	case VERDICT_KILL:
	case VERDICT_STAGE:
		park(s, req, inst.manager, subject, joined, hosts, n_hosts,
		    d.rule);
		break;
	}
	decision_done(&d);
	pkg_install_done(&inst);
	return 1;
}
