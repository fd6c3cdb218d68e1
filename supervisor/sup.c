/* SPDX-License-Identifier: MIT */
/*
 * The ways out of a handler: answer the kernel, hand in an fd, record,
 * tell the consoles, park a request for a person, end the run. Handlers
 * (files.c, net.c, install.c) call down into these and never into each
 * other. This is the only file that issues the notify SEND, ADDFD and
 * ID_VALID ioctls; RECV stays with the receive loop in unotify.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "approvals/audit-write.h"
#include "approvals/decide.h"
#include "approvals/msg.h"
#include "config/escape.h"
#include "config/util.h"
#include "supervisor/sup.h"
#include "supervisor/target.h"
#include "supervisor/tell.h"

/* The answer in s->resp (the kernel's size of it, which may be larger
 * than ours). */
static void
resp_set(struct sup *s, uint64_t id, int64_t val, uint32_t flags)
{
	memset(s->resp, 0, s->resp_size);
	s->resp->id = id;
	s->resp->flags = flags;
	if (flags == 0) {
		if (val < 0)
			s->resp->error = (int32_t)val;
		else
			s->resp->val = val;
	}
}

void
sup_respond(struct sup *s, uint64_t id, int64_t val, uint32_t flags)
{
	resp_set(s, id, val, flags);
	/* Every answer of the loop's round waits for its end: the event a
	 * handler records after answering is then committed first. */
	if (s->hold_answers && !s->record_broken) {
		if (s->n_held == s->cap_held) {
			s->cap_held = s->cap_held ? s->cap_held * 2 : 16;
			s->held = xreallocarray(s->held, s->cap_held,
			    sizeof *s->held);
		}
		s->held[s->n_held++] = *s->resp;
		return;
	}
	/* ENOENT: the target was interrupted or died; nothing to answer. */
	(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp);
}

void
sup_release(struct sup *s)
{
	for (size_t i = 0; i < s->n_held; i++) {
		/* Through s->resp: the kernel's size of it, which may be
		 * larger than ours. */
		memset(s->resp, 0, s->resp_size);
		*s->resp = s->held[i];
		(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp);
	}
	s->n_held = 0;
}

bool
sup_holding(const struct sup *s)
{
	return s->n_held > 0;
}

void
sup_continue(struct sup *s, uint64_t id)
{
	sup_respond(s, id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

void
sup_continue_quiet(struct sup *s, uint64_t id)
{
	resp_set(s, id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
	(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp);
	s->quiet = true;
}

void
sup_respond_now(struct sup *s, uint64_t id, int64_t val)
{
	resp_set(s, id, val, 0);
	(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp);
}

int64_t
sup_respond_fd(struct sup *s, uint64_t id, int fd, bool cloexec)
{
	struct seccomp_notif_addfd a = {
		.id = id,
		.flags = SECCOMP_ADDFD_FLAG_SEND,
		.srcfd = (uint32_t)fd,
		.newfd = 0,
		.newfd_flags = cloexec ? O_CLOEXEC : 0,
	};
	int r = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);

	return r < 0 ? -errno : r;
}

int
sup_inject_fd(struct sup *s, uint64_t id, int hostfd, int fd, bool cloexec)
{
	struct seccomp_notif_addfd a = {
		.id = id,
		.flags = SECCOMP_ADDFD_FLAG_SETFD,
		.srcfd = (uint32_t)hostfd,
		.newfd = (uint32_t)fd,
		.newfd_flags = cloexec ? O_CLOEXEC : 0,
	};

	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0)
		return -errno;
	return 0;
}

bool
sup_id_valid(const struct sup *s, uint64_t id)
{
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

bool
sup_call_gone(struct sup *s, const struct parked *pk, int64_t now)
{
	(void)now;
	return !sup_id_valid(s, pk->req.id);
}

void
sup_drop(struct sup *s, int slot)
{
	proto_conn_free(s->clients[slot].conn);
	s->clients[slot].conn = NULL;
	s->clients[slot].watch = false;
}

void
sup_send(struct sup *s, int slot, const json_t *m)
{
	if (proto_send(s->clients[slot].conn, m) < 0)
		sup_drop(s, slot);	/* fell too far behind */
	else {
		int r = proto_flush(s->clients[slot].conn);

		if (r < 0 && r != -EAGAIN)
			sup_drop(s, slot);
	}
}

/* --status-fd: one line of JSON per request parked or resolved and per
 * change of the run's state, on a channel the program has no way to
 * write to (close-on-exec, and spawn closes every fd past stdio). */
static void
sup_status(struct sup *s, const json_t *m)
{
	enum msg_type t = msg_type(m);
	char *line;

	if (s->status.fd < 0 || (t != MSG_TYPE_REQUEST &&
	    t != MSG_TYPE_RESOLVED && t != MSG_TYPE_STATE))
		return;
	if ((line = json_dumps(m, JSON_COMPACT)) == NULL)
		fatal("out of memory");
	hostout_write(&s->status, line, strlen(line), true);
	hostout_write(&s->status, "\n", 1, true);
	free(line);
}

void
sup_broadcast(struct sup *s, json_t *m)
{
	sup_status(s, m);
	for (int i = 0; i < SUP_MAX_CLIENTS; i++)
		if (s->clients[i].conn != NULL && s->clients[i].watch)
			sup_send(s, i, m);
	json_decref(m);
}

void
sup_event(struct sup *s, const struct audit_event *ev)
{
	audit_event(s->audit, ev);
	journal_send(s->journal, ev, NULL);
	/* A request's answer reaches consoles as "resolved"; "event" is
	 * for what was decided without asking. */
	if (ev->request_id != 0)
		return;
	sup_broadcast(s, msg_event(ev));
}

static struct audit_event
sup_event_of(const struct sup *s, const struct sup_what *w, enum verdict v,
    enum how how, const char *rule, const char *by, int64_t wait_ms,
    uint64_t request)
{
	return (struct audit_event){
		.run = s->id,
		.time_ms = now_wall_ms(),
		.pid = w->pid,
		.kind = w->kind,
		.syscall = w->syscall,
		.subject = w->subject,
		.subject2 = w->subject2,
		.detail = w->detail,
		.verdict = v,
		.how = how,
		.rule = rule,
		.decided_by = by,
		.wait_ms = wait_ms,
		.request_id = request,
	};
}

void
sup_record_failed(struct sup *s, const char *cause)
{
	if (s->record_broken)
		return;
	s->record_broken = true;
	fprintf(stderr, "%s: %s; nothing more can be recorded, so the "
	    "run %s is stopped\n", s->tag[0] != '\0' ? s->tag : "ward",
	    cause != NULL ? cause : "audit: the record cannot be written",
	    s->id);
	sup_kill(s, "record");
}

/* After a write that found the disk full: the reserve is spent, stop. */
static void
sup_check_room(struct sup *s)
{
	cleanup_free char *cause = NULL;

	if (!s->record_broken && audit_low_space(s->audit, &cause))
		sup_record_failed(s, cause);
}

int
sup_flush(struct sup *s)
{
	cleanup_free char *cause = NULL;
	int r = audit_flush(s->audit, &cause);

	if (r == 0)
		sup_check_room(s);
	else if (r != -EBUSY || audit_full(s->audit))
		sup_record_failed(s, cause);
	return r;
}

void
sup_shed(struct sup *s)
{
	audit_shed(s->audit);
	malloc_trim(0);
}

int
sup_intent(struct sup *s, const struct sup_what *w, enum verdict v,
    enum how how, const char *rule, const char *by, int64_t wait_ms,
    uint64_t request, int64_t *seq)
{
	struct audit_event ev = sup_event_of(s, w, v, how, rule, by, wait_ms,
	    request);
	cleanup_free char *cause = NULL;
	int r;

	if (s->record_broken)
		return -EIO;
	if ((r = audit_intent(s->audit, &ev, seq, &cause)) < 0) {
		sup_record_failed(s, cause);
		return r;
	}
	journal_send(s->journal, &ev, "intent");
	/* In the file, thanks to the reserve: no effect after this one. */
	sup_check_room(s);
	return s->record_broken ? -ENOSPC : 0;
}

void
sup_done(struct sup *s, int64_t seq, const struct sup_what *w,
    enum verdict v, enum how how, const char *rule, const char *by,
    int64_t wait_ms, uint64_t request)
{
	struct audit_event ev = sup_event_of(s, w, v, how, rule, by, wait_ms,
	    request);

	audit_done(s->audit, seq, &ev);
	journal_send(s->journal, &ev, seq > 0 ? "done" : NULL);
	if (request == 0)
		sup_broadcast(s, msg_event(&ev));
}

void
sup_record(struct sup *s, const struct sup_what *w, enum verdict v,
    enum how how, const char *rule, const char *by, int64_t wait_ms,
    uint64_t request)
{
	sup_done(s, 0, w, v, how, rule, by, wait_ms, request);
}

void
sup_record_run(struct sup *s, const char *what, enum verdict v,
    enum how how, const char *by, const char *detail)
{
	struct sup_what w = {
		.pid = s->sp.init_pid, .kind = KIND_RUN, .subject = what,
		.detail = detail,
	};

	sup_record(s, &w, v, how, NULL, by, 0, 0);
}

void
sup_parked_free(void *p)
{
	struct parked *pk = p;

	if (pk != NULL && pk->ops != NULL && pk->ops->free != NULL)
		pk->ops->free(pk);
	free(pk);
}

/* Show a new pending request to everyone and queue it. */
static void
show_and_queue(struct sup *s, struct request *r, struct parked *pk)
{
	if (s->headless) {
		cleanup_free char *subj = escape_str(r->subject);
		cleanup_free char *line = xasprintf("%s: run %s request %llu "
		    "pending: %s %s (pid %d); ward approve %s %llu or ward deny "
		    "%s %llu\n", s->tag, s->id, (unsigned long long)r->id,
		    request_kind_name(r->kind), subj, (int)r->pid, s->id,
		    (unsigned long long)r->id, s->id,
		    (unsigned long long)r->id);

		/* Through the same bounded buffer as the program's stderr:
		 * in order with it, and never blocking the loop. */
		hostout_write(&s->host_err, line, strlen(line), true);
	}
	sup_broadcast(s, msg_request(r));
	if (queue_add(s->queue, r, pk) < 0) {
		/* Cannot happen: ids are ours. Fail closed. */
		sup_respond(s, pk->req.id, -EACCES, 0);
		request_free(r);
		sup_parked_free(pk);
	}
}

/* The request as asked, committed before a console or the CLI sees it:
 * a crash while it waits leaves it in the record as "asked". */
static int
record_asked(struct sup *s, const struct request *r, struct parked *pk)
{
	struct audit_event ev = {
		.run = s->id, .time_ms = r->created_ms, .pid = r->pid,
		.kind = r->kind, .syscall = r->syscall, .subject = r->subject,
		.subject2 = r->subject2, .detail = r->detail,
		.verdict = VERDICT_ASK, .how = HOW_SUPERVISOR, .rule = r->why,
		.request_id = r->id,
	};
	cleanup_free char *cause = NULL;
	int e;

	if (s->record_broken)
		return -EIO;
	if ((e = audit_ask(s->audit, &ev, &pk->seq, &cause)) < 0) {
		sup_record_failed(s, cause);
		return e;
	}
	journal_send(s->journal, &ev, "asked");
	sup_check_room(s);
	return s->record_broken ? -ENOSPC : 0;
}

void
sup_park(struct sup *s, struct parked *pk, const struct sup_what *w,
    const char *why)
{
	struct request *r = request_new();
	char buf[PATH_MAX];

	pk->asked_ms = now_mono_ms();
	r->id = ++s->next_request;
	r->run = xstrdup(s->id);
	r->pid = w->pid;
	r->kind = w->kind;
	r->syscall = xstrdup(w->syscall);
	r->subject = xstrdup(w->subject);
	r->subject2 = w->subject2 != NULL ? xstrdup(w->subject2) : NULL;
	r->detail = xstrdup(w->detail != NULL ? w->detail : "");
	r->cmdline = w->cmdline != NULL ? xstrdup(w->cmdline) :
	    target_cmdline(r->pid);
	r->cwd = xstrdup(w->cwd != NULL ? w->cwd :
	    target_dir(r->pid, AT_FDCWD, buf, sizeof buf) == 0 ? buf : "?");
	r->why = xstrdup(why);
	r->rule = answers_pattern(r->kind, pk->ops->grant != NULL ?
	    pk->ops->grant(pk) : r->subject);
	r->created_ms = now_wall_ms();
	r->deadline_ms = s->policy.ask_timeout > 0 ?
	    r->created_ms + (int64_t)s->policy.ask_timeout * 1000 : 0;
	if (record_asked(s, r, pk) < 0) {
		/* Nobody may answer what the record cannot hold: denied at
		 * once, the way its kind is answered (a DNS lookup too). */
		(void)pk->ops->resolve(s, pk, VERDICT_DENY, HOW_SUPERVISOR,
		    "supervisor", "the record cannot be written", 0, 0);
		request_free(r);
		sup_parked_free(pk);
		return;
	}
	show_and_queue(s, r, pk);
}

void
sup_remember(struct sup *s, const struct parked *pk, const struct request *r,
    enum verdict v)
{
	(void)pk;
	answers_add(s->answers, r->kind, r->subject, v);
}

/* At most this much of a person's reason goes to the program. */
#define TELL_REASON_MAX	240

/*
 * A person's reason, also on the denied process's own stderr when that
 * is a pipe or a socket (supervisor/tell.c), before it sees the error:
 * an agent reads its tool's output, not ward's. One line, escaped and
 * bounded. Told only while the call still waits (the pidfd taken, then
 * the notification checked), so a reused pid is never told; ward's own
 * streams (headless: the program's pipes; a pty) already carry it.
 */
static void
tell_program(struct sup *s, const struct parked *pk, const char *reason)
{
	cleanup_free char *cut = NULL, *r = NULL, *line = NULL;
	cleanup_fd int pidfd = -1;
	struct stat skip[3];
	const int mine[3] = { s->out_fd, s->err_fd, s->pty };
	size_t n = 0, len;

	if (reason == NULL || *reason == '\0')
		return;
	if ((pidfd = tell_pidfd((pid_t)pk->req.pid)) < 0 ||
	    !sup_id_valid(s, pk->req.id))
		return;
	len = strlen(reason);
	if (len > TELL_REASON_MAX) {
		/* Cut at a character's start, never inside one. */
		len = TELL_REASON_MAX;
		while (len > 0 && ((unsigned char)reason[len] & 0xc0) == 0x80)
			len--;
	}
	cut = xstrndup(reason, len);
	r = escape_str(cut);
	line = xasprintf("ward: denied: %s%s\n", r,
	    len < strlen(reason) ? "..." : "");
	for (size_t i = 0; i < 3; i++)
		if (mine[i] >= 0 && fstat(mine[i], &skip[n]) == 0)
			n++;
	(void)tell_stderr(pidfd, line, strlen(line), skip, n);
}

/* An approval, committed before it takes effect: the asked row becomes
 * the intent (what it is about stays as asked). */
static int
approve(struct sup *s, const struct parked *pk, enum how how, const char *by,
    int64_t wait_ms, uint64_t request)
{
	struct sup_what w = { .pid = (pid_t)pk->req.pid };
	int64_t seq = pk->seq;

	return sup_intent(s, &w, VERDICT_ALLOW, how, NULL, by, wait_ms,
	    request, &seq);
}

enum verdict
sup_answer(struct sup *s, const struct parked *pk, enum verdict v,
    enum how how, const char *by, int64_t wait_ms, uint64_t request,
    int deny_errno, int64_t (*allow)(struct sup *, const struct parked *),
    const char *reason)
{
	switch (v) {
	case VERDICT_ALLOW:
		if (!sup_id_valid(s, pk->req.id))
			return VERDICT_NONE;
		if (approve(s, pk, how, by, wait_ms, request) < 0) {
			/* Fail closed: the record cannot hold it. */
			sup_respond(s, pk->req.id, -deny_errno, 0);
			return VERDICT_DENY;
		}
		/* Approved, even when the host then says no. */
		(void)allow(s, pk);
		return VERDICT_ALLOW;
	case VERDICT_KILL:
	case VERDICT_DENY:
	case VERDICT_NONE:
	case VERDICT_ASK:
	case VERDICT_STAGE:	/* files.c stages before it gets here */
		break;
	}
	/* After a person's delay the caller may be gone: then nobody is
	 * told about a call that no longer waits. */
	if (!sup_id_valid(s, pk->req.id))
		return v == VERDICT_KILL ? VERDICT_KILL : VERDICT_DENY;
	if (v != VERDICT_KILL)
		tell_program(s, pk, reason);
	sup_respond(s, pk->req.id, -deny_errno, 0);
	sup_tell_denied(s, reason);
	return v == VERDICT_KILL ? VERDICT_KILL : VERDICT_DENY;
}

/*
 * The reason goes where ward's own words go, never through a descriptor
 * the program chose: reopening /proc/PID/fd/2 would write with our
 * credentials to whatever the program made its fd 2 (as root, a file it
 * cannot write itself), and after the pid is reused, to another
 * process. Headless: our own stderr, the stream the program's stderr is
 * passed on through; with a console: its output pane.
 */
void
sup_tell_denied(struct sup *s, const char *reason)
{
	cleanup_free char *r = NULL, *msg = NULL;

	if (reason == NULL || *reason == '\0')
		return;
	r = escape_str(reason);
	msg = xasprintf("%s%s: denied: %s%s", s->pty >= 0 ? "\r\n" : "",
	    s->headless ? s->tag : "ward", r, s->pty >= 0 ? "\r\n" : "\n");
	if (s->headless)
		hostout_write(&s->host_err, msg, strlen(msg), true);
	sup_broadcast(s, msg_output(s->pty >= 0 ? AUDIT_PTY : AUDIT_STDERR,
	    msg, strlen(msg)));
}

void
sup_kill(struct sup *s, const char *reason)
{
	if (s->state == RUN_EXITED || s->end_reason != NULL)
		return;
	s->end_reason = reason;
	/* The init is pid 1 of the sandbox: with it, everything inside
	 * dies, whatever it forked or detached. */
	sup_signal_init(s, SIGKILL);
}

void
sup_signal_init(struct sup *s, int sig)
{
	if (s->oci && s->oci_pidfd >= 0)
		/* Not our child: its pid could be another's once it is
		 * gone; the pidfd cannot. */
		(void)syscall(SYS_pidfd_send_signal, s->oci_pidfd, sig, NULL,
		    0);
	else if (!s->oci && s->sp.init_pid > 0)
		(void)kill(s->sp.init_pid, sig);
}

static void
size_text(char *buf, size_t size, uint64_t n)
{
	if (n == 0)
		snprintf(buf, size, "none");
	else if (n % (1ULL << 30) == 0)
		snprintf(buf, size, "%lluG", (unsigned long long)(n >> 30));
	else if (n % (1ULL << 20) == 0)
		snprintf(buf, size, "%lluM", (unsigned long long)(n >> 20));
	else
		snprintf(buf, size, "%llu", (unsigned long long)n);
}

void
sup_limits(const struct sup *s, char *buf, size_t size)
{
	char mem[32], fsz[32], t[32], cpu[32], nof[32];

	size_text(mem, sizeof mem, s->policy.memory);
	size_text(fsz, sizeof fsz, s->policy.file_size);
	snprintf(t, sizeof t, s->policy.timeout ? "%us" : "none",
	    s->policy.timeout);
	snprintf(cpu, sizeof cpu, s->policy.cpu ? "%us" : "none",
	    s->policy.cpu);
	snprintf(nof, sizeof nof, s->policy.open_files ? "%u" : "host",
	    s->policy.open_files);
	snprintf(buf, size, "timeout=%s memory=%s pids=%u cpu=%s file_size=%s "
	    "open_files=%s (rlimits) %s", t, mem, s->policy.pids, cpu, fsz,
	    nof, s->landlock ? "landlock" : "NO-LANDLOCK");
	/* The credential store entries the policy shows. */
	for (size_t i = 0, n = strlen(buf); i < s->n_exposed && n < size; i++) {
		snprintf(buf + n, size - n, "%s%s", i == 0 ? " exposed=" : ",",
		    s->exposed[i].inside);
		n += strlen(buf + n);
	}
}
