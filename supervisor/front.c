/* SPDX-License-Identifier: MIT */
/*
 * ward: the front. A headless `ward run` (asked for, or without a
 * terminal) is supervised here, in this process (supervisor/main.h);
 * every other command, and a run with a console, is ward-tui's, which
 * this execs with the same argv.
 *
 * Why the front is the supervisor and not a program that execs it: on
 * this 2-vCPU VM every exec of a glibc program costs 0.7 ms before its
 * main (the loader's CPU probe, a hypervisor exit per cpuid), and a
 * headless run paid it twice, ward's and ward-supervisor's. The front
 * links the supervisor's libraries (sqlite, jansson, inih, ...), never
 * ward-tui's (curses, libvterm, libgit2, libnotify): a command of
 * ward-tui's maps them for nothing, about 0.3 ms, on its way there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "approvals/runopts.h"
#include "config/paths.h"
#include "config/util.h"
#include "supervisor/main.h"

int
main(int argc, char **argv)
{
	cleanup_free char *tui = NULL;

	/* Only `ward run ...`, with no option before the verb, and only a
	 * run that parses and is headless whatever the terminal: all the
	 * rest (errors, --help, --pass-through) is ward-tui's to say. */
	if (argc > 1 && strcmp(argv[1], "run") == 0) {
		struct runopts r;

		if (runopts_parse(argc - 1, argv + 1, &r) == 0 &&
		    r.cmd < argc - 1 && runopts_headless_now(&r)) {
			int rc;

			runopts_headless_argv(&r, argc - 1, argv + 1);
			rc = supervisor_main((int)r.l.argc, r.l.argv);
			launch_done(&r.l);
			return rc;
		}
		launch_done(&r.l);
	}
	tui = paths_helper("ward-tui");
	/* Ours only: never one found on PATH. */
	if (strchr(tui, '/') != NULL)
		execv(tui, argv);
	else
		errno = ENOENT;
	fprintf(stderr, "ward: cannot start %s: %s (ward looks for it beside "
	    "itself, in ../libexec/ward, and in %s/ward)\n", tui,
	    strerror(errno), paths_libexec_dir());
	return 125;
}
