/* SPDX-License-Identifier: MIT */
/* ward oci serve: the runtime's seccomp agent (to be built: issue 34). */
#include <stdio.h>

#include "tui/oci.h"

int
oci_serve_main(int argc, char **argv, const char *argv0)
{
	(void)argc;
	(void)argv;
	(void)argv0;
	fputs("ward oci serve: not built yet\n", stderr);
	return 1;
}
