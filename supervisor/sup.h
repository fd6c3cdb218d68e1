/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The state of one supervised run, shared by the files of ward-supervisor,
 * and the core every handler calls down into (sup.c). The layers, top
 * down: main.c (set-up, teardown) -> loop.c (the poll loop) -> control.c (consoles, CLI verbs)
 * -> unotify.c (receive, dispatch, resolve) -> the handlers files.c,
 * net.c, install.c (one kind each) -> emulate.c, grants.c -> sup.c ->
 * the leaves (target, packages, dns, filter, spawn). A file includes
 * only headers below its own; tests/layers.sh checks it.
 */
#include <limits.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <jansson.h>

#include "approvals/audit.h"
#include "approvals/msg.h"
#include "approvals/proto.h"
#include "approvals/queue.h"
#include "approvals/request.h"
#include "approvals/rules.h"
#include "config/policy.h"
#include "supervisor/hostout.h"
#include "supervisor/journal.h"
#include "supervisor/spawn.h"

struct write_call;	/* supervisor/emulate.h */
struct connect_call;	/* net.c */
struct dns_ask;		/* net.c */
struct install_call;	/* install.c */
struct http_ask;	/* intercept.c */
struct intercept;	/* intercept.c */
struct parked;
struct sup;

/*
 * What a kind of parked request does when it is answered. The kind is
 * decided once, where the request is parked; the code that answers it
 * (unotify_resolve, control.c's decide) calls through these and never
 * asks which kind it holds.
 */
struct kind_ops {
	/* Answer the call as decided (v is ALLOW, DENY, KILL, DENY on a
	 * timeout, or NONE when its asker is gone: denied, recorded so,
	 * nothing remembered) and record it; returns the verdict that
	 * took effect, for the consoles' "resolved". */
	enum verdict (*resolve)(struct sup *, struct parked *, enum verdict,
	    enum how, const char *by, const char *reason, int64_t wait_ms,
	    uint64_t request);
	/* A person's answer "for this run": remember it, so that the same
	 * request is not asked again. */
	void	(*remember)(struct sup *, const struct parked *,
	    const struct request *, enum verdict);
	/* What remember stores the answer by, when it is not the
	 * request's subject (a connect: its name:port); NULL: the subject.
	 * sup_park sends it as the request's rule (answers_pattern). */
	const char *(*grant)(const struct parked *);
	/* Free the payload (not pk itself). */
	void	(*free)(struct parked *);
	/* May this request be answered "stage" (resolve then gets
	 * VERDICT_STAGE)? NULL: never (only a write that opens a file). */
	bool	(*can_stage)(const struct parked *);
	/* Is the asker gone (the thread exited, the call was interrupted,
	 * the resolver gave up)? Asked on a timer while requests wait,
	 * never on the hot path (unotify_gone); NULL: never (an HTTP
	 * request, which the gate holds). */
	bool	(*gone)(struct sup *, const struct parked *, int64_t now);
};

/* A trapped call (or a DNS lookup) waiting for a person, as the queue's
 * data. One payload, of the kind ops says. */
struct parked {
	struct seccomp_notif req;	/* id, pid, nr, args as received */
	const struct kind_ops *ops;
	union {
		struct write_call	*write;
		struct connect_call	*connect;
		struct dns_ask		*dns;
		struct install_call	*install;
		struct http_ask		*http;
	};
	int64_t		 asked_ms;	/* monotonic */
	int64_t		 seq;		/* its "asked" row in the record */
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
struct answers;

struct pkg_grant;	/* grants.c */

#define SUP_BACKLOG	(64u << 10)

struct client {
	struct proto_conn *conn;
	bool		 watch;
	bool		 cli;		/* said client "cli" in its hello */
	bool		 greeted;	/* sent its hello */
	char		 origin[96];	/* hello's origin ("ssh from HOST",
					 * from ward relay), or "" */
	bool		 view;		/* said role "view": never decides */
	char		 user[64];	/* its uid's name, looked up at its
					 * first answer; "" before */
	int64_t		 active_ms;	/* monotonic: accepted, or its last message */
	int64_t		 behind_ms;	/* monotonic: since when it holds the
					 * program's output back; 0 when not */
};

struct sup {
	char		 id[9];
	char		*name;
	char		*command;
	char		*policy_path;
	struct policy	 policy;
	struct rules	*rules;		/* the policy's [files] rules */
	struct answers *answers;	/* answers for this run (decide.h) */
	struct queue	*queue;
	struct audit	*audit;
	struct journal	*journal;	/* the record mirrored outward; may be NULL */
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
	struct bind	*exposed;	/* [files] expose, in each home */
	size_t		 n_exposed;

	struct spawn_result sp;
	int		 rootfd;	/* the sandbox's root, O_PATH */
	int		 listener;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	size_t		 req_size, resp_size;
	bool		 sync_wakeup;

	int		 pty;		/* master, or -1 */
	int		 out_fd, err_fd;	/* pipes (headless), or -1 */
	struct hostout	 host_out, host_err;	/* headless: our fds 1 and 2 */
	int		 status_fd;	/* --status-fd, or -1 */
	/* How ward's own lines on stderr begin: "ward", or on a terminal
	 * "ward[8 hex]", a token the program cannot know (it never sees
	 * our stderr), shown in the "started" line. */
	char		 tag[16];
	struct hostout	 status;	/* its JSON Lines (sup_broadcast) */
	char		 backlog[SUP_BACKLOG];	/* recent output for new consoles */
	size_t		 backlog_len;

	struct pending_conn conns[SUP_MAX_CONNS];
	struct dns	*dns;
	struct intercept *gate;		/* ward-gate (intercept.h), or NULL */
	uint64_t	 netns_cookie;	/* the sandbox's network namespace */
	uint64_t	 private_mnt[4];	/* mount ids of /work /out /tmp /dev/shm */
	struct pkg_grant *grants;	/* approved installs (grants.c) */
	size_t		 n_grants;
	/* Sandbox paths of writes answered "stage": a later open of one
	 * gets its staged copy again, unasked (files.c). */
	char	       **staged;
	size_t		 n_staged;

	int		 ctl_fd;
	char		*ctl_path;
	struct client	 clients[SUP_MAX_CLIENTS];

	int		 sigfd;		/* SIGCHLD, spawn_forward_set()'s */
	int64_t		 grace_mono;	/* a forwarded signal's grace ends; 0 = none */
	int		 grace_signal;	/* the first signal forwarded */
	enum msg_run_state state;
	int64_t		 started_ms, ended_ms;
	int64_t		 deadline_mono;	/* [run] timeout, monotonic ms; 0 = none */
	int		 exit_code, exit_signal;
	const char	*end_reason;	/* "exit", "signal", "timeout", "killed", "record" */
	uint64_t	 next_request;
	/* Monotonic ms of the next asker-gone check, 0 while nothing is
	 * parked (unotify_gone). */
	int64_t		 gone_at;
	/* The record cannot be kept (sup_record_failed): no effect from
	 * then on, the run is stopped, ward-supervisor exits 125. */
	bool		 record_broken;
	/* Answers held back until what was recorded with them is
	 * committed (sup_respond, sup_release); the loop sets hold_answers
	 * while it runs. */
	bool		 hold_answers;
	struct seccomp_notif_resp *held;
	size_t		 n_held, cap_held;
	/* The notification just handled was answered by
	 * sup_continue_quiet and nothing else: unotify_on_ready clears it,
	 * loop.c reads it (a quiet round keeps the loop's table). */
	bool		 quiet;
	/* A container's run (ward oci serve, oci.c): the runtime's
	 * listener adopted, no sandbox of ours. */
	bool		 oci;
	bool		 oci_own_netns;	/* not the host's network namespace */
	bool		 oci_ids_identity;	/* its ids are the host's */
	int		 oci_pidfd;	/* the container's init */
	char		*oci_container;	/* the runtime's id for it */
};

/*
 * sup.c: the ways out of a handler. Every handler calls down into these,
 * never sideways into another handler; this is the only file that
 * answers the kernel (notify SEND, ADDFD, ID_VALID).
 */

/* Answer a notification: val >= 0 or -errno; flags CONTINUE lets the
 * call go on as the program made it. While the loop runs the answer is
 * held (s->resp says what it will be) until sup_release at the end of
 * the round, after the commit of what the round recorded: the program
 * never sees an answer whose event a crash could still lose. A denial or
 * a continue inside the floor thus costs no commit of its own: one per
 * round, for every answer of the round, and none when nothing was
 * recorded. */
void	sup_respond(struct sup *, uint64_t id, int64_t val, uint32_t flags);
/* After a flush (or once the record is broken, when only denials and
 * the floor's continues can be held): send the held answers. */
void	sup_release(struct sup *);
bool	sup_holding(const struct sup *);
void	sup_continue(struct sup *, uint64_t id);
/* The hot path's continue, inside the floor, with nothing recorded for
 * the call and nothing else touched (no event, request, message or
 * connection): sent at once, ahead of the held answers (they wait for
 * the commit of other calls' events; this one has none, and the thread
 * that made it waits on nothing else), and s->quiet set. */
void	sup_continue_quiet(struct sup *, uint64_t id);
/* Answer at once, ahead of the held answers, with what the record has
 * of the call still in its queue (committed by the loop within 100 ms,
 * batched with the rest): a change the policy lets the program make in
 * a writable folder, already made, whose row is an account of it, not a
 * permission (sup_respond_fd answers an open so as well). */
void	sup_respond_now(struct sup *, uint64_t id, int64_t val);
/* Hand host fd in as the syscall's return value, atomically (ADDFD with
 * SEND); the fd number it got in the target, or -errno. */
int64_t	sup_respond_fd(struct sup *, uint64_t id, int fd, bool cloexec);
/* Put hostfd in the place of the target's fd (ADDFD with SETFD), without
 * answering; 0 or -errno. */
int	sup_inject_fd(struct sup *, uint64_t id, int hostfd, int fd,
	    bool cloexec);
/* Is the notification still the same live task's? */
bool	sup_id_valid(const struct sup *, uint64_t id);
/* kind_ops.gone of a trapped call: its notification no longer valid
 * (the thread exited or was killed, or a signal interrupted the call). */
bool	sup_call_gone(struct sup *, const struct parked *, int64_t now);

/* What a record line or a request is about. cmdline and cwd are for
 * sup_park only (NULL: read from the process). */
struct sup_what {
	pid_t		 pid;
	enum request_kind kind;
	const char	*syscall;	/* may be NULL */
	const char	*subject;
	const char	*subject2;	/* may be NULL */
	const char	*detail;	/* may be NULL */
	const char	*cmdline, *cwd;
};
/* Record what was decided and tell the consoles (an "event", or, for
 * request != 0, only the record: the consoles get "resolved"). */
void	sup_record(struct sup *, const struct sup_what *, enum verdict,
	    enum how, const char *rule, const char *by, int64_t wait_ms,
	    uint64_t request);
/*
 * Write-ahead, for every effect outside the sandbox and every approval
 * (a host write, an injected connection, a continue past a request):
 * sup_intent() commits the event before the caller acts (0), or refuses
 * (-errno: the record cannot be kept, sup_record_failed has run) and the
 * caller must not act but deny. After acting, sup_done() records the
 * outcome (batched) as an update of row seq, and tells the consoles as
 * sup_record does; sup_done with seq 0 is sup_record.
 */
int	sup_intent(struct sup *, const struct sup_what *, enum verdict,
	    enum how, const char *rule, const char *by, int64_t wait_ms,
	    uint64_t request, int64_t *seq);
void	sup_done(struct sup *, int64_t seq, const struct sup_what *,
	    enum verdict, enum how, const char *rule, const char *by,
	    int64_t wait_ms, uint64_t request);
/* The record cannot be written (cause: the file and sqlite's words):
 * says so once on stderr, stops the run (end reason "record"); from
 * then on sup_intent and sup_park refuse. */
void	sup_record_failed(struct sup *, const char *cause);
/* Writes the record's queue (the batched events and output): 0, or
 * -errno after which the caller tries again later. A failure that is
 * not another writer's lock (a full disk, an I/O error, a damaged or
 * read-only file), or a lock held while events pile up past the
 * queue's bound, is sup_record_failed. */
int	sup_flush(struct sup *);
/*
 * What start-up used and no longer needs goes back to the kernel, not
 * only to malloc: the policy's parse, the resolver's configuration, the
 * record's lost-run scan and the pages it cached are freed by then, but
 * their pages stay in the process, and with hundreds of runs at once the
 * heap is most of what a supervisor does not share. The record's cached
 * pages are released (audit_shed); malloc_trim(0) returns the free pages
 * inside the heap as well as its top. About 20 us.
 */
void	sup_shed(struct sup *);
/* The same for the run itself (start, end, kill, timeout). */
void	sup_record_run(struct sup *, const char *what, enum verdict,
	    enum how, const char *by, const char *detail);
/* The record line as it is, stamped by the caller: audit + broadcast. */
void	sup_event(struct sup *, const struct audit_event *);

/* Every watching console, and the --status-fd for "request",
 * "resolved" and "state"; steals msg. */
void	sup_broadcast(struct sup *, json_t *msg);
/* One client; drops it when it falls too far behind. */
void	sup_send(struct sup *, int slot, const json_t *msg);
void	sup_drop(struct sup *, int slot);

/* Park pk (req, ops and payload filled in) as a request for a person:
 * shown as what, with why; records it as asked (committed before anyone
 * sees it), tells the consoles and queues it. Takes pk. When the record
 * cannot be kept, the call is denied at once instead. */
void	sup_park(struct sup *, struct parked *, const struct sup_what *,
	    const char *why);
/* The queue's data destructor. */
void	sup_parked_free(void *);
/* "For this run", the generic way: the run's answers remember the answer
 * for the request's kind and subject (decide.h says how each kind's
 * subject is compared); decide_*() reads them first. */
void	sup_remember(struct sup *, const struct parked *,
	    const struct request *, enum verdict);
/* The usual answer to a parked trapped call: for ALLOW, the approval is
 * committed to the record (its asked row, as intent), then allow(s, pk)
 * answers it (VERDICT_NONE when the task has gone; DENY when the record
 * cannot be kept); else -deny_errno, and the reason is shown
 * (sup_tell_denied). The verdict that took effect; the caller records it
 * with sup_done(pk->seq, ...). */
enum verdict sup_answer(struct sup *, const struct parked *, enum verdict,
	    enum how, const char *by, int64_t wait_ms, uint64_t request,
	    int deny_errno, int64_t (*allow)(struct sup *,
	    const struct parked *), const char *reason);
/* Say why a request was denied, on ward's own channels (headless: our
 * stderr; the consoles' output), never through the program's fds. */
void	sup_tell_denied(struct sup *, const char *reason);

/* End the run: SIGKILL to the sandbox's init, once. */
void	sup_kill(struct sup *, const char *reason);
/* sig to the run's init: the sandbox's by its pid (our child), a
 * container's by its pidfd (a pid of someone else's may be reused). */
void	sup_signal_init(struct sup *, int sig);
/* The limits in force, as the console and `ward log` show them. */
void	sup_limits(const struct sup *, char *, size_t);
