/* SPDX-License-Identifier: MIT */
#include "tui/feed.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"
#include "review/logjson.h"
#include "tui/usage.h"

/* A row seen still asked or intended: it changes in place when decided. */
struct feed_open {
	int64_t		 seq;
	enum audit_state state;
};

/* A run's id and --name, for the JSON's "name". */
struct feed_name {
	char		*id;
	char		*name;		/* NULL when it has none */
};

struct feed {
	struct feed_opts opts;
	char		*run;
	int64_t		 last;		/* the highest seq seen */
	struct feed_open *open;
	size_t		 n_open;
	FILE		*out;
	int		 lines;
	struct audit	*a;		/* during feed_poll */
	struct feed_name *names;
	size_t		 n_names;
	bool		 names_read;	/* read again during this poll */
};

struct feed *
feed_new(const struct feed_opts *o)
{
	struct feed *f = xcalloc(1, sizeof *f);

	f->opts = *o;
	f->run = o->run != NULL ? xstrdup(o->run) : NULL;
	f->opts.run = f->run;
	return f;
}

static void
feed_names_clear(struct feed *f)
{
	for (size_t i = 0; i < f->n_names; i++) {
		free(f->names[i].id);
		free(f->names[i].name);
	}
	free(f->names);
	f->names = NULL;
	f->n_names = 0;
}

static int
feed_name_row(const struct audit_run_row *row, void *arg)
{
	struct feed *f = arg;

	if (row->run.id == NULL)
		return 0;
	f->names = xreallocarray(f->names, f->n_names + 1, sizeof *f->names);
	f->names[f->n_names].id = xstrdup(row->run.id);
	f->names[f->n_names++].name = row->run.name != NULL &&
	    *row->run.name != '\0' ? xstrdup(row->run.name) : NULL;
	return 0;
}

/* Run id's --name, or NULL: the runs are read again (once a poll) when
 * the id is new, a run started since. */
static const char *
feed_name(struct feed *f, const char *id)
{
	for (int pass = 0; id != NULL && pass < 2; pass++) {
		for (size_t i = 0; i < f->n_names; i++) {
			if (strcmp(f->names[i].id, id) == 0)
				return f->names[i].name;
		}
		if (f->names_read || f->a == NULL)
			break;
		f->names_read = true;
		feed_names_clear(f);
		(void)audit_each_run(f->a, feed_name_row, f, NULL);
	}
	return NULL;
}

void
feed_free(struct feed *f)
{
	if (f == NULL)
		return;
	free(f->run);
	free(f->open);
	feed_names_clear(f);
	free(f);
}

static char *
feed_esc(const char *s)
{
	return s == NULL || *s == '\0' ? xstrdup("-") : escape_str(s);
}

char *
feed_line(const struct audit_event_row *row, const char *name, bool json)
{
	const struct audit_event *ev = &row->ev;
	const char *state = audit_state_name(row->state);
	char when[TIME_RFC3339_LEN];
	char *line;

	time_rfc3339(ev->time_ms, when);
	if (json) {
		json_t *ev_o = logjson_event(row, when), *o = json_object();
		const char *k;
		json_t *v;

		/* The run's --name, right after "run" (keys keep their
		 * order: jansson iterates in insertion order). */
		if (o == NULL)
			fatal("out of memory");
		json_object_foreach(ev_o, k, v) {
			if (json_object_set(o, k, v) < 0)
				fatal("out of memory");
			if (strcmp(k, "run") == 0 && json_object_set_new(o,
			    "name", name != NULL ? json_string(name) :
			    json_null()) < 0)
				fatal("out of memory");
		}
		json_decref(ev_o);
		line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(o);
		if (line == NULL)
			fatal("out of memory");
		return line;
	}
	{
		cleanup_free char *run = feed_esc(ev->run);
		cleanup_free char *subj = feed_esc(ev->subject);
		cleanup_free char *by = feed_esc(ev->decided_by);

		return xasprintf("%s\t%s\t%s\t%s\t%s\t%s\t%d\t%" PRId64
		    "ms\t%s\t%s", when, run, request_kind_name(ev->kind),
		    verdict_name(ev->verdict), how_name(ev->how), subj,
		    (int)ev->pid, ev->wait_ms, by, state != NULL ? state : "-");
	}
}

static struct feed_open *
feed_find_open(struct feed *f, int64_t seq)
{
	for (size_t i = 0; i < f->n_open; i++)
		if (f->open[i].seq == seq)
			return &f->open[i];
	return NULL;
}

static void
feed_emit(struct feed *f, const struct audit_event_row *row)
{
	cleanup_free char *line = NULL;

	if (f->opts.since_ms > 0 && row->ev.time_ms < f->opts.since_ms)
		return;
	line = feed_line(row, f->opts.json ? feed_name(f, row->ev.run) :
	    NULL, f->opts.json);
	fprintf(f->out, "%s\n", line);
	f->lines++;
}

static int
feed_on_row(const struct audit_event_row *row, void *arg)
{
	struct feed *f = arg;
	bool open = row->state == AUDIT_ASKED || row->state == AUDIT_INTENT;
	struct feed_open *o;

	if (row->seq > f->last) {
		f->last = row->seq;
		feed_emit(f, row);
		if (open) {
			f->open = xreallocarray(f->open, f->n_open + 1,
			    sizeof *f->open);
			f->open[f->n_open++] = (struct feed_open){ row->seq,
			    row->state };
		}
		return 0;
	}
	if ((o = feed_find_open(f, row->seq)) == NULL ||
	    o->state == row->state)
		return 0;
	feed_emit(f, row);
	if (open) {
		o->state = row->state;
	} else {
		*o = f->open[--f->n_open];
	}
	return 0;
}

int
feed_poll(struct feed *f, struct audit *a, FILE *out, char **cause)
{
	int64_t from = f->last + 1;
	int r;

	for (size_t i = 0; i < f->n_open; i++)
		if (f->open[i].seq < from)
			from = f->open[i].seq;
	f->out = out;
	f->lines = 0;
	f->a = a;
	f->names_read = false;
	r = audit_each_event_from(a, f->opts.run, from, feed_on_row, f,
	    cause);
	f->a = NULL;
	if (r < 0)
		return r;
	return f->lines;
}

/* ------------------------------------------------------------------ */

static int
feed_digits(const char **s, int n, int *ret)
{
	int v = 0;

	for (int i = 0; i < n; i++, (*s)++) {
		if (**s < '0' || **s > '9')
			return -EINVAL;
		v = v * 10 + (**s - '0');
	}
	*ret = v;
	return 0;
}

static int
feed_parse_rfc3339(const char *s, int64_t *ret)
{
	struct tm tm = { 0 };
	int y, mo, d, h = 0, mi = 0, sec = 0, ms = 0, oh = 0, om = 0, sign = 0;
	time_t t;

	if (feed_digits(&s, 4, &y) < 0 || *s++ != '-' ||
	    feed_digits(&s, 2, &mo) < 0 || *s++ != '-' ||
	    feed_digits(&s, 2, &d) < 0)
		return -EINVAL;
	if (*s == 'T' || *s == 't' || *s == ' ') {
		s++;
		if (feed_digits(&s, 2, &h) < 0 || *s++ != ':' ||
		    feed_digits(&s, 2, &mi) < 0 || *s++ != ':' ||
		    feed_digits(&s, 2, &sec) < 0)
			return -EINVAL;
		if (*s == '.') {
			int scale = 100;

			for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10)
				ms += (*s - '0') * scale;
		}
		if (*s == 'Z' || *s == 'z') {
			s++;
		} else if (*s == '+' || *s == '-') {
			sign = *s++ == '+' ? 1 : -1;
			if (feed_digits(&s, 2, &oh) < 0 || *s++ != ':' ||
			    feed_digits(&s, 2, &om) < 0)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	if (*s != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60)
		return -EINVAL;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	if ((t = timegm(&tm)) == (time_t)-1)
		return -EINVAL;
	*ret = ((int64_t)t - sign * (oh * 3600 + om * 60)) * 1000 + ms;
	return 0;
}

int
feed_parse_time(const char *s, int64_t now_ms, int64_t *ret)
{
	char *end = NULL;
	long long v;

	if (*s == '\0')
		return -EINVAL;
	if (strchr(s, '-') != NULL)
		return feed_parse_rfc3339(s, ret);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || v < 0)
		return -EINVAL;
	if (*end == '\0') {
		*ret = v;
		return 0;
	}
	if (end[1] != '\0')
		return -EINVAL;
	switch (*end) {
	case 's': v *= 1000; break;
	case 'm': v *= 60000; break;
	case 'h': v *= 3600000; break;
	case 'd': v *= 86400000; break;
	default: return -EINVAL;
	}
	*ret = now_ms - v;
	return 0;
}

/* ------------------------------------------------------------------ */

static const char feed_help[] =
"Usage: ward events [--follow] [--since TIME] [--run RUN] [--json]\n"
"                  [--host HOST]\n"
"\n"
"Print the record of every run (or of RUN: an id, or the most recent run\n"
"with that --name) as it grows, oldest first. A request shows when it is\n"
"asked (state \"asked\") and again when it is decided (same seq, state\n"
"\"done\"): the record updates the row in place.\n"
"\n"
"One line per event, fields separated by tabs:\n"
"  TIME  RUN  KIND  VERDICT  HOW  SUBJECT  PID  WAIT  DECIDED_BY  STATE\n"
"TIME is RFC 3339 UTC with milliseconds. Every field is escaped as in\n"
"'ward pending'.\n"
"\n"
"Options:\n"
"  -f, --follow      keep printing as runs record (runs that start later\n"
"                    too); with --run, stop once that run has ended\n"
"  -s, --since TIME  only events recorded at or after TIME: RFC 3339\n"
"                    (2026-12-01T11:03:38.123Z, or a date), ms since the\n"
"                    epoch (a line's time_ms), or back from now (90s,\n"
"                    15m, 2h, 1d)\n"
"  -r, --run RUN     only this run's events\n"
"  -j, --json        one JSON object per line (JSON Lines): seq, run, name\n"
"                    (the run's --name or null), time (RFC 3339 UTC, ms),\n"
"                    time_ms, pid, kind, syscall,\n"
"                    subject, subject2, detail, verdict, how, rule,\n"
"                    decided_by, wait_ms, request_id, state (null, \"asked\",\n"
"                    \"intent\" or \"done\")\n"
"  -H, --host HOST   the record of HOST, through 'ssh HOST ward relay' (as\n"
"                    'ward console --host'); --json objects add \"host\"\n"
"  -h, --help        show this help\n"
"\n"
"The record is $XDG_STATE_HOME/ward/audit.db. --follow wakes on inotify\n"
"and reads again at least once a second.\n"
"Exit status: 0 ok, 1 no record or no such run, 2 usage.\n";

struct feed_run_ctx {
	const char	*want;
	char		*found;
	int64_t		 found_started;
	int64_t		 ended_ms;
};

static int
feed_find_run(const struct audit_run_row *row, void *arg)
{
	struct feed_run_ctx *c = arg;
	const struct audit_run *r = &row->run;

	if (r->id != NULL && strcmp(r->id, c->want) == 0) {
		free(c->found);
		c->found = xstrdup(r->id);
		c->ended_ms = row->ended_ms;
		return 1;
	}
	if (r->name != NULL && strcmp(r->name, c->want) == 0 &&
	    (c->found == NULL || r->started_ms >= c->found_started)) {
		free(c->found);
		c->found = xstrdup(r->id);
		c->found_started = r->started_ms;
		c->ended_ms = row->ended_ms;
	}
	return 0;
}

/* The run's id (and whether it ended); -ENOENT if the record has none. */
static int
feed_resolve(struct audit *a, const char *want, char **id, bool *ended,
    char **cause)
{
	struct feed_run_ctx c = { .want = want };
	int r = audit_each_run(a, feed_find_run, &c, cause);

	if (r < 0)
		return r;
	if (c.found == NULL)
		return -ENOENT;
	if (id != NULL)
		*id = steal_ptr(&c.found);
	free(c.found);
	*ended = c.ended_ms != 0;
	return 0;
}

/* inotify on the state folder; -1 when it cannot be had (then the poll
 * interval alone). */
static int
feed_watch(void)
{
	cleanup_free char *dir = paths_state_dir();
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		return -1;
	if (inotify_add_watch(fd, dir, IN_MODIFY | IN_CREATE | IN_MOVED_TO |
	    IN_CLOSE_WRITE) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
feed_wait(int *ifd)
{
	struct pollfd p = { *ifd, POLLIN, 0 };
	char buf[4096];

	if (*ifd < 0) {
		/* Perhaps the folder exists now. */
		*ifd = feed_watch();
		poll(NULL, 0, FEED_POLL_MS);
		return;
	}
	if (poll(&p, 1, FEED_POLL_MS) > 0)
		while (read(*ifd, buf, sizeof buf) > 0)
			;
}

const struct option feed_opts[] = {
	{ "follow", no_argument, NULL, 'f' },
	{ "since", required_argument, NULL, 's' },
	{ "run", required_argument, NULL, 'r' },
	{ "json", no_argument, NULL, 'j' },
	{ "host", required_argument, NULL, 'H' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int
feed_cmd_parse(int argc, char **argv, struct feed_cmd *fa, bool *done)
{
	int c;

	memset(fa, 0, sizeof *fa);
	*done = false;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fs:r:jH:h", feed_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fa->follow = true;
			break;
		case 's':
			if (feed_parse_time(optarg, now_wall_ms(),
			    &fa->o.since_ms) < 0) {
				cleanup_free char *e = escape_str(optarg);

				*done = true;
				return usage_error(2, "events", "--since: '%s' is "
				    "not a time (RFC 3339, ms, or 15m ago)", e);
			}
			break;
		case 'r':
			fa->run = optarg;
			break;
		case 'j':
			fa->o.json = true;
			break;
		case 'H':
			if (*optarg == '\0' || *optarg == '-') {
				cleanup_free char *e = escape_str(optarg);

				*done = true;
				return usage_error(2, "events", "--host: '%s' "
				    "is not a host", e);
			}
			fa->host = optarg;
			break;
		case 'h':
			fputs(feed_help, stdout);
			*done = true;
			return 0;
		case ':':
			*done = true;
			return usage_error(2, "events", "an option needs a value");
		default:
			*done = true;
			return usage_error(2, "events", "unknown option");
		}
	}
	if (optind < argc) {
		*done = true;
		return usage_error(2, "events", "unexpected argument");
	}
	return 0;
}

/* ---- a session: ward events' loop, here and for ward relay ---- */

struct feed_session {
	char		*db;
	char		*want;		/* --run as given, or NULL */
	char		*id;		/* and the id it names */
	struct feed_opts o;
	bool		 follow;
	bool		 ended;		/* the run ended: one more read */
	struct audit	*a;
	struct feed	*f;
};

struct feed_session *
feed_session_new(const char *run, int64_t since_ms, bool json, bool follow)
{
	struct feed_session *s = xcalloc(1, sizeof *s);

	s->db = paths_audit_db();
	s->want = run != NULL ? xstrdup(run) : NULL;
	s->o.since_ms = since_ms;
	s->o.json = json;
	s->follow = follow;
	return s;
}

void
feed_session_free(struct feed_session *s)
{
	if (s == NULL)
		return;
	feed_free(s->f);
	audit_close(s->a);
	free(s->db);
	free(s->want);
	free(s->id);
	free(s);
}

int
feed_session_step(struct feed_session *s, FILE *out, bool *done,
    char **cause)
{
	cleanup_free char *why = NULL;
	int r;

	*done = false;
	if (s->a == NULL) {
		r = audit_open_readonly(s->db, &s->a, &why);
		if (r == -ENOENT && s->follow)
			return 0;	/* not yet: a run will make it */
		if (r < 0) {
			*done = true;
			if (r == -ENOENT)
				set_cause(cause, "no runs recorded yet (%s)",
				    s->db);
			else
				set_cause(cause, "cannot read %s: %s", s->db,
				    why != NULL ? why : strerror(-r));
			return r;
		}
	}
	if (s->f == NULL) {
		if (s->want != NULL && feed_resolve(s->a, s->want, &s->id,
		    &s->ended, &why) < 0) {
			cleanup_free char *e = escape_str(s->want);

			*done = true;
			set_cause(cause, "no run \"%s\" in the record (%s)%s%s",
			    e, s->db, why ? ": " : "", why ? why : "");
			return -ENOENT;
		}
		s->o.run = s->id;
		s->f = feed_new(&s->o);
	}
	if ((r = feed_poll(s->f, s->a, out, &why)) < 0) {
		*done = true;
		set_cause(cause, "cannot read %s: %s", s->db,
		    why != NULL ? why : strerror(-r));
		return r;
	}
	if (!s->follow || s->ended) {
		*done = true;
		return r;
	}
	/* The run ended since: one more read takes its last rows. */
	if (s->id != NULL)
		(void)feed_resolve(s->a, s->id, NULL, &s->ended, NULL);
	return r;
}

int
feed_cmd_local(const struct feed_cmd *fa)
{
	struct feed_session *s;
	bool done;
	int status = 0, ifd = -1, r;

	/* A reader gone (| head) ends a follow quietly, by EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (fa->follow)
		ifd = feed_watch();
	s = feed_session_new(fa->run, fa->o.since_ms, fa->o.json, fa->follow);
	for (;;) {
		cleanup_free char *cause = NULL;

		if ((r = feed_session_step(s, stdout, &done, &cause)) < 0) {
			warn_msg("%s", cause != NULL ? cause : strerror(-r));
			status = 1;
			break;
		}
		if (fflush(stdout) != 0 || ferror(stdout) || done)
			break;
		feed_wait(&ifd);
	}
	feed_session_free(s);
	if (ifd >= 0)
		close(ifd);
	return status;
}
