#pragma once
/*
 * The state of one supervised run, shared by the files of ward-supervisor:
 * main.c (set-up and teardown), loop.c (the poll loop), unotify.c
 * (notifications), emulate.c (approved writes), control.c (consoles and
 * CLI verbs).
 */
#include <limits.h>
#include <poll.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <jansson.h>

#include "approvals/audit.h"
#include "approvals/proto.h"
#include "approvals/queue.h"
#include "approvals/request.h"
#include "approvals/rules.h"
#include "config/policy.h"
#include "supervisor/spawn.h"

enum op {
	OP_OPEN, OP_MKDIR, OP_MKNOD, OP_UNLINK, OP_RMDIR, OP_RENAME,
	OP_LINK, OP_SYMLINK, OP_TRUNCATE, OP_CHMOD, OP_CHOWN, OP_UTIMES,
	OP_SETXATTR, OP_REMOVEXATTR, OP_CONNECT, OP_DNS, OP_EXEC,
};

/* One trapped call, decoded and copied out of the target. The path
 * buffers come last: decode() clears everything before them. */
struct call {
	enum op		 op;
	const char	*name;		/* syscall name */
	int		 dirfd, dirfd2;
	bool		 two;		/* path2 is a path to judge */
	bool		 follow, follow2;
	uint64_t	 flags;		/* open flags, unlinkat/renameat2/linkat flags */
	uint64_t	 mode;
	uint64_t	 length;	/* truncate */
	uint32_t	 uid, gid;	/* chown, inside ids */
	bool		 times_null;
	struct timespec	 times[2];
	char		 xname[256];	/* xattr name */
	size_t		 xsize;
	unsigned char	*xvalue;	/* malloc'd */
	int		 xflags;
	int		 sockfd;	/* connect: the target's fd */
	struct policy_host *hosts;	/* install: registry hosts (owned) */
	size_t		 n_hosts;
	socklen_t	 salen;
	struct sockaddr_storage sa;	/* connect: the copied address */
	char		 raw[PATH_MAX];	/* path as the program wrote it */
	char		 raw2[PATH_MAX];	/* second path, or link text */
	char		 path[PATH_MAX];	/* resolved, sandbox view */
	char		 path2[PATH_MAX];	/* second path resolved, or "" */
};

struct parked {
	struct seccomp_notif req;	/* id, pid, nr, args as received */
	struct call	 call;
	int64_t		 asked_ms;	/* monotonic */
};

#define SUP_MAX_CLIENTS	32
#define SUP_MAX_CONNS	64

/* A connection made for a blocking connect(), answered once it is up. */
struct pending_conn {
	int		 hostfd;	/* -1 = free slot */
	uint64_t	 notif_id;
	pid_t		 pid;
	int		 target_fd;
	bool		 cloexec;
	int64_t		 deadline;	/* monotonic ms */
};

struct dns;
struct net_dest;
struct run_grants;

/* An approved install: its process tree may reach these hosts while it
 * runs. */
struct pkg_grant {
	pid_t		 pid;		/* host pid of the install */
	uint64_t	 start;		/* its start time, against pid reuse */
	char		 manager[16];
	struct policy_host *hosts;
	size_t		 n_hosts;
};

#define SUP_BACKLOG	(64u << 10)

struct client {
	struct proto_conn *conn;
	bool		 watch;
	bool		 cli;		/* said client "cli" in its hello */
};

enum run_state { RUN_STARTING, RUN_RUNNING, RUN_EXITED };

struct sup {
	char		 id[9];
	char		*name;
	char		*command;
	char		*policy_path;
	struct policy	 policy;
	struct rules	*rules;		/* the policy's [files] rules */
	struct run_grants *run_grants;	/* answers for this run (decide.h) */
	struct queue	*queue;
	struct audit	*audit;
	bool		 headless;
	bool		 landlock;
	uid_t		 uid;
	uid_t		 inner_uid;
	gid_t		 inner_gid;

	char		*run_dir, *work, *out, *before, *root;
	char		*resolv_conf;	/* host file bound on /etc/resolv.conf */
	char		*passwd, *group;	/* bound on /etc/passwd, /etc/group */
	char	       **hidden;	/* the policy's hidden paths and ours */
	size_t		 n_hidden;
	struct bind	*binds;		/* the mount map, for emulation */
	size_t		 n_binds;

	struct spawn_result sp;
	int		 rootfd;	/* the sandbox's root, O_PATH */
	int		 listener;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	size_t		 req_size, resp_size;
	bool		 sync_wakeup;

	int		 pty;		/* master, or -1 */
	int		 out_fd, err_fd;	/* pipes (headless), or -1 */
	char		 backlog[SUP_BACKLOG];	/* recent output for new consoles */
	size_t		 backlog_len;

	struct pending_conn conns[SUP_MAX_CONNS];
	struct dns	*dns;
	uint64_t	 netns_cookie;	/* the sandbox's network namespace */
	uint64_t	 private_mnt[4];	/* mount ids of /work /out /tmp /dev/shm */
	struct pkg_grant *grants;
	size_t		 n_grants;

	int		 ctl_fd;
	char		*ctl_path;
	struct client	 clients[SUP_MAX_CLIENTS];

	int		 sigfd;		/* SIGCHLD, SIGINT, SIGTERM, SIGHUP */
	enum run_state	 state;
	int64_t		 started_ms, ended_ms;
	int64_t		 deadline_mono;	/* [run] timeout, monotonic ms; 0 = none */
	int		 exit_code, exit_signal;
	const char	*end_reason;	/* "exit", "signal", "timeout", "killed" */
	uint64_t	 next_request;
};

/* unotify.c */
/* Answer a notification: val >= 0 or -errno; flags CONTINUE lets the
 * call go on as the program made it. */
void	sup_respond(struct sup *, uint64_t id, int64_t val, uint32_t flags);
void	sup_continue(struct sup *, uint64_t id);
void	unotify_on_ready(struct sup *);
/* Answer a parked request; how/by for the record. */
void	unotify_resolve(struct sup *, uint64_t request, enum verdict,
	    enum how, const char *by, const char *reason);
/* Deny, as nobody answered, every parked request due by now (monotonic). */
void	unotify_expire(struct sup *, int64_t now);
void	unotify_parked_free(void *);	/* queue data destructor */
void	unotify_park_request(struct sup *, struct request *, struct parked *);

/* emulate.c: perform an approved call on the host; the value to answer
 * (>= 0, or -errno), or sets *inject_fd to a host fd to hand in. */
int64_t	emulate_call(struct sup *, const struct parked *, int *inject_fd);
/* The host path behind a sandbox path, or NULL (no host counterpart). */
char	*emulate_host_path(const struct sup *, const char *inside);

/* net.c */
int	net_on_connect(struct sup *, const struct seccomp_notif *, struct call *,
	    char **why);
int	net_swap(struct sup *, uint64_t id, pid_t, const struct call *,
	    int64_t *result);
void	net_on_sendto(struct sup *, const struct seccomp_notif *);
void	net_on_bind(struct sup *, const struct seccomp_notif *);
void	net_on_fastopen(struct sup *, const struct seccomp_notif *);
void	net_learn_netns(struct sup *, int fd_inside);
void	net_learn_mounts(struct sup *);
/* The DNS stub's hooks (ctx is the sup). */
int	net_dns_start(struct sup *, int udp_fd, int tcp_fd, char **cause);
void	net_dns_answered(struct sup *, const char *name, bool allow);
/* The pending connects' poll contract, shaped as dns.h's: the fds to poll
 * (at most max), the same slice back after poll, the next monotonic
 * deadline (0 = none), and the tick once it has passed. */
size_t	net_pollfds(struct sup *, struct pollfd *, size_t max);
void	net_on_ready(struct sup *, const struct pollfd *, size_t n);
int64_t	net_next_deadline(const struct sup *);
void	net_tick(struct sup *, int64_t now);

/* install.c */
int	install_on_exec(struct sup *, const struct seccomp_notif *,
	    const char *path, char *const argv[], const char *joined);
void	install_resolve(struct sup *, struct parked *, enum verdict,
	    enum how, const char *by, const char *reason, int64_t wait_ms,
	    uint64_t request);
bool	install_allows(struct sup *, pid_t, const struct net_dest *,
	    const char **which);
bool	install_allows_name(struct sup *, const char *name);
void	install_done(struct sup *);
/* Does path (as an exec names it) exist in the sandbox? */
bool	install_exists_inside(const struct sup *, pid_t, const char *path);

/* control.c */
void	control_on_accept(struct sup *);
void	control_on_client(struct sup *, int slot, short revents);
void	control_broadcast(struct sup *, json_t *msg);	/* steals msg */
json_t	*control_run_json(const struct sup *);
void	control_output(struct sup *, const char *stream, const void *,
	    size_t);
void	control_close_all(struct sup *);

/* main.c */
void	sup_limits(const struct sup *, char *, size_t);
void	sup_kill(struct sup *, const char *reason);
void	sup_event(struct sup *, const struct audit_event *);	/* record + broadcast */
/* A KIND_RUN event (start, exit, kill, timeout) of the run itself. */
void	record_run_event(struct sup *, const char *what, enum verdict,
	    enum how, const char *by, const char *detail);
