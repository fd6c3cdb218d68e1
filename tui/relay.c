/* SPDX-License-Identifier: MIT */
#include "tui/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approvals/ctl.h"
#include "approvals/msg.h"
#include "approvals/proto.h"
#include "config/escape.h"
#include "config/util.h"
#include "tui/feed.h"
#include "tui/usage.h"

/* Runs one relay talks to at once. */
#define RELAY_MAX_RUNS	64
/* Bytes of record lines in one relay_events answer: escaped inside a
 * JSON string they stay well under a frame (PROTO_MAX_FRAME). */
#define RELAY_EVENTS_CHUNK	(128u << 10)

static const char relay_help[] =
"Usage: ward relay\n"
"\n"
"Speak ward's control protocol for your own live runs on this machine on\n"
"stdin and stdout, each message in an envelope naming its run (see\n"
"PROTOCOL.md, \"ward relay\"). It is what 'ssh HOST ward relay' runs for\n"
"'ward pending --host HOST' (and approve, deny, kill, events: the relay\n"
"reads this machine's record for 'ward events --host'): OpenSSH carries it\n"
"and says who you are; the relay reaches only runs of its own uid, as\n"
"every verb does. Decisions made through it are recorded as\n"
"  uid N (NAME) pid P via ssh from ADDR\n"
"ADDR is the first field of SSH_CONNECTION (\"relay\" without one).\n"
"No network port is opened.\n"
"\n"
"Options:\n"
"  -h, --help   show this help\n"
"\n"
"Exit status: 0 when stdin ends, 1 on a broken stream, 2 usage.\n";

struct relay_link {
	char		*run;		/* as the client named it */
	struct proto_conn *conn;
};

struct relay {
	struct proto_conn *in, *out;
	struct relay_link links[RELAY_MAX_RUNS];
	char		 origin[96];
	/* ward events --host: the record read here (one at a time). */
	struct feed_session *ev;
	int64_t		 ev_next;	/* mono ms of its next read */
};

static int
relay_put(struct relay *rl, json_t *m)
{
	int r = proto_send(rl->out, m);

	json_decref(m);
	if (r == 0)
		while ((r = proto_flush(rl->out)) == -EAGAIN) {
			struct pollfd p = { proto_conn_fd(rl->out), POLLOUT, 0 };

			(void)poll(&p, 1, -1);
		}
	return r;
}

static void
relay_drop(struct relay *rl, struct relay_link *k, const char *why)
{
	(void)relay_put(rl, msg_relay_closed(k->run, why));
	proto_conn_free(k->conn);
	free(k->run);
	*k = (struct relay_link){ 0 };
}

static struct relay_link *
relay_link(struct relay *rl, const char *run, char **cause)
{
	struct relay_link *free_slot = NULL;
	int fd = -1, r;

	for (size_t i = 0; i < RELAY_MAX_RUNS; i++) {
		struct relay_link *k = &rl->links[i];

		if (k->conn != NULL && strcmp(k->run, run) == 0)
			return k;
		if (k->conn == NULL && free_slot == NULL)
			free_slot = k;
	}
	if (free_slot == NULL) {
		set_cause(cause, "too many runs on one relay (%d)",
		    RELAY_MAX_RUNS);
		return NULL;
	}
	/* ctl_connect checks that the supervisor is of our uid. */
	if ((r = ctl_connect(run, &fd, cause)) < 0) {
		if (*cause == NULL)
			*cause = xasprintf("run %s: %s", run, strerror(-r));
		return NULL;
	}
	free_slot->run = xstrdup(run);
	free_slot->conn = proto_conn_new(fd);
	return free_slot;
}

/* One read of the record: its new lines sent back in answers of at most
 * RELAY_EVENTS_CHUNK bytes, the last saying end (and why, on an error). */
static int
relay_events_step(struct relay *rl)
{
	cleanup_free char *cause = NULL, *buf = NULL;
	json_t *lines = json_array();
	size_t len = 0, chunk = 0;
	bool done = false;
	FILE *mem;
	int r;

	if (lines == NULL || (mem = open_memstream(&buf, &len)) == NULL)
		fatal("out of memory");
	r = feed_session_step(rl->ev, mem, &done, &cause);
	if (fclose(mem) != 0)
		fatal("out of memory");
	rl->ev_next = now_mono_ms() + FEED_POLL_MS;
	for (char *line = buf, *nl; line != NULL && *line != '\0';
	    line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			break;
		*nl = '\0';
		if (json_array_append_new(lines, json_string(line)) < 0)
			fatal("out of memory");
		chunk += (size_t)(nl - line) + 1;
		if (chunk >= RELAY_EVENTS_CHUNK) {
			if (relay_put(rl, msg_relay_events_lines(lines, false,
			    NULL)) < 0)
				return -EIO;
			if ((lines = json_array()) == NULL)
				fatal("out of memory");
			chunk = 0;
		}
	}
	if (json_array_size(lines) == 0 && !done && r >= 0) {
		json_decref(lines);
		return 0;
	}
	if (done) {
		feed_session_free(rl->ev);
		rl->ev = NULL;
	}
	return relay_put(rl, msg_relay_events_lines(lines, done, r < 0 ?
	    (cause != NULL ? cause : strerror(-r)) : NULL));
}

/* relay_events: a new read of the record (one that ran is replaced). */
static int
relay_events_start(struct relay *rl, json_t *m)
{
	cleanup_free char *cause = NULL;
	const char *run;
	int64_t since;
	bool json, follow;

	if (msg_relay_events_ask_parse(m, &run, &since, &json, &follow,
	    &cause) < 0)
		return relay_put(rl, msg_relay_events_lines(NULL, true,
		    cause));
	feed_session_free(rl->ev);
	rl->ev = feed_session_new(run, since, json, follow);
	return relay_events_step(rl);
}

static int
relay_on_client(struct relay *rl, json_t *m)
{
	cleanup_free char *cause = NULL;
	const char *run, *err;
	struct relay_link *k;
	json_t *inner;
	int r;

	if (msg_type(m) == MSG_TYPE_RELAY_RUNS) {
		cleanup_strv char **ids = NULL;
		size_t n = 0;

		if (ctl_list(&ids, &n) < 0)
			n = 0;
		return relay_put(rl, msg_relay_runs(ids != NULL ? ids :
		    (char *[]){ NULL }, n));
	}
	if (msg_type(m) == MSG_TYPE_RELAY_EVENTS)
		return relay_events_start(rl, m);
	if (msg_type(m) != MSG_TYPE_RELAY_TO ||
	    msg_relay_parse(m, &run, &inner, &err, &cause) < 0)
		return relay_put(rl, msg_relay_closed("", cause != NULL ?
		    cause : "relay: expected relay_to or relay_runs"));
	if ((k = relay_link(rl, run, &cause)) == NULL)
		return relay_put(rl, msg_relay_closed(run, cause));
	/* Whatever origin the far side claimed, the relay says its own. */
	msg_hello_set_origin(inner, rl->origin);
	if (proto_send(k->conn, inner) < 0) {
		relay_drop(rl, k, "too much unsent to the supervisor");
		return 0;
	}
	/* What the socket does not take now goes on POLLOUT. */
	if ((r = proto_flush(k->conn)) < 0 && r != -EAGAIN)
		relay_drop(rl, k, "cannot send to the supervisor");
	return 0;
}

/* What a supervisor sent, passed back in envelopes. */
static int
relay_on_run(struct relay *rl, struct relay_link *k, short revents)
{
	cleanup_free char *cause = NULL;
	json_t *m = NULL;
	ssize_t n;
	int r;

	if (revents & POLLOUT) {
		if ((r = proto_flush(k->conn)) < 0 && r != -EAGAIN) {
			relay_drop(rl, k, "cannot send to the supervisor");
			return 0;
		}
		if (!(revents & ~POLLOUT))
			return 0;
	}
	n = proto_read(k->conn);
	if (n < 0 && n != -EAGAIN) {
		relay_drop(rl, k, strerror((int)-n));
		return 0;
	}
	while ((r = proto_next(k->conn, &m, &cause)) == 1) {
		r = relay_put(rl, msg_relay_from(k->run, m));
		json_decref(m);
		if (r < 0)
			return r;
	}
	if (r < 0)
		relay_drop(rl, k, cause != NULL ? cause : "protocol error");
	else if (proto_eof(k->conn))
		relay_drop(rl, k, "the supervisor closed the connection");
	return 0;
}

static void
relay_origin(struct relay *rl)
{
	const char *sc = getenv("SSH_CONNECTION");
	size_t n;

	if (sc == NULL || *sc == '\0') {
		snprintf(rl->origin, sizeof rl->origin, "relay");
		return;
	}
	n = strcspn(sc, " ");
	if (n > 64)
		n = 64;
	snprintf(rl->origin, sizeof rl->origin, "ssh from %.*s", (int)n, sc);
}

static int
relay_loop(struct relay *rl)
{
	for (;;) {
		struct pollfd p[1 + RELAY_MAX_RUNS];
		struct relay_link *by[1 + RELAY_MAX_RUNS];
		cleanup_free char *cause = NULL;
		json_t *m = NULL;
		nfds_t np = 1;
		int64_t wait = -1;
		ssize_t n;
		int r;

		/* A record being followed is read again each FEED_POLL_MS. */
		if (rl->ev != NULL && (wait = rl->ev_next - now_mono_ms()) < 0)
			wait = 0;
		p[0] = (struct pollfd){ proto_conn_fd(rl->in), POLLIN, 0 };
		for (size_t i = 0; i < RELAY_MAX_RUNS; i++) {
			if (rl->links[i].conn == NULL)
				continue;
			by[np] = &rl->links[i];
			p[np++] = (struct pollfd){
				proto_conn_fd(rl->links[i].conn), POLLIN |
				(proto_want_write(rl->links[i].conn) ? POLLOUT : 0),
				0 };
		}
		if (poll(p, np, (int)wait) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (rl->ev != NULL && now_mono_ms() >= rl->ev_next &&
		    relay_events_step(rl) < 0)
			return 1;
		for (nfds_t i = 1; i < np; i++)
			if (p[i].revents != 0 &&
			    relay_on_run(rl, by[i], p[i].revents) < 0)
				return 1;
		if (p[0].revents == 0)
			continue;
		n = proto_read(rl->in);
		if (n < 0 && n != -EAGAIN)
			return 1;
		while ((r = proto_next(rl->in, &m, &cause)) == 1) {
			r = relay_on_client(rl, m);
			json_decref(m);
			if (r < 0)
				return 1;
		}
		if (r < 0) {
			cleanup_free char *e = escape_str(cause ? cause : "?");

			warn_msg("relay: %s", e);
			return 1;
		}
		if (proto_eof(rl->in))
			return 0;
	}
}

int
relay_main(int argc, char **argv)
{
	struct relay rl = { 0 };
	int status;

	if (argc > 1) {
		if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
			fputs(relay_help, stdout);
			return 0;
		}
		return usage_error(2, "relay", "takes no arguments");
	}
	signal(SIGPIPE, SIG_IGN);
	relay_origin(&rl);
	/* Two ends of one stream: ssh gives the relay a pipe or a socket on
	 * each of stdin and stdout. */
	rl.in = proto_conn_new(dup(0));
	rl.out = proto_conn_new(dup(1));
	status = relay_loop(&rl);
	for (size_t i = 0; i < RELAY_MAX_RUNS; i++) {
		proto_conn_free(rl.links[i].conn);
		free(rl.links[i].run);
	}
	feed_session_free(rl.ev);
	proto_conn_free(rl.in);
	proto_conn_free(rl.out);
	return status;
}

/* ------------------------------------------------------------------ */
/* The client end: ssh HOST ward relay */

struct relay_client {
	struct proto_conn *conn;
	pid_t		 pid;
};

int
relay_client_open(const char *host, struct relay_client **ret, char **cause)
{
	return relay_client_start(host, false, ret, cause);
}

int
relay_client_start(const char *host, bool detached,
    struct relay_client **ret, char **cause)
{
	const char *ssh = getenv("WARD_SSH");
	int sv[2];
	pid_t pid;

	if (ssh == NULL || *ssh == '\0')
		ssh = "ssh";
	if (*host == '-') {
		set_cause(cause, "host \"%s\" starts with '-'", host);
		return -EINVAL;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		set_cause(cause, "socketpair: %s", strerror(errno));
		return -errno;
	}
	if ((pid = fork()) < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		set_cause(cause, "fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		/* The child: ssh with the socket as its stdin and stdout;
		 * stderr stays ours, so ssh's own messages are seen. */
		if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
			_exit(127);
		if (detached) {
			/* The console's link: no terminal to ask on or to
			 * scribble over; its messages go nowhere (the
			 * console says "host gone" with ssh's status). */
			int null = open("/dev/null", O_WRONLY);

			if (null < 0 || dup2(null, 2) < 0)
				_exit(127);
			(void)setsid();
		}
		execlp(ssh, ssh, "-T", host, "ward", "relay", (char *)NULL);
		fprintf(stderr, "ward: cannot run %s: %s\n", ssh,
		    strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	*ret = xcalloc(1, sizeof **ret);
	(*ret)->conn = proto_conn_new(sv[0]);
	(*ret)->pid = pid;
	return 0;
}

void
relay_client_free(struct relay_client *rc)
{
	int st;

	if (rc == NULL)
		return;
	/* EOF on its stdin: the relay ends, and ssh with it. */
	proto_conn_free(rc->conn);
	while (waitpid(rc->pid, &st, 0) < 0 && errno == EINTR)
		;
	free(rc);
}

struct proto_conn *
relay_client_conn(const struct relay_client *rc)
{
	return rc->conn;
}

pid_t
relay_client_pid(const struct relay_client *rc)
{
	return rc->pid;
}

int
relay_client_kill(struct relay_client *rc)
{
	int st = 0;
	pid_t w;

	if (rc == NULL)
		return 0;
	proto_conn_free(rc->conn);
	/* Ours, by its pid: asked to end, then made to within a second. */
	(void)kill(rc->pid, SIGTERM);
	for (int i = 0; i < 100; i++) {
		if ((w = waitpid(rc->pid, &st, WNOHANG)) != 0)
			break;
		(void)poll(NULL, 0, 10);
	}
	if (w == 0) {
		(void)kill(rc->pid, SIGKILL);
		while (waitpid(rc->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	free(rc);
	return st;
}

/* The next message of the stream within the deadline (mono ms). */
static int
relay_client_read(struct relay_client *rc, int64_t deadline, json_t **m,
    char **cause)
{
	for (;;) {
		struct pollfd p = { proto_conn_fd(rc->conn), POLLIN, 0 };
		int64_t left;
		ssize_t n;
		int r;

		if ((r = proto_next(rc->conn, m, cause)) != 0)
			return r < 0 ? r : 0;
		if (proto_eof(rc->conn)) {
			set_cause(cause, "the link to ward relay closed "
			    "(see ssh's messages above)");
			return -ECONNRESET;
		}
		if ((r = proto_flush(rc->conn)) < 0 && r != -EAGAIN) {
			set_cause(cause, "cannot send to ward relay: %s",
			    strerror(-r));
			return r;
		}
		if ((left = deadline - now_mono_ms()) <= 0) {
			set_cause(cause, "no answer through ward relay");
			return -ETIMEDOUT;
		}
		if (proto_want_write(rc->conn))
			p.events |= POLLOUT;
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
		if ((p.revents & ~POLLOUT) &&
		    (n = proto_read(rc->conn)) < 0 && n != -EAGAIN) {
			set_cause(cause, "reading from ward relay: %s",
			    strerror((int)-n));
			return (int)n;
		}
	}
}

static int
relay_client_send(struct relay_client *rc, json_t *m, char **cause)
{
	int r = proto_send(rc->conn, m);

	json_decref(m);
	if (r == 0 && (r = proto_flush(rc->conn)) == -EAGAIN)
		r = 0;	/* the rest goes while waiting for the answer */
	if (r < 0)
		set_cause(cause, "cannot send to ward relay: %s",
		    strerror(-r));
	return r;
}

int
relay_client_runs(struct relay_client *rc, int timeout_ms, char ***ids,
    size_t *n, char **cause)
{
	int64_t deadline = now_mono_ms() + timeout_ms;
	int r;

	if ((r = relay_client_send(rc, msg_relay_runs(NULL, 0), cause)) < 0)
		return r;
	for (;;) {
		json_t *m = NULL;

		if ((r = relay_client_read(rc, deadline, &m, cause)) < 0)
			return r;
		if (msg_type(m) == MSG_TYPE_RELAY_RUNS) {
			r = msg_relay_runs_parse(m, ids, n, cause);
			json_decref(m);
			if (r == 0 && *ids == NULL)
				*ids = xcalloc(1, sizeof **ids);
			return r;
		}
		json_decref(m);
	}
}

int
relay_client_next(struct relay_client *rc, const char *run, int timeout_ms,
    json_t **msg, char **cause)
{
	int64_t deadline = now_mono_ms() + timeout_ms;

	for (;;) {
		const char *mrun, *err;
		json_t *m = NULL, *inner;
		int r;

		if ((r = relay_client_read(rc, deadline, &m, cause)) < 0)
			return r;
		if (msg_relay_parse(m, &mrun, &inner, &err, NULL) < 0 ||
		    strcmp(mrun, run) != 0) {
			json_decref(m);
			continue;
		}
		if (inner == NULL) {
			cleanup_free char *e = escape_str(err ? err : "closed");

			set_cause(cause, "%s", e);
			json_decref(m);
			return -ECONNRESET;
		}
		*msg = json_incref(inner);
		json_decref(m);
		return 0;
	}
}

int
relay_client_call(struct relay_client *rc, const char *run,
    const json_t *msg, const char *want, int timeout_ms, json_t **reply,
    char **cause)
{
	int64_t deadline = now_mono_ms() + timeout_ms;
	int r;

	if ((r = relay_client_send(rc, msg_relay_to(run, (json_t *)msg),
	    cause)) < 0)
		return r;
	for (;;) {
		json_t *m = NULL;
		int64_t left = deadline - now_mono_ms();

		if (left <= 0) {
			set_cause(cause, "no \"%s\" reply within %d ms", want,
			    timeout_ms);
			return -ETIMEDOUT;
		}
		if ((r = relay_client_next(rc, run, (int)left, &m, cause)) < 0)
			return r;
		if (msg_type(m) != MSG_TYPE_NONE &&
		    strcmp(json_string_value(json_object_get(m, "type")),
		    want) == 0) {
			*reply = m;
			return 0;
		}
		json_decref(m);
	}
}

/* ------------------------------------------------------------------ */
/* ward events --host: the far side's record through its relay */

/* A line from the far side as this side would print it: JSON read and
 * written again (with "host"), text with no control character but TAB. */
static char *
relay_events_line(const char *host, const char *line, bool json)
{
	char *t;

	if (json) {
		json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
		char *d;

		if (!json_is_object(o)) {
			json_decref(o);
			return NULL;
		}
		if (json_object_set_new(o, "host", json_string(host)) < 0)
			fatal("out of memory");
		d = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(o);
		if (d == NULL)
			fatal("out of memory");
		return d;
	}
	t = xstrdup(line);
	for (unsigned char *c = (unsigned char *)t; *c != '\0'; c++) {
		if ((*c < 0x20 && *c != '\t') || *c == 0x7f)
			*c = '?';
		/* C1 controls, U+0080-U+009F, as UTF-8 */
		if (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
			*c = '?';
			c[1] = '?';
		}
	}
	return t;
}

int
relay_events_remote(const struct feed_cmd *fa)
{
	const char *host = fa->host;
	cleanup_free char *h = escape_str(host), *cause = NULL;
	struct relay_client *rc = NULL;
	int status = 0, r;

	/* A reader gone (| head) ends it quietly, by EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if ((r = relay_client_open(host, &rc, &cause)) < 0 ||
	    (r = relay_client_send(rc, msg_relay_events(fa->run,
	    fa->o.since_ms, fa->o.json, fa->follow), &cause)) < 0) {
		warn_msg("%s: %s", h, cause != NULL ? cause : strerror(-r));
		relay_client_free(rc);
		return 1;
	}
	for (;;) {
		cleanup_free char *why = NULL;
		const char *err = NULL;
		json_t *m = NULL, *lines = NULL, *v;
		bool end = false;
		size_t i;

		r = relay_client_read(rc, now_mono_ms() + 30000, &m, &why);
		if (r == -ETIMEDOUT && fa->follow)
			continue;
		if (r < 0) {
			warn_msg("%s: %s", h, why != NULL ? why :
			    strerror(-r));
			status = 1;
			break;
		}
		if (msg_type(m) != MSG_TYPE_RELAY_EVENTS) {
			json_decref(m);
			continue;
		}
		if (msg_relay_events_parse(m, &lines, &end, &err,
		    &why) < 0) {
			cleanup_free char *e = escape_str(why);

			warn_msg("%s: ward relay: %s", h, e);
			json_decref(m);
			status = 1;
			break;
		}
		json_array_foreach(lines, i, v) {
			cleanup_free char *l = relay_events_line(host,
			    json_string_value(v), fa->o.json);

			if (l == NULL) {
				warn_msg("%s: ward relay sent a line that is "
				    "not a JSON object", h);
				status = 1;
				end = true;
				break;
			}
			printf("%s\n", l);
		}
		if (err != NULL) {
			cleanup_free char *e = escape_str(err);

			warn_msg("%s: %s", h, e);
			status = 1;
		}
		json_decref(m);
		if (fflush(stdout) != 0 || ferror(stdout) || end)
			break;
	}
	relay_client_kill(rc);
	return status;
}
