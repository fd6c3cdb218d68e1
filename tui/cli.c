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

#include "approvals/audit.h"
#include "approvals/ctl.h"
#include "approvals/msg.h"
#include "approvals/proto.h"
#include "approvals/request.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"
#include "review/logjson.h"
#include "review/summary.h"
#include "tui/relay.h"
#include "tui/usage.h"
#include "tui/vt.h"

/* How long a verb waits for a supervisor's answer. */
#define CLI_TIMEOUT_MS	5000

enum cli_opt {
	OPT_HELP = 'h',
	OPT_JSON = 'j',
	OPT_ALL = 'a',
	OPT_REASON = 'r',
	OPT_RAW = 'R',
	OPT_SUMMARY = 's',
	OPT_HEADER = 0x100,
	OPT_NO_HEADER,
	OPT_LONG = 'l',
	OPT_HOST = 'H',
	OPT_SCREEN = 0x102,
};

static const char cli_pending_help[] =
"Usage: ward pending [--json] [--long] [--header|--no-header]\n"
"                    [--host HOST] [RUN]\n"
"\n"
"List the requests that wait on a person, oldest first across every live\n"
"run, or only for RUN (a run id or the --name given to 'ward run').\n"
"\n"
"One line per request, fields separated by tabs:\n"
"  RUN  ID  KIND  SUBJECT  PID  AGE  [NAME  PROCESS  WHY]\n"
"NAME is the run's --name (\"-\" when none), PROCESS the asking process's\n"
"command line, WHY the rule that asked (\"-\" when none): on a terminal,\n"
"or with --long. On a terminal a header line naming the fields comes\n"
"first.\n"
"Every field is escaped: control characters, escape sequences, invisible\n"
"and bidi characters are shown as \\n, \\e, \\u{202e} ..., never obeyed,\n"
"so a hostile path cannot forge a line.\n"
"\n"
"Options:\n"
"  -H, --host HOST  the runs on HOST, through 'ssh HOST ward relay'\n"
"  -j, --json   print one JSON array of objects {run, name, id, kind,\n"
"               syscall, subject, subject2, detail, pid, cmdline, cwd, why,\n"
"               age_ms, deadline_ms (wall clock, ms since the epoch; 0 =\n"
"               none)}, oldest first; the strings the program controls are\n"
"               escaped as in the lines (bidi and invisible characters too)\n"
"  -l, --long   NAME, PROCESS and WHY too, wherever the output goes\n"
"      --header, --no-header  the header line, or none, wherever the\n"
"               output goes\n"
"  -h, --help   show this help\n"
"\n"
"Answer with 'ward approve RUN ID' or 'ward deny RUN ID' (a write that\n"
"opens a file also 'ward stage RUN ID').\n"
"Exit status: 0 ok, 1 a run could not be asked, 2 usage.\n";

static const char cli_approve_help[] =
"Usage: ward approve [--host HOST] RUN ID\n"
"\n"
"Allow request ID of run RUN, this once. RUN is a run id or the --name\n"
"given to 'ward run'; ID is the number 'ward pending' shows. Check the\n"
"request with 'ward pending' first: what is approved is exactly what it\n"
"shows.\n"
"\n"
"The first answer wins. If the request was already decided (by a console,\n"
"its deadline or another approve or deny), ward says so and exits 1.\n"
"\n"
"Options:\n"
"  -H, --host HOST  a run on HOST, through 'ssh HOST ward relay' (recorded\n"
"               as decided by your uid there \"via ssh from ADDR\")\n"
"  -h, --help   show this help\n"
"\n"
"Prints \"approved RUN ID\". Exit status: 0 approved, 1 not (no such run\n"
"or request, already decided), 2 usage.\n";

static const char cli_deny_help[] =
"Usage: ward deny [--reason TEXT] [--host HOST] RUN ID\n"
"\n"
"Deny request ID of run RUN, this once: the call fails (EACCES for files,\n"
"ECONNREFUSED for the network). RUN is a run id or the --name given to\n"
"'ward run'; ID is the number 'ward pending' shows.\n"
"\n"
"Options:\n"
"  -H, --host HOST    a run on HOST, through 'ssh HOST ward relay'\n"
"  -r, --reason TEXT  tell the denied process why: written to its stderr\n"
"                     as \"ward: denied: TEXT\" and recorded\n"
"  -h, --help         show this help\n"
"\n"
"Prints \"denied RUN ID\". Exit status: 0 denied, 1 not (no such run or\n"
"request, already decided), 2 usage.\n";

static const char cli_stage_help[] =
"Usage: ward stage RUN ID\n"
"\n"
"Stage request ID of run RUN: a write outside the sandbox's folders that\n"
"opens a file is done on a copy of the host file kept in the run folder\n"
"(its bytes and mode as they were now). The program writes as if on the\n"
"host; the host file is unchanged. Later opens of the same path in the\n"
"run get the same copy, unasked. 'ward diff RUN' shows the change, 'ward\n"
"apply RUN /PATH' writes it to the host (refused if the host file changed\n"
"since), 'ward discard RUN /PATH' drops it, 'ward undo' restores an\n"
"applied one.\n"
"\n"
"Only a request to open a file can be staged (not a rename, unlink,\n"
"chmod, ...): for another, ward says so and exits 1.\n"
"Prints \"staged RUN ID\". Exit status: 0 staged, 1 not (no such run or\n"
"request, already decided, not a file to stage), 2 usage.\n";

static const char cli_rules_help[] =
"Usage: ward rules [RUN]\n"
"       ward rules revoke RUN N\n"
"\n"
"List the rules that answers \"for this run\" stored (A and D in the\n"
"console; an approved lookup is remembered for the run too) for run RUN,\n"
"or for every live run: one line each, fields\n"
"separated by tabs: run, number, verdict, kind, the rule (a file's path,\n"
"a host:port, a name or an install, matched literally). 'revoke' removes\n"
"rule N of RUN: the next such request is asked again. Revoking is\n"
"recorded ('ward log RUN').\n"
"\n"
"Options:\n"
"  -h, --help   show this help\n"
"\n"
"Exit status: 0 ok, 1 no such run or rule, 2 usage.\n";

static const char cli_kill_help[] =
"Usage: ward kill [--host HOST] RUN\n"
"\n"
"Stop run RUN (a run id or its --name): the supervisor kills the sandbox\n"
"and every process in it; requests still pending are denied. The run's\n"
"record stays ('ward log RUN').\n"
"\n"
"Options:\n"
"  -H, --host HOST  a run on HOST, through 'ssh HOST ward relay'\n"
"  -h, --help   show this help\n"
"\n"
"Prints \"killed RUN\". Exit status: 0 ok, 1 no such run or refused,\n"
"2 usage.\n";

static const char cli_log_help[] =
"Usage: ward log [--json] [--all | RUN]\n"
"       ward log --summary [--json] [RUN]\n"
"\n"
"Show the record of what runs tried and how it was decided, oldest first:\n"
"the most recent run by default, RUN (an id, or the most recent run with\n"
"that --name), or every run with --all.\n"
"\n"
"One line per event, fields separated by tabs:\n"
"  TIME  RUN  KIND  VERDICT  HOW  SUBJECT  PID  WAIT  DECIDED_BY\n"
"TIME is local time (ISO 8601, seconds); a second path (rename, link) is\n"
"shown as SUBJECT -> SUBJECT2. Every field is escaped as in 'ward pending'.\n"
"After the events, what was done with the run's changes (ward apply,\n"
"discard, undo): KIND is \"change\", VERDICT the action (applied,\n"
"committed, discarded, undone), HOW the change (added, modified ...),\n"
"SUBJECT the host path, DECIDED_BY who did it.\n"
"\n"
"Options:\n"
"  -j, --json   one JSON object per line (JSON Lines) with every field of\n"
"               the event: seq, run, time_ms, pid, kind, syscall, subject,\n"
"               subject2, detail, verdict, how, rule, decided_by, wait_ms,\n"
"               request_id; then the changes, with kind \"change\": seq,\n"
"               run, time_ms, path, from, change, action, before_hash,\n"
"               after_hash (SHA-256), size, old_mode, new_mode, by\n"
"  -a, --all    every run, not only the last\n"
"  -s, --summary  the run's summary instead of its events: the requests\n"
"               asked of a person (allowed, denied, timed out), the files\n"
"               changed (written on the host, applied, staged in its\n"
"               projects), the attempts refused without asking by surface\n"
"               (files, network, packages, exec, syscalls), the programs\n"
"               started; with --json one object {run, asked, allowed,\n"
"               denied, timed_out, unanswered, changed, written, applied,\n"
"               staged, blocked {files, ...}, blocked_total, execs}\n"
"  -h, --help   show this help\n"
"\n"
"A run whose supervisor died before it wrote the run's end is marked lost\n"
"by the next ward that opens the record; its last line reads\n"
"  lost (supervisor gone, noticed TIME)\n"
"The record is $XDG_STATE_HOME/ward/audit.db.\n"
"Exit status: 0 ok, 1 no record or no such run, 2 usage.\n";

static const char cli_output_help[] =
"Usage: ward output [--raw | --screen[=COLSxROWS]] [RUN]\n"
"\n"
"Print what a run's program wrote (stdout, stderr, or its terminal), as\n"
"the record holds it, in the order it came: the most recent run by\n"
"default, or RUN (an id, or the most recent run with that --name).\n"
"\n"
"By default each line is escaped as in 'ward pending' (escape sequences\n"
"as \\e, other controls as \\xNN; a terminal's \\r\\n ends a line), so\n"
"what the program wrote cannot drive your terminal. With --raw the bytes\n"
"are written unchanged (for a file or a pipe, or `less -R`).\n"
"\n"
"A full-screen program (an editor, an agent's interface) draws with\n"
"cursor moves, which read as a wall of escapes; --screen runs the output\n"
"through the console's terminal emulator and prints the program's last\n"
"full screen as text (escaped), at COLSxROWS (default: this terminal's\n"
"size, else 80x24: the size the program drew at reads best). Without\n"
"--screen, such a run's output ends with a hint on stderr.\n"
"\n"
"Options:\n"
"  -R, --raw    the recorded bytes, unescaped\n"
"      --screen[=COLSxROWS]  the program's last screen\n"
"  -h, --help   show this help\n"
"\n"
"The record is $XDG_STATE_HOME/ward/audit.db.\n"
"Exit status: 0 ok, 1 no record or no such run, 2 usage.\n";

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


#define cli_error warn_msg

/* getopt_long's '?' or ':' as a usage error. */
static int
cli_bad_option(const char *verb, char **argv, int c)
{
	const char *arg = argv[optind - 1];

	if (strncmp(arg, "--", 2) == 0) {
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

/*
 * getopt_long over a verb's own argv (argv[0] is the verb). Returns 0 to
 * go on, or the exit status: 0 after --help, 2 on a usage error.
 */
struct cli_flags {
	bool		 json;
	bool		 all;
	const char	*reason;
	bool		 raw;
	bool		 summary;
	int		 header;	/* --header 1, --no-header 0, else -1 */
	bool		 long_form;	/* --long */
	const char	*host;		/* --host: through ssh HOST ward relay */
	bool		 screen;	/* ward output --screen */
	const char	*screen_size;	/* its COLSxROWS, or NULL */
	bool		 done;
};

static int
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
static char *
cli_esc(const char *s)
{
	if (s == NULL || *s == '\0')
		return xstrdup("-");
	return escape_str(s);
}

static void
cli_set(json_t *o, const char *key, json_t *v)
{
	if (v == NULL || json_object_set_new(o, key, v) < 0)
		fatal("out of memory");
}

/* "12s", "3m04s", "2h05m", "4d03h". */
static void
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
static void
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

static bool
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

/* A connection to one live run, after hello/welcome. */
struct cli_conn {
	struct proto_conn *conn;
	json_t		*welcome;	/* as received; w points into it */
	struct msg_welcome w;
	const char	*id;		/* welcome.run.id, or what was asked */
	const char	*asked;		/* the run as named (the relay's key) */
};

/* With --host, the verb's link to ssh HOST ward relay (one per verb). */
static struct relay_client *cli_relay;

/* Opens cli_relay for --host; 0, or the exit status 1 (said why). */
static int
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

static void
cli_relay_close(void)
{
	relay_client_free(cli_relay);
	cli_relay = NULL;
}

/* proto_call, to the supervisor or through the relay. */
static int
cli_call(struct cli_conn *c, const json_t *msg, const char *want,
    json_t **reply, char **cause)
{
	if (cli_relay != NULL)
		return relay_client_call(cli_relay, c->asked, msg, want,
		    CLI_TIMEOUT_MS, reply, cause);
	return proto_call(c->conn, msg, want, CLI_TIMEOUT_MS, reply, cause);
}

static void
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
static int
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
static int
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
static int
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

/* ------------------------------------------------------------------ */

struct cli_pending_ctx {
	json_t		*out;		/* every request, as --json has it */
	int64_t		 now;
};

/* Escaped as the lines have it (bidi and invisible characters too), so
 * that a JSON reader that prints a value cannot be tricked either. */
static json_t *
cli_jesc(const char *s)
{
	cleanup_free char *e = NULL;

	if (s == NULL)
		return json_null();
	e = escape_str(s);
	return logjson_str(e);
}

static int
cli_pending_run(struct cli_conn *c, void *arg)
{
	struct cli_pending_ctx *ctx = arg;

	for (size_t i = 0; i < c->w.n_pending; i++) {
		const struct request *r = c->w.pending[i];
		const char *run;
		json_t *o = json_object();

		run = r->run != NULL && *r->run != '\0' ? r->run : c->id;
		cli_set(o, "run", logjson_str(run));
		cli_set(o, "name", cli_jesc(c->w.run.name != NULL &&
		    *c->w.run.name != '\0' ? c->w.run.name : NULL));
		cli_set(o, "id", json_integer((json_int_t)r->id));
		cli_set(o, "kind", logjson_str(request_kind_name(r->kind)));
		cli_set(o, "syscall", cli_jesc(r->syscall));
		cli_set(o, "subject", cli_jesc(r->subject));
		cli_set(o, "subject2", cli_jesc(r->subject2));
		cli_set(o, "detail", cli_jesc(r->detail));
		cli_set(o, "pid", json_integer(r->pid));
		cli_set(o, "cmdline", cli_jesc(r->cmdline));
		cli_set(o, "cwd", cli_jesc(r->cwd));
		cli_set(o, "why", cli_jesc(r->why));
		cli_set(o, "age_ms", json_integer(ctx->now - r->created_ms));
		cli_set(o, "deadline_ms", json_integer(r->deadline_ms));
		json_array_append_new(ctx->out, o);
	}
	return 0;
}

/* Oldest first across runs; a tie by run, then by id. */
static int
cli_pending_cmp(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t ax = json_integer_value(json_object_get(x, "age_ms"));
	json_int_t ay = json_integer_value(json_object_get(y, "age_ms"));
	int r;

	if (ax != ay)
		return ax > ay ? -1 : 1;
	r = strcmp(json_string_value(json_object_get(x, "run")),
	    json_string_value(json_object_get(y, "run")));
	if (r != 0)
		return r;
	ax = json_integer_value(json_object_get(x, "id"));
	ay = json_integer_value(json_object_get(y, "id"));
	return ax < ay ? -1 : ax > ay;
}

static void
cli_pending_sort(json_t *arr)
{
	size_t n = json_array_size(arr);
	cleanup_free json_t **v = xreallocarray(NULL, n ? n : 1, sizeof *v);

	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof *v, cli_pending_cmp);
	json_array_clear(arr);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
}

/* A JSON string member already escaped, or "-" when null or empty. */
static const char *
cli_pending_field(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL && *s != '\0' ? s : "-";
}

static void
cli_pending_lines(const json_t *arr, bool header, bool long_form)
{
	size_t i;
	json_t *o;

	if (header)
		printf("RUN\tID\tKIND\tSUBJECT\tPID\tAGE%s\n", long_form ?
		    "\tNAME\tPROCESS\tWHY" : "");
	json_array_foreach(arr, i, o) {
		cleanup_free char *erun = cli_esc(cli_pending_field(o, "run"));
		char age[32];

		cli_age(json_integer_value(json_object_get(o, "age_ms")), age,
		    sizeof age);
		printf("%s\t%" JSON_INTEGER_FORMAT "\t%s\t%s\t%d\t%s", erun,
		    json_integer_value(json_object_get(o, "id")),
		    cli_pending_field(o, "kind"),
		    cli_pending_field(o, "subject"),
		    (int)json_integer_value(json_object_get(o, "pid")), age);
		if (long_form)
			printf("\t%s\t%s\t%s", cli_pending_field(o, "name"),
			    cli_pending_field(o, "cmdline"),
			    cli_pending_field(o, "why"));
		putchar('\n');
	}
}

const struct option cli_pending_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "header", no_argument, NULL, OPT_HEADER },
	{ "no-header", no_argument, NULL, OPT_NO_HEADER },
	{ "long", no_argument, NULL, OPT_LONG },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int
cli_pending(int argc, char **argv)
{
	struct cli_pending_ctx ctx = { 0 };
	struct cli_flags fl;
	int status;

	status = cli_parse("pending", cli_pending_help, ":jlH:h", cli_pending_opts, argc,
	    argv, &fl);
	if (fl.done)
		return status;
	if (argc - optind > 1)
		return usage_error(2, "pending", "too many arguments");
	if (cli_relay_open(fl.host) != 0)
		return 1;
	ctx.now = now_wall_ms();
	ctx.out = json_array();
	status = cli_each_run(optind < argc ? argv[optind] : NULL,
	    cli_pending_run, &ctx);
	cli_relay_close();
	cli_pending_sort(ctx.out);
	if (fl.json) {
		json_dumpf(ctx.out, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		/* A person at a terminal gets the header and every field;
		 * a script keeps the six fields it has always read. */
		bool tty = isatty(STDOUT_FILENO);

		cli_pending_lines(ctx.out, fl.header == 1 ||
		    (fl.header < 0 && tty), fl.long_form || tty);
	}
	json_decref(ctx.out);
	return status;
}

/* ------------------------------------------------------------------ */

const struct option cli_deny_opts[] = {
	{ "reason", required_argument, NULL, OPT_REASON },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

const struct option cli_approve_opts[] = {
	{ "host", required_argument, NULL, OPT_HOST },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* v: VERDICT_ALLOW (approve), VERDICT_DENY (deny) or VERDICT_STAGE. */
static int
cli_decide(const char *verb, const char *help, enum verdict v, int argc,
    char **argv)
{
	bool allow = v != VERDICT_DENY;
	cleanup_free char *cause = NULL;
	struct cli_conn c;
	struct cli_flags fl;
	json_t *msg, *ack = NULL;
	struct msg_ack a;
	uint64_t id;
	int status, r;

	status = cli_parse(verb, help, allow ? ":H:h" : ":r:H:h",
	    allow ? cli_approve_opts : cli_deny_opts, argc, argv, &fl);
	if (fl.done)
		return status;
	if (argc - optind < 2)
		return usage_error(2, verb, "expected RUN and ID");
	if (argc - optind > 2)
		return usage_error(2, verb, "too many arguments");
	if (!cli_parse_id(argv[optind + 1], &id)) {
		cleanup_free char *e = escape_str(argv[optind + 1]);

		return usage_error(2, verb, "ID must be a request number, "
		    "not '%s'", e);
	}
	if (fl.reason != NULL) {
		json_t *t = json_string(fl.reason);

		if (t == NULL)
			return usage_error(2, verb, "the reason is not valid "
			    "UTF-8");
		json_decref(t);
	}

	if (cli_relay_open(fl.host) != 0)
		return 1;
	if (cli_connect(argv[optind], &c, &cause) < 0) {
		cli_error("%s", cause);
		cli_relay_close();
		return 1;
	}
	msg = msg_decide(id, v, SCOPE_ONCE, fl.reason);
	r = cli_call(&c, msg, "ack", &ack, &cause);
	json_decref(msg);
	if (r < 0) {
		cli_error("request %" PRIu64 " of run %s: %s", id, c.id, cause);
		cli_conn_done(&c);
		cli_relay_close();
		return 1;
	}
	if (msg_ack_parse(ack, &a, &cause) < 0)
		a.error = cause;
	if (a.ok) {
		printf("%s %s %" PRIu64 "\n", v == VERDICT_STAGE ? "staged" :
		    allow ? "approved" : "denied", c.id, id);
		status = 0;
	} else {
		cleanup_free char *e = escape_str(a.error ? a.error :
		    "refused");

		cli_error("request %" PRIu64 " of run %s: %s", id, c.id, e);
		status = 1;
	}
	json_decref(ack);
	cli_conn_done(&c);
	cli_relay_close();
	return status;
}

int
cli_approve(int argc, char **argv)
{
	return cli_decide("approve", cli_approve_help, VERDICT_ALLOW, argc,
	    argv);
}

int
cli_deny(int argc, char **argv)
{
	return cli_decide("deny", cli_deny_help, VERDICT_DENY, argc, argv);
}

int
cli_stage(int argc, char **argv)
{
	return cli_decide("stage", cli_stage_help, VERDICT_STAGE, argc, argv);
}

const struct option cli_kill_opts[] = {
	{ "host", required_argument, NULL, OPT_HOST },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int
cli_kill(int argc, char **argv)
{
	cleanup_free char *cause = NULL;
	struct cli_conn c;
	struct cli_flags fl;
	json_t *msg, *ack = NULL;
	struct msg_ack a;
	int status, r;

	status = cli_parse("kill", cli_kill_help, ":H:h", cli_kill_opts, argc, argv,
	    &fl);
	if (fl.done)
		return status;
	if (argc - optind < 1)
		return usage_error(2, "kill", "expected RUN");
	if (argc - optind > 1)
		return usage_error(2, "kill", "too many arguments");

	/* No hello first: the kill switch must work even when a welcome
	 * cannot be had (the supervisor takes a kill as a first message).
	 * Through the relay a hello goes first all the same: it carries
	 * the origin that the record's "via ssh from ADDR" comes from. */
	if (cli_relay_open(fl.host) != 0)
		return 1;
	if ((cli_relay != NULL ? cli_connect(argv[optind], &c, &cause) :
	    cli_dial(argv[optind], &c, &cause)) < 0) {
		cli_error("%s", cause);
		cli_relay_close();
		return 1;
	}
	msg = msg_kill();
	r = cli_call(&c, msg, "ack", &ack, &cause);
	json_decref(msg);
	if (r < 0) {
		cli_error("run %s: %s", c.id, cause);
		cli_conn_done(&c);
		cli_relay_close();
		return 1;
	}
	if (msg_ack_parse(ack, &a, &cause) < 0)
		a.error = cause;
	if (a.ok) {
		printf("killed %s\n", c.id);
		status = 0;
	} else {
		cleanup_free char *e = escape_str(a.error ? a.error :
		    "refused");

		cli_error("run %s: %s", c.id, e);
		status = 1;
	}
	json_decref(ack);
	cli_conn_done(&c);
	cli_relay_close();
	return status;
}

/* ------------------------------------------------------------------ */

/* Local time, RFC 3339 to the second with its offset; "-" when it
 * cannot be told. */
static void
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
static void
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

struct cli_log_ctx {
	bool		 json;
	const char	*want;		/* run id or name being resolved */
	char		*found;		/* resolved id */
	int64_t		 found_started;
};

/* An id matches itself; a name, its most recent run. */
static int
cli_log_find(const struct audit_run_row *row, void *arg)
{
	struct cli_log_ctx *ctx = arg;
	const struct audit_run *run = &row->run;

	if (run->id != NULL && strcmp(run->id, ctx->want) == 0) {
		free(ctx->found);
		ctx->found = xstrdup(run->id);
		return 1;
	}
	if (run->name != NULL && strcmp(run->name, ctx->want) == 0 &&
	    (ctx->found == NULL || run->started_ms >= ctx->found_started)) {
		free(ctx->found);
		ctx->found = xstrdup(run->id);
		ctx->found_started = run->started_ms;
	}
	return 0;
}

static int
cli_log_event(const struct audit_event_row *row, void *arg)
{
	struct cli_log_ctx *ctx = arg;
	const struct audit_event *ev = &row->ev;

	if (ctx->json) {
		json_t *o = logjson_event(row, NULL);

		json_dumpf(o, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(o);
	} else {
		cleanup_free char *erun = cli_esc(ev->run);
		cleanup_free char *ekind = cli_esc(request_kind_name(ev->kind));
		/* Left unfinished by a supervisor that died: asked and never
		 * answered, or committed before its effect, which then may
		 * or may not have happened. */
		cleanup_free char *everdict = row->state == AUDIT_ASKED ?
		    xasprintf("%s (asked, unanswered)",
		    verdict_name(ev->verdict)) : row->state == AUDIT_INTENT ?
		    xasprintf("%s (intent, outcome unknown)",
		    verdict_name(ev->verdict)) :
		    cli_esc(verdict_name(ev->verdict));
		cleanup_free char *ehow = cli_esc(how_name(ev->how));
		cleanup_free char *esubj = cli_esc(ev->subject);
		cleanup_free char *esubj2 = NULL;
		cleanup_free char *eby = cli_esc(ev->decided_by);
		char when[TIME_RFC3339_LEN], wait[32];

		cli_when(ev->time_ms, when);
		cli_wait(ev->wait_ms, wait, sizeof wait);
		/* A run marked lost by recovery: its event's time is when the
		 * gone supervisor was noticed, not when it died. */
		if (ev->kind == KIND_RUN && ev->subject != NULL &&
		    strcmp(ev->subject, "lost") == 0) {
			free(esubj);
			esubj = xasprintf("lost (supervisor gone, noticed %s)",
			    when);
		}
		if (ev->subject2 != NULL && *ev->subject2 != '\0')
			esubj2 = escape_str(ev->subject2);
		printf("%s\t%s\t%s\t%s\t%s\t%s%s%s\t%d\t%s\t%s\n", when, erun,
		    ekind, everdict, ehow, esubj, esubj2 ? " -> " : "",
		    esubj2 ? esubj2 : "", (int)ev->pid, wait, eby);
	}
	return 0;
}

/*
 * The record, read-only, and the run "want" names: an id, or a name (its
 * most recent run); want NULL: the most recent run when last, else none
 * (*run stays NULL). 0, or -1 when it is said why on stderr.
 */
static int
cli_open_run(const char *db, const char *want, bool last, const char *by,
    struct audit **ret, char **run)
{
	cleanup_free char *cause = NULL;
	struct cli_log_ctx ctx = { .want = want };
	struct audit *a = NULL;
	int r;

	if ((r = audit_open_readonly(db, &a, &cause)) < 0) {
		if (r == -ENOENT)
			cli_error("no runs recorded yet (%s)", db);
		else
			cli_error("cannot read %s: %s", db,
			    cause ? cause : strerror(-r));
		return -1;
	}
	/* Runs whose supervisor died are marked lost before they are read. */
	cli_recover(a, by, false);
	if (want != NULL) {
		r = audit_each_run(a, cli_log_find, &ctx, &cause);
		if (r < 0) {
			cli_error("cannot read %s: %s", db,
			    cause ? cause : strerror(-r));
			audit_close(a);
			return -1;
		}
		if (ctx.found == NULL) {
			cleanup_free char *e = escape_str(want);

			cli_error("no run \"%s\" in the record (%s)", e, db);
			audit_close(a);
			return -1;
		}
		*run = steal_ptr(&ctx.found);
	} else if (last) {
		r = audit_last_run(a, run, &cause);
		if (r == -ENOENT) {
			cli_error("no runs recorded yet (%s)", db);
			audit_close(a);
			return -1;
		}
		if (r < 0) {
			cli_error("cannot read %s: %s", db,
			    cause ? cause : strerror(-r));
			audit_close(a);
			return -1;
		}
	}
	*ret = a;
	return 0;
}

/* A row of the changes table: kind "change", in the events' columns
 * (VERDICT the action, HOW the change's kind). */
static int
cli_log_change(const struct audit_change_row *row, void *arg)
{
	struct cli_log_ctx *ctx = arg;
	const struct audit_change *ch = &row->ch;

	if (ctx->json) {
		json_t *o = json_object();

		cli_set(o, "kind", json_string("change"));
		cli_set(o, "seq", json_integer(row->seq));
		cli_set(o, "run", logjson_str(ch->run));
		cli_set(o, "time_ms", json_integer(ch->time_ms));
		cli_set(o, "path", logjson_str(ch->path));
		cli_set(o, "from", logjson_str(ch->from_path));
		cli_set(o, "change", logjson_str(ch->kind));
		cli_set(o, "action", logjson_str(ch->action));
		cli_set(o, "before_hash", logjson_str(ch->before_hash));
		cli_set(o, "after_hash", logjson_str(ch->after_hash));
		cli_set(o, "size", json_integer(ch->size));
		cli_set(o, "old_mode", json_integer(ch->old_mode));
		cli_set(o, "new_mode", json_integer(ch->new_mode));
		cli_set(o, "by", logjson_str(ch->by));
		json_dumpf(o, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(o);
	} else {
		cleanup_free char *erun = cli_esc(ch->run);
		cleanup_free char *eact = cli_esc(ch->action);
		cleanup_free char *ekind = cli_esc(ch->kind);
		cleanup_free char *epath = cli_esc(ch->path);
		cleanup_free char *efrom = ch->from_path ?
		    escape_str(ch->from_path) : NULL;
		cleanup_free char *eby = cli_esc(ch->by);
		char when[TIME_RFC3339_LEN];

		cli_when(ch->time_ms, when);
		printf("%s\t%s\tchange\t%s\t%s\t%s%s%s\t-\t-\t%s\n", when,
		    erun, eact, ekind, efrom ? efrom : "", efrom ? " -> " : "",
		    epath, eby);
	}
	return 0;
}

/* `ward log --summary`: review/summary.h, with the files staged in
 * the run's folder. */
static int
cli_log_summary(struct audit *a, const char *run, bool json, char **cause)
{
	cleanup_free char *runs = paths_runs_dir();
	cleanup_free char *dir = xasprintf("%s/%s", runs, run);
	cleanup_free char *why = NULL;
	cleanup_free char *erun = cli_esc(run);
	struct summary s;
	int r;

	if ((r = summary_from_record(a, run, &s, cause)) < 0)
		return r;
	if (strchr(run, '/') == NULL &&
	    summary_count_staged(dir, &s, &why) < 0)
		cli_error("run %s: staged files not counted: %s", erun,
		    why ? why : "cannot read the run folder");
	if (json) {
		json_t *o = summary_json(&s);

		cli_set(o, "run", logjson_str(run));
		json_dumpf(o, stdout, JSON_COMPACT | JSON_SORT_KEYS);
		fputc('\n', stdout);
		json_decref(o);
	} else {
		cleanup_strv char **v = summary_lines(&s);

		printf("run %s\n", erun);
		for (size_t i = 0; v[i] != NULL; i++)
			printf("  %s\n", v[i]);
	}
	return 0;
}

const struct option cli_log_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int
cli_log(int argc, char **argv)
{
	cleanup_free char *db = NULL;
	cleanup_free char *cause = NULL;
	cleanup_free char *run = NULL;
	struct cli_log_ctx ctx = { 0 };
	struct cli_flags fl;
	struct audit *a = NULL;
	int status, r;

	status = cli_parse("log", cli_log_help, ":jash", cli_log_opts, argc, argv,
	    &fl);
	if (fl.done)
		return status;
	if (argc - optind > 1)
		return usage_error(2, "log", "too many arguments");
	if (fl.all && argc - optind == 1)
		return usage_error(2, "log", "give RUN or --all, not both");

	if (fl.all && fl.summary)
		return usage_error(2, "log", "--summary is of one run, not --all");

	db = paths_audit_db();
	if (cli_open_run(db, argc - optind == 1 ? argv[optind] : NULL,
	    !fl.all, "ward log", &a, &run) < 0)
		return 1;
	if (fl.summary) {
		r = cli_log_summary(a, run, fl.json, &cause);
		audit_close(a);
		if (r < 0) {
			cli_error("cannot read %s: %s", db,
			    cause ? cause : strerror(-r));
			return 1;
		}
		return 0;
	}
	ctx.json = fl.json;
	r = audit_each_event(a, run, cli_log_event, &ctx, &cause);
	if (r == 0)
		r = audit_each_change(a, run, cli_log_change, &ctx, &cause);
	audit_close(a);
	if (r < 0) {
		cli_error("cannot read %s: %s", db,
		    cause ? cause : strerror(-r));
		return 1;
	}
	return 0;
}

/* The recorded bytes, a line at a time, each escaped; a pty's "\r\n"
 * (and a last line without its newline) ends a line. */
static void
cli_output_escaped(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl != NULL ? nl : end) - p);
		cleanup_free char *e = NULL;

		if (nl != NULL && n > 0 && p[n - 1] == '\r')
			n--;
		e = escape_line(p, n);
		fputs(e, stdout);
		fputc('\n', stdout);
		p = nl != NULL ? nl + 1 : end;
	}
}

/*
 * The program's last full screen (issue 30, point 6): the bytes through
 * the agent pane's emulator (tui/vt.h), stopped where the program last
 * left its alternate screen (what it leaves behind after that is the
 * shell's screen, not its own). Each row escaped, trailing blanks cut.
 */
/* Where needle last occurs in buf, or -1. */
static ssize_t
cli_last_of(const char *buf, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	const char *p = buf, *last = NULL;

	while ((p = memmem(p, (size_t)(buf + len - p), needle, n)) != NULL)
		last = p++;
	return last != NULL ? last - buf : -1;
}

static void
cli_output_screen(const char *buf, size_t len, int rows, int cols)
{
	static const char *const leave[] = { "\033[?1049l", "\033[?1047l",
	    "\033[?47l" };
	struct vt *t = vt_new(rows, cols);
	struct grid *g = grid_new(cols, rows);
	cleanup_free char *text = NULL;
	ssize_t upto = -1;
	const char *line;

	for (size_t i = 0; i < sizeof leave / sizeof *leave; i++) {
		ssize_t at = cli_last_of(buf, len, leave[i]);

		if (at > upto)
			upto = at;
	}
	vt_feed(t, buf, upto >= 0 ? (size_t)upto : len);
	vt_draw(t, g, 0, 0, rows, cols);
	text = grid_text(g);
	for (line = text; *line != '\0';) {
		const char *nl = strchr(line, '\n');
		size_t n = nl != NULL ? (size_t)(nl - line) : strlen(line);
		cleanup_free char *e = escape_line(line, n);

		puts(e);
		line += n + (nl != NULL);
	}
	grid_free(g);
	vt_free(t);
}

/* Whether the program ever switched to its alternate screen. */
static bool
cli_output_fullscreen(const char *buf, size_t len)
{
	return memmem(buf, len, "\033[?1049h", 8) != NULL ||
	    memmem(buf, len, "\033[?1047h", 8) != NULL ||
	    memmem(buf, len, "\033[?47h", 6) != NULL;
}

const struct option cli_output_opts[] = {
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "screen", optional_argument, NULL, OPT_SCREEN },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int
cli_output(int argc, char **argv)
{
	cleanup_free char *db = NULL;
	cleanup_free char *cause = NULL;
	cleanup_free char *run = NULL;
	cleanup_free char *buf = NULL;
	struct cli_flags fl;
	struct audit *a = NULL;
	size_t len = 0;
	int status, r, rows = 24, cols = 80;

	status = cli_parse("output", cli_output_help, ":Rh", cli_output_opts, argc,
	    argv, &fl);
	if (fl.done)
		return status;
	if (argc - optind > 1)
		return usage_error(2, "output", "too many arguments");
	if (fl.raw && fl.screen)
		return usage_error(2, "output", "--raw or --screen, not both");
	if (fl.screen) {
		struct winsize ws = { 0 };
		char x;

		if (fl.screen_size != NULL) {
			if (sscanf(fl.screen_size, "%dx%d%c", &cols, &rows,
			    &x) != 2 || cols < 1 || rows < 1 ||
			    cols > MSG_WINSIZE_MAX || rows > MSG_WINSIZE_MAX)
				return usage_error(2, "output", "--screen=%s: "
				    "not COLSxROWS (e.g. 120x40)",
				    fl.screen_size);
		} else if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
		    ws.ws_row > 0 && ws.ws_col > 0) {
			rows = ws.ws_row;
			cols = ws.ws_col;
		}
	}
	db = paths_audit_db();
	if (cli_open_run(db, argc - optind == 1 ? argv[optind] : NULL, true,
	    "ward output", &a, &run) < 0)
		return 1;
	r = audit_read_output(a, run, &buf, &len, &cause);
	audit_close(a);
	if (r < 0) {
		cli_error("cannot read %s: %s", db,
		    cause ? cause : strerror(-r));
		return 1;
	}
	if (fl.raw)
		fwrite(buf, 1, len, stdout);
	else if (fl.screen)
		cli_output_screen(buf, len, rows, cols);
	else
		cli_output_escaped(buf, len);
	if (!fl.raw && !fl.screen && cli_output_fullscreen(buf, len)) {
		cleanup_free char *e = cli_esc(run);

		fprintf(stderr, "ward output: the program drew a full screen; "
		    "'ward output --screen %s' shows its last screen\n", e);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("output: %s", strerror(errno));
		return 1;
	}
	return 0;
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
	const struct run_info *run = &c->w.run;
	size_t pending = c->w.n_pending;
	int64_t started = run->started_ms;
	int64_t age = started > 0 ? ctx->now - started : 0;

	if (ctx->json) {
		struct run_info ri = *run;
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

/* ------------------------------------------------------------------ */
/* ward rules */

/* Sends msg and waits for the reply of type want; 0 or 1 (reported). */
static int
cli_rules_call(struct cli_conn *c, json_t *msg, const char *want,
    json_t **reply)
{
	cleanup_free char *cause = NULL;
	int r = proto_call(c->conn, msg, want, CLI_TIMEOUT_MS, reply, &cause);

	json_decref(msg);
	if (r < 0) {
		cli_error("run %s: %s", c->id, cause);
		return 1;
	}
	return 0;
}

static int
cli_rules_run(struct cli_conn *c, void *arg)
{
	struct msg_rule_list l;
	cleanup_free char *cause = NULL;
	json_t *reply = NULL;

	(void)arg;
	if (cli_rules_call(c, msg_rules(), "rule_list", &reply) != 0)
		return 1;
	if (msg_rule_list_parse(reply, &l, &cause) < 0) {
		cli_error("run %s: %s", c->id, cause);
		json_decref(reply);
		return 1;
	}
	for (size_t i = 0; i < l.n_rules; i++) {
		cleanup_free char *pat = cli_esc(l.rules[i].pattern);

		printf("%s\t%" PRIu64 "\t%s\t%s\t%s\n", c->id, l.rules[i].n,
		    verdict_name(l.rules[i].verdict),
		    request_kind_name(l.rules[i].kind), pat);
	}
	msg_rule_list_done(&l);
	json_decref(reply);
	return 0;
}

static int
cli_rules_revoke(const char *run, const char *num)
{
	cleanup_free char *cause = NULL;
	struct cli_conn c;
	struct msg_ack a;
	json_t *ack = NULL;
	uint64_t n;
	int status;

	if (!cli_parse_id(num, &n)) {
		cleanup_free char *e = escape_str(num);

		return usage_error(2, "rules", "N must be a rule number, not "
		    "'%s'", e);
	}
	if (cli_connect(run, &c, &cause) < 0) {
		cli_error("%s", cause);
		return 1;
	}
	if (cli_rules_call(&c, msg_revoke(n), "ack", &ack) != 0) {
		cli_conn_done(&c);
		return 1;
	}
	if (msg_ack_parse(ack, &a, &cause) < 0)
		a.error = cause;
	if (a.ok) {
		printf("revoked %s %" PRIu64 "\n", c.id, n);
		status = 0;
	} else {
		cleanup_free char *e = escape_str(a.error ? a.error :
		    "refused");

		cli_error("run %s: %s", c.id, e);
		status = 1;
	}
	json_decref(ack);
	cli_conn_done(&c);
	return status;
}

const struct option cli_rules_opts[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int
cli_rules(int argc, char **argv)
{
	struct cli_flags fl;
	int status, left;

	status = cli_parse("rules", cli_rules_help, "+:h", cli_rules_opts, argc,
	    argv, &fl);
	if (fl.done)
		return status;
	left = argc - optind;
	if (left >= 1 && strcmp(argv[optind], "revoke") == 0) {
		if (left != 3)
			return usage_error(2, "rules", "revoke expects RUN "
			    "and N");
		return cli_rules_revoke(argv[optind + 1], argv[optind + 2]);
	}
	if (left > 1)
		return usage_error(2, "rules", "too many arguments");
	return cli_each_run(left == 1 ? argv[optind] : NULL, cli_rules_run,
	    NULL);
}
