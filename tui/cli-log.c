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
#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"
#include "review/logjson.h"
#include "review/summary.h"
#include "tui/cli-int.h"
#include "tui/usage.h"
#include "tui/vt.h"

/* Reading the record: ward log (and its recovery of lost runs) and ward
 * output. */

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

/* ------------------------------------------------------------------ */

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
