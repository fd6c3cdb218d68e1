/* SPDX-License-Identifier: MIT */
/*
 * One run of the battery: ward-supervisor started as `ward run` starts
 * it, the run id read from its ready fd, its control socket answered
 * (every request denied at once), its output, end and processes
 * watched, then its record read. The probe's only protocol client.
 */
#include "probe/run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "approvals/audit.h"
#include "approvals/ctl.h"
#include "approvals/launch.h"
#include "approvals/msg.h"
#include "approvals/proto.h"
#include "config/paths.h"
#include "config/util.h"
#include "probe/common.h"
#include "probe/watch.h"

volatile sig_atomic_t probe_stop;

/* ---- the control socket: deny whatever is asked ---- */

static void
probe_deny(struct probe_run *r, uint64_t id)
{
	json_t *m;

	if (r->ctl == NULL)
		return;
	m = msg_decide(id, VERDICT_DENY, SCOPE_ONCE, "ward probe");
	(void)proto_send(r->ctl, m);
	json_decref(m);
	r->o.requests++;
}

static void
probe_on_message(struct probe_run *r, json_t *m)
{
	struct msg_welcome w;
	struct request *q = NULL;

	if (msg_type(m) == MSG_TYPE_WELCOME &&
	    msg_welcome_parse(m, &w, NULL) == 0) {
		for (size_t i = 0; i < w.n_pending; i++)
			probe_deny(r, w.pending[i]->id);
		msg_welcome_done(&w);
	} else if (msg_type(m) == MSG_TYPE_REQUEST &&
	    msg_request_parse(m, &q, NULL) == 0) {
		probe_deny(r, q->id);
		request_free(q);
	}
}

static void
probe_ctl_connect(struct probe_run *r)
{
	cleanup_free char *cause = NULL;
	json_t *hello;
	int fd = -1;

	if (r->ctl != NULL || r->o.id[0] == '\0' || r->reaped ||
	    r->ctl_tries >= 50)
		return;
	r->ctl_tries++;
	if (ctl_connect(r->o.id, &fd, &cause) < 0)
		return;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	r->ctl = proto_conn_new(fd);
	hello = msg_hello("cli", true);
	(void)proto_send(r->ctl, hello);
	json_decref(hello);
	(void)proto_flush(r->ctl);
}

static void
probe_ctl_read(struct probe_run *r)
{
	cleanup_free char *cause = NULL;
	json_t *m = NULL;
	ssize_t n = proto_read(r->ctl);
	int k;

	while ((k = proto_next(r->ctl, &m, &cause)) == 1) {
		probe_on_message(r, m);
		json_decref(m);
	}
	if ((n < 0 && n != -EAGAIN) || k < 0 || proto_eof(r->ctl)) {
		proto_conn_free(r->ctl);
		r->ctl = NULL;
		r->ctl_tries = 50;	/* the run is over for us */
	}
}

/* ---- one run ---- */

/* The argv: ward-supervisor --headless --policy P --in ... --ready-fd N
 * -- ward probe-inside NAME ARGS, as `ward run` would start it. */
static void
probe_launch_args(const struct probe *p, const char *policy,
    const struct probe_def *d, int ready_fd, struct launch *l)
{
	cleanup_strv char **cmd = NULL;
	size_t n = 0;
	char port[16], uport[16];

	snprintf(port, sizeof port, "%u", p->port);
	snprintf(uport, sizeof uport, "%u", p->uport);
	launch_opt(l, "--headless", NULL);
	launch_opt(l, "--policy", policy);
	launch_opt(l, "--in", p->bindir);
	launch_opt(l, "--in", p->canary);
	if (d->race)
		launch_opt(l, "--in", p->tools);
	if (d->home_in)
		launch_opt(l, "--in", p->home);
	launch_ready_fd(l, ready_fd);
	strv_push(&cmd, &n, xstrdup(p->exe));
	strv_push(&cmd, &n, xstrdup("probe-inside"));
	strv_push(&cmd, &n, xstrdup(d->name));
	for (const char *a = d->args ? d->args : ""; *a != '\0'; a++)
		strv_push(&cmd, &n, xstrdup(*a == 'c' ? p->canary :
		    *a == 'p' ? port : *a == 'u' ? uport : *a == 't' ?
		    p->tools : *a == 'n' ? p->dnsname : *a == 'k' ?
		    p->store_key : *a == 'w' ? p->wr : p->secret_path));
	launch_command(l, cmd, n);
}

/* The run id, from the ready fd: in slices, so that a signal is heeded,
 * until the guard. A run that never says it is ready keeps o.id empty
 * and is killed by the loop. */
static void
probe_wait_ready(struct probe_run *r, int fd)
{
	int64_t hard = r->o.t0 + (PROBE_GUARD + 10) * 1000;
	int rc;

	do
		rc = launch_wait_ready(fd, 200, r->o.id, NULL, NULL);
	while (rc == -ETIMEDOUT && !probe_stop && now_mono_ms() < hard);
}

int
probe_spawn(struct probe *p, const char *policy, struct probe_run *r,
    int *out_fd, int *err_fd, char **cause)
{
	struct launch l;
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int readyp[2] = { -1, -1 }, e;
	pid_t parent = getpid();

	if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    pipe2(readyp, O_CLOEXEC) < 0) {
		e = errno;
		*cause = xasprintf("pipe: %s", strerror(e));
		for (int i = 0; i < 2; i++) {
			closep(&outp[i]);
			closep(&errp[i]);
		}
		return -e;
	}
	launch_init(&l);
	probe_launch_args(p, policy, r->o.def, readyp[1], &l);
	r->o.t0 = now_mono_ms();
	if ((r->pid = fork()) < 0) {
		e = errno;
		*cause = xasprintf("fork: %s", strerror(e));
		for (int i = 0; i < 2; i++) {
			closep(&outp[i]);
			closep(&errp[i]);
			closep(&readyp[i]);
		}
		launch_done(&l);
		return -e;
	}
	if (r->pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		/* Should ward probe die, the run ends too: the supervisor
		 * takes SIGTERM as a kill and records it. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(125);
		signal(SIGPIPE, SIG_DFL);
		dup2(null, STDIN_FILENO);
		dup2(outp[1], STDOUT_FILENO);
		dup2(errp[1], STDERR_FILENO);
		/* The ready fd alone crosses the exec as it is. */
		fcntl(readyp[1], F_SETFD, 0);
		(void)launch_exec(&l);
		_exit(125);
	}
	launch_done(&l);
	close(outp[1]);
	close(errp[1]);
	close(readyp[1]);
	fcntl(outp[0], F_SETFL, O_NONBLOCK);
	fcntl(errp[0], F_SETFL, O_NONBLOCK);
	r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
	r->out_open = r->err_open = true;
	*out_fd = outp[0];
	*err_fd = errp[0];
	probe_wait_ready(r, readyp[0]);
	close(readyp[0]);
	return 0;
}

static bool
probe_pump(int fd, struct probe_buf *b)
{
	char buf[65536];
	ssize_t n = read(fd, buf, sizeof buf);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0)
		return false;
	probe_buf_add(b, buf, (size_t)n);
	return true;
}

/*
 * The run's loop: its output, its control socket (every request denied at
 * once), its end, and a sample of its processes every 20 ms. Ends when
 * the supervisor is gone and its pipes are closed; a run that overstays
 * the guard by far is killed and judged so.
 */
void
probe_run_loop(const struct probe *p, struct probe_run *r, int out_fd,
    int err_fd)
{
	struct itimerspec its = {
		.it_interval = { 0, 20 * 1000 * 1000 },
		.it_value = { 0, 20 * 1000 * 1000 },
	};
	cleanup_fd int tfd = timerfd_create(CLOCK_MONOTONIC,
	    TFD_CLOEXEC | TFD_NONBLOCK);
	int64_t hard = r->o.t0 + (PROBE_GUARD + 10) * 1000;
	bool stopping = false;

	timerfd_settime(tfd, 0, &its, NULL);
	if (r->o.id[0] != '\0') {
		probe_sample(p, r);
		probe_ctl_connect(r);
	}
	for (;;) {
		struct pollfd pf[5];
		int ipid = -1, ictl = -1, iout = -1, ierr = -1, np = 0;
		int64_t now = now_mono_ms();

		if (r->reaped && ((!r->out_open && !r->err_open) ||
		    now > r->o.t1 + 3000))
			break;
		if (!r->reaped && now > hard && !r->o.hard_killed) {
			kill(r->pid, SIGKILL);
			r->o.hard_killed = true;
		}
		if (probe_stop && !stopping && !r->reaped) {
			/* The supervisor takes SIGTERM as a kill, records it
			 * and takes the sandbox down. */
			kill(r->pid, SIGTERM);
			stopping = true;
			hard = now + 3000;
		}
		pf[np++] = (struct pollfd){ tfd, POLLIN, 0 };
		if (r->out_open) {
			iout = np;
			pf[np++] = (struct pollfd){ out_fd, POLLIN, 0 };
		}
		if (r->err_open) {
			ierr = np;
			pf[np++] = (struct pollfd){ err_fd, POLLIN, 0 };
		}
		if (!r->reaped && r->pidfd >= 0) {
			ipid = np;
			pf[np++] = (struct pollfd){ r->pidfd, POLLIN, 0 };
		}
		if (r->ctl != NULL) {
			ictl = np;
			pf[np++] = (struct pollfd){ proto_conn_fd(r->ctl),
			    (short)(POLLIN | (proto_want_write(r->ctl) ?
			    POLLOUT : 0)), 0 };
		}
		if (poll(pf, (nfds_t)np, 200) < 0 && errno != EINTR)
			break;

		if (iout >= 0 && (pf[iout].revents & (POLLIN | POLLHUP | POLLERR)))
			r->out_open = probe_pump(out_fd, &r->o.out);
		if (ierr >= 0 && (pf[ierr].revents & (POLLIN | POLLHUP | POLLERR)))
			r->err_open = probe_pump(err_fd, &r->o.err);
		if (ictl >= 0 && r->ctl != NULL) {
			if (pf[ictl].revents & (POLLIN | POLLHUP | POLLERR))
				probe_ctl_read(r);
			if (r->ctl != NULL && (pf[ictl].revents & POLLOUT))
				(void)proto_flush(r->ctl);
		}
		if (r->ctl != NULL && proto_want_write(r->ctl))
			(void)proto_flush(r->ctl);
		if (pf[0].revents & POLLIN) {
			uint64_t ticks;

			(void)!read(tfd, &ticks, sizeof ticks);
			if (!r->reaped) {
				probe_sample(p, r);
				probe_ctl_connect(r);
			}
		}
		if ((ipid >= 0 && (pf[ipid].revents & POLLIN)) ||
		    (r->pidfd < 0 && !r->reaped)) {
			if (waitpid(r->pid, &r->o.wstatus, r->pidfd < 0 ?
			    WNOHANG : 0) == r->pid) {
				r->reaped = true;
				r->o.t1 = now_mono_ms();
			}
		}
	}
	if (!r->reaped) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, &r->o.wstatus, 0);
		r->reaped = true;
		r->o.t1 = now_mono_ms();
	}
	if (r->ctl != NULL) {
		proto_conn_free(r->ctl);
		r->ctl = NULL;
	}
	closep(&r->pidfd);
	close(out_fd);
	close(err_fd);

	/* Nothing of the sandbox may outlive its supervisor. */
	if (r->ns_pid[0] != '\0') {
		int64_t end = now_mono_ms() + 1000;
		uint64_t rss;
		bool other = false;

		while ((r->o.leftover = probe_scan(r, &rss, &other)) > 0 &&
		    now_mono_ms() < end)
			usleep(20 * 1000);
	}
}

static int
probe_on_event(const struct audit_event_row *row, void *ctx)
{
	struct probe_obs *o = ctx;
	struct probe_event *e;

	o->events = xreallocarray(o->events, o->n_events + 1,
	    sizeof *o->events);
	e = &o->events[o->n_events++];
	e->kind = row->ev.kind;
	e->verdict = row->ev.verdict;
	e->how = row->ev.how;
	e->pid = row->ev.pid;
	e->syscall = probe_dup(row->ev.syscall);
	e->subject = probe_dup(row->ev.subject);
	e->subject2 = probe_dup(row->ev.subject2);
	e->detail = probe_dup(row->ev.detail);
	e->rule = probe_dup(row->ev.rule);
	return 0;
}

static int
probe_on_run(const struct audit_run_row *row, void *ctx)
{
	struct probe_obs *o = ctx;

	if (row->run.id == NULL || strcmp(row->run.id, o->id) != 0)
		return 0;
	o->have_run = true;
	o->end_reason = probe_dup(row->end_reason);
	o->limits = probe_dup(row->run.limits);
	o->exit_code = row->exit_code;
	o->ended_ms = row->ended_ms;
	return 1;
}

int
probe_record_read(struct audit *a, struct probe_obs *o, char **cause)
{
	int rc;

	if ((rc = audit_each_event(a, o->id, probe_on_event, o, cause)) < 0 ||
	    (rc = audit_each_run(a, probe_on_run, o, cause)) < 0 ||
	    (rc = audit_read_output(a, o->id, &o->output,
	    &o->output_len, cause)) < 0)
		return rc;
	return 0;
}

int
probe_read_record(struct probe_run *r, char **cause)
{
	cleanup_free char *db = paths_audit_db();
	struct audit *a = NULL;
	int rc;

	if ((rc = audit_open_readonly(db, &a, cause)) == -ENOENT) {
		/* No record at all: judged as such, not a harness failure. */
		free(*cause);
		*cause = NULL;
		return 0;
	}
	if (rc < 0)
		return rc;
	/* audit's cause names the file and says what sqlite said. */
	rc = probe_record_read(a, &r->o, cause);
	audit_close(a);
	return rc;
}

void
probe_run_done(struct probe_run *r)
{
	probe_obs_done(&r->o);
	memset(r, 0, sizeof *r);
}
