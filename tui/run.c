/* SPDX-License-Identifier: MIT */
/*
 * ward run: start ward-supervisor for one run. Headless (asked for, or
 * without a terminal) the supervisor replaces us in the foreground, with
 * the program's output passed through and its status returned. On a
 * terminal it goes to the background in its own session and the console
 * attaches to it.
 */
#include "tui/run.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approvals/launch.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"
#include "tui/console.h"
#include "tui/passthru.h"
#include "approvals/runopts.h"
#include "tui/screen.h"
#include "tui/usage.h"
#include "tui/view.h"

static void
run_usage(FILE *f)
{
	fputs("usage: ward run [--headless] [--policy FILE] [--name NAME] "
	    "[--in PATH]...\n"
	    "                [--project DIR]... [--timeout DURATION] [--chdir DIR] [--status-fd FD]\n"
	    "                [--no-landlock] [--agent|--lines|--pass-through|--split]\n"
	    "                [--view]\n"
	    "                -- CMD [ARG...]\n"
	    "\n"
	    "Run CMD in a sandbox. On a terminal the console opens: the\n"
	    "program's output, and its requests to approve (a), deny (d) or\n"
	    "kill the run (K). With --headless, or without a terminal, the\n"
	    "output passes through and ward exits with the program's status;\n"
	    "requests wait for `ward approve`/`ward deny` until the policy's\n"
	    "ask_timeout, then are denied.\n"
	    "\n"
	    "  --headless        no console; stdout/stderr pass through\n"
	    "  --policy FILE     the policy (default: ward.ini, see ward(1))\n"
	    "  --name NAME       a name for the run, usable instead of its id\n"
	    "  --in PATH         show a host path read-only at the same path\n"
	    "  --project DIR     show DIR at its own path, writable, every\n"
	    "                    write staged in the run (the host folder is\n"
	    "                    untouched); repeatable\n"
	    "  --timeout SECS    wall-clock limit (overrides [run] timeout)\n"
	    "  --chdir DIR       start in DIR: /work (the default), /out, or an\n"
	    "                    --in, writable or project folder (else ward\n"
	    "                    exits 125)\n"
	    "  --status-fd FD    write JSON Lines to FD: each request parked\n"
	    "                    or resolved, the run's start and end (a\n"
	    "                    channel the program cannot write to)\n"
	    "  --no-landlock     run without the Landlock wall (not advised)\n"
	    "  --agent           show the program in the agent pane from the\n"
	    "                    start (keys go to it; Ctrl-] the requests)\n"
	    "  --lines           keep the output lines even when the program\n"
	    "                    goes full-screen (v switches)\n"
	    "  --pass-through    no console: the program has this terminal as\n"
	    "                    it would without ward; answer its requests\n"
	    "                    from 'ward console --lines RUN' elsewhere\n"
	    "  --split           inside tmux: --pass-through here, and that\n"
	    "                    console in a new tmux pane below\n"
	    "  --view            the console here read-only (a shared screen, a\n"
	    "                    projector): answer from 'ward console RUN' in\n"
	    "                    another terminal\n"
	    "\n"
	    "Exit status: the program's; 124 wall-clock limit; 125 ward\n"
	    "failed (a usage error too); 126/127 cannot run / not found;\n"
	    "128+N killed by signal N.\n",
	    f);
}

/*
 * `ward run` and `ward demo` exit with the program's status, so their own
 * usage errors exit 125, ward's "ward itself failed" (as timeout(1),
 * env(1) and nice(1) do), never 2, which the program could have returned.
 */
#define RUN_EXIT_USAGE 125


static int
run_bad_option(const char *verb, char **argv, int opt)
{
	return usage_bad_option(RUN_EXIT_USAGE, verb, argv, opt);
}

/* A word for sh -c: in single quotes. malloc'd. */
static char *
run_sh_quote(const char *s)
{
	size_t n = 2;
	char *q, *o;

	for (const char *c = s; *c != '\0'; c++)
		n += *c == '\'' ? 4 : 1;
	q = o = xmalloc(n + 1);
	*o++ = '\'';
	for (const char *c = s; *c != '\0'; c++) {
		if (*c == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *c;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

/* Runs tmux with argv; its first line of output in out (may be NULL).
 * 0, or -1 when it failed. */
static int
run_tmux(char *const argv[], char *out, size_t len)
{
	int p[2], status;
	ssize_t n = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, STDIN_FILENO);
		dup2(p[1], STDOUT_FILENO);
		execvp("tmux", argv);
		_exit(127);
	}
	close(p[1]);
	if (out != NULL && len > 0) {
		ssize_t k;

		while ((size_t)n < len - 1 &&
		    (k = read(p[0], out + n, len - 1 - (size_t)n)) > 0)
			n += k;
		out[n] = '\0';
		out[strcspn(out, "\r\n")] = '\0';
	}
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	return 0;
}

/*
 * The console's pane: the console's least height below the program when
 * the terminal is tall enough to leave the program rows of its own, else
 * its least width beside it when wide enough, else below all the same.
 */
static void
run_split_shape(const char **argv, size_t *n, char *size, size_t len)
{
	struct winsize ws = { 0 };
	bool side;

	(void)ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
	side = ws.ws_row < VIEW_MIN_H + 10 && ws.ws_col >= VIEW_MIN_W + 40;
	snprintf(size, len, "%d", side ? VIEW_MIN_W : VIEW_MIN_H);
	argv[(*n)++] = side ? "-h" : "-v";
	argv[(*n)++] = "-l";
	argv[(*n)++] = size;
}

/*
 * --split: `ward console --lines RUN` in a new tmux pane below this one
 * (which keeps the focus and the program). The console's own variables
 * go with it: a tmux server started elsewhere has its own. The new
 * pane's id in pane, "" when tmux would not.
 */
static void
run_split(const char *id, char *pane, size_t len)
{
	static const char *const vars[] = {
		"HOME", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME",
		"WARD_PREFIX", "WARD_SHARE", "NO_COLOR", "LANG", "LC_ALL",
	};
	cleanup_free char *self = paths_self_exe();
	cleanup_free char *qself = run_sh_quote(self != NULL ? self : "ward");
	cleanup_free char *cmd = xasprintf("exec %s console --lines %s",
	    qself, id);
	char *env[ARRAY_SIZE(vars)];
	const char *argv[16 + 2 * ARRAY_SIZE(vars)];
	const char *target = getenv("TMUX_PANE");
	size_t n = 0, k = 0;
	char size[16];

	argv[n++] = "tmux";
	argv[n++] = "split-window";
	argv[n++] = "-d";
	run_split_shape(argv, &n, size, sizeof size);
	argv[n++] = "-P";
	argv[n++] = "-F";
	argv[n++] = "#{pane_id}";
	if (target != NULL && *target != '\0') {
		argv[n++] = "-t";
		argv[n++] = target;
	}
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);

		if (v == NULL)
			continue;
		env[k] = xasprintf("%s=%s", vars[i], v);
		argv[n++] = "-e";
		argv[n++] = env[k++];
	}
	argv[n++] = cmd;
	argv[n] = NULL;
	if (run_tmux((char *const *)argv, pane, len) < 0 || *pane != '%') {
		*pane = '\0';
		fprintf(stderr, "ward: tmux would not split the window; answer "
		    "with 'ward console --lines %s' elsewhere\n", id);
	}
	for (size_t i = 0; i < k; i++)
		free(env[i]);
}

/* The run is over: its console's pane goes with it. */
static void
run_split_close(const char *pane)
{
	const char *argv[] = { "tmux", "kill-pane", "-t", pane, NULL };

	if (*pane != '\0')
		(void)run_tmux((char *const *)argv, NULL, 0);
}

/* The program has this terminal (--pass-through; --split opens the
 * console beside it first). */
static int
run_pass_through(const char *id, bool split)
{
	char pane[64] = "";
	int status;

	if (split)
		run_split(id, pane, sizeof pane);
	status = passthru_run(id);
	run_split_close(pane);
	return status;
}

/* What the supervisor says before it is ready: why it cannot start. */
static void
run_on_line(const char *line, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

/* A terminal the console cannot draw on: said, and the run goes headless
 * (never a run started for a console that is not there). */
static bool
run_no_console(void)
{
	cleanup_free char *why = NULL;

	if (screen_check(&why) == 0)
		return false;
	fprintf(stderr, "ward: %s: no console, running headless (answer "
	    "requests with 'ward approve' or 'ward deny'; the console works "
	    "with e.g. TERM=xterm-256color)\n", why);
	return true;
}

/*
 * --pass-through and --split, checked before a run starts: 0, or the exit
 * status of a usage error (said). Pass-through is never chosen for the
 * person: with stdout redirected (`ward run -- cmd > log`, `| less`) the
 * terminal belongs to the shell or the pager, and the output file must
 * stay the program's plain stdout, so such runs stay headless; a program
 * that needs the terminal is run with --pass-through on purpose.
 */
static int
run_check_pass_through(bool passthru, bool split, bool headless)
{
	const char *tmux = getenv("TMUX");

	if (!passthru)
		return 0;
	if (headless)
		return usage_error(RUN_EXIT_USAGE, "run", "%s and --headless "
		    "cannot go together", split ? "--split" : "--pass-through");
	if (split && (tmux == NULL || *tmux == '\0'))
		return usage_error(RUN_EXIT_USAGE, "run", "--split opens the "
		    "console in a tmux pane, and this is not inside tmux (TMUX "
		    "is not set); use --pass-through and 'ward console --lines "
		    "RUN' in another terminal");
	if (!isatty(STDIN_FILENO))
		return usage_error(RUN_EXIT_USAGE, "run", "%s gives the program "
		    "this terminal, and stdin is not one", split ? "--split" :
		    "--pass-through");
	return 0;
}

int
run_main(int argc, char **argv, const char *argv0)
{
	struct runopts r;
	int readyp[2], rc;
	char id[9];
	pid_t pid;

	(void)argv0;
	switch ((rc = runopts_parse(argc, argv, &r))) {
	case 0:
		break;
	case 'h':
		run_usage(stdout);
		launch_done(&r.l);
		return 0;
	default:
		launch_done(&r.l);
		return run_bad_option("run", argv, rc);
	}
	if (r.cmd >= argc) {
		launch_done(&r.l);
		return usage_error(RUN_EXIT_USAGE, "run", "no command given");
	}
	if ((rc = run_check_pass_through(r.passthru, r.split,
	    r.headless)) != 0) {
		launch_done(&r.l);
		return rc;
	}
	if (runopts_headless_now(&r) || (!r.passthru && run_no_console()))
		return runopts_exec_headless(&r, argc, argv);

	if (pipe2(readyp, O_CLOEXEC) < 0) {
		fprintf(stderr, "ward: pipe: %s\n", strerror(errno));
		launch_done(&r.l);
		return 125;
	}
	launch_ready_fd(&r.l, readyp[1]);
	launch_command(&r.l, argv + r.cmd, (size_t)(argc - r.cmd));

	if ((pid = fork()) < 0) {
		fprintf(stderr, "ward: fork: %s\n", strerror(errno));
		launch_done(&r.l);
		return 125;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		/* Its own session: the terminal's ^C and hang-up reach the
		 * console, never the supervisor, which outlives a detach.
		 * Forked twice, so that it is not our child: nobody would
		 * reap it while the console waits. Its stderr comes to us
		 * until it is ready. */
		setsid();
		if ((pid = fork()) != 0)
			_exit(pid < 0 ? 125 : 0);
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(readyp[1], STDERR_FILENO);
		fcntl(readyp[1], F_SETFD, 0);
		_exit(launch_exec_or_say(&r.l));
	}
	close(readyp[1]);
	launch_done(&r.l);
	/* The first line that is a run id means ready; anything else is
	 * the supervisor telling why it could not start. */
	rc = launch_wait_ready(readyp[0], -1, id, run_on_line, NULL);
	close(readyp[0]);
	waitpid(pid, NULL, 0);
	if (rc < 0)
		return 125;	/* it said why on stderr */
	if (r.passthru)
		return run_pass_through(id, r.split);
	{
		struct console_opts co = { .run = id, .exit_with_run = true,
		    .agent = r.agent, .view = r.view };

		return console_attach(&co);
	}
}
