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
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/util.h"
#include "tui/console.h"

static void
run_usage(FILE *f)
{
	fputs("usage: ward run [--headless] [--policy FILE] [--name NAME] "
	    "[--in PATH]...\n"
	    "                [--timeout SECONDS] [--no-landlock] -- CMD "
	    "[ARG...]\n"
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
	    "  --timeout SECS    wall-clock limit (overrides [run] timeout)\n"
	    "  --no-landlock     run without the Landlock wall (not advised)\n"
	    "\n"
	    "Exit status: the program's; 124 wall-clock limit; 125 ward\n"
	    "failed; 126/127 cannot run / not found; 128+N killed by signal N.\n",
	    f);
}

/* ward-supervisor beside our own executable, else on PATH. */
static char *
supervisor_path(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n > 0) {
		char *slash, *p;

		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			p = xasprintf("%s/ward-supervisor", self);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return xstrdup("ward-supervisor");
}

int
run_main(int argc, char **argv, const char *argv0)
{
	static const struct option opts[] = {
		{ "headless", no_argument, NULL, 'H' },
		{ "policy", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },
		{ "in", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 't' },
		{ "no-landlock", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cleanup_free char *sup = supervisor_path();
	char **args = NULL;
	size_t n = 0;
	bool headless = false;
	int opt, readyp[2];
	pid_t pid;

	(void)argv0;
	strv_push(&args, &n, xstrdup("ward-supervisor"));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			headless = true;
			break;
		case 'p': case 'n': case 'i': case 't': {
			const char *name = opt == 'p' ? "--policy" :
			    opt == 'n' ? "--name" : opt == 'i' ? "--in" :
			    "--timeout";

			strv_push(&args, &n, xstrdup(name));
			strv_push(&args, &n, xstrdup(optarg));
			break;
		}
		case 'L':
			strv_push(&args, &n, xstrdup("--no-landlock"));
			break;
		case 'h':
			run_usage(stdout);
			strv_free(args);
			return 0;
		default:
			fputs("ward run: see `ward run --help`\n", stderr);
			strv_free(args);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs("ward run: no command given; see `ward run --help`\n",
		    stderr);
		strv_free(args);
		return 2;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		headless = true;

	if (headless) {
		strv_push(&args, &n, xstrdup("--headless"));
		strv_push(&args, &n, xstrdup("--"));
		for (int i = optind; i < argc; i++)
			strv_push(&args, &n, xstrdup(argv[i]));
		execv(sup, args);
		execvp(sup, args);
		fprintf(stderr, "ward: cannot start %s: %s\n", sup,
		    strerror(errno));
		return 125;
	}

	if (pipe2(readyp, O_CLOEXEC) < 0) {
		fprintf(stderr, "ward: pipe: %s\n", strerror(errno));
		return 125;
	}
	strv_push(&args, &n, xstrdup("--ready-fd"));
	strv_push(&args, &n, xasprintf("%d", readyp[1]));
	strv_push(&args, &n, xstrdup("--"));
	for (int i = optind; i < argc; i++)
		strv_push(&args, &n, xstrdup(argv[i]));

	if ((pid = fork()) < 0) {
		fprintf(stderr, "ward: fork: %s\n", strerror(errno));
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
		execv(sup, args);
		execvp(sup, args);
		fprintf(stderr, "ward: cannot start %s: %s\n", sup,
		    strerror(errno));
		_exit(125);
	}
	close(readyp[1]);
	strv_free(args);
	{
		char buf[4096], id[16] = "";
		size_t len = 0;
		ssize_t r;

		/* The first line that is a run id means ready; anything
		 * else is the supervisor telling why it could not start. */
		while (len < sizeof buf - 1 &&
		    (r = read(readyp[0], buf + len, sizeof buf - 1 - len)) > 0) {
			char *nl;

			len += (size_t)r;
			buf[len] = '\0';
			for (char *line = buf; (nl = strchr(line, '\n')) != NULL;
			    line = nl + 1) {
				*nl = '\0';
				if (strlen(line) == 8 && strspn(line,
				    "0123456789abcdef") == 8) {
					snprintf(id, sizeof id, "%.8s", line);
					break;
				}
				fprintf(stderr, "%s\n", line);
				*nl = '\n';
			}
			if (id[0] != '\0')
				break;
			if ((nl = strrchr(buf, '\n')) != NULL) {
				len -= (size_t)(nl + 1 - buf);
				memmove(buf, nl + 1, len);
			}
		}
		close(readyp[0]);
		waitpid(pid, NULL, 0);
		if (id[0] == '\0')
			return 125;	/* it said why on stderr */
		{
			struct console_opts co = { .run = id,
			    .exit_with_run = true };

			return console_attach(&co);
		}
	}
}

/* The folder holding share/ files: beside the binary in a build tree,
 * else PREFIX/share/ward. */
static char *
share_dir(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *slash, *p;

	if (getenv("WARD_SHARE") != NULL)
		return xstrdup(getenv("WARD_SHARE"));
	if (n <= 0)
		return xstrdup("/usr/local/share/ward");
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	p = xasprintf("%s/share/demo/agent.sh", self);
	if (access(p, R_OK) == 0) {
		free(p);
		return xasprintf("%s/share", self);
	}
	free(p);
	return xasprintf("%s/../share/ward", self);
}

int
run_demo(int argc, char **argv, const char *argv0)
{
	cleanup_free char *share = share_dir();
	cleanup_free char *policy = xasprintf("%s/demo/demo.ini", share);
	cleanup_free char *demo = xasprintf("%s/demo", share);
	cleanup_free char *agent = xasprintf("%s/demo/agent.sh", share);
	char dir[] = "/tmp/ward-demo-XXXXXX";
	cleanup_free char *notes = NULL, *env = NULL;
	char *args[16];
	int i = 0;
	FILE *f;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		puts("usage: ward demo [--headless]\n\n"
		    "Runs share/demo/agent.sh, a pretend agent, in the sandbox "
		    "with the console:\nit works in /work and /out freely, then "
		    "asks to change a file in a\nfresh /tmp/ward-demo-* folder "
		    "and to write into /etc.\nApprove with a, deny with d, "
		    "kill with K, leave with q.");
		return 0;
	}
	if (mkdtemp(dir) == NULL) {
		fprintf(stderr, "ward: mkdtemp: %s\n", strerror(errno));
		return 125;
	}
	notes = xasprintf("%s/notes.txt", dir);
	if ((f = fopen(notes, "w")) != NULL) {
		fputs("notes kept on the host\n", f);
		fclose(f);
	}
	chmod(dir, 0755);
	env = xasprintf("WARD_DEMO_DIR=%s", dir);
	args[i++] = (char *)"run";
	if (argc > 1 && strcmp(argv[1], "--headless") == 0)
		args[i++] = (char *)"--headless";
	args[i++] = (char *)"--policy";
	args[i++] = policy;
	args[i++] = (char *)"--name";
	args[i++] = (char *)"demo";
	args[i++] = (char *)"--in";
	args[i++] = demo;
	args[i++] = (char *)"--in";
	args[i++] = dir;
	args[i++] = (char *)"--";
	args[i++] = (char *)"env";
	args[i++] = env;
	args[i++] = (char *)"sh";
	args[i++] = agent;
	args[i] = NULL;
	fprintf(stderr, "ward: demo folder %s (notes.txt lives there)\n", dir);
	return run_main(i, args, argv0);
}
