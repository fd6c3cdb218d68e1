/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * `ward run`'s options, parsed one way for the two programs that read
 * them: ward's front (supervisor/front.c), which supervises a headless
 * run itself, and ward-tui's run_main (tui/run.c), which does
 * everything else.
 */
#include <getopt.h>
#include <stdbool.h>

#include "approvals/launch.h"

/*
 * The agent pane (tui/view-agent.h): the program's pty through libvterm
 * (tui/vt.h). AUTO shows it once the program switches to the alternate
 * screen (a full-screen program); `--agent` and `--lines` choose.
 */
enum agent_mode {
	AGENT_AUTO,
	AGENT_ON,
	AGENT_OFF,
};

struct runopts {
	struct launch	 l;	/* the supervisor's argv, options so far */
	bool		 headless;	/* --headless */
	bool		 passthru;	/* --pass-through or --split */
	bool		 split;		/* --split */
	bool		 view;		/* --view */
	enum agent_mode	 agent;	/* --agent, --lines, or AUTO */
	int		 cmd;	/* argv index of CMD (argc: none) */
};

/* The getopt_long table, for `ward completion` (tui/completion.h). */
extern const struct option runopts_options[];

/*
 * Parses `run [OPTIONS] -- CMD...` (argv[0] is "run") into r, which the
 * caller ends with launch_done(&r->l). 0; 'h' for --help; else the
 * getopt code of a bad option (':' a value missing, '?' unknown), with
 * optind just past it for usage_bad_option().
 */
int	runopts_parse(int argc, char **argv, struct runopts *r);
/*
 * Would this run go headless without asking the terminal anything more:
 * --headless, or stdin or stdout not a terminal (and not --pass-through
 * or --split, whose checks are run_main's)? On a terminal run_main may
 * still go headless when the console cannot draw there.
 */
bool	runopts_headless_now(const struct runopts *r);
/*
 * r's argv made the supervisor's for its run, headless: --headless and
 * CMD... (argv[r->cmd] on) after the options.
 */
void	runopts_headless_argv(struct runopts *r, int argc, char **argv);
/*
 * Execs the supervisor for r's run, headless, in the foreground (it
 * becomes this process). Returns only when it could not: said on
 * stderr, r ended, and 125, `ward run`'s status for "ward failed".
 */
int	runopts_exec_headless(struct runopts *r, int argc, char **argv);
