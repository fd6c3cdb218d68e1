/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's side of the TLS gate (intercept.h). Everything here
 * runs in the loop and never waits on the gate: the wire is
 * non-blocking, a message that cannot be sent at once refuses what it
 * was for. The gate holds the secrets' values; the supervisor holds
 * only their names and phantoms, so no value can reach the record.
 */
#include "supervisor/intercept.h"

#include <errno.h>
#include <sys/inotify.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approvals/decide.h"
#include "approvals/netrules.h"
#include "config/util.h"
#include "supervisor/gatewire.h"
#include "supervisor/sup.h"

/* Messages read in one round at most: the notify path is served
 * between rounds, whatever the gate says. */
#define INTERCEPT_ROUND	64
/* Answers the wire had no room for, sent when it has: a request the gate
 * holds must hear its answer. Past this many, the gate is not reading:
 * it is treated as gone. */
#define INTERCEPT_OUTBOX	256

struct intercept {
	struct gatewire_ready g;	/* pid, wire (-1 once gone), files */
	int		 lis4, lis6;	/* loopback listeners; lis6 may be -1 */
	uint64_t	 next_conn;
	char		*gone;		/* why the gate is gone, or NULL */
	struct gate_msg	*outbox;	/* GATE_ANSWERs not sent yet, in order */
	size_t		 n_outbox;
	char		*exe;		/* the gate's program, for messages */
	/* The folders of the login files bound inside (issue 33), watched
	 * for their file's name replaced on the host; -1: none bound. */
	int		 login_watch;
	struct login_wd {
		int			 wd;
		const struct policy_secret *ps;
	}		*login_wds;
	size_t		 n_login_wds;
};

/* A GATE_ASK parked for a person: kind "http". */
struct http_ask {
	uint64_t	 req;		/* the gate's number */
	char		*subject;	/* "host:port METHOD PATH" */
};

bool
intercept_wanted(const struct policy *p)
{
	if (p->n_secrets > 0)
		return true;
	for (size_t i = 0; i < p->n_net_allow; i++)
		if (policy_host_is_http(&p->net_allow[i]))
			return true;
	return false;
}

/* Everything of the gate's but its process (reaped by the caller). */
static void
intercept_free(struct sup *s)
{
	struct intercept *g = s->gate;

	closep(&g->lis4);
	closep(&g->lis6);
	closep(&g->login_watch);
	free(g->login_wds);
	gatewire_ready_done(&g->g);
	free(g->outbox);
	free(g->gone);
	free(g->exe);
	free(g);
	s->gate = NULL;
}

int
intercept_start(struct sup *s, const char *exe, char **cause)
{
	struct intercept *g = xcalloc(1, sizeof *g);
	int r;

	g->lis4 = g->lis6 = g->g.wire = g->login_watch = -1;
	g->exe = xstrdup(exe);
	s->gate = g;
	if ((r = gatewire_listen(AF_INET, &g->lis4)) < 0) {
		set_cause(cause, "the gate's loopback listener: %s",
		    strerror(-r));
		intercept_free(s);
		return r;
	}
	/* [::1] only where the host has it: an AF_INET6 socket to an
	 * intercepted host is refused otherwise (intercept_pair). */
	(void)gatewire_listen(AF_INET6, &g->lis6);
	if ((r = gatewire_spawn(exe, s->policy_path, s->run_dir, &g->g,
	    cause)) < 0)
		intercept_free(s);
	return r;
}

/* Phantoms only under the policy's own [secret] names: the gate is
 * trusted with values, not with what the sandbox's environment holds. */
static void
keep_policy_phantoms(struct sup *s)
{
	struct gatewire_ready *r = &s->gate->g;
	size_t kept = 0;

	for (size_t i = 0; i < r->n_phantoms; i++) {
		bool named = false;

		for (size_t j = 0; j < s->policy.n_secrets && !named; j++)
			named = strcmp(r->phantoms[i].name,
			    s->policy.secrets[j].name) == 0;
		if (named) {
			r->phantoms[kept++] = r->phantoms[i];
			continue;
		}
		free(r->phantoms[i].name);
		free(r->phantoms[i].value);
	}
	r->n_phantoms = kept;
}

int
intercept_ready(struct sup *s, char **cause)
{
	struct intercept *g = s->gate;
	int r;

	if (g == NULL)
		return 0;
	if ((r = gatewire_wait(&g->g, g->exe, GATEWIRE_START_MS, cause)) < 0) {
		intercept_free(s);
		return r;
	}
	keep_policy_phantoms(s);
	return 0;
}

const struct gatewire_phantom *
intercept_phantoms(const struct sup *s, size_t *n)
{
	*n = s->gate != NULL ? s->gate->g.n_phantoms : 0;
	return s->gate != NULL ? s->gate->g.phantoms : NULL;
}

const char *
intercept_ca(const struct sup *s)
{
	return s->gate != NULL ? s->gate->g.ca : NULL;
}

const char *
intercept_bundle(const struct sup *s)
{
	return s->gate != NULL ? s->gate->g.bundle : NULL;
}

bool
intercept_covers(const struct sup *s, const struct net_dest *d)
{
	return netrules_intercepts(&s->policy, d, NULL);
}

bool
intercept_alive(const struct sup *s, const char **why)
{
	if (s->gate != NULL && s->gate->g.wire >= 0)
		return true;
	if (why != NULL)
		*why = s->gate == NULL ? "the TLS gate did not start" :
		    s->gate->gone;
	return false;
}

int
intercept_pair(struct sup *s, int family, int *client, int *server)
{
	int l;

	if (!intercept_alive(s, NULL))
		return -ECONNREFUSED;
	l = family == AF_INET6 ? s->gate->lis6 : s->gate->lis4;
	if (l < 0)
		return -EAFNOSUPPORT;
	return gatewire_pair(l, client, server);
}

/* The gate is gone: said once, in the record and to the consoles; its
 * pending requests stay (answered, they are only recorded). */
static void
gone(struct sup *s, const char *why)
{
	struct intercept *g = s->gate;
	struct sup_what w = {
		.kind = KIND_HTTP, .syscall = "gate", .subject = "ward-gate",
		.detail = why,
	};
	cleanup_free char *told = NULL;

	if (g->g.wire < 0)
		return;
	closep(&g->g.wire);
	kill(g->g.pid, SIGKILL);
	(void)waitpid(g->g.pid, NULL, WNOHANG);
	g->gone = xasprintf("the TLS gate is gone (%s)", why);
	sup_record(s, &w, VERDICT_DENY, HOW_SUPERVISOR, "every later "
	    "connection to an intercepted host is refused", "supervisor", 0, 0);
	told = xasprintf("%s: connections to intercepted hosts are refused "
	    "from now on", g->gone);
	sup_tell_denied(s, told);
}

static int
send_msg(struct sup *s, const struct gate_msg *m, const int *fds, size_t n)
{
	int r;

	if (!intercept_alive(s, NULL))
		return -ECONNREFUSED;
	if ((r = gate_msg_send(s->gate->g.wire, m, fds, n)) < 0 &&
	    r != -EAGAIN) {
		cleanup_free char *why = xasprintf("the wire: %s",
		    strerror(-r));

		gone(s, why);
	}
	return r;
}

int
intercept_conn(struct sup *s, int *server, int *hostfd, const char *host,
    unsigned port)
{
	struct gate_msg m;
	int fds[2] = { *server, *hostfd };
	int r;

	memset(&m, 0, sizeof m);
	m.type = GATE_CONN;
	m.conn = ++s->gate->next_conn;
	m.port = port;
	gate_msg_set(m.host, sizeof m.host, host);
	r = send_msg(s, &m, fds, 2);
	/* Sent, the gate holds its copies; ours go either way. */
	closep(server);
	closep(hostfd);
	return r;
}

int
intercept_fd(const struct sup *s)
{
	return s->gate != NULL ? s->gate->g.wire : -1;
}

short
intercept_events(const struct sup *s)
{
	return (short)(POLLIN | (s->gate != NULL && s->gate->n_outbox > 0 ?
	    POLLOUT : 0));
}

/* ---- what the gate says ---- */

static enum verdict
verdict_of(uint32_t v, enum how *how)
{
	*how = v == GATE_DENY_PERSON ? HOW_PERSON : HOW_POLICY;
	return v == GATE_ALLOW ? VERDICT_ALLOW : VERDICT_DENY;
}

static char *
http_subject(const struct gate_msg *m)
{
	return xasprintf("%s:%u %s %s", m->host, (unsigned)m->port,
	    m->method[0] != '\0' ? m->method : "?", m->path[0] != '\0' ?
	    m->path : "/");
}

/* One request done (or refused): its line in the record. */
static void
on_http(struct sup *s, const struct gate_msg *m)
{
	cleanup_free char *subject = http_subject(m), *detail = NULL;
	enum how how;
	enum verdict v = verdict_of(m->verdict, &how);
	struct sup_what w = {
		.kind = KIND_HTTP, .syscall = "http", .subject = subject,
	};

	detail = xasprintf("status %u, %llu B up, %llu B down%s%s%s%s",
	    (unsigned)m->status, (unsigned long long)m->bytes_up,
	    (unsigned long long)m->bytes_down, m->name[0] ? ", secret " : "",
	    m->name, m->text[0] ? "; " : "", m->text);
	w.detail = detail;
	sup_record(s, &w, v, how, m->rule[0] ? m->rule : NULL, "gate", 0, 0);
}

/* A phantom where it may not go: an exfiltration attempt, refused. */
void
intercept_secret_refused(struct sup *s, const char *secret,
    const char *syscall, const char *to, const char *detail,
    const char *where, const char *by)
{
	cleanup_free char *subject = xasprintf("%s to %s", secret, to);
	cleanup_free char *rule = xasprintf("[secret %s] hosts", secret);
	/* The gate says "(its real value)" when the sandbox sent the value
	 * itself, not its phantom. */
	cleanup_free char *told = xasprintf("the %s of the secret %s %s: "
	    "refused, an exfiltration attempt", strstr(where,
	    "(its real value)") != NULL ? "value" : "phantom", secret, where);
	struct sup_what w = {
		.kind = KIND_SECRET, .syscall = syscall, .subject = subject,
		.detail = detail,
	};

	sup_record(s, &w, VERDICT_DENY, HOW_POLICY, rule, by, 0, 0);
	sup_tell_denied(s, told);
}

static void
on_secret(struct sup *s, const struct gate_msg *m)
{
	cleanup_free char *to = xasprintf("%s:%u", m->host, (unsigned)m->port);
	cleanup_free char *detail = xasprintf("in %s; %s %s",
	    m->text[0] ? m->text : "the request", m->method[0] ? m->method :
	    "?", m->path[0] ? m->path : "/");
	cleanup_free char *where = xasprintf("sent to %s (%s)", to, detail);

	intercept_secret_refused(s, m->name, "http", to, detail, where, "gate");
}

/* A login's tokens renewed by its token endpoint (issue 33): "secret
 * NAME refreshed", what the gate did as its detail; never a value. */
static void
on_refresh(struct sup *s, const struct gate_msg *m)
{
	cleanup_free char *subject = xasprintf("%s refreshed", m->name);
	cleanup_free char *rule = xasprintf("[secret %s] refresh", m->name);
	cleanup_free char *detail = xasprintf("at %s:%u%s: %s", m->host,
	    (unsigned)m->port, m->path, m->text);
	struct sup_what w = {
		.kind = KIND_SECRET, .syscall = "http", .subject = subject,
		.detail = detail,
	};

	sup_record(s, &w, VERDICT_ALLOW, HOW_POLICY, rule, "gate", 0, 0);
}

/*
 * A login file the sandbox reads as the gate's copy (a bind over its
 * name) whose name is replaced or removed on the host (the agent outside
 * ward saved a refresh by renaming a new file over it): the kernel drops
 * the bind with the name, and the sandbox would read the host's file,
 * its real tokens. The run is stopped at once; the person is told why.
 * The watch is on the file's folder, for its name.
 */
int
intercept_watch_login(struct sup *s, const struct policy_secret *ps,
    char **cause)
{
	struct intercept *g = s->gate;
	cleanup_free char *dir = xstrdup(ps->file);
	char *slash = strrchr(dir, '/');
	int wd;

	if (g == NULL || slash == NULL)
		return 0;
	*slash = '\0';
	if (g->login_watch < 0 &&
	    (g->login_watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		set_cause(cause, "inotify: %s", strerror(errno));
		return -errno;
	}
	if ((wd = inotify_add_watch(g->login_watch, dir[0] ? dir : "/",
	    IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE |
	    IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)) < 0) {
		set_cause(cause, "watch %s: %s", dir, strerror(errno));
		return -errno;
	}
	/* Two files in one folder share its wd: each is kept. */
	g->login_wds = xreallocarray(g->login_wds, g->n_login_wds + 1,
	    sizeof *g->login_wds);
	g->login_wds[g->n_login_wds++] = (struct login_wd){ wd, ps };
	return 0;
}

int
intercept_login_fd(const struct sup *s)
{
	return s->gate != NULL ? s->gate->login_watch : -1;
}

/* The login file watched by wd whose name is name (NULL: the folder
 * itself went, any file of it), or NULL. */
static const struct policy_secret *
login_named(const struct intercept *g, int wd, const char *name)
{
	for (size_t i = 0; i < g->n_login_wds; i++) {
		const struct policy_secret *ps = g->login_wds[i].ps;

		if (g->login_wds[i].wd == wd && (name == NULL ||
		    strcmp(strrchr(ps->file, '/') + 1, name) == 0))
			return ps;
	}
	return NULL;
}

void
intercept_on_login(struct sup *s)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct policy_secret *hit = NULL;
	ssize_t n;

	while ((n = read(s->gate->login_watch, buf, sizeof buf)) > 0)
		for (char *p = buf; p < buf + n && hit == NULL;) {
			const struct inotify_event *e = (const void *)p;

			if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF))
				hit = login_named(s->gate, e->wd, NULL);
			else if (e->len > 0)
				hit = login_named(s->gate, e->wd, e->name);
			p += sizeof *e + e->len;
		}
	if (hit != NULL && s->state == RUN_RUNNING) {
		cleanup_free char *subject = xasprintf("%s exposed", hit->name);
		cleanup_free char *rule = xasprintf("[secret %s]", hit->name);
		cleanup_free char *told = xasprintf("%s was replaced on the host "
		    "while this run used it (the agent outside ward saved its "
		    "login): the sandbox would see the real tokens, so the run "
		    "is stopped; start it again", hit->file);
		struct sup_what w = {
			.kind = KIND_SECRET, .syscall = "rename",
			.subject = subject, .detail = told,
		};

		/* The kill first: the record's write (synced) would leave
		 * the sandbox milliseconds more with the host's file. */
		sup_kill(s, "its login file was replaced on the host");
		sup_record(s, &w, VERDICT_DENY, HOW_POLICY, rule, "ward", 0, 0);
		sup_tell_denied(s, told);
	}
}

/* A connection ended in error: kind "http", no status, the gate's text. */
static void
on_error(struct sup *s, const struct gate_msg *m)
{
	cleanup_free char *subject = xasprintf("%s:%u", m->host,
	    (unsigned)m->port);
	struct sup_what w = {
		.kind = KIND_HTTP, .syscall = "tls", .subject = subject,
		.detail = m->text,
	};

	sup_record(s, &w, VERDICT_DENY, HOW_POLICY, NULL, "gate", 0, 0);
}

/* Send what waits in the outbox, in order, as far as the wire takes it. */
static void
flush_outbox(struct sup *s)
{
	struct intercept *g = s->gate;
	size_t done = 0;

	if (g->n_outbox == 0)
		return;
	while (done < g->n_outbox && send_msg(s, &g->outbox[done], NULL, 0) == 0)
		done++;
	if (!intercept_alive(s, NULL))
		done = g->n_outbox;	/* nobody to hear them */
	memmove(g->outbox, g->outbox + done,
	    (g->n_outbox - done) * sizeof *g->outbox);
	g->n_outbox -= done;
}

static void
answer(struct sup *s, uint64_t req, enum verdict v)
{
	struct intercept *g = s->gate;
	struct gate_msg m;

	memset(&m, 0, sizeof m);
	m.type = GATE_ANSWER;
	m.req = req;
	m.verdict = v == VERDICT_ALLOW ? GATE_ALLOW : GATE_DENY_PERSON;
	if (!intercept_alive(s, NULL))
		return;
	/* Nothing here may block: a full wire keeps the answer for when it
	 * has room (the loop polls for it), after those before it. */
	if (g->n_outbox == 0 && send_msg(s, &m, NULL, 0) != -EAGAIN)
		return;
	if (!intercept_alive(s, NULL))
		return;
	if (g->n_outbox >= INTERCEPT_OUTBOX) {
		gone(s, "it reads no more of its wire");
		return;
	}
	g->outbox = xreallocarray(g->outbox, g->n_outbox + 1,
	    sizeof *g->outbox);
	g->outbox[g->n_outbox++] = m;
}

static enum verdict
http_resolve(struct sup *s, struct parked *pk, enum verdict v, enum how how,
    const char *by, const char *reason, int64_t wait_ms, uint64_t request)
{
	enum verdict done = v == VERDICT_ALLOW ? VERDICT_ALLOW : VERDICT_DENY;
	struct sup_what w = {
		.kind = KIND_HTTP, .syscall = "http",
		.subject = pk->http->subject,
	};
	int64_t seq = pk->seq;

	/* An approval is in the record before the gate lets it through. */
	if (done == VERDICT_ALLOW && sup_intent(s, &w, VERDICT_ALLOW, how,
	    reason, by, wait_ms, request, &seq) < 0)
		done = VERDICT_DENY;
	if (done == VERDICT_ALLOW && !intercept_alive(s, NULL))
		done = VERDICT_DENY;
	answer(s, pk->http->req, done);
	sup_done(s, seq, &w, done, how, reason, by, wait_ms, request);
	return done;
}

static void
http_free(struct parked *pk)
{
	if (pk->http != NULL)
		free(pk->http->subject);
	free(pk->http);
	pk->http = NULL;
}

/* "For this run": by the request's subject, host:port METHOD PATH. */
static const struct kind_ops http_ops = {
	.resolve = http_resolve,
	.remember = sup_remember,
	.free = http_free,
};

static void
on_ask(struct sup *s, const struct gate_msg *m)
{
	cleanup_free char *subject = http_subject(m), *detail = NULL;
	struct sup_what w = {
		.kind = KIND_HTTP, .syscall = "http", .subject = subject,
	};
	struct parked *pk;

	/* Answered for this run already: the gate need not wait. */
	switch (answers_match(s->answers, KIND_HTTP, subject)) {
	case VERDICT_ALLOW:
		answer(s, m->req, VERDICT_ALLOW);
		return;
	case VERDICT_DENY:
		answer(s, m->req, VERDICT_DENY);
		return;
	case VERDICT_NONE:
	case VERDICT_ASK:
	case VERDICT_KILL:
	case VERDICT_STAGE:
		break;
	}
	detail = xasprintf("%s %s on %s:%u; the rules of that host: %s",
	    m->method, m->path, m->host, (unsigned)m->port,
	    m->rule[0] ? m->rule : "none");
	w.detail = detail;
	w.cmdline = "(the TLS gate: an HTTP request no rule allows)";
	w.cwd = "-";
	pk = xcalloc(1, sizeof *pk);
	pk->ops = &http_ops;
	pk->http = xcalloc(1, sizeof *pk->http);
	pk->http->req = m->req;
	pk->http->subject = xstrdup(subject);
	sup_park(s, pk, &w, m->rule[0] ? m->rule : "no HTTP rule allows it");
}

/* One message; false when it broke the protocol. */
static bool
on_msg(struct sup *s, const struct gate_msg *m)
{
	switch ((enum gate_type)m->type) {
	case GATE_HTTP:
		on_http(s, m);
		return true;
	case GATE_SECRET:
		on_secret(s, m);
		return true;
	case GATE_ERROR:
		on_error(s, m);
		return true;
	case GATE_REFRESH:
		on_refresh(s, m);
		return true;
	case GATE_ASK:
		on_ask(s, m);
		return true;
	case GATE_PHANTOM:
	case GATE_READY:
	case GATE_FAIL:
	case GATE_CONN:
	case GATE_ANSWER:
		break;
	}
	return false;
}

void
intercept_on_ready(struct sup *s, short revents)
{
	if ((revents & POLLOUT) && intercept_alive(s, NULL))
		flush_outbox(s);
	for (int i = 0; i < INTERCEPT_ROUND && intercept_alive(s, NULL); i++) {
		struct gate_msg m;
		int fds[GATE_MAX_FDS];
		size_t n = 0;
		int r = gate_msg_recv(s->gate->g.wire, &m, fds, 0, &n);

		if (r == -EAGAIN)
			return;
		if (r == -EPIPE) {
			gone(s, "it exited");
			return;
		}
		if (r < 0 || !on_msg(s, &m)) {
			gone(s, r < 0 && r != -EPROTO ? strerror(-r) :
			    "a malformed message on its wire");
			return;
		}
	}
}

const char *
intercept_phantom_in(const struct sup *s, const char *text)
{
	size_t n;
	const struct gatewire_phantom *p = intercept_phantoms(s, &n);

	for (size_t i = 0; i < n; i++)
		if (strcasestr(text, p[i].value) != NULL)
			return p[i].name;
	return NULL;
}

/*
 * The gate's last words: our end of the wire shut for writing, the gate
 * sees the wire end, says what it still has (a GATE_HTTP for a request
 * whose response just ended) and exits, closing its end: recorded
 * until then, for a second at most. Asks are not parked any more.
 */
static bool
last_words(struct sup *s)
{
	struct intercept *g = s->gate;
	int64_t end = now_mono_ms() + 1000;

	(void)shutdown(g->g.wire, SHUT_WR);
	for (int64_t now; (now = now_mono_ms()) < end;) {
		struct pollfd p = { g->g.wire, POLLIN, 0 };
		struct gate_msg m;
		int fds[GATE_MAX_FDS];
		size_t n = 0;
		int r;

		if (poll(&p, 1, (int)(end - now)) <= 0)
			return false;
		if ((r = gate_msg_recv(g->g.wire, &m, fds, 0, &n)) == -EAGAIN)
			continue;
		if (r < 0)
			return r == -EPIPE;	/* it closed its end: exiting */
		if (m.type != GATE_ASK)
			(void)on_msg(s, &m);
	}
	return false;
}

void
intercept_stop(struct sup *s)
{
	struct intercept *g = s->gate;

	if (g == NULL)
		return;
	/* A gate still talking after a second, or one gone quiet without
	 * closing its end, is killed. */
	if (g->g.wire < 0 || !last_words(s))
		kill(g->g.pid, SIGKILL);
	closep(&g->g.wire);
	(void)waitpid(g->g.pid, NULL, 0);
	intercept_free(s);
}
