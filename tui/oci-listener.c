/* SPDX-License-Identifier: MIT */
/*
 * What both ends of the runtime's listener name, apart from the dispatch
 * (oci.c), so that profile and serve call down into it: the default
 * socket and a policy's name as listenerMetadata carries it.
 */
#include "tui/oci.h"

#include <string.h>
#include <unistd.h>

#include "approvals/ocistate.h"
#include "config/paths.h"
#include "config/util.h"

char *
oci_default_socket(void)
{
	cleanup_free char *dir = NULL, *cause = NULL;

	if (getuid() == 0)
		return xstrdup("/run/ward/oci.sock");
	if (paths_runtime_dir(&dir, &cause) < 0)
		return xstrdup("/run/ward/oci.sock");
	return xasprintf("%s/oci.sock", dir);
}

bool
oci_policy_name_valid(const char *name)
{
	/* What serve accepts in the metadata is what profile writes. */
	return ocistate_policy_name_valid(name);
}
