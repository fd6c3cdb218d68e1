/*
 * The supervisor's end of the control protocol (approvals/proto.h):
 * consoles and CLI verbs connect, watch, decide and kill. A client that
 * falls behind is dropped; the loop never waits on one.
 */
#include "supervisor/control.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approvals/ctl.h"
#include "config/util.h"
#include "supervisor/sup.h"
#include "supervisor/unotify.h"

static const char *
state_name(enum run_state st)
{
	switch (st) {
	case RUN_STARTING:
		return "starting";
	case RUN_RUNNING:
		return "running";
	case RUN_EXITED:
		return "exited";
	}
	return "?";
}

json_t *
control_run_json(const struct sup *s)
{
	json_t *o = json_object();
	char limits[256];

	sup_limits(s, limits, sizeof limits);
	json_object_set_new(o, "id", json_string(s->id));
	json_object_set_new(o, "name", s->name ? json_string(s->name) :
	    json_null());
	json_object_set_new(o, "command", json_string(s->command));
	json_object_set_new(o, "state", json_string(state_name(s->state)));
	json_object_set_new(o, "pid", json_integer(s->sp.init_pid));
	json_object_set_new(o, "started_ms", json_integer(s->started_ms));
	json_object_set_new(o, "ended_ms", json_integer(s->ended_ms));
	json_object_set_new(o, "exit_code", json_integer(s->exit_code));
	json_object_set_new(o, "exit_signal", json_integer(s->exit_signal));
	json_object_set_new(o, "end_reason", s->end_reason ?
	    json_string(s->end_reason) : json_null());
	json_object_set_new(o, "limits", json_string(limits));
	json_object_set_new(o, "policy", json_string(s->policy_path));
	json_object_set_new(o, "headless", json_boolean(s->headless));
	json_object_set_new(o, "ask_timeout",
	    json_integer(s->policy.ask_timeout));
	return o;
}

static json_t *
output_msg(const char *stream, const void *buf, size_t n)
{
	json_t *m = proto_msg("output");
	cleanup_free char *b64 = proto_b64_encode(buf, n);

	json_object_set_new(m, "stream", json_string(stream));
	json_object_set_new(m, "data", json_string(b64));
	return m;
}

void
control_output(struct sup *s, const char *stream, const void *buf, size_t n)
{
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
	if (any)
		sup_broadcast(s, output_msg(stream, buf, n));
}

void
control_on_accept(struct sup *s)
{
	for (;;) {
		int fd = -1, slot = -1;
		uid_t uid;
		pid_t pid;
		int r = ctl_accept(s->ctl_fd, &fd, &uid, &pid);

		if (r == -EPERM)
			continue;	/* another user: refused, fd closed */
		if (r < 0)
			return;
		for (int i = 0; i < SUP_MAX_CLIENTS; i++)
			if (s->clients[i].conn == NULL) {
				slot = i;
				break;
			}
		if (slot < 0) {
			closep(&fd);
			continue;
		}
		s->clients[slot].conn = proto_conn_new(fd);
		proto_conn_set_peer(s->clients[slot].conn, uid, pid);
		s->clients[slot].watch = false;
	}
}

static void
ack(struct sup *s, int slot, json_t *req_id, bool ok, const char *err)
{
	json_t *m = proto_msg("ack");

	if (req_id != NULL)
		json_object_set(m, "request", req_id);
	json_object_set_new(m, "ok", json_boolean(ok));
	if (err != NULL)
		json_object_set_new(m, "error", json_string(err));
	sup_send(s, slot, m);
	json_decref(m);
}

static char *
who(const struct sup *s, int slot, const char *via)
{
	uid_t uid = proto_conn_peer_uid(s->clients[slot].conn);
	char name[64];

	if (passwd_file_name("/etc/passwd", uid, name, sizeof name) < 0)
		snprintf(name, sizeof name, "?");
	return xasprintf("uid %u (%s) pid %d via %s", (unsigned)uid, name,
	    (int)proto_conn_peer_pid(s->clients[slot].conn), via);
}

static void
on_hello(struct sup *s, int slot, const json_t *msg)
{
	json_t *m = proto_msg("welcome"), *pending = json_array();
	const char *client = json_string_value(json_object_get(msg, "client"));
	bool watch = json_is_true(json_object_get(msg, "watch"));

	for (size_t i = 0; i < queue_len(s->queue); i++)
		json_array_append_new(pending, request_to_json(queue_at(s->queue, i)));
	json_object_set_new(m, "version", json_integer(PROTO_VERSION));
	json_object_set_new(m, "run", control_run_json(s));
	json_object_set_new(m, "pending", pending);
	sup_send(s, slot, m);
	json_decref(m);
	if (s->clients[slot].conn == NULL)
		return;
	s->clients[slot].watch = watch;
	s->clients[slot].cli = client != NULL && strcmp(client, "cli") == 0;
	if (watch && s->backlog_len > 0) {
		json_t *o = output_msg(s->pty >= 0 ? "pty" : "stdout",
		    s->backlog, s->backlog_len);

		sup_send(s, slot, o);
		json_decref(o);
	}
}

static void
on_decide(struct sup *s, int slot, const json_t *msg)
{
	json_t *jid = json_object_get(msg, "request");
	const char *verdict = json_string_value(json_object_get(msg, "verdict"));
	const char *scope = json_string_value(json_object_get(msg, "scope"));
	const char *reason = json_string_value(json_object_get(msg, "reason"));
	enum verdict v;
	enum scope sc = SCOPE_ONCE;
	const struct request *r;
	cleanup_free char *by = NULL, *err = NULL;
	uint64_t id;

	if (!json_is_integer(jid) || verdict == NULL ||
	    verdict_parse(verdict, &v) < 0 ||
	    (v != VERDICT_ALLOW && v != VERDICT_DENY) ||
	    (scope != NULL && scope_parse(scope, &sc) < 0)) {
		ack(s, slot, jid, false, "bad decide message");
		return;
	}
	id = (uint64_t)json_integer_value(jid);
	if ((r = queue_find(s->queue, id)) == NULL) {
		err = xasprintf("request %llu of run %s: %s",
		    (unsigned long long)id, s->id, id >= 1 &&
		    id <= s->next_request ? "already decided" :
		    "no such request");
		ack(s, slot, jid, false, err);
		return;
	}
	by = who(s, slot, s->clients[slot].cli ? "cli" : "console");
	if (sc == SCOPE_RUN) {
		const struct parked *pk = queue_data(s->queue, id);

		pk->ops->remember(s, pk, r, v);
	}
	/* Ack first: the answer below may end the run. */
	ack(s, slot, jid, true, NULL);
	unotify_resolve(s, id, v, HOW_PERSON, by, reason);
}

static void
on_message(struct sup *s, int slot, const json_t *msg)
{
	const char *type = json_string_value(json_object_get(msg, "type"));

	if (strcmp(type, "hello") == 0)
		on_hello(s, slot, msg);
	else if (strcmp(type, "decide") == 0)
		on_decide(s, slot, msg);
	else if (strcmp(type, "kill") == 0) {
		cleanup_free char *by = who(s, slot,
		    s->clients[slot].cli ? "cli" : "console");

		ack(s, slot, NULL, true, NULL);
		sup_record_run(s, "kill", VERDICT_KILL, HOW_PERSON, by, NULL);
		sup_kill(s, "killed");
	} else
		ack(s, slot, NULL, false, "unknown message type");
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
