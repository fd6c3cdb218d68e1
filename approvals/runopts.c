/* SPDX-License-Identifier: MIT */
/*
 * `ward run`'s options: the table and the one parse that ward's front
 * (supervisor/front.c) and ward-tui share.
 */
#include "approvals/runopts.h"

#include <stdio.h>
#include <unistd.h>

const struct option runopts_options[] = {
	{ "headless", no_argument, NULL, 'H' },
	LAUNCH_SUP_OPTIONS,
	{ "agent", no_argument, NULL, 'A' },
	{ "lines", no_argument, NULL, 'N' },
	{ "pass-through", no_argument, NULL, 'T' },
	{ "split", no_argument, NULL, 'X' },
	{ "view", no_argument, NULL, 'W' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The option that goes to the supervisor as it is, or NULL. */
static const struct option *
run_sup_opt(int opt)
{
	static const struct option sup[] = { LAUNCH_SUP_OPTIONS };

	for (size_t i = 0; i < sizeof sup / sizeof sup[0]; i++)
		if (sup[i].val == opt)
			return &sup[i];
	return NULL;
}

int
runopts_parse(int argc, char **argv, struct runopts *r)
{
	int opt;

	*r = (struct runopts){ .agent = AGENT_AUTO };
	launch_init(&r->l);
	optind = 0;	/* full reset: main already ran getopt */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:h", runopts_options,
	    NULL)) != -1) {
		const struct option *o = run_sup_opt(opt);

		if (o != NULL) {
			char name[32];

			snprintf(name, sizeof name, "--%s", o->name);
			launch_opt(&r->l, name, o->has_arg ? optarg : NULL);
			continue;
		}
		switch (opt) {
		case 'H':
			r->headless = true;
			break;
		case 'A':
		case 'N':
			r->agent = opt == 'A' ? AGENT_ON : AGENT_OFF;
			break;
		case 'T':
		case 'X':
			r->passthru = true;
			r->split |= opt == 'X';
			break;
		case 'W':
			r->view = true;
			break;
		default:	/* 'h', ':' or '?' */
			return opt;
		}
	}
	r->cmd = optind;
	return 0;
}

bool
runopts_headless_now(const struct runopts *r)
{
	if (r->passthru)
		return false;
	return r->headless || !isatty(STDIN_FILENO) ||
	    !isatty(STDOUT_FILENO);
}

void
runopts_headless_argv(struct runopts *r, int argc, char **argv)
{
	launch_opt(&r->l, "--headless", NULL);
	launch_command(&r->l, argv + r->cmd, (size_t)(argc - r->cmd));
}

int
runopts_exec_headless(struct runopts *r, int argc, char **argv)
{
	int rc;

	runopts_headless_argv(r, argc, argv);
	rc = launch_exec_or_say(&r->l);
	launch_done(&r->l);
	return rc;
}
