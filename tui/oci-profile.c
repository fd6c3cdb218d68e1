/* SPDX-License-Identifier: MIT */
/* ward oci profile: the OCI seccomp profile (to be built: issue 34). */
#include <stdio.h>

#include "tui/oci.h"

int
oci_profile_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("ward oci profile: not built yet\n", stderr);
	return 1;
}
