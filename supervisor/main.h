/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * One run supervised, from the supervisor's command line (argv[0]
 * "ward-supervisor", then `ward-supervisor --help`'s options) to its
 * exit status. The main of two programs: ward-supervisor
 * (supervisor/entry.c), which ward-tui starts for a run with a console,
 * and ward (supervisor/front.c), whose headless run is supervised in
 * the process that ran it, with no exec of another program between
 * (issue 18: on this machine every exec of a glibc program costs 0.7 ms
 * of start-up). Once per process: its state is main.c's.
 */
int	supervisor_main(int argc, char **argv);
