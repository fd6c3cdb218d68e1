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

#include "approvals/proto.h"
#include "config/escape.h"
#include "config/util.h"
#include "review/logjson.h"
#include "tui/cli-int.h"
#include "tui/usage.h"

/* Answering from the shell: ward pending, approve, deny, stage, kill and
 * rules. */

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
	if ((cli_relayed() ? cli_connect(argv[optind], &c, &cause) :
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
