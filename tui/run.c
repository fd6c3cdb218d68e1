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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approvals/launch.h"
#include "config/escape.h"
#include "config/paths.h"
#include "config/util.h"
#include "tui/console.h"
#include "tui/screen.h"
#include "tui/usage.h"

static void
run_usage(FILE *f)
{
	fputs("usage: ward run [--headless] [--policy FILE] [--name NAME] "
	    "[--in PATH]...\n"
	    "                [--project DIR]... [--timeout SECONDS] [--chdir DIR] [--status-fd FD]\n"
	    "                [--no-landlock] [--agent|--lines] -- CMD [ARG...]\n"
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

const struct option run_opts[] = {
	{ "headless", no_argument, NULL, 'H' },
	{ "policy", required_argument, NULL, 'p' },
	{ "name", required_argument, NULL, 'n' },
	{ "in", required_argument, NULL, 'i' },
	{ "project", required_argument, NULL, 'P' },
	{ "timeout", required_argument, NULL, 't' },
	{ "chdir", required_argument, NULL, 'C' },
	{ "status-fd", required_argument, NULL, 'S' },
	{ "no-landlock", no_argument, NULL, 'L' },
	{ "agent", no_argument, NULL, 'A' },
	{ "lines", no_argument, NULL, 'N' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int
run_main(int argc, char **argv, const char *argv0)
{
	struct launch l;
	enum agent_mode agent = AGENT_AUTO;
	bool headless = false;
	int opt, readyp[2], rc;
	char id[9];
	pid_t pid;

	(void)argv0;
	launch_init(&l);
	optind = 0;	/* full reset: main already ran getopt */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:h", run_opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			headless = true;
			break;
		case 'p': case 'n': case 'i': case 't': case 'C': case 'S':
		case 'P': {
			const char *name = opt == 'p' ? "--policy" :
			    opt == 'n' ? "--name" : opt == 'i' ? "--in" :
			    opt == 'P' ? "--project" :
			    opt == 'C' ? "--chdir" : opt == 'S' ? "--status-fd" :
			    "--timeout";

			launch_opt(&l, name, optarg);
			break;
		}
		case 'L':
			launch_opt(&l, "--no-landlock", NULL);
			break;
		case 'A':
		case 'N':
			agent = opt == 'A' ? AGENT_ON : AGENT_OFF;
			break;
		case 'h':
			run_usage(stdout);
			launch_done(&l);
			return 0;
		default:
			launch_done(&l);
			return run_bad_option("run", argv, opt);
		}
	}
	if (optind >= argc) {
		launch_done(&l);
		return usage_error(RUN_EXIT_USAGE, "run", "no command given");
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		headless = true;
	if (!headless)
		headless = run_no_console();

	if (headless) {
		launch_opt(&l, "--headless", NULL);
		launch_command(&l, argv + optind, (size_t)(argc - optind));
		rc = launch_exec(&l);
		fprintf(stderr, "ward: cannot start %s: %s\n", l.path,
		    strerror(-rc));
		launch_done(&l);
		return 125;
	}

	if (pipe2(readyp, O_CLOEXEC) < 0) {
		fprintf(stderr, "ward: pipe: %s\n", strerror(errno));
		launch_done(&l);
		return 125;
	}
	launch_ready_fd(&l, readyp[1]);
	launch_command(&l, argv + optind, (size_t)(argc - optind));

	if ((pid = fork()) < 0) {
		fprintf(stderr, "ward: fork: %s\n", strerror(errno));
		launch_done(&l);
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
		rc = launch_exec(&l);
		fprintf(stderr, "ward: cannot start %s: %s\n", l.path,
		    strerror(-rc));
		_exit(125);
	}
	close(readyp[1]);
	launch_done(&l);
	/* The first line that is a run id means ready; anything else is
	 * the supervisor telling why it could not start. */
	rc = launch_wait_ready(readyp[0], -1, id, run_on_line, NULL);
	close(readyp[0]);
	waitpid(pid, NULL, 0);
	if (rc < 0)
		return 125;	/* it said why on stderr */
	{
		struct console_opts co = { .run = id, .exit_with_run = true,
		    .agent = agent };

		return console_attach(&co);
	}
}
