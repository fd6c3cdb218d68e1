/* SPDX-License-Identifier: MIT */
/* ward oci: the dispatch to `serve` and `profile` (tui/oci.h). */
#include "tui/oci.h"

#include <stdio.h>
#include <string.h>


static const char oci_help[] =
"Usage: ward oci serve [--socket PATH] [--policy FILE]\n"
"       ward oci profile [--socket PATH] [--policy NAME]\n"
"\n"
"ward as the seccomp agent of an OCI runtime (runc, crun, Podman,\n"
"Kubernetes through containerd): the runtime hands each container's\n"
"seccomp notification fd to 'ward oci serve', and the container is a run\n"
"like any other: its writes outside, connections and installs wait in\n"
"'ward console', 'ward pending', 'ward approve' and 'ward deny'.\n"
"\n"
"  serve    listen on the socket and supervise each container that\n"
"           connects (one ward-supervisor per container)\n"
"  profile  print the seccomp profile (JSON) that names the socket:\n"
"           give it to podman --security-opt seccomp=FILE, put it in a\n"
"           runc config.json, or in the kubelet's seccomp folder\n"
"\n"
"See ward(1), CONTAINERS.\n";

const struct option oci_opts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "policy", required_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int
oci_main(int argc, char **argv, const char *argv0)
{
	if (argc < 2) {
		fputs(oci_help, stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(oci_help, stdout);
		return 0;
	}
	if (strcmp(argv[1], "serve") == 0)
		return oci_serve_main(argc - 1, argv + 1, argv0);
	if (strcmp(argv[1], "profile") == 0)
		return oci_profile_main(argc - 1, argv + 1);
	fprintf(stderr, "ward oci: unknown subcommand '%s'; see 'ward oci "
	    "--help'\n", argv[1]);
	return 2;
}
