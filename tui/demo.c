/* SPDX-License-Identifier: MIT */
/*
 * ward demo: a pretend agent (share/demo/agent.sh) meets every surface
 * ward guards, in a world of its own (share/demo/world.sh: a network and a
 * mount namespace where pypi.org, a paste site and a metadata address are
 * fakes on loopback), and the console shows what it tried. --auto answers
 * the requests itself, at a pace a room can follow (a client on the run's
 * control socket like any console, so the record says who answered). At
 * the end, a scorecard: what it tried by surface, what was allowed, what
 * was refused, and what reached the fake servers.
 *
 * The ~/.ssh step writes to the demo's stand-in home (DIR/home, with a
 * .ssh/authorized_keys of its own, shown read-only with --in): the write
 * is asked like any outside the run's folders, and an allowed one lands
 * in the demo's folder. The person's own home is never shown to the run
 * nor named to it for writing.
 *
 * The outer `ward demo` makes the folders and runs world.sh, which runs
 * `ward demo` again inside the world (WARD_DEMO_STAGE=inside); where the
 * world cannot be made (a tool missing, namespaces refused) the demo runs
 * without one and says so.
 */
#include "tui/demo.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "approvals/audit.h"
#include "approvals/ctl.h"
#include "approvals/msg.h"
#include "approvals/proto.h"
#include "approvals/request.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"
#include "review/scorecard.h"
#include "review/summary.h"
#include "tui/run.h"
#include "tui/usage.h"

#define DEMO_EXIT_USAGE	125
/* world.sh's status when it could not make the world (CMD never ran). */
#define DEMO_NO_WORLD	3
/* --auto: how long a request stays on screen before it is answered. */
#define DEMO_PACE_MS	2500
/* How --auto's answers are signed in the record (review/scorecard.h
 * tells them from a person's). */
#define DEMO_AUTO_ORIGIN SCORECARD_SCRIPT_ORIGIN

struct demo_opts {
	bool	 headless;
	bool	 auto_answer;
	bool	 view;
};

/* What --auto answers, first match: the story the demo tells. */
static const struct demo_answer {
	enum request_kind kind;
	const char	*subject;	/* fnmatch pattern */
	enum verdict	 verdict;
} demo_answers[] = {
	{ KIND_WRITE, "/etc/*", VERDICT_DENY },
	{ KIND_WRITE, "*/.ssh/*", VERDICT_DENY },
	{ KIND_DNS, "paste.example.com*", VERDICT_ALLOW },
	{ KIND_CONNECT, "*paste.example.com*", VERDICT_DENY },
	{ KIND_PACKAGE, "*wardtiny*", VERDICT_ALLOW },
	{ KIND_CONNECT, "*pypi.org*", VERDICT_ALLOW },
	{ KIND_DNS, "pypi.org*", VERDICT_ALLOW },
};

static enum verdict
demo_answer_for(const struct request *r)
{
	for (size_t i = 0; i < ARRAY_SIZE(demo_answers); i++) {
		if (demo_answers[i].kind == r->kind && r->subject != NULL &&
		    fnmatch(demo_answers[i].subject, r->subject, 0) == 0)
			return demo_answers[i].verdict;
	}
	return VERDICT_DENY;
}

const struct option demo_opts[] = {
	{ "headless", no_argument, NULL, 'H' },
	{ "auto", no_argument, NULL, 'A' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int
demo_args(int argc, char **argv, struct demo_opts *o)
{
	int opt;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", demo_opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			o->headless = true;
			break;
		case 'A':
			o->auto_answer = true;
			break;
		case 'W':
			o->view = true;
			break;
		case 'h':
			puts("usage: ward demo [--auto] [--headless] [--view]\n\n"
			    "A pretend agent in the sandbox, with the console: it "
			    "works in its own folders,\nedits a project (staged: "
			    "the diff pane shows it, c), tries to change /etc/hosts,"
			    "\nlooks for ~/.ssh, adds a key to ~/.ssh/authorized_keys "
			    "(the demo's own stand-in\nhome, never yours), sends a "
			    "file to a paste site, installs a package with pip,\n"
			    "asks the cloud metadata address for credentials, and "
			    "prints an escape\nsequence "
			    "that would retitle the terminal. Each step says what "
			    "it tries and\nwhat ward will do. The network is a fake "
			    "one made for the demo (share/demo/\nworld.sh): nothing "
			    "leaves the machine.\n\n"
			    "  --auto      answer the requests without you, at a "
			    "pace a room can follow\n"
			    "  --headless  no console: requests on stderr, answered "
			    "with ward approve/deny\n"
			    "              (or by --auto)\n"
			    "  --view      the console here read-only, for a projector:"
			    " answer from\n"
			    "              'ward console demo-PID' in your own "
			    "terminal (or --auto)\n\n"
			    "Approve with a, deny with d, kill with K, leave with "
			    "q. A scorecard closes the run.\n\n"
			    "Exit status: as 'ward run' (125 on a usage error).");
			return 0;
		default:
			(void)usage_bad_option(DEMO_EXIT_USAGE, "demo", argv, opt);
			return -1;
		}
	}
	if (optind < argc) {
		cleanup_free char *e = escape_str(argv[optind]);

		(void)usage_error(DEMO_EXIT_USAGE, "demo",
		    "unexpected argument '%s'", e);
		return -1;
	}
	return 1;
}

static void
demo_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long
demo_pace_ms(void)
{
	const char *s = getenv("WARD_DEMO_PACE_MS");
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return DEMO_PACE_MS;
	v = strtol(s, &end, 10);
	return *end == '\0' && v >= 0 && v <= 60000 ? v : DEMO_PACE_MS;
}

/* --- --auto: a client of the run's control socket ----------------------- */

struct demo_wait {
	uint64_t	 id;
	enum verdict	 verdict;
	int64_t		 at_ms;		/* monotonic: when to answer */
};

static void
demo_auto_queue(struct demo_wait **w, size_t *n, const struct request *r,
    long pace)
{
	*w = xreallocarray(*w, *n + 1, sizeof **w);
	(*w)[(*n)++] = (struct demo_wait){ .id = r->id,
	    .verdict = demo_answer_for(r), .at_ms = now_mono_ms() + pace };
}

/* Answers what is due; the time to the next one (ms), or -1. */
static int
demo_auto_due(struct proto_conn *c, struct demo_wait *w, size_t *n)
{
	int64_t now = now_mono_ms(), next = -1;
	size_t keep = 0;

	for (size_t i = 0; i < *n; i++) {
		if (w[i].at_ms <= now) {
			json_t *m = msg_decide(w[i].id, w[i].verdict, SCOPE_ONCE,
			    w[i].verdict == VERDICT_DENY ?
			    "the demo's script denies this" : NULL);

			(void)proto_send(c, m);
			json_decref(m);
			continue;
		}
		if (next < 0 || w[i].at_ms - now < next)
			next = w[i].at_ms - now;
		w[keep++] = w[i];
	}
	*n = keep;
	(void)proto_flush(c);
	return (int)next;
}

/* The answering child: connects to the run by its name (retrying while
 * it starts), then answers each request after the pace, until the run
 * ends. Never returns. */
static void __attribute__((noreturn))
demo_auto(const char *name)
{
	cleanup_free struct demo_wait *w = NULL;
	struct proto_conn *c = NULL;
	long pace = demo_pace_ms();
	size_t n = 0;
	json_t *hello;
	int fd = -1;

	for (int i = 0; i < 300; i++) {
		cleanup_free char *cause = NULL;

		if (ctl_connect(name, &fd, &cause) == 0)
			break;
		demo_sleep_ms(100);
	}
	if (fd < 0)
		_exit(1);
	c = proto_conn_new(fd);
	hello = msg_hello("demo --auto", true);
	/* The record says who answered: not a person, the demo's script. */
	msg_hello_set_origin(hello, DEMO_AUTO_ORIGIN);
	(void)proto_send(c, hello);
	(void)proto_flush(c);
	json_decref(hello);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int timeout = demo_auto_due(c, w, &n);
		json_t *m;

		if (poll(&p, 1, timeout) < 0 && errno != EINTR)
			break;
		if (proto_read(c) < 0 && proto_eof(c))
			break;
		for (;;) {
			cleanup_free char *cause = NULL;
			struct request *r = NULL;
			struct msg_welcome wel;

			if (proto_next(c, &m, &cause) <= 0 || m == NULL)
				break;
			if (msg_type(m) == MSG_TYPE_WELCOME &&
			    msg_welcome_parse(m, &wel, &cause) == 0) {
				for (size_t i = 0; i < wel.n_pending; i++)
					demo_auto_queue(&w, &n, wel.pending[i],
					    pace);
				msg_welcome_done(&wel);
			} else if (msg_type(m) == MSG_TYPE_REQUEST &&
			    msg_request_parse(m, &r, &cause) == 0) {
				demo_auto_queue(&w, &n, r, pace);
				request_free(r);
			}
			json_decref(m);
		}
		if (proto_eof(c))
			break;
	}
	proto_conn_free(c);
	_exit(0);
}

/* --- the scorecard's part from the fake world ---------------------------- */

static size_t
demo_count_lines(const char *dir, const char *file)
{
	cleanup_free char *p = xasprintf("%s/%s", dir, file);
	FILE *f = fopen(p, "r");
	size_t n = 0;
	int ch;

	if (f == NULL)
		return 0;
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

static void
demo_world_card(const char *world)
{
	printf("\nWhat reached the demo's fake outside world:\n"
	    "  paste.example.com  %zu connection(s)\n"
	    "  169.254.169.254    %zu connection(s) (cloud metadata)\n"
	    "  pypi.org           %zu request(s) (the package index)\n",
	    demo_count_lines(world, "paste.count"),
	    demo_count_lines(world, "meta.count"),
	    demo_count_lines(world, "pypi.log"));
}

/* --- the scorecard --------------------------------------------------------- */

struct demo_find {
	const char	*name;
	char		*id;
};

static int
demo_find_run(const struct audit_run_row *row, void *arg)
{
	struct demo_find *f = arg;

	if (row->run.name != NULL && strcmp(row->run.name, f->name) == 0) {
		free(f->id);
		f->id = xstrdup(row->run.id);
	}
	return 0;
}

/* The width the scorecard is printed at: the terminal's when stdout is
 * one, else COLUMNS when it says a number, else 0 (lines as they are:
 * a file or a pipe wraps nothing). */
static int
demo_columns(void)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long v;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ,
	    &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (env == NULL || *env == '\0')
		return 0;
	v = strtol(env, &end, 10);
	return *end == '\0' && v >= 20 && v <= 10000 ? (int)v : 0;
}

/* The run's scorecard from the record (review/scorecard.h), fitted
 * to the terminal's width. */
static void
demo_scorecard(const char *name)
{
	cleanup_free char *db = paths_audit_db(), *cause = NULL;
	cleanup_free char *runs = NULL, *dir = NULL;
	cleanup_strv char **lines = NULL, **fit = NULL;
	struct demo_find f = { .name = name };
	struct audit *a = NULL;
	struct summary s;

	if (audit_open_readonly(db, &a, &cause) < 0) {
		fprintf(stderr, "ward demo: no scorecard: %s\n", cause);
		return;
	}
	if (audit_each_run(a, demo_find_run, &f, &cause) < 0 || f.id == NULL ||
	    summary_from_record(a, f.id, &s, &cause) < 0) {
		fprintf(stderr, "ward demo: no scorecard: %s\n",
		    cause != NULL ? cause : "the run is not in the record");
		free(f.id);
		audit_close(a);
		return;
	}
	runs = paths_runs_dir();
	dir = xasprintf("%s/%s", runs, f.id);
	free(cause);
	cause = NULL;
	(void)summary_count_staged(dir, &s, &cause);
	if (scorecard_lines(a, f.id, &s, &lines, &cause) == 0) {
		fit = scorecard_fit(lines, demo_columns());
		printf("\nScorecard of the demo's run %s\n", f.id);
		for (size_t i = 0; fit[i] != NULL; i++)
			printf("%s\n", fit[i]);
	}
	free(f.id);
	audit_close(a);
}

/* --- the run, inside the world (or without one) ------------------------- */

static int
demo_wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return 125;
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

static int
demo_inside(const struct demo_opts *o, const char *argv0)
{
	const char *dir = getenv("WARD_DEMO_DIR");
	const char *world = getenv("WARD_DEMO_WORLD");
	cleanup_free char *share = paths_share_dir(NULL);
	cleanup_free char *policy = xasprintf("%s/demo/demo.ini", share);
	cleanup_free char *demo = xasprintf("%s/demo", share);
	cleanup_free char *agent = xasprintf("%s/demo/agent.sh", share);
	cleanup_free char *project = NULL, *name = NULL;
	cleanup_free char *e_dir = NULL, *e_world = NULL, *e_home = NULL;
	cleanup_free char *e_pace = NULL, *standin = NULL, *e_standin = NULL;
	pid_t auto_pid = -1, run_pid;
	char *args[32];
	int i = 0, status;

	if (dir == NULL || *dir != '/') {
		fputs("ward demo: WARD_DEMO_DIR is not set\n", stderr);
		return 125;
	}
	project = xasprintf("%s/project", dir);
	standin = xasprintf("%s/home", dir);
	e_standin = xasprintf("WARD_DEMO_STANDIN=%s", standin);
	name = xasprintf("demo-%ld", (long)getpid());
	e_dir = xasprintf("WARD_DEMO_DIR=%s", dir);
	e_world = xasprintf("WARD_DEMO_WORLD=%s", world != NULL &&
	    *world != '\0' ? "yes" : "no");
	e_home = xasprintf("WARD_DEMO_HOME=%s", getenv("HOME") != NULL ?
	    getenv("HOME") : "/root");
	e_pace = xasprintf("WARD_DEMO_STEP_MS=%ld", o->auto_answer ?
	    demo_pace_ms() / 2 : 1000);
	args[i++] = (char *)"run";
	if (o->headless)
		args[i++] = (char *)"--headless";
	if (o->view)
		args[i++] = (char *)"--view";
	args[i++] = (char *)"--policy";
	args[i++] = policy;
	args[i++] = (char *)"--name";
	args[i++] = name;
	args[i++] = (char *)"--in";
	args[i++] = demo;
	args[i++] = (char *)"--in";
	args[i++] = standin;
	args[i++] = (char *)"--project";
	args[i++] = project;
	args[i++] = (char *)"--";
	args[i++] = (char *)"env";
	args[i++] = e_dir;
	args[i++] = e_world;
	args[i++] = e_home;
	args[i++] = e_pace;
	args[i++] = e_standin;
	args[i++] = (char *)"sh";
	args[i++] = agent;
	args[i] = NULL;

	if (o->view && !o->auto_answer)
		fprintf(stderr, "ward demo: this console is view only; answer from "
		    "your own terminal with: ward console %s\n", name);
	if (o->auto_answer) {
		if ((auto_pid = fork()) < 0) {
			fprintf(stderr, "ward demo: fork: %s\n", strerror(errno));
			return 125;
		}
		if (auto_pid == 0)
			demo_auto(name);
	}
	/* Headless, ward run becomes the supervisor: in a child, so that
	 * the scorecard can follow. */
	fflush(NULL);
	if ((run_pid = fork()) < 0) {
		fprintf(stderr, "ward demo: fork: %s\n", strerror(errno));
		return 125;
	}
	if (run_pid == 0)
		_exit(run_main(i, args, argv0));
	status = demo_wait_child(run_pid);
	if (auto_pid > 0) {
		kill(auto_pid, SIGTERM);
		(void)demo_wait_child(auto_pid);
	}
	demo_scorecard(name);
	if (world != NULL && *world != '\0')
		demo_world_card(world);
	else
		puts("\n(No fake outside world on this machine: the network "
		    "steps were skipped.)");
	printf("The record of this run: ward log %s\n"
	    "The agent's staged change to the project: ward diff %s\n",
	    name, name);
	return status;
}

/* The project the agent edits: a copy made for the demo, on the host. */
static int
demo_make_project(const char *dir)
{
	cleanup_free char *project = xasprintf("%s/project", dir);
	cleanup_free char *app = xasprintf("%s/app.py", project);
	FILE *f;

	if (mkdir(project, 0755) < 0)
		return -errno;
	if ((f = fopen(app, "w")) == NULL)
		return -errno;
	fputs("def greet(name):\n"
	    "    return 'Hello ' + name\n"
	    "\n"
	    "\n"
	    "if __name__ == '__main__':\n"
	    "    print(greet('world'))\n", f);
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

/* The demo's stand-in home, for the ~/.ssh step: DIR/home/.ssh with an
 * authorized_keys of its own (one made-up key), modes as ssh wants. */
static int
demo_make_standin(const char *dir)
{
	cleanup_free char *home = xasprintf("%s/home", dir);
	cleanup_free char *ssh = xasprintf("%s/.ssh", home);
	cleanup_free char *keys = xasprintf("%s/authorized_keys", ssh);
	FILE *f;
	int fd;

	if (mkdir(home, 0755) < 0 || mkdir(ssh, 0700) < 0)
		return -errno;
	if ((fd = open(keys, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0)
		return -errno;
	if ((f = fdopen(fd, "w")) == NULL) {
		close(fd);
		return -ENOMEM;
	}
	fputs("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoStandInKeyNotARealOne "
	    "you@ward-demo\n", f);
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

int
demo_main(int argc, char **argv, const char *argv0)
{
	struct demo_opts o = { 0 };
	cleanup_free char *share = NULL, *world_sh = NULL, *world = NULL;
	cleanup_free char *self = NULL, *ready = NULL;
	char dir[] = "/tmp/ward-demo-XXXXXX";
	const char *stage = getenv("WARD_DEMO_STAGE");
	char *args[12];
	pid_t pid;
	int i = 0, r, status;

	switch (demo_args(argc, argv, &o)) {
	case 1:
		break;
	case 0:
		return 0;	/* --help */
	default:
		return DEMO_EXIT_USAGE;
	}
	if (stage != NULL && strcmp(stage, "inside") == 0)
		return demo_inside(&o, argv0);

	if (mkdtemp(dir) == NULL) {
		fprintf(stderr, "ward demo: mkdtemp: %s\n", strerror(errno));
		return 125;
	}
	chmod(dir, 0755);
	if ((r = demo_make_project(dir)) < 0) {
		fprintf(stderr, "ward demo: %s/project: %s\n", dir,
		    strerror(-r));
		return 125;
	}
	if ((r = demo_make_standin(dir)) < 0) {
		fprintf(stderr, "ward demo: %s/home: %s\n", dir, strerror(-r));
		return 125;
	}
	world = xasprintf("%s/world", dir);
	if (mkdir(world, 0755) < 0) {
		fprintf(stderr, "ward demo: %s: %s\n", world, strerror(errno));
		return 125;
	}
	share = paths_share_dir(NULL);
	world_sh = xasprintf("%s/demo/world.sh", share);
	if ((self = paths_self_exe()) == NULL)
		self = xstrdup(argv0);
	setenv("WARD_DEMO_DIR", dir, 1);
	setenv("WARD_DEMO_STAGE", "inside", 1);
	fprintf(stderr, "ward: demo folder %s (the project the agent edits is "
	    "%s/project)\n", dir, dir);

	args[i++] = (char *)"sh";
	args[i++] = world_sh;
	args[i++] = world;
	args[i++] = self;
	args[i++] = (char *)"demo";
	if (o.auto_answer)
		args[i++] = (char *)"--auto";
	if (o.view)
		args[i++] = (char *)"--view";
	if (o.headless)
		args[i++] = (char *)"--headless";
	args[i] = NULL;
	setenv("WARD_DEMO_WORLD", world, 1);
	fflush(NULL);
	if ((pid = fork()) < 0) {
		fprintf(stderr, "ward demo: fork: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		execvp("sh", args);
		_exit(127);
	}
	status = demo_wait_child(pid);
	ready = xasprintf("%s/listen.ready", world);
	if (status != DEMO_NO_WORLD || access(ready, F_OK) == 0)
		return status;
	/* world.sh said why on stderr; the demo goes on without a network. */
	fputs("ward demo: no fake outside world here; the network steps are "
	    "skipped\n", stderr);
	unsetenv("WARD_DEMO_WORLD");
	return demo_inside(&o, argv0);
}
