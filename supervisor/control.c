/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's end of the control protocol (PROTOCOL.md; messages
 * built and parsed by approvals/msg.h):
 * consoles and CLI verbs connect, watch, decide and kill. A client that
 * falls behind is dropped; the loop never waits on one.
 */
#include "supervisor/control.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "approvals/ctl.h"
#include "approvals/decide.h"
#include "approvals/msg.h"
#include "config/escape.h"
#include "config/util.h"
#include "supervisor/sup.h"
#include "supervisor/unotify.h"

void
control_run_info(const struct sup *s, struct msg_run *ri, char *limits,
    size_t len)
{
	sup_limits(s, limits, len);
	*ri = (struct msg_run){
		.id = s->id, .name = s->name, .command = s->command,
		.state = s->state, .pid = s->sp.init_pid,
		.started_ms = s->started_ms, .ended_ms = s->ended_ms,
		.exit_code = s->exit_code, .exit_signal = s->exit_signal,
		.end_reason = s->end_reason, .limits = limits,
		.policy = s->policy_path, .headless = s->headless,
		.ask_timeout = s->policy.ask_timeout,
	};
	/* Consoles watching now, so `ward ps` can flag a run that waits
	 * on nobody (the asker's own hello is counted after this). */
	for (int i = 0; i < SUP_MAX_CLIENTS; i++)
		ri->watchers += s->clients[i].conn != NULL &&
		    s->clients[i].watch && !s->clients[i].cli;
}

void
control_output(struct sup *s, const char *stream, const void *buf, size_t n)
{
	enum audit_stream st;
	bool any = false;

	/* Keep the tail for consoles that attach later. */
	if (n >= SUP_BACKLOG) {
		memcpy(s->backlog, (const char *)buf + n - SUP_BACKLOG,
		    SUP_BACKLOG);
		s->backlog_len = SUP_BACKLOG;
	} else {
		if (s->backlog_len + n > SUP_BACKLOG) {
			size_t cut = s->backlog_len + n - SUP_BACKLOG;

			memmove(s->backlog, s->backlog + cut,
			    s->backlog_len - cut);
			s->backlog_len -= cut;
		}
		memcpy(s->backlog + s->backlog_len, buf, n);
		s->backlog_len += n;
	}
	for (int i = 0; i < SUP_MAX_CLIENTS; i++)
		any |= s->clients[i].conn != NULL && s->clients[i].watch;
	if (any && audit_stream_parse(stream, &st) == 0)
		sup_broadcast(s, msg_output(st, buf, n));
}

/*
 * The slot for a new client: a free one, else the table is full and the
 * one that has waited longest without a word goes, a client that is not
 * watching before a console that is (a console's user sees it close and
 * attaches again; a refused CLI verb would simply fail).
 */
static int
control_slot(struct sup *s)
{
	int victim = -1;

	for (int i = 0; i < SUP_MAX_CLIENTS; i++) {
		const struct client *c = &s->clients[i], *v;

		if (c->conn == NULL)
			return i;
		if (victim < 0) {
			victim = i;
			continue;
		}
		v = &s->clients[victim];
		if (c->watch != v->watch ? !c->watch :
		    c->active_ms < v->active_ms)
			victim = i;
	}
	sup_drop(s, victim);
	return victim;
}

void
control_on_accept(struct sup *s)
{
	for (;;) {
		int fd = -1, slot;
		uid_t uid;
		pid_t pid;
		int r = ctl_accept(s->ctl_fd, &fd, &uid, &pid);

		if (r == -EPERM)
			continue;	/* another user: refused, fd closed */
		if (r < 0)
			return;
		slot = control_slot(s);
		s->clients[slot] = (struct client){
			.conn = proto_conn_new(fd),
			.active_ms = now_mono_ms(),
		};
		proto_conn_set_peer(s->clients[slot].conn, uid, pid);
	}
}

bool
control_output_room(struct sup *s, int64_t now)
{
	bool room = true;

	for (int i = 0; i < SUP_MAX_CLIENTS; i++) {
		struct client *c = &s->clients[i];

		if (c->conn == NULL || !c->watch ||
		    proto_queued(c->conn) <= CONTROL_HOLD_BYTES) {
			c->behind_ms = 0;
			continue;
		}
		if (c->behind_ms == 0)
			c->behind_ms = now;
		room = false;
	}
	return room;
}

static int64_t
control_deadline_of(const struct client *c)
{
	if (c->conn == NULL)
		return 0;
	if (c->watch)
		return c->behind_ms != 0 ? c->behind_ms + CONTROL_STALL_MS : 0;
	return c->active_ms + (c->greeted ? CONTROL_IDLE_MS : CONTROL_HELLO_MS);
}

int64_t
control_next_deadline(const struct sup *s)
{
	int64_t due = 0;

	for (int i = 0; i < SUP_MAX_CLIENTS; i++) {
		int64_t d = control_deadline_of(&s->clients[i]);

		if (d != 0 && (due == 0 || d < due))
			due = d;
	}
	return due;
}

void
control_tick(struct sup *s, int64_t now)
{
	for (int i = 0; i < SUP_MAX_CLIENTS; i++) {
		int64_t d = control_deadline_of(&s->clients[i]);

		if (d != 0 && now >= d)
			sup_drop(s, i);
	}
}

static void
ack(struct sup *s, int slot, uint64_t req_id, bool ok, const char *err)
{
	json_t *m = msg_ack(req_id, ok, err);

	sup_send(s, slot, m);
	json_decref(m);
}

/* A client that sent no hello is a CLI verb (kill needs none). */
static const char *
control_via(const struct sup *s, int slot)
{
	const struct client *c = &s->clients[slot];

	/* Through ward relay: "via ssh from HOST". The uid is what the
	 * peer check proved; the origin is what that uid's relay says. */
	if (c->origin[0] != '\0')
		return c->origin;
	return c->cli || !c->greeted ? "cli" : "console";
}

/* Who answers: the uid the peer check proved, and its name, read from
 * /etc/passwd once per connection (not at every answer of an approver
 * that answers thousands: an open, a read and a parse each). */
static char *
who(struct sup *s, int slot, const char *via)
{
	struct client *c = &s->clients[slot];
	uid_t uid = proto_conn_peer_uid(c->conn);

	if (c->user[0] == '\0' && passwd_file_name("/etc/passwd", uid,
	    c->user, sizeof c->user) < 0)
		snprintf(c->user, sizeof c->user, "?");
	return xasprintf("uid %u (%s) pid %d via %s", (unsigned)uid, c->user,
	    (int)proto_conn_peer_pid(c->conn), via);
}

static void
on_hello(struct sup *s, int slot, const json_t *msg)
{
	struct msg_hello h;
	struct msg_run ri;
	char limits[1024];
	json_t *m;
	size_t k;

	/* A hello with an ill-typed member still gets its welcome; what
	 * parsed before it counts (as the fields were read one by one). */
	(void)msg_hello_parse(msg, &h, NULL);
	control_run_info(s, &ri, limits, sizeof limits);
	m = msg_welcome_part(&ri, s->queue, &k);
	sup_send(s, slot, m);
	json_decref(m);
	/* What did not fit inline follows, one frame each. */
	for (; k < queue_len(s->queue) && s->clients[slot].conn != NULL; k++) {
		m = msg_request(queue_at(s->queue, k));
		sup_send(s, slot, m);
		json_decref(m);
	}
	if (s->clients[slot].conn == NULL)
		return;
	s->clients[slot].watch = h.watch;
	/* Once view, always view: a later hello cannot take it back. */
	s->clients[slot].view |= h.view;
	s->clients[slot].cli = h.client != NULL && strcmp(h.client, "cli") == 0;
	if (h.origin != NULL) {
		cleanup_free char *e = escape_str(h.origin);

		snprintf(s->clients[slot].origin,
		    sizeof s->clients[slot].origin, "%s", e);
	}
	/* The pty's size before its backlog: the backlog of a full-screen
	 * program is drawn at it (issue 30, point 6). */
	if (h.watch && s->pty >= 0) {
		struct winsize ws = { 0 };

		if (ioctl(s->pty, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
		    ws.ws_col > 0 && ws.ws_row <= MSG_WINSIZE_MAX &&
		    ws.ws_col <= MSG_WINSIZE_MAX) {
			m = msg_resize(ws.ws_row, ws.ws_col);
			sup_send(s, slot, m);
			json_decref(m);
		}
	}
	if (h.watch && s->backlog_len > 0) {
		json_t *o = msg_output(s->pty >= 0 ? AUDIT_PTY : AUDIT_STDOUT,
		    s->backlog, s->backlog_len);

		sup_send(s, slot, o);
		json_decref(o);
	}
}

/*
 * Whether the rule a person confirmed is the one an answer for the run
 * stores: the request's rule as it travelled (bytes that are not UTF-8
 * as \xNN text), which is what the console had to show.
 */
static bool
control_rule_same(const struct request *r, const char *shown)
{
	json_t *j;
	bool same;

	if (r->rule == NULL)
		return false;
	j = request_json_string(r->rule);
	same = strcmp(json_string_value(j), shown) == 0;
	json_decref(j);
	return same;
}

static void
on_decide(struct sup *s, int slot, const json_t *msg)
{
	struct msg_decide d;
	const struct request *r;
	cleanup_free char *by = NULL, *err = NULL;
	uint64_t id;

	if (msg_decide_parse(msg, &d, NULL) < 0) {
		ack(s, slot, d.request, false, "bad decide message");
		return;
	}
	if (s->clients[slot].view) {
		ack(s, slot, d.request, false, "this console is view only");
		return;
	}
	id = d.request;
	if ((r = queue_find(s->queue, id)) == NULL) {
		err = xasprintf("request %llu of run %s: %s",
		    (unsigned long long)id, s->id, id >= 1 &&
		    id <= s->next_request ? "already decided" :
		    "no such request");
		ack(s, slot, id, false, err);
		return;
	}
	if (d.verdict == VERDICT_STAGE) {
		const struct parked *pk = queue_data(s->queue, id);

		if (s->oci || pk->ops->can_stage == NULL ||
		    !pk->ops->can_stage(pk)) {
			err = xasprintf("request %llu of run %s: %s",
			    (unsigned long long)id, s->id, s->oci ?
			    "a container's write cannot be staged (no host "
			    "file behind it): approve or deny" : "only a write "
			    "that opens a file can be staged");
			ack(s, slot, id, false, err);
			return;
		}
	}
	if (d.scope == SCOPE_RUN && d.rule != NULL &&
	    !control_rule_same(r, d.rule)) {
		err = xasprintf("request %llu of run %s: the rule shown is not "
		    "the rule an answer for the run stores", (unsigned long
		    long)id, s->id);
		ack(s, slot, id, false, err);
		return;
	}
	if (d.always_file != NULL && d.scope != SCOPE_RUN) {
		err = xasprintf("request %llu of run %s: an answer \"always\" "
		    "is an answer for the run", (unsigned long long)id, s->id);
		ack(s, slot, id, false, err);
		return;
	}
	by = who(s, slot, control_via(s, slot));
	/* "Always": the record says where the console wrote the rule. */
	if (d.always_file != NULL) {
		cleanup_free char *person = steal_ptr(&by);

		by = xasprintf("%s; always: %s:%u", person, d.always_file,
		    d.always_line);
	}
	/* A staged path is remembered for the run whatever the scope. */
	if (d.scope == SCOPE_RUN && d.verdict != VERDICT_STAGE) {
		const struct parked *pk = queue_data(s->queue, id);

		pk->ops->remember(s, pk, r, d.verdict);
	}
	/* Ack first: the answer below may end the run. */
	ack(s, slot, id, true, NULL);
	unotify_resolve(s, id, d.verdict, HOW_PERSON, by, d.reason);
}

/* The run's answers "for this run", numbered from 1 (ward rules). */
static void
on_rules(struct sup *s, int slot)
{
	size_t n = answers_count(s->answers);
	cleanup_free struct msg_rule *v = xcalloc(n + 1, sizeof *v);
	json_t *m;

	for (size_t i = 0; i < n; i++) {
		const struct rule *ru = answers_at(s->answers, i + 1);

		v[i] = (struct msg_rule){
			.n = i + 1, .kind = ru->kind, .verdict = ru->verdict,
			.pattern = ru->pattern,
		};
	}
	m = msg_rule_list(v, n);
	sup_send(s, slot, m);
	json_decref(m);
}

/* ward rules revoke: the answer goes, recorded; the next such request
 * is asked again. */
static void
on_revoke(struct sup *s, int slot, const json_t *msg)
{
	const struct rule *ru;
	cleanup_free char *by = NULL, *what = NULL, *err = NULL, *d = NULL;
	uint64_t n;

	if (msg_revoke_parse(msg, &n, NULL) < 0) {
		ack(s, slot, 0, false, "bad revoke message");
		return;
	}
	if ((ru = answers_at(s->answers, n)) == NULL) {
		err = xasprintf("run %s has no rule %llu", s->id,
		    (unsigned long long)n);
		ack(s, slot, 0, false, err);
		return;
	}
	d = rule_describe(ru);
	what = xasprintf("revoke %s", d);
	by = who(s, slot, control_via(s, slot));
	(void)answers_revoke(s->answers, n);
	ack(s, slot, 0, true, NULL);
	sup_record_run(s, what, VERDICT_NONE, HOW_PERSON, by, NULL);
}

/*
 * The agent pane's keys and size. Only a watching console's (it sees
 * what it types into); clients of another uid were refused at accept.
 * Never blocks: the pty's master is non-blocking, and what it does not
 * take now is dropped, as a terminal drops keys into a stuck program.
 */
static bool
control_may_type(struct sup *s, int slot)
{
	const struct client *c = &s->clients[slot];

	if (s->pty >= 0 && c->greeted && c->watch && !c->cli && !c->view)
		return true;
	ack(s, slot, 0, false, s->pty < 0 ? "the program has no terminal" :
	    c->view ? "this console is view only" :
	    "input needs a watching console");
	return false;
}

static void
on_input(struct sup *s, int slot, const json_t *msg)
{
	struct msg_input in;
	size_t off = 0;

	if (!control_may_type(s, slot))
		return;
	if (msg_input_parse(msg, &in, NULL) < 0) {
		ack(s, slot, 0, false, "bad input message");
		return;
	}
	while (off < in.len) {
		ssize_t n = write(s->pty, (const char *)in.data + off,
		    in.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	msg_input_done(&in);
}

static void
on_resize(struct sup *s, int slot, const json_t *msg)
{
	struct winsize ws = { 0 };
	int rows, cols;

	if (!control_may_type(s, slot))
		return;
	if (msg_resize_parse(msg, &rows, &cols, NULL) < 0) {
		ack(s, slot, 0, false, "bad resize message");
		return;
	}
	ws.ws_row = (unsigned short)rows;
	ws.ws_col = (unsigned short)cols;
	/* On the master: the kernel signals the slave's foreground group,
	 * but only when the size changes. A console says the size again
	 * once the program has set up (curses reads its size, then installs
	 * its handler: a change between the two is missed), so the signal
	 * is sent here too, harmless when nothing changed. */
	(void)ioctl(s->pty, TIOCSWINSZ, &ws);
	{
		pid_t pg = tcgetpgrp(s->pty);

		if (pg > 0)
			(void)kill(-pg, SIGWINCH);
	}
	/* Every console learns the size: one that shows the output draws a
	 * full-screen program through its emulator at the program's size.
	 * Not on --status-fd (sup_broadcast's): it is no event of the run. */
	{
		json_t *m = msg_resize(rows, cols);

		for (int i = 0; i < SUP_MAX_CLIENTS; i++)
			if (s->clients[i].conn != NULL && s->clients[i].watch)
				sup_send(s, i, m);
		json_decref(m);
	}
}

static void
on_message(struct sup *s, int slot, const json_t *msg)
{
	enum msg_type t = msg_type(msg);

	s->clients[slot].active_ms = now_mono_ms();
	if (t == MSG_TYPE_HELLO)
		s->clients[slot].greeted = true;

	if (t == MSG_TYPE_HELLO)
		on_hello(s, slot, msg);
	/* A kill needs no hello first: the kill switch works even when
	 * the welcome cannot be sent. */
	else if (t == MSG_TYPE_DECIDE)
		on_decide(s, slot, msg);
	else if (t == MSG_TYPE_INPUT)
		on_input(s, slot, msg);
	else if (t == MSG_TYPE_RESIZE)
		on_resize(s, slot, msg);
	else if (t == MSG_TYPE_KILL && s->clients[slot].view)
		ack(s, slot, 0, false, "this console is view only");
	else if (t == MSG_TYPE_REVOKE && s->clients[slot].view)
		ack(s, slot, 0, false, "this console is view only");
	else if ((t == MSG_TYPE_RULES || t == MSG_TYPE_REVOKE) &&
	    !s->clients[slot].greeted)
		ack(s, slot, 0, false, "hello first");
	else if (t == MSG_TYPE_RULES)
		on_rules(s, slot);
	else if (t == MSG_TYPE_REVOKE)
		on_revoke(s, slot, msg);
	else if (t == MSG_TYPE_KILL) {
		cleanup_free char *by = who(s, slot,
		    control_via(s, slot));

		ack(s, slot, 0, true, NULL);
		sup_record_run(s, "kill", VERDICT_KILL, HOW_PERSON, by, NULL);
		sup_kill(s, "killed");
	} else
		ack(s, slot, 0, false, "unknown message type");
}

void
control_on_client(struct sup *s, int slot, short revents)
{
	struct proto_conn *c = s->clients[slot].conn;
	json_t *msg = NULL;
	cleanup_free char *cause = NULL;
	ssize_t n;
	int r;

	if ((revents & POLLOUT) && (r = proto_flush(c)) < 0 && r != -EAGAIN) {
		sup_drop(s, slot);
		return;
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = proto_read(c);
	if (n < 0 && n != -EAGAIN) {
		sup_drop(s, slot);
		return;
	}
	while ((r = proto_next(c, &msg, &cause)) == 1) {
		on_message(s, slot, msg);
		json_decref(msg);
		if (s->clients[slot].conn == NULL)
			return;
	}
	if (r < 0 || proto_eof(c))
		sup_drop(s, slot);
}

void
control_close_all(struct sup *s)
{
	for (int i = 0; i < SUP_MAX_CLIENTS; i++) {
		if (s->clients[i].conn == NULL)
			continue;
		/* Give each a moment to take what is queued (the exit). */
		for (int tries = 0; tries < 20 &&
		    proto_want_write(s->clients[i].conn); tries++) {
			struct pollfd p = {
				.fd = proto_conn_fd(s->clients[i].conn),
				.events = POLLOUT,
			};

			if (poll(&p, 1, 50) > 0)
				(void)proto_flush(s->clients[i].conn);
		}
		sup_drop(s, i);
	}
}
