/* SPDX-License-Identifier: MIT */
#include "tui/console.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "approvals/ctl.h"
#include "config/escape.h"
#include "config/util.h"
#include "tui/console-int.h"
#include "tui/hosts.h"

/* ward console's command line: one run (tui/console.c) or every run
 * (tui/console-fleet.c). */

static const char console_usage[] =
"Usage: ward console [--agent|--lines] [--view] [RUN]\n"
"       ward console [--agent|--lines] [--host HOST]... [--hosts]\n"
"\n"
"Attach to a live run: its output, the requests waiting on a person, and\n"
"its state. Without RUN, every live run of yours in one console: a runs\n"
"pane (by start time, then name), one queue of requests across the\n"
"runs, oldest first, each marked with its run; [ ] or 1-9 switch runs\n"
"(the output, the events and the diff follow), x dismisses an ended run,\n"
"C every ended run (y/n), and runs that start later join. A RUN that\n"
"has ended opens read-only from the record: its output, events, summary\n"
"and diff (the answer keys only say it is read-only).\n"
"\n"
"Keys: a allow once (only after the request has been on screen for half a\n"
"second), d deny, Enter show the whole request (it never approves),\n"
"K kill the run (asks y/n), Tab switch pane, j/k move, / filter the\n"
"events (kind, verdict, how, subject text; Esc clears), ? help, q leave.\n"
"Leaving does not stop the run; attach again with 'ward console RUN'.\n"
"\n"
"The agent pane: a full-screen program (one that switches to the\n"
"alternate screen) is shown as it draws itself, and keys go to it\n"
"(Ctrl-C and Ctrl-Z too, as in its own terminal); the\n"
"prefix key (Ctrl-], or WARD_PREFIX, e.g. WARD_PREFIX=C-a) moves them to\n"
"the requests, where a d Enter K work; Esc or the prefix goes back, and\n"
"the prefix twice sends it to the program. v switches agent pane and\n"
"output lines, z zooms the pane or the requests. The prefix is also set\n"
"by [console] prefix in the run's policy or in ~/.config/ward/ward.ini\n"
"(WARD_PREFIX wins).\n"
"\n"
"For a run started with 'ward run --pass-through', attach with --lines:\n"
"the program keeps its own terminal's size.\n"
"\n"
"Options:\n"
"  --agent     show the agent pane from the start\n"
"  --lines     never switch to the agent pane by itself\n"
"  --view      read-only: no answer keys, nothing typed into the program;\n"
"              the supervisor refuses this console's answers and kills\n"
"  --host HOST every run of HOST too (again for more hosts), through\n"
"              'ssh -T HOST ward relay' ($WARD_SSH); each row names its\n"
"              host, a broken link reads \"host gone\" and is tried again\n"
"              (1 s doubling to 30 s); it allows nothing meanwhile\n"
"  --hosts     the hosts listed in $XDG_CONFIG_HOME/ward/hosts (one a\n"
"              line, '#' comments); without --host or --hosts: this\n"
"              machine's runs only\n"
"  -h, --help  show this help\n"
"\n"
"q with requests waiting asks first (y leaves; they wait for another\n"
"console, then are denied).\n"
"\n"
"Exit status: 0 after q, 1 when the run's supervisor went away or there is\n"
"no such run (or, without RUN, no live run), 2 usage.\n";

const struct option console_opts_table[] = {
	{ "view", no_argument, NULL, 'V' },
	{ "agent", no_argument, NULL, 'A' },
	{ "lines", no_argument, NULL, 'L' },
	{ "host", required_argument, NULL, 'H' },
	{ "hosts", no_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int
console_main(int argc, char **argv)
{
	struct console_opts opts = { 0 };
	cleanup_strv char **ids = NULL, **hosts = NULL;
	size_t n = 0, n_hosts = 0;
	bool from_file = false;
	int i, e, c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", console_opts_table,
	    NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(console_usage, stdout);
			return 0;
		case 'V':
			opts.view = true;
			break;
		case 'A':
			opts.agent = AGENT_ON;
			break;
		case 'L':
			opts.agent = AGENT_OFF;
			break;
		case 'H': {
			cleanup_free char *cause = NULL, *esc = NULL;

			if (hosts_add(optarg, &hosts, &n_hosts, &cause) == 0)
				break;
			esc = escape_str(cause);
			fprintf(stderr, "ward console: --host: %s\n", esc);
			return 2;
		}
		case 'F':
			from_file = true;
			break;
		default: {
			cleanup_free char *esc = escape_str(argv[optind - 1]);

			fprintf(stderr, "ward console: unknown option '%s'; "
			    "see 'ward console --help'\n", esc);
			return 2;
		}
		}
	}
	i = optind;
	for (; i < argc; i++) {
		if (opts.run != NULL) {
			fprintf(stderr, "ward console: one run at a time; see "
			    "'ward console --help'\n");
			return 2;
		}
		opts.run = argv[i];
	}
	if (from_file) {
		cleanup_free char *cause = NULL, *esc = NULL;

		if (hosts_load(NULL, &hosts, &n_hosts, &cause) < 0) {
			esc = escape_str(cause);
			fprintf(stderr, "ward console: %s\n", esc);
			return 1;
		}
		if (n_hosts == 0) {
			fprintf(stderr, "ward console: --hosts: no host in "
			    "$XDG_CONFIG_HOME/ward/hosts (one a line)\n");
			return 1;
		}
	}
	if (n_hosts > 0 && opts.run != NULL) {
		fprintf(stderr, "ward console: --host shows every run; it "
		    "takes no RUN\n");
		return 2;
	}
	opts.hosts = hosts;
	opts.n_hosts = n_hosts;
	if (opts.run == NULL) {
		if ((e = ctl_list(&ids, &n)) < 0) {
			fprintf(stderr, "ward console: cannot list runs: %s\n",
			    strerror(-e));
			return 1;
		}
		if (n == 0 && n_hosts == 0) {
			fprintf(stderr, "ward console: no live runs\n");
			return 1;
		}
		return console_every(&opts, ids, n);
	}
	return console_attach(&opts);
}
