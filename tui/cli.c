/* SPDX-License-Identifier: MIT */
#include "tui/cli.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "approvals/ctl.h"
#include "approvals/proto.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"
#include "tui/cli-int.h"
#include "tui/relay.h"
#include "tui/usage.h"

/*
 * The command-line verbs' common ground (tui/cli-int.h): the parse,
 * the words, and the link to a live run, directly or through --host's
 * relay; and ward ps.
 */

static const char cli_ps_help[] =
"Usage: ward ps [--json]\n"
"\n"
"List the live runs, one line each, fields separated by tabs:\n"
"  ID  NAME  STATE  PID  PENDING  AGE  WATCHERS  COMMAND\n"
"NAME is \"-\" when the run has none; PENDING counts the requests waiting\n"
"on a person; WATCHERS the consoles attached to the run, and\n"
"\"0 UNWATCHED\" when requests wait and no console shows them (they wait\n"
"until their time is up, then are denied). Every field is escaped as in\n"
"'ward pending'.\n"
"\n"
"Options:\n"
"  -j, --json   print one JSON array of the runs as their supervisors\n"
"               describe them (id, name, command, state, pid, started_ms,\n"
"               ...), each with \"pending\" (a count), \"age_ms\",\n"
"               \"watchers\" (consoles attached) and \"unwatched\" (true\n"
"               when requests wait and no console is attached)\n"
"  -h, --help   show this help\n"
"\n"
"A run found lost on the way (its supervisor gone, its end never written)\n"
"is not listed; it is named once on stderr, and 'ward log RUN' shows it.\n"
"Exit status: 0 ok, 1 a run could not be asked, 2 usage.\n";

/* getopt_long's '?' or ':' as a usage error. */
static int
cli_bad_option(const char *verb, char **argv, int c)
{
	const char *arg = argv[optind - 1];

	if (str_has_prefix(arg, "--")) {
		cleanup_free char *e = escape_str(arg);

		if (c == ':')
			return usage_error(2, verb, "option '%s' needs a value",
			    e);
		return usage_error(2, verb, "unknown option '%s'", e);
	}
	if (c == ':')
		return usage_error(2, verb, "option '-%c' needs a value",
		    optopt);
	if (optopt > 32 && optopt < 127)
		return usage_error(2, verb, "unknown option '-%c'", optopt);
	return usage_error(2, verb, "unknown option");
}

int
cli_parse(const char *verb, const char *help, const char *shortopts,
    const struct option *longopts, int argc, char **argv,
    struct cli_flags *fl)
{
	int c;

	memset(fl, 0, sizeof *fl);
	fl->header = -1;
	optind = 0;	/* full reset: main already ran getopt */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case OPT_HELP:
			fputs(help, stdout);
			fl->done = true;
			return 0;
		case OPT_JSON:
			fl->json = true;
			break;
		case OPT_ALL:
			fl->all = true;
			break;
		case OPT_REASON:
			fl->reason = optarg;
			break;
		case OPT_RAW:
			fl->raw = true;
			break;
		case OPT_SCREEN:
			fl->screen = true;
			fl->screen_size = optarg;
			break;
		case OPT_SUMMARY:
			fl->summary = true;
			break;
		case OPT_HEADER:
		case OPT_NO_HEADER:
			fl->header = c == OPT_HEADER;
			break;
		case OPT_LONG:
			fl->long_form = true;
			break;
		case OPT_HOST:
			fl->host = optarg;
			break;
		default:
			fl->done = true;
			return cli_bad_option(verb, argv, c);
		}
	}
	return 0;
}

/* Escaped for a terminal; NULL or "" as "-". */
char *
cli_esc(const char *s)
{
	if (s == NULL || *s == '\0')
		return xstrdup("-");
	return escape_str(s);
}

void
cli_set(json_t *o, const char *key, json_t *v)
{
	if (v == NULL || json_object_set_new(o, key, v) < 0)
		fatal("out of memory");
}

/* "12s", "3m04s", "2h05m", "4d03h". */
void
cli_age(int64_t ms, char *buf, size_t len)
{
	int64_t s = ms < 0 ? 0 : ms / 1000;

	if (s < 60)
		snprintf(buf, len, "%" PRId64 "s", s);
	else if (s < 3600)
		snprintf(buf, len, "%" PRId64 "m%02" PRId64 "s", s / 60,
		    s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%" PRId64 "h%02" PRId64 "m", s / 3600,
		    s / 60 % 60);
	else
		snprintf(buf, len, "%" PRId64 "d%02" PRId64 "h", s / 86400,
		    s / 3600 % 24);
}

/* "850ms", "12.3s", then as cli_age. */
void
cli_wait(int64_t ms, char *buf, size_t len)
{
	if (ms < 0)
		ms = 0;
	if (ms < 1000)
		snprintf(buf, len, "%" PRId64 "ms", ms);
	else if (ms < 60000)
		snprintf(buf, len, "%" PRId64 ".%" PRId64 "s", ms / 1000,
		    ms % 1000 / 100);
	else
		cli_age(ms, buf, len);
}

bool
cli_parse_id(const char *s, uint64_t *ret)
{
	uint64_t v = 0;

	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*ret = v;
	return v != 0 && v <= INT64_MAX;
}

/* With --host, the verb's link to ssh HOST ward relay (one per verb). */
static struct relay_client *cli_relay;

/* Whether this verb goes through --host's relay. */
bool
cli_relayed(void)
{
	return cli_relay != NULL;
}

/* Opens cli_relay for --host; 0, or the exit status 1 (said why). */
int
cli_relay_open(const char *host)
{
	cleanup_free char *cause = NULL;

	if (host == NULL)
		return 0;
	if (relay_client_open(host, &cli_relay, &cause) < 0) {
		cli_error("--host %s: %s", host, cause);
		return 1;
	}
	return 0;
}

void
cli_relay_close(void)
{
	relay_client_free(cli_relay);
	cli_relay = NULL;
}

/* proto_call, to the supervisor or through the relay. */
int
cli_call(struct cli_conn *c, const json_t *msg, const char *want,
    json_t **reply, char **cause)
{
	if (cli_relay != NULL)
		return relay_client_call(cli_relay, c->asked, msg, want,
		    CLI_TIMEOUT_MS, reply, cause);
	return proto_call(c->conn, msg, want, CLI_TIMEOUT_MS, reply, cause);
}

void
cli_conn_done(struct cli_conn *c)
{
	proto_conn_free(c->conn);
	msg_welcome_done(&c->w);
	json_decref(c->welcome);
	memset(c, 0, sizeof *c);
}

/* The requests that follow a welcome that could not hold them all. */
static int
cli_read_follow(struct cli_conn *c, char **cause)
{
	int64_t deadline = now_mono_ms() + CLI_TIMEOUT_MS;
	int r = 0;

	while (cli_relay != NULL && c->w.n_follow > 0) {
		struct request *q = NULL;
		json_t *m = NULL;

		if ((r = relay_client_next(cli_relay, c->asked,
		    CLI_TIMEOUT_MS, &m, cause)) < 0)
			return r;
		if (msg_type(m) == MSG_TYPE_REQUEST &&
		    (r = msg_request_parse(m, &q, cause)) == 0)
			(void)msg_welcome_add(&c->w, q);
		json_decref(m);
		if (r < 0)
			return r;
	}

	while (c->w.n_follow > 0) {
		struct pollfd p = { proto_conn_fd(c->conn), POLLIN, 0 };
		json_t *m = NULL;
		int64_t left;
		ssize_t n;

		while (c->w.n_follow > 0 &&
		    (r = proto_next(c->conn, &m, cause)) == 1) {
			struct request *q = NULL;

			if (msg_type(m) == MSG_TYPE_REQUEST &&
			    (r = msg_request_parse(m, &q, cause)) == 0)
				(void)msg_welcome_add(&c->w, q);
			json_decref(m);
			if (r < 0)
				return r;
		}
		if (r < 0)
			return r;
		if (c->w.n_follow == 0)
			break;
		if (proto_eof(c->conn)) {
			set_cause(cause, "connection closed before the "
			    "last pending request");
			return -ECONNRESET;
		}
		if ((left = deadline - now_mono_ms()) <= 0) {
			set_cause(cause, "no pending requests within %d ms",
			    CLI_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
		if ((n = proto_read(c->conn)) < 0 && n != -EAGAIN)
			return (int)n;
	}
	return 0;
}

static int
cli_connect_once(const char *run, struct cli_conn *c, char **cause)
{
	json_t *hello;
	int fd = -1, r;

	memset(c, 0, sizeof *c);
	c->asked = run;
	if (cli_relay == NULL && (r = ctl_connect(run, &fd, cause)) < 0) {
		if (*cause == NULL)
			*cause = xasprintf("run %s: %s", run, strerror(-r));
		return r;
	}
	if (cli_relay == NULL)
		c->conn = proto_conn_new(fd);
	hello = msg_hello("cli", false);
	r = cli_call(c, hello, "welcome", &c->welcome, cause);
	json_decref(hello);
	if (r == 0)
		r = msg_welcome_parse(c->welcome, &c->w, cause);
	if (r == 0)
		r = cli_read_follow(c, cause);
	if (r < 0) {
		cleanup_free char *e = escape_str(run);
		char *t = xasprintf("run %s: %s", e,
		    *cause ? *cause : strerror(-r));

		free(*cause);
		*cause = t;
		cli_conn_done(c);
		return r;
	}
	c->id = (c->w.run.have & MSG_RUN_ID) && *c->w.run.id != '\0' ?
	    c->w.run.id : run;
	return 0;
}

/* Only the connection, for a verb that needs no welcome; c->id is what
 * was asked for. */
int
cli_dial(const char *run, struct cli_conn *c, char **cause)
{
	int fd = -1, r = -EAGAIN;

	memset(c, 0, sizeof *c);
	for (int i = 0, wait_ms = 50; i < 6 && r == -EAGAIN; i++,
	    wait_ms *= 2) {
		if (i > 0) {
			struct timespec ts = { 0, (long)wait_ms * 1000000L };

			nanosleep(&ts, NULL);
			free(*cause);
			*cause = NULL;
		}
		r = ctl_connect(run, &fd, cause);
	}
	if (r < 0) {
		if (*cause == NULL)
			*cause = xasprintf("run %s: %s", run, strerror(-r));
		return r;
	}
	c->conn = proto_conn_new(fd);
	c->id = run;
	return 0;
}

/*
 * A busy supervisor may close a connection it has no room for (its table
 * full of idle peers, which it evicts) or have its backlog full: try
 * again a few times, waiting longer each time (about 1.5 s in all).
 */
int
cli_connect(const char *run, struct cli_conn *c, char **cause)
{
	int r = -EAGAIN;

	for (int i = 0, wait_ms = 50; i < 6; i++, wait_ms *= 2) {
		if (i > 0) {
			struct timespec ts = { 0, (long)wait_ms * 1000000L };

			nanosleep(&ts, NULL);
			free(*cause);
			*cause = NULL;
		}
		r = cli_connect_once(run, c, cause);
		if (r != -EAGAIN && r != -ECONNRESET && r != -EPIPE)
			break;
	}
	return r;
}

/*
 * Calls fn for RUN, or for every live run. A run that ended between the
 * listing and the hello is skipped quietly; other failures are reported
 * and make the status 1.
 */
int
cli_each_run(const char *only, int (*fn)(struct cli_conn *, void *),
    void *ctx)
{
	cleanup_strv char **ids = NULL;
	size_t n = 0;
	int status = 0, r;

	if (only != NULL) {
		struct cli_conn c;
		cleanup_free char *cause = NULL;

		if (cli_connect(only, &c, &cause) < 0) {
			cli_error("%s", cause);
			return 1;
		}
		r = fn(&c, ctx);
		cli_conn_done(&c);
		return r;
	}
	if (cli_relay != NULL) {
		cleanup_free char *cause = NULL;

		if ((r = relay_client_runs(cli_relay, CLI_TIMEOUT_MS, &ids, &n,
		    &cause)) < 0) {
			cli_error("cannot list live runs: %s", cause);
			return 1;
		}
	} else if ((r = ctl_list(&ids, &n)) < 0) {
		cli_error("cannot list live runs: %s", strerror(-r));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct cli_conn c;
		cleanup_free char *cause = NULL;

		r = cli_connect(ids[i], &c, &cause);
		if (r == -ENOENT || r == -ECONNREFUSED || r == -ECONNRESET)
			continue;
		if (r < 0) {
			cli_error("%s", cause);
			status = 1;
			continue;
		}
		if (fn(&c, ctx) != 0)
			status = 1;
		cli_conn_done(&c);
	}
	return status;
}

/* Local time, RFC 3339 to the second with its offset; "-" when it
 * cannot be told. */
void
cli_when(int64_t ms, char buf[TIME_RFC3339_LEN])
{
	time_local_rfc3339(ms, buf);
}

/*
 * Crash recovery, as every verb that opens the record does it: runs whose
 * supervisor is gone are marked lost and their sockets removed. A failure
 * is said and the verb goes on with the record as it is. With tell, one
 * line on stderr for each run this call found lost (stdout stays the
 * verb's own, --json included).
 */
void
cli_recover(struct audit *a, const char *by, bool tell)
{
	cleanup_free char *cause = NULL;
	struct ctl_lost *lost = NULL;
	size_t n = 0;

	if (ctl_recover(a, by, &lost, &n, &cause) < 0) {
		cli_error("record: %s (lost runs not marked)",
		    cause ? cause : "failed");
		return;
	}
	for (size_t i = 0; tell && i < n; i++) {
		char when[TIME_RFC3339_LEN];

		cli_when(lost[i].noticed_ms, when);
		cli_error("run %s: lost (supervisor gone, noticed %s); its "
		    "record: ward log %s", lost[i].run, when, lost[i].run);
	}
	ctl_lost_free(lost, n);
}

/* ------------------------------------------------------------------ */

struct cli_ps_ctx {
	bool		 json;
	json_t		*out;
	int64_t		 now;
};

static int
cli_ps_run(struct cli_conn *c, void *arg)
{
	struct cli_ps_ctx *ctx = arg;
	const struct msg_run *run = &c->w.run;
	size_t pending = c->w.n_pending;
	int64_t started = run->started_ms;
	int64_t age = started > 0 ? ctx->now - started : 0;

	if (ctx->json) {
		struct msg_run ri = *run;
		json_t *o;

		ri.id = c->id;
		o = msg_run_json(&ri);
		cli_set(o, "pending", json_integer((json_int_t)pending));
		cli_set(o, "age_ms", json_integer(age));
		cli_set(o, "watchers", json_integer(run->watchers));
		cli_set(o, "unwatched", json_boolean(pending > 0 &&
		    run->watchers == 0));
		json_array_append_new(ctx->out, o);
	} else {
		cleanup_free char *eid = cli_esc(c->id);
		cleanup_free char *ename = cli_esc(run->name);
		cleanup_free char *estate = cli_esc(run->have & MSG_RUN_STATE ?
		    msg_run_state_name(run->state) : NULL);
		cleanup_free char *ecmd = cli_esc(run->command);
		char agebuf[32] = "-", watch[32];

		if (started > 0)
			cli_age(age, agebuf, sizeof agebuf);
		/* A run that waits on nobody is the one to go to. */
		if (pending > 0 && run->watchers == 0)
			snprintf(watch, sizeof watch, "0 UNWATCHED");
		else
			snprintf(watch, sizeof watch, "%u", run->watchers);
		printf("%s\t%s\t%s\t%d\t%zu\t%s\t%s\t%s\n", eid, ename,
		    estate, (int)run->pid, pending, agebuf, watch, ecmd);
	}
	return 0;
}

/* ps lists the runs whose supervisors answer; a run found lost on the
 * way is said on stderr, once, by the ward that noticed it. */
static void
cli_ps_recover(void)
{
	cleanup_free char *db = paths_audit_db();
	cleanup_free char *cause = NULL;
	struct audit *a = NULL;
	int r;

	if ((r = audit_open_readonly(db, &a, &cause)) < 0) {
		if (r != -ENOENT)
			cli_error("cannot read %s: %s", db,
			    cause ? cause : strerror(-r));
		return;
	}
	cli_recover(a, "ward ps", true);
	audit_close(a);
}

const struct option cli_ps_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int
cli_ps(int argc, char **argv)
{
	struct cli_ps_ctx ctx = { 0 };
	struct cli_flags fl;
	int status;

	status = cli_parse("ps", cli_ps_help, ":jh", cli_ps_opts, argc, argv,
	    &fl);
	if (fl.done)
		return status;
	if (argc - optind > 0)
		return usage_error(2, "ps", "too many arguments");
	ctx.json = fl.json;
	cli_ps_recover();
	ctx.now = now_wall_ms();
	if (ctx.json)
		ctx.out = json_array();
	status = cli_each_run(NULL, cli_ps_run, &ctx);
	if (ctx.json) {
		json_dumpf(ctx.out, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(ctx.out);
	}
	return status;
}
