/* SPDX-License-Identifier: MIT */
/*
 * ward-supervisor: runs and polices one run, and speaks the control
 * protocol. ward-tui starts it for a run with a console; a headless
 * `ward run` is the same code in ward itself (supervisor/main.h).
 */
#include "supervisor/main.h"

int
main(int argc, char **argv)
{
	return supervisor_main(argc, argv);
}
