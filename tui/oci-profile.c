/* SPDX-License-Identifier: MIT */
/*
 * ward oci profile: the OCI seccomp profile of ward's own rules. filter-gen
 * wrote it at build time from supervisor/filter.c (oci-profile.h, the
 * profile without the listener); here it is parsed and completed with the
 * listener's fields, never pasted together from the person's strings.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "config/escape.h"
#include "config/util.h"
#include "tui/oci.h"
#include "tui/usage.h"

#include "oci-profile.h"

static const char oci_profile_help[] =
"Usage: ward oci profile [--socket PATH] [--policy NAME]\n"
"\n"
"Print the seccomp profile (JSON, the runtime-spec's linux.seccomp) that\n"
"hands a container's calls to 'ward oci serve': the calls ward's own\n"
"filter traps (writes, execs, connects, binds, the refused ones) notify\n"
"the listener; every other call is allowed. Give it to podman\n"
"--security-opt seccomp=FILE, or put it in a runc bundle's config.json\n"
"as linux.seccomp.\n"
"\n"
"Options:\n"
"  -s, --socket PATH  the listener 'ward oci serve' listens on, an\n"
"                     absolute path (default: /run/ward/oci.sock as root,\n"
"                     else $XDG_RUNTIME_DIR/ward/oci.sock)\n"
"  -p, --policy NAME  the containers' policy: 'ward oci serve' reads\n"
"                     oci/NAME.ini in ward's config folder (NAME: letters,\n"
"                     digits, '.', '_', '-', at most 64, no leading dot)\n"
"  -h, --help         show this help\n"
"\n"
"The profile names x86_64 alone. ward's own sandbox traps calls of the\n"
"other ABIs (int 0x80, x32), which would pass by every rule; a profile\n"
"cannot say that, so those calls get the runtime's action for an\n"
"architecture the filter lacks (runc: the thread is killed, SIGSYS).\n"
"A runtime drops the rules of calls its libseccomp cannot name (runc\n"
"1.1.5 with libseccomp 2.5.4: setxattrat, removexattrat, open_tree_attr,\n"
"file_setattr): those calls then run untrapped in the container.\n"
"If 'ward oci serve' is not listening, the runtime cannot start the\n"
"container.\n"
"Exit status: 0 ok, 1 the profile could not be written, 2 usage.\n";

static const struct option oci_profile_opts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "policy", required_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

char *
oci_profile_json(const char *socket, const char *policy, char **cause)
{
	cleanup_free char *dflt = NULL, *meta = NULL, *text = NULL;
	json_t *base, *p, *syscalls;
	json_error_t jerr;

	if (socket == NULL)
		socket = dflt = oci_default_socket();
	if (socket[0] != '/') {
		cleanup_free char *e = escape_str(socket);

		*cause = xasprintf("--socket: '%s' is not an absolute path", e);
		return NULL;
	}
	if (strlen(socket) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		*cause = xasprintf("--socket: the path is longer than a unix "
		    "socket's %zu bytes",
		    sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		return NULL;
	}
	if (policy != NULL && !oci_policy_name_valid(policy)) {
		cleanup_free char *e = escape_str(policy);

		*cause = xasprintf("--policy: '%s' is not a policy name "
		    "(letters, digits, '.', '_', '-', at most 64, no leading "
		    "dot)", e);
		return NULL;
	}
	if ((base = json_loads(oci_profile_base, 0, &jerr)) == NULL)
		fatal("the built-in OCI profile does not parse: %s", jerr.text);
	syscalls = json_object_get(base, "syscalls");
	/* The listener's fields before the long array, for a reader. */
	p = json_pack("{s:O,s:O,s:s}",
	    "defaultAction", json_object_get(base, "defaultAction"),
	    "architectures", json_object_get(base, "architectures"),
	    "listenerPath", socket);
	if (p == NULL || syscalls == NULL)
		fatal("the built-in OCI profile lacks its fields");
	if (policy != NULL) {
		meta = xasprintf("policy=%s", policy);
		json_object_set_new(p, "listenerMetadata", json_string(meta));
	}
	json_object_set(p, "syscalls", syscalls);
	json_decref(base);
	if ((text = json_dumps(p, JSON_INDENT(2))) == NULL)
		fatal("the OCI profile could not be written");
	json_decref(p);
	return xasprintf("%s\n", text);
}

int
oci_profile_main(int argc, char **argv)
{
	cleanup_free char *json = NULL, *cause = NULL;
	const char *socket = NULL, *policy = NULL;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:p:h", oci_profile_opts,
	    NULL)) != -1) {
		cleanup_free char *e = escape_str(argv[optind - 1]);

		switch (c) {
		case 's':
			socket = optarg;
			break;
		case 'p':
			policy = optarg;
			break;
		case 'h':
			fputs(oci_profile_help, stdout);
			return 0;
		case ':':
			return usage_error(2, "oci profile", "option '%s' needs a value", e);
		default:
			return usage_error(2, "oci profile", "unknown option '%s'", e);
		}
	}
	if (optind < argc) {
		cleanup_free char *e = escape_str(argv[optind]);

		return usage_error(2, "oci profile", "unexpected argument '%s'", e);
	}
	if ((json = oci_profile_json(socket, policy, &cause)) == NULL)
		return usage_error(2, "oci profile", "%s", cause);
	if (fputs(json, stdout) == EOF || fflush(stdout) == EOF) {
		perror("ward oci profile: stdout");
		return 1;
	}
	return 0;
}
