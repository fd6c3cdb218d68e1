/* SPDX-License-Identifier: MIT */
/*
 * `ward run`'s options: the table and the one parse that ward's front
 * and ward-tui share.
 */
#include "tui/runopts.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
	{ "pass-through", no_argument, NULL, 'T' },
	{ "split", no_argument, NULL, 'X' },
	{ "view", no_argument, NULL, 'W' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The supervisor's name for an option that goes to it as it is. */
static const char *
run_sup_opt(int opt)
{
	switch (opt) {
	case 'p': return "--policy";
	case 'n': return "--name";
	case 'i': return "--in";
	case 'P': return "--project";
	case 't': return "--timeout";
	case 'C': return "--chdir";
	case 'S': return "--status-fd";
	case 'L': return "--no-landlock";
	default: return NULL;
	}
}

int
run_parse(int argc, char **argv, struct run_req *r)
{
	int opt;

	*r = (struct run_req){ .agent = AGENT_AUTO };
	launch_init(&r->l);
	optind = 0;	/* full reset: main already ran getopt */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:h", run_opts, NULL)) != -1) {
		const char *name = run_sup_opt(opt);

		if (name != NULL) {
			launch_opt(&r->l, name, opt == 'L' ? NULL : optarg);
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
run_headless_now(const struct run_req *r)
{
	if (r->passthru)
		return false;
	return r->headless || !isatty(STDIN_FILENO) ||
	    !isatty(STDOUT_FILENO);
}

int
run_exec_headless(struct run_req *r, int argc, char **argv)
{
	int rc;

	launch_opt(&r->l, "--headless", NULL);
	launch_command(&r->l, argv + r->cmd, (size_t)(argc - r->cmd));
	rc = launch_exec(&r->l);
	fprintf(stderr, "ward: cannot start %s: %s\n", r->l.path,
	    strerror(-rc));
	launch_done(&r->l);
	return 125;
}
