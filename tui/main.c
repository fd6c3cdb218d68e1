/* SPDX-License-Identifier: MIT */
/* ward: the command line. Dispatches to a verb; each verb parses its own
 * options and returns the exit status. */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/escape.h"
#include "config/util.h"
#include "config/version.h"
#include "probe/probe.h"
#include "tui/agent.h"
#include "tui/cli.h"
#include "tui/completion.h"
#include "tui/console.h"
#include "tui/demo.h"
#include "tui/diffcmd.h"
#include "tui/feed.h"
#include "tui/gc.h"
#include "tui/oci.h"
#include "tui/relay.h"
#include "tui/run.h"
#include "approvals/runopts.h"


static const char ward_help[] =
"Usage: ward [--help] [--version] COMMAND [ARG...]\n"
"\n"
"Run code written by an AI agent in a Linux sandbox and supervise it live:\n"
"writes outside its folders, new network hosts and package installs wait\n"
"for a person to approve or deny them.\n"
"\n"
"Commands:\n"
"  run [OPTIONS] -- CMD [ARG...]  start a supervised run; on a terminal the\n"
"                                 console attaches to it\n"
"  agent NAME [ARG...]           run an agent (claude, codex, gemini, aider)\n"
"                                 under its recipe, this folder its project\n"
"  demo [--auto] [--headless]     a pretend agent meets every surface ward\n"
"                                 guards, in a fake world; a scorecard\n"
"  console [RUN]                  attach the console to a live run\n"
"  pending [--json] [RUN]         list the requests waiting on a person\n"
"  approve RUN ID                 allow one pending request, once\n"
"  deny [--reason TEXT] RUN ID    deny one pending request\n"
"  stage RUN ID                   do one pending write outside on a staged\n"
"                                 copy (ward diff, apply, discard it)\n"
"  kill RUN                       stop a run and everything in it\n"
"  rules [RUN]                    the rules answers \"for this run\" stored;\n"
"  rules revoke RUN N             remove one (asked again next time)\n"
"  log [--json] [--all | RUN]     show the record of decisions\n"
"  events [--follow] [--since TIME] [--run RUN] [--json]\n"
"                                 the record as it grows (JSON Lines)\n"
"  output [--raw] [RUN]           print a run's recorded output, escaped\n"
"  ps [--json]                    list the live runs\n"
"  diff [RUN] [PATH...] [--stat] [--json] [--color=WHEN]\n"
"                                 a run's staged project changes as a patch\n"
"  apply [RUN] [PATH...] [--commit BRANCH]\n"
"                                 put staged changes into the host folder\n"
"                                 (or one commit on a new git branch)\n"
"  discard [RUN] [PATH...]        drop staged changes\n"
"  undo RUN [PATH...]             restore what a run changed on the host\n"
"  relay                          the control protocol on stdin/stdout, for\n"
"                                 'ssh HOST ward relay' (--host HOST)\n"
"  gc [--older-than AGE] [--max-size SIZE] [--dry-run]\n"
"                                 remove old runs' folders and records\n"
"  probe [--json] [--policy FILE] try a battery of hostile actions in\n"
"                                 sandboxes of the policy; report what\n"
"                                 stopped each and whether it is logged\n"
"  oci serve|profile             supervise containers: the seccomp agent\n"
"                                 of runc, Podman and Kubernetes pods\n"
"  completion bash|zsh|fish       a shell completion script\n"
"  help [COMMAND]                 show this help, or a command's\n"
"\n"
"RUN is a run id or the --name given to 'ward run'. 'ward COMMAND --help'\n"
"shows a command's options.\n"
"\n"
"Options:\n"
"  -h, --help     show this help\n"
"      --version  show the version\n"
"\n"
"Exit status: 0 ok, 1 a failure (no such run, already decided ...), 2 usage;\n"
"'ward run' and 'ward demo' return the status of the program they ran, and\n"
"125 when ward itself failed (a usage error too).\n";

static const char *ward_argv0;

static int
ward_run(int argc, char **argv)
{
	return run_main(argc, argv, ward_argv0);
}

static int
ward_agent(int argc, char **argv)
{
	return agent_main(argc, argv, ward_argv0);
}

static int
ward_oci(int argc, char **argv)
{
	return oci_main(argc, argv, ward_argv0);
}

static int
ward_demo(int argc, char **argv)
{
	return demo_main(argc, argv, ward_argv0);
}

/* ward events: this machine's record, or --host's through its relay. */
static int
ward_events(int argc, char **argv)
{
	struct feed_cmd fc;
	bool done;
	int status;

	if ((status = feed_cmd_parse(argc, argv, &fc, &done)) != 0 || done)
		return status;
	return fc.host != NULL ? relay_events_remote(&fc) :
	    feed_cmd_local(&fc);
}

static int
ward_probe(int argc, char **argv)
{
	return probe_main(argc, argv, ward_argv0);
}

static int ward_help_cmd(int, char **);
static int ward_completion(int, char **);

/* The verbs: what main() dispatches to, and what `ward completion`
 * completes (a NULL summary keeps a verb out of it). */
static const struct ward_cmd {
	const char	*name;
	int		(*fn)(int, char **);
	const char	*summary;
	const struct option *opts;
} ward_cmds[] = {
	{ "run", ward_run, "start a supervised run", runopts_options },
	{ "agent", ward_agent, "run an agent under its recipe, here",
	    agent_opts },
	{ "demo", ward_demo, "a pretend agent meets every surface", demo_opts },
	{ "console", console_main, "attach the console to a live run",
	    console_opts_table },
	{ "pending", cli_pending, "list the requests waiting on a person",
	    cli_pending_opts },
	{ "approve", cli_approve, "allow one pending request",
	    cli_approve_opts },
	{ "deny", cli_deny, "deny one pending request", cli_deny_opts },
	{ "stage", cli_stage, "answer a write outside with a staged copy",
	    cli_approve_opts },
	{ "kill", cli_kill, "stop a run and everything in it", cli_kill_opts },
	{ "rules", cli_rules, "list or revoke a run's rules", cli_rules_opts },
	{ "log", cli_log, "show the record of decisions", cli_log_opts },
	{ "events", ward_events, "the record as it grows, JSON Lines",
	    feed_opts },
	{ "relay", relay_main, "the control protocol on stdin/stdout (ssh)",
	    NULL },
	{ "output", cli_output, "print a run's recorded output",
	    cli_output_opts },
	{ "ps", cli_ps, "list the live runs", cli_ps_opts },
	{ "diff", diffcmd_diff, "a run's staged changes as a patch",
	    diffcmd_diff_opts },
	{ "apply", diffcmd_apply, "put staged changes into the host folder",
	    diffcmd_apply_opts },
	{ "discard", diffcmd_discard, "drop staged changes",
	    diffcmd_discard_opts },
	{ "undo", diffcmd_undo, "restore what a run changed on the host",
	    diffcmd_undo_opts },
	{ "gc", gc_main, "remove old runs' folders and records", gc_opts },
	{ "probe", ward_probe, "try a battery of hostile actions", probe_opts },
	{ "oci", ward_oci, "the seccomp agent of runc, Podman, Kubernetes",
	    oci_opts },
	/* Hidden: the program `ward probe` runs inside each sandbox. */
	{ "probe-inside", probe_inside_main, NULL, NULL },
	{ "completion", ward_completion, "a shell completion script", NULL },
	{ "help", ward_help_cmd, "show the help of ward or a command", NULL },
};

static int
ward_completion(int argc, char **argv)
{
	struct completion_verb v[ARRAY_SIZE(ward_cmds)];

	for (size_t i = 0; i < ARRAY_SIZE(ward_cmds); i++) {
		v[i] = (struct completion_verb){ .name = ward_cmds[i].name,
		    .summary = ward_cmds[i].summary,
		    .opts = ward_cmds[i].opts };
	}
	return completion_main(argc, argv, v, ARRAY_SIZE(v));
}

static const struct ward_cmd *
ward_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(ward_cmds); i++) {
		if (strcmp(ward_cmds[i].name, name) == 0)
			return &ward_cmds[i];
	}
	return NULL;
}

static int
ward_unknown(const char *name)
{
	cleanup_free char *e = escape_str(name);

	fprintf(stderr, "ward: unknown command '%s'; see 'ward --help'\n", e);
	return 2;
}

/* ward help [COMMAND]: the same text as COMMAND --help. */
static int
ward_help_cmd(int argc, char **argv)
{
	const struct ward_cmd *cmd;
	char *args[3];

	if (argc < 2) {
		fputs(ward_help, stdout);
		return 0;
	}
	/* `ward help --help`, like every verb's --help, is help. */
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs("usage: ward help [COMMAND]\n"
		    "\n"
		    "Print ward's help, or COMMAND's: the same text as "
		    "'ward COMMAND --help'.\n", stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "ward help: too many arguments; see "
		    "'ward --help'\n");
		return 2;
	}
	if ((cmd = ward_find(argv[1])) == NULL)
		return ward_unknown(argv[1]);
	if (cmd->fn == ward_help_cmd) {
		fputs(ward_help, stdout);
		return 0;
	}
	args[0] = argv[1];
	args[1] = (char *)"--help";
	args[2] = NULL;
	return cmd->fn(2, args);
}

/*
 * Whether stdout is a pipe or socket whose reader has gone. A verb that
 * ignores SIGPIPE (events, for --follow) stops at its first EPIPE, and
 * by the time main checks, errno is another call's: poll says it again.
 */
static bool
ward_reader_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
	struct stat st;

	if (fstat(STDOUT_FILENO, &st) != 0 ||
	    !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return false;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct ward_cmd *cmd;
	int c, werr, status;

	ward_argv0 = argv[0];
	/* Wide characters for the console; messages and numbers stay C. */
	setlocale(LC_CTYPE, "");

	opterr = 0;
	/* '+': stop at the command; its options are its own. */
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(ward_help, stdout);
			return 0;
		case 'V':
			printf("ward %s\n", WARD_VERSION);
			return 0;
		default: {
			cleanup_free char *e = escape_str(argv[optind - 1]);

			fprintf(stderr, "ward: unknown option '%s'; see "
			    "'ward --help'\n", e);
			return 2;
		}
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "ward: no command given; see 'ward --help'\n");
		return 2;
	}
	if ((cmd = ward_find(argv[optind])) == NULL)
		return ward_unknown(argv[optind]);

	status = cmd->fn(argc - optind, argv + optind);

	/* A full disk must not pass for success; a reader that has gone
	 * (`ward events | head -1`) is no error, as for cat or grep. */
	werr = fflush(stdout) != 0 ? errno : 0;
	if ((werr != 0 || ferror(stdout)) && status == 0 &&
	    werr != EPIPE && !ward_reader_gone()) {
		/* errno is the failed write's only when fflush failed now. */
		if (werr != 0)
			fprintf(stderr, "ward: cannot write output: %s\n",
			    strerror(werr));
		else
			fputs("ward: cannot write output\n", stderr);
		status = 1;
	}
	return status;
}
