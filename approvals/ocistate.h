/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * What an OCI runtime sends on linux.seccomp.listenerPath (runtime-spec,
 * "container process state"): one message, SCM_RIGHTS with the
 * container's seccomp notify fd and a JSON object. The runtime may
 * close then, or not (runc 1.1 keeps the connection until it exits): the
 * message ends at the peer's close or at the end of its object. Received (ocistate_receive), read strictly into plain data
 * (ocistate_parse), and what `ward oci serve` derives from it: the run's
 * name, its policy file, the container's command.
 *
 * The runtime is root or the user serve runs as (SO_PEERCRED), but what
 * it relays is the container's: the annotations come from the image or
 * the person who ran it, and process.args from the image. Every field's
 * type and size is checked; a cause names the field and quotes at most
 * 64 bytes of input, escaped.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The whole message, JSON and all: runtime states are a few KiB. */
#define OCISTATE_MAX		(1024 * 1024)
/* Waiting for the runtime's message and its close. */
#define OCISTATE_TIMEOUT_MS	5000
#define OCISTATE_ID_MAX		256
#define OCISTATE_MAX_ANNOTATIONS 256
#define OCISTATE_KEY_MAX	1024	/* an annotation's key, bytes */
#define OCISTATE_VALUE_MAX	(256 * 1024)	/* its value: Kubernetes' total */
#define OCISTATE_NAME_MAX	63	/* the run's name */
#define OCISTATE_POLICY_MAX	64	/* metadata's policy=NAME */

struct ocistate_annotation {
	char	*key;
	char	*value;
};

struct ocistate {
	char	*oci_version;
	pid_t	 pid;		/* the container's init, a host pid */
	char	*metadata;	/* linux.seccomp.listenerMetadata; NULL: none */
	char	*id;		/* [A-Za-z0-9._-]{1,256}, not "." or ".." */
	char	*status;
	char	*bundle;	/* absolute */
	struct ocistate_annotation *annotations;
	size_t	 n_annotations;
	size_t	 seccomp_fd;	/* the index of "seccompFd" in "fds" */
};

/*
 * Reads buf[0..len) (not NUL-terminated) as a process state that came
 * with nfds descriptors: 0 and *ret, or -EINVAL (-EFBIG over
 * OCISTATE_MAX) with *cause naming the field ("state.pid: not a
 * number"). "fds" must list exactly nfds names, one of them "seccompFd".
 * Fields this file does not know are ignored (the spec may add some).
 */
int	ocistate_parse(const char *buf, size_t len, size_t nfds,
	    struct ocistate **ret, char **cause);
void	ocistate_free(struct ocistate *);
/* An annotation's value, NULL when absent. */
const char *ocistate_annotation(const struct ocistate *, const char *key);
/* Is s a container id ward accepts (struct ocistate's id)? */
bool	ocistate_id_valid(const char *s);

/*
 * The run's name, malloc'd: annotation "ward.name"; else a pod's
 * namespace/pod/container (CRI-O's io.kubernetes.pod.namespace,
 * io.kubernetes.pod.name, io.kubernetes.container.name, else
 * containerd's io.kubernetes.cri.sandbox-namespace,
 * io.kubernetes.cri.sandbox-name, io.kubernetes.cri.container-name: all
 * three present); else the id. Every byte outside [A-Za-z0-9._/-] made
 * '_', cut to OCISTATE_NAME_MAX bytes; empty: the id.
 */
char	*ocistate_name(const struct ocistate *);

/* A policy's name as metadata's policy=NAME carries it (and `ward oci
 * profile --policy` writes it): [A-Za-z0-9._-]{1,64}, no leading dot, so
 * never a path, "." or "..". The one rule: tui/oci-listener.c's
 * oci_policy_name_valid is this. */
bool	ocistate_policy_name_valid(const char *name);

/*
 * The metadata (linux.seccomp.listenerMetadata): ';'-separated
 * key=value pairs, no spaces, each key once; the only key is "policy",
 * whose value is [A-Za-z0-9._-]{1,64} without a leading dot. An unknown
 * key, an empty pair or a bad value: -EINVAL with *cause. *policy is
 * NULL when the metadata does not name one (metadata NULL or "").
 */
int	ocistate_metadata(const char *metadata, char **policy, char **cause);

/*
 * The policy file for this container, malloc'd in *ret: the metadata's
 * policy=NAME as config_dir/oci/NAME.ini, which must be a regular file
 * (-ENOENT with *cause otherwise); no policy in the metadata: fallback
 * (serve's --policy, else the shipped oci.ini), which must exist too.
 * Never a path the container chose.
 */
int	ocistate_policy_file(const struct ocistate *, const char *config_dir,
	    const char *fallback, char **ret, char **cause);

/*
 * The container's command: process.args of bundle/config.json (read
 * bounded to OCISTATE_MAX; 1 to 4096 strings, each at most PATH_MAX
 * bytes). 0 and a
 * NULL-terminated *argv; -errno with *cause when the file or its args
 * cannot be read: the caller then says "container ID".
 */
int	ocistate_bundle_args(const char *bundle, char ***argv, size_t *argc,
	    char **cause);

/*
 * A connection's message, as ocistate_receive left it. fd: the first
 * descriptor of the first message (close-on-exec), -1 when none; nfds:
 * how many that message carried (those after the first were closed).
 */
struct ocistate_msg {
	char	*buf;		/* NUL-terminated after len bytes */
	size_t	 len;
	int	 fd;
	size_t	 nfds;
	pid_t	 peer_pid;
	uid_t	 peer_uid;
};

void	ocistate_msg_init(struct ocistate_msg *);
void	ocistate_msg_done(struct ocistate_msg *);	/* closes fd */

/*
 * Receives one runtime's message on conn (a connected unix stream
 * socket; conn itself stays the caller's): the peer checked
 * (SO_PEERCRED: root or our own euid), the first message's descriptors
 * taken (MSG_CMSG_CLOEXEC; a truncated control part, MSG_CTRUNC, is
 * refused; descriptors in any later part are closed and refused), the
 * first one checked to be a seccomp listener (its /proc/self/fd link
 * "anon_inode:seccomp notify"), then bytes until the peer closes or
 * the top-level JSON value ends (brackets counted outside strings), at
 * most OCISTATE_MAX, within timeout_ms. 0; or -errno with *cause, every
 * descriptor received closed. msg->peer_pid is filled either way (0
 * when SO_PEERCRED failed) for the caller's line.
 */
int	ocistate_receive(int conn, int timeout_ms, struct ocistate_msg *msg,
	    char **cause);
/* Is fd a seccomp listener? 0, -EBADF or -EINVAL with *cause naming
 * what it is. */
int	ocistate_fd_is_listener(int fd, char **cause);
