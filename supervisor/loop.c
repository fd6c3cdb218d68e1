/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's loop: the table (loop_add, loop_due, loop_poll), then
 * the run's use of it (loop_run). See loop.h.
 */
#include "supervisor/loop.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approvals/audit-write.h"
#include "approvals/msg.h"
#include "config/util.h"
#include "supervisor/control.h"
#include "supervisor/dns.h"
#include "supervisor/files.h"
#include "supervisor/intercept.h"
#include "supervisor/net.h"
#include "supervisor/sup.h"
#include "supervisor/unotify.h"

struct loop_entry {
	loop_fd_fn	*fd_fn;		/* one fd: p[first] */
	loop_ready_fn	*ready_fn;	/* a set: p[first .. first + n) */
	void		*arg;
	size_t		 first, n;
};

struct loop {
	struct pollfd	*p;
	struct loop_entry *e;
	size_t		 n_p, n_e, max;
	int64_t		 due;		/* earliest this round, 0 = none */
};

struct loop *
loop_new(size_t max)
{
	struct loop *l = xcalloc(1, sizeof *l);

	l->max = max;
	l->p = xcalloc(max, sizeof *l->p);
	l->e = xcalloc(max, sizeof *l->e);
	return l;
}

void
loop_free(struct loop *l)
{
	if (l == NULL)
		return;
	free(l->p);
	free(l->e);
	free(l);
}

void
loop_add(struct loop *l, int fd, short events, loop_fd_fn *fn, void *arg)
{
	if (fd < 0 || l->n_p == l->max || l->n_e == l->max)
		return;
	l->e[l->n_e++] = (struct loop_entry){
		.fd_fn = fn, .arg = arg, .first = l->n_p, .n = 1,
	};
	l->p[l->n_p++] = (struct pollfd){ fd, events, 0 };
}

void
loop_add_set(struct loop *l, size_t max, loop_fill_fn *fill,
    loop_ready_fn *ready, void *arg)
{
	size_t room = l->max - l->n_p, n;

	if (l->n_e == l->max)
		return;
	n = fill(arg, l->p + l->n_p, max < room ? max : room);
	for (size_t i = 0; i < n; i++)
		l->p[l->n_p + i].revents = 0;
	l->e[l->n_e++] = (struct loop_entry){
		.ready_fn = ready, .arg = arg, .first = l->n_p, .n = n,
	};
	l->n_p += n;
}

void
loop_due(struct loop *l, int64_t due)
{
	if (due != 0 && (l->due == 0 || due < l->due))
		l->due = due;
}

int64_t
loop_deadline(const struct loop *l)
{
	return l->due;
}

int
loop_timeout(int64_t due, int64_t now)
{
	uint64_t wait;

	if (due == 0)
		return -1;
	if (due <= now)
		return 0;
	/* Unsigned: the difference of any two int64 with due > now fits. */
	wait = (uint64_t)due - (uint64_t)now;
	return wait > INT_MAX ? INT_MAX : (int)wait;
}

int
loop_wait(struct loop *l, int64_t now)
{
	int ready = 0;

	if (poll(l->p, (nfds_t)l->n_p, loop_timeout(l->due, now)) < 0)
		return errno == EINTR ? 0 : -errno;
	for (size_t i = 0; i < l->n_e; i++) {
		const struct loop_entry *e = &l->e[i];
		bool any = false;

		for (size_t j = e->first; j < e->first + e->n && !any; j++)
			any = l->p[j].revents != 0;
		if (!any)
			continue;
		ready++;
		if (e->ready_fn != NULL)
			e->ready_fn(e->arg, l->p + e->first, e->n);
		else
			e->fd_fn(e->arg, l->p[e->first].fd,
			    l->p[e->first].revents);
	}
	return ready;
}

void
loop_clear(struct loop *l)
{
	l->n_p = l->n_e = 0;
	l->due = 0;
}

int
loop_poll(struct loop *l, int64_t now)
{
	int r = loop_wait(l, now);

	loop_clear(l);
	return r < 0 ? r : 0;
}

/* ------------------------------------------------------------------ */
/* The run's loop */

/* Every fd a run can have at once: listener, output, stderr, the init's
 * error and status pipes, signalfd, control socket, the TLS gate's wire,
 * the login files' watch, and the rest (12 single ones, one spare). */
#define RUN_MAX_FDS	(13 + SUP_MAX_CLIENTS + SUP_MAX_CONNS + DNS_POLLFDS_MAX)
/* What needs no write-ahead is written in batches: one transaction per
 * 100 ms, or sooner when 512 events or 64 KiB of output wait
 * (audit_should_flush), never on the hot path of a notification. A
 * failed flush waits before the next try, doubling up to 5 s: another
 * supervisor's long transaction is waited out without a retry per
 * round. */
#define RUN_FLUSH_MS	100
#define RUN_BACKOFF_MAX	5000
/* After init is reaped, how long to keep reading what the program wrote. */
#define RUN_DRAIN_MS	2000
/* How long a program has to end after a forwarded signal (run_forward)
 * before it is killed: docker stop's 10 s. */
#define RUN_GRACE_MS	10000
/* Once the program's streams are read to the end, how long a host reader
 * that takes nothing is waited for before what it did not take is
 * dropped (a `| sleep 12` must not hold the run's end). */
#define RUN_HOST_STALL_MS	500
/* A run still up this long after its start gives back what start-up
 * used (sup_shed): a short run (a `true` is over in 7 ms) is not slowed
 * by faulting the pages back in for its end, a long one holds less for
 * all of its life. At 1000 ms the largest of 500 supervisors were the
 * last to start, not yet shed when the others went (max PSS 612-617 KiB
 * in three fleets; 536-570 at 250 ms). Later, a run that did something
 * (more than the hot path's quiet continues) and then nothing for
 * RUN_IDLE_MS gives back again what that touched: the record's cache,
 * malloc's free pages, the pages of the calls it judged and the execs
 * it copied (run_shed); at most once each RUN_IDLE_MS. A supervisor of
 * an agent is idle most of its life, waiting for a model or a person. */
#define RUN_SHED_MS	250
#define RUN_IDLE_MS	250

struct run;

struct run_client {
	struct run	*run;
	int		 slot;
};

struct run {
	struct sup	*s;
	bool		 listener_open, out_open, err_open;
	bool		 init_gone, status_seen;
	int		 status;
	int64_t		 drain_until;	/* monotonic, once the run ended */
	size_t		 host_left;	/* bytes held for the host, last round */
	int64_t		 host_moved;	/* monotonic: when host_left last fell */
	int64_t		 last_flush;	/* monotonic */
	int64_t		 backoff;	/* ms before the next try; 0 = none */
	struct loop_shed shed;
	bool		 busy;		/* this round: more than quiet calls */
	bool		 quiet;		/* this poll: one call, answered quietly */
	struct run_client clients[SUP_MAX_CLIENTS];
};

/*
 * Read the program's output; false at EOF. host: where it goes on (our
 * own stdout or stderr, headless), or NULL. While the host's reader is
 * behind there is no room and nothing is read: the program blocks in its
 * write, the loop goes on. Once the run has ended, what finds no room is
 * dropped for the host (the record and the consoles still get it), so a
 * stalled reader cannot hold the end of the run.
 */
static bool
pump(struct sup *s, int fd, const char *stream, enum audit_stream as,
    struct hostout *host)
{
	char buf[65536];
	size_t want = sizeof buf;
	ssize_t n;

	if (host != NULL && s->state != RUN_EXITED) {
		size_t room = hostout_room(host);

		if (room == 0)
			return true;
		want = room < want ? room : want;
	}
	n = read(fd, buf, want);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0)
		return false;	/* EOF, or EIO once every pty slave is closed */
	if (host != NULL)
		hostout_write(host, buf, (size_t)n, false);
	audit_output(s->audit, s->id, as, now_wall_ms(), buf, (size_t)n);
	control_output(s, stream, buf, (size_t)n);
	return true;
}

/* Poll the program's stream only when there is room for what it says. */
static bool
run_has_room(const struct sup *s, const struct hostout *host)
{
	return host == NULL || s->state == RUN_EXITED ||
	    hostout_room(host) > 0;
}

static void
finish(struct sup *s, int status, bool have_status)
{
	char detail[96];

	s->state = RUN_EXITED;
	s->ended_ms = now_wall_ms();
	s->exit_signal = 0;
	if (s->record_broken) {
		/* ward's own failure: the record could not be kept. */
		s->exit_code = 125;
		s->end_reason = "record";
	} else if (s->end_reason != NULL &&
	    strcmp(s->end_reason, "timeout") == 0) {
		s->exit_code = 124;
	} else if (s->end_reason != NULL) {
		s->exit_code = 128 + SIGKILL;
		s->exit_signal = SIGKILL;
	} else if (s->oci) {
		/* Not our child: its status is the runtime's to read
		 * (-1: "exited", no number, in the consoles). */
		s->exit_code = -1;
		s->end_reason = "exit";
	} else if (have_status && WIFEXITED(status)) {
		s->exit_code = WEXITSTATUS(status);
		s->end_reason = "exit";
	} else if (have_status && WIFSIGNALED(status)) {
		s->exit_signal = WTERMSIG(status);
		s->exit_code = 128 + s->exit_signal;
		s->end_reason = "signal";
	} else {
		s->exit_code = 125;
		s->end_reason = "lost";
	}
	/* Whatever still waits gets no answer from anybody now. */
	while (queue_len(s->queue) > 0)
		unotify_resolve(s, queue_at(s->queue, 0)->id, VERDICT_DENY,
		    HOW_SUPERVISOR, "run ended", NULL);
	if (s->oci && s->exit_code < 0)
		snprintf(detail, sizeof detail, "the container's processes are "
		    "gone (its exit status is its runtime's)");
	else
		snprintf(detail, sizeof detail, "exit_code=%d signal=%d",
		    s->exit_code, s->exit_signal);
	sup_record_run(s, s->end_reason, VERDICT_NONE, HOW_SUPERVISOR,
	    "supervisor", detail);
	{
		struct msg_run ri;
		char limits[1024];

		control_run_info(s, &ri, limits, sizeof limits);
		sup_broadcast(s, msg_state(&ri));
	}
}

static void
run_on_listener(void *arg, int fd, short revents)
{
	struct run *r = arg;

	(void)fd;
	if (revents & POLLIN) {
		unotify_on_ready(r->s);
		r->quiet = r->s->quiet;
	}
	/* POLLHUP: every process under the filter is gone. */
	else if (revents & (POLLHUP | POLLERR))
		r->listener_open = false;
}

static struct hostout *
run_out_host(struct sup *s)
{
	return s->headless ? &s->host_out : NULL;
}

static void
run_on_host(void *arg, int fd, short revents)
{
	struct hostout *o = arg;

	(void)fd;
	if (revents & (POLLOUT | POLLERR | POLLHUP))
		(void)hostout_flush(o);
}

static void
run_on_out(void *arg, int fd, short revents)
{
	struct run *r = arg;
	struct sup *s = r->s;

	(void)fd;
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	r->out_open = s->pty >= 0 ?
	    pump(s, s->pty, "pty", AUDIT_PTY, run_out_host(s)) :
	    pump(s, s->out_fd, "stdout", AUDIT_STDOUT, run_out_host(s));
}

static void
run_on_err(void *arg, int fd, short revents)
{
	struct run *r = arg;

	if (revents & (POLLIN | POLLHUP | POLLERR))
		r->err_open = pump(r->s, fd, "stderr", AUDIT_STDERR,
		    &r->s->host_err);
}

/* The sandbox's init failed before exec, and says why. */
static void
run_on_init_error(void *arg, int fd, short revents)
{
	struct run *r = arg;
	char buf[600];
	ssize_t n;

	if (!(revents & (POLLIN | POLLHUP)))
		return;
	if ((n = read(fd, buf, sizeof buf - 1)) > 0) {
		/* In the record too, on the program's terminal when it has
		 * one: a console that comes after the (quick) end reads the
		 * run from there, and its agent pane must say why the
		 * program never started, not stay blank. */
		struct sup *s = r->s;
		bool pty = s->pty >= 0;
		cleanup_free char *line = NULL;

		buf[n] = '\0';
		fprintf(stderr, "ward: %s\n", buf);
		line = xasprintf("ward: %s\r\n", buf);
		audit_output(s->audit, s->id, pty ? AUDIT_PTY : AUDIT_STDERR,
		    now_wall_ms(), line, strlen(line));
		control_output(s, pty ? "pty" : "stderr", line, strlen(line));
	} else
		closep(&r->s->sp.err_fd);
}

static void
read_status(struct run *r)
{
	struct sup *s = r->s;
	ssize_t n = read(s->sp.status_fd, &r->status, sizeof r->status);

	r->status_seen = n == sizeof r->status;
	closep(&s->sp.status_fd);
	/* init's last act is to write the status and _exit: by the time we
	 * read it, init is nearly always gone, and reaped here the end
	 * needs no round more for its SIGCHLD (0.15 ms of start-up to end,
	 * issue 18). If it is not gone yet, the SIGCHLD still reaps it. */
	if (r->status_seen && !r->init_gone &&
	    waitpid(s->sp.init_pid, NULL, WNOHANG) == s->sp.init_pid)
		r->init_gone = true;
}

static void
run_on_status(void *arg, int fd, short revents)
{
	(void)fd;
	if (revents & (POLLIN | POLLHUP))
		read_status(arg);
}

/*
 * A signal to ward (timeout(1), docker stop, Ctrl-C of a headless run)
 * goes to the program, through init (spawn.c), so that its traps and
 * clean-up run; a program still there RUN_GRACE_MS after the first is
 * killed (run_after).
 */
static void
run_forward(struct sup *s, int sig)
{
	char what[64];

	snprintf(what, sizeof what, "signal %d forwarded", sig);
	sup_record_run(s, "signal", VERDICT_ALLOW, HOW_PERSON, what, NULL);
	if (s->grace_mono == 0) {
		s->grace_mono = now_mono_ms() + RUN_GRACE_MS;
		s->grace_signal = sig;
	}
	sup_signal_init(s, sig);
}

/* A container's init is gone (its pidfd is readable): the run ends. */
static void
run_on_pidfd(void *arg, int fd, short revents)
{
	struct run *r = arg;

	(void)fd;
	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		r->init_gone = true;
		closep(&r->s->oci_pidfd);
	}
}

static void
run_on_signal(void *arg, int fd, short revents)
{
	struct run *r = arg;
	struct sup *s = r->s;
	struct signalfd_siginfo si;

	if (!(revents & POLLIN))
		return;
	while (read(fd, &si, sizeof si) == sizeof si) {
		if (si.ssi_signo == SIGCHLD) {
			if (waitpid(s->sp.init_pid, NULL, WNOHANG) ==
			    s->sp.init_pid)
				r->init_gone = true;
		} else if (s->state == RUN_RUNNING)
			run_forward(s, (int)si.ssi_signo);
	}
}

static void
run_on_accept(void *arg, int fd, short revents)
{
	struct run *r = arg;

	(void)fd;
	if (revents & POLLIN)
		control_on_accept(r->s);
}

static void
run_on_client(void *arg, int fd, short revents)
{
	struct run_client *c = arg;
	struct sup *s = c->run->s;

	(void)fd;
	/* Dropped earlier in this round (a broadcast that failed). */
	if (s->clients[c->slot].conn != NULL)
		control_on_client(s, c->slot, revents);
}

static void
run_on_gate(void *arg, int fd, short revents)
{
	(void)fd;
	intercept_on_ready(arg, revents);
}

static void
run_on_login(void *arg, int fd, short revents)
{
	(void)fd;
	if (revents & POLLIN)
		intercept_on_login(arg);
}

static size_t
run_net_fill(void *arg, struct pollfd *p, size_t max)
{
	return net_pollfds(arg, p, max);
}

static void
run_net_ready(void *arg, const struct pollfd *p, size_t n)
{
	net_on_ready(arg, p, n);
}

static size_t
run_dns_fill(void *arg, struct pollfd *p, size_t max)
{
	return dns_pollfds(arg, p, max);
}

static void
run_dns_ready(void *arg, const struct pollfd *p, size_t n)
{
	dns_on_ready(arg, p, n);
}

void
loop_run_deadlines(struct loop *l, const struct sup *s)
{
	loop_due(l, net_next_deadline(s));
	loop_due(l, s->dns != NULL ? dns_next_deadline(s->dns) : 0);
	loop_due(l, queue_next_deadline(s->queue));
	loop_due(l, s->gone_at);
	loop_due(l, control_next_deadline(s));
	loop_due(l, s->state == RUN_RUNNING ? s->deadline_mono : 0);
	loop_due(l, s->state == RUN_RUNNING ? s->grace_mono : 0);
}

/* Every fd and every deadline of the run, one line each. */
static void
run_gather(struct loop *l, struct run *r)
{
	struct sup *s = r->s;

	if (r->listener_open)
		loop_add(l, s->listener, POLLIN, run_on_listener, r);
	/* Once the run has ended, a console behind holds nothing: what
	 * is left is read, and the slowest takes it or is dropped. */
	if (r->out_open && run_has_room(s, run_out_host(s)) &&
	    (s->state == RUN_EXITED ||
	    control_output_room(s, now_mono_ms())))
		loop_add(l, s->pty >= 0 ? s->pty : s->out_fd, POLLIN,
		    run_on_out, r);
	if (r->err_open && run_has_room(s, s->headless ? &s->host_err : NULL))
		loop_add(l, s->err_fd, POLLIN, run_on_err, r);
	loop_add(l, hostout_poll_fd(&s->host_out), POLLOUT, run_on_host,
	    &s->host_out);
	loop_add(l, hostout_poll_fd(&s->host_err), POLLOUT, run_on_host,
	    &s->host_err);
	loop_add(l, hostout_poll_fd(&s->status), POLLOUT, run_on_host,
	    &s->status);
	loop_add(l, s->sp.err_fd, POLLIN, run_on_init_error, r);
	loop_add(l, s->sp.status_fd, POLLIN, run_on_status, r);
	loop_add(l, s->sigfd, POLLIN, run_on_signal, r);
	loop_add(l, s->oci_pidfd, POLLIN, run_on_pidfd, r);
	loop_add(l, s->ctl_fd, POLLIN, run_on_accept, r);
	for (int i = 0; i < SUP_MAX_CLIENTS; i++)
		if (s->clients[i].conn != NULL)
			loop_add(l, proto_conn_fd(s->clients[i].conn),
			    (short)(POLLIN | (proto_want_write(
			    s->clients[i].conn) ? POLLOUT : 0)),
			    run_on_client, &r->clients[i]);
	loop_add_set(l, SUP_MAX_CONNS, run_net_fill, run_net_ready, s);
	loop_add(l, intercept_fd(s), intercept_events(s), run_on_gate, s);
	loop_add(l, intercept_login_fd(s), POLLIN, run_on_login, s);
	if (s->dns != NULL)
		loop_add_set(l, DNS_POLLFDS_MAX, run_dns_fill, run_dns_ready,
		    s->dns);

	loop_run_deadlines(l, s);
	loop_due(l, r->drain_until);
	loop_due(l, r->shed.at);
	loop_due(l, r->host_moved != 0 ? r->host_moved + RUN_HOST_STALL_MS : 0);
	loop_due(l, audit_pending(s->audit) > 0 ? r->last_flush +
	    (r->backoff > 0 ? r->backoff : RUN_FLUSH_MS) : 0);
}

/*
 * Poll the round's table. While all that came was one trapped call that
 * the hot path answered quietly (sup_continue_quiet: sent, nothing
 * recorded, queued, sent to a console or started), nothing the table was
 * built from has moved: no source came or went, no deadline changed,
 * nothing waits to be flushed or released for it. The same table is then
 * polled again, without run_after and run_gather (which would rebuild
 * it as it was); its deadlines still hold, and a deadline that passes,
 * or anything else that is ready, ends the round.
 */
static int
run_wait(struct loop *l, struct run *r)
{
	int n;

	do {
		r->quiet = false;
		/* The clock only for a deadline (none, as a rule, in a
		 * streak). */
		n = loop_wait(l, loop_deadline(l) != 0 ? now_mono_ms() : 0);
	} while (n == 1 && r->quiet);
	r->busy = n > 0;
	loop_clear(l);
	return n < 0 ? n : 0;
}

/* What the run no longer needs goes back to the kernel (see RUN_IDLE_MS):
 * nothing of it holds state from one round to the next. */
static void
run_shed(struct sup *s)
{
	sup_shed(s);
	files_shed();
	unotify_shed();
}

void
loop_shed_start(struct loop_shed *sh, int64_t now, int64_t first_ms,
    int64_t idle_ms)
{
	*sh = (struct loop_shed){ .at = now + first_ms, .busy_at = now,
	    .idle_ms = idle_ms };
}

bool
loop_shed_due(struct loop_shed *sh, bool busy, int64_t now)
{
	if (busy) {
		sh->busy_at = now;
		if (sh->at == 0)
			sh->at = now + sh->idle_ms;
	}
	if (sh->at == 0 || now < sh->at)
		return false;
	if (sh->once && now - sh->busy_at < sh->idle_ms) {
		sh->at = sh->busy_at + sh->idle_ms;	/* not idle yet */
		return false;
	}
	sh->at = 0;
	sh->once = true;
	return true;
}

static void
run_flush(struct run *r, int64_t now)
{
	struct audit *a = r->s->audit;

	if (audit_pending(a) == 0)
		return;
	/* Held answers are a program waiting: commit at once. */
	if (r->backoff > 0 ? now - r->last_flush < r->backoff :
	    !sup_holding(r->s) && !audit_should_flush(a) &&
	    now - r->last_flush < RUN_FLUSH_MS)
		return;
	if (sup_flush(r->s) < 0)
		r->backoff = r->backoff == 0 ? RUN_FLUSH_MS :
		    r->backoff * 2 > RUN_BACKOFF_MAX ? RUN_BACKOFF_MAX :
		    r->backoff * 2;
	else
		r->backoff = 0;
	r->last_flush = now_mono_ms();
}

/* Has the host taken all we hold for it, or taken nothing for a while? */
static bool
run_host_done(struct run *r, int64_t now)
{
	struct sup *s = r->s;
	size_t left = s->host_out.len + s->host_err.len + s->status.len;

	if (left == 0)
		return true;
	if (r->host_moved == 0 || left < r->host_left)
		r->host_moved = now;
	r->host_left = left;
	return now - r->host_moved >= RUN_HOST_STALL_MS;
}

/* What is not an fd's, after each round; false once the run is over. */
static bool
run_after(struct run *r)
{
	struct sup *s = r->s;
	int64_t now = now_mono_ms();

	net_tick(s, now);
	if (s->dns != NULL)
		dns_tick(s->dns, now);
	unotify_expire(s, now);
	unotify_gone(s, now);
	control_tick(s, now);
	now = now_mono_ms();
	if (s->state == RUN_RUNNING && s->deadline_mono > 0 &&
	    now >= s->deadline_mono) {
		/* Once: the run's end is in hand, the clock is done. */
		s->deadline_mono = 0;
		if (s->end_reason == NULL)
			sup_record_run(s, "timeout", VERDICT_KILL,
			    HOW_SUPERVISOR, "wall-clock limit", NULL);
		sup_kill(s, "timeout");
	}
	if (s->state == RUN_RUNNING && s->grace_mono > 0 &&
	    now >= s->grace_mono) {
		char what[64];

		s->grace_mono = 0;
		snprintf(what, sizeof what, "signal %d: still running %d s "
		    "after it", s->grace_signal, RUN_GRACE_MS / 1000);
		if (s->end_reason == NULL)
			sup_record_run(s, "kill", VERDICT_KILL, HOW_PERSON,
			    what, NULL);
		sup_kill(s, "killed");
	}
	/* The end: init reaped; keep reading output a moment so that
	 * nothing the program wrote is lost. */
	if (r->init_gone && s->state == RUN_RUNNING) {
		if (s->sp.status_fd >= 0)
			read_status(r);
		finish(s, r->status, r->status_seen);
		r->drain_until = now + RUN_DRAIN_MS;
	}
	/* Done once the program's streams are read to the end and the host
	 * took what we hold for it (or stopped taking it), or at the
	 * drain's deadline. A reader that stopped reading loses the rest
	 * (the record has it). */
	if (s->state == RUN_EXITED && ((!r->out_open && !r->err_open &&
	    run_host_done(r, now)) || now >= r->drain_until))
		return false;
	run_flush(r, now_mono_ms());
	if (loop_shed_due(&r->shed, r->busy, now))
		run_shed(s);
	if (sup_holding(s) && (audit_pending(s->audit) == 0 ||
	    s->record_broken))
		sup_release(s);
	return true;
}

/* The last of the host's output: one more try, then what a stalled reader
 * did not take is dropped, and said so on stderr (without waiting). */
static void
loop_host_done(struct sup *s)
{
	size_t left;

	(void)hostout_flush(&s->host_out);
	left = s->host_out.len + s->host_err.len;
	hostout_done(&s->host_out);
	if (left > 0) {
		char m[160];

		snprintf(m, sizeof m, "%s: %zu bytes of output not passed "
		    "on: the reader stopped reading\n", s->tag, left);
		hostout_write(&s->host_err, m, strlen(m), true);
	}
	(void)hostout_flush(&s->host_err);
	hostout_done(&s->host_err);
	(void)hostout_flush(&s->status);
	hostout_done(&s->status);
}

/* The run's state, to the consoles and the --status-fd. */
static void
run_state_said(struct sup *s)
{
	struct msg_run ri;
	char limits[256];

	control_run_info(s, &ri, limits, sizeof limits);
	sup_broadcast(s, msg_state(&ri));
}

int
loop_run(struct sup *s)
{
	/* A container's streams are its runtime's: none to read here. */
	struct run r = {
		.s = s, .listener_open = true, .out_open = !s->oci,
		.err_open = !s->oci,
	};
	struct loop *l = loop_new(RUN_MAX_FDS);
	int e;

	loop_shed_start(&r.shed, now_mono_ms(), RUN_SHED_MS, RUN_IDLE_MS);
	for (int i = 0; i < SUP_MAX_CLIENTS; i++)
		r.clients[i] = (struct run_client){ &r, i };
	if (s->headless) {
		hostout_init(&s->host_out, 1);
		hostout_init(&s->host_err, 2);
	} else
		s->host_out.fd = s->host_err.fd = s->host_out.own_fd =
		    s->host_err.own_fd = -1;
	hostout_init(&s->status, s->status_fd);
	run_state_said(s);
	s->hold_answers = true;
	do {
		run_gather(l, &r);
		e = run_wait(l, &r);
	} while (e >= 0 && run_after(&r));
	/* The run is over: what is still held goes (to processes that are
	 * gone, as a rule); the record's last flush is main.c's. */
	s->hold_answers = false;
	sup_release(s);
	loop_free(l);
	loop_host_done(s);
	return e;
}
