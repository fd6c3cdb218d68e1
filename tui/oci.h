/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * ward oci: ward as the seccomp agent of an OCI runtime (runc, crun,
 * Podman, containerd) through runtime-spec's linux.seccomp.listenerPath.
 * `ward oci profile` prints the seccomp profile that notifies on exactly
 * the calls ward's own filter traps (generated from filter.c's rules at
 * build time); `ward oci serve` takes each runtime's connection and
 * starts one ward-supervisor per container.
 */
#include <getopt.h>
#include <stdbool.h>

extern const struct option oci_opts[];

/* ward oci SUBCOMMAND ...: the dispatch. */
int	oci_main(int argc, char **argv, const char *argv0);
/* ward oci profile [--socket PATH] [--policy NAME] (tui/oci-profile.c) */
int	oci_profile_main(int argc, char **argv);
/* The profile `ward oci profile` prints, pretty-printed and ending in a
 * newline (the caller frees): listenerPath socket (NULL: the default
 * socket; it must be absolute and fit a unix socket's address),
 * listenerMetadata "policy=POLICY" when policy is not NULL (a name:
 * oci_policy_name_valid). NULL with *cause naming the option. */
char	*oci_profile_json(const char *socket, const char *policy,
	    char **cause);
/* ward oci serve [--socket PATH] [--policy FILE] (tui/oci-serve.c) */
int	oci_serve_main(int argc, char **argv, const char *argv0);
/* The socket ward oci serve listens on when --socket is not given:
 * /run/ward/oci.sock as root, else $XDG_RUNTIME_DIR/ward/oci.sock. */
char	*oci_default_socket(void);
/* A policy's name as listenerMetadata "policy=NAME" carries it, and
 * serve reads <config>/oci/NAME.ini: [A-Za-z0-9._-]{1,64}, no leading
 * dot (so never a path, "." or ".."). */
bool	oci_policy_name_valid(const char *name);
