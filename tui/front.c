/* SPDX-License-Identifier: MIT */
/*
 * ward: the front. A headless `ward run` (asked for, or without a
 * terminal) becomes ward-supervisor here, in one exec; every other
 * command, and a run with a console, is ward-tui's, which this execs
 * with the same argv.
 *
 * The front links libc alone. ward-tui's libraries (curses, libvterm,
 * sqlite, ...) cost an exec about a millisecond to map and relocate
 * (issue 18), which a headless run, the supervisor and nothing else,
 * would pay for nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config/paths.h"
#include "config/util.h"
#include "tui/runopts.h"

int
main(int argc, char **argv)
{
	cleanup_free char *tui = NULL;

	/* Only `ward run ...`, with no option before the verb, and only a
	 * run that parses and is headless whatever the terminal: all the
	 * rest (errors, --help, --pass-through) is ward-tui's to say. */
	if (argc > 1 && strcmp(argv[1], "run") == 0) {
		struct run_req r;

		if (run_parse(argc - 1, argv + 1, &r) == 0 &&
		    r.cmd < argc - 1 && run_headless_now(&r))
			return run_exec_headless(&r, argc - 1, argv + 1);
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
