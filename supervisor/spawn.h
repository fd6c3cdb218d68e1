/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Starting the sandbox: clone into new user, pid, mount, net, ipc, uts and
 * cgroup namespaces; the child (pid 1 inside) builds the private mount
 * tree and forks the program, which loads the seccomp filter, hands the
 * listener to the supervisor and execs.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/filter.h"

#define SPAWN_MAX_HIDDEN	128
/* The system bundles the gate's is bound over, where the host has them. */
#define SPAWN_SYSTEM_BUNDLE	"/etc/ssl/certs/ca-certificates.crt"
#define SPAWN_SYSTEM_CERT_PEM	"/etc/ssl/cert.pem"
#define SPAWN_GATE_BUNDLE	"/run/ward/bundle.pem"
#define SPAWN_GATE_CA		"/run/ward/ca.pem"

struct bind {
	char	*host;		/* host path */
	char	*inside;	/* path in the sandbox */
	bool	 writable;
	/* One of the policy's writable folders, the host's own: each change
	 * in it is done by the supervisor and recorded, and a protected
	 * name in it asked (files.c). Not work/, out/ or a project. */
	bool	 host_write;
	bool	 is_dir;
	int	 tree_fd;	/* an idmapped copy of host to move there, or -1 */
	/* A project staged in an overlay (supervisor/project.h): host is
	 * the lower layer, these the upper and work folders; else NULL. */
	char	*upper;
	char	*workdir;
	bool	 project;	/* a project (overlay or copy): writes staged */
};

struct spawn_config {
	char	*const *argv;
	char	*const *envp;
	const char *root;	/* empty host folder the root tmpfs is mounted on */
	struct bind *binds;	/* in mount order; work, out included */
	size_t	 n_binds;
	char	*const *hidden;	/* sandbox paths to hide, wherever the tree
				 * shows them (credential stores included) */
	size_t	 n_hidden;
	struct bind *exposed;	/* read-only binds over hidden paths */
	size_t	 n_exposed;
	const char *cwd;	/* in the sandbox */
	/* Said after "cannot run CMD: No such file or directory": why the
	 * program is not found inside, or NULL. */
	const char *not_found;
	/* CMD as the host's PATH finds it, when the sandbox shows it there
	 * too: exec'd by this path (argv[0] kept); NULL: argv[0] is looked
	 * up on the sandbox's PATH. */
	const char *exec_path;
	int	 stdio[3];	/* fds for the program (pty slave or pipes) */
	bool	 set_ctty;	/* stdio[0] is a pty slave: make it the ctty */
	uid_t	 outer_uid;	/* who runs ward */
	gid_t	 outer_gid;
	uid_t	 inner_uid;	/* the program's ids inside */
	gid_t	 inner_gid;
	uint64_t memory;	/* RLIMIT_DATA bytes, 0 = none */
	unsigned pids;		/* RLIMIT_NPROC, 0 = none */
	unsigned cpu;		/* RLIMIT_CPU seconds, 0 = none */
	uint64_t file_size;	/* RLIMIT_FSIZE bytes, 0 = none */
	unsigned open_files;	/* RLIMIT_NOFILE, 0 = inherited */
	bool	 landlock;
	const char *resolv_conf;	/* host file naming the DNS stub; NULL = no stub */
	const char *passwd;	/* host files bound on /etc/passwd and /etc/group */
	const char *group;	/* (naming the program's ids), or NULL */
	/* The TLS gate's (issue 19), host files, or NULL: the bundle (the
	 * host's CAs and the run's) bound over the system bundles the
	 * sandbox shows and on SPAWN_GATE_BUNDLE, the run's CA alone on
	 * SPAWN_GATE_CA. */
	const char *ca_bundle;
	const char *ca_cert;
	const struct sock_fprog *filter;	/* filter_program() */
	/* Called while the child builds its mount tree (the supervisor
	 * would only wait): 0, or -errno with *cause to stop the start. */
	int	(*meanwhile)(void *ctx, char **cause);
	void	*ctx;
};

struct spawn_result {
	pid_t	 init_pid;	/* host pid of the sandbox's init */
	int	 listener;	/* seccomp listener fd (supervisor owns it) */
	int	 status_fd;	/* init writes the program's wait status here */
	int	 go_fd;		/* write one byte to let the program exec */
	int	 err_fd;	/* child errors ("mount /usr: ...") until exec */
	int	 landlock_abi;	/* 0 = not applied */
	int	 dns[2];	/* the stub's UDP and TCP sockets, or -1 */
};

/* 0 or -errno with *cause. On success the program waits for a byte on
 * go_fd before it execs; errors after that arrive on err_fd. */
int	spawn_sandbox(const struct spawn_config *, struct spawn_result *,
	    char **cause);
/*
 * When ward runs as root the program is uid/gid `uid`/`gid`, nobody to
 * the host's folders: each bind of a folder owned by someone else gets
 * tree_fd, a detached copy of it whose owner's ids show as the program's
 * (and files the program makes belong to that owner on the host). A
 * folder the kernel or its filesystem cannot map keeps its ids; *notes
 * gets one line for it. 0, or -errno with *cause.
 */
int	spawn_idmap_binds(struct bind *, size_t, uid_t uid, gid_t gid,
	    char ***notes, size_t *n_notes, char **cause);
/* The best Landlock ABI of this kernel, or 0. */
int	spawn_landlock_abi(void);
/* Adds the signals forwarded to the program (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGUSR1, SIGUSR2) to set. */
void	spawn_forward_set(sigset_t *);
